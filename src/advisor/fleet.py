"""Audit many servers: parse a target list, collect and audit each (in parallel threads), and
summarise. Each target's failure is recorded, never fatal to the others."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

from advisor.collect.connection import ConnectionOptions
from advisor.errors import AdvisorError, UsageError
from advisor.report import Report

_TARGET = re.compile(r"^(?:(?P<user>[^@\s]+)@)?(?P<host>\[[0-9a-fA-F:]+\]|[^:\s]+)(?::(?P<port>\d+))?$")


@dataclass(frozen=True)
class FleetTarget:
    line: int
    text: str
    host: str
    port: Optional[int]
    user: Optional[str]


@dataclass
class FleetResult:
    target: FleetTarget
    seconds: float
    report: Optional[Report] = None
    error: Optional[str] = None
    exit_code: int = 0
    timings: dict[str, float] = field(default_factory=dict)


def parse_targets(text: str, source: str = "targets") -> list[FleetTarget]:
    """One target per line: [user@]host[:port]; '#' starts a comment; blank lines are skipped."""
    out: list[FleetTarget] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _TARGET.match(line)
        if not m:
            raise UsageError(f"{source}:{n}: {line!r} is not a target; write [user@]host[:port].", None)
        port = int(m.group("port")) if m.group("port") else None
        if port is not None and not 0 < port < 65536:
            raise UsageError(f"{source}:{n}: port {port} is out of range.", None)
        out.append(FleetTarget(n, line, m.group("host").strip("[]"), port, m.group("user")))
    if not out:
        raise UsageError(f"{source} lists no targets.", "write one [user@]host[:port] per line.")
    return out


def read_targets(path: str) -> list[FleetTarget]:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"target list {p} does not exist.", "pass a file with one [user@]host[:port] per line.")
    return parse_targets(p.read_text(encoding="utf-8"), str(p))


def audit_one(t: FleetTarget, base: ConnectionOptions, purpose: str, sample_seconds: float) -> FleetResult:
    from advisor import api

    opts = replace(base, host=t.host, port=t.port if t.port is not None else (base.port or 3306),
                   user=t.user or base.user, socket=None)
    t0 = time.monotonic()
    try:
        snap = api.collect(opts, sample_seconds=sample_seconds)
        t1 = time.monotonic()
        report = api.audit(snap, purpose=purpose)
        t2 = time.monotonic()
        return FleetResult(t, t2 - t0, report=report, timings={"collect": t1 - t0, "audit": t2 - t1})
    except AdvisorError as e:
        return FleetResult(t, time.monotonic() - t0, error=str(e), exit_code=e.exit_code)


def audit_fleet(targets: list[FleetTarget], base: ConnectionOptions, purpose: str = "production",
                jobs: int = 4, sample_seconds: float = 0.0) -> list[FleetResult]:
    if jobs < 1:
        raise UsageError("--jobs must be at least 1.", None)
    from advisor.rules.loader import load_rules

    load_rules()  # fail fast on a bad catalogue before opening any connection
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda t: audit_one(t, base, purpose, sample_seconds), targets))


def summary_dict(results: list[FleetResult], purpose: str, wall_seconds: float, jobs: int) -> dict[str, Any]:
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


def render_text(results: list[FleetResult], wall_seconds: float, jobs: int) -> str:
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
