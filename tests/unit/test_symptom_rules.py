"""The symptoms rule family (advisor.rules.symptoms): one generated rule per entry of
src/advisor/knowledge/symptoms.toml, evaluated by the engine like any rule. Its examples come from the
entry (past the threshold fires, the quiet side passes, a sample below the minimum is unknown), each
counter has one entry and no hand-written rule judges the same counter, every entry is reproduced by a
live test or names why not and a recorded set that has the counter, and `advisor rules list` counts them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from advisor.knowledge.schema import Symptom
from advisor.knowledge.symptoms import entries, load
from advisor.render.pages import all_pages
from advisor.rules.catalogue import build_catalogue
from advisor.rules.engine import evaluate
from advisor.rules.examples import example_snapshot
from advisor.rules.examples_run import run_examples
from advisor.rules.loader import load_entries
from advisor.rules.symptoms import is_symptom
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = load_entries()
VARIABLES = CATALOGUE.variables
MADE = [r for r in CATALOGUE.rules if is_symptom(r)]
HAND = [r for r in CATALOGUE.rules if r.id not in CATALOGUE.generated]
ENTRIES = entries()
LIVE_TESTS = (ROOT / "tests" / "integration" / "test_symptoms_live.py").read_text(encoding="utf-8")
# the hand-written rules this family took over (same counter, same judgement); their ids live on as entry ids
TAKEN_OVER = ("tmp-tables-spill-to-disk", "sort-merge-passes-frequent", "full-joins-frequent", "key-cache-miss-rate-high",
              "table-lock-contention", "binlog-cache-spills-to-disk", "aborted-connects-high",
              "performance-schema-data-lost")


def test_one_rule_per_entry_and_the_counts():
    assert [r.id for r in MADE] == list(ENTRIES)
    assert len(MADE) >= 60
    # issue 23 §5: at least 60 entries whose firing is reproduced on a live mariadbd by a workload
    assert sum(1 for e in ENTRIES.values() if e.live) >= 60
    assert set(r.id for r in MADE) <= set(CATALOGUE.generated)
    for old in TAKEN_OVER:
        assert not list((ROOT / "rules").rglob(f"{old}.toml")), f"{old}: the hand-written file is gone"
        assert old in ENTRIES


def test_the_generator_is_pure_and_matches_the_cached_rules():
    fresh = build_catalogue(VARIABLES, HAND)
    assert [r.spec for r in fresh.rules] == [r.spec for r in CATALOGUE.rules]
    assert [r.sample for r in fresh.rules] == [r.sample for r in CATALOGUE.rules]


@pytest.mark.parametrize("rule", MADE, ids=[r.id for r in MADE])
def test_examples_come_from_the_entry(rule):
    e = ENTRIES[rule.id]
    results = run_examples(rule, VARIABLES)
    assert all(r.ok for r in results), [p for r in results for p in r.problems]
    fire, quiet = rule.spec.examples[0], rule.spec.examples[1]
    assert fire.expect == "fired" and fire.severity == e.severity
    assert quiet.expect == "passed"
    if e.min_events or e.min_uptime or e.measure == "rate":  # below the sample: unknown, never passed
        assert rule.spec.examples[2].expect == "unknown"
    assert rule.spec.severity_basis == e.basis and rule.spec.references == e.sources


def test_one_entry_per_counter_and_no_second_opinion():
    counters = [e.counter for e in ENTRIES.values()]
    assert len(counters) == len(set(counters)), "two entries judge one counter"
    judged = {f.split(".", 1)[1] for r in HAND for f in r.when.facts() if f.startswith(("status.", "rate."))}
    both = sorted(set(counters) & judged)
    assert not both, f"a hand-written rule's condition judges the same counter as an entry: {both}"


@pytest.mark.parametrize("sid", list(ENTRIES), ids=list(ENTRIES))
def test_each_entry_is_live_or_says_why_not(sid):
    e = ENTRIES[sid]
    if e.live is not None:
        assert f'_fired(' in LIVE_TESTS and f'GROUPS["{e.live}"]' in LIVE_TESTS, f"no live test runs group {e.live}"
        return
    assert len(e.not_live) > 30 and e.recorded
    status = json.loads((ROOT / "tests" / "fixtures" / "flavors" / e.recorded / "status.json").read_text())
    assert e.counter in status, f"{e.recorded} does not record {e.counter}"


RECORDED = sorted({e.recorded for e in ENTRIES.values() if e.recorded})


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_sets_give_their_counters_an_outcome(name):
    """The entries without a live test, audited on the recorded set that has their counter: the counter is
    read from the set and judged (a quiet server: passed, or not_applicable where an only_if does not hold)."""
    from advisor import api
    from advisor.collect.connection import ConnectionOptions
    from tests.support.wire_server import ReplayServer

    with ReplayServer.from_set(name) as srv:
        snap = api.collect(ConnectionOptions(host="127.0.0.1", port=srv.port, user="root", password="",
                                             no_defaults=True), machine=False)
    rules = [r for r in MADE if ENTRIES[r.id].recorded == name]
    for o in evaluate(snap, rules, "production", catalogue=VARIABLES):
        small = o.status == "unknown" and o.reason.startswith("too small a sample")  # a quiet set has few events
        assert o.status in ("passed", "not_applicable") or small, (o.rule, o.status, o.reason)


def test_a_sample_below_the_minimum_is_unknown_with_the_reason():
    rule = next(r for r in MADE if r.id == "tmp-tables-spill-to-disk")
    ex = next(x for x in rule.spec.examples if x.name == "sample-too-small")
    o = evaluate(example_snapshot(ex), [rule], "production", catalogue=VARIABLES)[0]
    assert o.status == "unknown" and "too small a sample" in o.reason and "Created_tmp_tables" in o.reason


def test_rates_obey_the_uptime_minimum():
    rule = next(r for r in MADE if r.id == "sort-merge-passes-frequent")
    ex = next(x for x in rule.spec.examples if x.name == "just-started")
    o = evaluate(example_snapshot(ex), [rule], "production", catalogue=VARIABLES)[0]
    assert o.status == "unknown" and "15 minutes" in o.reason


def test_the_fix_follows_the_flavor():
    rule = next(r for r in MADE if r.id == "aborted-connects-high")
    fire = rule.spec.examples[0]
    o = evaluate(example_snapshot(fire), [rule], "production", catalogue=VARIABLES)[0]
    assert "log_warnings = 4" in o.finding.fix  # the example's target is MariaDB
    assert "log_error_verbosity" in rule.spec.fix  # the text for every other flavor


def test_bad_entries_are_refused_with_the_entry_named():
    with pytest.raises(ValueError, match=r"(?s)\[x-y\].*needs `of`"):
        load('[x-y]\ntitle = "a title long enough"\ncounter = "Key_reads"\nmeasure = "ratio"\nvalue = 1\n'
             'severity = "info"\nbasis = "context"\ncategory = "engine"\nwhy = "One sentence long enough to pass."\n'
             'fix = { "*" = "do something" }\nsources = ["https://example.org"]\nlive = "queries"\n')
    assert "live" in Symptom.model_fields and "not_live" in Symptom.model_fields


def test_pages_and_the_rules_list_count_them():
    pages = all_pages(CATALOGUE)
    for r in MADE:
        assert f"rules/{r.id}.md" in pages
    assert "## Symptoms" in pages["rules/README.md"]
    done = run_cli("rules", "list")
    code, out, err = done.returncode, done.stdout, done.stderr
    assert code == 0, err
    assert re.search(rf"{len(MADE)} from symptoms", out), out.splitlines()[-1]
