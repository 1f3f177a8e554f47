"""Every example embedded in every rule file runs through the real engine (one test id each)."""

import pytest

from advisor.rules.examples_run import run_example
from advisor.rules.loader import load_rules
from advisor.knowledge import default_catalogue

RULES = load_rules()
CASES = [(r, ex) for r in RULES for ex in r.spec.examples]


@pytest.mark.parametrize("rule,example", CASES, ids=[f"{r.id}:{ex.name}" for r, ex in CASES])
def test_example(rule, example):
    result = run_example(rule, example, default_catalogue())
    assert result.ok, "; ".join(result.problems)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_has_firing_and_quiet_example(rule):
    expects = {ex.expect for ex in rule.spec.examples}
    assert "fired" in expects
    assert expects & {"passed", "not_applicable"}
    assert len({ex.name for ex in rule.spec.examples}) == len(rule.spec.examples), "example names must be unique"


def test_registry():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    for r in RULES:
        assert r.spec.references, r.id
        if r.variable is not None:  # generated from a risky-values entry (advisor.rules.risky)
            assert r.path.startswith("src/advisor/knowledge/risky.toml#"), r.path
            continue
        if r.path.startswith("src/advisor/knowledge/symptoms.toml#"):  # a symptoms entry (advisor.rules.symptoms)
            assert r.path.endswith(f"#{r.id}"), r.path
            continue
        assert r.path.endswith(f"/{r.id}.toml"), f"{r.path}: the file is named after the rule id"
