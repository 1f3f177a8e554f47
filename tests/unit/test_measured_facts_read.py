"""Measured facts are used (issue 23 §6): every measurement calibration records is read by the rules whose
subject it concerns, in their conditions (when / overrides / recommend), directly or through a derived fact.

Which rules read which measurement is computed from the rule files and the derived facts' code, not listed:
a rule reads `calibration.fsync_ms` when one of its condition paths is under it, or is a derived fact whose
function names a path under it (followed through derived facts that name other derived facts). The test
then asserts that no measurement is unread and that the rules of each measurement's subject are among its
readers, each with a firing and a quiet example that carries the measured value.
"""

from __future__ import annotations

import inspect
import re

import pytest

from advisor.collect.calibrate import FACT
from advisor.rules.derived import DERIVED
from advisor.rules.loader import load_rules

RULES = {r.id: r for r in load_rules()}
PATH = re.compile(r"""["']((?:calibration|derived)\.[a-z0-9_.]+)["']""")

# what each derived fact's function names (its inputs), from its source
DERIVED_INPUTS = {name: set(PATH.findall(inspect.getsource(d.fn))) for name, d in DERIVED.items()}

# the measurements: one per calibration probe (advisor.collect.calibrate.FACT, the path each probe fills)
MEASURED = sorted(FACT.values())

# the rules whose subject each measurement concerns: flush, I/O and durability settings against the
# measured device; network rules against the measured round trip and stream; TLS rules against its cost
SUBJECT = {
    "calibration.fsync_ms": {"flush-slow-durable-commits", "nvme-client-no-plp", "redo-small-on-slow-flush-device",
                             "durability-relaxed", "doublewrite-disabled", "flush-method-fsync",
                             "io-capacity-high-for-hdd", "io-capacity-low-for-flash"},
    "calibration.commit_ms": {"flush-slow-durable-commits"},
    "calibration.rtt_ms": {"network-round-trip-long", "flush-slow-durable-commits"},
    "calibration.stream": {"network-link-saturated", "network-path-bottleneck", "network-route-slow-link"},
    "calibration.tls": {"tls-measured-cost", "tls-in-use"},
    "calibration.sort_probe": {"sort-buffer-measured-slower", "sort-buffer-oversized"},
}

# hand-written rules about a flush or durability setting that do not judge it against the measured device,
# and why (every other rule naming one of these variables must read the flush measurement)
FLUSH_VARIABLES = {"innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_flush_method", "innodb_io_capacity",
                   "innodb_doublewrite"}
NOT_ABOUT_THE_DEVICE = {
    "flush-log-at-commit-zero": "about commits lost when mysqld alone crashes, which no device speed changes",
    "flush-log-timeout-long": "about the length of the loss window, set by a timer, not by the device",
    "durability-settings-stated": "asks a benchmark to state its settings; the measured flush is stated by "
                                  "flush-slow-durable-commits",
    "binary-log-stated": "asks a benchmark to state its binary log settings",
    # symptom entries (src/advisor/knowledge/symptoms.toml): they judge what the server's own counters
    # show happened, which already includes the device's speed
    "buffer-pool-wait-free": "a status counter: threads waited for a free page, whatever the device",
    "checkpoint-age-near-max": "a status gauge: how close the redo checkpoint age came to its limit",
    "data-fsyncs-pending": "a status gauge: flushes the server had queued at the moment it was read",
    "data-writes-pending": "a status gauge: writes the server had queued at the moment it was read",
    "dirty-pages-share-high": "a status gauge: the share of modified pages in the buffer pool",
    "redo-fsyncs-pending": "a status gauge: redo flushes queued at the moment it was read",
}


def _expand(path: str, seen: set[str]) -> set[str]:
    if path in seen:
        return set()
    seen.add(path)
    out = {path}
    if path.startswith("derived."):
        for p in DERIVED_INPUTS.get(path.split(".", 1)[1], ()):
            out |= _expand(p, seen)
    return out


def reads(rule) -> set[str]:
    """Every calibration path a rule's conditions read, through derived facts."""
    seen: set[str] = set()
    out: set[str] = set()
    for p in rule.fact_paths():
        out |= _expand(p, seen)
    return {p for p in out if p.startswith("calibration.")}


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + ".")


READERS = {m: sorted(rid for rid, r in RULES.items() if any(_under(p, m) for p in reads(r))) for m in MEASURED}


def test_the_map_is_computed_from_the_rule_files():
    # a rule known to read the flush measurement in its `when`, and one known not to
    assert "flush-slow-durable-commits" in READERS["calibration.fsync_ms"]
    assert not any("sort-merge-passes-frequent" in rs for rs in READERS.values())
    # derived facts are followed: tls-measured-cost reads calibration.tls through derived.tls_query_latency_ratio
    assert "calibration.tls.query_ratio" in reads(RULES["tls-measured-cost"])


@pytest.mark.parametrize("measured", MEASURED)
def test_every_measurement_is_read(measured):
    print(f"{measured}: {', '.join(READERS[measured]) or '(no rule)'}")
    assert READERS[measured], f"no rule reads {measured} in its conditions"


@pytest.mark.parametrize("measured", MEASURED)
def test_subject_rules_read_the_measurement(measured):
    missing = sorted(SUBJECT[measured] - set(READERS[measured]))
    assert not missing, f"{measured} is not read by {', '.join(missing)}"


def test_every_probe_has_subject_rules():
    assert set(SUBJECT) == set(MEASURED)


CASES = [(m, rid) for m in MEASURED for rid in sorted(SUBJECT[m])]


@pytest.mark.parametrize("measured,rule_id", CASES, ids=[f"{m.split('.')[1]}:{r}" for m, r in CASES])
def test_subject_rule_has_examples_with_the_measured_value(measured, rule_id):
    def carries(ex) -> bool:
        return any(_under(k, measured) or _under(measured, k) for k in ex.facts)
    exs = [ex for ex in RULES[rule_id].spec.examples if carries(ex)]
    assert any(ex.expect == "fired" for ex in exs), f"{rule_id}: no firing example carries {measured}"
    assert any(ex.expect in ("passed", "not_applicable") for ex in exs), \
        f"{rule_id}: no quiet example carries {measured}"


def test_flush_and_durability_rules_judge_against_the_measured_device():
    subject = sorted(rid for rid, r in RULES.items()
                     if r.variable is None and FLUSH_VARIABLES & set(r.spec.variables))
    unread = [rid for rid in subject if rid not in READERS["calibration.fsync_ms"] and rid not in NOT_ABOUT_THE_DEVICE]
    assert not unread, f"flush/durability rules that ignore the measured flush: {', '.join(unread)}"
    assert set(NOT_ABOUT_THE_DEVICE) <= set(subject), "an exemption names a rule that is no longer about these settings"
