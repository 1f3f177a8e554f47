"""Every example of every sizer and checklist check runs through its real function (one test id per
example); rules have tests/unit/test_rule_examples.py."""

from __future__ import annotations

import pytest

from advisor.rules.examples_run import coverage_problems, run_check_example, run_entry_examples, run_sizer_example
from advisor.rules.loader import load_entries

CATALOGUE = load_entries()
SIZER_EXAMPLES = [(e, ex) for e in CATALOGUE.sizers for ex in e.spec.examples]
CHECK_EXAMPLES = [(e, ex) for e in CATALOGUE.checks for ex in e.spec.examples]


@pytest.mark.parametrize("entry,example", SIZER_EXAMPLES, ids=[f"{e.id}:{ex.name}" for e, ex in SIZER_EXAMPLES])
def test_sizer_example(entry, example):
    result = run_sizer_example(entry, example, CATALOGUE.variables)
    assert result.ok, "; ".join(result.problems)


@pytest.mark.parametrize("entry,example", CHECK_EXAMPLES, ids=[f"{e.id}:{ex.name}" for e, ex in CHECK_EXAMPLES])
def test_check_example(entry, example):
    result = run_check_example(entry, example, CATALOGUE.variables)
    assert result.ok, "; ".join(result.problems)


@pytest.mark.parametrize("entry", CATALOGUE.entries(), ids=lambda e: e.id)
def test_every_entry_has_an_example_that_fires_and_one_that_stays_quiet(entry):
    assert coverage_problems(entry, run_entry_examples(entry, CATALOGUE.variables)) == []
