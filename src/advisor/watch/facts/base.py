"""The registry of watch facts and the series view they are computed over. Pure.

Every fact is a small function registered with its unit and a one-line doc (the verdict
reference page lists them), computed over the *loaded* intervals: those whose workload (server
queries per second, else the benchmark's TPS) is at least half the median of the intervals that
had any, so ramp-up, a connect phase and the tail after the benchmark stopped do not dilute the
numbers. Values are medians over those intervals unless the doc says otherwise. A fact that cannot
be computed is Unknown with the reason (what was not sampled, and why).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Optional

from advisor.rules.facts import Unknown
from advisor.watch.model import HostInterval, HostSetup, Interval, WatchRun

LOAD_FLOOR_QPS = 5.0     # below this many queries per second (the watcher's own removed) a server is idle
ACTIVE_FRACTION = 0.5    # an interval is loaded when its load is at least half the median load


@dataclass(frozen=True)
class SummaryFact:
    name: str
    fn: Callable[["Series"], Any]
    unit: str
    doc: str


FACTS: dict[str, SummaryFact] = {}


def fact(name: str, unit: str, doc: str) -> Callable[[Callable[["Series"], Any]], Callable[["Series"], Any]]:
    def deco(fn: Callable[["Series"], Any]) -> Callable[["Series"], Any]:
        if name in FACTS:
            raise ValueError(f"summary fact {name} defined twice")
        FACTS[name] = SummaryFact(name, fn, unit, doc)
        return fn
    return deco


def median(values: list[Optional[float]]) -> Optional[float]:
    xs = [v for v in values if v is not None]
    return statistics.median(xs) if xs else None


def interval_load(iv: Interval) -> Optional[float]:
    """The workload of one interval: server queries per second, else the benchmark's TPS / events."""
    if iv.server is not None and "Questions" in iv.server.rates:
        return iv.server.rates["Questions"]
    rates = [r.tps if r.tps is not None else r.eps for r in iv.sysbench]
    rates = [r for r in rates if r is not None]
    return statistics.mean(rates) if rates else None


PARTIAL_FRACTION = 0.75  # a last interval shorter than this share of the others is the command's exit, not load


def counted_intervals(intervals: list[Interval]) -> list[Interval]:
    """The intervals load is judged over: a last partial interval (the benchmark disconnecting, its
    Com_quit and cleanup over a fraction of a second) is left out when there are others."""
    if len(intervals) >= 2:
        full = median([iv.seconds for iv in intervals[:-1]]) or 0.0
        if intervals[-1].seconds < PARTIAL_FRACTION * full:
            return intervals[:-1]
    return intervals


def loaded_intervals(intervals: list[Interval]) -> list[Interval]:
    intervals = counted_intervals(intervals)
    loads = [(iv, interval_load(iv)) for iv in intervals]
    busy = [x for _, x in loads if x is not None and x >= LOAD_FLOOR_QPS]
    if not busy:
        return []
    floor = max(LOAD_FLOOR_QPS, ACTIVE_FRACTION * statistics.median(busy))
    return [iv for iv, x in loads if x is not None and x >= floor]


class Series:
    """A series with the caches the fact functions share. `baseline`: another run to compare with."""

    def __init__(self, run: WatchRun, baseline: Optional[WatchRun] = None, baseline_name: str = ""):
        self.run = run
        self.setup = run.setup
        self.loaded = loaded_intervals(run.intervals)
        self.baseline = Series(baseline) if baseline is not None else None
        self.baseline_name = baseline_name
        self._cache: dict[str, Any] = {}

    # ------------------------------------------------------------------ helpers
    def need_load(self) -> Optional[Unknown]:
        if not self.run.intervals:
            return Unknown("the watch recorded no complete interval")
        if not self.loaded:
            return Unknown("no interval carried load")
        return None

    def server_hosts(self) -> list[HostInterval]:
        return [iv.server_host for iv in self.loaded if iv.server_host is not None]

    def client_hosts(self) -> list[HostInterval]:
        """The client's host samples: its own, or the server's when both run on one host."""
        if self.setup.same_host:
            return self.server_hosts()
        return [iv.client_host for iv in self.loaded if iv.client_host is not None]

    def client_setup(self) -> Optional[HostSetup]:
        return self.setup.server_host if self.setup.same_host else self.setup.client_host

    def _rate_of(self, iv: Interval, name: str) -> Optional[float]:
        """A counter's rate in one interval; Com_* counters are stored only when they moved."""
        if iv.server is None or iv.server.restarted:
            return None
        if name in iv.server.rates:
            return iv.server.rates[name]
        return 0.0 if name.startswith("Com_") and iv.server.rates else None

    def rate(self, name: str) -> Optional[float]:
        return median([self._rate_of(iv, name) for iv in self.loaded])

    def total(self, name: str) -> Optional[float]:
        """Sum of a counter over the loaded intervals (rate × seconds)."""
        xs = [r * iv.seconds for iv in self.loaded for r in [self._rate_of(iv, name)] if r is not None]
        return sum(xs) if xs else None

    def why_server(self) -> str:
        u = self.need_load()
        return u.reason if u is not None else self.why_no_server_host()

    def gauge(self, name: str) -> Optional[float]:
        return median([iv.server.gauges.get(name) for iv in self.loaded if iv.server is not None])

    def why_no_server_host(self) -> str:
        m = next((m.reason for m in self.setup.missing if m.fact == "server_host"), None)
        return m or "the server's host was not sampled"

    def why_no_client_host(self) -> str:
        m = next((m.reason for m in self.setup.missing if m.fact == "client_host"), None)
        return m or "the benchmark client's host was not sampled"


def compute(series: Series) -> tuple[dict[str, Any], dict[str, str]]:
    """Every registered fact: (values, reasons for the unknown ones)."""
    values: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for name, f in FACTS.items():
        v = f.fn(series)
        if isinstance(v, Unknown):
            missing[name] = v.reason
        elif v is not None:
            values[name] = v
        else:
            missing[name] = "not measured"
    return values, missing


def _u(v: Optional[float], reason: str) -> Any:
    return Unknown(reason) if v is None else v
