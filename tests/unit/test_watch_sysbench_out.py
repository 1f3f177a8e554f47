"""sysbench's report lines and final summary, on outputs recorded from sysbench 1.0.20 here
(tests/fixtures/watch/PROVENANCE.md) and on the other formats its sources print."""

from pathlib import Path

import pytest

from advisor.watch.sysbench_out import parse_report_line, parse_summary

SB = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "sysbench"


def lines(name: str) -> list[str]:
    return (SB / name).read_text().splitlines(keepends=True)


def test_oltp_interval_lines_recorded():
    reps = [r for r in (parse_report_line(x) for x in lines("point-select-1.0.20.txt")) if r is not None]
    assert [r.t_s for r in reps] == [1.0, 2.0, 3.0]  # a 4 s run: the 4th second goes into the summary
    r = reps[0]
    assert r.threads == 4 and r.tps and r.tps == r.qps == r.reads_per_s and r.writes_per_s == 0.0
    assert r.latency_percentile == 95 and r.latency_ms and r.errors_per_s == 0.0 and r.reconnects_per_s == 0.0


def test_lua_reporter_and_builtin_tests():
    # sysbench.report_default (src/lua/internal/sysbench.lua) prints "err/s" without the colon
    r = parse_report_line("[ 10s ] thds: 64 tps: 1523.40 qps: 30468.00 (r/w/o: 21327.60/6093.60/3046.80) "
                          "lat (ms,99%): 89.16 err/s 0.30 reconn/s: 0.00")
    assert r is not None and r.t_s == 10 and r.threads == 64 and r.writes_per_s == 6093.6
    assert r.latency_percentile == 99 and r.errors_per_s == 0.3
    cpu = [r for r in (parse_report_line(x) for x in lines("cpu-1.0.20.txt")) if r is not None]
    assert len(cpu) == 2 and cpu[0].eps == 893.92 and cpu[0].tps is None
    # --percentile=0 prints 0.00: no measured latency
    off = parse_report_line("[ 1s ] thds: 1 eps: 2426.04 lat (ms,0%): 0.00")
    assert off is not None and off.latency_ms is None and off.latency_percentile is None
    assert parse_report_line("Threads started!") is None and parse_report_line("") is None


def test_summary_recorded_oltp():
    s = parse_summary(lines("point-select-1.0.20.txt"))
    assert s is not None and s.transactions and s.transactions == s.queries and s.tps and s.tps > 0
    assert s.ignored_errors == 0 and s.reconnects == 0 and s.total_time_s == pytest.approx(4.0, abs=0.1)
    assert s.percentile == 95 and s.latency_min_ms is not None and s.latency_max_ms >= s.latency_avg_ms
    assert s.events == s.transactions and s.fatal == []


def test_summary_recorded_cpu_test():
    s = parse_summary(lines("cpu-1.0.20.txt"))
    assert s is not None and s.events_per_s == 884.51 and s.events == 1777 and s.latency_pct_ms == 6.91
    assert s.transactions is None


def test_fatal_and_interrupted_outputs():
    s = parse_summary(lines("fatal-missing-table-1.0.20.txt"))
    assert s is not None and s.transactions is None
    assert any("1146" in f and "sbtest2" in f for f in s.fatal)
    assert parse_summary(lines("point-select-sigint-1.0.20.txt")) is None  # SIGINT: no summary printed
