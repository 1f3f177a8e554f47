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
from advisor.inputs import clip
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
        tip = "write one [user@]host[:port] per line ('#' starts a comment)."
        if not m:
            raise UsageError(f"{source}:{n}: {clip(line)} is not a target.", tip)
        digits = m.group("port")
        port = int(digits) if digits and len(digits) <= 5 else (65536 if digits else None)
        if port is not None and not 0 < port < 65536:
            raise UsageError(f"{source}:{n}: port {clip(digits, 20).strip(chr(39))} is out of range.",
                             "ports are 1 to 65535; " + tip)
        out.append(FleetTarget(n, line, m.group("host").strip("[]"), port, m.group("user")))
    if not out:
        raise UsageError(f"{source} lists no targets.", "write one [user@]host[:port] per line.")
    return out


def read_targets(path: str) -> list[FleetTarget]:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"target list {p} does not exist.", "pass a file with one [user@]host[:port] per line.")
    tip = "write one [user@]host[:port] per line, as UTF-8 text."
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"target list {p}: byte {e.start:,} is not UTF-8.", tip) from None
    except OSError as e:
        raise UsageError(f"cannot read target list {p}: {e.strerror}.", tip) from None
    return parse_targets(text, str(p))


def audit_one(t: FleetTarget, base: ConnectionOptions, purpose: str, sample_seconds: float,
              calibration: Optional[Calibration] = None) -> FleetResult:
    from advisor import api

    opts = replace(base, host=t.host, port=t.port if t.port is not None else (base.port or 3306),
                   user=t.user or base.user, socket=None)
    t0 = time.monotonic()
    try:
        a = api.assess(purpose, collection=api.Collection(opts, sample_seconds=sample_seconds),
                       calibration=calibration or api.Calibration())
        if a.failure is not None:  # audited, but calibration failed: both are reported
            return FleetResult(t, time.monotonic() - t0, report=a.report, timings=dict(a.timings),
                               error=str(a.failure), exit_code=a.failure.exit_code)
        return FleetResult(t, time.monotonic() - t0, report=a.report, timings=dict(a.timings))
    except AdvisorError as e:
        return FleetResult(t, time.monotonic() - t0, error=str(e), exit_code=e.exit_code)


def audit_fleet(targets: list[FleetTarget], base: ConnectionOptions, purpose: str = "production",
                jobs: int = 4, sample_seconds: float = 0.0, calibration: Optional[Calibration] = None) -> list[FleetResult]:
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1 (got {jobs}).", "pass --jobs 4, or 1 to audit one server at a time.")
    from advisor.rules.loader import load_entries

    load_entries()  # fail fast on a bad catalogue before opening any connection
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda t: audit_one(t, base, purpose, sample_seconds, calibration), targets))
