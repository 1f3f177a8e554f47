"""The audit report: outcomes of every rule plus the fired findings. Structured data; the
renderers under advisor.render turn it into text, JSON or Markdown.

JSON contract `advisor.report/1` (docs/report-format.md). Later versions add keys, never
remove or rename them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor import __version__
from advisor.rules.engine import Finding, Outcome
from advisor.rules.conditions import SEVERITY_RANK
from advisor.snapshot import Missing, Target

REPORT_SCHEMA = "advisor.report/1"


def target_dict(t: Target) -> dict[str, Any]:
    """The `target` object of every JSON output (report, checklist): host is the socket path for
    socket connections."""
    return {"host": t.host if t.transport == "tcp" else (t.socket or "localhost"), "port": t.port,
            "flavor": t.flavor, "version": t.version, "version_string": t.version_string,
            "transport": t.transport}


@dataclass
class Report:
    target: Target
    purpose: str
    outcomes: list[Outcome]
    missing: list[Missing] = field(default_factory=list)
    source: str = "live"
    collected_at: str = ""
    notes: list[str] = field(default_factory=list)
    calibration: dict[str, Any] | None = None  # measurements and verdicts when calibration ran
    connection: str = ""  # live: how the advisor connected ("tcp, TLS VERIFY_CA (TLSv1.3)"); the JSON has it in no field of its own

    @property
    def findings(self) -> list[Finding]:
        fs = [o.finding for o in self.outcomes if o.status == "fired" and o.finding is not None]
        return sorted(fs, key=lambda f: (-SEVERITY_RANK[f.severity], f.category, f.rule))

    def counts(self) -> dict[str, int]:
        out = {"fired": 0, "passed": 0, "not_applicable": 0, "unknown": 0}
        for o in self.outcomes:
            out[o.status] += 1
        return out

    def severity_counts(self) -> dict[str, int]:
        out = {"critical": 0, "warning": 0, "info": 0}
        for f in self.findings:
            out[f.severity] += 1
        return out

    def worst_at_least(self, severity: str) -> bool:
        return any(SEVERITY_RANK[f.severity] >= SEVERITY_RANK[severity] for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA,
            "advisor_version": __version__,
            "target": target_dict(self.target),
            "purpose": self.purpose,
            "source": self.source,
            "collected_at": self.collected_at,
            "summary": {**self.counts(), **self.severity_counts()},
            "findings": [f.to_dict() for f in self.findings],
            "outcomes": [o.to_dict() for o in self.outcomes],
            "missing": [{"fact": m.fact, "reason": m.reason} for m in self.missing],
            "notes": list(self.notes),
            "calibration": self.calibration,
        }
