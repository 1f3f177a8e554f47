"""Audit many servers: parse a target list, assess each (advisor.api.assess: collect, calibrate as the
purpose says, audit; the same path as `advisor audit`) in parallel threads. Each target's failure is
recorded, never fatal to the others. advisor.render.fleet renders the results."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from advisor.collect.connection import ConnectionOptions
from advisor.errors import AdvisorError, UsageError
from advisor.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from advisor.api import Calibration

_TARGET = re.compile(r"^(?:(?P<user>[^@\s]+)@)?(?P<host>\[[0-9a-fA-F:]+\]|[^:\s]+)(?::(?P<port>\d+))?$")


@dataclass(frozen=True)
class FleetTarget:
    line: int
    text: str
    host: str
    port: Optional[int]
    user: Optional[str]
    dsn: Optional[str] = field(default=None, repr=False)  # a Percona DSN line (text shows it without p=)


@dataclass
class FleetResult:
    target: FleetTarget
    seconds: float
    report: Optional[Report] = None
    error: Optional[str] = None
    exit_code: int = 0
    timings: dict[str, float] = field(default_factory=dict)


def parse_targets(text: str, source: str = "targets") -> list[FleetTarget]:
    """One target per line: [user@]host[:port], or a Percona DSN (h=db1,P=3307,u=app,S=...,F=...);
    '#' starts a comment; blank lines are skipped."""
    from advisor.collect.clientopts import is_dsn, mask_dsn, parse_dsn

    out: list[FleetTarget] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if is_dsn(line):
            try:
                d = parse_dsn(line)
                port = int(d["port"]) if "port" in d else None
            except (UsageError, ValueError) as e:
                raise UsageError(f"{source}:{n}: {e}", "write a DSN such as h=db1,P=3306,u=app.") from None
            out.append(FleetTarget(n, mask_dsn(line), d.get("host") or "localhost", port, d.get("user"), dsn=line))
            continue
        m = _TARGET.match(line)
        if not m:
            raise UsageError(f"{source}:{n}: {line[:100]!r} is not a target.",
                             "write [user@]host[:port] or a Percona DSN (h=db1,P=3306,u=app) per line.")
        port = int(m.group("port")) if m.group("port") else None
        if port is not None and not 0 < port < 65536:
            raise UsageError(f"{source}:{n}: port {port} is out of range.", "use a TCP port between 1 and 65535.")
        out.append(FleetTarget(n, line, m.group("host").strip("[]"), port, m.group("user")))
    if not out:
        raise UsageError(f"{source} lists no targets.", "write one [user@]host[:port] per line.")
    return out


def read_targets(path: str) -> list[FleetTarget]:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"target list {p} does not exist.", "pass a file with one [user@]host[:port] per line.")
    return parse_targets(p.read_text(encoding="utf-8"), str(p))


def audit_one(t: FleetTarget, base: ConnectionOptions, purpose: str, sample_seconds: float,
              calibration: Optional[Calibration] = None) -> FleetResult:
    from advisor import api

    opts = replace(base, host=t.host, port=t.port if t.port is not None else (base.port or 3306),
                   user=t.user or base.user, socket=None)
    if t.dsn:
        from advisor.collect.clientopts import parse_dsn

        d = parse_dsn(t.dsn)
        opts = replace(opts, host=d.get("host"), socket=d.get("socket"), port=t.port if t.port is not None else base.port,
                       password=d.get("password", base.password),
                       defaults_file=d.get("defaults_file") or base.defaults_file,
                       files=None if "defaults_file" in d else base.files)
    t0 = time.monotonic()
    try:
        a = api.assess(purpose, collection=api.Collection(opts, sample_seconds=sample_seconds),
                       calibration=calibration or api.Calibration())
        return FleetResult(t, time.monotonic() - t0, report=a.report, timings=dict(a.timings))
    except AdvisorError as e:
        return FleetResult(t, time.monotonic() - t0, error=str(e), exit_code=e.exit_code)


def audit_fleet(targets: list[FleetTarget], base: ConnectionOptions, purpose: str = "production",
                jobs: int = 4, sample_seconds: float = 0.0, calibration: Optional[Calibration] = None) -> list[FleetResult]:
    if jobs < 1:
        raise UsageError("--jobs must be at least 1.", "pass --jobs 4 (the default) or another positive number.")
    from advisor.rules.loader import load_entries

    load_entries()  # fail fast on a bad catalogue before opening any connection
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda t: audit_one(t, base, purpose, sample_seconds, calibration), targets))
