"""The mysql client's habits against a real throwaway mariadbd (issue 18 §2, issue 19): `-p` asks
for the password on a real pty, a UTF-8 password (pass€word) logs in by every route the mariadb
client takes, the login-path file, the environment variables, a Percona DSN, and an error that
says the server offers no TLS when it offers none."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from advisor.collect.clientopts import encrypt_login_file
from tests.support.cli import NO_HOME, run_cli, run_on_pty

pytestmark = pytest.mark.requires_mariadbd

USER, PASSWORD = "u8", "pass€word"


@pytest.fixture
def server(mariadb):
    mariadb.query(f"CREATE USER '{USER}'@'%%' IDENTIFIED BY %s", (PASSWORD,))
    mariadb.query(f"GRANT PROCESS, REPLICATION CLIENT ON *.* TO '{USER}'@'%'")
    mariadb.query(f"GRANT SELECT ON performance_schema.* TO '{USER}'@'%'")
    return mariadb


def _collected(path: Path, port: int) -> dict:
    doc = json.loads(path.read_text())
    assert doc["target"]["port"] == port and doc["target"]["flavor"] == "mariadb"
    return doc


def _on_pty(args: list[str], env: dict[str, str], answer: str) -> tuple[int, str]:
    return run_on_pty(*args, env=env, answer=answer)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYSQL")}
    env.update(HOME=NO_HOME, LANG="C.UTF-8", **extra)
    return env


def test_dash_p_asks_on_the_terminal_and_a_utf8_password_logs_in(server, tmp_path):
    out = tmp_path / "snap.json"
    code, text = _on_pty(["collect", "-h", "127.0.0.1", "-P", str(server.port), "-u", USER, "-p", "--no-defaults",
                          "-o", str(out)], _env(), PASSWORD)
    assert code == 0, text
    assert f"Enter password for {USER}:" in text and PASSWORD not in text  # asked, and not echoed
    _collected(out, server.port)
    # a wrong answer is the server's refusal, with where the password came from
    code, text = _on_pty(["collect", "-h", "127.0.0.1", "-P", str(server.port), "-u", USER, "-p", "--no-defaults",
                          "-o", str(out)], _env(), "not-it")
    assert code == 3 and "1045" in text and "the password you typed" in text


def test_a_bare_password_line_in_an_option_file_asks_too(server, tmp_path):
    cnf = tmp_path / "my.cnf"
    cnf.write_text(f"[client]\nuser = {USER}\npassword\n")
    out = tmp_path / "snap.json"
    code, text = _on_pty(["collect", "--defaults-file", str(cnf), "-h", "127.0.0.1", "-P", str(server.port),
                          "-o", str(out)], _env(), PASSWORD)
    assert code == 0, text
    assert f"Enter password for {USER} ({cnf}:3 asks for it):" in text  # the option file's user
    _collected(out, server.port)


def test_a_utf8_password_works_from_the_command_line_an_option_file_and_mysql_pwd(server, tmp_path):
    mariadb = shutil.which("mariadb")
    if mariadb:  # the reference: the mariadb client logs in with it
        p = subprocess.run([mariadb, "--no-defaults", "-h", "127.0.0.1", "-P", str(server.port), "-u", USER,
                            f"-p{PASSWORD}", "-N", "-e", "SELECT CURRENT_USER()"], capture_output=True, text=True,
                           env=_env(), timeout=30)
        assert p.returncode == 0 and p.stdout.strip() == f"{USER}@%", p.stderr
    base = ["collect", "-h", "127.0.0.1", "-P", str(server.port), "-u", USER]
    out = tmp_path / "a.json"
    p = run_cli(*base, "--no-defaults", "--password", PASSWORD, "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("advisor: warning: a password given on the command line") == 1
    _collected(out, server.port)
    cnf = tmp_path / "my.cnf"
    cnf.write_text(f'[client]\npassword = "{PASSWORD}"\n')
    p = run_cli(*base, "--defaults-file", str(cnf), "-o", str(tmp_path / "b.json"))
    assert p.returncode == 0 and "warning" not in p.stderr, p.stderr
    p = run_cli(*base, "--no-defaults", "-o", str(tmp_path / "c.json"), env={"MYSQL_PWD": PASSWORD})
    assert p.returncode == 0, p.stderr
    for name in ("a", "b", "c"):
        assert PASSWORD not in (tmp_path / f"{name}.json").read_text()


def test_login_path_file_logs_in(server, tmp_path):
    login = tmp_path / "login.cnf"
    login.write_bytes(encrypt_login_file(f'[bench]\nhost = "127.0.0.1"\nport = {server.port}\nuser = "{USER}"\n'
                                         f'password = "{PASSWORD}"\n', bytes(range(20))))
    login.chmod(0o600)
    out = tmp_path / "snap.json"
    p = run_cli("collect", "--no-defaults", "--login-path", "bench", "-o", str(out),
                env={"MYSQL_TEST_LOGIN_FILE": str(login)})
    assert p.returncode == 0, p.stderr
    _collected(out, server.port)


def test_environment_variables_name_the_server(server, tmp_path):
    out = tmp_path / "tcp.json"
    p = run_cli("collect", "--no-defaults", "-u", "root", "-o", str(out),
                env={"MYSQL_HOST": "127.0.0.1", "MYSQL_TCP_PORT": str(server.port)})
    assert p.returncode == 0, p.stderr
    assert _collected(out, server.port)["target"]["transport"] == "tcp"
    out = tmp_path / "socket.json"
    p = run_cli("collect", "--no-defaults", "-u", "root", "-o", str(out), env={"MYSQL_UNIX_PORT": server.socket})
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["target"]["transport"] == "socket" and doc["target"]["socket"] == server.socket


def test_percona_dsn_as_the_host(server, tmp_path):
    cnf = tmp_path / "app.cnf"
    cnf.write_text(f"[client]\npassword = {PASSWORD}\n")
    out = tmp_path / "snap.json"
    p = run_cli("collect", "--host", f"h=127.0.0.1,P={server.port},u={USER},F={cnf}", "-o", str(out))
    assert p.returncode == 0, p.stderr
    _collected(out, server.port)


def test_tls_required_against_a_server_without_tls_says_so(server):
    p = run_cli("audit", "-h", "127.0.0.1", "-P", str(server.port), "-u", "root", "--no-defaults",
                "--ssl-mode", "REQUIRED")
    assert p.returncode == 3
    assert "offers no TLS" in p.stderr and "no handshake took place" in p.stderr
    assert "check --ssl-ca" not in p.stderr


def test_a_certificate_from_another_ca_is_named_as_such(mariadb_factory, tls_certs, tmp_path):
    from tests.support.certs import make_certs

    db = mariadb_factory(tls=tls_certs)
    other = make_certs(tmp_path / "other")
    p = run_cli("audit", "-h", "127.0.0.1", "-P", str(db.port), "-u", "root", "--no-defaults",
                "--ssl-mode", "VERIFY_CA", "--ssl-ca", str(other.ca))
    assert p.returncode == 3
    assert "certificate was not accepted" in p.stderr and "--ssl-ca" in p.stderr
    assert "server is running" not in p.stderr and "refused" not in p.stderr, p.stderr


def test_fleet_targets_as_dsns(server, tmp_path):
    lst = tmp_path / "fleet.txt"
    lst.write_text(f"h=127.0.0.1,P={server.port},u={USER},p={PASSWORD}\nS={server.socket},u=root\n")
    p = run_cli("fleet", str(lst), "--no-defaults", "--format", "json", "--no-calibrate")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)["targets"]
    assert [r["report"]["target"]["transport"] for r in rows] == ["tcp", "socket"]
    assert rows[0]["target"] == f"h=127.0.0.1,P={server.port},u={USER},p=…"  # the password part is masked
    assert PASSWORD not in p.stdout + p.stderr
