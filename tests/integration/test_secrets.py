"""Secrets never reach an output: a real throwaway mariadbd started with --report-password (which
MariaDB shows in clear in SHOW GLOBAL VARIABLES), a login password given three ways, and sysbench
passwords written in every spelling; every command's standard output, standard error, every file
it writes and every error path is searched for each secret. Snapshots and host-facts files are
written mode 0600.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.support.cli import invoke

pytestmark = pytest.mark.requires_mariadbd

REPORT_SECRET = "Rep0rt-Secret-4711"
LOGIN_SECRET = "L0gin-Secret-0815"
SB_EQ, SB_SPACE, SB_QUOTED, SB_PG, SB_CFG = ("Sb-Eq-Secret-1", "Sb-Sp-Secret-2", "Sb-Qw-Secret-3",
                                             "Sb-Pg-Secret-4", "Sb-Cfg-Secret-5")
SECRETS = (REPORT_SECRET, LOGIN_SECRET, SB_EQ, SB_SPACE, SB_QUOTED, SB_PG, SB_CFG)


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest):
    from tests.support.mariadb import MariaDB

    db = MariaDB(options={"report-password": REPORT_SECRET, "report-host": "replica-7"}).start()
    request.addfinalizer(db.close)
    db.query(f"CREATE USER 'adv'@'%' IDENTIFIED BY '{LOGIN_SECRET}'")
    db.query("GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'adv'@'%'")
    db.query("GRANT SELECT ON performance_schema.* TO 'adv'@'%'")
    db.query("FLUSH PRIVILEGES")
    return db


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def _check(outputs: list[tuple[str, str]]) -> None:
    leaks = [(where, _leaks(text)) for where, text in outputs if _leaks(text)]
    assert not leaks, leaks


def test_the_server_really_shows_report_password_in_clear(server):
    rows = dict(server.query("SHOW GLOBAL VARIABLES LIKE 'report_password'"))
    assert rows["report_password"] == REPORT_SECRET  # the premise of this test


def test_no_secret_in_any_output_file_or_error(server, tmp_path: Path):
    conn = ["-h", "127.0.0.1", "-P", str(server.port), "-u", "adv", "--no-defaults"]
    cnf = tmp_path / "client.cnf"
    cnf.write_text(f"[client]\nhost=127.0.0.1\nport={server.port}\nuser=adv\npassword={LOGIN_SECRET}\n")
    sbcfg = tmp_path / "sb.cfg"
    sbcfg.write_text(f"mysql-password={SB_CFG}\nmysql-user=sbtest\n")
    sysbench_lines = [
        f"sysbench oltp_read_write --mysql-host=127.0.0.1 --mysql-password={SB_EQ} --threads=4 run",
        f"sysbench oltp_read_write --mysql-host=127.0.0.1 --mysql-password {SB_SPACE} --threads=4 run",
        f"sysbench oltp_read_write --mysql-host=127.0.0.1 '--mysql-password {SB_QUOTED}' --threads=4 run",
        f"sysbench oltp_read_write --db-driver=pgsql --pgsql-password={SB_PG} run",
        f"sysbench oltp_read_write --config-file={sbcfg} --threads=4 run",
        f"sysbench oltp_read_write --mysql-password={SB_EQ} --threads=x run",  # an error path
        f"sysbench {tmp_path}/my.lua --mysql-password={SB_EQ} --no-such-option run",  # a Lua test's error
    ]
    (tmp_path / "my.lua").write_text("-- a custom test\nfunction event() end\n")
    snap, host, save = tmp_path / "snap.json", tmp_path / "host.json", tmp_path / "cal.json"
    secret_cnf = tmp_path / "secret.cnf"  # a my.cnf that sets the secrets itself
    secret_cnf.write_text(f"[mysqld]\nreport_password = {REPORT_SECRET}\nwsrep_sst_auth = sst:{LOGIN_SECRET}\n"
                          "sort_buffer_size = 4M\n")
    fleet = tmp_path / "fleet.txt"
    fleet.write_text(f"adv@127.0.0.1:{server.port}\n")
    runs: list[tuple[str, ...]] = [
        ("collect", *conn, "-p", LOGIN_SECRET, "-o", str(snap)),
        ("collect", "--host-facts-only", "-o", str(host)),
        ("audit", "--defaults-file", str(cnf), "--no-calibrate"),
        *[("audit", *conn, "-p", LOGIN_SECRET, "--no-calibrate", "-f", f) for f in ("json", "markdown", "html", "sarif",
                                                                                    "junit")],
        ("audit", "--snapshot", str(snap), "-v"),
        ("mycnf", "--snapshot", str(snap), "--mode", "full"),
        ("mycnf", "--snapshot", str(snap), "-o", str(tmp_path / "tuned.cnf")),
        ("verify", "--defaults-file", str(cnf), "--cnf", str(tmp_path / "tuned.cnf")),
        ("verify", "--defaults-file", str(cnf), "--cnf", str(secret_cnf), "-f", "json"),
        ("mycnf", "--validate", str(secret_cnf), "--flavor", "mariadb", "--version", "10.11"),  # with the trial server
        ("calibrate", "--defaults-file", str(cnf), "--calibrate-seconds", "2", "--probe", "rtt", "-f", "json",
         "--save-snapshot", str(save)),
        ("fleet", str(fleet), "-p", LOGIN_SECRET, "--no-defaults", "--no-calibrate", "-f", "json"),
        ("audit", *conn, "-p", LOGIN_SECRET + "-wrong", "--no-calibrate"),  # the connect error path
        *[("checklist", "--defaults-file", str(cnf), "--no-calibrate", "--no-detect-sysbench", "-f", f, "--sysbench", line)
          for line in sysbench_lines for f in ("markdown", "json")],
    ]
    outputs: list[tuple[str, str]] = []
    codes = []
    for args in runs:
        p = invoke(*args, env={"MYSQL_PWD": LOGIN_SECRET} if "--no-defaults" in args and "-p" not in args else None)
        codes.append(p.returncode)
        outputs += [(f"{args[0]} stdout", p.stdout), (f"{args[0]} stderr", p.stderr)]
    # the runs really went through the paths they name: every command ran (0/1), but the wrong
    # password (3) and the two sysbench lines that are errors (2)
    assert codes.count(3) == 1 and codes.count(2) == 4 and all(c in (0, 1, 2, 3) for c in codes), \
        list(zip([r[-1] for r in runs], codes))
    for f in (snap, host, save, tmp_path / "tuned.cnf"):
        outputs.append((f.name, f.read_text()))
    _check(outputs)
    doc = json.loads(snap.read_text())
    assert doc["server"]["variables"]["report_password"] == "***"
    assert doc["server"]["variables"]["report_host"] == "replica-7"  # not a secret, kept
    for f in (snap, host, save):
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o600, f


def test_an_existing_snapshot_file_is_narrowed_to_0600(server, tmp_path: Path):
    out = tmp_path / "snap.json"
    out.write_text("old")
    out.chmod(0o644)
    p = invoke("collect", "-h", "127.0.0.1", "-P", str(server.port), "-u", "adv", "-p", LOGIN_SECRET,
               "--no-defaults", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600


# ---------------------------------------------------------------------- the matrix: channel × output
# Every way a login password reaches advisor, crossed with every output it could leak into. The
# server's 'adv' account has LOGIN_SECRET; a wrong password is LOGIN_SECRET + "-wrong" (so a leak of
# it is a leak of the secret too) and must end in the connect error (exit 3, fleet 6).

CHANNELS = ("cli-p", "cli-password", "MYSQL_PWD", "option-file", "login-path", "dsn-host", "dsn-line")
OUTPUTS = ("terminal", "json", "markdown", "html", "sarif", "snapshot", "error", "fleet-text", "fleet-json",
           "fleet-jsonl", "fleet-html", "fleet-error")


def _channel(channel: str, port: int, secret: str, tmp: Path) -> tuple[list[str], dict[str, str], str]:
    """(the connection arguments, the environment, the fleet target line) that give `secret` by `channel`."""
    tcp = ["-h", "127.0.0.1", "-P", str(port), "-u", "adv"]
    line = f"adv@127.0.0.1:{port}"
    if channel == "cli-p":
        return [*tcp, "--no-defaults", "-p", secret], {}, line
    if channel == "cli-password":
        return [*tcp, "--no-defaults", f"--password={secret}"], {}, line
    if channel == "MYSQL_PWD":
        return [*tcp, "--no-defaults"], {"MYSQL_PWD": secret}, line
    if channel == "option-file":
        cnf = tmp / "client.cnf"
        cnf.write_text(f"[client]\nhost=127.0.0.1\nport={port}\nuser=adv\npassword={secret}\n")
        return ["--defaults-file", str(cnf)], {}, line
    if channel == "login-path":
        from advisor.collect.clientopts import encrypt_login_file

        login = tmp / "login.cnf"
        login.write_bytes(encrypt_login_file(f'[adv]\nhost = "127.0.0.1"\nport = {port}\nuser = "adv"\n'
                                             f'password = "{secret}"\n', bytes(range(20))))
        login.chmod(0o600)
        return ["--no-defaults", "--login-path", "adv"], {"MYSQL_TEST_LOGIN_FILE": str(login)}, line
    dsn = f"h=127.0.0.1,P={port},u=adv,p={secret}"
    if channel == "dsn-host":
        return ["--no-defaults", "-h", dsn], {}, line.replace("adv@", "") + "\n" + dsn
    return ["--no-defaults", "-u", "root"], {}, dsn  # dsn-line (fleet only): the line's u= beats -u root


def _runs(output: str, conn: list[str], line: str, tmp: Path) -> list[tuple[str, ...]]:
    fleet = tmp / "targets.txt"
    fleet.write_text(f"{line}\n")
    fconn = [a for i, a in enumerate(conn) if "-h" not in (a, conn[i - 1] if i else "")]  # hosts: from the file
    if output in ("terminal", "json", "markdown", "html", "sarif"):
        return [("audit", *conn, "--no-calibrate", "-f", "text" if output == "terminal" else output)]
    if output == "snapshot":
        return [("collect", *conn, "-o", str(tmp / "snap.json"))]
    if output == "error":
        return [("audit", *conn, "--no-calibrate")]
    fmt = output.removeprefix("fleet-").replace("error", "text")
    return [("fleet", str(fleet), *fconn, "--no-calibrate", "-f", fmt, "-o", str(tmp / f"fleet.{fmt}"))]


@pytest.mark.parametrize("channel, output", [(c, o) for c in CHANNELS for o in OUTPUTS
                                             if c != "dsn-line" or o.startswith("fleet")])
def test_no_login_secret_in_any_output(server, tmp_path: Path, channel: str, output: str):
    wrong = output.endswith("error")
    secret = LOGIN_SECRET + "-wrong" if wrong else LOGIN_SECRET
    conn, env, line = _channel(channel, server.port, secret, tmp_path)
    outputs: list[tuple[str, str]] = []
    for args in _runs(output, conn, line, tmp_path):
        p = invoke(*args, env=env)
        outputs += [("stdout", p.stdout), ("stderr", p.stderr)]
        want = (6 if args[0] == "fleet" else 3) if wrong else None
        assert (p.returncode == want) if want else p.returncode in (0, 1), (args, p.returncode, p.stderr)
        if wrong:
            assert "Access denied" in p.stdout + p.stderr + "".join(f.read_text() for f in tmp_path.glob("fleet.*"))
    outputs += [(f.name, f.read_text()) for f in tmp_path.iterdir() if f.name.startswith(("snap", "fleet."))]
    if channel.startswith("dsn") and output.startswith("fleet"):
        assert any("p=…" in text or "p=\\u2026" in text for _, text in outputs), outputs  # shown, masked
    if channel == "dsn-line" and wrong:  # the line's u= and p= were used, and the error says so
        both = "".join(text for _, text in outputs)
        assert "as 'adv'" in both and "the password came from p= in the DSN at" in both, both[-2000:]
    _check(outputs)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html", "error"])
def test_no_url_password_in_compare(server, fmt: str):
    secret = LOGIN_SECRET + "-wrong" if fmt == "error" else LOGIN_SECRET
    url = f"mysql://adv:{secret}@127.0.0.1:{server.port}"
    p = invoke("compare", url, f"mysql://root@127.0.0.1:{server.port}", "--no-defaults", "--no-calibrate",
               *(["-f", fmt] if fmt != "error" else []))
    assert p.returncode == (3 if fmt == "error" else 0), p.stderr
    out = p.stdout.replace("<wbr>", "")  # HTML's soft break points (render.templates.breakable) are not text
    assert "mysql://adv:…@127.0.0.1" in out + p.stderr
    _check([("stdout", p.stdout), ("stdout without <wbr>", out), ("stderr", p.stderr)])


SB_LUA = "Tok-Secret-5566"


@pytest.mark.parametrize("fmt", ["markdown", "json"])
@pytest.mark.parametrize("form", ["quoted-space", "space", "eq", "empty", "pgsql", "env"])
def test_no_sysbench_password_in_checklist(server, tmp_path: Path, form: str, fmt: str):
    (tmp_path / "my.lua").write_text("-- a custom test\nfunction event() end\n")
    opt = {"quoted-space": f"'--mysql-password {SB_LUA}'", "space": f"--mysql-password {SB_LUA}",
           "eq": f"--mysql-password={SB_LUA}", "empty": "--mysql-password=", "pgsql": f"--pgsql-password={SB_LUA}",
           "env": ""}[form]
    line = f"{'MYSQL_PWD=' + SB_LUA + ' ' if form == 'env' else ''}sysbench {tmp_path}/my.lua {opt} --threads=8 run"
    p = invoke("checklist", "-h", "127.0.0.1", "-P", str(server.port), "-u", "adv", "-p", LOGIN_SECRET,
               "--no-defaults", "--no-calibrate", "--no-detect-sysbench", "-f", fmt, "--sysbench", line)
    assert p.returncode in (0, 1), p.stderr
    assert "my.lua" in p.stdout  # the command is echoed, masked
    assert SB_LUA not in p.stdout + p.stderr
    _check([("stdout", p.stdout), ("stderr", p.stderr)])


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_sysbench_password_in_watch(server, tmp_path: Path, fmt: str):
    """`advisor watch -- sysbench …` runs the real sysbench: its command echo, its live lines, the report
    and the saved run all go through the same masking as the checklist (advisor.sysbench.mask_words)."""
    (tmp_path / "my.lua").write_text("-- a custom test\nfunction event() end\n")
    saved = tmp_path / "watch.json"
    p = invoke("watch", "-h", "127.0.0.1", "-P", str(server.port), "-u", "adv", "-p", LOGIN_SECRET, "--no-defaults",
               "-f", fmt, "--save", str(saved), "--", "sysbench", str(tmp_path / "my.lua"),
               f"--mysql-password {SB_LUA}", f"--mysql-password={SB_LUA}", f"--pgsql-password={SB_LUA}",
               "--mysql-password=", "--events=1", "--time=1", "run")
    assert p.returncode in (0, 1), p.stderr  # the command's own status; not an internal error
    assert "--mysql-password ***" in saved.read_text()  # the command is recorded, masked
    _check([("stdout", p.stdout), ("stderr", p.stderr), ("saved", saved.read_text())])
    assert SB_LUA not in p.stdout + p.stderr + saved.read_text()


def test_no_secret_on_a_terminal_fleet_progress_and_a_password_prompt(server, tmp_path: Path):
    """On a real pty: the fleet's progress line (only drawn on a terminal) for a list mixing a host line
    and DSN lines, one with a wrong p=; and a password typed at the `-p` prompt (not echoed)."""
    from tests.support.cli import run_on_pty

    targets = tmp_path / "mixed.txt"
    targets.write_text(f"127.0.0.1:{server.port}\nh=127.0.0.1,P={server.port},u=adv,p={LOGIN_SECRET}\n"
                       f"h=127.0.0.1,P={server.port},u=adv,p={LOGIN_SECRET}-wrong\n")
    code, screen = run_on_pty("fleet", str(targets), "-u", "root", "--no-defaults", "--no-calibrate", "--jobs", "1")
    assert code == 6, screen  # the wrong p= is that host's error
    assert "p= in the DSN at" in screen and f"{targets}:3" in screen and "p=…" in screen, screen
    code2, typed = run_on_pty("audit", "-h", "127.0.0.1", "-P", str(server.port), "-u", "adv", "-p", "--no-defaults",
                              "--no-calibrate", answer=LOGIN_SECRET)
    assert code2 in (0, 1), typed
    _check([("fleet on a pty", screen), ("audit after the prompt", typed)])
