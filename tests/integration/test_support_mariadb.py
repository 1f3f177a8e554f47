"""The throwaway-server support itself, against real mariadbd processes."""

from __future__ import annotations

import os
import socket

import pymysql
import pytest

from tests.support import mariadb as mariadb_support
from tests.support.mariadb import (
    DUMMY_DB,
    PW_PASSWORD,
    PW_USER,
    RO_PASSWORD,
    RO_USER,
    GeneralLogEntry,
    MariaDB,
    MariaDBError,
    parse_general_log,
)

pytestmark = pytest.mark.requires_mariadbd

ER_ACCESS_DENIED = 1045
ER_SPECIFIC_ACCESS_DENIED = 1227


def test_default_instance_answers_on_its_own_port(mariadb: MariaDB) -> None:
    ((version, port, bind),) = mariadb.query("SELECT @@version, @@port, @@bind_address")
    assert "MariaDB" in version
    assert port == mariadb.port != 3306
    assert bind == "127.0.0.1"
    assert mariadb.startup_seconds is not None and mariadb.startup_seconds > 0  # recorded; how fast is the machine's business
    assert mariadb.datadir.is_dir() and os.path.exists(mariadb.socket)


@pytest.mark.parametrize(
    "options",
    [
        {"sort-buffer-size": "32M", "innodb_log_file_size": "48M"},
        ["--sort-buffer-size=32M", "innodb-log-file-size=48M"],
    ],
    ids=["mapping", "list"],
)
def test_per_test_options_reach_the_server(mariadb_factory, options) -> None:
    db = mariadb_factory(options=options)
    assert db.query("SELECT @@sort_buffer_size, @@innodb_log_file_size") == ((33554432, 50331648),)


def test_reserved_option_is_refused() -> None:
    with pytest.raises(ValueError, match="port"):
        MariaDB(options={"port": 3306})


def test_tls_instance_negotiates_a_cipher(mariadb_factory, tls_certs) -> None:
    db = mariadb_factory(tls=tls_certs)
    conn = db.connect(ssl=tls_certs.client_ssl())
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
            ((_, cipher),) = cur.fetchall()
            cur.execute("SELECT @@have_ssl")
            ((have_ssl,),) = cur.fetchall()
    finally:
        conn.close()
    assert cipher
    assert have_ssl == "YES"


def test_plain_instance_has_no_tls(mariadb: MariaDB) -> None:
    assert mariadb.query("SELECT @@have_ssl") != (("YES",),)


def test_general_log_captures_statements(mariadb_factory) -> None:
    db = mariadb_factory(general_log=True)
    conn = db.connect(autocommit=None)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT CONNECTION_ID()")
            ((thread_id,),) = cur.fetchall()
            cur.execute("SELECT 'marker',\n  @@version")
    finally:
        conn.close()
    mine = db.general_log_statements(thread_id=thread_id)
    assert mine[0][0] == "Connect"
    assert ("Query", "SELECT 'marker',\n  @@version") in mine
    assert ("Query", "SELECT CONNECTION_ID()") in db.general_log_statements()
    # the readiness probe's connection is not in the list
    assert not any("@@socket" in argument for _, argument in db.general_log_statements())


def test_parse_general_log_sample() -> None:
    # Captured from mariadbd 10.11.19 with --general-log=1 (tabs as written by the server).
    text = (
        "mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:\n"
        "Tcp port: 33991  Unix socket: /tmp/tdd/s.sock\n"
        "Time\t\t    Id Command\tArgument\n"
        "261130  2:17:03\t     3 Connect\troot@127.0.0.1 on  using TCP/IP\n"
        "\t\t     3 Query\tselect 1\n"
        "\t\t     5 Query\tSELECT 1,\n"
        " 'two lines'\n"
        "\t\t     5 Init DB\tmysql\n"
        "\t\t     3 Quit\t\n"
    )
    assert parse_general_log(text) == [
        GeneralLogEntry(3, "Connect", "root@127.0.0.1 on  using TCP/IP"),
        GeneralLogEntry(3, "Query", "select 1"),
        GeneralLogEntry(5, "Query", "SELECT 1,\n 'two lines'"),
        GeneralLogEntry(5, "Init DB", "mysql"),
        GeneralLogEntry(3, "Quit", ""),
    ]


def test_kill_makes_the_next_query_fail(mariadb: MariaDB) -> None:
    conn = mariadb.connect()
    mariadb.kill()
    assert not mariadb.running
    assert mariadb.process is not None and mariadb.process.returncode == -9
    with pytest.raises(pymysql.OperationalError), conn.cursor() as cur:
        cur.execute("SELECT 1")
    with pytest.raises(pymysql.OperationalError):
        mariadb.connect(connect_timeout=2)


def test_stop_is_graceful_and_close_removes_everything(mariadb_factory) -> None:
    db = mariadb_factory()
    workdir = db.dir
    db.stop()
    assert db.process is not None and db.process.returncode == 0
    assert "Shutdown complete" in db.error_log.read_text()
    db.close()
    assert workdir is not None and not workdir.exists()


def test_read_only_user_lacks_process(mariadb: MariaDB) -> None:
    assert mariadb.query(f"SELECT COUNT(*) FROM {DUMMY_DB}.t", user=RO_USER, password=RO_PASSWORD) == ((1,),)
    grants = " ".join(row[0] for row in mariadb.query("SHOW GRANTS", user=RO_USER, password=RO_PASSWORD))
    assert "PROCESS" not in grants
    with pytest.raises(pymysql.OperationalError) as denied:
        mariadb.query("SHOW ENGINE INNODB STATUS", user=RO_USER, password=RO_PASSWORD)
    assert denied.value.args[0] == ER_SPECIFIC_ACCESS_DENIED


def test_password_user_needs_its_password(mariadb: MariaDB) -> None:
    assert mariadb.query("SELECT CURRENT_USER()", user=PW_USER, password=PW_PASSWORD) == ((f"{PW_USER}@%",),)
    with pytest.raises(pymysql.OperationalError) as denied:
        mariadb.connect(user=PW_USER, password="wrong")
    assert denied.value.args[0] == ER_ACCESS_DENIED


def test_root_logs_in_over_tcp_and_socket(mariadb: MariaDB) -> None:
    assert mariadb.query("SELECT CURRENT_USER()") in ((("root@127.0.0.1",),), (("root@%",),))
    assert mariadb.query("SELECT CURRENT_USER()", host=None, port=0, unix_socket=mariadb.socket) == (
        ("root@localhost",),
    )


def test_two_instances_at_once(mariadb_factory) -> None:
    first = mariadb_factory()
    second = mariadb_factory(options={"max-connections": 77})
    assert first.port != second.port
    assert first.datadir != second.datadir
    assert first.query("SELECT @@port, @@max_connections") == ((first.port, 151),)
    assert second.query("SELECT @@port, @@max_connections") == ((second.port, 77),)


def test_bad_option_fails_with_the_error_log_and_cleans_up() -> None:
    db = MariaDB(options={"no-such-option": "1"})
    with pytest.raises(MariaDBError, match="unknown variable 'no-such-option=1'"):
        db.start()
    assert db.dir is not None and not db.dir.exists()
    assert not db.running


def test_port_taken_before_the_bind_is_retried_on_a_new_port(mariadb_factory, monkeypatch) -> None:
    with socket.create_server(("127.0.0.1", 0)) as squatter:
        taken = squatter.getsockname()[1]
        ports = iter([taken])
        real_free_port = mariadb_support._free_port
        monkeypatch.setattr(mariadb_support, "_free_port", lambda host: next(ports, None) or real_free_port(host))
        db = mariadb_factory()
        assert db.port != taken
        assert db.query("SELECT @@port") == ((db.port,),)
        assert "Address already in use" in db._path("error.port-clash-1.log").read_text()

        with pytest.raises(MariaDBError, match="Address already in use"):
            mariadb_factory(port=taken)


def test_skip_networking_instance_is_reached_over_its_socket(mariadb_factory) -> None:
    db = mariadb_factory(options={"skip-networking": True})
    assert db.query("SELECT @@skip_networking, CURRENT_USER()") == ((1, "root@localhost"),)
