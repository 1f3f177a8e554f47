"""The collector's flavor paths over the real wire protocol, against recorded servers of flavors
that cannot be installed here (tests/fixtures/flavors/*/PROVENANCE.md says where each came from)."""

from __future__ import annotations

import json

import pytest

from advisor.collect.dictionary import Q_OWN_PRIVILEGES, Q_SCHEMAS, Q_TABLES, Q_TIME_ZONES, Q_TRANSACTIONS
from tests.support.cli import assert_one_paragraph_error, run_cli, run_json
from tests.support.wire_server import ReplayServer

EXPECT = {
    "mysql-5.7": ("mysql", "5.7.44"),
    "mysql-8.0.28": ("mysql", "8.0.28"),
    "mysql-8.0.36": ("mysql", "8.0.36"),
    "mysql-8.4": ("mysql", "8.4"),
    "percona-8.0": ("percona", "8.0.32"),
    "mariadb-10.6": ("mariadb", "10.6"),
    "mariadb-10.11": ("mariadb", "10.11"),
    "mariadb-11.4": ("mariadb", "11.4"),
    "tidb-5.1": ("tidb", "5.1"),
    "tidb-7.5": ("tidb", "7.5"),
}


def args(srv) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(srv.port), "--user", "root", "--no-defaults"]


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_collect_and_audit_each_flavor(name, tmp_path):
    flavor, version = EXPECT[name]
    with ReplayServer.from_set(name) as srv:
        snap_path = tmp_path / "s.json"
        p = run_cli("collect", *args(srv), "-o", str(snap_path))
        assert p.returncode == 0, p.stderr
        queries = list(srv.queries)
        unhandled = list(srv.unhandled)
    text = snap_path.read_text()
    # the collector builds its models without validation (speed); what it wrote must validate
    # and round-trip unchanged
    from advisor.snapshot import load_snapshot

    assert load_snapshot(text).to_json() == text
    snap = json.loads(text)
    assert snap["target"]["flavor"] == flavor
    assert snap["target"]["version"].startswith(version)
    assert snap["server"]["variables"]["version"] == snap["target"]["version_string"]
    assert len(snap["server"]["variables"]) > 100 and snap["server"]["status"]
    for q in queries:  # read-only: SELECT/SHOW plus PyMySQL's session SETs at connect
        assert q.split()[0].upper() in ("SELECT", "SHOW", "SET"), q
        if q.split()[0].upper() == "SET":
            assert "GLOBAL" not in q.upper() and "PERSIST" not in q.upper(), q
    # recorded sets carry no rows for these two, nor for information_schema.PLUGINS, and the MariaDB
    # sets none for the account and data-dictionary statements; the collector records them as missing
    # ... nor for the benchmark TiDB/TiKV items of SHOW CONFIG (tests/integration/test_compare_cli.py serves some)
    unanswered = ("information_schema.TABLES", "performance_schema.threads", "information_schema.PLUGINS",
                  "SHOW CONFIG WHERE (type = 'tidb'")
    dictionary = (Q_OWN_PRIVILEGES, Q_SCHEMAS, Q_TABLES, "FROM mysql.user", Q_TIME_ZONES, Q_TRANSACTIONS)
    left = [u for u in unhandled if not any(w in u for w in unanswered)]
    if flavor == "mariadb":
        left = [u for u in left if not any(q in u for q in dictionary)]
    assert left == [], left
    if flavor in ("mysql", "percona"):  # constructed stock-install answers (PROVENANCE.md of each set)
        assert [a["user"] for a in snap["server"]["accounts"]][-1] == "root"
        assert snap["server"]["tables"] == {"schemas": {}, "without_primary_key": [], "auto_increment": []}
        assert snap["server"]["time_zone_names"] == 0 and snap["server"]["transactions"]["count"] == 0
    if flavor == "tidb":
        assert not any("mysql.user" in q or "SCHEMATA" in q for q in queries)
    if flavor == "tidb":
        assert any(q.startswith("SHOW CONFIG") for q in queries)
        assert snap["server"]["tidb_config"] is not None
    if name in ("mysql-8.0.36", "mysql-8.4", "percona-8.0"):
        assert any("tls_channel_status" in q for q in queries)
    if name == "mysql-5.7" or flavor == "mariadb":
        assert not any("tls_channel_status" in q for q in queries)
    # the offline audit of what was collected evaluates every rule without error
    code, report, err = run_json("audit", "--snapshot", str(snap_path), "--purpose", "benchmark", "--format", "json")
    assert code == 0, err
    assert all(o["reason"] for o in report["outcomes"])


def test_tidb_51_config_reaches_the_snapshot(tmp_path):
    with ReplayServer.from_set("tidb-5.1") as srv:
        code, snap, err = run_json("collect", *args(srv))
    assert code == 0, err
    assert snap["server"]["tidb_config"]["prepared-plan-cache.enabled"] == "false"
    assert snap["target"]["version"] == "5.1.4" or snap["target"]["version"].startswith("5.1")


def test_tls_state_of_other_sessions_from_performance_schema():
    """Per-session TLS rows as performance_schema returns them (constructed for this test: three
    benchmark sessions, two encrypted, plus the advisor's own connection, which is excluded)."""
    from tests.support.wire_server import load_set

    data = load_set("mysql-8.0.36")
    data["queries"] = list(data.get("queries", [])) + [{
        "match": r"performance_schema\.threads",
        "columns": ["PROCESSLIST_ID", "PROCESSLIST_USER", "PROCESSLIST_HOST", "VARIABLE_VALUE", "VARIABLE_VALUE"],
        "rows": [[101, "sbtest", "10.0.0.5", "TLSv1.3", "TLS_AES_256_GCM_SHA384"],
                 [102, "sbtest", "10.0.0.5", "TLSv1.3", "TLS_AES_256_GCM_SHA384"],
                 [103, "app", "10.0.0.7", "", ""],
                 [8, "root", "127.0.0.1", "", ""]],
    }]
    with ReplayServer(data) as srv:
        code, snap, err = run_json("collect", *args(srv), "--ssl-mode", "DISABLED")
        assert code == 0, err
        cid = snap["server"]["connection"]["thread_id"]
    usage = snap["server"]["tls_usage"]
    assert usage["source"] == "performance_schema"
    assert (usage["sessions_total"], usage["sessions_tls"]) == (3, 2), (cid, usage)
    assert cid not in [s["thread_id"] for s in usage["sessions"]]


def test_server_dies_mid_collection_exit_5():
    # PyMySQL sends two statements while connecting; the server dies on the third (SHOW GLOBAL STATUS)
    with ReplayServer.from_set("mysql-8.0.36", fail_after_queries=3) as srv:
        p = run_cli("collect", *args(srv))
    assert p.returncode == 5, p.stderr
    assert_one_paragraph_error(p.stderr)
    assert "went away" in p.stderr and "Tip:" in p.stderr


def test_denied_performance_schema_is_recorded_as_missing():
    deny = {r"performance_schema\.": (1142, "SELECT command denied to user 'root'@'127.0.0.1' for table 'threads'")}
    with ReplayServer.from_set("mysql-8.0.36", deny=deny) as srv:
        code, snap, err = run_json("collect", *args(srv))
    assert code == 0, err
    missing = {m["fact"]: m["reason"] for m in snap["server"]["missing"]}
    assert "permission denied (1142" in missing["server.tls_usage"]
    assert "server.tls_channels" in missing


def test_wrong_password_against_replayed_mysql():
    with ReplayServer.from_set("mysql-8.4", password="right-one") as srv:
        p = run_cli("audit", *args(srv), "--password", "not-the-right-one")
    assert p.returncode == 3
    assert_one_paragraph_error(p.stderr)
    assert "not-the-right-one" not in p.stderr


def _mysql80_with_accounts(rows: list[list[str]]) -> dict:
    """The mysql-8.0.36 set with its constructed mysql.user answer replaced by `rows` (same columns)."""
    from tests.support.wire_server import load_set

    data = load_set("mysql-8.0.36")
    queries = list(data["queries"])
    i = next(i for i, q in enumerate(queries) if "mysql\\.user" in q["match"])
    queries[i] = {**queries[i], "rows": rows}
    data["queries"] = queries
    return data


def _account(user: str, host: str, plugin: str, empty: str, locked: str = "N", privs: str = "N") -> list[str]:
    return [user, host, plugin, empty, locked, "N", "", "N"] + [privs] * 16


def test_mysql80_accounts_over_the_wire_fire_the_account_rules(tmp_path):
    """mysql.user rows as MySQL 8.0 returns them for the collector's statement (constructed: a stock
    install plus root@'%' without a password, an anonymous account and an app account on
    mysql_native_password), collected over the wire and audited."""
    rows = [_account("mysql.sys", "localhost", "caching_sha2_password", "0", locked="Y"),
            _account("root", "localhost", "caching_sha2_password", "0", privs="Y"),
            _account("root", "%", "caching_sha2_password", "1", privs="Y"),
            _account("", "localhost", "caching_sha2_password", "1"),
            _account("app", "10.0.1.%", "mysql_native_password", "0")]
    with ReplayServer(_mysql80_with_accounts(rows)) as srv:
        snap_path = tmp_path / "s.json"
        p = run_cli("collect", *args(srv), "-o", str(snap_path))
        assert p.returncode == 0, p.stderr
        sent = [q for q in srv.queries if "mysql.user" in q]
    assert len(sent) == 1 and "authentication_string = ''" in sent[0]
    assert "authentication_string," not in sent[0] and "authentication_string " not in sent[0].replace(
        "authentication_string = ''", "")  # the hash itself is never selected
    code, report, err = run_json("audit", "--snapshot", str(snap_path), "--purpose", "production", "--format", "json")
    assert code in (0, 1), err
    got = {f["rule"]: f for f in report["findings"]}
    assert got["account-without-password"]["severity"] == "critical"
    assert "''@'localhost', 'root'@'%'" in got["account-without-password"]["message"]  # sorted by user, host
    assert "''@'localhost'" in got["anonymous-account-present"]["message"]
    assert "'root'@'%'" in got["root-reachable-remotely"]["message"]
    assert "'app'@'10.0.1.%'" in got["account-native-password-plugin"]["message"]
    assert "mysql.sys" not in " ".join(f["message"] for f in report["findings"])  # locked


def test_mysql80_mysql_user_denied_is_unknown_naming_the_grant():
    deny = {r"FROM mysql\.user": (1142, "SELECT command denied to user 'advisor'@'10.0.0.9' for table 'user'")}
    with ReplayServer.from_set("mysql-8.0.36", deny=deny) as srv:
        code, report, err = run_json("audit", *args(srv), "--no-calibrate", "--purpose", "production", "--format", "json")
    assert code in (0, 1), err
    outcome = next(o for o in report["outcomes"] if o["rule"] == "account-without-password")
    assert outcome["status"] == "unknown"
    assert "GRANT SELECT ON mysql.user TO 'root'@'localhost'" in outcome["reason"], outcome["reason"]
