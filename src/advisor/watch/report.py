"""Judge a series: the summary facts, the verdicts, and which one leads. Pure (the verdict catalogue
is loaded by the caller and passed in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from advisor.watch.model import WatchRun
from advisor.watch.facts import Series, compute
from advisor.watch.verdicts import Verdict, VerdictResult, WatchView, evaluate

REPORT_SCHEMA = "advisor.watch-report/1"


@dataclass
class WatchReport:
    run: WatchRun
    values: dict[str, Any]
    missing: dict[str, str]
    results: list[VerdictResult]
    baseline: Optional[WatchRun] = None
    baseline_name: str = ""
    baseline_values: dict[str, Any] = field(default_factory=dict)
    source: str = "live"

    @property
    def fired(self) -> list[VerdictResult]:
        return [r for r in self.results if r.fired]

    @property
    def uncertain(self) -> list[VerdictResult]:
        """Bottleneck verdicts whose measurement spans their threshold (unknown, reason 'uncertain: ...')
        and that rank before the first one that fired: the run may be theirs, so no later one is named
        as the verdict."""
        from advisor.rules.engine import UNCERTAIN

        fired = self.fired
        first = fired[0].verdict.spec.rank if fired else None
        return [r for r in self.results if r.outcome.status == "unknown" and r.outcome.reason.startswith(UNCERTAIN)
                and r.verdict.spec.kind == "bottleneck" and (first is None or r.verdict.spec.rank < first)]

    @property
    def primary(self) -> Optional[VerdictResult]:
        """The first fired verdict; None when none fired or an uncertain one ranks before it."""
        fired = self.fired
        return fired[0] if fired and not self.uncertain else None

    @property
    def interrupted(self) -> bool:
        return self.run.end_reason.startswith("interrupted")

    @property
    def server_lost(self) -> bool:
        return self.values.get("watch.server.lost") is True

    @property
    def partial(self) -> bool:
        """The series does not cover the whole run: interrupted, or the server went away."""
        return self.interrupted or self.server_lost

    @property
    def partial_why(self) -> str:
        return "the watch was interrupted" if self.interrupted else "the server went away" if self.server_lost else ""

    @property
    def benchmark_failed(self) -> bool:
        return self.values.get("watch.benchmark.failed") is True


def audit_view(run: WatchRun) -> Any:
    """A FactView of the snapshot the watch audited at its start, or None."""
    snap = run.setup.audit.snapshot
    if not snap:
        return None
    from pydantic import ValidationError

    from advisor.knowledge import default_catalogue
    from advisor.rules.engine import fact_view
    from advisor.snapshot import Snapshot

    try:
        return fact_view(Snapshot.model_validate(snap), "benchmark", default_catalogue())
    except ValidationError:
        return None


def judge(run: WatchRun, verdicts: list[Verdict], baseline: Optional[WatchRun] = None, baseline_name: str = "",
          source: str = "live") -> WatchReport:
    series = Series(run, baseline, baseline_name)
    values, missing = compute(series)
    findings = list(run.setup.audit.findings)
    view = WatchView(values, missing, audit_view(run), [f.rule for f in findings])
    results = evaluate(verdicts, view, findings)
    base_values: dict[str, Any] = {}
    if baseline is not None:
        base_values, _ = compute(Series(baseline))
    values = {k: v for k, v in view.values.items()}
    return WatchReport(run=run, values=values, missing=missing, results=results, baseline=baseline,
                       baseline_name=baseline_name, baseline_values=base_values, source=source)
