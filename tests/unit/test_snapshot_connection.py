import json

import pytest

from advisor.collect.clientopts import read_client_files
from advisor.collect.connection import ConnectionOptions, resolve
from advisor.errors import SnapshotError, UsageError
from advisor.snapshot import load_snapshot
from advisor import api


def test_demo_snapshot_round_trips_exactly():
    snap = api.demo_snapshot()
    text = snap.to_json()
    again = load_snapshot(text)
    assert again == snap
    assert again.to_json() == text


def test_truncated_snapshot_is_a_clear_error():
    text = api.demo_snapshot().to_json()
    with pytest.raises(SnapshotError) as e:
        load_snapshot(text[: len(text) // 2], "s.json")
    assert "s.json is not valid JSON" in str(e.value) and "Tip:" in str(e.value)


def test_wrong_schema_version_and_wrong_field():
    doc = json.loads(api.demo_snapshot().to_json())
    doc["schema_version"] = 99
    with pytest.raises(SnapshotError, match="schema_version 99"):
        load_snapshot(json.dumps(doc))
    doc["schema_version"] = 1
    doc["target"]["flavor"] = "oracle"
    with pytest.raises(SnapshotError, match="target.flavor"):
        load_snapshot(json.dumps(doc))


def test_option_file_syntax(tmp_path):
    """The client reads option files through the one reader mycnf uses (advisor.optionfile)."""
    inc = tmp_path / "conf.d"
    inc.mkdir()
    (inc / "x.cnf").write_text("[client]\nport = 3307\n")
    f = tmp_path / "my.cnf"
    f.write_text(f"""# comment
[client]
user = app
password = "pa ss#wo\\"rd"
ssl_mode=REQUIRED
host = db1 # trailing comment
!includedir {inc}
loose-socket = /tmp/x.sock
[mysqld]
port = 9999
""")
    files = read_client_files(defaults_file=str(f), env={"HOME": str(tmp_path)})
    c = {k: s.value for k, s in files.values.items()}
    assert c == {"user": "app", "password": 'pa ss#wo"rd', "ssl-mode": "REQUIRED", "host": "db1", "port": "3307",
                 "socket": "/tmp/x.sock"}
    assert files.values["port"].where == f"{inc / 'x.cnf'}:2"


def test_precedence_cli_over_file_over_env(tmp_path):
    f = tmp_path / "my.cnf"
    f.write_text("[client]\nuser=fileuser\npassword=filepw\nhost=127.0.0.1\nport=3310\n[advisor]\nssl-mode=DISABLED\n")
    ep = resolve(ConnectionOptions(defaults_file=str(f)), env={"MYSQL_PWD": "envpw"})
    assert (ep.user, ep.password, ep.port, ep.ssl_mode, ep.password_source) == ("fileuser", "filepw", 3310, "DISABLED",
                                                                              f"option file ({f}:3)")
    ep = resolve(ConnectionOptions(defaults_file=str(f), user="cli", password="clipw", port=3320), env={})
    assert (ep.user, ep.password, ep.port) == ("cli", "clipw", 3320)
    ep = resolve(ConnectionOptions(host="127.0.0.1", no_defaults=True), env={"MYSQL_PWD": "envpw", "USER": "u"})
    assert ep.password == "envpw" and ep.password_source == "MYSQL_PWD" and ep.user == "u"
    assert "envpw" not in repr(ep)


def test_bad_options_are_usage_errors(tmp_path):
    with pytest.raises(UsageError):
        resolve(ConnectionOptions(host="h", ssl_mode="MAYBE", no_defaults=True), env={})
    with pytest.raises(UsageError):
        resolve(ConnectionOptions(host="h", ssl_mode="VERIFY_CA", no_defaults=True), env={})
    with pytest.raises(UsageError):
        resolve(ConnectionOptions(defaults_file=str(tmp_path / "none.cnf")), env={})
    with pytest.raises(UsageError):
        resolve(ConnectionOptions(host="h", port=70000, no_defaults=True), env={})


def test_localhost_without_port_prefers_socket(tmp_path):
    sock = tmp_path / "s.sock"
    sock.write_text("")
    ep = resolve(ConnectionOptions(socket=str(sock), no_defaults=True), env={})
    assert ep.transport == "socket"
    ep = resolve(ConnectionOptions(host="localhost", port=3306, no_defaults=True), env={})
    assert ep.transport == "tcp"
