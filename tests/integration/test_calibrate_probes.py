"""Every row generator's SQL on a real mariadbd, the generator fallback, the sort probe against a
32 MiB buffer, the flush probe's locality and clean-up, the budget, and light calibration in audit.

A test that needs a probe's measurement runs that probe alone with a budget of its own
(tests/support/calibrate.py: in this process, counted from the first probe, so a slow interpreter
start on a busy machine does not eat it) and asserts what the probe guarantees once it runs (at
least one sample, sizes within their bounds). Tests of the command itself run the CLI, whose budget
counts from its start, and accept the documented outcome: a measurement or a reason. How fast and
how repeatable the measurements are is bench/calibrate_stability.py's job."""

from __future__ import annotations

import glob
import json
import os
import time

import pytest

from advisor.collect import calibrate_stats as cs
from tests.support.calibrate import calibrate_only
from tests.support.cli import default_interrupts, run_cli, run_json
from tests.support.mariadb import RO_PASSWORD, RO_USER

pytestmark = pytest.mark.requires_mariadbd


@pytest.mark.parametrize("method", ["sequence", "recursive_cte", "derived_digits"])
def test_generator_sql_runs_and_yields_what_it_says(mariadb, method):
    rows = 300
    src = cs.source_for(method, rows)
    got = mariadb.query(cs.stream_sql(src, rows))
    assert len(got) == rows and all(len(r[0]) == cs.ROW_BYTES for r in got)
    assert len({r[0][:1] for r in got}) == 26  # the value depends on the row: every letter appears
    (total,), = mariadb.query(cs.generate_sql(src, rows))
    assert int(total) == rows * cs.ROW_BYTES
    n = 20000
    (count, keys), = mariadb.query(cs.sort_sql(cs.source_for(method, n), n))
    assert count == n and keys > 0


def test_sequence_needs_select_on_mysql_so_ro_user_falls_back(mariadb):
    code, cal, err = run_json("calibrate", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", RO_USER,
                              "--password", RO_PASSWORD, "--no-defaults", "--format", "json", "--calibrate-seconds", "2",
                              "--probe", "fsync", timeout=60)
    assert code == 0, err
    assert RO_PASSWORD not in err + json.dumps(cal)
    # the RO user cannot read /proc of the server? it is the same OS user here: locality is decided by files
    assert cal["local"] is True
    ro = {"user": RO_USER, "password": RO_PASSWORD}
    stream = calibrate_only("127.0.0.1", mariadb.port, "stream", **ro)[0]["stream"]
    assert stream["method"] == "recursive_cte" and stream["mbytes_per_s"] > 0
    sp = calibrate_only("127.0.0.1", mariadb.port, "sort", **ro)[0]["sort_probe"]
    assert sp["method"] == "recursive_cte" and sp["ratio"] > 0


def test_sort_probe_measures_a_32m_buffer_against_256k(mariadb_factory):
    db = mariadb_factory(options={"sort-buffer-size": "32M"})
    sp = calibrate_only("127.0.0.1", db.port, "sort", budget=2.0)[0]["sort_probe"]
    print(f"\nsort 32M vs 256K: {sp['server_ms']} ms vs {sp['small_ms']} ms, ratio {sp['ratio']}, {sp['samples']} pairs, "
          f"{sp['rows']} rows")
    assert sp["server_value"] == 32 << 20 and sp["small_value"] == 262144
    # the probe sizes its rows to the server's speed from a trial of a tenth: never more than SORT_ROWS,
    # never less than half the trial (docs/calibration.md); how many rows this machine managed is not the point
    assert cs.SORT_ROWS // 20 <= sp["rows"] <= cs.SORT_ROWS
    assert sp["samples"] >= 1 and sp["server_ms"] > 0 and sp["small_ms"] > 0  # one pair at least, once it runs
    assert sp["ratio"] == pytest.approx(sp["server_ms"] / sp["small_ms"], rel=1e-3)
    # the session value is back to the global one after the probe: nothing else changed either
    (g,), = db.query("SELECT @@GLOBAL.sort_buffer_size")
    assert g == 32 << 20


def test_default_sort_buffer_at_256k_is_skipped_with_reason(mariadb_factory):
    db = mariadb_factory(options={"sort-buffer-size": "256K"})
    code, cal, err = run_json("calibrate", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root",
                              "--no-defaults", "--format", "json", "--calibrate-seconds", "2", timeout=60)
    assert code == 0, err
    assert cal["sort_probe"] is None
    assert any(m["fact"] == "calibration.sort_probe" and "nothing to compare" in m["reason"] for m in cal["missing"])


def test_flush_probe_local_and_its_temp_file_removed(mariadb):
    parent = str(mariadb.datadir.parent)
    cal = calibrate_only("127.0.0.1", mariadb.port, "fsync", budget=2.0)[0]
    assert cal["local"] is True and f"pid {mariadb.pid}" in cal["local_reason"]
    f = cal["fsync_ms"]
    print(f"\nflush: p50 {f['p50']} ms, p99 {f['p99']} ms, {f['samples']} samples, {cal['flush']}")
    assert f["samples"] >= 1 and 0 < f["min"] <= f["p50"] <= f["p99"] <= f["max"]  # one flush at least, once it runs
    assert cal["flush"]["path"] == parent and cal["flush"]["write_bytes"] == 16384
    assert cal["flush"]["flush_class"] in ("memory", "plp_like", "intermediate", "client_nvme_like", "slow")
    assert glob.glob(os.path.join(parent, ".advisor-fsync-*")) == []
    assert not any(n.startswith(".advisor") for n in os.listdir(mariadb.datadir))


def test_flush_probe_interrupted_removes_its_temp_file(mariadb):
    """SIGINT while the flush probe writes: the temp file is gone afterwards."""
    import signal
    import subprocess
    import sys

    parent = str(mariadb.datadir.parent)
    env = dict(os.environ, HOME="/nonexistent-advisor-home")
    proc = subprocess.Popen([sys.executable, "-m", "advisor", "calibrate", "--host", "127.0.0.1", "--port",
                             str(mariadb.port), "--user", "root", "--no-defaults", "--calibrate-seconds", "20",
                             "--probe", "fsync"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=default_interrupts)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            if glob.glob(os.path.join(parent, ".advisor-fsync-*")):
                break
            time.sleep(0.01)
        assert glob.glob(os.path.join(parent, ".advisor-fsync-*")), "the flush probe never started"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err.strip() == "advisor: error: interrupted.", err
    assert glob.glob(os.path.join(parent, ".advisor-fsync-*")) == []


def test_remote_looking_server_is_not_local(mariadb, tmp_path, monkeypatch):
    """Locality is decided from what the server reports; a datadir path that does not exist here, or a
    pid file naming another process, makes the flush probe stand down."""
    from advisor.collect.calibrate import ProbeContext, read_locality
    from advisor.collect.connection import ConnectionOptions, resolve
    from advisor.api import collect
    from advisor.snapshot import Calibration

    opts = ConnectionOptions(host="127.0.0.1", port=mariadb.port, user="root", no_defaults=True)
    snap = collect(opts)
    ctx = ProbeContext(ep=resolve(opts), snap=snap, cal=Calibration(), progress=None, started=0.0, budget=1.0)
    local, why = cs.decide_locality(read_locality(ctx))
    assert local, why
    snap.server.variables["datadir"] = str(tmp_path / "not-here") + "/"
    local, why = cs.decide_locality(read_locality(ctx))
    assert not local and "does not exist on this machine" in why
    snap.server.variables["datadir"] = str(tmp_path) + "/"
    local, why = cs.decide_locality(read_locality(ctx))
    assert not local and "not in the datadir" in why  # mariadbd's working directory is its real datadir


FULL = {"rtt": "rtt_ms", "stream": "stream", "sort": "sort_probe", "tls": "tls", "fsync": "fsync_ms"}
BUDGET_REASON = "the calibration budget left "


def test_every_probe_measures_or_says_why(mariadb):
    """A full calibration on a small budget: each probe either measured or has a reason in `missing`
    (out of budget, or why it cannot run here); nothing is silently absent. How close the calibration
    comes to its budget is measured by bench/calibrate_stability.py."""
    code, cal, err = run_json("calibrate", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "root",
                              "--no-defaults", "--format", "json", "--calibrate-seconds", "2", timeout=60)
    assert code == 0, err
    print(f"\nbudget 2 s: calibration {cal['duration_s']} s; missing {[m['fact'] for m in cal['missing']]}")
    assert cal["budget_s"] == 2 and cal["duration_s"] > 0 and cal["connections_max"] <= 2
    missing = {m["fact"]: m["reason"] for m in cal["missing"]}
    for probe, key in FULL.items():
        assert cal[key] is not None or missing[f"calibration.{key}"], probe
    assert "--write-probe" in missing["calibration.commit_ms"]
    assert all(r and "None" not in r for r in missing.values()), missing


def test_a_spent_budget_stops_every_probe_and_says_so(mariadb):
    """With the budget already used up (by collection, say) no probe starts work: each reports how much
    time was left and how much it needs; locality is still decided, because it costs no time."""
    from advisor import api
    from advisor.collect.calibrate import run_calibration
    from advisor.collect.connection import ConnectionOptions, resolve

    opts = ConnectionOptions(host="127.0.0.1", port=mariadb.port, user="root", no_defaults=True)
    snap = api.collect(opts)
    cal = run_calibration(snap, resolve(opts), budget_s=1.0, started=time.monotonic() - 1.0)
    missing = {m.fact: m.reason for m in cal.missing}
    print("\n" + "\n".join(f"{k}: {v}" for k, v in missing.items()))
    for probe, key in FULL.items():
        assert getattr(cal, key) is None, probe
        assert missing[f"calibration.{key}"].startswith(BUDGET_REASON), (probe, missing)
        assert "which needs at least" in missing[f"calibration.{key}"]
    assert cal.local is True and f"pid {mariadb.pid}" in cal.local_reason
    assert cal.connections_max == 1 and cal.duration_s >= 1.0
    assert glob.glob(os.path.join(str(mariadb.datadir.parent), ".advisor-fsync-*")) == []


def test_production_audit_runs_light_calibration_only(mariadb):
    code, report, err = run_json("audit", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "root",
                                 "--no-defaults", "--format", "json")
    assert code == 0, err
    assert any(n.startswith("calibration (light) ran") for n in report["notes"]), report["notes"]
    cal = report["calibration"]
    assert cal["mode"] == "light" and cal["budget_s"] == cs.LIGHT_BUDGET_S
    missing = {m["fact"]: m["reason"] for m in cal["missing"]}
    assert "only round trips were measured" in missing["calibration"]
    assert set(cal["verdicts"]) == {"rtt"}  # light: round trips only
    # the light budget counts from the calibration's own start (not the command's: imports and collection
    # are not its time), and the note says which probes measured, as the section shows
    note = next(n for n in report["notes"] if n.startswith("calibration (light) ran"))
    assert f"of a {cs.LIGHT_BUDGET_S:g} s budget" in note, note
    if cal["rtt_ms"] is not None:
        assert cal["rtt_ms"]["samples"] >= 1 and "; measured: round trips;" in note, note
    else:  # only a machine so busy that connecting took the whole second
        assert missing["calibration.rtt_ms"].startswith(BUDGET_REASON) and "not measured: round trips" in note, note
    p = run_cli("audit", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "root", "--no-defaults",
                "--no-calibrate", "--format", "json")
    assert p.returncode == 0 and "calibration (" not in p.stdout
    assert json.loads(p.stdout)["calibration"] is None
    # the terminal report shows what was measured, before the summary
    p = run_cli("audit", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "root", "--no-defaults")
    assert p.returncode == 0, p.stderr
    measured = p.stdout.split("MEASURED (calibration light", 1)[1].split("Summary:", 1)[0]
    assert "round trips   SELECT 1: p50" in measured or f"calibration.rtt_ms: {BUDGET_REASON}" in measured, measured


@pytest.mark.parametrize("name,first", [("mysql-8.0.36", "recursive_cte"), ("mysql-5.7", "derived_digits"),
                                        ("tidb-7.5", "recursive_cte")])
def test_recorded_flavors_pick_their_generator_and_degrade_with_reasons(name, first):
    """The replay server speaks the real protocol but answers only what a read-only collector sends; the
    probes try the flavor's generator first, and every probe that cannot run says why (exit 0)."""
    from tests.support.wire_server import ReplayServer

    with ReplayServer.from_set(name) as srv:
        cal = calibrate_only("127.0.0.1", srv.port, budget=3.0)[0]  # every read-only probe, budget of their own
        unhandled = list(srv.unhandled)
    assert cal["rtt_ms"]["samples"] >= 1
    missing = {m["fact"]: m["reason"] for m in cal["missing"]}
    assert missing["calibration.stream"].startswith(f"the server generated no rows for the probe ({first}: ")
    assert first == "derived_digits" or "derived_digits: " in missing["calibration.stream"]  # the fallback was tried
    assert "not on the server's host" in missing["calibration.fsync_ms"]
    assert cal["tls"] is not None and cal["tls"]["handshake_ms"]["off"] > 0  # handshakes measured regardless
    # (and the collector's TiDB/TiKV benchmark items of SHOW CONFIG, which the recorded sets do not answer)
    assert all(q.lstrip().upper().startswith(("SELECT", "WITH")) or q.startswith("SHOW CONFIG WHERE (type = 'tidb'")
               for q in unhandled), unhandled
