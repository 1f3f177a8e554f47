"""The pre-benchmark checklist: items grouped by phase, each with a status, its evidence and the fix.

Structured data only; advisor.render.checklist turns it into Markdown (templates/checklist.md.j2) or
JSON. Three sources of items:

1. The audit (purpose benchmark): every rule's outcome becomes an item, mapped generically so that
   new rules appear without touching this file (see `rule_item`):
     fired, severity critical or warning -> fail   (the rule names a problem for a benchmark)
     fired, severity info                -> note   (advisory: something to state or consider, not a
                                                    pass; titled by the finding, without "Avoid:")
     passed                              -> pass   (evidence: the engine's reason)
     unknown                             -> unknown (evidence: which fact is missing and why; the fix
                                                    says how to collect it, or that it cannot be)
     not_applicable                      -> omitted (listed under `omitted` in JSON with the reason)
   The phase comes from the rule's category (PHASE_BY_CATEGORY, then keyword fallbacks).
2. The registered checklist checks (advisor.rules.checks): the sysbench command line, when given,
   against the server; and items no snapshot can decide (restore the data, ANALYZE after prepare, same
   client host, warm-up, record versions and configuration): status `manual`, with the command that
   does it.

JSON contract `advisor.checklist/1` (docs/checklist.md): later versions add keys, never remove them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from advisor import __version__
from advisor.report import Report, target_dict
from advisor.rules.catalogue import Catalogue
from advisor.rules.checks import CHECKS, CheckContext, check_context
from advisor.rules.engine import fact_view
from advisor.rules.schema import ITEM_STATUSES, PHASES, ItemStatus, Phase, Rule
from advisor.snapshot import Snapshot, Target
from advisor.sysbench import LocalSysbench, SysbenchCommand

CHECKLIST_SCHEMA = "advisor.checklist/1"

Status = ItemStatus
STATUSES = ITEM_STATUSES
PHASE_TITLES = {"environment": "Environment (hosts, OS, network)", "server": "Server configuration",
                "data": "Data", "run": "The run"}

# Rule category (advisor.rules.schema.CATEGORIES) -> phase. A category added later falls back on
# keywords, then on "server" (see phase_for_category), so its rules still appear.
PHASE_BY_CATEGORY: dict[str, Phase] = {
    "network": "environment", "storage": "environment", "os": "environment",
    "tls": "server", "memory": "server", "redo": "server", "flushing": "server", "durability": "server",
    "concurrency": "server", "version": "server", "tidb": "server",
    "benchmark": "run",
    "logging": "server", "instrumentation": "server", "transactions": "server", "replication": "server",
    "limits": "server", "engine": "server", "optimizer": "server", "correctness": "server",
    "security": "server", "charset": "server",
}
_ENV_WORDS = ("net", "nic", "os", "kernel", "host", "disk", "stor", "cpu", "numa", "thp", "swap", "governor", "fs")
_DATA_WORDS = ("data", "stat", "schema", "table")
_RUN_WORDS = ("bench", "run", "client", "workload", "sysbench")


def phase_for_category(category: str) -> Phase:
    c = category.lower()
    if c in PHASE_BY_CATEGORY:
        return PHASE_BY_CATEGORY[c]
    if any(w in c for w in _ENV_WORDS):
        return "environment"
    if any(w in c for w in _DATA_WORDS):
        return "data"
    if any(w in c for w in _RUN_WORDS):
        return "run"
    return "server"


@dataclass
class Item:
    id: str
    phase: Phase
    status: Status
    title: str
    evidence: str
    fix: str = ""
    command: str = ""                       # for manual items: what to run
    rule: Optional[str] = None              # the rule id when the item comes from the audit
    severity: Optional[str] = None
    facts: dict[str, Any] = field(default_factory=dict)
    references: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        assert self.phase in PHASES, self.phase
        assert self.status in STATUSES, self.status

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "phase": self.phase, "status": self.status, "title": self.title,
                             "evidence": self.evidence, "fix": self.fix}
        if self.command:
            d["command"] = self.command
        if self.rule:
            d["rule"] = self.rule
            d["severity"] = self.severity
        if self.facts:
            d["facts"] = self.facts
        if self.references:
            d["references"] = list(self.references)
        return d


@dataclass
class Checklist:
    target: Target
    source: str
    collected_at: str
    items: list[Item]
    sysbench: Optional[SysbenchCommand] = None
    local: Optional[LocalSysbench] = None
    omitted: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in STATUSES}
        for it in self.items:
            out[it.status] += 1
        return out

    @property
    def failed(self) -> bool:
        return any(it.status == "fail" for it in self.items)

    def by_phase(self) -> list[tuple[Phase, list[Item]]]:
        return [(p, [it for it in self.items if it.phase == p]) for p in PHASES]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": CHECKLIST_SCHEMA,
            "advisor_version": __version__,
            "target": target_dict(self.target),
            "purpose": "benchmark",
            "source": self.source,
            "collected_at": self.collected_at,
            "sysbench": self.sysbench.to_dict() if self.sysbench else None,
            "sysbench_here": self.local.to_dict() if self.local else None,
            "summary": self.counts(),
            "items": [it.to_dict() for it in self.items],
            "omitted": list(self.omitted),
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------- rule outcomes -> items

def rule_item(outcome: Any, rule: Optional[Rule]) -> Optional[Item]:
    """One audit outcome as a checklist item (None for not_applicable). Generic over rules: uses only the
    rule's id, title, category, severity and references, and the outcome."""
    spec = rule.spec if rule is not None else None
    category = outcome.finding.category if outcome.finding else (spec.category if spec else "")
    title = outcome.finding.title if outcome.finding else (spec.title if spec else outcome.rule)
    refs = list(spec.references) if spec else []
    phase = phase_for_category(category)
    base = dict(id=f"rule:{outcome.rule}", phase=phase, title=f"Avoid: {title}", rule=outcome.rule,
                severity=spec.severity if spec else None, references=refs)
    if outcome.status == "not_applicable":
        return None
    if outcome.status == "fired":
        f = outcome.finding
        status: Status = "fail" if f.severity in ("critical", "warning") else "note"
        fix = f.fix
        if f.recommendation and not all(f"{k} = {v}" in fix for k, v in f.recommendation.items()):
            fix = (fix + " " if fix else "") + "Recommended: " + ", ".join(f"{k} = {v}" for k, v in f.recommendation.items()) + "."
        base.update(severity=f.severity)
        if status == "note":
            base.update(title=title)
        return Item(status=status, evidence=f.message, fix=fix, facts=dict(f.evidence), **base)  # type: ignore[arg-type]
    if outcome.status == "passed":
        return Item(status="pass", evidence=f"not the case: {outcome.reason}.", **base)  # type: ignore[arg-type]
    return Item(status="unknown", evidence=f"could not be checked: {outcome.reason}.",
                fix=unknown_fix(outcome.rule, outcome.reason), **base)  # type: ignore[arg-type]


# A reason that names something the advisor can collect (a section left out, a probe that did not run).
_COLLECTABLE = ("not collected", "were not collected", "was not collected", "not read", "did not run",
                "not measured", "not resolved", "is not part of it", "no calibration", "carries no calibration",
                "not on the server's host", "is unknown")


def unknown_fix(rule: str, reason: str) -> str:
    """What to do about an item that could not be checked: the reason's own Tip when it has one; collect
    the fact when it can be collected; otherwise say that nothing can be collected and what decides it."""
    explain = f"`advisor explain {rule}` says what the rule needs"
    if "Tip: " in reason:
        tip = reason.split("Tip: ", 1)[1].strip().rstrip(".")
        return f"{tip[0].upper()}{tip[1:]}, then run the checklist again; {explain}."
    inner = re.sub(r"^(cannot tell whether it applies: )?\S+ is (unknown|absent)(: | \()", "", reason)
    if any(w in inner.lower() for w in _COLLECTABLE):
        return f"Collect the missing fact and run the checklist again; {explain}."
    return (f"There is no fact to collect: the snapshot holds what the rule reads, and it does not settle the "
            f"question yet ({reason.rstrip('.')}). Decide it by hand; {explain}.")


def rule_items(report: Report, rules: Iterable[Rule]) -> tuple[list[Item], list[dict[str, str]]]:
    by_id = {r.id: r for r in rules}
    items: list[Item] = []
    omitted: list[dict[str, str]] = []
    for o in sorted(report.outcomes, key=lambda o: o.rule):
        it = rule_item(o, by_id.get(o.rule))
        if it is None:
            omitted.append({"rule": o.rule, "reason": o.reason})
        else:
            items.append(it)
    return items, omitted


# ---------------------------------------------------------------- the whole checklist

def check_items(ctx: CheckContext, catalogue: Catalogue) -> list[Item]:
    """The items of the registered checks (advisor.rules.checks) that apply, in registry order; the phase
    and title come from each check's catalogue entry."""
    items: list[Item] = []
    for check in CHECKS.values():
        r = check.fn(ctx)
        if r is None:
            continue
        entry = catalogue.check(check.id)
        if entry is None:
            raise ValueError(f"checklist check {check.id} has no catalogue entry (rules/checklist/{check.id}.toml)")
        items.append(Item(id=check.id, phase=entry.spec.phase, status=r.status, title=r.title or entry.title,
                          evidence=r.evidence, fix=r.fix, command=r.command, facts=dict(r.facts)))
    return items


def build(snapshot: Snapshot, report: Report, catalogue: Catalogue, cmd: Optional[SysbenchCommand] = None,
          local: Optional[LocalSysbench] = None, source: str = "live") -> Checklist:
    """Pure: the checklist for a snapshot, its benchmark-purpose audit (`report`), the catalogue (rules
    for the audit items, checks for the others), and optionally a sysbench command and what sysbench on
    this machine is."""
    ctx = check_context(fact_view(snapshot, "benchmark", catalogue.variables), cmd, local)
    own = check_items(ctx, catalogue)
    rules = catalogue.rules
    notes: list[str] = []
    if cmd is not None and not cmd.is_database_test:
        notes.append(f"{cmd.test} is a built-in sysbench test that does not use the database; only the "
                     "command line itself was checked against the server.")
    ruled, omitted = rule_items(report, rules)
    items: list[Item] = []
    for phase in PHASES:
        items += [it for it in own if it.phase == phase]
        items += [it for it in ruled if it.phase == phase]
    ids = [it.id for it in items]
    assert len(ids) == len(set(ids)), f"duplicate checklist item ids: {ids}"
    if report.missing:
        notes += [f"not collected: {m.fact}: {m.reason}" for m in report.missing]
    return Checklist(target=snapshot.target, source=source, collected_at=snapshot.collected_at, items=items,
                     sysbench=cmd, local=local, omitted=omitted, notes=notes)
