from __future__ import annotations

from advisor.render import json_out


from advisor.report import Report


def render(report: Report) -> str:
    return json_out.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n"
