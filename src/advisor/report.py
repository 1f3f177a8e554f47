"""The audit report: outcomes of every rule plus the fired findings. Structured data; the
renderers under advisor.render turn it into text, JSON or Markdown.

JSON contract `advisor.report/1` (docs/report-format.md). Later versions add keys, never
remove or rename them. Findings that share a root cause (advisor.rules.groups, rules/groups.toml) are
one finding of the report: `finding_groups`; every rule keeps its own outcome and finding, marked with
its group.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor import __version__
from advisor.rules.engine import Finding, Outcome
from advisor.rules.conditions import SEVERITY_RANK
from advisor.rules.groups import FindingGroup, Group, group_findings, membership
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
    """An audit's outcomes for one target and purpose, with what was missing and how it was collected."""

    target: Target
    purpose: str
    outcomes: list[Outcome]
    missing: list[Missing] = field(default_factory=list)
    source: str = "live"
    collected_at: str = ""
    notes: list[str] = field(default_factory=list)
    calibration: dict[str, Any] | None = None  # measurements and verdicts when calibration ran
    connection: str = ""  # live: how the advisor connected ("tcp, TLS VERIFY_CA (TLSv1.3)"); the JSON has it in no field of its own
    groups: tuple[Group, ...] = ()  # the cause groups (Catalogue.cause_groups()); none: every fired rule is a finding

    @property
    def findings(self) -> list[Finding]:
        fs = [o.finding for o in self.outcomes if o.status == "fired" and o.finding is not None]
        return sorted(fs, key=lambda f: (-SEVERITY_RANK[f.severity], f.category, f.rule))

    @property
    def finding_groups(self) -> list[FindingGroup]:
        """The findings as the report shows them: one per cause group with a fired member (its lead, the
        other members as consequences), one per fired rule in no group; most severe first."""
        return group_findings(self.findings, self.groups)

    def group_of(self) -> dict[str, str]:
        """rule id -> the id of its cause group, for the rules in one."""
        return membership(self.groups)

    def finding_severity_counts(self) -> dict[str, int]:
        """The reported findings (one per cause) by severity, a group counted at its lead's (highest) severity."""
        out = {"critical": 0, "warning": 0, "info": 0}
        for g in self.finding_groups:
            out[g.severity] += 1
        return out

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
        """--fail-on: does any reported finding reach `severity` (a cause group at its highest member's)?"""
        return any(SEVERITY_RANK[g.severity] >= SEVERITY_RANK[severity] for g in self.finding_groups)

    def to_dict(self) -> dict[str, Any]:
        grouped, of = self.finding_groups, self.group_of()
        return {
            "schema": REPORT_SCHEMA,
            "advisor_version": __version__,
            "target": target_dict(self.target),
            "purpose": self.purpose,
            "source": self.source,
            "collected_at": self.collected_at,
            "summary": {**self.counts(), **self.severity_counts(), "findings": len(grouped)},
            "findings": [{**f.to_dict(), "group": of.get(f.rule)} for f in self.findings],
            "groups": [g.to_dict() for g in grouped],
            "outcomes": [{**o.to_dict(), "group": of.get(o.rule)} for o in self.outcomes],
            "missing": [{"fact": m.fact, "reason": m.reason} for m in self.missing],
            "notes": list(self.notes),
            "calibration": self.calibration,
        }
