"""Issue 7 acceptance: `advisor checklist` against real throwaway mariadbd servers, and the checklist's
claims about sysbench checked against the sysbench 1.0.20 installed here.

Needs mariadbd (tests/support/mariadb.py) and sysbench (`apt-get install sysbench`; .ci/run installs it).
Kept lean for a 2-core machine: small tables, runs of one or two seconds.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from advisor.collect.sysbench import read_local_sysbench
from advisor.sysbench import SBTEST_ROW_BYTES, parse_ldd, parse_version_output
from tests.support.cli import assert_one_paragraph_error, run_cli, run_json
from tests.support.tools import require_tool
from tests.unit.test_checklist_render import checklist_items

pytestmark = pytest.mark.requires_mariadbd


def require_sysbench() -> str:
    return require_tool("sysbench")


def conn_args(db) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults"]


def sb_args(db, *extra: str) -> list[str]:
    return ["--mysql-host=127.0.0.1", f"--mysql-port={db.port}", "--mysql-user=root", *extra]


def sysbench(db, test: str, command: str, *opts: str, cwd: str | None = None) -> str:
    p = subprocess.run(["sysbench", test, *sb_args(db, *opts), command], capture_output=True, text=True, timeout=120,
                       cwd=cwd)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def ssl_accepts(conn) -> int:
    """Read on one long-lived connection, so reading does not add handshakes of its own."""
    with conn.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE 'Ssl_accepts'")
        return int(cur.fetchone()[1])


# ---------------------------------------------------------------- acceptance

def test_acceptance_default_server_json(mariadb):
    cmd = (f"sysbench oltp_read_write --threads=200 --mysql-host=127.0.0.1 --mysql-port={mariadb.port} --tables=10 "
           "--table-size=10000000 --time=600 run")
    code, doc, err = run_json("checklist", *conn_args(mariadb), "--sysbench", cmd, "--format", "json")
    assert code == 0, err
    assert doc["schema"] == "advisor.checklist/1" and doc["target"]["port"] == mariadb.port
    items = {it["id"]: it for it in doc["items"]}
    failing = [it for it in doc["items"] if it["status"] == "fail"]
    mc = items["sysbench-max-connections"]
    assert mc in failing and "max_connections 151 < 200" in mc["evidence"]
    ds = items["sysbench-dataset"]
    assert ds in failing and "128 MiB" in ds["evidence"]
    gib = float(re.search(r"≈ ([\d.]+) GiB", ds["evidence"]).group(1))
    assert gib > 2  # 10 × 10M rows × 241 B ≈ 22.4 GiB
    assert ds["facts"]["innodb_buffer_pool_size"] == 128 << 20
    assert "sysbench-rand-type" in items and "special" in items["sysbench-rand-type"]["evidence"]
    assert all(it["evidence"] for it in doc["items"])
    assert all(it["command"] for it in doc["items"] if it["status"] == "manual")
    # the checklist's audit is calibrated as the purpose (benchmark) says, like `advisor audit --purpose benchmark`
    assert not any(n.startswith("not collected: calibration") for n in doc["notes"]), doc["notes"]
    # every rule outcome of the benchmark audit is an item or listed as omitted
    code, report, err = run_json("audit", *conn_args(mariadb), "--purpose", "benchmark", "--format", "json")
    assert code == 0, err
    ruled = {it["rule"] for it in doc["items"] if it.get("rule")} | {o["rule"] for o in doc["omitted"]}
    assert ruled == {o["rule"] for o in report["outcomes"]}


def test_markdown_renders_as_a_checklist_and_fail_on_fail(mariadb):
    cmd = (f"sysbench oltp_read_write --threads=200 --mysql-host=127.0.0.1 --mysql-port={mariadb.port} --tables=10 "
           "--table-size=10000000 --time=600 run")
    p = run_cli("checklist", *conn_args(mariadb), "--no-calibrate", "--sysbench", cmd)
    assert p.returncode == 0, p.stderr
    items = checklist_items(p.stdout)  # parsed with markdown-it-py, Notes section excluded
    assert len(items) >= 15
    for it in items:
        # a note (an info finding: to state or consider) has no box; everything else is a task item
        assert re.match(r"^(\[( |x)\] \*\*.+\*\* \((pass|FAIL|unknown|manual)\)|\*\*.+\*\* \(note\))$", it["first"]), it
        assert any(s.startswith(("Evidence: ", "Command: ")) for s in it["subs"]), it
    assert len(items) == len(re.findall(r"^- (\[[ x]\] |\*\*.+\(note\)$)", p.stdout, re.M))
    assert "(FAIL)" in p.stdout and "[x]" in p.stdout
    p = run_cli("checklist", *conn_args(mariadb), "--no-calibrate", "--sysbench", cmd, "--fail-on-fail")
    assert p.returncode == 1 and p.stdout


def test_clean_setup_passes_with_fail_on_fail(mariadb_factory, tmp_path):
    require_sysbench()
    db = mariadb_factory(options={"innodb-log-file-size": "256M"})
    db.query("CREATE DATABASE sbtest")
    sysbench(db, "oltp_read_only", "prepare", "--tables=1", "--table-size=20000")
    db.query("ANALYZE TABLE sbtest.sbtest1")
    # a clean setup: no more threads than the server's logical CPUs (the audit now reads them, issue 3)
    cmd = ("sysbench oltp_read_only " + " ".join(sb_args(db)) + " --tables=1 --table-size=20000 "
           f"--threads={os.cpu_count() or 1} --time=120 --report-interval=10 --rand-type=uniform run")
    out = tmp_path / "checklist.md"
    p = run_cli("checklist", *conn_args(db), "--no-calibrate", "--sysbench", cmd, "--fail-on-fail", "-o", str(out))
    assert p.returncode == 0, p.stderr + out.read_text()
    text = out.read_text()
    assert "(FAIL)" not in text and "[x] **The data is prepared at the size the run expects** (pass)" in text
    assert "[x] **The dataset fits the buffer pool" in text


@pytest.mark.parametrize("cmd,needle", [
    ("sysbench oltp_read_wirte --threads=8 run", "unknown test 'oltp_read_wirte'"),
    ("sysbench oltp_read_write --threads=many run", "--threads must be a whole number"),
    ("sysbench oltp_read_write --table-size=10M run", "read only the leading 10"),
    ("sysbench oltp_read_write --tabels=4 --mysql-password=Hush-9z run", "no option --tabels"),
])
def test_malformed_sysbench_command_exits_2_before_connecting(cmd, needle):
    # port 1 is closed: a connection attempt would exit 3; the command is rejected first
    p = run_cli("checklist", "--host", "127.0.0.1", "--port", "1", "--no-defaults", "--sysbench", cmd)
    assert p.returncode == 2, p.stderr
    assert_one_paragraph_error(p.stderr)
    assert needle in p.stderr and "Tip:" in p.stderr and "Hush-9z" not in p.stderr


def test_password_never_in_any_output(mariadb, tmp_path):
    cmd = (f"MYSQL_PWD=Env-Secret-1 sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-port={mariadb.port} "
           "--mysql-user=root --mysql-password=Top-Secret-7 --time=60 run")
    for fmt in ("markdown", "json"):
        out = tmp_path / f"c.{fmt}"
        p = run_cli("checklist", *conn_args(mariadb), "--no-calibrate", "--sysbench", cmd, "--format", fmt, "-o",
                    str(out))
        assert p.returncode == 0, p.stderr
        for text in (p.stdout, p.stderr, out.read_text()):
            assert "Top-Secret-7" not in text and "Env-Secret-1" not in text
        assert "--mysql-password=***" in out.read_text()


def test_config_file_is_read_from_the_working_directory(mariadb, tmp_path):
    (tmp_path / "config").write_text(f"mysql-host=127.0.0.1\nmysql-port={mariadb.port}\nmysql-user=root\n"
                                     "mysql-password=Cfg-Secret-3\nthreads=400\ntime=600\nreport-interval=10\n")
    p = subprocess.run([*_python_cli(), "checklist", *conn_args(mariadb), "--format", "json", "--sysbench",
                        "sysbench --config-file=config oltp_point_select --tables=4 --table-size=1000 run"],
                       capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=60)
    assert p.returncode == 0, p.stderr
    assert "Cfg-Secret-3" not in p.stdout
    import json

    items = {it["id"]: it for it in json.loads(p.stdout)["items"]}
    assert items["sysbench-max-connections"]["status"] == "fail" and "400" in items["sysbench-max-connections"]["evidence"]
    assert items["sysbench-target"]["status"] == "pass" and items["sysbench-report-interval"]["status"] == "pass"


def _python_cli() -> list[str]:
    import sys

    return [sys.executable, "-m", "advisor"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MYSQL_PWD", None)
    env["HOME"] = "/nonexistent-advisor-home"
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


# ---------------------------------------------------------------- claims checked against real sysbench

def test_sbtest_row_size_matches_a_fresh_prepare(mariadb):
    """SBTEST_ROW_BYTES (241) was measured with 1,000,000 rows; re-measure with 100,000 (0.6 s here)."""
    require_sysbench()
    mariadb.query("CREATE DATABASE sbtest")
    sysbench(mariadb, "oltp_read_write", "prepare", "--tables=1", "--table-size=100000")
    mariadb.query("ANALYZE TABLE sbtest.sbtest1")
    (data, index), = mariadb.query("SELECT data_length, index_length FROM information_schema.TABLES "
                                   "WHERE table_schema = 'sbtest' AND table_name = 'sbtest1'")
    per_row = (data + index) / 100_000
    assert abs(per_row - SBTEST_ROW_BYTES) / SBTEST_ROW_BYTES < 0.05, per_row


def test_tls_claims_for_this_sysbench_hold(mariadb_factory, tls_certs, tmp_path):
    """The checklist says Debian's sysbench 1.0.20 (libmariadb 3.3) stays plain without --mysql-ssl and that
    --mysql-ssl=on encrypts; check both with the server's Ssl_accepts counter."""
    require_sysbench()
    local = read_local_sysbench()
    if local.library != "libmariadb" or local.era != "1.0":
        pytest.fail(f"this test describes sysbench 1.0.x linked against libmariadb; found {local.describe()}",
                    pytrace=False)
    db = mariadb_factory(tls=tls_certs)
    db.query("CREATE DATABASE sbtest")
    sysbench(db, "oltp_point_select", "prepare", "--tables=1", "--table-size=1000")
    base = ["--tables=1", "--table-size=1000", "--threads=2", "--time=1"]

    cmd = "sysbench oltp_point_select " + " ".join(sb_args(db, *base)) + " run"
    code, doc, err = run_json("checklist", *conn_args(db), "--no-calibrate", "--sysbench", cmd, "--format", "json")
    assert code == 0, err
    tls = next(it for it in doc["items"] if it["id"] == "sysbench-tls")
    assert tls["status"] == "pass" and "does not start TLS unless asked" in tls["evidence"]
    watch = db.connect()
    before = ssl_accepts(watch)
    sysbench(db, "oltp_point_select", "run", *base)
    assert ssl_accepts(watch) == before  # plain text, as the checklist said

    cmd_on = cmd.replace(" run", " --mysql-ssl=on run")
    code, doc, err = run_json("checklist", *conn_args(db), "--no-calibrate", "--sysbench", cmd_on, "--format", "json")
    tls = next(it for it in doc["items"] if it["id"] == "sysbench-tls")
    assert tls["status"] == "pass" and "encrypted by choice" in tls["evidence"]
    before = ssl_accepts(watch)
    sysbench(db, "oltp_point_select", "run", *base, "--mysql-ssl=on", cwd=str(tls_certs.dir))  # cacert.pem etc. here
    assert ssl_accepts(watch) - before >= 2  # one handshake per thread
    watch.close()


def test_local_sysbench_is_read():
    path = require_sysbench()
    local = read_local_sysbench()
    assert local.path == path and local.version and local.version == parse_version_output(
        subprocess.run([path, "--version"], capture_output=True, text=True).stdout)
    lib, file, resolved = parse_ldd(subprocess.run(["ldd", path], capture_output=True, text=True).stdout)
    assert (local.library, local.library_file) == (lib, file)
    assert local.library_version and re.match(r"\d+\.\d+", local.library_version)
