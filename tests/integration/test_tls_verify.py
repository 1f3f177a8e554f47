"""TLS verification against real throwaway mariadbd servers and real certificates (openssl).

Each case is what a user who names a CA (or asks for the host name to be checked) expects, and
where it is cheap the real `mariadb` client is run on the same server beside the advisor:
- a CA that did not sign the server's certificate: refused (exit 3), as `mariadb --ssl-ca` refuses it;
- the right CA: connected, and the snapshot says VERIFY_CA (--ssl-ca without --ssl-mode);
- a certificate that does not name the host, with --ssl-verify-server-cert (or the option file's
  ssl-verify-server-cert): refused, as `mariadb --ssl-verify-server-cert` refuses it;
- a server without TLS and --ssl-ca: refused before the login (MySQL's VERIFY_CA rule; the
  mariadb 10.11 client falls back to plain text there, which a named CA must not allow);
  with --skip-ssl: connected without TLS.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.support.certs import make_certs
from tests.support.cli import assert_one_paragraph_error, run_cli

pytestmark = pytest.mark.requires_mariadbd


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory):
    """A second CA: it signed nothing the servers present."""
    return make_certs(tmp_path_factory.mktemp("other-ca"))


@pytest.fixture(scope="module")
def named_certs(tmp_path_factory):
    """A server certificate for db.example.test only: 127.0.0.1 is not in it."""
    return make_certs(tmp_path_factory.mktemp("named"), cn="db.example.test", san=("db.example.test",))


def collect(db, tmp_path, *args: str):
    """`advisor collect` over TCP; (exit status, the snapshot's connection or None, stderr)."""
    out = tmp_path / "snap.json"
    p = run_cli("collect", "--no-defaults", "-h", "127.0.0.1", "-P", str(db.port), "-u", "root", *args,
                "-o", str(out), timeout=120)
    conn = json.loads(out.read_text())["server"]["connection"] if p.returncode == 0 else None
    return p.returncode, conn, p.stderr


def mariadb_client(db, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([shutil.which("mariadb") or "mariadb", "--no-defaults", "-h", "127.0.0.1", "-P", str(db.port),
                           "-u", "root", *args, "-e", "SELECT 1"], capture_output=True, text=True, timeout=60)


def has_mariadb_client() -> bool:
    return shutil.which("mariadb") is not None


def test_wrong_ca_is_refused_as_the_mariadb_client_refuses_it(mariadb_factory, tls_certs, other_ca, tmp_path):
    db = mariadb_factory(tls=tls_certs)
    code, conn, err = collect(db, tmp_path, "--ssl-ca", str(other_ca.ca))
    assert code == 3, err
    assert_one_paragraph_error(err)
    assert "certificate verify failed" in err and "VERIFY_CA, from --ssl-ca without ssl-mode" in err
    if has_mariadb_client():
        p = mariadb_client(db, f"--ssl-ca={other_ca.ca}")
        assert p.returncode != 0 and "2026" in p.stderr, p.stderr


def test_right_ca_connects_and_says_verify_ca(mariadb_factory, tls_certs, tmp_path):
    db = mariadb_factory(tls=tls_certs)
    code, conn, err = collect(db, tmp_path, "--ssl-ca", str(tls_certs.ca))
    assert code == 0, err
    assert conn["ssl_mode"] == "VERIFY_CA" and conn["tls_version"].startswith("TLSv1."), conn
    if has_mariadb_client():
        assert mariadb_client(db, f"--ssl-ca={tls_certs.ca}").returncode == 0
    p = run_cli("audit", "--no-defaults", "-h", "127.0.0.1", "-P", str(db.port), "-u", "root", "--ssl-ca",
                str(tls_certs.ca), "--no-calibrate", timeout=120)
    assert p.returncode in (0, 1), p.stderr
    assert p.stdout.splitlines()[1].startswith("connected over tcp, TLS mode VERIFY_CA (TLSv1."), p.stdout


def test_verify_server_cert_checks_the_host_name(mariadb_factory, tls_certs, tmp_path):
    db = mariadb_factory(tls=tls_certs)  # its certificate names 127.0.0.1
    code, conn, err = collect(db, tmp_path, "--ssl-verify-server-cert", "--ssl-ca", str(tls_certs.ca))
    assert code == 0, err
    assert conn["ssl_mode"] == "VERIFY_IDENTITY", conn


def test_hostname_mismatch_with_verify_server_cert_is_refused(mariadb_factory, named_certs, tmp_path):
    db = mariadb_factory(tls=named_certs)
    code, conn, err = collect(db, tmp_path, "--ssl-verify-server-cert", "--ssl-ca", str(named_certs.ca))
    assert code == 3, err
    assert_one_paragraph_error(err)
    assert "does not name the host '127.0.0.1'" in err and "VERIFY_IDENTITY" in err
    # the same CA without the host name check: the chain is right, so VERIFY_CA connects
    code, conn, err = collect(db, tmp_path, "--ssl-ca", str(named_certs.ca))
    assert code == 0 and conn["ssl_mode"] == "VERIFY_CA", err
    if has_mariadb_client():
        p = mariadb_client(db, "--ssl-verify-server-cert", f"--ssl-ca={named_certs.ca}")
        assert p.returncode != 0 and "2026" in p.stderr, p.stderr


def test_option_file_verify_server_cert_is_honoured(mariadb_factory, named_certs, tmp_path):
    db = mariadb_factory(tls=named_certs)
    cnf = tmp_path / "client.cnf"
    cnf.write_text(f"[client]\nssl-ca = {named_certs.ca}\nssl-verify-server-cert\n")
    p = run_cli("collect", f"--defaults-file={cnf}", "-h", "127.0.0.1", "-P", str(db.port), "-u", "root",
                "-o", str(tmp_path / "s.json"), timeout=120)
    assert p.returncode == 3, p.stderr
    assert_one_paragraph_error(p.stderr)
    assert f"VERIFY_IDENTITY, from ssl-verify-server-cert ({cnf}:3)" in p.stderr
    if has_mariadb_client():
        m = subprocess.run(["mariadb", f"--defaults-file={cnf}", "-h", "127.0.0.1", "-P", str(db.port), "-u", "root",
                            "-e", "SELECT 1"], capture_output=True, text=True, timeout=60)
        assert m.returncode != 0, m.stderr


def test_server_without_tls_refused_with_ca_and_reached_with_skip_ssl(mariadb, tls_certs, tmp_path):
    code, conn, err = collect(mariadb, tmp_path, "--ssl-ca", str(tls_certs.ca))
    assert code == 3, err
    assert_one_paragraph_error(err)
    assert "(2026)" in err and "the server offers no TLS" in err and "VERIFY_CA" in err
    code, conn, err = collect(mariadb, tmp_path, "--ssl")
    assert code == 3 and "REQUIRED, from --ssl" in err, err
    code, conn, err = collect(mariadb, tmp_path, "--skip-ssl")
    assert code == 0, err
    assert conn["ssl_mode"] == "DISABLED" and conn["tls_version"] is None, conn


def test_ssl_and_skip_ssl_on_a_tls_server(mariadb_factory, tls_certs, tmp_path):
    db = mariadb_factory(tls=tls_certs)
    code, conn, err = collect(db, tmp_path, "--ssl")
    assert code == 0 and conn["ssl_mode"] == "REQUIRED" and conn["tls_version"], (err, conn)
    code, conn, err = collect(db, tmp_path, "--skip-ssl")
    assert code == 0 and conn["ssl_mode"] == "DISABLED" and conn["tls_version"] is None, (err, conn)
    code, conn, err = collect(db, tmp_path, "--protocol", "TCP")
    assert code == 0 and conn["transport"] == "tcp", err
