"""Markdown report: a table of findings, then one section per finding."""

from __future__ import annotations

from advisor.render.terminal import group_by_reason
from advisor.report import Report
from advisor.units import format_evidence


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render(report: Report, measured: list[str] | None = None) -> str:
    t = report.target
    out = [f"# advisor audit: {t.title}", "",
           f"Purpose: **{report.purpose}**. Source: {report.source}.", ""]
    counts, sev = report.counts(), report.severity_counts()
    out.append(f"{counts['fired']} findings ({sev['critical']} critical, {sev['warning']} warning, {sev['info']} info); "
               f"{counts['passed']} passed, {counts['not_applicable']} not applicable, {counts['unknown']} unknown.")
    out.append("")
    if report.findings:
        out += ["| Severity | Rule | Finding |", "|---|---|---|"]
        for f in report.findings:
            out.append(f"| {f.severity} | `{f.rule}` | {_cell(f.title)} |")
        out.append("")
    for f in report.findings:
        out += [f"## {f.severity.upper()}: {f.title}", "", f"Rule `{f.rule}` · category {f.category}", "", f.message, ""]
        if f.evidence:
            out.append("Evidence:")
            out.append("")
            for k, v in f.evidence.items():
                out.append(f"- `{k}` = {_cell(format_evidence(k, v, f.units.get(k)))}")
            out.append("")
        if f.recommendation:
            out.append("Recommended settings:")
            out.append("")
            out.append("```ini")
            out.append("[mysqld]")
            for k, v in f.recommendation.items():
                out.append(f"{k} = {v}")
            out.append("```")
            out.append("")
        if f.fix:
            out += [f"Fix: {f.fix}", ""]
        if f.references:
            out.append("References: " + ", ".join(f"<{r}>" for r in f.references))
            out.append("")
    if measured:
        out += ["## Measured by calibration", "", "```text", *measured, "```", ""]
    unknown = [o for o in report.outcomes if o.status == "unknown"]
    if unknown:
        out += ["## Not evaluated", ""]
        missing = tuple(f"{m.fact}: {m.reason}" for m in report.missing)
        out += [f"- {_cell(line)}" for line in group_by_reason(unknown, missing)]
        out.append("")
    if report.missing:
        out += ["## Not collected", ""]
        out += [f"- {_cell(f'{m.fact}: {m.reason}')}" for m in report.missing]
        out.append("")
    return "\n".join(out).rstrip() + "\n"
