"""Issue 6 acceptance against real throwaway mariadbd servers: generate a my.cnf from a server with
the seed pitfalls, start a fresh server that really reads the file, verify it; validate files
with a throwaway server; clean up on Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import assert_one_paragraph_error, default_interrupts, run_cli
from tests.support.mariadb import MariaDB

pytestmark = pytest.mark.requires_mariadbd

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "mycnf" / "mariadb-10.11-pitfalls.snapshot.json"
GOLDEN = ROOT / "tests" / "golden" / "mycnf" / "mariadb-10.11-pitfalls-benchmark.cnf"
PITFALLS = {"sort-buffer-size": "32M", "innodb-log-file-size": "48M"}  # the fixture itself sets a 128M buffer pool
ORIGINAL_CNF = "[mysqld]\nsort_buffer_size = 32M\ninnodb_log_file_size = 48M\ninnodb_buffer_pool_size = 128M\n"


def conn_args(db: MariaDB) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults"]


def setting_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln and not ln.startswith("#")]


class CnfMariaDB(MariaDB):
    """A throwaway mariadbd that reads real option files: `--defaults-file=my.cnf` (first on the
    command line, as mariadbd requires) instead of the fixture's --no-defaults. my.cnf holds the
    server's original settings and ends with `!include` of the file under test, so the drop-in is
    read last, as from conf.d. The fixture's own --innodb-buffer-pool-size is left out because a
    command-line option would override the file."""

    def __init__(self, cnf: Path, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.cnf = cnf

    def _command(self, mariadbd: str) -> list[str]:
        cmd = super()._command(mariadbd)
        cmd[cmd.index("--no-defaults")] = f"--defaults-file={self.cnf}"
        return [c for c in cmd if not c.startswith("--innodb-buffer-pool-size=")]


def _restart_with(tmp_path: Path, dropin: Path) -> CnfMariaDB:
    base = tmp_path / "my.cnf"
    base.write_text(ORIGINAL_CNF + f"!include {dropin}\n")
    return CnfMariaDB(base).start()


def test_acceptance_mycnf_restart_verify(mariadb_factory, tmp_path):
    db = mariadb_factory(options=PITFALLS)
    a = tmp_path / "a.cnf"
    p = run_cli("mycnf", *conn_args(db), "--purpose", "benchmark", "-o", str(a))
    assert p.returncode == 0, p.stderr
    text = a.read_text()
    settings = dict(ln.split(" = ", 1) for ln in setting_lines(text) if " = " in ln)
    assert settings["sort_buffer_size"] == "2M"            # MariaDB's default, below glibc's 32 MiB mmap ceiling
    assert settings["innodb_log_file_size"] == "2G"        # benchmark redo floor; one file on MariaDB 10.5+
    assert "innodb_log_files_in_group" not in text and "innodb_redo_log_capacity" not in text
    # the server is local, so its host's facts were read and the memory budget checked against them
    assert "RAM (read on this machine" in text
    assert ": fits (target ≤ 90 %)" in text

    # the running server has not been restarted: verify reports the differences and exits 1
    p = run_cli("verify", *conn_args(db), "--cnf", str(a))
    assert p.returncode == 1, p.stdout + p.stderr
    assert "DIFFERS" in p.stdout and "server 33554432 (32M)" in p.stdout

    # a fresh server that reads the original my.cnf and then the drop-in
    fresh = _restart_with(tmp_path, a)
    try:
        assert fresh.query("SELECT @@sort_buffer_size, @@innodb_log_file_size, @@innodb_log_buffer_size") == \
            ((2 << 20, 2 << 30, 64 << 20),)
        p = run_cli("verify", *conn_args(fresh), "--cnf", str(a), "--format", "json")
        assert p.returncode == 0, p.stdout + p.stderr
        report = json.loads(p.stdout)
        assert report["schema"] == "advisor.verify/1"
        assert report["summary"] == {"applied": len(settings) - 0, "differs": 0, "not_applicable": 0}
        p = run_cli("verify", *conn_args(fresh), "--cnf", str(a))
        assert p.returncode == 0 and f"{len(settings)} applied, 0 differ, 0 not applicable" in p.stdout
    finally:
        fresh.close()


def test_acceptance_with_stated_host_facts_sizes_memory_and_still_applies(mariadb_factory, tmp_path):
    db = mariadb_factory(options=PITFALLS)
    a = tmp_path / "a.cnf"
    p = run_cli("mycnf", *conn_args(db), "--purpose", "benchmark", "--ram", "4G", "--cores", "2", "--disk", "ssd",
                "-o", str(a))
    assert p.returncode == 0, p.stderr
    text = a.read_text()
    settings = dict(ln.split(" = ", 1) for ln in setting_lines(text) if " = " in ln)
    assert settings["innodb_buffer_pool_size"].endswith(("M", "G"))
    assert settings["innodb_io_capacity"] == "1000"   # ssd; innodb_io_capacity_max is already 2000
    assert "of the 4 GiB RAM limit: fits" in text
    fresh = _restart_with(tmp_path, a)
    try:
        p = run_cli("verify", *conn_args(fresh), "--cnf", str(a), "--format", "json")
        report = json.loads(p.stdout)
        assert p.returncode == 0, p.stdout
        assert report["summary"]["applied"] == len(settings) and report["summary"]["differs"] == 0
    finally:
        fresh.close()


def test_recorded_pitfalls_snapshot_matches_a_live_server(mariadb_factory, tmp_path, golden):
    """The unit golden file is made from tests/fixtures/mycnf/mariadb-10.11-pitfalls.snapshot.json;
    --update-golden re-records it from a live server."""
    db = mariadb_factory(options=PITFALLS)
    snap = tmp_path / "s.json"
    p = run_cli("collect", *conn_args(db), "-o", str(snap))
    assert p.returncode == 0, p.stderr
    doc = json.loads(snap.read_text())
    # The fixture holds only what the server reports: this machine's host facts and network path would
    # make the golden file depend on the machine the tests run on.
    doc["host"], doc["client"] = None, None
    doc["missing"] = [m for m in doc["missing"] if m["fact"] not in ("host", "client")] + [
        {"fact": "host", "reason": "host facts were not collected by this command"},
        {"fact": "client", "reason": "the client's network path was not collected by this command"}]
    snap.write_text(json.dumps(doc, indent=2) + "\n")
    live = doc["server"]["variables"]
    names = ("sort_buffer_size", "innodb_log_file_size", "innodb_buffer_pool_size", "innodb_log_buffer_size",
             "max_connections")
    if golden.update and any(live[n] != json.loads(FIXTURE.read_text())["server"]["variables"][n] for n in names):
        FIXTURE.write_text(snap.read_text())  # re-recorded only when it no longer matches the server
    recorded = json.loads(FIXTURE.read_text())["server"]["variables"]
    for name in names:
        assert live[name] == recorded[name], name
    a, b = tmp_path / "live.cnf", tmp_path / "recorded.cnf"
    assert run_cli("mycnf", "--snapshot", str(snap), "--purpose", "benchmark", "-o", str(a)).returncode == 0
    assert run_cli("mycnf", "--snapshot", str(FIXTURE), "--purpose", "benchmark", "-o", str(b)).returncode == 0
    assert setting_lines(a.read_text()) == setting_lines(b.read_text())


# ---------------------------------------------------------------- --validate with a throwaway server

def test_validate_accepts_a_generated_file_and_reads_it_back(tmp_path):
    a = tmp_path / "a.cnf"
    assert run_cli("mycnf", "--snapshot", str(FIXTURE), "--purpose", "benchmark", "-o", str(a)).returncode == 0
    tmp = tmp_path / "t"
    tmp.mkdir()
    p = run_cli("mycnf", "--validate", str(a), "--flavor", "mariadb", "--version", "10.11", env={"TMPDIR": str(tmp)},
                timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "throwaway mariadbd" in p.stdout and "accepted" in p.stdout
    assert "read back: 3 of 3 settings as the file sets them" in p.stdout
    assert list(tmp.iterdir()) == []   # the temporary datadir is gone


def test_validate_reports_what_the_server_refuses(tmp_path):
    bad = tmp_path / "bad.cnf"
    bad.write_text("[mysqld]\ninnodb_redo_log_capacity = 1G\nsort_buffer_size = 2M\ndatadir = /var/lib/mysql\n")
    tmp = tmp_path / "t"
    tmp.mkdir()
    p = run_cli("mycnf", "--validate", str(bad), "--flavor", "mariadb", "--version", "10.11", env={"TMPDIR": str(tmp)},
                timeout=180)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "innodb_redo_log_capacity does not exist on MariaDB" in p.stdout            # catalogue
    assert "unknown variable 'innodb_redo_log_capacity=1G'" in p.stdout               # the server itself
    assert "datadir = /var/lib/mysql was pointed to" in p.stdout                       # never the real datadir
    assert "NOT valid" in p.stdout
    assert list(tmp.iterdir()) == []


def test_validate_removed_option_is_a_warning_when_the_server_accepts_it(tmp_path):
    f = tmp_path / "old.cnf"
    f.write_text("[mysqld]\ninnodb_log_files_in_group = 2\n")
    p = run_cli("mycnf", "--validate", str(f), "--flavor", "mariadb", "--version", "10.11", timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "removed in MariaDB 10.6.0; the server only warns: [Warning] 'innodb-log-files-in-group' was removed" in p.stdout
    assert "innodb-log-files-in-group' was removed" in p.stdout


def test_validate_for_another_flavor_says_why_the_server_check_did_not_run(tmp_path):
    f = tmp_path / "m.cnf"
    f.write_text("[mysqld]\ninnodb_redo_log_capacity = 8G\n")
    p = run_cli("mycnf", "--validate", str(f), "--flavor", "mysql", "--version", "8.0.36")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "no mysql 8.0 server binary is installed" in p.stdout and "is mariadb 10.11" in p.stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_validate_cleans_up_when_interrupted(tmp_path, sig):
    f = tmp_path / "a.cnf"
    f.write_text("[mysqld]\nsort_buffer_size = 2M\n")
    tmp = tmp_path / "t"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), HOME="/nonexistent-advisor-home")
    proc = subprocess.Popen([sys.executable, "-m", "advisor", "mycnf", "--validate", str(f), "--flavor", "mariadb",
                             "--version", "10.11"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_interrupts)
    deadline = time.monotonic() + 30
    work = None  # the trial's directory; tempfile's writability probe file may come and go before it
    while work is None and proc.poll() is None and time.monotonic() < deadline:
        work = next(tmp.glob("advisor-validate-*"), None)
        time.sleep(0.005)
    assert work is not None and proc.poll() is None, "the trial did not start"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert_one_paragraph_error(err)
    assert not work.exists()
    deadline = time.monotonic() + 10
    while True:  # a killed process may take a moment to be reaped
        leftovers = [_cmdline(p) for p in Path("/proc").iterdir() if p.name.isdigit() and str(work) in _cmdline(p)]
        if not leftovers or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert leftovers == []


def _cmdline(proc_dir: Path) -> str:
    try:
        return (proc_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
