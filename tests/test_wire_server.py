"""Tests of the wire-protocol replay server and of the recorded flavor sets.

They use PyMySQL directly (not the advisor package): what is tested here is
that a real MySQL client sees each recorded server as it was recorded.
"""

from __future__ import annotations

import json
import re
import socket
import threading

import pymysql
import pytest
from tests.support.wire_server import FLAVORS_DIR, ReplayServer, SetNotFound, load_set, set_names

SETS = set_names()
EXPECTED_SETS = {
    "mysql-5.7",
    "mysql-8.0.28",
    "mysql-8.0.36",
    "mysql-8.4",
    "percona-8.0",
    "mariadb-10.6",
    "mariadb-10.11",
    "mariadb-11.4",
    "tidb-5.1",
    "tidb-7.5",
}


def connect(srv: ReplayServer, **kwargs) -> pymysql.connections.Connection:
    params = {"host": srv.host, "port": srv.port, "user": "root", "password": "", "connect_timeout": 5}
    params.update(kwargs)
    return pymysql.connect(**params)


def query(conn, sql: str):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def flavor_of(variables: dict[str, str]) -> tuple[str, tuple[int, int, int]]:
    """('mysql'|'percona'|'mariadb'|'tidb', product version) from version strings."""
    version = variables["version"]
    comment = variables.get("version_comment", "")
    m = re.search(r"-TiDB-v(\d+)\.(\d+)\.(\d+)", version)
    if m:
        return "tidb", tuple(int(x) for x in m.groups())
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version)
    assert m, f"unparseable version {version!r}"
    numbers = tuple(int(x) for x in m.groups())
    if "MariaDB" in version:
        return "mariadb", numbers
    if "Percona" in comment:
        return "percona", numbers
    return "mysql", numbers


# --------------------------------------------------------------------------- the recorded sets


def test_every_expected_set_is_recorded():
    assert EXPECTED_SETS <= set(SETS)


@pytest.mark.parametrize("name", SETS)
def test_set_files_and_provenance(name):
    d = FLAVORS_DIR / name
    for required in ("variables.json", "status.json", "PROVENANCE.md"):
        assert (d / required).is_file(), f"{name}: missing {required}"
    provenance = (d / "PROVENANCE.md").read_text(encoding="utf-8")
    for f in sorted(p.name for p in d.iterdir() if p.suffix == ".json"):
        assert f in provenance, f"{name}: PROVENANCE.md says nothing about {f}"
    data = load_set(name)
    for key in ("variables", "status", "session_status"):
        for var, value in data[key].items():
            assert isinstance(value, str), f"{name}/{key}: {var} is {value!r}, not a string"
            assert var == var.strip() and var, f"{name}/{key}: bad name {var!r}"
    for entry in data["queries"]:
        re.compile(entry["match"])
        assert ("error" in entry) != ("columns" in entry), entry
        for row in entry.get("rows", []):
            assert len(row) == len(entry["columns"]), entry
    assert list(data["variables"]) == sorted(data["variables"]), "SHOW VARIABLES is sorted by name"


@pytest.mark.parametrize("name", SETS)
def test_set_version_invariants(name):
    v = load_set(name)["variables"]
    s = load_set(name)["status"]
    flavor, ver = flavor_of(v)
    assert v["version_comment"]
    is_mysql_family = flavor in ("mysql", "percona")

    if is_mysql_family and ver >= (8, 0, 0):
        assert not [k for k in v if k.startswith("query_cache")], "query cache was removed in MySQL 8.0.3"
        assert "tx_isolation" not in v
        assert "temptable_max_ram" in v and "innodb_dedicated_server" in v
    if is_mysql_family and ver < (8, 0, 0):
        assert "query_cache_type" in v and "innodb_dedicated_server" not in v
    # innodb_redo_log_capacity: MySQL/Percona 8.0.30+ only
    assert ("innodb_redo_log_capacity" in v) == (is_mysql_family and ver >= (8, 0, 30))
    if is_mysql_family:
        assert ("Innodb_redo_log_current_lsn" in s) == (ver >= (8, 0, 30))
    if flavor == "mariadb":
        assert ver < (10, 6, 0) or "innodb_log_files_in_group" not in v
        assert ver < (10, 6, 0) or "innodb_buffer_pool_instances" not in v
        assert ("innodb_log_file_buffering" in v) == (ver >= (10, 8, 0))
        assert ("innodb_change_buffering" in v) == (ver < (11, 0, 0))
        assert "innodb_redo_log_capacity" not in v and "innodb_dedicated_server" not in v
        assert v["performance_schema"] == "OFF"
        assert "mrr_buffer_size" in v and "aria_pagecache_buffer_size" in v
    else:
        assert "mrr_buffer_size" not in v and "aria_pagecache_buffer_size" not in v
    if flavor == "tidb":
        assert ("tidb_enable_prepared_plan_cache" in v) == (ver >= (6, 1, 0))
        for key in ("tidb_enable_async_commit", "tidb_enable_1pc", "tidb_txn_mode"):
            assert key in v
        if ver < (5, 2, 0):
            # recorded as a cluster upgraded from 4.0: the 5.0 commit features stay off
            assert v["tidb_enable_async_commit"] == "OFF" and v["tidb_enable_1pc"] == "OFF"
        elif ver < (6, 0, 0):
            # tidb-5.2 models a cluster created at 5.2: its bootstrap turned them on
            assert v["tidb_enable_async_commit"] == "ON" and v["tidb_enable_1pc"] == "ON"
        assert len(s) < 30, "TiDB's SHOW GLOBAL STATUS is small"
    else:
        assert not [k for k in v if k.startswith("tidb_")]
        for key in ("Uptime", "Questions", "Innodb_os_log_written", "Innodb_buffer_pool_read_requests"):
            assert key in s
    if flavor == "mysql" and ver >= (8, 4, 0):
        assert v["innodb_io_capacity"] == "10000" and v["innodb_adaptive_hash_index"] == "OFF"
        assert v["innodb_change_buffering"] == "none" and v["innodb_log_buffer_size"] == "67108864"
    if flavor == "mysql" and (8, 0, 0) <= ver < (8, 4, 0):
        assert v["innodb_io_capacity"] == "200" and v["innodb_flush_method"] == "fsync"


# --------------------------------------------------------------------------- replay per set


@pytest.mark.parametrize("name", SETS)
def test_replay_matches_recording(name):
    data = load_set(name)
    with ReplayServer(name) as srv:
        conn = connect(srv)
        try:
            expected_handshake = data["variables"]["version"]
            if flavor_of(data["variables"])[0] == "mariadb" and flavor_of(data["variables"])[1] < (11, 0, 0):
                expected_handshake = "5.5.5-" + expected_handshake
            assert conn.get_server_info() == expected_handshake
            assert dict(query(conn, "SHOW GLOBAL VARIABLES")) == data["variables"]
            assert dict(query(conn, "SHOW GLOBAL STATUS")) == data["status"]
            assert query(conn, "SELECT @@version")[0][0] == data["variables"]["version"]
            ssl = dict(query(conn, "SHOW SESSION STATUS LIKE 'Ssl%'"))
            assert ssl.get("Ssl_version", "") == "" and ssl.get("Ssl_cipher", "") == ""
        finally:
            conn.close()


# --------------------------------------------------------------------------- protocol behaviour


@pytest.fixture
def mysql80():
    with ReplayServer.from_set("mysql-8.0.36", overrides={"sort_buffer_size": "33554432"}) as srv:
        yield srv


def test_show_filters(mysql80):
    variables = load_set("mysql-8.0.36")["variables"]
    conn = connect(mysql80)
    try:
        rows = query(conn, r"SHOW GLOBAL VARIABLES LIKE 'innodb\_log\_%'")
        assert dict(rows) == {k: v for k, v in variables.items() if k.startswith("innodb_log_")}
        assert dict(query(conn, "show   global\n variables like 'INNODB_BUFFER_POOL_SIZE'")) == {
            "innodb_buffer_pool_size": "134217728"
        }
        assert [r[0] for r in query(conn, "SHOW VARIABLES LIKE 'sort_buffer_siz_'")] == ["sort_buffer_size"]
        assert dict(query(conn, "SHOW GLOBAL VARIABLES LIKE 'sort_buffer_size'")) == {
            "sort_buffer_size": "33554432"
        }
        rows = query(
            conn, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('max_connections', 'VERSION', 'nope')"
        )
        assert dict(rows) == {"max_connections": "151", "version": "8.0.36"}
        assert dict(query(conn, "SHOW GLOBAL VARIABLES WHERE variable_name = 'port'")) == {"port": "3306"}
        assert query(conn, "SHOW GLOBAL STATUS LIKE 'Uptime'") == (("Uptime", "174515"),)
        assert query(conn, "SHOW STATUS LIKE 'no_such_thing%'") == ()
        with conn.cursor() as cur:
            cur.execute("SHOW GLOBAL VARIABLES LIKE 'port'")
            assert [d[0] for d in cur.description] == ["Variable_name", "Value"]
            assert cur.description[1][1] == pymysql.constants.FIELD_TYPE.VAR_STRING
    finally:
        conn.close()


def test_sysvar_lookups(mysql80):
    conn = connect(mysql80)
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT @@version, @@global.max_connections, @@session.sort_buffer_size AS sbs, "
                "@@innodb_file_per_table, @@innodb_doublewrite, @@innodb_max_dirty_pages_pct, @@GTID_MODE"
            )
            assert cur.fetchall() == (("8.0.36", 151, 33554432, 1, "ON", 90.0, "OFF"),)
            assert [d[0] for d in cur.description] == [
                "@@version",
                "@@global.max_connections",
                "sbs",
                "@@innodb_file_per_table",
                "@@innodb_doublewrite",
                "@@innodb_max_dirty_pages_pct",
                "@@GTID_MODE",
            ]
        ((conn_id,),) = query(conn, "SELECT CONNECTION_ID()")
        assert isinstance(conn_id, int) and conn_id == conn.thread_id()
        assert query(conn, "SELECT 1") == ((1,),)
        assert query(conn, "select @@version_comment limit 1") == (("MySQL Community Server - GPL",),)
        with pytest.raises(pymysql.err.OperationalError) as e:
            query(conn, "SELECT @@no_such_variable")
        assert e.value.args == (1193, "Unknown system variable 'no_such_variable'")
    finally:
        conn.close()


def test_session_state_and_housekeeping(mysql80):
    conn = connect(mysql80)
    try:
        query(conn, "SET NAMES utf8mb4")
        query(conn, "SET SESSION sort_buffer_size = 1048576")
        query(conn, "SET autocommit = 1")
        assert query(conn, "SELECT @@sort_buffer_size, @@global.sort_buffer_size, @@autocommit") == (
            (1048576, 33554432, 1),
        )
        assert dict(query(conn, "SHOW SESSION VARIABLES LIKE 'sort_buffer_size'")) == {
            "sort_buffer_size": "1048576"
        }
        assert dict(query(conn, "SHOW GLOBAL VARIABLES LIKE 'sort_buffer_size'")) == {
            "sort_buffer_size": "33554432"
        }
        conn.ping(reconnect=False)
        conn.commit()
        conn.rollback()
        query(conn, "START TRANSACTION READ ONLY")
        query(conn, "COMMIT")
        with pytest.raises(pymysql.err.OperationalError) as e:
            query(conn, "SET SESSION no_such_variable = 1")
        assert e.value.args[0] == 1193
    finally:
        conn.close()
    assert mysql80.queries[:2] == ["SET NAMES utf8mb4", "SET AUTOCOMMIT = 0"]
    assert "SET SESSION sort_buffer_size = 1048576" in mysql80.queries
    assert mysql80.unhandled == []


def test_unknown_statements_get_real_errors(mysql80):
    conn = connect(mysql80)
    try:
        cases = {
            "SELECT * FROM sys.no_such_view": (1146, "Table 'sys.no_such_view' doesn't exist"),
            "SELECT * FROM information_schema.NO_SUCH_TABLE": (
                1109,
                "Unknown table 'NO_SUCH_TABLE' in information_schema",
            ),
            "SELECT COUNT(*) FROM t": (1046, "No database selected"),
            "SHOW ENGINE INNODB STATUS": None,
            "SELEC 1": None,
        }
        for sql, expected in cases.items():
            with pytest.raises(pymysql.MySQLError) as e:
                query(conn, sql)
            if expected is None:
                assert e.value.args[0] == 1064
                assert "You have an error in your SQL syntax" in e.value.args[1]
            else:
                assert e.value.args == expected
        query(conn, "USE app")
        with pytest.raises(pymysql.err.ProgrammingError) as e:
            query(conn, "SELECT COUNT(*) FROM t")
        assert e.value.args == (1146, "Table 'app.t' doesn't exist")
    finally:
        conn.close()
    assert "SHOW ENGINE INNODB STATUS" in mysql80.unhandled


def test_canned_queries():
    with ReplayServer("mysql-8.0.36") as srv:
        conn = connect(srv)
        try:
            rows = query(conn, "SELECT CHANNEL, PROPERTY, VALUE FROM performance_schema.tls_channel_status")
            assert ("mysql_main", "Enabled", "Yes") in rows
        finally:
            conn.close()
    with ReplayServer("mysql-5.7") as srv:
        conn = connect(srv)
        try:
            with pytest.raises(pymysql.err.ProgrammingError) as e:
                query(conn, "SELECT CHANNEL, PROPERTY, VALUE FROM performance_schema.tls_channel_status")
            assert e.value.args[0] == 1146
        finally:
            conn.close()
    with ReplayServer("tidb-5.1") as srv:
        conn = connect(srv)
        try:
            rows = query(conn, "SHOW CONFIG WHERE type = 'tidb' AND name LIKE 'prepared-plan-cache%'")
            assert ("tidb", "tidb-0:4000", "prepared-plan-cache.enabled", "false") in rows
            assert query(conn, "SELECT @@tidb_enable_async_commit, @@tidb_enable_1pc") == ((0, 0),)
            with pytest.raises(pymysql.err.OperationalError) as e:
                query(conn, "SELECT @@tidb_enable_prepared_plan_cache")
            assert e.value.args[0] == 1193
        finally:
            conn.close()
    custom = {
        "variables": {"version": "8.0.36"},
        "queries": [
            {"match": r"^SELECT id, n FROM app\.t$", "columns": ["id", "n"], "rows": [[1, "a"], [2, None]]},
            {
                "match": r"^SELECT secret$",
                "error": [1142, "SELECT command denied to user 'root'@'127.0.0.1' for table 'x'"],
            },
        ],
    }
    with ReplayServer(custom) as srv:
        conn = connect(srv)
        try:
            assert query(conn, "SELECT id, n FROM app.t") == ((1, "a"), (2, None))
            with pytest.raises(pymysql.err.OperationalError) as e:
                query(conn, "SELECT  secret ;")
            assert e.value.args[0] == 1142
        finally:
            conn.close()


# --------------------------------------------------------------------------- failures


def test_wrong_password_and_user():
    with ReplayServer("mysql-8.0.36", password="s3cret") as srv:
        with pytest.raises(pymysql.err.OperationalError) as e:
            connect(srv, password="wrong")
        assert e.value.args == (1045, "Access denied for user 'root'@'127.0.0.1' (using password: YES)")
        with pytest.raises(pymysql.err.OperationalError) as e:
            connect(srv, password="")
        assert e.value.args == (1045, "Access denied for user 'root'@'127.0.0.1' (using password: NO)")
        with pytest.raises(pymysql.err.OperationalError) as e:
            connect(srv, user="advisor", password="s3cret")
        assert e.value.args[0] == 1045
        conn = connect(srv, password="s3cret")
        assert query(conn, "SELECT 1") == ((1,),)
        conn.close()
        assert srv.queries == ["SET NAMES utf8mb4", "SET AUTOCOMMIT = 0", "SELECT 1"]


def test_deny_simulates_missing_privileges():
    deny = {
        r"performance_schema\.": (
            1142,
            "SELECT command denied to user 'advisor'@'%' for table 'tls_channel_status'",
        ),
        r"^SHOW ENGINE INNODB STATUS$": (
            1227,
            "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation",
        ),
    }
    with ReplayServer("mysql-8.0.36", deny=deny) as srv:
        conn = connect(srv)
        try:
            with pytest.raises(pymysql.err.OperationalError) as e:
                query(conn, "SELECT CHANNEL, PROPERTY, VALUE FROM performance_schema.tls_channel_status")
            assert e.value.args[0] == 1142
            with pytest.raises(pymysql.err.OperationalError) as e:
                query(conn, "show engine innodb status")
            assert e.value.args == deny[r"^SHOW ENGINE INNODB STATUS$"]
            assert dict(query(conn, "SHOW GLOBAL VARIABLES LIKE 'port'")) == {"port": "3306"}
        finally:
            conn.close()


def test_fail_after_queries_drops_the_connection():
    with ReplayServer("mariadb-10.11", fail_after_queries=3) as srv:
        conn = connect(srv)  # SET NAMES + SET AUTOCOMMIT
        assert query(conn, "SELECT 1") == ((1,),)
        with pytest.raises(pymysql.err.OperationalError) as e:
            query(conn, "SHOW GLOBAL STATUS")
        assert e.value.args[0] in (2013, 2006)
        assert srv.aborted
        assert srv.queries[-1] == "SHOW GLOBAL STATUS"
        with pytest.raises(pymysql.err.OperationalError) as e:
            connect(srv)
        assert e.value.args[0] == 2003
        conn.close()
    assert srv.aborted


# --------------------------------------------------------------------------- lifecycle


def test_ready_on_return_and_clean_shutdown():
    before = threading.active_count()
    srv = ReplayServer("mysql-8.4")
    socket.create_connection((srv.host, srv.port), timeout=1).close()  # listening as soon as the constructor returns
    conns = [connect(srv) for _ in range(3)]
    assert len({c.thread_id() for c in conns}) == 3
    conns[0].close()
    srv.close()  # two connections still open: close() must drop them
    srv.close()  # idempotent
    assert threading.active_count() == before
    with pytest.raises(OSError):
        socket.create_connection((srv.host, srv.port), timeout=1).close()
    for c in conns[1:]:
        with pytest.raises(pymysql.MySQLError):
            query(c, "SELECT 1")


def test_loading_helpers(tmp_path):
    data = load_set("tidb-7.5")
    assert data["name"] == "tidb-7.5" and data["variables"]["version"] == "8.0.11-TiDB-v7.5.1"
    with pytest.raises(SetNotFound):
        load_set("no-such-set")
    (tmp_path / "variables.json").write_text(json.dumps({"version": "8.0.36", "port": "3306"}))
    with ReplayServer(tmp_path) as srv:
        conn = connect(srv)
        assert query(conn, "SHOW GLOBAL VARIABLES") == (("version", "8.0.36"), ("port", "3306"))
        assert query(conn, "SHOW GLOBAL STATUS") == ()
        conn.close()
    with ReplayServer.from_set(
        "mysql-8.0.28", drop=["innodb_log_files_in_group"], status_overrides={"Uptime": 5}
    ) as srv:
        conn = connect(srv)
        assert query(conn, "SHOW GLOBAL VARIABLES LIKE 'innodb_log_files_in_group'") == ()
        assert query(conn, "SHOW GLOBAL STATUS LIKE 'Uptime'") == (("Uptime", "5"),)
        conn.close()
