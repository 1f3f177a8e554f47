"""Issue 25 item 1: a commit-bound run is judged by what a commit waits for. The recorded series
(tests/fixtures/watch/PROVENANCE.md, write-only-durable.json) is a single-thread oltp_write_only on a
throwaway MariaDB with the binary log on, sync_binlog = 1 and innodb_flush_log_at_trx_commit = 1,
performance_schema on: the watch counted the redo and binary log flushes, timed fdatasync on the
datadir's filesystem during the run, and read the server's own binary log flush waits."""

from __future__ import annotations

from pathlib import Path

from advisor.render.watch import render_text, report_dict
from advisor.rules.engine import UNCERTAIN
from advisor.watch.facts import Series, compute
from advisor.watch.model import load_run
from advisor.watch.report import judge
from advisor.watch.verdicts import load_verdicts

SERIES = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "series" / "write-only-durable.json"
VERDICTS = load_verdicts()


def run():
    return load_run(SERIES.read_text(), SERIES.name)


def test_the_commit_facts_count_both_logs_and_prefer_the_servers_own_wait():
    r = run()
    values, _ = compute(Series(r))
    assert values["watch.commit.redo_syncs_per_s"] > 0 and values["watch.commit.binlog_syncs_per_s"] > 0
    assert values["watch.commit.syncs_per_s"] == values["watch.commit.redo_syncs_per_s"] + \
        values["watch.commit.binlog_syncs_per_s"]
    assert values["watch.commit.binlog_sync_ms"] == r.setup.server_syncs["binlog"].ms_each
    assert values["watch.commit.sync_ms"] == r.setup.commit_sync.p50  # MariaDB does not instrument its redo log
    # the device's flush time is not what the commit waited for
    assert values["watch.commit.sync_ms"] > 0 and values["watch.commit.busy_low"] <= values["watch.commit.busy"] \
        <= values["watch.commit.busy_high"]


def test_the_recorded_run_is_uncertain_commit_bound_never_cpu_contention():
    report = judge(run(), VERDICTS)
    commit = next(x for x in report.results if x.verdict.id == "commit-bound")
    assert commit.outcome.status == "unknown" and commit.outcome.reason.startswith(UNCERTAIN), commit.outcome
    assert [x.verdict.id for x in report.uncertain] == ["commit-bound"]
    assert report.primary is None
    d = report_dict(report)
    assert d["verdict"]["uncertain"] == ["commit-bound"] and d["verdict"]["primary"] is None
    text = render_text(report, color=False, with_table=False, width=100)
    assert "[commit-bound] uncertain:" in text and "s per s" in text


def test_without_the_servers_figure_the_probe_decides():
    r = run()
    r.setup.server_syncs = None
    values, _ = compute(Series(r))
    assert values["watch.commit.binlog_sync_ms"] == r.setup.commit_sync.append_p50


def test_with_the_binary_log_off_only_the_redo_log_counts():
    r = run()
    r.setup.audit.snapshot["server"]["variables"]["log_bin"] = "OFF"
    values, _ = compute(Series(r))
    assert values["watch.commit.binlog_syncs_per_s"] == 0
    assert values["watch.commit.syncs_per_s"] == values["watch.commit.redo_syncs_per_s"]


def test_a_server_elsewhere_leaves_the_commit_wait_unknown_with_the_reason():
    from advisor.watch.model import Missing

    r = run()
    r.setup.commit_sync = None
    r.setup.server_syncs = None
    r.setup.missing.append(Missing(fact="commit_sync", reason=(
        "the server's host is not this machine, so the flush a commit waits for was not timed")))
    values, missing = compute(Series(r))
    assert "watch.commit.busy" not in values
    assert "not timed" in missing["watch.commit.busy"]
