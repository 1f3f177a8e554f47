"""`advisor compare` as text, JSON, Markdown and HTML. Each renderer takes the Comparison
(advisor.compare.model) and returns a string; the HTML page goes through the one page renderer
(advisor.render.html.render_page) and the one template environment."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Optional

from advisor.compare.model import GROUPS, VERDICTS

if TYPE_CHECKING:  # pragma: no cover
    from advisor.compare.model import Comparison, Difference

_COL = {"confounding": "\033[1;31m", "expected": "\033[36m", "harmless": "\033[2m", "bold": "\033[1m",
        "dim": "\033[2m", "reset": "\033[0m"}
HEAD = {"confounding": "CONFOUNDING", "expected": "EXPECTED", "harmless": "HARMLESS"}
VERDICT_TEXT = {"confounded": "NOT A FAIR COMPARISON", "fair": "FAIR", "nothing_to_worry_about": "NOTHING TO WORRY ABOUT"}


def _where(side) -> str:
    return side.host or "unknown host"


def _about(c: "Comparison") -> str:
    return ", ".join(c.about) if c.about else "nothing stated (every difference counts)"


def by_group(c: "Comparison") -> list[tuple[str, dict[str, int]]]:
    """(group title, {verdict: count}) for the groups that have differences, the group of the
    first-ranked difference first."""
    first: dict[str, int] = {}
    for d in c.differences:
        first.setdefault(d.group, d.rank)
    return [(GROUPS[key], {v: sum(1 for d in c.differences if d.group == key and d.verdict == v) for v in VERDICTS})
            for key in sorted(first, key=first.__getitem__)]


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in counts.items() if n)


def render_json(c: "Comparison") -> str:
    return c.to_json()


def render_text(c: "Comparison", color: bool = False, width: int = 100, verbose: bool = False) -> str:
    """Harmless differences are one line of names unless `verbose`."""
    def col(name: str, text: str) -> str:
        return f"{_COL[name]}{text}{_COL['reset']}" if color else text

    def wrap(s: str, ind: str) -> str:
        return textwrap.fill(s, width=width, initial_indent=ind, subsequent_indent=ind)

    lines = [col("bold", f"advisor compare — {len(c.sides)} servers — about: {_about(c)}")]
    for s in c.sides:
        lines.append(f"  {s.label}  {s.flavor} {s.version} at {_where(s)}  ({s.source})")
    lines += ["", col("bold", VERDICT_TEXT[c.verdict] + ": ") + c.headline, ""]
    groups = by_group(c)
    if groups:
        lines.append(col("bold", "BY GROUP"))
        width_g = max(len(t) for t, _ in groups)
        lines += [f"  {t:<{width_g}}  {_counts(n)}" for t, n in groups]
        lines.append("")
    for verdict in VERDICTS:
        diffs = c.by_verdict(verdict)
        if not diffs:
            continue
        lines.append(col(verdict, f"{HEAD[verdict]} ({len(diffs)})"))
        if verdict == "harmless" and not verbose:
            lines.append(wrap(", ".join(d.title for d in diffs) + " (--verbose shows each with its reason)", "  "))
            lines.append("")
            continue
        for d in diffs:
            lines += _text_difference(c, d, wrap, col, brief=verdict == "harmless")
        lines.append("")
    if c.not_compared:
        lines.append(col("bold", f"NOT COMPARED ({len(c.not_compared)})"))
        for n in c.not_compared:
            lines.append(wrap(f"{n.title} — missing on {', '.join(n.sides)}: {n.reason}", "  "))
        lines.append("")
    for n in c.notes:
        lines.append(col("dim", wrap(f"note: {n}", "")))
    return "\n".join(lines).rstrip() + "\n"


def _text_difference(c: "Comparison", d: "Difference", wrap, col, brief: bool) -> list[str]:
    vals = "; ".join(f"{s.label}: {v if v is not None else '–'}" for s, v in zip(c.sides, d.values))
    if brief:
        return [wrap(f"{d.rank}. {d.title} [{GROUPS[d.group]}] — {vals} — {d.reason}", "  ")]
    out = [f"  {d.rank}. " + col("bold", d.title) + col("dim", f"  [{GROUPS[d.group]}]")]
    for i, (s, v) in enumerate(zip(c.sides, d.values)):
        default = f" (default {d.defaults[i]})" if d.defaults and d.defaults[i] is not None else ""
        out.append(wrap(f"{s.label}: {v if v is not None else '–'}{default}", "     "))
    out.append(wrap(f"why: {d.reason}", "     "))
    if d.fix:
        out.append(wrap(f"fix: {d.fix}", "     "))
    return out


def _cell(s: Optional[str]) -> str:
    return "–" if s is None else s.replace("|", "\\|").replace("\n", " ")


def render_markdown(c: "Comparison") -> str:
    out = [f"# advisor compare: {' vs '.join(f'{s.flavor} {s.version}' for s in c.sides)}", "",
           f"About: **{_about(c)}**.", ""]
    out += ["| Side | Server | Host | Source |", "|---|---|---|---|"]
    out += [f"| {s.label} | {s.flavor} {s.version} | {_cell(_where(s))} | {_cell(s.source)} |" for s in c.sides]
    out += ["", f"**{VERDICT_TEXT[c.verdict]}**: {c.headline}", ""]
    groups = by_group(c)
    if groups:
        out += ["| Group | Differences |", "|---|---|"] + [f"| {t} | {_counts(n)} |" for t, n in groups] + [""]
    labels = " | ".join(s.label for s in c.sides)
    for verdict in VERDICTS:
        diffs = c.by_verdict(verdict)
        if not diffs:
            continue
        out += [f"## {verdict.capitalize()} ({len(diffs)})", "",
                f"| # | Group | Difference | {labels} | Why | Fix |",
                "|---|---|---|" + "---|" * len(c.sides) + "---|---|"]
        for d in diffs:
            vals = " | ".join(_cell(v) for v in d.values)
            out.append(f"| {d.rank} | {GROUPS[d.group]} | {_cell(d.title)} | {vals} | {_cell(d.reason)} | "
                       f"{_cell(d.fix) if d.fix else ''} |")
        out.append("")
    if c.notes:
        out += ["## Notes", ""] + [f"- {_cell(n)}" for n in c.notes] + [""]
    if c.not_compared:
        out += ["## Not compared", ""]
        out += [f"- {_cell(n.title)} (missing on {', '.join(n.sides)}): {_cell(n.reason)}" for n in c.not_compared]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def compare_page(c: "Comparison"):
    from advisor import __version__
    from advisor.render.html import Page, Section, Stat, table

    page = Page(title=f"advisor compare — {' vs '.join(f'{s.flavor} {s.version}' for s in c.sides)}",
                subtitle=f"about: {_about(c)} · {VERDICT_TEXT[c.verdict].lower()}", kind="compare",
                stats=[Stat(v, str(getattr(c.summary, v)), f"v-{v}") for v in VERDICTS]
                + [Stat("not compared", str(c.summary.not_compared))],
                footer=f"advisor {__version__} · comparison contract advisor.compare/1 (JSON: --format json)")
    tables = [table("The compared servers", ("side", "server", "host", "source"),
                    [(s.label, f"{s.flavor} {s.version}", _where(s), s.source) for s in c.sides])]
    groups = by_group(c)
    if groups:
        tables.append(table("Differences by group", ("group", "differences"), [(t, _counts(n)) for t, n in groups]))
    page.sections.append(Section("verdict", "Verdict", paragraphs=[c.headline, *c.notes], tables=tables))
    for verdict in VERDICTS:
        diffs = c.by_verdict(verdict)
        if not diffs:
            continue
        rows = [(str(d.rank), f"{d.title} · {GROUPS[d.group]}", *[v if v is not None else "–" for v in d.values],
                 d.reason, d.fix or "–") for d in diffs]
        page.sections.append(Section(verdict, f"{verdict.capitalize()} ({len(diffs)})", tables=[table(
            f"{verdict.capitalize()} differences, most likely to change a result first",
            ("#", "difference", *[s.label for s in c.sides], "why", "fix"),
            rows, [f"v-{verdict}"] * len(rows))]))
    charts = figure_charts(c)
    if charts:
        page.sections.append(Section("measured", "Measured on each side", paragraphs=[
            "Calibration figures of every side: medians for latencies; a difference counts only beyond the spread "
            "of the samples (see the table above)."], charts=charts))
    if c.not_compared:
        page.sections.append(Section("not-compared", "Not compared", items=[
            f"{n.title} (missing on {', '.join(n.sides)}): {n.reason}" for n in c.not_compared]))
    return page


def figure_charts(c: "Comparison") -> list:
    """One bar chart per calibration figure, a bar per side."""
    from advisor.render import svg
    from advisor.render.html import chart_view

    out = []
    for f in c.figures:
        if max(f.values) <= 0:
            continue
        bars = [svg.Bar(f"{s.label} ({s.flavor} {s.version})", v) for s, v in zip(c.sides, f.values)]
        chart = svg.bars(f"cmp-{f.id.split('.', 1)[1].replace('.', '-').replace('_', '-')}", f.title, bars, f.unit)
        out.append(chart_view(chart, f"{f.title}, {'median ' if f.unit == 'ms' else ''}per side ({f.unit})."))
    return out


def render_html(c: "Comparison") -> str:
    from advisor.render.html import render_page

    return render_page(compare_page(c))
