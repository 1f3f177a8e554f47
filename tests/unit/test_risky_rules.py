"""The risky-values rule family (advisor.rules.risky): one generated rule per entry of
src/advisor/knowledge/risky.toml, evaluated by the engine like any rule. Its examples come from the
entry (the risky value fires, the default stays quiet), it is not_applicable where the variable does not
exist, a hand-written rule about the same variable keeps precedence (one finding per setting), and each
entry has its page and `advisor explain`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from advisor import knowledge as K
from advisor.knowledge import riskyvalues as R
from advisor.render.pages import all_pages
from advisor.rules.catalogue import build_catalogue
from advisor.rules.engine import evaluate
from advisor.rules.examples import example_snapshot
from advisor.rules.examples_run import run_examples
from advisor.rules.loader import load_entries
from advisor.rules.risky import rule_id

CATALOGUE = load_entries()
VARIABLES = CATALOGUE.variables
MADE = [r for r in CATALOGUE.rules if r.id in CATALOGUE.generated]
HAND = [r for r in CATALOGUE.rules if r.id not in CATALOGUE.generated]
ENTRIES = [(name, e) for name, es in R.entries().items() for e in es]


def test_one_rule_per_entry_and_the_counts():
    assert sorted(CATALOGUE.generated) == sorted(rule_id(n, e.id) for n, e in ENTRIES)
    assert len({n for n, _ in ENTRIES}) >= 200, "at least 200 variables carry risky-values entries"
    assert all(r.variable for r in MADE) and not any(r.variable for r in HAND)


def test_the_generator_is_pure_and_matches_the_cached_rules():
    fresh = build_catalogue(VARIABLES, HAND)  # runs RULE_GENERATORS, no cache
    assert [r.spec for r in fresh.rules] == [r.spec for r in CATALOGUE.rules]
    assert [r.defers_to for r in fresh.rules] == [r.defers_to for r in CATALOGUE.rules]


@pytest.mark.parametrize("rule", MADE, ids=[r.id for r in MADE])
def test_examples_come_from_the_entry(rule):
    name = rule.variable
    entry = next(e for e in R.entries()[name] if rule_id(name, e.id) == rule.id)
    results = run_examples(rule, VARIABLES)
    assert all(r.ok for r in results), [p for r in results for p in r.problems]
    fire, quiet = rule.spec.examples[0], rule.spec.examples[1]
    assert fire.expect == "fired" and fire.severity == entry.severity
    assert R.matches(entry, fire.facts[f"var.{name}"], VARIABLES.unit(name)) is True
    assert quiet.expect == "passed"
    flavor, version = quiet.target.split()
    if quiet.name == f"default-{flavor}":  # the quiet case is the target's own default
        assert K.is_default(name, quiet.facts[f"var.{name}"], flavor, version) is True
    else:  # no known default outside the risky set where the entry applies: the recommended value
        assert quiet.name == "recommended" and R.matches(entry, entry.recommend, VARIABLES.unit(name)) is False
    flavor, version = fire.target.split()
    problems = VARIABLES.check_setting(name, fire.facts[f"var.{name}"], flavor, version)
    assert not problems, f"the risky value is one the server would not take, so the entry can never fire: {problems}"
    for ex in rule.spec.examples[2:]:
        flavor, version = ex.target.split()
        assert ex.expect == "not_applicable" and K.exists_on(name, flavor, version) is False


def test_a_variable_the_target_lacks_is_not_applicable_with_the_catalogues_reason():
    rule = next(r for r in MADE if r.id == "risky-query-cache-type-enabled")
    ex = next(e for e in rule.spec.examples if e.expect == "not_applicable")
    out = evaluate(example_snapshot(ex), [rule], ex.purpose, catalogue=VARIABLES)[0]
    assert out.status == "not_applicable" and "query_cache_type does not exist on MySQL" in out.reason


def test_a_risky_value_no_hand_written_rule_covers_is_reported_by_the_full_catalogue():
    lone = [r for r in MADE if not r.defers_to]
    assert lone, "some entries are covered by no hand-written rule"
    rule = lone[0]
    ex = rule.spec.examples[0]
    out = {o.rule: o for o in evaluate(example_snapshot(ex), CATALOGUE.rules, ex.purpose, catalogue=VARIABLES)}
    assert out[rule.id].status == "fired"
    assert "no workload evidence was needed" in out[rule.id].finding.message


@pytest.mark.parametrize("rule", [r for r in MADE if r.defers_to], ids=[r.id for r in MADE if r.defers_to])
def test_one_finding_per_setting_where_a_hand_written_rule_covers_the_variable(rule):
    """The overlap: on the entry's firing example run through the whole catalogue, the variable is
    reported once, by the hand-written rule when it fires (the generated one then says by which)."""
    ex = rule.spec.examples[0]
    outcomes = evaluate(example_snapshot(ex), CATALOGUE.rules, ex.purpose, catalogue=VARIABLES)
    by_id = {o.rule: o for o in outcomes}
    hand_fired = [d for d in rule.defers_to if by_id[d].status == "fired"]
    mine = by_id[rule.id]
    if hand_fired:
        assert mine.status == "not_applicable" and f"already reported by rule {hand_fired[0]}" in mine.reason
    else:
        assert mine.status == "fired"
    naming = [o.rule for o in outcomes if o.finding is not None and o.rule in (*rule.defers_to, rule.id)]
    generated_naming = [o.rule for o in outcomes if o.finding is not None and o.rule in CATALOGUE.generated
                        and rule.variable in o.finding.variables]
    assert len(generated_naming) <= 1 and (not hand_fired or not generated_naming), naming


def test_ignoring_the_hand_written_rule_lets_the_entry_report():
    rule = next(r for r in MADE if r.id == "risky-thread-cache-size-disabled")
    ex = rule.spec.examples[0]
    snap = example_snapshot(ex)
    out = {o.rule: o for o in evaluate(snap, CATALOGUE.rules, ex.purpose, ignore=rule.defers_to, catalogue=VARIABLES)}
    assert out[rule.id].status == "fired"


def test_every_entry_has_its_page_and_the_index_groups_them():
    pages = all_pages(CATALOGUE)
    for r in MADE:
        page = pages[f"rules/{r.id}.md"]
        assert f"# {r.id}: " in page and "## Why it matters" in page and "## References" in page
    index = pages["rules/README.md"]
    assert "## Risky values" in index and f"{len(MADE)} rules generated" in index


@pytest.mark.parametrize("name", ["risky-sort-buffer-size-oversized", "sort_buffer_size.oversized"])
def test_explain_by_id_and_by_alias(name):
    page = all_pages(CATALOGUE)["rules/risky-sort-buffer-size-oversized.md"]
    p = subprocess.run([sys.executable, "-m", "advisor", "explain", name, "--format", "markdown"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout == page
    p = subprocess.run([sys.executable, "-m", "advisor", "explain", name], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr  # for a terminal: the same page as plain text
    assert p.stdout.startswith("risky-sort-buffer-size-oversized: sort_buffer_size at 32 MiB or more\n")
    assert "<!--" not in p.stdout and "## " not in p.stdout


FIXTURES = {"mysql 8.0.36": "mysql-8.0.36", "mysql 5.7.44": "mysql-5.7", "mysql 8.4.3": "mysql-8.4",
            "mariadb 10.11.10": "mariadb-10.11", "percona 8.0.36": "percona-8.0"}
# A generated rule may fire while a hand-written rule about the same variable passes only where the two
# judge different problems (too short against too long, too small against too large, ...).
ALONGSIDE = {
    ("risky-connect-timeout-short", "connect-timeout-long"),
    ("risky-max-allowed-packet-huge", "max-allowed-packet-small"),
    ("risky-innodb-autoinc-lock-mode-traditional", "autoinc-interleaved-with-statement-binlog"),
    ("risky-innodb-flush-method-no-sync", "flush-method-fsync"),
    ("risky-log-warnings-silent", "error-log-warnings-suppressed"),
    ("risky-max-connections-too-few", "max-connections-near-limit"),
    ("risky-max-connections-very-many", "max-connections-near-limit"),
    ("risky-max-connections-too-few", "connections-refused-at-limit"),  # a limit of 10 is a smell before any refusal
    ("risky-max-connections-very-many", "connections-refused-at-limit"),
    ("risky-max-heap-table-size-oversized", "tmp-table-size-oversized"),
    ("risky-performance-schema-off", "performance-schema-data-lost"),  # off vs. on with too few instruments
}


def _recorded(target: str) -> dict:
    import json
    from pathlib import Path

    d = Path(__file__).resolve().parents[1] / "fixtures" / "flavors" / FIXTURES[target]
    var = json.loads((d / "variables.json").read_text(encoding="utf-8"))
    status = json.loads((d / "status.json").read_text(encoding="utf-8"))
    return {**{f"var.{k}": v for k, v in var.items()}, **{f"status.{k}": v for k, v in status.items()}}


SUBJECT = [(g, h) for g in MADE for h in HAND if g.spec.examples[0].target in FIXTURES
           and h.spec.variables and h.spec.variables[0].lower() == g.variable]


@pytest.mark.parametrize("made,hand", SUBJECT, ids=[f"{g.id}:{h.id}" for g, h in SUBJECT])
def test_no_entry_contradicts_the_hand_written_rule_about_its_variable(made, hand):
    """On a recorded server of the entry's flavor with the risky value set, the entry does not fire where
    the hand-written rule whose subject is the same variable looked and passed, unless they judge
    different problems (ALONGSIDE)."""
    from advisor.rules.schema import Example

    ex = made.spec.examples[0]
    snap = example_snapshot(Example(name="recorded", expect="fired", target=ex.target, purpose=ex.purpose,
                                    facts={**_recorded(ex.target), **ex.facts}))
    out = {o.rule: o for o in evaluate(snap, CATALOGUE.rules, ex.purpose, catalogue=VARIABLES)}
    if out[made.id].status == "fired" and out[hand.id].status == "passed":
        assert (made.id, hand.id) in ALONGSIDE, f"{hand.id} passed ({out[hand.id].reason}) but {made.id} fired"
