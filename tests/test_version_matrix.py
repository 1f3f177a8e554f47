"""The rule catalogue against the version matrix: each recorded set in tests/fixtures/flavors/
(MySQL 5.7, 8.0.28, 8.0.36, 8.4, Percona 8.0, MariaDB 10.6, 10.11, 11.4, TiDB 5.1, 7.5; see each
PROVENANCE.md) is served over the real MySQL protocol by tests/support/wire_server.py, collected by
the advisor's real collector, and audited with both purposes. The findings (rule id -> severity) and
the rules that could not judge (unknown) must equal expected-findings.toml beside the set (two tables
per purpose; TOML rather than JSON so that the set's own *.json files stay the recorded data its
PROVENANCE.md describes). Passes and not-applicable outcomes are not recorded: a new rule or entry
that stays quiet on a set changes no expected file, and test_every_rule_evaluates_without_error
still runs every rule on every set.

The expected files are reviewed goldens. After a deliberate rule change, regenerate them with
    python3 -m pytest tests/test_version_matrix.py --update-golden
and review the diff like code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from advisor import api
from advisor.collect.connection import ConnectionOptions
from advisor.rules.engine import evaluate
from advisor.rules.loader import load_rules
from advisor.knowledge import default_catalogue
from tests.support.wire_server import ReplayServer

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SETS_DIR = Path(__file__).resolve().parent / "fixtures" / "flavors"
SETS = sorted(p.name for p in SETS_DIR.iterdir() if (p / "variables.json").is_file())
PURPOSES = ("production", "benchmark")
RULES = load_rules()
FACT_WORDS = ("var.", "status.", "rate.", "host", "client", "server.", "derived.", "calibration", "target.")

_SNAPSHOTS: dict[str, object] = {}


def snapshot(name: str):
    if name not in _SNAPSHOTS:
        with ReplayServer.from_set(name) as srv:
            # machine=False: the replayed set's host is not this test machine, so its host facts and
            # network path (issue 3) stay out and the goldens do not depend on where the tests run
            _SNAPSHOTS[name] = api.collect(ConnectionOptions(host="127.0.0.1", port=srv.port, user="root",
                                                             password="", no_defaults=True), machine=False)
    return _SNAPSHOTS[name]


def findings(name: str, purpose: str) -> dict[str, str]:
    outs = evaluate(snapshot(name), RULES, purpose, catalogue=default_catalogue())
    return {o.rule: o.finding.severity for o in outs if o.status == "fired" and o.finding is not None}


def unknown(name: str, purpose: str) -> dict[str, str]:
    """Every rule that could not judge the set, with the fact it lacked (its reason)."""
    outs = evaluate(snapshot(name), RULES, purpose, catalogue=default_catalogue())
    return {o.rule: o.reason for o in outs if o.status == "unknown"}


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def expected_text(name: str) -> str:
    lines = [f"# Expected findings (rule id = severity) of the rule catalogue on the recorded set {name},",
             "# and the rules that could not judge it ([<purpose>-unknown]: rule id = reason); passes are not",
             "# recorded. Checked by tests/test_version_matrix.py. Regenerate with",
             "# `python3 -m pytest tests/test_version_matrix.py --update-golden` and review the diff."]
    for purpose in PURPOSES:
        lines += ["", f"[{purpose}]"]
        lines += [f'"{rule}" = "{sev}"' for rule, sev in sorted(findings(name, purpose).items())]
    for purpose in PURPOSES:
        lines += ["", f"[{purpose}-unknown]"]
        lines += [f'"{rule}" = {_toml_str(why)}' for rule, why in sorted(unknown(name, purpose).items())]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("purpose", PURPOSES)
@pytest.mark.parametrize("name", SETS)
def test_findings_equal_expected(name, purpose, golden):
    path = SETS_DIR / name / "expected-findings.toml"
    if golden.update:
        golden.check(path, expected_text(name))
    assert path.is_file(), f"missing {path}; create it with `python3 -m pytest --update-golden` and review it"
    want = tomllib.loads(path.read_text(encoding="utf-8"))
    assert findings(name, purpose) == want[purpose]
    assert unknown(name, purpose) == want[f"{purpose}-unknown"]


@pytest.mark.parametrize("purpose", PURPOSES)
@pytest.mark.parametrize("name", SETS)
def test_every_rule_evaluates_without_error(name, purpose):
    outs = evaluate(snapshot(name), RULES, purpose, catalogue=default_catalogue())
    assert len(outs) == len(RULES)
    for o in outs:
        assert o.status in ("fired", "passed", "not_applicable", "unknown"), o
        assert o.reason, o.rule
        if o.status == "unknown":
            assert any(w in o.reason for w in FACT_WORDS), f"{o.rule}: unknown without naming the fact: {o.reason}"
        if o.status == "fired":
            f = o.finding
            assert f is not None and f.message and f.references
            assert "unknown" not in f.message.split(), f"{o.rule}: unresolved placeholder: {f.message}"


def test_84_defaults_do_not_fire_what_80_defaults_fire():
    old, new = findings("mysql-8.0.36", "benchmark"), findings("mysql-8.4", "benchmark")
    for rule in ("io-capacity-low-for-flash", "log-buffer-small", "flush-method-fsync", "change-buffering-enabled",
                 "adaptive-hash-index-contention"):
        assert rule in old, rule
        assert rule not in new, rule
    assert "io-capacity-low-for-flash" in findings("mysql-8.0.28", "benchmark")


def test_tidb_51_default_globals_fire_transaction_and_plan_cache_findings():
    got = findings("tidb-5.1", "benchmark")
    for rule in ("tidb-async-commit-off", "tidb-1pc-off", "tidb-prepared-plan-cache-off"):
        assert got.get(rule) == "warning", (rule, got)
    newer = findings("tidb-7.5", "benchmark")
    for rule in ("tidb-async-commit-off", "tidb-1pc-off", "tidb-prepared-plan-cache-off"):
        assert rule not in newer


def test_version_traps_per_set():
    assert "query-cache-enabled" not in findings("mysql-5.7", "production")  # 5.7 default: OFF
    assert "max-allowed-packet-small" in findings("mysql-5.7", "production")  # 5.7 default 4 MiB
    assert "max-allowed-packet-small" not in findings("mysql-8.0.36", "production")
    assert "deprecated-variable-set" in findings("percona-8.0", "production")   # innodb_log_file_size set on 8.0.32
    for name in ("mariadb-10.6", "mariadb-10.11", "mariadb-11.4"):
        assert "flush-method-fsync" not in findings(name, "production")  # O_DIRECT default from 10.6
