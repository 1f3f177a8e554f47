"""Calibration without a server: the snapshot section, derived facts, renderers, options and guards."""

from __future__ import annotations

import io
import json

import pytest

from advisor import api
from advisor.collect.calibrate import check_statement, plan
from advisor.commands.progress import TerminalProgress
from advisor.errors import UsageError
from advisor.render.calibration import render_json, render_text
from advisor.rules.calibration import calibration_document as to_dict
from advisor.knowledge import default_catalogue
from advisor.rules.engine import fact_view
from advisor.rules.facts import Unknown
from advisor.snapshot import (Calibration, ClientFacts, Distribution, FlushProbe, OnOff, Route, SortProbe, StreamProbe,
                              Target, TlsProbe, WriteProbe, Snapshot, load_snapshot)
from tests.support.cli import assert_one_paragraph_error, invoke


def _snapshot(route: Route | None = None, **cal_kw) -> Snapshot:
    cal = Calibration(
        duration_s=9.6, budget_s=10.0, mode="full", connections_max=2, local=True, local_reason="mariadbd runs here",
        rtt_ms=Distribution(p50=0.03, p99=0.05, samples=2000, min=0.02, max=0.3, mean=0.031),
        stream=StreamProbe(mbytes_per_s=11.95, bytes=9_560_000, seconds=0.8, client_cpu_bound=False,
                           client_cpu_fraction=0.01, method="sequence", row_bytes=16384, chunks=2, basis="tcp_info",
                           tls=False, transport="tcp", route_kind="interface", server_mbytes_per_s=580.0),
        tls=TlsProbe(available=True, handshake_ms=OnOff(on=2.1, off=0.9), query_ms=OnOff(on=0.52, off=0.5),
                     stream_mbytes_per_s=OnOff(on=11.9, off=11.95), throughput_ratio=0.9958, samples=20,
                     plain_possible=True, tls_possible=True, tls_version="TLSv1.3", tls_cipher="TLS_AES_256_GCM_SHA384"),
        sort_probe=SortProbe(ratio=0.92, server_value=2097152, small_value=262144, server_ms=18.0, small_ms=19.6,
                             samples=40, rows=100000, method="sequence"),
        fsync_ms=Distribution(p50=0.9, p99=2.2, samples=800),
        flush=FlushProbe(path="/var/lib", fstype="ext4", flush_class="client_nvme_like", class_reason="about 1 ms"),
        commit_ms=Distribution(p50=1.1, p99=2.9, samples=500),
        write_probe=WriteProbe(schema_name="advisor_probe_0a1b2c3d", created=True, dropped=True,
                               cleanup="dropped on the probe connection"),
    )
    for k, v in cal_kw.items():
        setattr(cal, k, v)
    client = ClientFacts(route=route) if route is not None else None
    return Snapshot(advisor_version="0.1.0", collected_at="2026-11-30T00:00:00Z",
                    target=Target(host="10.213.4.2", port=3306, flavor="mariadb", version="10.11.19",
                                  version_string="10.11.19-MariaDB"),
                    client=client, calibration=cal)


VETH = Route(destination="10.213.4.2", kind="interface", interface="advh0a1b2c3d", source_address="10.213.4.1",
             speed_mbps=10000)


def test_snapshot_round_trip_is_exact():
    snap = _snapshot(VETH)
    text = snap.to_json()
    again = load_snapshot(text, "test")
    assert again == snap
    assert again.to_json() == text


def test_json_keys_documented_in_the_issue():
    d = json.loads(render_json(_snapshot(VETH)))
    assert d["schema"] == "advisor.calibration/1"
    for path in ("rtt_ms.p50", "rtt_ms.p99", "rtt_ms.samples", "stream.mbytes_per_s", "stream.client_cpu_bound",
                 "tls.available", "tls.handshake_ms.on", "tls.handshake_ms.off", "tls.throughput_ratio",
                 "sort_probe.ratio", "fsync_ms.p50", "fsync_ms.p99", "commit_ms", "duration_s"):
        cur = d
        for part in path.split("."):
            assert part in cur, path
            cur = cur[part]
    assert d["verdicts"]["stream"]["verdict"] == "path_bottleneck"
    assert d["verdicts"]["tls"]["verdict"] == "negligible"


def test_fsync_is_null_when_not_local():
    snap = _snapshot(VETH, fsync_ms=None, flush=None, local=False, local_reason="datadir does not exist here")
    snap.calibration.note_missing("calibration.fsync_ms", "not on the server's host: datadir does not exist here")
    d = to_dict(snap)
    assert d["fsync_ms"] is None and d["local"] is False
    assert d["verdicts"]["flush"]["verdict"] == "not_measured"
    assert "not on the server's host" in render_text(snap)


def test_text_report_cites_every_probe():
    text = render_text(_snapshot(VETH))
    for words in ("round trips", "p50 0.030 ms", "11.9 MB/s over tcp (plain)", "580.0 MB/s",
                  "capped on the path: ", "sort buffer", "2 MiB: 18 ms", "ratio 0.92", "handshake 2.10 ms on / 0.900 ms off",
                  "TLSv1.3", "fdatasync in /var/lib (ext4)", "like a client NVMe drive: ", "advisor_probe_0a1b2c3d"):
        assert words in text, words
    assert "_bottleneck" not in text and "_like" not in text  # the verdict codes stay in JSON


def test_derived_facts_from_calibration():
    v = fact_view(_snapshot(VETH), "benchmark", default_catalogue())
    assert v.get("derived.link_payload_ceiling_mbytes_per_s") == pytest.approx(1186.6, abs=0.1)
    assert v.get("derived.stream_line_rate_fraction") == pytest.approx(11.95 / 1186.6, rel=1e-3)
    assert v.get("derived.stream_server_headroom") == pytest.approx(580 / 11.95)
    assert v.get("derived.tls_query_latency_ratio") == pytest.approx(1.04)
    assert v.get("derived.tls_handshake_ratio") == pytest.approx(2.1 / 0.9)
    assert v.get("derived.flush_bound_commits_per_s") == pytest.approx(1000 / 0.9)


def test_line_rate_fraction_unknown_when_client_cpu_bound():
    snap = _snapshot(VETH)
    snap.calibration.stream.client_cpu_bound = True
    got = fact_view(snap, "production", default_catalogue()).get("derived.stream_line_rate_fraction")
    assert isinstance(got, Unknown) and "CPU-bound" in got.reason


def test_link_speed_falls_back_to_what_calibration_recorded():
    snap = _snapshot(None)
    snap.calibration.stream.link_speed_mbps = 1000
    assert fact_view(snap, "production", default_catalogue()).get("derived.link_payload_ceiling_mbytes_per_s") == pytest.approx(118.66, abs=0.01)
    snap.calibration.stream.link_speed_mbps = None
    assert isinstance(fact_view(snap, "production", default_catalogue()).get("derived.link_payload_ceiling_mbytes_per_s"), Unknown)


def test_audit_of_the_snapshot_cites_the_measured_mbytes():
    report = api.audit(_snapshot(VETH), purpose="benchmark")
    f = next(f for f in report.findings if f.rule == "network-path-bottleneck")
    assert "11.9 MB/s" in f.message and "10,000 Mb/s" in f.message
    assert f.evidence["calibration.stream.mbytes_per_s"] == 11.95
    statuses = {o.rule: o.status for o in report.outcomes}
    assert statuses["network-link-saturated"] == "passed"
    assert statuses["tls-measured-cost"] == "passed"
    assert statuses["flush-slow-durable-commits"] == "unknown"  # innodb_flush_log_at_trx_commit not in this snapshot


# ---------------------------------------------------------------- options and guards

def test_calibration_mode_defaults_and_overrides():
    assert api.calibration_mode("benchmark", None) == "full"
    assert api.calibration_mode("production", None) == "light"
    assert api.calibration_mode("production", True) == "full"
    assert api.calibration_mode("benchmark", False) is None
    assert api.calibration_mode("production", None, write_probe=True) == "full"
    with pytest.raises(UsageError):
        api.calibration_mode("benchmark", False, write_probe=True)
    for bad in (0.0, 0.5, 1000.0):
        with pytest.raises(UsageError):
            api.check_calibration_budget(bad)
    api.check_calibration_budget(10.0)


def test_plan_runs_commit_only_when_asked():
    assert plan("light", True) == ["rtt"]
    assert plan("full", False) == ["rtt", "stream", "sort", "tls", "fsync"]
    assert plan("full", True)[-1] == "commit"


def test_plan_keeps_the_selected_probes_in_order():
    assert plan("full", False, ["fsync", "rtt"]) == ["rtt", "fsync"]
    assert plan("full", True, ["commit"]) == ["commit"]
    assert plan("full", False, ["commit"]) == []  # commit without --write-probe never runs (the CLI refuses it)
    assert plan("light", False, ["sort"]) == ["rtt"]  # light is round trips only


def test_a_probe_without_enough_budget_says_how_much_it_had():
    import time

    from advisor.collect.calibrate import ProbeSkipped, time_left

    assert time_left(time.monotonic() + 60, 0.3, "the stream probe") > 59
    with pytest.raises(ProbeSkipped) as e:
        time_left(time.monotonic() - 5, 0.3, "the stream probe")
    assert e.value.reason == "the calibration budget left 0.00 s for the stream probe, which needs at least 0.3 s"
    with pytest.raises(ValueError, match="unknown calibration probe"):
        from advisor.collect.calibrate import run_calibration

        run_calibration(None, None, probes=["flush"])  # type: ignore[arg-type]


def test_statement_guard_is_read_only_unless_writing_is_asked():
    for ok in ("SELECT 1", "WITH RECURSIVE d(n) AS (SELECT 0) SELECT n FROM d",
               "SET SESSION sort_buffer_size = 262144", "SET SESSION sort_buffer_size = DEFAULT"):
        assert check_statement(ok) == ok
    for bad in ("INSERT INTO t VALUES (1)", "SET GLOBAL sort_buffer_size = 1", "DROP DATABASE x",
                "CREATE DATABASE `advisor_probe_0a1b2c3d`", "SET SESSION sql_log_bin = 0"):
        with pytest.raises(AssertionError):
            check_statement(bad)
    assert check_statement("CREATE DATABASE `advisor_probe_0a1b2c3d`", write=True)
    assert check_statement("DROP DATABASE IF EXISTS `advisor_probe_0a1b2c3d`", write=True)
    assert check_statement("KILL CONNECTION 42", write=True)
    for bad in ("DROP DATABASE IF EXISTS `shop`", "INSERT INTO `shop`.orders VALUES (1)", "DROP DATABASE `advisor_probe_1`",
                "KILL CONNECTION 42; DROP DATABASE shop"):
        with pytest.raises(AssertionError):
            check_statement(bad, write=True)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")  # a terminal that can redraw a line, whatever runs the tests (TERM=dumb cannot)
    assert TerminalProgress.maybe(io.StringIO()) is None
    out = _Tty()
    p = TerminalProgress.maybe(out)
    assert p is not None
    p("stream", 2.5, 10.0)
    p.finish()
    text = out.getvalue()
    assert "calibrating" in text and "2.5/10 s" in text and "stream" in text and text.endswith("\r\033[2K")


@pytest.mark.parametrize("args,words", [
    (["audit", "--demo", "--calibrate"], "do not apply with --snapshot or --demo"),
    (["audit", "--demo", "--write-probe"], "do not apply with --snapshot or --demo"),
    (["calibrate", "--calibrate-seconds", "0.2", "--host", "127.0.0.1", "--port", "9", "--no-defaults"],
     "--calibrate-seconds 0.2 is out of range"),
    (["audit", "--host", "127.0.0.1", "--port", "9", "--no-defaults", "--no-calibrate", "--write-probe"],
     "--no-calibrate skips calibration"),
    (["calibrate", "--probe", "commit", "--host", "127.0.0.1", "--port", "9", "--no-defaults"],
     "--probe commit measures commits with single-row inserts, which only --write-probe allows"),
    (["calibrate", "--probe", "flush", "--host", "127.0.0.1", "--port", "9", "--no-defaults"], "'flush' is not one of"),
])
def test_cli_usage_errors_exit_2(args, words):
    p = invoke(*args)
    assert p.returncode == 2, p.stderr
    assert_one_paragraph_error(p.stderr)
    assert words in p.stderr


def test_calibrate_help_lists_the_options():
    p = invoke("calibrate", "--help")
    assert p.returncode == 0
    for opt in ("--calibrate-seconds", "--write-probe", "--probe", "--format", "--save-snapshot", "--ssl-mode"):
        assert opt in p.stdout
    p = invoke("audit", "--help")
    for opt in ("--calibrate", "--no-calibrate", "--calibrate-seconds", "--write-probe"):
        assert opt in p.stdout


def test_tls_faster_than_plain_is_noise_not_a_ratio():
    snap = _snapshot(VETH)
    snap.calibration.tls.query_ms = OnOff(on=0.0235, off=0.0287)
    got = fact_view(snap, "production", default_catalogue()).get("derived.tls_query_latency_ratio")
    assert isinstance(got, Unknown) and "scheduling noise" in got.reason
    from advisor.rules.calibration import tls_verdict

    v = tls_verdict(snap.calibration.tls)
    assert v.code == "negligible" and "not separable from scheduling noise" in v.why


def test_paired_query_ratio_is_what_the_rules_use():
    snap = _snapshot(VETH)
    snap.calibration.tls.query_ms = OnOff(on=0.0290, off=0.0240)  # medians across mixed placements
    snap.calibration.tls.query_ratio = 1.26  # the same CPU per round, TLS ÷ plain
    assert fact_view(snap, "production", default_catalogue()).get("derived.tls_query_latency_ratio") == 1.26
    snap.calibration.tls.query_ratio = 0.93
    assert isinstance(fact_view(snap, "production", default_catalogue()).get("derived.tls_query_latency_ratio"), Unknown)
