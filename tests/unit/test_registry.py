"""Meta-tests over the knowledge registries: every derived fact, formula, sizer and checklist check is
named by a direct unit test, in the test file of its module."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.rules import derived
from advisor.rules.formulas import FORMULAS

UNIT = Path(__file__).resolve().parent


@pytest.mark.parametrize("module", derived.MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_every_derived_fact_is_tested_in_its_category_file(module):
    category = module.__name__.rsplit(".", 1)[1]
    path = UNIT / "derived" / f"test_derived_{category}.py"
    assert path.exists(), f"{path} is missing: every derived-fact module has its own test file"
    text = path.read_text(encoding="utf-8")
    untested = [name for name in module.FACTS.facts if f"derived.{name}" not in text]
    assert untested == [], f"{path.name} names no test of {', '.join(untested)}"


def test_every_formula_is_tested():
    text = (UNIT / "test_formulas.py").read_text(encoding="utf-8")
    assert [name for name in FORMULAS if f'"{name}"' not in text] == []


def test_derived_modules_cover_the_registry():
    assert set(derived.DERIVED) == {n for m in derived.MODULES for n in m.FACTS.facts}
