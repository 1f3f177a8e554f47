"""Renderers for `advisor verify`: text and JSON of a VerifyResult (advisor.mycnf.verify). They return
strings and never print."""

from __future__ import annotations

from advisor.render import json_out


from advisor.mycnf.verify import VerifyResult


def render_text(r: VerifyResult) -> str:
    label = {"applied": "applied", "differs": "DIFFERS", "not_applicable": "not applicable"}
    lines = [f"advisor verify: {r.flavor} {r.version} at {r.server} against {r.path}", ""]
    width = max((len(i.option) for i in r.items), default=10)
    for i in r.items:
        val = "" if i.file_value is None else f" = {i.file_value}"
        left = f"  {label[i.status]:<15} {i.option}{val}"
        if i.status == "applied":
            right = f"server: {i.server_value}"
        else:
            right = i.note
        lines.append(f"{left:<{width + 36}} {right}".rstrip())
    lines.append("")
    lines += [f"note: {n}" for n in r.notes]
    lines.append(f"{r.count('applied')} applied, {r.count('differs')} differ, {r.count('not_applicable')} not applicable"
                 + (": everything applicable is in effect." if r.exit_code == 0 else "."))
    return "\n".join(lines) + "\n"


def render_json(r: VerifyResult) -> str:
    return json_out.dumps(r.to_dict(), indent=2) + "\n"
