"""Run a rule's embedded examples through the real engine (used by tests and `rules lint`)."""

from __future__ import annotations

import re

from dataclasses import dataclass

from advisor.rules.engine import Outcome, evaluate
from advisor.rules.examples import example_snapshot
from advisor.rules.schema import Example, Rule


@dataclass(frozen=True)
class ExampleResult:
    rule: str
    example: str
    ok: bool
    problems: list[str]
    outcome: Outcome


def run_example(rule: Rule, ex: Example) -> ExampleResult:
    outcome = evaluate(example_snapshot(ex), [rule], ex.purpose)[0]
    problems: list[str] = []
    if outcome.status != ex.expect:
        problems.append(f"expected {ex.expect}, got {outcome.status} ({outcome.reason})")
    f = outcome.finding
    if f is not None:
        if ex.severity and f.severity != ex.severity:
            problems.append(f"expected severity {ex.severity}, got {f.severity}")
        if ex.recommendation is not None and f.recommendation != ex.recommendation:
            problems.append(f"expected recommendation {ex.recommendation}, got {f.recommendation}")
        for s in ex.message_contains:
            if s not in f.message:
                problems.append(f"message lacks {s!r}: {f.message}")
        if re.search(r"\bunknown\b", f.message):  # "(unknown)" too: a placeholder whose fact is missing
            problems.append(f"message has an unresolved placeholder: {f.message}")
    elif ex.severity or ex.recommendation is not None or ex.message_contains:
        if ex.expect == "fired":
            pass  # already reported as a status mismatch
        else:
            problems.append("severity/recommendation/message_contains only make sense with expect = 'fired'")
    return ExampleResult(rule.id, ex.name, not problems, problems, outcome)


def run_examples(rule: Rule) -> list[ExampleResult]:
    return [run_example(rule, ex) for ex in rule.spec.examples]
