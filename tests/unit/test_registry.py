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


# ---------------------------------------------------------------- sizers and checklist checks

from advisor.rules.checks import CHECKS  # noqa: E402
from advisor.rules.checks.sysbench_run import MIN_RUN_SECONDS  # noqa: E402
from advisor.rules.loader import load_entries  # noqa: E402
from advisor.rules.sizers import SIZERS  # noqa: E402

CATALOGUE = load_entries()
CATALOG_DIR = UNIT.parents[1] / "rules"


def test_every_sizer_function_has_an_entry_and_every_entry_a_function():
    assert sorted(SIZERS) == sorted(s.id for s in CATALOGUE.sizers)


def test_every_check_function_has_an_entry_and_every_entry_a_function():
    assert sorted(CHECKS) == sorted(c.id for c in CATALOGUE.checks)


def test_entries_live_where_their_kind_says():
    for s in CATALOGUE.sizers:
        assert s.path == f"rules/sizing/{s.id.replace('.', '-')}.toml", s.path
    for c in CATALOGUE.checks:
        assert c.path == f"rules/checklist/{c.id}.toml", c.path
    for r in CATALOGUE.rules:
        if r.id in CATALOGUE.generated:  # a risky-values or symptoms entry's rule (advisor.rules.risky, .symptoms)
            assert r.path.startswith(("src/advisor/knowledge/risky.toml#", "src/advisor/knowledge/symptoms.toml#")), r.path
            continue
        assert r.path.endswith(f"/{r.id}.toml") and not r.path.startswith(("rules/sizing/", "rules/checklist/"))


def test_ids_are_unique_across_kinds():
    ids = [e.id for e in CATALOGUE.entries()]
    assert len(ids) == len(set(ids))


def test_every_sizer_and_check_is_named_by_a_direct_unit_test():
    sizer_text = (UNIT / "test_sizers.py").read_text(encoding="utf-8")
    check_text = "".join((UNIT / n).read_text(encoding="utf-8")
                         for n in ("test_checklist_sysbench_items.py", "test_checks_manual.py"))
    assert [s for s in SIZERS if f'"{s}"' not in sizer_text] == []
    assert [c for c in CHECKS if f'"{c}"' not in check_text] == []


def test_the_duration_title_states_the_threshold_the_check_uses():
    assert f"≥ {MIN_RUN_SECONDS} s" in CATALOGUE.check("sysbench-duration").title
