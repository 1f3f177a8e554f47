"""Renderers for `advisor fleet`: a table for the terminal and the advisor.fleet/1 JSON document. They
return strings (or the document) and never print. `results` are advisor.fleet.FleetResult values (the
renderer reads their fields and imports nothing that collects)."""

from __future__ import annotations

from advisor.render import json_out

from typing import Any, Sequence

FleetResult = Any  # advisor.fleet.FleetResult: target, seconds, report, error, exit_code, timings


def summary_dict(results: Sequence[FleetResult], purpose: str, wall_seconds: float, jobs: int) -> dict[str, Any]:
    """`advisor fleet --format json` (advisor.fleet/1)."""
    return {
        "schema": "advisor.fleet/1",
        "purpose": purpose,
        "jobs": jobs,
        "wall_seconds": round(wall_seconds, 3),
        "targets": [
            {"target": r.target.text, "seconds": round(r.seconds, 3),
             "timings": {k: round(v, 4) for k, v in r.timings.items()},
             "error": r.error, "exit_code": r.exit_code,
             "report": r.report.to_dict() if r.report else None}
            for r in results
        ],
    }


def render_text(results: Sequence[FleetResult], wall_seconds: float, jobs: int) -> str:
    width = max(len(r.target.text) for r in results)
    lines = [f"{'target':<{width}}  {'flavor/version':<18} {'crit':>4} {'warn':>4} {'info':>4}  seconds  top finding"]
    for r in results:
        if r.report is None:
            lines.append(f"{r.target.text:<{width}}  ERROR  {r.error}")
            continue
        sev = r.report.severity_counts()
        top = r.report.findings[0].rule if r.report.findings else "-"
        fv = f"{r.report.target.flavor} {r.report.target.version}"
        lines.append(f"{r.target.text:<{width}}  {fv:<18} {sev['critical']:>4} {sev['warning']:>4} {sev['info']:>4}"
                     f"  {r.seconds:7.3f}  {top}")
    ok = sum(1 for r in results if r.report)
    lines.append(f"{len(results)} targets, {ok} audited, {len(results) - ok} failed, {wall_seconds:.2f} s wall with --jobs {jobs}")
    return "\n".join(lines) + "\n"


def render_json(results: Sequence[FleetResult], purpose: str, wall_seconds: float, jobs: int) -> str:
    return json_out.dumps(summary_dict(results, purpose, wall_seconds, jobs), indent=2) + "\n"
