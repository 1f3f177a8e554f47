"""What `advisor watch` costs at a 1 s interval: its own CPU and the statements it sends, against an idle
server and while sysbench runs, measured two ways side by side.

    python3 -m bench.watch_overhead [--quick]

- internal: the CPU time the watcher counts for its sampling intervals (time.process_time over
  every thread of the process: the loop, the command's output reader) over the run's duration;
- external: utime + stime of the advisor process from /proc/PID/stat, read by this script a few
  seconds after start (after start-up and the audit) and shortly before the end: the steady state;
- statements: the server's Questions counter read by this script over the same window, less its
  own two reads, per second.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import installed_advisor, log, machine, quick_main, table
from tests.support.mariadb import MariaDB

CLK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> float:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / CLK


def questions(db: MariaDB) -> int:
    return int(db.query("SHOW GLOBAL STATUS LIKE 'Questions'")[0][1])


def one(advisor: str, db: MariaDB, seconds: int, load: bool, workdir: Path) -> dict:
    saved = workdir / f"{'load' if load else 'idle'}.json"
    cmd = [advisor, "watch", "--host", db.host, "--port", str(db.port), "--user", "root", "--no-defaults",
           "--interval", "1", "--save", str(saved)]
    if load:
        cmd += ["--", "sysbench", "oltp_point_select", f"--mysql-host={db.host}", f"--mysql-port={db.port}",
                "--mysql-user=root", "--mysql-db=sbtest", "--tables=1", "--table-size=10000", "--threads=4",
                f"--time={seconds}", "--report-interval=1", "run"]
    else:
        cmd += ["--seconds", str(seconds)]
    with open(workdir / "out.txt", "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "HOME": "/nonexistent"})
        time.sleep(5)
        c0, q0, t0 = proc_cpu(p.pid), questions(db), time.monotonic()
        time.sleep(seconds - 7)
        c1, q1, t1 = proc_cpu(p.pid), questions(db), time.monotonic()
        p.wait(timeout=seconds + 60)
    run = json.loads(saved.read_text())
    ivs = run["intervals"]
    window = t1 - t0
    return {"scenario": "sysbench point_select, 4 threads" if load else "idle server",
            "intervals": len(ivs), "internal": run["watcher_cpu_s"] / run["duration_s"],
            "external": (c1 - c0) / window, "statements": (q1 - q0 - 2) / window,
            "sample_ms": sorted(iv["server"]["sample_ms"] for iv in ivs if iv["server"])[len(ivs) // 2]}


def run(quick: bool) -> dict:
    seconds = 15 if quick else 40
    advisor = installed_advisor()
    rows = []
    with MariaDB() as db, tempfile.TemporaryDirectory() as tmp:
        db.query("CREATE DATABASE sbtest")
        subprocess.run(["sysbench", "oltp_point_select", f"--mysql-host={db.host}", f"--mysql-port={db.port}",
                        "--mysql-user=root", "--mysql-db=sbtest", "--tables=1", "--table-size=10000", "prepare"],
                       check=True, capture_output=True)
        for load in (False, True):
            log(f"bench: watch overhead, {'loaded' if load else 'idle'}, {seconds} s ...")
            rows.append(one(advisor, db, seconds, load, Path(tmp)))
    return {"machine": machine(), "seconds": seconds, "rows": rows}


def render(res: dict) -> str:
    rows = [[r["scenario"], r["intervals"], f"{r['internal'] * 100:.2f} %", f"{r['external'] * 100:.2f} %",
             f"{r['statements']:.2f}", f"{r['sample_ms']:.1f}"] for r in res["rows"]]
    return (f"Machine: {res['machine']}; {res['seconds']} s per scenario, interval 1 s.\n\n"
            + table(["scenario", "intervals", "watcher CPU (internal)", "watcher CPU (external, steady state)",
                     "statements/s", "server sample ms (median)"], rows) + "\n")


if __name__ == "__main__":
    quick_main(run, render)
