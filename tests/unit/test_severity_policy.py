"""The severity policy (issue 23 §4, docs/severity.md): every rule and watch verdict states a basis from
the vocabulary of its own severity; nothing that loses data, lets others in, stops the server or makes
application statements fail is below critical; the committed page is the generated one."""

from __future__ import annotations

import re
import types
import tomllib
from pathlib import Path

import pytest
from pydantic import ValidationError

from advisor import severity as policy
from advisor.knowledge.riskyvalues import entries
from advisor.render.severity_page import severity_page
from advisor.rules.loader import load_entries
from advisor.rules.risky import rule_for
from advisor.rules.schema import SEVERITIES, RuleFile
from advisor.watch.verdicts import load_verdicts

ROOT = Path(__file__).resolve().parents[2]
CRITICAL_BASES = set(policy.LEVELS["critical"])
# what a statement failing says, in a rule's title or a risky entry's why
FAILS = re.compile(r"\brefuse[ds]?\b|makes .* fail|fails (with an error|on commit)|statements? fail", re.I)
# in a risky entry's why: every statement of a kind, or every client, gets an error
FAILS_ALWAYS = re.compile(r"fails (with an error|on commit)|statements? fail|refuses every|outage for the application", re.I)


@pytest.fixture(scope="module")
def catalogue():
    return load_entries()


def test_vocabulary_has_one_level_per_basis():
    assert set(policy.LEVELS) == set(SEVERITIES)
    assert set(policy.LEVEL_OF) == set(policy.Basis.__args__)
    assert sum(len(b) for b in policy.LEVELS.values()) == len(policy.LEVEL_OF)


def test_every_rule_and_verdict_has_a_basis_of_its_level(catalogue):
    specs = [r.spec for r in catalogue.of("rule")] + [v.spec for v in load_verdicts()]
    assert len(specs) > 300
    wrong = [(s.id, s.severity, s.severity_basis) for s in specs
             if s.severity_basis is None or policy.LEVEL_OF[s.severity_basis] != s.severity]
    assert not wrong


def test_every_hand_written_rule_file_says_its_basis():
    files = [p for p in (ROOT / "rules").rglob("*.toml") if "severity" in tomllib.loads(p.read_text())]
    assert len(files) > 160  # 177 after single-variable rules became risky entries and counters symptom entries
    missing = [str(p.relative_to(ROOT)) for p in files if "severity_basis" not in tomllib.loads(p.read_text())]
    assert not missing


def test_nothing_that_fails_statements_or_loses_data_is_below_critical(catalogue):
    below = [r.id for r in catalogue.of("rule")
             if r.spec.severity_basis in CRITICAL_BASES and r.spec.severity != "critical"]
    assert not below
    fails = [r.id for r in catalogue.of("rule") if r.kind == "rule" and r.variable is None
             and FAILS.search(r.spec.title) and r.spec.severity != "critical"]
    assert not fails
    risky = [f"{n}.{e.id}" for n, es in entries().items() for e in es
             if FAILS_ALWAYS.search(e.why) and e.severity != "critical"]
    assert not risky


def test_thread_cache_churn_says_the_cheap_fix_on_strong_evidence(catalogue):
    # issue 23 §4: 287 of 314 connections created a thread with thread_cache_size 9 (MySQL 5.7.19 dump)
    rule = next(r for r in catalogue.of("rule") if r.id == "thread-cache-churn")
    ex = {e.name: e for e in rule.spec.examples}["mysql5719-high-share-low-rate"]
    assert ex.expect == "fired" and ex.severity == "warning"
    assert ex.facts["status.Threads_created"] == "287" and ex.facts["status.Connections"] == "314"


def test_schema_refuses_a_basis_of_another_level(catalogue):
    raw = next(r for r in catalogue.of("rule") if r.id == "thread-cache-churn").spec.model_dump()
    with pytest.raises(ValidationError, match="severity_basis 'data-loss' belongs to critical, not warning"):
        RuleFile.model_validate({**raw, "severity_basis": "data-loss"})
    with pytest.raises(ValidationError):
        RuleFile.model_validate({**raw, "severity_basis": "because"})


def test_a_critical_risky_entry_names_its_basis(catalogue):
    name, entry = next((n, e) for n, es in entries().items() for e in es if e.severity == "critical")
    with pytest.raises(ValueError, match="a critical entry names its `basis`"):
        rule_for(name, types.SimpleNamespace(**{**vars(entry), "basis": None}), catalogue.variables)
    # a warning entry without one gets its documented default
    name, entry = next((n, e) for n, es in entries().items() for e in es if e.severity == "warning" and not e.basis)
    rule = rule_for(name, entry, catalogue.variables)
    assert rule.spec.severity_basis == policy.basis_for("warning", rule.spec.category, None, name)


def test_committed_page_is_the_generated_one(catalogue):
    page = severity_page(catalogue.of("rule"), load_verdicts())
    assert (ROOT / "docs" / "severity.md").read_text(encoding="utf-8") == page, \
        "docs/severity.md is stale: run `python -m advisor.render.pages docs`"
    rows = [ln for ln in page.splitlines() if ln.startswith("| [")]
    assert len(rows) == len(list(catalogue.of("rule"))) + len(load_verdicts())
    assert "| [thread-cache-churn](rules/thread-cache-churn.md) | warning | warning | latency |" in page


def test_verdict_schema_refuses_a_basis_of_another_level():
    from advisor.watch.verdicts import VerdictFile

    raw = load_verdicts()[0].spec.model_dump()
    lvl = raw["severity"]
    other = next(b for b, level in policy.LEVEL_OF.items() if level != lvl)
    with pytest.raises(ValidationError, match=f"belongs to {policy.LEVEL_OF[other]}, not {lvl}"):
        VerdictFile.model_validate({**raw, "severity_basis": other})
