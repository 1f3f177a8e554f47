"""sysbench's output: the --report-interval lines and the final summary. Pure.

Formats read from sysbench 1.0.20's binary and akopytov/sysbench (src/sysbench.c, the Lua
`sysbench.report_default` in src/lua/internal/sysbench.lua), and checked against the output of
the Debian build here:
  [ 1s ] thds: 16 tps: 42107.23 qps: 42107.23 (r/w/o: 42107.23/0.00/0.00) lat (ms,95%): 1.04 err/s: 0.00 reconn/s: 0.00
  [ 1s ] thds: 1 eps: 2380.97 lat (ms,95%): 0.47                        (cpu, memory, threads, mutex)
The Lua reporter writes `err/s 0.00` without the colon. With `--percentile=0` sysbench prints
`lat (ms,0%): 0.00` (percentiles disabled, not a measured zero), read here as no latency.
fileio's interval line (`reads: 0.00 MiB/s writes: ...`) gives a report without rates.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from advisor.watch.model import SysbenchReport, SysbenchSummary

_NUM = r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|-?nan|-?inf)"
_INTERVAL = re.compile(r"^\[\s*(\d+(?:\.\d+)?)s\s*\]\s+thds:\s*(\d+)\s+(.*)$")
_FIELDS = {
    "tps": re.compile(r"\btps:\s*" + _NUM),
    "qps": re.compile(r"\bqps:\s*" + _NUM),
    "eps": re.compile(r"\beps:\s*" + _NUM),
    "errors_per_s": re.compile(r"\berr/s:?\s*" + _NUM),
    "reconnects_per_s": re.compile(r"\breconn/s:?\s*" + _NUM),
}
_RWO = re.compile(r"\(r/w/o:\s*" + _NUM + "/" + _NUM + "/" + _NUM + r"\)")
_LAT = re.compile(r"\blat \(ms,\s*(\d+(?:\.\d+)?)%\):\s*" + _NUM)


def _f(s: str) -> Optional[float]:
    try:
        v = float(s)
    except ValueError:
        return None
    return v if v == v and v not in (float("inf"), float("-inf")) else None


def parse_report_line(line: str) -> Optional[SysbenchReport]:
    """One --report-interval line, or None when the line is something else."""
    m = _INTERVAL.match(line.strip())
    if m is None:
        return None
    rest = m.group(3)
    r = SysbenchReport.model_construct(t_s=float(m.group(1)), threads=int(m.group(2)), tps=None, qps=None,
                                       reads_per_s=None, writes_per_s=None, other_per_s=None, eps=None,
                                       latency_ms=None, latency_percentile=None, errors_per_s=None,
                                       reconnects_per_s=None)
    for name, rx in _FIELDS.items():
        fm = rx.search(rest)
        if fm:
            setattr(r, name, _f(fm.group(1)))
    rwo = _RWO.search(rest)
    if rwo:
        r.reads_per_s, r.writes_per_s, r.other_per_s = (_f(rwo.group(i)) for i in (1, 2, 3))
    lat = _LAT.search(rest)
    if lat:
        pct = float(lat.group(1))
        r.latency_percentile, r.latency_ms = (pct, _f(lat.group(2))) if pct > 0 else (None, None)
    return r


_COUNT_RATE = re.compile(r"^\s*(transactions|queries|ignored errors|reconnects):\s+(\d+)\s+\(\s*" + _NUM + r" per sec\.\)")
_KV = re.compile(r"^\s*([A-Za-z0-9 ]+?):\s+" + _NUM + r"s?\s*$")
_PCT = re.compile(r"^\s*(\d+)th percentile:\s+" + _NUM)


def parse_summary(lines: Iterable[str]) -> Optional[SysbenchSummary]:
    """sysbench's final report from its output lines; None when there is none (it was interrupted
    before printing it, or the command is not sysbench)."""
    s = SysbenchSummary()
    seen = False
    section = ""
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith("FATAL:") or " FATAL: " in line:
            s.fatal.append(line.strip()[:300])
            continue
        if line and not line.startswith(" "):
            section = line.strip().rstrip(":").lower()
        m = _COUNT_RATE.match(line)
        if m:
            seen = True
            key, count, rate = m.group(1), int(m.group(2)), _f(m.group(3))
            if key == "transactions":
                s.transactions, s.tps = count, rate
            elif key == "queries":
                s.queries, s.qps = count, rate
            elif key == "ignored errors":
                s.ignored_errors = count
            else:
                s.reconnects = count
            continue
        pm = _PCT.match(line)
        if pm and section.startswith("latency"):
            s.percentile, s.latency_pct_ms = int(pm.group(1)), _f(pm.group(2))
            continue
        kv = _KV.match(line)
        if not kv:
            continue
        key, val = kv.group(1).strip().lower(), _f(kv.group(2))
        if key == "total time":
            s.total_time_s, seen = val, True
        elif key == "total number of events":
            s.events = int(val) if val is not None else None
        elif key == "events per second":
            s.events_per_s, seen = val, True
        elif section.startswith("latency") and key in ("min", "avg", "max"):
            setattr(s, f"latency_{key}_ms", val)
    return s if seen or s.fatal else None
