"""Markdown report: a table of findings, then one section per finding (one per cause: a cause group's
lead, with its other fired rules listed as consequences)."""

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
    counts, sev = report.counts(), report.finding_severity_counts()
    grouped = report.finding_groups
    causes = "" if len(grouped) == counts["fired"] else f" from {counts['fired']} fired rules"
    out.append(f"{len(grouped)} findings ({sev['critical']} critical, {sev['warning']} warning, {sev['info']} info){causes}; "
               f"{counts['passed']} passed, {counts['not_applicable']} not applicable, {counts['unknown']} unknown.")
    out.append("")
    if grouped:
        out += ["| Severity | Rule | Finding |", "|---|---|---|"]
        for g in grouped:
            also = "".join(f", `{r}`" for r in g.rules[1:])
            out.append(f"| {g.severity} | `{g.lead.rule}`{also} | {_cell(g.title)} |")
        out.append("")
    for g in grouped:
        f = g.lead
        rules = f"Rule `{f.rule}`" + (f" (cause group `{g.id}`, with {', '.join(f'`{r}`' for r in g.rules[1:])})"
                                     if g.consequences else "")
        out += [f"## {g.severity.upper()}: {g.title}", "", f"{rules} · category {f.category}", "", f.message, ""]
        if f.evidence:
            out.append("Evidence:")
            out.append("")
            for k, v in f.evidence.items():
                out.append(f"- `{k}` = {_cell(format_evidence(k, v, f.units.get(k)))}")
            out.append("")
        if g.consequences:
            out.append("Also from the same cause:")
            out.append("")
            for q in g.consequences:
                out.append(f"- `{q.rule}` ({q.severity}): {_cell(q.message)}")
            out.append("")
        if g.recommendation:
            out.append("Recommended settings:")
            out.append("")
            out.append("```ini")
            out.append("[mysqld]")
            for k, v in g.recommendation.items():
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
