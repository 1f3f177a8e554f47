"""Issue 23 §7, sysbench: command lines found on real data, run through `advisor checklist --sysbench` against a
collected MariaDB 10.11 snapshot, with the sysbench 1.0.20 installed here detected, and the claims checked against
that real binary (`sysbench <test> ... help` parses every option and stops with "invalid option" as `run` does)."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from tests.support.cli import run_json
from tests.support.tools import require_tool

INPUTS = Path(__file__).resolve().parents[1] / "golden" / "checklist" / "inputs"


def items(line: str, snapshot: str = "default", tmp: Path | None = None, status: dict | None = None) -> dict:
    path = INPUTS / f"mariadb-10.11-{snapshot}.json"
    if status and tmp is not None:
        doc = json.loads(path.read_text())
        doc["server"]["status"].update(status)
        path = tmp / "snap.json"
        path.write_text(json.dumps(doc))
    code, doc, err = run_json("checklist", "--snapshot", str(path), "--sysbench", line, "--format", "json")
    assert doc is not None, err
    return {it["id"]: it for it in doc["items"] if it["id"].startswith("sysbench-")}


def real_sysbench(command: str) -> subprocess.CompletedProcess:
    """The command run by the real sysbench with `help` as its command word (options parsed, nothing run)."""
    require_tool("sysbench")
    words = shlex.split(command)
    assert words[0] == "sysbench"
    return subprocess.run(words[:-1] + ["help"], capture_output=True, text=True, timeout=60)


def test_warmup_time_is_not_passed_on_sysbench_1_0():
    line = ("sysbench oltp_read_write --mysql-host=127.0.0.1 --threads=4 --time=300 --warmup-time=60 --tables=10 "
            "--table-size=1000000 run")
    assert "invalid option: --warmup-time=60" in real_sysbench(line).stdout + real_sysbench(line).stderr
    it = items(line)
    w = it["sysbench-warmup"]
    assert w["status"] == "fail" and "1.0.20" in w["evidence"] and "1.1 runs the load" not in w["evidence"]
    fixed = w["fix"].split("`")[1]
    assert "--warmup-time" not in fixed and fixed.endswith(" prewarm")
    p = real_sysbench(fixed)
    assert p.returncode == 0 and "invalid option" not in p.stdout + p.stderr


def test_legacy_oltp_test_gets_a_command_sysbench_1_0_runs_and_its_tables():
    line = ("sysbench --test=oltp --oltp-tables-count=10 --oltp-table-size=100000 --oltp-dist-type=uniform "
            "--num-threads=8 --max-time=60 --mysql-host=127.0.0.1 run")
    p = real_sysbench(line)
    assert "Cannot find benchmark 'oltp'" in p.stdout + p.stderr
    it = items(line)
    cl = it["sysbench-command-line"]
    assert cl["status"] == "fail" and "Cannot find benchmark" in cl["evidence"]
    fixed = cl["fix"].split("`")[1]
    assert fixed.startswith("sysbench oltp_read_write ") and "--tables=10 --table-size=100000" in fixed
    p = real_sysbench(fixed)
    assert p.returncode == 0 and "invalid option" not in p.stdout + p.stderr, p.stdout + p.stderr
    ds = it["sysbench-dataset"]["evidence"]
    assert "custom script" not in ds and "10 tables × 100,000 rows" in ds


def test_threads_against_the_free_connections(tmp_path):
    line = "sysbench oltp_read_write --mysql-host=127.0.0.1 --threads=100 --time=300 --tables=1 --table-size=1000 run"
    mc = items(line, tmp=tmp_path, status={"Threads_connected": "102"})["sysbench-max-connections"]
    assert mc["status"] == "fail" and "151 < 100" not in mc["evidence"]
    assert "100 threads > 50 free connections" in mc["evidence"] and "Threads_connected" in mc["evidence"]


def test_tls_mode_on_an_unknown_host_is_not_called_a_socket():
    line = "sysbench oltp_read_only --mysql-host=db.invalid --mysql-ssl=DISABLED --threads=4 --time=60 run"
    assert "invalid option: --mysql-ssl=DISABLED" in (lambda p: p.stdout + p.stderr)(real_sysbench(line))
    tls = items(line, "tls")["sysbench-tls"]
    assert tls["status"] == "fail" and "Unix socket" not in tls["evidence"] and "1.1 sets" not in tls["evidence"]
    tls = items("sysbench oltp_read_only $OPTS --mysql-ssl=off --threads=4 --time=60 run", "tls")["sysbench-tls"]
    assert tls["status"] == "unknown" and "connects through a Unix socket;" not in tls["evidence"]


def test_messages_on_shell_variables_read_as_sentences():
    cl = items("sysbench $testname --threads=4 --time=60 run")["sysbench-command-line"]
    assert "exists for $testname" not in cl["evidence"]
    tg = items("sysbench oltp_read_write $OPTS --threads=4 run")["sysbench-target"]
    assert "address is --mysql-host" not in tg["evidence"] and "address is not known: " in tg["evidence"]
