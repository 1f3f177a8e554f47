"""The opt-in write probe: its scratch schema is gone after a normal run, after SIGINT or SIGTERM in the
middle of the inserts (the real CLI in a subprocess), and every user table is unchanged."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.support.calibrate import calibrate_only
from tests.support.cli import default_interrupts
from tests.support.mariadb import DUMMY_DB

pytestmark = pytest.mark.requires_mariadbd

SYSTEM = ("mysql", "information_schema", "performance_schema", "sys")


def user_checksums(db) -> dict[str, int]:
    rows = db.query("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' "
                    f"AND TABLE_SCHEMA NOT IN {SYSTEM!r}")
    out = {}
    for schema, table in rows:
        (_, checksum), = db.query(f"CHECKSUM TABLE `{schema}`.`{table}` EXTENDED")
        out[f"{schema}.{table}"] = checksum
    assert all(v is not None for v in out.values()), out
    return out


def probe_schemas(db) -> list[str]:
    return [r[0] for r in db.query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA "
                                   "WHERE SCHEMA_NAME LIKE 'advisor\\_probe\\_%'")]


@pytest.fixture
def shop(mariadb_factory):
    """A server with user data in two engines, to prove the probe touches none of it."""
    db = mariadb_factory(general_log=True)
    db.query("CREATE DATABASE shop")
    db.query("CREATE TABLE shop.orders (id INT PRIMARY KEY, amount DECIMAL(10,2), note VARCHAR(64)) ENGINE=InnoDB")
    db.query("INSERT INTO shop.orders SELECT seq, seq * 1.25, CONCAT('order ', seq) FROM shop.seq_1_to_5000",
             autocommit=True)
    db.query("CREATE TABLE shop.audit_log (id INT PRIMARY KEY, line TEXT) ENGINE=Aria")
    db.query("INSERT INTO shop.audit_log SELECT seq, REPEAT('x', seq % 100) FROM shop.seq_1_to_500", autocommit=True)
    assert db.query("SELECT COUNT(*) FROM shop.orders") == ((5000,),)
    return db


def args(db) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults"]


def test_completed_write_probe_drops_its_schema(shop):
    before = user_checksums(shop)
    assert f"{DUMMY_DB}.t" in before and "shop.orders" in before and "shop.audit_log" in before
    cal = calibrate_only("127.0.0.1", shop.port, "commit", budget=2.0, write_probe=True)[0]
    c = cal["commit_ms"]
    print(f"\ncommit: p50 {c['p50']} ms, p99 {c['p99']} ms, {c['samples']} samples")
    assert c["samples"] >= 1 and 0 < c["min"] <= c["p50"] <= c["p99"] <= c["max"]  # one insert at least, once it runs
    wp = cal["write_probe"]
    assert wp["created"] and wp["dropped"] and wp["cleanup"] == "dropped on the probe connection"
    assert probe_schemas(shop) == []
    assert user_checksums(shop) == before


def test_without_write_probe_nothing_is_written(shop):
    seen = len(shop.general_log_entries())  # the fixture's own statements come first
    cal = calibrate_only("127.0.0.1", shop.port, budget=3.0)[0]  # every read-only probe, a budget of their own
    assert cal["commit_ms"] is None and cal["write_probe"] is None
    assert any(m["fact"] == "calibration.commit_ms" and "--write-probe" in m["reason"] for m in cal["missing"])
    statements = [e.argument for e in shop.general_log_entries()[seen:] if e.command == "Query"]
    # the probes that measured did run their statements here (on a busy machine a late one may be out of budget)
    assert cal["rtt_ms"] is not None and "SELECT 1" in statements
    if cal["stream"] is not None and cal["stream"]["server_mbytes_per_s"] is not None:
        assert any(s.startswith("SELECT SUM(LENGTH(g.x))") for s in statements)
    if cal["sort_probe"] is not None:
        assert "SET SESSION sort_buffer_size = 262144" in statements
    writes = [s for s in statements if s.split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE", "CREATE", "DROP",
                                                                       "ALTER", "REPLACE", "TRUNCATE")]
    sets = {s for s in statements if s.upper().startswith("SET")}
    assert writes == [], writes
    assert sets <= {"SET SESSION sort_buffer_size = DEFAULT", "SET SESSION sort_buffer_size = 262144"} | {
        s for s in sets if s.upper().startswith("SET NAMES")}, sets


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_mid_inserts_leaves_no_schema_and_no_change(shop, sig):
    before = user_checksums(shop)
    env = dict(os.environ, HOME="/nonexistent-advisor-home")
    env.pop("MYSQL_PWD", None)
    proc = subprocess.Popen([sys.executable, "-m", "advisor", "calibrate", *args(shop), "--write-probe",
                             "--probe", "commit", "--calibrate-seconds", "20", "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=default_interrupts)
    try:
        deadline = time.monotonic() + 30
        rows = 0
        name = None
        while time.monotonic() < deadline and proc.poll() is None:
            names = probe_schemas(shop)
            if names:
                name = names[0]
                try:
                    rows = shop.query(f"SELECT COUNT(*) FROM `{name}`.probe")[0][0]
                except Exception:  # the table is being created
                    rows = 0
                if rows >= 50:
                    break
            time.sleep(0.05)
        assert name is not None and rows >= 50, "the write probe never got going"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip() == "advisor: error: interrupted.", err
    assert out == ""
    assert probe_schemas(shop) == [], f"{name} was left behind"
    assert user_checksums(shop) == before
    # the probe connection was cut off mid-statement, so a second connection killed it and dropped the schema
    log = shop.general_log_entries()
    insert_threads = {e.thread_id for e in log if e.command == "Query" and e.argument.startswith(f"INSERT INTO `{name}`")}
    drops = [e for e in log if e.command == "Query" and e.argument == f"DROP DATABASE IF EXISTS `{name}`"]
    assert len(insert_threads) == 1 and drops
    assert all(d.thread_id not in insert_threads for d in drops)
    assert any(e.command == "Query" and e.argument == f"KILL CONNECTION {next(iter(insert_threads))}" for e in log)


def test_refuses_a_scratch_name_that_already_exists(shop, monkeypatch):
    """Should the random name collide with an existing schema, the probe leaves it alone."""
    from advisor.collect import calibrate_probes as cal_mod

    shop.query("CREATE DATABASE advisor_probe_deadbeef")
    shop.query("CREATE TABLE advisor_probe_deadbeef.keep (id INT PRIMARY KEY) ENGINE=InnoDB")
    shop.query("INSERT INTO advisor_probe_deadbeef.keep VALUES (7)", autocommit=True)
    before = user_checksums(shop)
    monkeypatch.setattr(cal_mod.secrets, "token_hex", lambda n=None: "deadbeef")
    cal = calibrate_only("127.0.0.1", shop.port, "commit", budget=2.0, write_probe=True)[1].calibration
    assert cal.commit_ms is None and cal.write_probe is None
    reason = next(m.reason for m in cal.missing if m.fact == "calibration.commit_ms")
    assert "advisor_probe_deadbeef already exists" in reason
    assert shop.query("SELECT id FROM advisor_probe_deadbeef.keep") == ((7,),)
    assert user_checksums(shop) == before


def test_minimal_account_skips_the_write_probe_without_sending_create(shop):
    """The minimal account of docs/privileges.md has no CREATE: the write probe reads SHOW GRANTS,
    skips with that reason and sends no CREATE, DROP or KILL (issue 19: it used to try all three
    and then exit 5 about a schema that never existed)."""
    shop.query("CREATE USER 'advisor'@'%' IDENTIFIED BY 'minimal-pw'")
    shop.query("GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'advisor'@'%'")
    shop.query("GRANT SELECT ON performance_schema.* TO 'advisor'@'%'")
    seen = len(shop.general_log_entries())
    p = subprocess.run([sys.executable, "-m", "advisor", "calibrate", "--host", "127.0.0.1", "--port", str(shop.port),
                        "--user", "advisor", "--password", "minimal-pw", "--no-defaults", "--write-probe",
                        "--probe", "commit", "--calibrate-seconds", "20", "--format", "json"],
                       capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": "/nonexistent"})
    assert p.returncode == 0, p.stderr
    cal = json.loads(p.stdout)
    assert cal["commit_ms"] is None and cal["write_probe"] is None
    reason = next(m["reason"] for m in cal["missing"] if m["fact"] == "calibration.commit_ms")
    assert "lacks CREATE, INSERT, DROP" in reason and "no CREATE was sent" in reason
    statements = [e.argument.upper() for e in shop.general_log_entries()[seen:] if e.command == "Query"]
    assert "SHOW GRANTS" in statements
    assert not [s for s in statements if s.startswith(("CREATE", "DROP", "KILL", "INSERT"))], statements
    assert probe_schemas(shop) == []


def test_account_with_the_scratch_grant_runs_the_write_probe(shop):
    """The grant docs/privileges.md gives for the write probe is enough (a schema pattern, not *.*)."""
    shop.query("CREATE USER 'prober'@'%' IDENTIFIED BY 'prober-pw'")
    shop.query("GRANT CREATE, INSERT, DROP ON `advisor\\_probe\\_%`.* TO 'prober'@'%'")
    cal = calibrate_only("127.0.0.1", shop.port, "commit", budget=2.0, write_probe=True, user="prober",
                         password="prober-pw")[0]
    assert cal["commit_ms"] is not None and cal["write_probe"]["dropped"], cal["missing"]
    assert probe_schemas(shop) == []
