"""The mysql client's habits (issue 18 §2): option files in the client's order (against
`my_print_defaults`), the login-path file, the environment, Percona DSNs, the [advisor] group,
-p without a value, and errors that say what happened. The live checks (a prompt on a pty, a
UTF-8 password) are in tests/integration/test_client_live.py."""

from __future__ import annotations

import ast
import json
import os
import socket
import struct
import subprocess
from pathlib import Path

import pytest

from advisor.collect.clientopts import (DEFAULT_SEARCH, decrypt_login_file, encrypt_login_file, parse_dsn,
                                        read_client_files, search_list)
from advisor.collect.connection import ConnectionOptions, connect, resolve
from advisor.commands.options import expand_bare_password
from advisor.errors import ConnectError, UsageError
from advisor.optionfile import read_option_files
from tests.support.cli import assert_one_paragraph_error, invoke, invoke_json
from tests.support.tools import require_tool

SRC = Path(__file__).resolve().parents[2] / "src" / "advisor"


def _mpd(*args: str, env: dict[str, str]) -> list[str]:
    p = subprocess.run([require_tool("my_print_defaults"), *args], capture_output=True, text=True, env=env, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def _lines(paths: list[str], groups: tuple[str, ...]) -> list[str]:
    f = read_option_files(paths)
    return [f"--{o.written}" + ("" if o.value is None else f"={o.value}") for o in f.options if o.group in groups]


# ---------------------------------------------------------------- the order of the files

def test_the_default_list_is_the_one_my_print_defaults_prints():
    text = subprocess.run([require_tool("my_print_defaults"), "--help"], capture_output=True, text=True,
                          timeout=30).stdout
    listed = text.split("in the given order:", 1)[1].split("\n\n", 1)[0].split()
    assert [e for e in DEFAULT_SEARCH if e and not e.startswith("$")] == listed


@pytest.mark.parametrize("home_var", ["MYSQL_HOME", "MARIADB_HOME"])
def test_file_order_matches_my_print_defaults(tmp_path, home_var):
    """/etc files, $MYSQL_HOME/my.cnf, --defaults-extra-file, ~/.my.cnf: each sets [advisor] who=..., a
    group no system file has, so the real /etc files (read, never written) add nothing to it."""
    home, mh = tmp_path / "home", tmp_path / "mh"
    home.mkdir(), mh.mkdir()
    (home / ".my.cnf").write_text("[advisor]\nwho=home\nhome_only=1\n")
    (mh / "my.cnf").write_text("[advisor]\nwho=mysql_home\nmh_only=1\n")
    extra = tmp_path / "extra.cnf"
    extra.write_text("[advisor]\nwho=extra\nextra_only=1\n")
    env = {"HOME": str(home), home_var: str(mh), "PATH": os.environ["PATH"]}
    theirs = _mpd(f"--defaults-extra-file={extra}", "advisor", env=env)
    ours = _lines(search_list(str(extra), env, str(home)), ("advisor",))
    assert ours == theirs
    assert ours == ["--who=mysql_home", "--mh_only=1", "--who=extra", "--extra_only=1", "--who=home", "--home_only=1"]


def test_this_machines_option_files_read_as_the_client_reads_them(tmp_path):
    """The real /etc/my.cnf and /etc/mysql/my.cnf (and what they include), read-only."""
    env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    groups = ("client", "client-server", "client-mariadb", "mysql", "mariadb-client")
    assert _lines(search_list(None, env, str(tmp_path)), groups) == _mpd(*groups, env=env)


def test_search_list_is_injectable_and_later_files_win(tmp_path):
    a, b = tmp_path / "etc-my.cnf", tmp_path / "home.cnf"
    a.write_text("[client]\nuser=from_etc\nport=3307\n")
    b.write_text("[mysql]\nuser=from_home\n")
    files = read_client_files(env={"HOME": str(tmp_path)}, search=(str(a), "~/missing.cnf", str(b)))
    assert files.values["user"].value == "from_home" and files.values["port"].value == "3307"
    assert files.files == [str(a), str(b)]
    ep = resolve(ConnectionOptions(host="h", search=(str(a), str(b))), env={"HOME": str(tmp_path)})
    assert (ep.user, ep.port) == ("from_home", 3307)


def test_defaults_file_reads_that_file_only_and_no_defaults_none(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".my.cnf").write_text("[client]\nuser=home\n")
    only = tmp_path / "only.cnf"
    only.write_text("[client]\nuser=only\n")
    env, mine = {"HOME": str(home)}, ("", "~/.my.cnf")  # hermetic: not this machine's /etc files
    assert read_client_files(env=env, search=mine).values["user"].value == "home"
    assert read_client_files(defaults_file=str(only), env=env, search=mine).values["user"].value == "only"
    assert read_client_files(no_defaults=True, env=env, search=mine).values == {}
    assert read_client_files(defaults_extra_file=str(only), env=env, search=mine).values["user"].value == "home"


def test_an_include_loop_stops_the_client_with_one_clear_error(tmp_path):
    for name in "abcd":
        (tmp_path / f"{name}.cnf").write_text(f"[client]\nuser={name}\n!includedir {tmp_path}\n")
    with pytest.raises(UsageError) as e:
        read_client_files(defaults_file=str(tmp_path / "a.cnf"), env={"HOME": str(tmp_path)})
    text = str(e.value)
    assert "include cycle" in text and str(tmp_path / "a.cnf") in text and "Tip:" in text
    p = invoke("audit", "--defaults-file", str(tmp_path / "a.cnf"), "-h", "127.0.0.1")
    assert p.returncode == 2 and "include cycle" in p.stderr
    assert_one_paragraph_error(p.stderr)


def test_a_malformed_option_file_is_a_usage_error_naming_the_line(tmp_path):
    f = tmp_path / "bad.cnf"
    f.write_text("[client]\n[client\nuser=x\n")
    p = invoke("audit", "--defaults-file", str(f), "-h", "127.0.0.1")
    assert p.returncode == 2 and f"{f}:2" in p.stderr and "Tip:" in p.stderr


# ---------------------------------------------------------------- the login-path file

def _login_file_by_hand(path: Path, text: str, key: bytes, mode: int = 0o600) -> None:
    """The layout mysql_config_editor writes, built here independently of advisor's writer: 4 zero
    bytes, a 20-byte key, then per line its AES-128-ECB cipher (key XOR-folded to 16 bytes, PKCS#7)
    after a 4-byte little-endian length."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    folded = bytearray(16)
    for i in range(20):
        folded[i % 16] ^= key[i]
    out = b"\0\0\0\0" + key
    for line in text.splitlines(keepends=True):
        padder = padding.PKCS7(128).padder()
        plain = padder.update(line.encode()) + padder.finalize()
        enc = Cipher(algorithms.AES(bytes(folded)), modes.ECB()).encryptor()
        cipher = enc.update(plain) + enc.finalize()
        out += struct.pack("<i", len(cipher)) + cipher
    path.write_bytes(out)
    path.chmod(mode)


LOGIN_TEXT = '[client]\nuser = "login_client"\n[remote]\nhost = "db9.example"\nuser = "login_remote"\npassword = "pa\\"ss"\nport = 3310\n'
KEY = bytes(range(7, 27))


def test_login_file_decrypts(tmp_path):
    f = tmp_path / ".mylogin.cnf"
    _login_file_by_hand(f, LOGIN_TEXT, KEY)
    assert decrypt_login_file(f.read_bytes()) == LOGIN_TEXT
    assert encrypt_login_file(LOGIN_TEXT, KEY) == f.read_bytes()
    with pytest.raises(ValueError):
        decrypt_login_file(f.read_bytes()[:-3])


def test_login_path_group_wins_over_my_cnf_and_is_read_even_with_no_defaults(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".my.cnf").write_text("[client]\nuser=mycnf\nhost=db1\n")
    _login_file_by_hand(home / ".mylogin.cnf", LOGIN_TEXT, KEY)
    env, mine = {"HOME": str(home)}, ("~/.my.cnf",)
    ep = resolve(ConnectionOptions(login_path="remote", search=mine), env=env)
    assert (ep.host, ep.user, ep.password, ep.port) == ("db9.example", "login_remote", 'pa"ss', 3310)
    assert ep.password_source == f"option file ({home / '.mylogin.cnf'}:6)"
    assert resolve(ConnectionOptions(search=mine), env=env).user == "login_client"  # the login file is read last
    assert resolve(ConnectionOptions(no_defaults=True, login_path="remote"), env=env).host == "db9.example"
    assert resolve(ConnectionOptions(login_path="remote", user="cli", search=mine), env=env).user == "cli"


def test_login_file_from_the_environment_and_its_permissions(tmp_path):
    f = tmp_path / "elsewhere.cnf"
    _login_file_by_hand(f, LOGIN_TEXT, KEY, mode=0o644)
    env = {"HOME": str(tmp_path), "MYSQL_TEST_LOGIN_FILE": str(f)}
    files = read_client_files(login_path="remote", env=env, search=())
    assert files.values == {} and "readable and writable only by its owner" in files.warnings[0]
    f.chmod(0o600)
    assert read_client_files(login_path="remote", env=env, search=()).values["host"].value == "db9.example"
    f.write_bytes(b"\0\0\0\0" + KEY + struct.pack("<i", 16) + b"x" * 16)
    with pytest.raises(UsageError, match="not one mysql_config_editor wrote"):
        read_client_files(env=env, search=())


def test_login_path_that_names_no_group_is_a_warning(tmp_path):
    _login_file_by_hand(tmp_path / ".mylogin.cnf", LOGIN_TEXT, KEY)
    p = invoke("audit", "--demo", "--login-path", "nosuch", "-f", "json", env={"HOME": str(tmp_path)})
    assert p.returncode == 0 and "advisor: warning: --login-path nosuch: no [nosuch] group" in p.stderr


# ---------------------------------------------------------------- environment and DSNs

def test_environment_variables_below_option_files_below_the_command_line(tmp_path):
    sock = tmp_path / "env.sock"
    sock.write_text("")
    env = {"HOME": str(tmp_path), "MYSQL_HOST": "envhost", "MYSQL_TCP_PORT": "3399", "MYSQL_UNIX_PORT": str(sock)}
    ep = resolve(ConnectionOptions(no_defaults=True), env=env)
    assert (ep.host, ep.port, ep.transport) == ("envhost", 3399, "tcp")
    ep = resolve(ConnectionOptions(no_defaults=True), env={**env, "MYSQL_HOST": "localhost", "MYSQL_TCP_PORT": ""})
    assert ep.socket == str(sock)
    f = tmp_path / "my.cnf"
    f.write_text("[client]\nhost=filehost\nport=3311\n")
    ep = resolve(ConnectionOptions(defaults_file=str(f)), env=env)
    assert (ep.host, ep.port) == ("filehost", 3311)
    ep = resolve(ConnectionOptions(defaults_file=str(f), host="clihost", port=3312), env=env)
    assert (ep.host, ep.port) == ("clihost", 3312)


def test_percona_dsn(tmp_path):
    assert parse_dsn(r"h=db1,P=3307,u=app,p=a\,b,S=/tmp/s.sock,F=/etc/x.cnf,D=test") == {
        "host": "db1", "port": "3307", "user": "app", "password": "a,b", "socket": "/tmp/s.sock",
        "defaults_file": "/etc/x.cnf"}
    with pytest.raises(UsageError, match="not a DSN part") as e:
        parse_dsn("h=db1,p=Tok-Secret,X=1")
    assert "Tip:" in str(e.value) and "'X'" in str(e.value) and "Tok-Secret" not in str(e.value)
    f = tmp_path / "app.cnf"
    f.write_text("[client]\nuser=fromfile\npassword=filepw\n")
    ep = resolve(ConnectionOptions(host=f"h=127.0.0.1,P=3390,F={f}"), env={"HOME": str(tmp_path)})
    assert (ep.host, ep.port, ep.user, ep.password) == ("127.0.0.1", 3390, "fromfile", "filepw")
    ep = resolve(ConnectionOptions(host="h=127.0.0.1,u=dsnuser", port=3391, no_defaults=True), env={})
    assert (ep.user, ep.port) == ("dsnuser", 3391)


def test_fleet_targets_take_dsns():
    from advisor.inventory import parse

    t1, t2 = parse("h=db1,P=3307,u=app\nh=db2,P=3308,u=app,S=/run/db2.sock\n")
    assert (t1.host, t1.port, t1.user, t1.socket) == ("db1", 3307, "app", None)
    assert (t2.host, t2.port, t2.user, t2.socket) == ("db2", 3308, "app", "/run/db2.sock")
    (t3,) = parse("app@db3:3309\n")
    assert (t3.host, t3.port, t3.user) == ("db3", 3309, "app")
    with pytest.raises(UsageError, match="targets:1"):
        parse("h=db1,Q=2\n")
    (t,) = parse("h=db1,u=app,p=Tok-Secret\n")
    assert t.password == "Tok-Secret" and "Tok-Secret" not in t.text and "Tok-Secret" not in repr(t)


# ---------------------------------------------------------------- the [advisor] group

def test_advisor_group_gives_defaults_the_command_line_overrides(tmp_path):
    f = tmp_path / "my.cnf"
    f.write_text("[client]\nuser=x\n[advisor]\npurpose = benchmark\nformat = json\nfail-on = info\n"
                 "ignore = flush-method-fsync,sort-buffer-oversized\nsurprise = 1\n")
    p = invoke("audit", "--demo", "--defaults-file", str(f))
    doc = json.loads(p.stdout)
    assert doc["purpose"] == "benchmark" and p.returncode == 1  # fail-on info, and the demo has findings
    fired = {f["rule"] for f in doc["findings"]}
    assert "flush-method-fsync" not in fired and "sort-buffer-oversized" not in fired and fired
    assert f"advisor: warning: {f}:8: [advisor] surprise is not an advisor option" in p.stderr
    code, doc, err = invoke_json("audit", "--demo", "--defaults-file", str(f), "--purpose", "production", "--fail-on",
                                 "critical")
    assert doc["purpose"] == "production"
    p = invoke("audit", "--demo", "--no-defaults", "-f", "json")
    assert json.loads(p.stdout)["purpose"] == "production" and p.stderr == ""


def test_advisor_group_value_the_option_does_not_take_is_a_warning(tmp_path):
    f = tmp_path / "my.cnf"
    f.write_text("[advisor]\nformat = yaml\npurpose = benchmark\n")
    p = invoke("audit", "--demo", "--defaults-file", str(f))
    assert p.returncode == 0 and "purpose: benchmark" in p.stdout
    assert f"{f}:2: [advisor] format = yaml is ignored: audit's --format takes one of text, json" in p.stderr


def test_quiet_silences_warnings(tmp_path):
    f = tmp_path / "my.cnf"
    f.write_text("[advisor]\nsurprise = 1\n")
    assert "warning" in invoke("audit", "--demo", "--defaults-file", str(f)).stderr
    for args in (("audit", "--demo", "--defaults-file", str(f), "--quiet"), ("-q", "audit", "--demo", "--defaults-file", str(f))):
        p = invoke(*args)
        assert p.returncode == 0 and p.stderr == "" and "advisor audit" in p.stdout


# ---------------------------------------------------------------- passwords and errors

def test_bare_p_asks_as_mysql_does():
    assert expand_bare_password(["audit", "-p"]) == ["audit", "--ask-password"]
    assert expand_bare_password(["audit", "-p", "-h", "db"]) == ["audit", "--ask-password", "-h", "db"]
    assert expand_bare_password(["audit", "--password", "--no-defaults"]) == ["audit", "--ask-password", "--no-defaults"]
    assert expand_bare_password(["audit", "-psecret", "--password=x", "-p", "word"]) == \
        ["audit", "-psecret", "--password=x", "-p", "word"]
    p = invoke("audit", "-h", "127.0.0.1", "-P", "1", "--no-defaults", "-p")  # no terminal, empty input
    assert p.returncode == 2 and "none was typed" in p.stderr and "Option '-p' requires an argument" not in p.stderr


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_password_on_the_command_line_warns_once_and_a_refusal_says_refused():
    p = invoke("audit", "-h", "127.0.0.1", "-P", str(_closed_port()), "--no-defaults", "--password", "Tok-Secret",
               "--connect-timeout", "5")
    assert p.returncode == 3
    warnings = [ln for ln in p.stderr.splitlines() if ln.startswith("advisor: warning:")]
    assert len(warnings) == 1 and "command line" in warnings[0] and "--ask-password" in warnings[0]
    err = p.stderr.splitlines()[-1]
    assert "refused after" in err and "connect-timeout" not in err and "Tok-Secret" not in p.stderr


def test_a_refusal_is_not_reported_as_a_timeout():
    ep = resolve(ConnectionOptions(host="127.0.0.1", port=_closed_port(), no_defaults=True, connect_timeout=5), env={})
    with pytest.raises(ConnectError) as e:
        connect(ep)
    assert "refused after" in str(e.value) and " ms" in str(e.value) and "gave up" not in str(e.value)


def test_every_usage_error_has_a_tip():
    """Each UsageError names what to do. mycnf/ is left to its owners for now (advisor.cli adds the
    command's --help as the Tip to any error raised without one)."""
    missing = []
    for path in sorted(p for p in SRC.rglob("*.py") if "mycnf" not in p.parts):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "UsageError":
                tip = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "tip"), None)
                if tip is None or (isinstance(tip, ast.Constant) and not tip.value):
                    missing.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert missing == []


def test_a_listener_that_never_greets_is_not_called_a_refusal():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    try:
        ep = resolve(ConnectionOptions(host="127.0.0.1", port=srv.getsockname()[1], no_defaults=True,
                                       connect_timeout=0.5), env={})
        with pytest.raises(ConnectError) as e:
            connect(ep)
    finally:
        srv.close()
    assert "TCP connected, but no MySQL greeting came within --connect-timeout 0.5 s" in str(e.value)
    assert "refused" not in str(e.value)



def test_client_group_spellings_of_tls_and_protocol(tmp_path):
    sock = tmp_path / "s.sock"
    sock.write_text("")
    env = {"HOME": str(tmp_path), "MYSQL_UNIX_PORT": str(sock)}
    for text, mode in (("skip-ssl", "DISABLED"), ("ssl = 0", "DISABLED"), ("loose-ssl-mode = required", "REQUIRED"),
                       ("ssl_mode=VERIFY_CA\nssl-ca=" + str(sock), "VERIFY_CA"), ("user = x", "PREFERRED")):
        f = tmp_path / "my.cnf"
        f.write_text(f"[client]\n{text}\n")
        assert resolve(ConnectionOptions(defaults_file=str(f), host="h"), env=env).ssl_mode == mode, text
    f.write_text("[client]\nprotocol = TCP\n")
    assert resolve(ConnectionOptions(defaults_file=str(f)), env=env).transport == "tcp"
    f.write_text("[client]\n")
    assert resolve(ConnectionOptions(defaults_file=str(f)), env=env).socket == str(sock)
