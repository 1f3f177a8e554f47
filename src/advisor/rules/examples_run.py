"""Run the examples of every kind of catalogue entry through the real code: a rule's through the engine,
a sizer's through its function, a checklist check's through its function with the sysbench command
parsed. Used by the parametrised example tests, `advisor rules lint` and the generated pages."""

from __future__ import annotations

import re

from dataclasses import dataclass
from typing import Any, Optional

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules.checks import CHECKS, CheckResult, check_context
from advisor.rules.engine import Outcome, evaluate, fact_view
from advisor.rules.entries import CheckEntry, CheckExample, SizerEntry, SizerExample, kind_of
from advisor.rules.examples import example_snapshot
from advisor.rules.schema import Example, Rule
from advisor.rules.sizers import SIZERS, SizerOutcome, sizing_context
from advisor.sysbench import LocalSysbench, parse_command


@dataclass(frozen=True)
class ExampleResult:
    rule: str
    example: str
    ok: bool
    problems: list[str]
    outcome: Any            # Outcome (rule), SizerOutcome (sizer), CheckResult or None (check)

    @property
    def status(self) -> str:
        """The example's outcome in the entry kind's own words (fired/passed/... or pass/fail/.../omitted)."""
        if isinstance(self.outcome, (Outcome, SizerOutcome, CheckResult)):
            return self.outcome.status
        return "omitted"


def run_example(rule: Rule, ex: Example, catalogue: VariableCatalogue) -> ExampleResult:
    outcome = evaluate(example_snapshot(ex), [rule], ex.purpose, catalogue=catalogue)[0]
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
        for s in ex.fix_contains:
            if s not in f.fix:
                problems.append(f"fix lacks {s!r}: {f.fix}")
        if re.search(r"\bunknown\b", f.message):  # "(unknown)" too: a placeholder whose fact is missing
            problems.append(f"message has an unresolved placeholder: {f.message}")
    elif ex.severity or ex.recommendation is not None or ex.message_contains or ex.fix_contains:
        if ex.expect == "fired":
            pass  # already reported as a status mismatch
        else:
            problems.append("severity/recommendation/message_contains/fix_contains only make sense with expect = 'fired'")
    return ExampleResult(rule.id, ex.name, not problems, problems, outcome)


def run_examples(rule: Rule, catalogue: VariableCatalogue) -> list[ExampleResult]:
    return [run_example(rule, ex, catalogue) for ex in rule.spec.examples]


# ---------------------------------------------------------------- sizers

def sizer_workload(ex: SizerExample) -> str:
    return ex.workload or ("benchmark" if ex.purpose == "benchmark" else "oltp")


def run_sizer_example(entry: SizerEntry, ex: SizerExample, catalogue: VariableCatalogue) -> ExampleResult:
    view = fact_view(example_snapshot(ex), ex.purpose, catalogue)
    outcome = SIZERS[entry.id].fn(sizing_context(view, sizer_workload(ex), ex.allow_unsafe_durability, ex.threads))
    problems: list[str] = []
    if outcome.status != ex.expect:
        problems.append(f"expected {ex.expect}, got {outcome.status} ({outcome.reason})")
    got = {p.variable: p.value for p in outcome.proposals}
    if ex.proposals is not None and got != ex.proposals:
        problems.append(f"expected proposals {ex.proposals}, got {got}")
    texts = [outcome.reason] + [p.reason for p in outcome.proposals]
    problems += [f"no reason contains {s!r}: {texts}" for s in ex.reason_contains if not any(s in t for t in texts)]
    return ExampleResult(entry.id, ex.name, not problems, problems, outcome)


# ---------------------------------------------------------------- checklist checks

def run_check_example(entry: CheckEntry, ex: CheckExample, catalogue: VariableCatalogue) -> ExampleResult:
    snap = example_snapshot(ex)
    cmd = None
    if ex.sysbench is not None:
        cmd = parse_command(ex.sysbench.replace("PORT", str(snap.target.port)), config_text=ex.config)
    local = LocalSysbench(**ex.local) if ex.local is not None else None  # type: ignore[arg-type]
    result: Optional[CheckResult] = CHECKS[entry.id].fn(check_context(fact_view(snap, "benchmark", catalogue), cmd, local))
    got = "omitted" if result is None else result.status
    problems: list[str] = []
    if got != ex.expect:
        problems.append(f"expected {ex.expect}, got {got}" + (f" ({result.evidence})" if result is not None else ""))
    text = "" if result is None else " ".join((result.evidence, result.fix, result.command))
    problems += [f"evidence lacks {s!r}: {text}" for s in ex.evidence_contains if s not in text]
    return ExampleResult(entry.id, ex.name, not problems, problems, result)


# ---------------------------------------------------------------- any entry

def run_entry_examples(entry: Any, catalogue: VariableCatalogue) -> list[ExampleResult]:
    kind = kind_of(entry)
    if kind == "sizer":
        return [run_sizer_example(entry, ex, catalogue) for ex in entry.spec.examples]
    if kind == "check":
        return [run_check_example(entry, ex, catalogue) for ex in entry.spec.examples]
    return run_examples(entry, catalogue)


# An example "fires" when the entry finds something to do: a rule fires, a sizer writes a line, a check leaves
# its box unticked (fail, manual, or unknown for a check that never fails outright, such as sysbench-target), or
# it states a note (sysbench-rate-limit: a fixed rate is a choice to state, not a failure).
FIRING = {"rule": {"fired"}, "sizer": {"fired"}, "check": {"fail", "manual", "unknown", "note"}}
QUIET = {"rule": {"passed", "not_applicable"}, "sizer": {"passed", "not_applicable"}, "check": {"pass", "omitted"}}


def coverage_problems(entry: Any, results: list[ExampleResult]) -> list[str]:
    """What an entry's examples fail to show: one that fires and one that stays quiet (a reminder check,
    which is manual by nature, shows two different commands instead of a quiet case)."""
    kind = kind_of(entry)
    statuses = {r.status for r in results}
    out = []
    if not statuses & FIRING[kind]:
        out.append("no example fires")
    if kind == "check" and getattr(entry.spec, "reminder", False):
        commands = {getattr(r.outcome, "command", "") for r in results}
        if len(commands) < 2:
            out.append("a reminder's examples show at least two different commands")
    elif not statuses & QUIET[kind]:
        out.append("no example stays quiet (" + " or ".join(sorted(QUIET[kind])) + ")")
    return out
