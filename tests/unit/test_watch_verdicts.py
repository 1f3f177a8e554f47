"""The watch verdict catalogue (rules/watch/): every embedded example through the real evaluator (one
test id each), registry meta-tests, load errors that name the file and field, generated pages."""

from pathlib import Path

import pytest

from advisor.errors import RuleLoadError
from advisor.rules.loader import load_rules
from advisor.watch.facts import FACTS
from advisor.watch.verdicts import EVALUATOR_FACTS, WatchView, evaluate, load_verdicts, parse_verdict, run_example

ROOT = Path(__file__).resolve().parents[2]
VERDICTS = load_verdicts()
CASES = [(v, ex) for v in VERDICTS for ex in v.spec.examples]
KINDS_REQUIRED = {"network-bound", "tls-bound", "client-cpu-bound", "server-cpu-bound", "io-bound", "flush-bound",
                  "lock-bound", "memory-allocation-bound", "no-load", "no-bottleneck-found"}


@pytest.mark.parametrize("verdict,example", CASES, ids=[f"{v.id}:{ex.name}" for v, ex in CASES])
def test_example(verdict, example):
    result = run_example(verdict, example)
    assert result.ok, "; ".join(result.problems)


@pytest.mark.parametrize("verdict", VERDICTS, ids=[v.id for v in VERDICTS])
def test_verdict_has_firing_and_quiet_example(verdict):
    expects = {ex.expect for ex in verdict.spec.examples}
    assert "fired" in expects and expects & {"passed", "not_applicable"}
    assert len({ex.name for ex in verdict.spec.examples}) == len(verdict.spec.examples)
    assert verdict.path.endswith(f"/{verdict.id}.toml")


def test_the_issue_lists_every_verdict():
    assert KINDS_REQUIRED <= {v.id for v in VERDICTS}
    # no-load kind: verdicts saying there is nothing to judge (idle, a failed benchmark, the server gone, another server)
    assert {v.id for v in VERDICTS if v.spec.kind == "no-load"} == {"no-load", "benchmark-failed", "server-went-away",
                                                                     "other-server"}
    assert [v.spec.kind for v in VERDICTS].count("none-found") == 1


def test_ids_are_unique_across_rules_and_verdicts():
    rules = {r.id for r in load_rules()} | {a for r in load_rules() for a in r.spec.aliases}
    assert not rules & {v.id for v in VERDICTS}, "a verdict id must not shadow an audit rule (advisor explain)"


def test_causes_are_audit_rules():
    rules = {r.id for r in load_rules()}
    for v in VERDICTS:
        missing = [c for c in v.spec.causes if c not in rules]
        assert not missing, f"{v.id}: causes name unknown audit rules {missing}"


def test_every_watch_fact_a_verdict_names_exists_and_every_example_fact_is_used():
    for v in VERDICTS:
        paths = v.when.facts() + (v.applies_when.facts() if v.applies_when else [])
        for p in paths:
            assert not p.startswith("watch.") or p in FACTS or p in EVALUATOR_FACTS, (v.id, p)


def test_audit_rules_are_not_loaded_from_the_watch_directory():
    assert not any(r.path.startswith("rules/watch/") for r in load_rules())


def test_two_passes_no_bottleneck_lists_what_was_checked():
    values = {"watch.load.busy": True, "watch.load.qps": 120.0, "watch.net.loopback": False,
              "watch.net.utilisation": 0.04, "watch.net.where": "the client's interface eth0",
              "watch.net.direction": "sends", "watch.net.mbytes_per_s": 5.0, "watch.net.ceiling_mbps": 1000,
              "watch.server.cpu.busy": 0.2, "watch.cpu.top": "mysqld", "watch.server.cpus": 8,
              "watch.server.mysqld.cores": 1.2}
    results = evaluate(VERDICTS, WatchView(values, {}))
    first = results[0]
    assert first.verdict.id == "no-bottleneck-found" and first.fired
    msg = first.outcome.finding.message
    assert "120 queries per second" in msg and "eth0 sends 5.0 MB/s, 4% of 1,000 Mb/s" in msg
    assert "server CPU: 20% busy of 8 CPUs, mysqld 1.20 CPUs" in msg
    assert "not judged" in msg  # facts the example did not give are named, not guessed
    statuses = {r.verdict.id: r.outcome.status for r in results}
    assert statuses["network-bound"] == "passed" and statuses["no-load"] == "passed"


def test_fired_verdicts_lead_by_rank():
    values = {"watch.load.busy": True, "watch.tls.share": 1.0, "watch.tls.basis": "8 TLS handshakes",
              "watch.server.cpu.busy": 0.99, "watch.client.cpu.busy": 0.3, "watch.cpu.top": "mysqld",
              "watch.server.cpu.system_of_busy": 0.3, "watch.tps": 20000, "watch.server.cpus": 2,
              "watch.server.mysqld.cores": 1.2, "watch.server.mysqld.share": 0.6, "watch.server.cpu.user": 0.7,
              "watch.server.cpu.system": 0.29, "watch.load.qps": 20000, "watch.same_host": False,
              "watch.sysbench.rate_limited": False}
    fired = [r.verdict.id for r in evaluate(VERDICTS, WatchView(values, {})) if r.fired]
    assert fired[:2] == ["tls-bound", "server-cpu-bound"]


BAD = '''
id = "bad-one"
title = "t"
kind = "bottleneck"
rank = 5
severity = "warning"
rationale = "r"
checks = "c"
message = "m"
references = ["https://example.org/"]
[when]
all = [ {{ fact = "{fact}", op = "{op}", value = 1 }} ]
[[examples]]
name = "a"
expect = "fired"
[[examples]]
name = "b"
expect = "passed"
'''


@pytest.mark.parametrize("fact,op,wanted", [
    ("watch.no.such", "ge", "no watch fact named 'watch.no.such'"),
    ("watch.net.utilisation", "gte", "expected one of"),
    ("nowhere.x", "ge", "unknown fact namespace"),
])
def test_load_errors_name_file_and_field(fact, op, wanted):
    with pytest.raises(RuleLoadError) as e:
        parse_verdict(BAD.format(fact=fact, op=op), "rules/watch/bad-one.toml")
    assert str(e.value).startswith("rules/watch/bad-one.toml: when") and wanted in str(e.value)


def test_unknown_key_is_a_load_error():
    with pytest.raises(RuleLoadError, match="bad-one.toml: colour: unknown key"):
        parse_verdict('colour = "red"\n' + BAD.format(fact="watch.tps", op="ge"), "rules/watch/bad-one.toml")
    with pytest.raises(RuleLoadError, match=r"bad-one.toml: examples\[1\].colour: unknown key"):
        parse_verdict(BAD.format(fact="watch.tps", op="ge") + 'colour = "red"\n', "rules/watch/bad-one.toml")


# (the verdicts' pages, index and fact reference are checked with every other page in tests/unit/test_pages.py)
