"""Facts about the run and its load: duration, intervals, queries per second, TPS.
Pure; registered in advisor.watch.facts.base.FACTS."""

from __future__ import annotations

from typing import Any

from advisor.rules.facts import Unknown
from advisor.watch.facts.base import Series, _u, counted_intervals, fact, interval_load, median


@fact("watch.duration_s", "s", "How long the watch sampled.")
def duration_s(s: Series) -> Any:
    return round(s.run.duration_s, 1)


@fact("watch.intervals", "count", "Intervals recorded.")
def intervals(s: Series) -> Any:
    return len(s.run.intervals)


@fact("watch.loaded_intervals", "count", "Intervals that carried load (the ones the other facts are computed over).")
def loaded_count(s: Series) -> Any:
    return len(s.loaded)


@fact("watch.load.qps", "per second", "Median queries per second over all intervals (the watcher's own removed).")
def load_qps(s: Series) -> Any:
    return _u(median([interval_load(iv) for iv in s.run.intervals]), "neither the server's counters nor the "
              "benchmark's report lines were sampled")


@fact("watch.load.peak_qps", "per second", "Highest queries per second of one interval (a last partial interval left out).")
def load_peak(s: Series) -> Any:
    loads = [x for x in (interval_load(iv) for iv in counted_intervals(s.run.intervals)) if x is not None]
    return max(loads) if loads else Unknown("no interval had a load figure")


@fact("watch.load.busy", "bool", "Whether any interval carried load (at least 5 queries per second).")
def load_busy(s: Series) -> Any:
    if not s.run.intervals:
        return Unknown("the watch recorded no complete interval")
    if all(interval_load(iv) is None for iv in s.run.intervals):
        return Unknown("neither the server's counters nor the benchmark's report lines were sampled")
    return bool(s.loaded)


@fact("watch.load.threads_running", "count", "Median Threads_running over all intervals (the watcher's excluded).")
def load_threads(s: Series) -> Any:
    return _u(median([iv.server.gauges.get("Threads_running") for iv in s.run.intervals if iv.server]),
              "the server's status was not sampled")


@fact("watch.tps", "per second", "Median transactions per second: sysbench's report lines, else the server's commits.")
def tps(s: Series) -> Any:
    v = median([r.tps for iv in s.loaded for r in iv.sysbench])
    if v is not None:
        return v
    v = median([iv.server.rates.get("Com_commit", 0.0) + iv.server.rates.get("Com_rollback", 0.0)
                for iv in s.loaded if iv.server is not None])
    return v if v else Unknown("no sysbench report lines and no commits")


@fact("watch.tps_source", "text", "Where watch.tps comes from.")
def tps_source(s: Series) -> Any:
    if any(r.tps is not None for iv in s.loaded for r in iv.sysbench):
        return "sysbench's report lines"
    return "the server's Com_commit + Com_rollback"


@fact("watch.sysbench.latency_ms", "ms", "Median of sysbench's per-interval latency percentile.")
def sb_latency(s: Series) -> Any:
    return _u(median([r.latency_ms for iv in s.loaded for r in iv.sysbench]), "no sysbench report lines with latency "
              "(run sysbench with --report-interval=1)")


@fact("watch.sysbench.errors_per_s", "per second", "Median of sysbench's errors per second.")
def sb_errors(s: Series) -> Any:
    return _u(median([r.errors_per_s for iv in s.loaded for r in iv.sysbench]), "no sysbench report lines")
