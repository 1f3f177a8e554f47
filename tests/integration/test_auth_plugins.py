"""Accounts on the authentication plugins real servers use, through the real CLI:
MariaDB ed25519 (PyNaCl) on a throwaway mariadbd, and MySQL 8's caching_sha2_password full
authentication over plain TCP (RSA public key exchange; cryptography) against the wire replay
server with a real RSA key. Both libraries are dependencies (PyMySQL[rsa,ed25519]), so neither
ends in "internal error ... package is required"."""

from __future__ import annotations

import pytest

from tests.support.cli import assert_one_paragraph_error, run_json
from tests.support.wire_server import ReplayServer

ED_PASSWORD = "ed-Pa55word-#1"


@pytest.mark.requires_mariadbd
def test_mariadb_ed25519_account(mariadb):
    mariadb.query("INSTALL SONAME 'auth_ed25519'")
    mariadb.query(f"CREATE USER 'ed'@'127.0.0.1' IDENTIFIED VIA ed25519 USING PASSWORD('{ED_PASSWORD}')")
    mariadb.query("GRANT SELECT, PROCESS ON *.* TO 'ed'@'127.0.0.1'")
    plugin = mariadb.query("SELECT JSON_VALUE(Priv, '$.plugin') FROM mysql.global_priv WHERE User = 'ed'")[0][0]
    assert plugin == "ed25519"
    args = ["audit", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "ed", "--no-defaults",
            "--no-calibrate", "--format", "json"]
    code, report, err = run_json(*args, env={"MYSQL_PWD": ED_PASSWORD})
    assert code in (0, 1), err
    assert report["target"]["flavor"] == "mariadb" and report["outcomes"]
    assert ED_PASSWORD not in err and ED_PASSWORD not in str(report)
    code, _, err = run_json(*args, env={"MYSQL_PWD": "not-the-password"})
    assert code == 3, err
    assert_one_paragraph_error(err)
    assert "Access denied for user 'ed'" in err and "not-the-password" not in err


def test_mysql8_caching_sha2_full_auth_without_tls():
    with ReplayServer.from_set("mysql-8.0.36", password="sha2-Pa55word", auth_plugin="caching_sha2_password") as srv:
        args = ["audit", "--host", srv.host, "--port", str(srv.port), "--user", "root", "--no-defaults",
                "--ssl-mode", "DISABLED", "--no-calibrate", "--format", "json"]
        code, report, err = run_json(*args, env={"MYSQL_PWD": "sha2-Pa55word"})
        assert code in (0, 1), err
        assert report["target"]["flavor"] == "mysql" and report["target"]["version"] == "8.0.36"
        assert srv.full_auths >= 1  # the password went RSA-encrypted with the server's public key
        code, _, err = run_json(*args, env={"MYSQL_PWD": "wrong"})
        assert code == 3, err
        assert_one_paragraph_error(err)
        assert "internal error" not in err and "cryptography" not in err
