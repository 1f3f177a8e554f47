"""Renderers for `advisor fleet`: a table and the roll-up for the terminal, the advisor.fleet/1 JSON
document, and the JSON Lines stream (one advisor.fleet-host/1 line per host as it finishes, then one
advisor.fleet-rollup/1 line). They return strings (or the document) and never print. `results` are
advisor.fleet.FleetResult values and `rollup` an advisor.rollup.Rollup's to_dict() (the renderer reads
their fields and imports nothing that collects)."""

from __future__ import annotations

import json
from typing import Any, Optional, Sequence

from advisor.render import json_out
from advisor.render.layout import columns, fill, hang

FleetResult = Any  # advisor.fleet.FleetResult: target, seconds, report, error, exit_code, timings, host_facts

SHOWN_HOSTS = 6  # host names listed per rule or drift value in text; the JSON lists them all


def host_dict(r: FleetResult) -> dict[str, Any]:
    """One host's result: the `targets` entries of advisor.fleet/1 and the advisor.fleet-host/1 lines."""
    return {"target": r.target.text, "host": r.target.label, "groups": list(r.target.groups),
            "seconds": round(r.seconds, 3), "timings": {k: round(v, 4) for k, v in r.timings.items()},
            "host_facts": getattr(r, "host_facts", None),
            "error": r.error, "exit_code": r.exit_code, "report": r.report.to_dict() if r.report else None}


def host_line(r: FleetResult) -> str:
    """The JSON Lines record of one host (advisor.fleet-host/1), newline-terminated."""
    return json.dumps({"schema": "advisor.fleet-host/1", **host_dict(r)}, separators=(",", ":")) + "\n"


def rollup_line(rollup: dict[str, Any], purpose: str, wall_seconds: float, jobs: int) -> str:
    """The last JSON Lines record (advisor.fleet-rollup/1)."""
    doc = {"schema": "advisor.fleet-rollup/1", "purpose": purpose, "jobs": jobs,
           "wall_seconds": round(wall_seconds, 3), **rollup}
    return json.dumps(doc, separators=(",", ":")) + "\n"


def summary_dict(results: Sequence[FleetResult], purpose: str, wall_seconds: float, jobs: int,
                 rollup: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """`advisor fleet --format json` (advisor.fleet/1): every host's report, then the roll-up."""
    doc: dict[str, Any] = {
        "schema": "advisor.fleet/1",
        "purpose": purpose,
        "jobs": jobs,
        "wall_seconds": round(wall_seconds, 3),
        "targets": [host_dict(r) for r in results],
    }
    if rollup is not None:
        doc["rollup"] = rollup
    return doc


def _names(hosts: Sequence[str]) -> str:
    shown = ", ".join(hosts[:SHOWN_HOSTS])
    return shown + (f" and {len(hosts) - SHOWN_HOSTS} more" if len(hosts) > SHOWN_HOSTS else "")


def rollup_text(rollup: dict[str, Any], width: int = 100) -> list[str]:
    lines = ["", fill(f"Rules across {rollup['hosts_audited']} audited host(s):", width, "")]
    if not rollup["rules"]:
        lines.append("  no rule fired on any host")
    rule_w = min(36, max((len(r["rule"]) for r in rollup["rules"]), default=0))
    narrow = width - (2 + 8 + 1 + rule_w + 1 + 4 + 10) < 20  # then one block per rule
    for r in rollup["rules"]:
        if narrow:
            lines.append(f"  {r['rule']}")
            lines.append(fill(f"{r['severity']}, {r['count']} host(s): {_names(r['hosts'])}", width, "    "))
        else:
            lines.append(columns(f"  {r['severity']:<8} {r['rule']:<{rule_w}} {r['count']:>4} host(s): ",
                                 _names(r["hosts"]), width, narrow_indent=4))
    if rollup["unreachable"]:
        lines += ["", f"Not audited ({len(rollup['unreachable'])}):"]
        lines += [hang(f"{u['host']}: {u['error']}", width, 4, "  ") for u in rollup["unreachable"]]
    for group, rows in rollup["drift"].items():
        lines += ["", fill(f"Drift in group {group}: " + (f"{len(rows)} variable(s) differ" if rows else "none"), width, "")]
        for row in rows:
            vals = "; ".join(f"{_value(v['value'])} on {_names(v['hosts'])}" for v in row["values"])
            lines.append(hang(f"{row['variable']}: {vals}", width, 4, "  "))
    return lines


def _value(v: str) -> str:
    return repr(v) if v == "" or len(v) > 40 or " " in v else v


def render_text(results: Sequence[FleetResult], wall_seconds: float, jobs: int,
                rollup: Optional[dict[str, Any]] = None, width: int = 100) -> str:
    """One row per host when the table fits `width` (a long top finding or error wraps under its
    column), else one block per host: its target, then its numbers in words."""
    tw = max([len(r.target.text) for r in results] + [len("target")])
    fvs = [f"{r.report.target.flavor} {r.report.target.version}" for r in results if r.report]
    fw = max([len(x) for x in fvs] + [len("flavor/version")])
    header = f"{'target':<{tw}}  {'flavor/version':<{fw}} {'crit':>4} {'warn':>4} {'info':>4}  seconds  top finding"
    table = len(header) <= width
    lines = [header] if table else []
    for r in results:
        if r.report is None:
            lines.append(columns(f"{r.target.text:<{tw}}  ERROR  ", r.error or "", width) if table
                         else r.target.text + "\n" + fill(f"not audited: {r.error}", width, "    "))
            continue
        sev = r.report.severity_counts()
        top = r.report.findings[0].rule if r.report.findings else "-"
        fv = f"{r.report.target.flavor} {r.report.target.version}"
        if table:
            lines.append(columns(f"{r.target.text:<{tw}}  {fv:<{fw}} {sev['critical']:>4} {sev['warning']:>4} "
                                 f"{sev['info']:>4}  {r.seconds:7.3f}  ", top, width))
        else:
            lines.append(r.target.text)
            lines.append(fill(f"{fv}: {sev['critical']} critical, {sev['warning']} warning, {sev['info']} info, "
                              f"{r.seconds:.3f} s; top finding: {top}", width, "    "))
    if rollup is not None:
        lines += rollup_text(rollup, width)
    ok = sum(1 for r in results if r.report)
    lines.append("")
    lines.append(fill(f"{len(results)} targets, {ok} audited, {len(results) - ok} failed, {wall_seconds:.2f} s wall "
                      f"with --jobs {jobs}", width, ""))
    return "\n".join(lines) + "\n"


def render_json(results: Sequence[FleetResult], purpose: str, wall_seconds: float, jobs: int,
                rollup: Optional[dict[str, Any]] = None) -> str:
    return json_out.dumps(summary_dict(results, purpose, wall_seconds, jobs, rollup), indent=2) + "\n"
