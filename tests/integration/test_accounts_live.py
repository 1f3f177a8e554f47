"""Accounts and the data dictionary (issue 15) against real throwaway mariadbd instances: the
template's root@'%' without a password, plus an anonymous account, an empty-password application
account, a table without a primary key and a near-full AUTO_INCREMENT, collected read-only and
audited; and a minimal account (SELECT on one schema only, no SELECT on mysql.*) for which the
account and dictionary rules are unknown with the grant to add."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import run_cli, run_json
from tests.support.mariadb import RO_PASSWORD, RO_USER

pytestmark = pytest.mark.requires_mariadbd

SEED = (
    "CREATE USER ''@'localhost'",
    "CREATE USER 'app'@'10.0.1.%' IDENTIFIED BY ''",
    "CREATE USER 'sock'@'localhost' IDENTIFIED VIA unix_socket",
    "CREATE USER 'gone'@'%' IDENTIFIED BY '' ACCOUNT LOCK",
    "CREATE DATABASE shop",
    "CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB AUTO_INCREMENT=2000000000",
    "CREATE TABLE shop.audit_log (at DATETIME, what VARCHAR(100)) ENGINE=InnoDB",
    "CREATE TABLE shop.keyed_by_unique (code CHAR(8) NOT NULL, UNIQUE KEY (code)) ENGINE=InnoDB",
    "CREATE TABLE shop.nullable_unique (code CHAR(8) NULL, UNIQUE KEY (code)) ENGINE=InnoDB",
    "CREATE TABLE shop.legacy (id INT PRIMARY KEY) ENGINE=MyISAM",
)


def conn_args(db, user: str = "root") -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(db.port), "--user", user, "--no-defaults"]


@pytest.fixture
def seeded(mariadb_factory):
    db = mariadb_factory(general_log=True)
    c = db.connect(autocommit=True)
    try:
        with c.cursor() as cur:
            for st in SEED:
                cur.execute(st)
    finally:
        c.close()
    return db


def test_collect_reads_accounts_and_dictionary_without_hashes(seeded, tmp_path):
    out = tmp_path / "s.json"
    open_trx = seeded.connect()  # autocommit off: an open transaction once it has read a row
    with open_trx.cursor() as cur:
        cur.execute("SELECT * FROM shop.orders FOR UPDATE")
    try:
        p = run_cli("collect", *conn_args(seeded), "-o", str(out))
    finally:
        open_trx.close()
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    snap = json.loads(text)
    accounts = {(a["user"], a["host"]): a for a in snap["server"]["accounts"]}
    assert accounts[("", "localhost")]["empty_password"] is True
    assert accounts[("app", "10.0.1.%")]["empty_password"] is True
    assert accounts[("gone", "%")]["locked"] is True
    assert accounts[("sock", "localhost")]["plugin"] == "unix_socket"
    assert accounts[("pwuser", "%")]["empty_password"] is False
    assert "SUPER" in accounts[("root", "%")]["global_privileges"]
    # the template's passwords and their hashes never reach the snapshot
    hashes = [row[0] for row in seeded.query("SELECT authentication_string FROM mysql.user WHERE authentication_string <> ''")]
    assert hashes and not any(h in text for h in hashes)
    assert "s3cret-Pa55" not in text and RO_PASSWORD not in text
    shop = snap["server"]["tables"]["schemas"]["shop"]
    assert shop["engines"] == {"InnoDB": 4, "MyISAM": 1}
    assert shop["without_primary_key"] == 2  # audit_log and nullable_unique; keyed_by_unique is clustered on its key
    assert snap["server"]["tables"]["without_primary_key"] == ["shop.audit_log", "shop.nullable_unique"]
    assert snap["server"]["tables"]["auto_increment"][0]["table"] == "shop.orders"
    assert "shop" in [s["name"] for s in snap["server"]["schemas"]]
    assert snap["server"]["plugins"]["unix_socket"] == "ACTIVE"
    assert snap["server"]["time_zone_names"] == 0  # mariadb-install-db does not load them
    assert snap["server"]["transactions"]["count"] >= 1 and snap["server"]["transactions"]["oldest_seconds"] >= 0
    # read-only: every statement the collection sent is a SELECT, a SHOW or the driver's session SET
    statements = [arg for kind, arg in seeded.general_log_statements() if kind == "Query"]
    ours = [s for s in statements if "mysql.user" in s or "information_schema" in s]
    assert ours and all(s.lstrip().upper().startswith(("SELECT", "SHOW")) for s in ours)
    assert not any("authentication_string," in s or s.rstrip().endswith("authentication_string") for s in ours)


def test_audit_fires_the_account_and_dictionary_rules(seeded):
    code, report, err = run_json("audit", *conn_args(seeded), "--no-calibrate", "--purpose", "production",
                                 "--format", "json")
    assert code in (0, 1), err
    got = {f["rule"]: f for f in report["findings"]}
    nopw = got["account-without-password"]
    assert nopw["severity"] == "critical"
    for account in ("''@'localhost'", "'app'@'10.0.1.%'", "'root'@'%'"):
        assert account in nopw["message"]
    assert "'sock'@'localhost'" not in nopw["message"] and "'gone'@'%'" not in nopw["message"]
    assert "''@'localhost'" in got["anonymous-account-present"]["message"]
    assert got["root-reachable-remotely"]["severity"] == "warning"
    assert "'root'@'%'" in got["root-reachable-remotely"]["message"]
    assert got["account-open-to-any-host"]["severity"] == "warning"
    pk = got["tables-without-primary-key"]
    assert pk["severity"] == "warning" and "shop.audit_log, shop.nullable_unique" in pk["message"]
    assert "shop.orders" in got["auto-increment-near-limit"]["message"]
    assert "shop (InnoDB 4, MyISAM 1)" in got["engines-mixed-in-schema"]["message"]
    assert got["password-policy-missing"]["severity"] == "info"
    assert got["time-zone-tables-empty"]["severity"] == "info"
    assert "long-running-transaction" not in got
    for f in report["findings"]:
        assert "None" not in f["message"] and "unknown" not in f["message"].split()


def test_minimal_account_gets_unknown_naming_the_grant(seeded):
    code, report, err = run_json("audit", *conn_args(seeded, RO_USER), "--no-calibrate", "--purpose", "production",
                                 "--format", "json", env={"MYSQL_PWD": RO_PASSWORD})
    assert code in (0, 1), err
    outcomes = {o["rule"]: o for o in report["outcomes"]}
    for rule in ("account-without-password", "anonymous-account-present", "root-reachable-remotely"):
        assert outcomes[rule]["status"] == "unknown", outcomes[rule]
        assert f"GRANT SELECT ON mysql.user TO '{RO_USER}'@'%'" in outcomes[rule]["reason"]
        assert f"GRANT SELECT ON mysql.global_priv TO '{RO_USER}'@'%'" in outcomes[rule]["reason"]
    assert outcomes["tables-without-primary-key"]["status"] == "unknown"
    assert f"GRANT SELECT ON *.* TO '{RO_USER}'@'%'" in outcomes["tables-without-primary-key"]["reason"]
    assert outcomes["test-database-present"]["status"] == "unknown"
    assert f"GRANT SHOW DATABASES ON *.* TO '{RO_USER}'@'%'" in outcomes["test-database-present"]["reason"]
    assert f"GRANT SELECT ON mysql.time_zone_name TO '{RO_USER}'@'%'" in outcomes["time-zone-tables-empty"]["reason"]
    assert f"GRANT PROCESS ON *.* TO '{RO_USER}'@'%'" in outcomes["long-running-transaction"]["reason"]
    # with the grants the reasons name, the same account reads them
    for grant in (f"GRANT SELECT ON mysql.user TO '{RO_USER}'@'%'", f"GRANT SELECT ON mysql.global_priv TO '{RO_USER}'@'%'",
                  f"GRANT SHOW DATABASES, SELECT ON *.* TO '{RO_USER}'@'%'"):
        seeded.query(grant)
    code, report, err = run_json("audit", *conn_args(seeded, RO_USER), "--no-calibrate", "--purpose", "production",
                                 "--format", "json", env={"MYSQL_PWD": RO_PASSWORD})
    assert code in (0, 1), err
    outcomes = {o["rule"]: o for o in report["outcomes"]}
    for rule in ("account-without-password", "tables-without-primary-key", "test-database-present"):
        assert outcomes[rule]["status"] in ("fired", "passed"), outcomes[rule]
    assert outcomes["account-without-password"]["status"] == "fired"


def test_certificate_expiry_is_collected(mariadb_factory, tls_certs):
    db = mariadb_factory(tls=tls_certs)
    code, report, err = run_json("audit", *conn_args(db), "--no-calibrate", "--purpose", "production", "--format", "json")
    assert code in (0, 1), err
    outcome = next(o for o in report["outcomes"] if o["rule"] == "tls-certificate-expiring")
    assert outcome["status"] == "passed", outcome  # tests/support/certs.py: valid for 365 days from yesterday
    p = run_cli("collect", *conn_args(db))
    cert = json.loads(p.stdout)["server"]["tls_certificate"]
    assert 362 < cert["days_left"] < 365 and cert["not_after"].endswith("Z")


def test_replication_rule_leaves_out_the_administrative_mysql_account(mariadb_factory):
    # mariadb-install-db on 10.4+ (without --auth-root-authentication-method=normal, as the packages run
    # it) creates 'mysql'@'localhost' beside root with every privilege: the same statements here
    db = mariadb_factory()
    for st in ("CREATE USER 'mysql'@'localhost' IDENTIFIED VIA mysql_native_password USING 'invalid' OR unix_socket",
               "GRANT ALL PRIVILEGES ON *.* TO 'mysql'@'localhost' WITH GRANT OPTION",
               "CREATE USER 'repl'@'10.0.2.%' IDENTIFIED BY 'Repl-Pa55'",
               "GRANT REPLICATION SLAVE, INSERT ON *.* TO 'repl'@'10.0.2.%'"):
        db.query(st)
    code, report, err = run_json("audit", *conn_args(db), "--no-calibrate", "--purpose", "production", "--format", "json")
    assert code in (0, 1), err
    got = {f["rule"]: f for f in report["findings"]}
    message = got["replication-account-over-privileged"]["message"]
    assert "'repl'@'10.0.2.%'" in message  # (and the template's 'pwuser'@'%', which holds ALL)
    assert "'mysql'@'localhost'" not in message and "'root'@" not in message
    collected = {(a["user"], a["host"]) for a in json.loads(run_cli("collect", *conn_args(db)).stdout)["server"]["accounts"]}
    assert ("mysql", "localhost") in collected  # read, and left out by the rule
