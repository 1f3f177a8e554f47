"""`advisor rules lint`: validate catalogue files (rules, sizers, checklist checks) and run their
examples through the real code."""

from __future__ import annotations

from typing import Optional

from advisor.rules.catalogue import second_opinions
from advisor.rules.examples_run import coverage_problems, run_entry_examples
from advisor.rules.loader import load_entries


def lint_rules(directory: Optional[str]) -> tuple[bool, str]:
    catalogue = load_entries([directory], builtin=False) if directory else load_entries()
    entries = catalogue.entries()
    lines: list[str] = []
    bad = 0
    for e in entries:
        results = run_entry_examples(e, catalogue.variables)
        problems = [f"{x.example}: {p}" for x in results for p in x.problems] + coverage_problems(e, results)
        if problems:
            bad += 1
            lines.append(f"FAIL {e.path} ({e.id})")
            lines += [f"     {p}" for p in problems]
    generated = set(catalogue.generated)
    twice: dict[str, list[str]] = {}
    for where, problem in second_opinions([r for r in catalogue.rules if r.id not in generated],
                                          [r for r in catalogue.rules if r.id in generated]):
        twice.setdefault(where, []).append(problem)
    for where, problems in twice.items():
        bad += 1
        lines.append(f"FAIL {where}")
        lines += [f"     {p}" for p in problems]
    n_examples = sum(len(e.spec.examples) for e in entries)
    kinds = f"{len(catalogue.rules)} rules"
    if catalogue.sizers or catalogue.checks:
        kinds += f", {len(catalogue.sizers)} sizers, {len(catalogue.checks)} checklist checks"
    lines.append(f"{kinds}, {n_examples} examples, {bad} with problems")
    return bad == 0, "\n".join(lines) + "\n"
