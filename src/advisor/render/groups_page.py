"""docs/groups.md: how findings that share a root cause become one finding, and every cause group with
its members, generated from rules/groups.toml and the catalogue (`python -m advisor.render.pages`)."""

from __future__ import annotations

from typing import Any, Iterable

from advisor.render.page_text import paragraph
from advisor.rules.groups import POLICY

HEADER = "<!-- generated from rules/groups.toml by `python -m advisor.render.pages`; do not edit -->"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def groups_page(groups: Iterable[Any], rules: Iterable[Any]) -> str:
    by_id = {r.id: r for r in rules}
    groups = list(groups)
    out = [HEADER, "", "# Cause groups", "",
           "Findings that share one root cause are reported as one finding, with the others as its "
           "consequences and one recommendation per variable (issue 23 §2). The groups are data: "
           "`rules/groups.toml`; `advisor.rules.groups` applies them to an audit's findings.", "",
           "## How a group becomes one finding", ""]
    out += [f"- **{k}**: {v}" for k, v in POLICY]
    out += ["", f"## Groups ({len(groups)})", "",
            "| group | title | members | recommendation |", "|---|---|---|---|"]
    out += [f"| [{g.id}](#{g.id}) | {_cell(g.title)} | {len(g.members)} | {g.recommend} |" for g in groups]
    for g in groups:
        out += ["", f"### {g.id}", "", f"**{g.title}** · recommendation: {g.recommend}", "", paragraph(g.cause), "",
                "| order | rule | severity | category | title |", "|---|---|---|---|---|"]
        for i, m in enumerate(g.members, 1):
            r = by_id.get(m)
            if r is None:
                out.append(f"| {i} | `{m}` | — | — | not in the catalogue |")
            else:
                out.append(f"| {i} | [{m}](rules/{m}.md) | {r.spec.severity} | {r.spec.category} | {_cell(r.spec.title)} |")
    return "\n".join(out) + "\n"
