"""How the TLS mode and the transport are chosen from the command line and the option files, as
the mysql and mariadb clients choose them (advisor.collect.connection._ssl_mode, _protocol), and
that every command that connects takes --ssl, --skip-ssl, --ssl-verify-server-cert and --protocol.
The live half (real TLS servers, the real mariadb client beside) is tests/integration/test_tls_verify.py."""

from __future__ import annotations

import pytest

from advisor.collect.connection import ConnectionOptions, resolve, unverified_ca
from advisor.errors import UsageError
from tests.support.cli import assert_one_paragraph_error, invoke

CONNECTING = ("audit", "collect", "calibrate", "checklist", "watch", "mycnf")


@pytest.fixture
def ca(tmp_path):
    f = tmp_path / "ca.pem"
    f.write_text("not read before connecting\n")
    return str(f)


def mode(tmp_path, cnf: str = "", **kw):
    f = tmp_path / "my.cnf"
    f.write_text(f"[client]\n{cnf}\n")
    ep = resolve(ConnectionOptions(host="db1", defaults_file=str(f), **kw), env={})
    return ep.ssl_mode, ep.ssl_mode_why


def test_command_line(tmp_path, ca):
    assert mode(tmp_path) == ("PREFERRED", "the default")
    assert mode(tmp_path, ssl_ca=ca) == ("VERIFY_CA", "--ssl-ca without ssl-mode")
    assert mode(tmp_path, ssl=True) == ("REQUIRED", "--ssl")
    assert mode(tmp_path, ssl=True, ssl_ca=ca)[0] == "VERIFY_CA"
    assert mode(tmp_path, ssl=False, ssl_ca=ca) == ("DISABLED", "--skip-ssl")
    assert mode(tmp_path, ssl_verify_server_cert=True, ssl_ca=ca) == ("VERIFY_IDENTITY", "--ssl-verify-server-cert")
    assert mode(tmp_path, ssl_mode="required", ssl_ca=ca) == ("REQUIRED", "--ssl-mode")  # explicit: MySQL keeps it


def test_option_files(tmp_path, ca):
    f = str(tmp_path / "my.cnf")
    assert mode(tmp_path, f"ssl-ca = {ca}") == ("VERIFY_CA", f"ssl-ca ({f}:2) without ssl-mode")
    assert mode(tmp_path, f"ssl-ca = {ca}\nssl-verify-server-cert") == ("VERIFY_IDENTITY", f"ssl-verify-server-cert ({f}:3)")
    assert mode(tmp_path, f"ssl-ca = {ca}\nssl_verify_server_cert = 1")[0] == "VERIFY_IDENTITY"
    assert mode(tmp_path, f"ssl-ca = {ca}\nssl-verify-server-cert\nskip-ssl-verify-server-cert")[0] == "VERIFY_CA"
    assert mode(tmp_path, "ssl")[0] == "REQUIRED"
    assert mode(tmp_path, "ssl\nskip-ssl")[0] == "DISABLED"  # the last line wins, whichever spelling
    assert mode(tmp_path, "skip-ssl\nssl")[0] == "REQUIRED"
    assert mode(tmp_path, f"ssl-mode = REQUIRED\nssl-ca = {ca}")[0] == "REQUIRED"


def test_command_line_beats_option_files(tmp_path, ca):
    assert mode(tmp_path, "skip-ssl", ssl_ca=ca)[0] == "VERIFY_CA"   # --ssl-ca implies --ssl
    assert mode(tmp_path, "ssl-mode = DISABLED", ssl=True)[0] == "REQUIRED"
    assert mode(tmp_path, f"ssl-ca = {ca}\nssl-verify-server-cert", ssl=False)[0] == "DISABLED"
    assert mode(tmp_path, f"ssl-ca = {ca}", ssl_verify_server_cert=True)[0] == "VERIFY_IDENTITY"


def test_verifying_without_a_ca_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match=r"VERIFY_IDENTITY \(--ssl-verify-server-cert\) needs --ssl-ca"):
        mode(tmp_path, ssl_verify_server_cert=True)
    with pytest.raises(UsageError, match=r"VERIFY_IDENTITY \(ssl-verify-server-cert \(.*my.cnf:2\)\) needs --ssl-ca"):
        mode(tmp_path, "ssl-verify-server-cert")


def test_explicit_mode_below_verify_ca_with_a_ca_warns(tmp_path, ca):
    f = tmp_path / "my.cnf"
    f.write_text("[client]\n")
    note = unverified_ca(ConnectionOptions(host="h", ssl_mode="REQUIRED", ssl_ca=ca, defaults_file=str(f)), env={})
    assert note and "no verification of the server's certificate" in note
    assert unverified_ca(ConnectionOptions(host="h", ssl_ca=ca, defaults_file=str(f)), env={}) is None


def test_protocol(tmp_path):
    sock = tmp_path / "s.sock"
    sock.write_text("")
    f = tmp_path / "my.cnf"
    f.write_text("[client]\n")
    opts = dict(defaults_file=str(f))
    ep = resolve(ConnectionOptions(host="localhost", protocol="tcp", **opts), env={"MYSQL_UNIX_PORT": str(sock)})
    assert (ep.transport, ep.host) == ("tcp", "127.0.0.1")
    ep = resolve(ConnectionOptions(host="db1", port=3307, protocol="SOCKET", socket=str(sock), **opts), env={})
    assert ep.transport == "socket" and ep.socket == str(sock)
    for bad, words in (("pipe", "--protocol PIPE is a Windows transport"), ("memory", "--protocol MEMORY"),
                       ("udp", "--protocol 'udp' is not TCP or SOCKET")):
        with pytest.raises(UsageError, match=words):
            resolve(ConnectionOptions(host="db1", protocol=bad, **opts), env={})
    f.write_text("[client]\nprotocol = pipe\n")
    with pytest.raises(UsageError, match=r"protocol \(.*my.cnf:2\) PIPE"):
        resolve(ConnectionOptions(host="db1", **opts), env={})


@pytest.mark.parametrize("command", CONNECTING)
def test_every_connecting_command_takes_the_options(command):
    p = invoke(command, "--help", env={"COLUMNS": "200"})
    assert p.returncode == 0, p.stderr
    for opt in ("--ssl", "--skip-ssl", "--ssl-verify-server-cert", "--protocol"):
        assert opt in p.stdout, (command, opt)
    p = invoke(command, "--no-defaults", "-h", "127.0.0.1", "--ssl", "--ssl-verify-server-cert", "--protocol", "pipe")
    assert p.returncode == 2, p.stderr
    assert_one_paragraph_error(p.stderr)
    assert "--protocol PIPE is a Windows transport" in p.stderr
    p = invoke(command, "--no-defaults", "-h", "127.0.0.1", "--ssl-verify-server-cert")
    assert p.returncode == 2, p.stderr
    assert_one_paragraph_error(p.stderr)
    assert "VERIFY_IDENTITY (--ssl-verify-server-cert) needs --ssl-ca" in p.stderr


def test_compare_and_verify_take_them_too():
    for command in ("compare", "verify", "fleet"):
        p = invoke(command, "--help", env={"COLUMNS": "200"})
        assert p.returncode == 0, p.stderr
        assert all(o in p.stdout for o in ("--ssl", "--skip-ssl", "--ssl-verify-server-cert", "--protocol")), command
