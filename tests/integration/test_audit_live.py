"""Issue 2 acceptance against real throwaway mariadbd instances."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from tests.support.cli import assert_one_paragraph_error, run_cli, run_json
from tests.support.mariadb import PW_USER, RO_PASSWORD, RO_USER

pytestmark = pytest.mark.requires_mariadbd


def conn_args(db) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults"]


@pytest.fixture
def pitfall_server(mariadb_factory, tls_certs):
    return mariadb_factory(options={"sort-buffer-size": "32M", "innodb-log-file-size": "48M"}, tls=tls_certs)


def test_benchmark_audit_reports_sort_buffer_redo_and_tls(pitfall_server):
    code, report, err = run_json("audit", *conn_args(pitfall_server), "--purpose", "benchmark", "--format", "json")
    assert code == 0, err
    assert report["schema"] == "advisor.report/1"
    assert report["target"]["flavor"] == "mariadb" and report["target"]["port"] == pitfall_server.port
    variables = {v for f in report["findings"] for v in f["variables"]}
    assert {"sort_buffer_size", "innodb_log_file_size"} <= variables
    tls = [f for f in report["findings"] if f["category"] == "tls"]
    assert tls and tls[0]["severity"] == "warning"
    assert tls[0]["evidence"]["server.connection.tls_version"].startswith("TLS")
    sort = next(f for f in report["findings"] if f["rule"] == "sort-buffer-oversized")
    assert sort["evidence"]["var.sort_buffer_size"] == "33554432"
    assert "32 MiB" in sort["message"]
    redo = next(f for f in report["findings"] if f["rule"] == "redo-log-undersized")
    assert redo["evidence"]["derived.redo_capacity_bytes"] == 48 << 20
    statuses = {o["rule"]: o["status"] for o in report["outcomes"]}
    assert all(o["reason"] for o in report["outcomes"])
    assert statuses["tls-in-use"] == "fired"


def test_production_purpose_tls_is_info_and_fail_on(pitfall_server):
    code, report, err = run_json("audit", *conn_args(pitfall_server), "--purpose", "production", "--format", "json")
    assert code == 0, err
    tls = [f for f in report["findings"] if f["category"] == "tls"]
    assert all(f["severity"] == "info" for f in tls)
    p = run_cli("audit", *conn_args(pitfall_server), "--purpose", "benchmark", "--fail-on", "warning")
    assert p.returncode == 1, p.stderr
    assert "sort-buffer-oversized" in p.stdout
    # the template's root@'%' has no password (tests/support/mariadb.py), which is critical in production
    p = run_cli("audit", *conn_args(pitfall_server), "--purpose", "production", "--fail-on", "critical")
    assert p.returncode == 1 and "account-without-password" in p.stdout, p.stderr
    p = run_cli("audit", *conn_args(pitfall_server), "--purpose", "production", "--fail-on", "critical",
                "--ignore", "account-without-password")
    assert p.returncode == 0, p.stderr


def test_collect_then_offline_audit_gives_same_findings(pitfall_server, tmp_path):
    snap = tmp_path / "s.json"
    p = run_cli("collect", *conn_args(pitfall_server), "-o", str(snap), "--sample-seconds", "0.3")
    assert p.returncode == 0, p.stderr
    from advisor.snapshot import load_snapshot

    text = snap.read_text()
    assert load_snapshot(text).to_json() == text  # validates and round-trips exactly
    assert json.loads(text)["server"]["interval"]["seconds"] >= 0.3
    code, offline, err = run_json("audit", "--snapshot", str(snap), "--purpose", "benchmark", "--format", "json")
    assert code == 0, err
    # the collected snapshot has no calibration either; both sample an interval, since a server up for seconds
    # gives no rate since start (rules.facts.MIN_UPTIME_FOR_RATES)
    code, live, err = run_json("audit", *conn_args(pitfall_server), "--purpose", "benchmark", "--format", "json",
                                 "--no-calibrate", "--sample-seconds", "0.3")
    assert code == 0, err

    def key(r):  # counters move between the two runs; the findings must not
        return [(f["rule"], f["severity"], tuple(f["variables"]), tuple(sorted(f["recommendation"].items())))
                for f in r["findings"]]
    assert key(offline) == key(live)
    assert [o["rule"] for o in offline["outcomes"]] == [o["rule"] for o in live["outcomes"]]
    assert [o["status"] for o in offline["outcomes"]] == [o["status"] for o in live["outcomes"]]


def test_wrong_password_exit_3_without_the_password(mariadb):
    secret = "Wr0ng-Secret-Zebra"
    p = run_cli("audit", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", PW_USER,
                "--password", secret, "--no-defaults")
    assert p.returncode == 3
    assert_one_paragraph_error(p.stderr)
    assert "1045" in p.stderr and "Access denied" in p.stderr and "Tip:" in p.stderr
    assert secret not in p.stderr + p.stdout
    # the same through MYSQL_PWD
    p = run_cli("collect", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", PW_USER, "--no-defaults",
                env={"MYSQL_PWD": secret})
    assert p.returncode == 3 and secret not in p.stderr + p.stdout and "MYSQL_PWD" in p.stderr


def test_unreachable_port_exit_3_without_waiting_for_the_timeout():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    # a refused connection is reported at once, not after the connect timeout: with an hour's
    # timeout, returning before the subprocess limit is the proof (no machine-speed bound)
    p = run_cli("audit", "--host", "127.0.0.1", "--port", str(port), "--no-defaults", "--connect-timeout", "3600",
                timeout=600)
    assert p.returncode == 3
    assert_one_paragraph_error(p.stderr)
    assert "2003" in p.stderr


def test_silent_listener_exit_3_within_connect_timeout():
    """A port that accepts TCP but never speaks MySQL: the connect timeout bounds the wait."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    port = srv.getsockname()[1]
    held = []
    stop = threading.Event()

    def accept():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                pass
    th = threading.Thread(target=accept, daemon=True)
    th.start()
    try:
        t0 = time.monotonic()
        p = run_cli("audit", "--host", "127.0.0.1", "--port", str(port), "--no-defaults", "--connect-timeout", "2",
                    "--read-timeout", "3600", timeout=600)
        elapsed = time.monotonic() - t0
    finally:
        stop.set()
        th.join()
        for c in held:
            c.close()
        srv.close()
    assert p.returncode == 3, p.stderr
    assert_one_paragraph_error(p.stderr)
    # it waited for the greeting the connect timeout's 2 s (never less), not the read timeout's hour:
    # returning before the subprocess limit of 600 s is the proof, whatever the machine's speed
    assert elapsed >= 2.0, elapsed


def test_every_statement_the_audit_sends_is_read_only(mariadb_factory):
    db = mariadb_factory(general_log=True, options={"performance-schema": "ON"})
    p = run_cli("audit", *conn_args(db), "--purpose", "benchmark", "--format", "json", "--sample-seconds", "0.2")
    assert p.returncode == 0, p.stderr
    entries = db.general_log_entries()
    audit_threads = {e.thread_id for e in entries if e.command == "Query" and "SHOW GLOBAL VARIABLES" in e.argument}
    assert audit_threads, "the audit's connection was not found in the general log"
    statements = [e.argument for e in entries if e.thread_id in audit_threads and e.command == "Query"]
    assert len(statements) >= 6  # variables, status, ssl, connection id, data size, P_S TLS, status again
    for sql in statements:
        head = sql.lstrip().split(None, 1)[0].upper()
        assert head in ("SELECT", "SHOW") or sql.upper().startswith(("SET NAMES", "SET AUTOCOMMIT", "SET @@SESSION")), sql
    assert any("performance_schema.status_by_thread" in s for s in statements)


def test_collecting_runs_no_sort_that_a_second_audit_would_count(mariadb):
    """sort-buffer-oversized reads Sort_scan / Sort_range / Sort_merge_passes: the advisor's own
    statements must not add to them, or a second audit judges the first one's sorts (a GROUP BY sorts
    on MariaDB unless it says ORDER BY NULL). The account and data-dictionary reads run here too."""
    def sorts():
        return {k: int(v) for k, v in mariadb.query("SHOW GLOBAL STATUS LIKE 'Sort%'")}

    before = sorts()
    assert sorts() == before  # reading them does not sort
    p = run_cli("audit", *conn_args(mariadb), "--no-calibrate", "--format", "json")
    assert p.returncode in (0, 1), p.stderr
    assert json.loads(p.stdout)["outcomes"]
    assert sorts() == before


def test_user_without_privileges_still_audits(mariadb):
    p = run_cli("audit", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", RO_USER, "--no-defaults",
                "--format", "json", env={"MYSQL_PWD": RO_PASSWORD})
    assert p.returncode == 0, p.stderr
    assert RO_PASSWORD not in p.stdout + p.stderr


def test_server_killed_before_collection(mariadb):
    mariadb.kill()
    p = run_cli("audit", *conn_args(mariadb), "--connect-timeout", "2")
    assert p.returncode == 3
    assert_one_paragraph_error(p.stderr)


def test_socket_connection_and_data_sizes(mariadb):
    mariadb.query("CREATE DATABASE app")
    mariadb.query("CREATE TABLE app.t (id INT PRIMARY KEY, pad CHAR(200)) ENGINE=InnoDB")
    mariadb.query("INSERT INTO app.t SELECT seq, REPEAT('x', 200) FROM app.seq_1_to_2000", autocommit=True)
    mariadb.query("ANALYZE TABLE app.t")
    code, report, err = run_json("collect", "--socket", mariadb.socket, "--user", "root", "--no-defaults")
    assert code == 0, err
    assert report["target"]["transport"] == "socket" and report["target"]["socket"] == mariadb.socket
    assert report["server"]["connection"]["transport"] == "socket"
    innodb = report["server"]["data_size"]["InnoDB"]
    assert innodb["tables"] >= 2 and innodb["data_bytes"] >= 400_000


def test_live_audit_imports_no_pydantic(mariadb_factory, tmp_path):
    """The collector builds the snapshot itself: nothing untrusted to validate, so no pydantic
    (issue 26; the allowlist is in tests/unit/test_import_guard.py)."""
    import os
    import subprocess
    import sys

    from tests.unit.test_import_guard import LIVE_AUDIT_ALLOWED, startup, third_party

    db = mariadb_factory()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("ADVISOR_NO_CACHE", None)
    for _ in range(2):  # the first run fills the caches
        p = subprocess.run([sys.executable, "-X", "importtime", "-m", "advisor", "audit", *conn_args(db),
                            "--no-calibrate", "--format", "json"], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    mods = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    found = third_party(mods - startup(tmp_path))
    assert "pymysql" in found and found <= LIVE_AUDIT_ALLOWED, sorted(found - LIVE_AUDIT_ALLOWED)
    # nor cryptography: PyMySQL needs it only to RSA-encrypt a password (advisor.collect.connection._pymysql);
    # -X importtime lists PyMySQL's attempt, which fails at once, as these two names
    crypto = {m for m in mods if m.split(".")[0] in ("cryptography", "cffi", "_cffi_backend")}
    assert crypto <= {"cryptography.hazmat", "cryptography.hazmat.backends"}, sorted(crypto)
    # the rules and the storage-model table come from the cache: no TOML parser either
    assert not {m for m in mods if m.split(".")[0] in ("tomllib", "tomli")}
