"""`advisor watch` on the scenarios whose outcome depends on this machine's speed, side by side:

    python3 -m bench.watch_scenarios [--quick]

- oltp_point_select to a server in a network namespace over a veth pair: unshaped, tbf 100 Mbit/s
  and tbf 10 Mbit/s (does the 100 Mbit link saturate before the CPUs do?);
- oltp_point_select over loopback, TLS required vs disabled (TPS and system time side by side);
- oltp_read_only on a 138 MiB table with a 32 MiB and a 1 GiB buffer pool;
- the verdict of each run, its key numbers and the watcher's own CPU.
The tests (tests/integration/test_watch_live.py) assert only what does not depend on speed.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from bench.common import installed_advisor, log, machine, quick_main, table
from tests.support.certs import make_certs
from tests.support.mariadb import MariaDB
from tests.support.netns import NetNS


def sb(db: MariaDB, test: str, size: int, *extra: str) -> list[str]:
    return ["sysbench", test, f"--mysql-host={db.host}", f"--mysql-port={db.port}", "--mysql-user=root",
            "--mysql-db=sbtest", "--tables=1", f"--table-size={size}", *extra]


def prepare(db: MariaDB, test: str, size: int) -> None:
    db.query("CREATE DATABASE sbtest")
    subprocess.run(sb(db, test, size) + ["prepare"], check=True, capture_output=True)


def watch(advisor: str, db: MariaDB, bench: list[str], cwd: Optional[str] = None, baseline: Optional[str] = None,
          save: Optional[str] = None) -> dict:
    cmd = [advisor, "watch", "--host", db.host, "--port", str(db.port), "--user", "root", "--no-defaults",
           "--format", "json"]
    cmd += ["--baseline", baseline] if baseline else []
    cmd += ["--save", save] if save else []
    p = subprocess.run(cmd + ["--", *bench], capture_output=True, text=True, cwd=cwd, timeout=600,
                       env={**os.environ, "HOME": "/nonexistent"})
    rep = json.loads(p.stdout)
    rep["_rc"] = p.returncode
    return rep


def row(name: str, rep: dict) -> list[str]:
    s = rep["summary"]
    pct = lambda k: f"{s[k] * 100:.0f} %" if k in s else "-"  # noqa: E731
    num = lambda k, d=0: f"{s[k]:,.{d}f}" if k in s else "-"  # noqa: E731
    run = rep["run"]
    return [name, f"{num('watch.tps')}", ", ".join(rep["verdict"]["fired"]) or "-", pct("watch.server.cpu.busy"),
            pct("watch.server.cpu.system_of_busy"), num("watch.server.mysqld.cores", 2),
            num("watch.client.command.cores", 2), num("watch.server.other.cores", 2),
            (f"{s['watch.net.mbytes_per_s']:.2f} MB/s, {s['watch.net.utilisation'] * 100:.0f} % of "
             f"{s['watch.net.ceiling_mbps']:,.0f} Mb/s" if "watch.net.utilisation" in s else "-"),
            pct("watch.bp.miss_rate"), f"{run['watcher_cpu_s'] / run['duration_s'] * 100:.2f} %"]


def run(quick: bool) -> dict:
    seconds = "8" if quick else "20"
    advisor = installed_advisor()
    rows: list[list[str]] = []
    ps = ["--threads=16", f"--time={seconds}", "--report-interval=1", "run"]
    for rate in (None, "100mbit", "10mbit"):
        log(f"bench: point_select over a veth pair, {rate or 'unshaped'} ...")
        with NetNS(rate=rate) as ns, MariaDB(netns=ns) as db:
            prepare(db, "oltp_point_select", 10000)
            rows.append(row(f"point_select 16 thr, veth {rate or 'unshaped'}", watch(advisor, db, sb(db, "oltp_point_select", 10000, *ps))))
    for rate in (None, "100mbit"):
        log(f"bench: read_only with 1000-row ranges over a veth pair, {rate or 'unshaped'} ...")
        with NetNS(rate=rate) as ns, MariaDB(netns=ns) as db:
            prepare(db, "oltp_read_only", 10000)
            wide = sb(db, "oltp_read_only", 10000, "--range-size=1000", "--skip-trx=on", "--threads=8",
                      f"--time={seconds}", "--report-interval=1", "run")
            rows.append(row(f"read_only 1000-row ranges 8 thr, veth {rate or 'unshaped'}", watch(advisor, db, wide)))
    with tempfile.TemporaryDirectory() as tmp:
        certs = make_certs(Path(tmp) / "tls")
        log("bench: point_select over loopback, TLS disabled then required ...")
        with MariaDB(tls=certs) as db:
            prepare(db, "oltp_point_select", 10000)
            tb = ["--threads=8", f"--time={seconds}", "--report-interval=1"]
            plain = str(Path(tmp) / "plain.json")
            rows.append(row("point_select 8 thr, loopback, TLS off", watch(
                advisor, db, sb(db, "oltp_point_select", 10000, *tb, "--mysql-ssl=off", "run"), str(certs.dir), save=plain)))
            db.query("SET GLOBAL require_secure_transport = ON")
            rows.append(row("point_select 8 thr, loopback, TLS required", watch(
                advisor, db, sb(db, "oltp_point_select", 10000, *tb, "--mysql-ssl=on", "run"), str(certs.dir),
                baseline=plain)))
    for pool in ("32M", "1G"):
        log(f"bench: read_only, 600,000 rows, buffer pool {pool} ...")
        with MariaDB(options={"innodb-buffer-pool-size": pool}) as db:
            prepare(db, "oltp_read_only", 600_000)
            ro = sb(db, "oltp_read_only", 600_000, "--rand-type=uniform", "--threads=8", f"--time={seconds}",
                    "--report-interval=1", "run")
            rows.append(row(f"read_only 8 thr, 138 MiB table, pool {pool}", watch(advisor, db, ro)))
    return {"machine": machine(), "seconds": seconds, "rows": rows}


def render(res: dict) -> str:
    head = ["run", "TPS", "verdicts (leading first)", "server CPU busy", "system of busy", "mysqld CPUs",
            "sysbench CPUs", "other CPUs", "network", "bp miss", "watcher CPU"]
    return f"Machine: {res['machine']}; {res['seconds']} s per run.\n\n" + table(head, res["rows"]) + "\n"


if __name__ == "__main__":
    quick_main(run, render)
