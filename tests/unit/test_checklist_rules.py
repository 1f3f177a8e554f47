"""Audit outcomes become checklist items generically (advisor.checklist.rule_item / rule_items / build).

Runs over the rule catalogue of this tree and every example embedded in its rules, so a rule added
by anyone is covered without editing this file. Mapping (documented in advisor/checklist.py and
docs/checklist.md): fired critical/warning -> fail, fired info -> pass, passed -> pass,
unknown -> unknown, not_applicable -> omitted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor import api
from advisor.checklist import PHASE_BY_CATEGORY, PHASES, build, phase_for_category, rule_item
from advisor.rules.examples_run import run_example
from advisor.rules.loader import load_entries, load_rules
from advisor.rules.schema import CATEGORIES
from advisor.snapshot import Snapshot
from advisor.knowledge import default_catalogue

RULES = load_rules()
EXAMPLES = [(r, ex) for r in RULES for ex in r.spec.examples]
INPUTS = Path(__file__).resolve().parents[1] / "golden" / "checklist" / "inputs"


def expected_status(outcome) -> str | None:
    if outcome.status == "not_applicable":
        return None
    if outcome.status == "fired":
        return "fail" if outcome.finding.severity in ("critical", "warning") else "note"  # an info finding is no pass
    return {"passed": "pass", "unknown": "unknown"}[outcome.status]


@pytest.mark.parametrize("rule,example", EXAMPLES, ids=[f"{r.id}:{ex.name}" for r, ex in EXAMPLES])
def test_every_rule_example_maps_to_an_item(rule, example):
    outcome = run_example(rule, example, default_catalogue()).outcome
    item = rule_item(outcome, rule)
    want = expected_status(outcome)
    if want is None:
        assert item is None
        return
    assert item is not None and item.status == want
    assert item.id == f"rule:{rule.id}" and item.rule == rule.id and item.phase in PHASES
    assert item.phase == phase_for_category(rule.spec.category)
    if item.status == "note":  # a note states the finding; "Avoid:" ticked as passed misread it (issue 14 §2.15)
        assert item.title == outcome.finding.title
    else:
        assert item.title.startswith("Avoid: ") and rule.spec.title in item.title
    assert item.evidence.strip(), "every rule item carries evidence"
    if outcome.status == "fired":
        assert outcome.finding.message in item.evidence
        if item.status == "fail":
            assert item.fix.strip() or not rule.spec.fix.strip()
    if outcome.status == "unknown":
        assert outcome.reason in item.evidence
        assert item.fix.strip()


def test_there_are_rule_examples_of_each_outcome_to_map():
    seen = {run_example(r, ex, default_catalogue()).outcome.status for r, ex in EXAMPLES}
    assert {"fired", "passed", "not_applicable", "unknown"} <= seen


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_category_has_a_phase(category):
    assert phase_for_category(category) in PHASES
    assert category in PHASE_BY_CATEGORY  # a deliberate choice for each documented category


@pytest.mark.parametrize("category,phase", [("kernel-settings", "environment"), ("nic", "environment"),
                                            ("statistics", "data"), ("workload", "run"), ("innodb", "server")])
def test_unknown_categories_fall_back(category, phase):
    assert phase_for_category(category) == phase


@pytest.mark.parametrize("name", ["default", "tls", "prepared"])
def test_build_accounts_for_every_outcome(name):
    snap = Snapshot.model_validate(json.loads((INPUTS / f"mariadb-10.11-{name}.json").read_text()))
    report = api.audit(snap, purpose="benchmark")
    cl = build(snap, report, load_entries())
    items = {it.rule: it for it in cl.items if it.rule}
    omitted = {o["rule"] for o in cl.omitted}
    for o in report.outcomes:
        assert (o.rule in items) != (o.rule in omitted), o.rule
        if o.rule in items:
            assert items[o.rule].status == expected_status(o)
    assert [it.phase for it in cl.items] == sorted((it.phase for it in cl.items), key=PHASES.index)
    assert all(it.status != "manual" or it.command for it in cl.items)
