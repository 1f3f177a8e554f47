"""Plain-text report for a terminal: findings grouped by severity with their evidence numbers
and recommendation, one per cause (a cause group's lead, its other fired rules as "also" lines), then a
summary of outcomes. Colour only when asked (the CLI asks on a TTY)."""

from __future__ import annotations

import re

from advisor.render import layout
from advisor.render.calibration import wrap_body
from advisor.report import Report
from advisor.rules.engine import Outcome
from advisor.units import format_evidence

_COL = {"critical": "\033[1;31m", "warning": "\033[33m", "info": "\033[36m", "dim": "\033[2m", "bold": "\033[1m",
        "reset": "\033[0m"}


_UNKNOWN_REASON = re.compile(r"^(?:cannot tell whether it applies: )?(\S+) is unknown: (.+)$", re.S)


def group_by_reason(outcomes: list[Outcome], missing: tuple[str, ...] = ()) -> list[str]:
    """Unknown outcomes as lines, grouped by the reason the fact is missing, in first-seen order: a
    reason shared by several rules (no calibration ran, no host facts) is printed once, after the rules
    (and facts) it kept from being evaluated. A reason that is one of the report's `missing` entries
    ("fact: reason", listed under "Not collected") is referred to, not repeated."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for o in outcomes:
        m = _UNKNOWN_REASON.match(o.reason)
        key = m.group(2) if m else o.reason
        groups.setdefault(key, []).append((o.rule, m.group(1) if m else ""))
    lines = []
    for reason, rules in groups.items():
        section = next((m.split(": ", 1)[0] for m in missing if reason == m), None)
        if section is not None:
            names = ", ".join(f"{r} ({fact})" if fact else r for r, fact in rules)
            lines.append(f"{names}: {section} not collected (see Not collected)")
        elif len(rules) == 1:
            rule = rules[0][0]
            lines.append(f"{rule}: " + next(o.reason for o in outcomes if o.rule == rule))
        else:
            names = ", ".join(f"{r} ({fact})" if fact else r for r, fact in rules)
            lines.append(f"{len(rules)} rules, {names}: the facts are unknown: {reason}")
    return lines


def render(report: Report, color: bool = False, verbose: bool = False, width: int = 100,
           measured: list[str] | None = None) -> str:
    """`measured`: calibration's lines (advisor.render.calibration.body_lines), shown before the summary."""
    def c(name: str, text: str) -> str:
        return f"{_COL[name]}{text}{_COL['reset']}" if color else text

    t = report.target
    # never split an identifier (innodb_buffer_pool_size, sizing.buffer-pool): long words overflow the line
    wrap = lambda s, ind, rest=None: layout.wrap(s, width, ind, rest)  # noqa: E731
    lines = [c("bold", wrap(f"advisor audit — {t.title} — purpose: {report.purpose}", ""))]
    if report.source != "live":
        lines.append(c("dim", wrap(f"from {report.source}" + (f", collected {report.collected_at}" if report.collected_at else ""), "")))
    elif report.connection:
        lines.append(c("dim", wrap(f"connected over {report.connection}", "")))
    lines.append("")
    grouped = report.finding_groups
    if not grouped:
        lines.append("No findings.")
    for sev in ("critical", "warning", "info"):
        at = [g for g in grouped if g.severity == sev]
        if not at:
            continue
        lines.append(c(sev, f"{sev.upper()} ({len(at)})"))
        for g in at:
            f = g.lead
            head = wrap(f"[{f.rule}] {g.title}", "  ", "    ")
            tag = f"  [{f.rule}] "
            lines.append(c(sev, tag) + c("bold", head[len(tag):]) if head.startswith(tag) else c(sev, head))
            lines.append(wrap(f.message, "    "))
            if f.evidence:
                ev = "; ".join(f"{k} = {format_evidence(k, v, f.units.get(k))}" for k, v in f.evidence.items())
                lines.append(wrap("evidence: " + ev, "    "))
            for q in g.consequences:  # the other fired rules of the same cause
                lines.append(wrap(f"also [{q.rule}] ({q.severity}): {q.message}", "    ", "      "))
            if g.recommendation:
                rec = ", ".join(f"{k} = {v}" for k, v in g.recommendation.items())
                lines.append(wrap("recommend: " + rec, "    "))
            if f.fix:
                lines.append(wrap("fix: " + f.fix, "    "))
            for n in f.notes:
                lines.append(wrap(f"note: {n}", "    "))
            lines.append(c("dim", wrap(f"see: advisor explain {' / '.join(g.rules)}", "    ")))
            lines.append("")
    if measured:
        lines.append(c("bold", "MEASURED") + (f" (calibration {report.calibration.get('mode')}, "
                                             f"{report.calibration.get('duration_s') or 0:.1f} s)" if report.calibration else ""))
        lines += wrap_body(measured, width, "  ")
        lines.append("")
    counts = report.counts()
    sev = report.finding_severity_counts()
    n = len(grouped)
    causes = "" if n == counts["fired"] else f" from {counts['fired']} fired rules"
    summary = wrap(f"Summary: {n} finding{'' if n == 1 else 's'} ({sev['critical']} critical, {sev['warning']} warning, "
                   f"{sev['info']} info){causes}, {counts['passed']} passed, {counts['not_applicable']} not applicable, "
                   f"{counts['unknown']} unknown.", "")
    lines.append(c("bold", "Summary: ") + summary[len("Summary: "):])
    unknown = [o for o in report.outcomes if o.status == "unknown"]
    if unknown:
        lines.append("")
        lines.append(c("dim", "Could not evaluate (facts missing):"))
        for line in group_by_reason(unknown, tuple(f"{m.fact}: {m.reason}" for m in report.missing)):
            lines.append(c("dim", wrap(line, "  ")))
    if verbose:
        lines.append("")
        for o in report.outcomes:
            if o.status in ("passed", "not_applicable"):
                lines.append(c("dim", wrap(f"{o.status:<14} {o.rule}: {o.reason}", "  ")))
    if report.missing:
        lines.append("")
        lines.append(c("dim", "Not collected:"))
        for m in report.missing:
            lines.append(c("dim", wrap(f"{m.fact}: {m.reason}", "  ")))
    for n in report.notes:
        lines.append(c("dim", wrap(f"note: {n}", "  ")))
    return "\n".join(lines).rstrip() + "\n"
