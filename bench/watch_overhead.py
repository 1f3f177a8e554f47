"""What `advisor watch` costs at a 1 s interval: its own CPU and the statements it sends, against an idle
server and while sysbench runs, measured two ways side by side.

    python3 -m bench.watch_overhead [--quick]

- internal: the CPU time the watcher counts for its sampling intervals (time.process_time over
  every thread of the process: the loop, the command's output reader) over the run's duration;
- external: utime + stime of the advisor process from /proc/PID/stat, read by this script a few
  seconds after start, once the audit's thread (the one at nice 10) has ended, and shortly before
  the end: the steady state;
- statements: the server's Questions counter read by this script over the same window, less its
  own two reads, per second.

And its start-up, time to the first sample (issue 25 item 4), over alternated runs (a watch of
--seconds 1, then one of a 1 s command, and so on) with medians:

- wall: from just before this script starts the process to the first sample's wall time in the saved
  run (`startup.first_sample_at`), and the run's own `startup.first_sample_s` (from the process's
  /proc start time);
- CPU before the first sample (`startup.cpu_before_first_sample_s`, the whole process's);
- when the audit, which runs beside the sampling, finished (`startup.audit_done_s`) and its CPU.

The load average at the start is printed with the figures: on a busy machine the wall times grow.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
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


def niced_threads(pid: int) -> int:
    """Threads of the process niced below its main thread: the audit's, while it runs beside the sampling."""
    def nice(tid: str) -> int:
        return int(Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()[16])

    n = 0
    try:
        main = nice(str(pid))
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                n += nice(tid) > main
            except (OSError, ValueError, IndexError):
                pass
    except (OSError, ValueError, IndexError):
        return 0
    return n


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
        start = time.monotonic()
        while niced_threads(p.pid) and time.monotonic() - start < seconds - 9:  # the audit still runs
            time.sleep(0.2)
        c0, q0, t0 = proc_cpu(p.pid), questions(db), time.monotonic()
        time.sleep(max(1.0, seconds - 7 - (t0 - start)))
        c1, q1, t1 = proc_cpu(p.pid), questions(db), time.monotonic()
        p.wait(timeout=seconds + 60)
    run = json.loads(saved.read_text())
    ivs = run["intervals"]
    window = t1 - t0
    return {"scenario": "sysbench point_select, 4 threads" if load else "idle server",
            "intervals": len(ivs), "internal": run["watcher_cpu_s"] / run["duration_s"],
            "external": (c1 - c0) / window, "statements": (q1 - q0 - 2) / window,
            "sample_ms": sorted(iv["server"]["sample_ms"] for iv in ivs if iv["server"])[len(ivs) // 2]}


def wall_of(iso: str) -> float:
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def startup_once(advisor: str, db: MariaDB, command: bool, workdir: Path) -> dict:
    saved = workdir / "startup.json"
    cmd = [advisor, "watch", "--host", db.host, "--port", str(db.port), "--user", "root", "--no-defaults",
           "--interval", "1", "--save", str(saved), "--quiet", "--format", "json"]
    cmd += ["--", "sleep", "1"] if command else ["--seconds", "1"]
    t0 = time.time()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env={**os.environ, "HOME": "/nonexistent"}, timeout=120)
    st = json.loads(saved.read_text())["startup"]
    return {"wall": wall_of(st["first_sample_at"]) - t0, "own": st["first_sample_s"],
            "cpu": st["cpu_before_first_sample_s"], "audit_done": st["audit_done_s"], "audit_cpu": st["audit_cpu_s"],
            "before_audit": st["first_sample_s"] < st["audit_done_s"]}


def startup(advisor: str, db: MariaDB, runs: int, workdir: Path) -> dict:
    load = os.getloadavg()[0]
    got = [startup_once(advisor, db, i % 2 == 1, workdir) for i in range(runs)]
    med = {k: statistics.median(g[k] for g in got) for k in ("wall", "own", "cpu", "audit_done", "audit_cpu")}
    return {"runs": runs, "load": load, "median": med, "before_audit": sum(g["before_audit"] for g in got),
            "spread_wall": [min(g["wall"] for g in got), max(g["wall"] for g in got)]}


def run(quick: bool) -> dict:
    seconds = 15 if quick else 40
    advisor = installed_advisor()
    rows = []
    with MariaDB() as db, tempfile.TemporaryDirectory() as tmp:
        log(f"bench: watch start-up, {4 if quick else 10} alternated runs ...")
        start = startup(advisor, db, 4 if quick else 10, Path(tmp))
        db.query("CREATE DATABASE sbtest")
        subprocess.run(["sysbench", "oltp_point_select", f"--mysql-host={db.host}", f"--mysql-port={db.port}",
                        "--mysql-user=root", "--mysql-db=sbtest", "--tables=1", "--table-size=10000", "prepare"],
                       check=True, capture_output=True)
        for load in (False, True):
            log(f"bench: watch overhead, {'loaded' if load else 'idle'}, {seconds} s ...")
            rows.append(one(advisor, db, seconds, load, Path(tmp)))
    return {"machine": machine(), "seconds": seconds, "rows": rows, "startup": start}


def render(res: dict) -> str:
    rows = [[r["scenario"], r["intervals"], f"{r['internal'] * 100:.2f} %", f"{r['external'] * 100:.2f} %",
             f"{r['statements']:.2f}", f"{r['sample_ms']:.1f}"] for r in res["rows"]]
    return (f"Machine: {res['machine']}; {res['seconds']} s per scenario, interval 1 s.\n\n"
            + table(["scenario", "intervals", "watcher CPU (internal)", "watcher CPU (external, steady state)",
                     "statements/s", "server sample ms (median)"], rows) + "\n\n" + render_startup(res["startup"]))


def render_startup(st: dict) -> str:
    m = st["median"]
    return (f"Start-up, {st['runs']} alternated runs (--seconds 1 / -- sleep 1), medians; load average "
            f"{st['load']:.1f} at the start:\n\n"
            + table(["to the first sample (from the spawn)", "(from the process's start)", "CPU before it",
                     "audit done (from the process's start)", "audit CPU", "first sample before the audit ended"],
                    [[f"{m['wall']:.2f} s ({st['spread_wall'][0]:.2f}-{st['spread_wall'][1]:.2f})", f"{m['own']:.2f} s",
                      f"{m['cpu']:.2f} s", f"{m['audit_done']:.2f} s", f"{m['audit_cpu']:.2f} s",
                      f"{st['before_audit']} of {st['runs']}"]]) + "\n")


if __name__ == "__main__":
    quick_main(run, render)
