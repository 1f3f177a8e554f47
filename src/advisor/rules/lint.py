"""`advisor rules lint`: validate rule files and run their examples."""

from __future__ import annotations

from typing import Optional

from advisor.rules.examples_run import run_examples
from advisor.rules.loader import load_rules


def lint_rules(directory: Optional[str]) -> tuple[bool, str]:
    from advisor.knowledge import default_catalogue

    catalogue = default_catalogue()
    rules = load_rules([directory], builtin=False) if directory else load_rules()
    lines: list[str] = []
    bad = 0
    for r in rules:
        results = run_examples(r, catalogue)
        statuses = {x.outcome.status for x in results}
        problems = [f"{x.example}: {p}" for x in results for p in x.problems]
        if "fired" not in statuses:
            problems.append("no example fires")
        if not statuses & {"passed", "not_applicable"}:
            problems.append("no example stays quiet (passed or not_applicable)")
        if problems:
            bad += 1
            lines.append(f"FAIL {r.path} ({r.id})")
            lines += [f"     {p}" for p in problems]
    lines.append(f"{len(rules)} rules, {sum(len(r.spec.examples) for r in rules)} examples, {bad} with problems")
    return bad == 0, "\n".join(lines) + "\n"
