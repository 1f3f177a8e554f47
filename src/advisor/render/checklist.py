"""Checklist renderers: Markdown (templates/checklist.md.j2) and JSON. They return strings and never print.

The Markdown view model is built here; the template only loops over it (no logic, StrictUndefined).
Item boxes: `[x]` for pass, `[ ]` for fail, unknown and manual (those are what is left to do); a note (an
info finding: something to state or consider) has no box, since it is neither passed nor failed.
"""

from __future__ import annotations

from advisor.render import json_out

from typing import Any

from advisor.checklist import PHASE_TITLES, Checklist, Item
from advisor.render.templates import render_template

TEMPLATE = "checklist.md.j2"
STATUS_LABEL = {"pass": "pass", "fail": "FAIL", "unknown": "unknown", "manual": "manual", "note": "note"}
BOX = {"pass": "[x] ", "fail": "[ ] ", "unknown": "[ ] ", "manual": "[ ] ", "note": ""}


def _code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    one_line = " ".join(text.split())
    fence = "`"
    while fence in one_line:
        fence += "`"
    pad = " " if one_line.startswith("`") or one_line.endswith("`") else ""
    return f"{fence}{pad}{one_line}{pad}{fence}"


def _text(s: str) -> str:
    return " ".join(s.split())


def _item_view(it: Item) -> dict[str, Any]:
    lines = []
    if it.evidence:
        lines.append(f"Evidence: {_text(it.evidence)}")
    if it.fix:
        lines.append(f"{'Do' if it.status == 'manual' else 'Fix'}: {_text(it.fix)}")
    if it.command:
        lines.append(f"Command: {_code(it.command)}")
    if it.rule:
        lines.append(f"Rule {_code(it.rule)} ({it.severity}); details: {_code('advisor explain ' + it.rule)}")
    return {"box": BOX[it.status], "title": _text(it.title), "status": STATUS_LABEL[it.status],
            "lines": lines}


def view_model(cl: Checklist) -> dict[str, Any]:
    t = cl.target
    counts = cl.counts()
    header = [f"# Pre-benchmark checklist: {t.title}", ""]
    src = f"Source: {cl.source}" + (f", collected {cl.collected_at}" if cl.collected_at else "") + "."
    header.append(src + " Purpose: benchmark.")
    if cl.sysbench is not None:
        header.append("")
        header.append(f"sysbench command: {_code(cl.sysbench.display)}")
    if cl.local is not None:
        header.append("")
        header.append(f"sysbench on this machine: {_text(cl.local.describe())}.")
    header += ["", f"{counts['fail']} fail, {counts['unknown']} unknown, {counts['manual']} manual, {counts['pass']} pass, "
               f"{counts['note']} note{'' if counts['note'] == 1 else 's'}. "
               "Ticked items hold now; tick the others when done; notes (no box) are to state or consider."]
    phases = [{"title": PHASE_TITLES[p], "entries": [_item_view(it) for it in items]}
              for p, items in cl.by_phase() if items]
    footer: list[str] = []
    if cl.omitted or cl.notes:
        footer += ["", "## Notes", ""]
        if cl.omitted:
            footer.append("- Not applicable to this target (omitted): "
                          + "; ".join(f"{_code(o['rule'])}: {_text(o['reason'])}" for o in cl.omitted) + ".")
        footer += [f"- {_text(n)}" for n in cl.notes]
    return {"header": header, "phases": phases, "footer": footer}


def render_markdown(cl: Checklist) -> str:
    text = render_template(TEMPLATE, view_model(cl))
    return text.rstrip() + "\n"


def render_json(cl: Checklist) -> str:
    return json_out.dumps(cl.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n"
