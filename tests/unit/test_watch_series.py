"""Watch series recorded on this machine (tests/fixtures/watch/series, PROVENANCE.md) judged offline:
the summary facts, the verdicts, the renderers, the saved format, and `advisor watch --load`."""

import json
import re
from pathlib import Path

import pytest

from advisor.errors import InvalidInputError
from advisor.rules.facts import Unknown
from advisor.watch.model import Interval, ServerInterval, WatchRun, load_run
from advisor.render.watch import render_json, render_markdown, render_text, report_dict, table
from advisor.watch.report import judge
from advisor.watch.facts import FACTS, Series, compute, loaded_intervals
from advisor.watch.verdicts import load_verdicts
from tests.support.cli import assert_one_paragraph_error, run_cli

SERIES = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "series"
NAMES = sorted(p.name for p in SERIES.glob("*.json"))
VERDICTS = load_verdicts()


def run_of(name: str) -> WatchRun:
    return load_run((SERIES / name).read_text(), name)


def facts(name: str, baseline: str | None = None) -> tuple[dict, dict]:
    return compute(Series(run_of(name), run_of(baseline) if baseline else None, baseline or ""))


@pytest.mark.parametrize("name", NAMES)
def test_every_fact_has_a_value_or_a_reason(name):
    values, missing = facts(name)
    assert set(values) | set(missing) == set(FACTS)
    for k, why in missing.items():
        assert why and "None" not in why, (k, why)


def test_idle_series_has_no_load_once_the_watchers_statements_are_removed():
    v, _ = facts("idle.json")
    assert v["watch.load.busy"] is False and v["watch.load.qps"] == 0 and v["watch.intervals"] == 5
    assert v["watch.loaded_intervals"] == 0


def test_network_series_finds_the_shaped_interface():
    v, _ = facts("network-10mbit.json")
    assert v["watch.net.interface"].startswith("advn") and v["watch.net.direction"] == "sends"
    assert v["watch.net.ceiling_mbps"] == 10 and "tbf" in v["watch.net.ceiling_source"]
    assert v["watch.net.utilisation"] >= 0.9 and v["watch.net.loopback"] is False
    assert 150 < v["watch.net.bytes_per_query"] < 400  # one point-select result and its headers


def test_tls_and_plain_series():
    tls, _ = facts("point-select-tls.json", "point-select-plain.json")
    assert tls["watch.tls.share"] == 1.0 and re.fullmatch(r"(\d+) TLS handshakes for \1 connections.*", tls["watch.tls.basis"])
    assert tls["watch.baseline.tls_share"] == 0.0 and tls["watch.baseline.tps"] > 0
    assert tls["watch.baseline.tps_ratio"] == pytest.approx(tls["watch.tps"] / tls["watch.baseline.tps"])
    plain, _ = facts("point-select-plain.json")
    assert plain["watch.tls.share"] == 0.0


def test_read_only_series_misses_the_small_pool():
    v, _ = facts("read-only-32m-pool.json")
    assert 0.05 < v["watch.bp.miss_rate"] < 0.6 and v["watch.bp.reads_per_s"] > 100
    assert v["watch.disk.device"] == "vda" and v["watch.disk.read_iops"] > 100


def test_loopback_series_splits_the_cpu_between_processes():
    v, missing = facts("point-select-loopback.json")
    assert v["watch.net.loopback"] is True and "watch.net.utilisation" in missing
    assert v["watch.same_host"] is True and v["watch.client.command.name"] == "sysbench"
    assert v["watch.server.mysqld.cores"] > 0 and v["watch.client.command.cores"] > 0
    assert v["watch.cpu.top"] in ("mysqld", "command", "other")
    total = v["watch.server.mysqld.cores"] + v["watch.client.command.cores"] + v["watch.server.other.cores"]
    assert total <= v["watch.server.cpus"] * 1.05


EXPECTED = {
    "idle.json": "no-load",
    "cannot-connect.json": "benchmark-failed",
    "rate-limited.json": "rate-limited",
    "server-killed.json": "server-went-away",
    "network-10mbit.json": "network-bound",
    "point-select-tls.json": "tls-bound",
    "read-only-32m-pool.json": "buffer-pool-bound",
}


@pytest.mark.parametrize("name,primary", sorted(EXPECTED.items()))
def test_recorded_series_verdicts(name, primary):
    report = judge(run_of(name), VERDICTS)
    assert report.primary is not None and report.primary.verdict.id == primary
    fired = [r.verdict.id for r in report.fired]
    assert "network-bound" not in fired or name == "network-10mbit.json"
    for r in report.fired:
        f = r.outcome.finding
        for text in (f.message, f.fix):
            assert not re.search(r"\bNone\b|\bunknown\b|\{", text), text


def test_loopback_cpu_verdict_follows_the_biggest_consumer():
    report = judge(run_of("point-select-loopback.json"), VERDICTS)
    top = report.values["watch.cpu.top"]
    want = {"mysqld": "server-cpu-bound", "command": "client-cpu-bound", "other": "cpu-contention"}[top]
    assert want in [r.verdict.id for r in report.fired]
    statuses = {r.verdict.id: r.outcome.status for r in report.results}
    assert statuses["network-bound"] == "not_applicable"


def test_tls_message_with_baseline_names_both_tps_and_the_system_share():
    report = judge(run_of("point-select-tls.json"), VERDICTS, run_of("point-select-plain.json"), "plain.json")
    f = report.primary.outcome.finding
    v = report.values
    assert report.primary.verdict.id == "tls-bound"
    assert f"{v['watch.tps']:,.0f} TPS against {v['watch.baseline.tps']:,.0f} TPS" in f.message
    assert f"{v['watch.server.cpu.system_of_busy'] * 100:.0f}% of that system time" in f.message
    assert "plain.json" in f.message
    assert [c.rule for c in report.primary.causes][:1] == ["tls-in-use"]
    text = render_text(report)
    assert "this run" in text and "baseline" in text


def test_loaded_intervals_drop_ramp_and_tail():
    def iv(i: int, q: float) -> Interval:
        return Interval(index=i, start_s=i, end_s=i + 1, at="2026-12-01T00:00:00Z", seconds=1.0,
                        server=ServerInterval(rates={"Questions": q}))
    ivs = [iv(0, 300.0), iv(1, 10000.0), iv(2, 11000.0), iv(3, 9000.0), iv(4, 2.0)]
    assert [x.index for x in loaded_intervals(ivs)] == [1, 2, 3]
    assert loaded_intervals([iv(0, 1.0), iv(1, 0.0)]) == []


def test_unknown_facts_say_why():
    run = run_of("idle.json")
    values, missing = compute(Series(run))
    assert "no command ran" in missing["watch.client.command.cores"]
    assert isinstance(FACTS["watch.server.cpu.busy"].fn(Series(run)), Unknown)


# ---------------------------------------------------------------------- the saved format and the renderers

@pytest.mark.parametrize("name", NAMES)
def test_series_round_trip(name):
    run = run_of(name)
    again = load_run(run.to_json(), "again")
    assert again == run
    doc = json.loads(run.to_json())
    assert doc["schema"] == "advisor.watch/1" and doc["units"]["*_mbytes_per_s"].startswith("MB/s")
    for iv in doc["intervals"]:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", iv["at"]) and iv["seconds"] > 0


def test_load_run_errors():
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        load_run("{", "x.json")
    with pytest.raises(InvalidInputError, match="not a watch series"):
        load_run('{"schema": "advisor.report/1"}', "x.json")
    doc = json.loads((SERIES / "idle.json").read_text())
    doc["intervals"][0]["seconds"] = "soon"
    with pytest.raises(InvalidInputError, match=r"x.json is not a valid watch series: intervals.0.seconds"):
        load_run(json.dumps(doc), "x.json")


def test_json_report_embeds_every_interval():
    report = judge(run_of("network-10mbit.json"), VERDICTS)
    d = json.loads(render_json(report))
    assert d["schema"] == "advisor.watch-report/1" and d["verdict"]["primary"] == "network-bound"
    assert d["verdict"]["partial"] is False and len(d["run"]["intervals"]) == len(report.run.intervals)
    first = next(r for r in d["results"] if r["verdict"] == "network-bound")
    assert first["status"] == "fired" and first["finding"]["category"] == "watch"
    assert d["summary"]["watch.net.ceiling_mbps"] == 10 and "watch.net.utilisation" in first["finding"]["evidence"]
    assert load_run(json.dumps(d), "report")  # a JSON report is also a series for --load
    assert report_dict(report)["unknown"]


def test_text_and_markdown():
    report = judge(run_of("read-only-32m-pool.json"), VERDICTS)
    text = render_text(report, with_table=True)
    assert "VERDICT" in text and "[buffer-pool-bound]" in text and "advisor explain buffer-pool-bound" in text
    assert "CHECKED" in text and "MEASURED" in text and "watcher:" in text
    rows = table(report.run)
    assert len(rows) == 1 + len(report.run.intervals) and all(r.count("|") == 5 for r in rows)
    md = render_markdown(report)
    assert md.startswith("# advisor watch") and "### `buffer-pool-bound`" in md and "| evidence | value |" in md


# ---------------------------------------------------------------------- the CLI on saved series

def test_cli_load_text_and_json():
    p = run_cli("watch", "--load", str(SERIES / "network-10mbit.json"))
    assert p.returncode == 0, p.stderr
    assert "[network-bound]" in p.stdout and "10 Mb/s" in p.stdout
    p = run_cli("watch", "--load", str(SERIES / "point-select-tls.json"), "--baseline",
                str(SERIES / "point-select-plain.json"), "--format", "json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["verdict"]["primary"] == "tls-bound"


@pytest.mark.parametrize("args,code,words", [
    (["--load", "/nonexistent/x.json"], 4, "does not exist"),
    (["--load", str(SERIES / "idle.json"), "--host", "db1"], 2, "--load judges a saved series"),
    (["--interval", "0"], 2, "--interval 0 is out of range"),
    (["--seconds", "5", "--", "true"], 2, "--seconds and a command cannot be combined"),
    (["--", "/nonexistent/bench"], 2, "cannot run the command"),
    (["--ssh", "a@b", "--host-stream", "/tmp/x"], 2, "give one"),
])
def test_cli_usage_errors(args, code, words):
    p = run_cli("watch", *args)
    assert p.returncode == code, (p.returncode, p.stderr)
    assert_one_paragraph_error(p.stderr)
    assert words in p.stderr


def test_cli_explain_a_verdict():
    p = run_cli("explain", "tls-bound")
    assert p.returncode == 0 and p.stdout.startswith("tls-bound:") and "\nConfiguration causes\n" in p.stdout


def test_every_fact_is_computed_from_a_recorded_series():
    base = run_of("point-select-plain.json")
    seen: set[str] = set()
    for name in NAMES:
        values, _ = compute(Series(run_of(name), base, "plain.json"))
        seen |= set(values)
    assert seen == set(FACTS), sorted(set(FACTS) - seen)


def test_a_failed_benchmark_is_not_an_idle_server():
    report = judge(run_of("cannot-connect.json"), VERDICTS)
    f = report.primary.outcome.finding
    assert "FATAL: unable to connect" in f.message and "Access denied" in f.message
    assert report.benchmark_failed and not report.partial


def test_a_killed_server_makes_the_report_partial():
    report = judge(run_of("server-killed.json"), VERDICTS)
    assert report.partial and report.server_lost and report_dict(report)["verdict"]["partial"] is True
    assert "partial: the server went away" in render_text(report, color=False, with_table=False, width=100)


def test_rate_limit_is_the_verdict_not_cpu_or_tls():
    report = judge(run_of("rate-limited.json"), VERDICTS)
    assert report.primary.verdict.id == "rate-limited"
    assert not {"cpu-contention", "tls-bound"} & {r.verdict.id for r in report.fired}
    assert "caps the run at 10 tps; the server had room: mysqld used" in report.primary.outcome.finding.message


def test_the_last_partial_interval_is_not_the_peak():
    """The benchmark disconnecting in the last fraction of a second (Com_quit, cleanup) is not load: a
    sysbench that failed to connect leaves an idle server, so no-load must be reachable."""
    run = run_of("idle.json")
    last = run.intervals[-1].model_copy(deep=True)
    last.seconds, last.index = 0.3, last.index + 1
    last.server.rates["Questions"] = 40.0  # 12 statements in 0.3 s
    run.intervals.append(last)
    values, _ = compute(Series(run))
    assert values["watch.load.busy"] is False and values["watch.load.peak_qps"] < 5
    assert judge(run, VERDICTS).primary.verdict.id == "no-load"


def test_rate_threshold_allows_the_poisson_spread_of_short_runs():
    from advisor.watch.facts.run import rate_threshold

    assert rate_threshold(10, 4) < 0.6 and rate_threshold(1000, 60) == 0.8 and rate_threshold(1, 1) == 0.0


def test_lock_state_share_counts_idle_sessions_as_not_waiting():
    # rate-limited.json: sysbench's sessions sleep between its paced transactions, so the processlist
    # (read as root) shows them all in Sleep; that is a sample with nobody waiting, not a missing privilege
    values, missing = facts("rate-limited.json")
    assert values["watch.lock.state_share"] == 0.0
    assert "watch.lock.state_share" not in missing


def test_lock_state_share_unknown_names_what_was_seen():
    values, missing = facts("idle.json")
    assert "watch.lock.state_share" not in values
    reason = missing["watch.lock.state_share"]
    assert "no session but the watch's own" in reason and "PROCESS privilege" in reason
