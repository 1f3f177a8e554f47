"""Outcome: sysbench on a mis-configured throwaway mariadbd, then on the same data after applying
`advisor mycnf`'s drop-in (restart with it) and following the audit's TLS fix, and on the
default configuration. TPS and p95 latency, alternated runs, ratios.

Pitfalls seeded (KNOWLEDGE.md §9 lists which reproduce on this machine):
  - TLS negotiated by the client: Debian's sysbench 1.0.20 links libmariadb, which stays plain
    unless asked, so the mis-configured runs pass --mysql-ssl=on, which is what a client linked
    with libmysqlclient ≥ 5.7.11 does by default (ssl-mode PREFERRED) when the server has certs.
  - buffer pool far below the dataset (32M against ~240-480 MB).
  - sort_buffer_size 32M and a 48M redo log: seeded too, expected NOT to reproduce here
    (MariaDB sizes the sort buffer by the row estimate; this VM's disk flushes fast).

    python3 -m bench.outcome [--quick]
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from bench.common import OUT, ensure_packages, installed_advisor, log, median, quick_main, table
from tests.support.certs import make_certs
from tests.support.mariadb import MariaDB, find_mariadbd

MIS = {"innodb_buffer_pool_size": "32M", "sort_buffer_size": "32M", "innodb_log_file_size": "48M"}


@dataclass
class RunResult:
    config: str
    workload: str
    tps: float
    p95_ms: float
    ok: bool
    note: str = ""


def parse_sysbench(out: str) -> tuple[Optional[float], Optional[float]]:
    tps = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", out)
    p95 = re.search(r"95th percentile:\s+([\d.]+)", out)
    return (float(tps.group(1)) if tps else None, float(p95.group(1)) if p95 else None)


class Server:
    """mariadbd on a copy of the prepared datadir, started with a my.cnf of our own."""

    def __init__(self, golden: Path, work: Path, cnf_text: str):
        self.work = work
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        self.datadir = work / "data"
        shutil.copytree(golden, self.datadir, symlinks=True)
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.cnf = work / "my.cnf"
        self.cnf.write_text(
            "[mysqld]\n"
            f"datadir={self.datadir}\nsocket={work}/s.sock\nport={self.port}\nbind-address=127.0.0.1\n"
            f"pid-file={work}/m.pid\nlog-error={work}/error.log\ntmpdir={work}\nuser=root\n"
            "skip-log-bin\nskip-name-resolve\n" + cnf_text)
        self.proc = subprocess.Popen([find_mariadbd(), f"--defaults-file={self.cnf}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        import pymysql

        while True:
            try:
                pymysql.connect(host="127.0.0.1", port=self.port, user="root", password="", connect_timeout=1).close()
                break
            except pymysql.err.OperationalError:
                if self.proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"mariadbd did not start:\n{(work / 'error.log').read_text()[-2000:]}")
                time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def sysbench(port: int, workload: str, seconds: int, tables: int, size: int, threads: int, tls: bool,
             cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = ["sysbench", workload, "--mysql-host=127.0.0.1", f"--mysql-port={port}", "--mysql-user=root",
           "--mysql-password=", "--mysql-db=sbtest", f"--tables={tables}", f"--table-size={size}",
           f"--threads={threads}", f"--time={seconds}", "--report-interval=0", "--rand-type=uniform",
           "--db-ps-mode=auto", f"--mysql-ssl={'on' if tls else 'off'}", "run"]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=seconds + 120)


def prepare(golden: Path, tables: int, size: int) -> None:
    if (golden / ".prepared").exists() and (golden / ".prepared").read_text() == f"{tables}x{size}":
        return
    log(f"outcome: preparing {tables} × {size:,} rows ...")
    with MariaDB(options={"innodb-buffer-pool-size": "1G", "innodb-log-file-size": "512M"}) as db:
        db.query("CREATE DATABASE sbtest")
        p = subprocess.run(["sysbench", "oltp_read_write", "--mysql-host=127.0.0.1", f"--mysql-port={db.port}",
                            "--mysql-user=root", "--mysql-password=", "--mysql-db=sbtest", f"--tables={tables}",
                            f"--table-size={size}", "--threads=2", "prepare"], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stdout + p.stderr)
        for i in range(1, tables + 1):
            db.query(f"ANALYZE TABLE sbtest.sbtest{i}")
        size_b = db.query("SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES "
                          "WHERE TABLE_SCHEMA = 'sbtest'")[0][0]
        db.stop()
        if golden.exists():
            shutil.rmtree(golden)
        shutil.copytree(db.datadir, golden, symlinks=True)
    (golden / ".prepared").write_text(f"{tables}x{size}")
    (golden / ".bytes").write_text(str(int(size_b)))


def run(quick: bool = False) -> dict:
    ensure_packages({"sysbench": "sysbench"})
    advisor = installed_advisor()
    tables, size = (2, 500_000) if quick else (2, 1_000_000)
    seconds, warm, reps, threads = (15, 8, 2, 4) if quick else (30, 15, 3, 4)
    root = OUT / "outcome"
    root.mkdir(parents=True, exist_ok=True)
    golden = root / "golden"
    prepare(golden, tables, size)
    data_bytes = int((golden / ".bytes").read_text())
    certs = make_certs(root / "certs")
    tls_opts = f"ssl-ca={certs.ca}\nssl-cert={certs.server_cert}\nssl-key={certs.server_key}\n"
    mis_text = tls_opts + "".join(f"{k}={v}\n" for k, v in MIS.items())

    # The advisor's drop-in, written from the running mis-configured server.
    srv = Server(golden, root / "mis-for-advisor", mis_text)
    try:
        p = subprocess.run([advisor, "mycnf", "--host", "127.0.0.1", "--port", str(srv.port), "--user", "root",
                            "--no-defaults", "--purpose", "benchmark", "-o", str(root / "99-advisor.cnf")],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr)
        audit = subprocess.run([advisor, "audit", "--host", "127.0.0.1", "--port", str(srv.port), "--user", "root",
                                "--no-defaults", "--purpose", "benchmark", "--no-calibrate", "--format", "json"],
                               capture_output=True, text=True)
    finally:
        srv.stop()
    import json

    fired = sorted({f["rule"] for f in json.loads(audit.stdout)["findings"]})
    dropin = (root / "99-advisor.cnf").read_text()
    settings = [line.strip() for line in dropin.splitlines() if re.match(r"^[a-z_]+\s*=", line.strip())]

    bp = next((x.split("=", 1)[1].strip() for x in settings if x.startswith("innodb_buffer_pool_size")), None)
    configs = {
        # name: (my.cnf text, client negotiates TLS)
        "mis-configured": (mis_text, True),
        # only the drop-in's buffer pool: separates its effect from sort buffer, redo and log buffer
        "only the drop-in's buffer pool, TLS": (mis_text + (f"innodb_buffer_pool_size={bp}\n" if bp else ""), True),
        "advisor drop-in, client still on TLS": (mis_text + f"!include {root / '99-advisor.cnf'}\n", True),
        "advisor drop-in + TLS fix": (mis_text + f"!include {root / '99-advisor.cnf'}\n", False),
        "default config": ("", False),
    }
    results: list[RunResult] = []
    for workload in ("oltp_point_select", "oltp_read_write"):
        for rep in range(reps):
            names = list(configs)
            for name in names[rep % len(names):] + names[: rep % len(names)]:
                text, tls = configs[name]
                srv = Server(golden, root / "run", text)
                try:
                    sysbench(srv.port, workload, warm, tables, size, threads, tls, certs.dir)  # warm-up
                    p = sysbench(srv.port, workload, seconds, tables, size, threads, tls, certs.dir)
                finally:
                    srv.stop()
                tps, p95 = parse_sysbench(p.stdout)
                ok = p.returncode == 0 and tps is not None
                results.append(RunResult(name, workload, tps or 0.0, p95 or 0.0, ok,
                                         "" if ok else (p.stdout + p.stderr)[-300:]))
                log(f"outcome: {workload} rep {rep + 1} {name}: {tps} TPS, p95 {p95} ms")
    return {"results": results, "configs": list(configs), "fired": fired, "settings": settings,
            "data_bytes": data_bytes, "tables": tables, "size": size, "seconds": seconds, "reps": reps,
            "threads": threads, "dropin": dropin}


def render(r: dict) -> str:
    rows = []
    for workload in ("oltp_point_select", "oltp_read_write"):
        med = {}
        for name in r["configs"]:
            rs = [x for x in r["results"] if x.workload == workload and x.config == name and x.ok]
            med[name] = (median([x.tps for x in rs]), median([x.p95_ms for x in rs]), len(rs),
                         min((x.tps for x in rs), default=0), max((x.tps for x in rs), default=0))
        base_tps, base_p95 = med["mis-configured"][:2]
        for name, (tps, p95, n, lo, hi) in med.items():
            rows.append((workload, name, f"{tps:,.0f}", f"{lo:,.0f}–{hi:,.0f}", f"{p95:.2f}", f"{tps / base_tps:.2f}",
                         f"{p95 / base_p95:.2f}" if base_p95 else "", n))
    def m(workload: str, name: str) -> float:
        return median([x.tps for x in r["results"] if x.workload == workload and x.config == name and x.ok])

    def spread(workload: str, name: str) -> float:
        xs = [x.tps for x in r["results"] if x.workload == workload and x.config == name and x.ok]
        return (max(xs) - min(xs)) / median(xs) if xs else 0.0

    notes = []
    for w in ("oltp_point_select", "oltp_read_write"):
        mis, bp = m(w, "mis-configured"), m(w, "only the drop-in's buffer pool, TLS")
        dropin, fixed = m(w, "advisor drop-in, client still on TLS"), m(w, "advisor drop-in + TLS fix")
        rest = dropin / bp
        noise = max(spread(w, "only the drop-in's buffer pool, TLS"), spread(w, "advisor drop-in, client still on TLS"))
        verdict = ("within the run-to-run spread of those two rows "
                   f"({noise:.0%}): **did not reproduce**" if abs(rest - 1) <= max(noise, 0.05)
                   else f"beyond the run-to-run spread ({noise:.0%})")
        notes.append(
            f"- {w}: the buffer pool alone gave {bp / mis:.2f}× TPS; the rest of the drop-in (sort_buffer_size "
            f"32M → 2M, 48M redo → 2G, log buffer) {rest:.2f}× on top, {verdict}; turning TLS off in the client, "
            f"as the audit's tls-in-use fix says, {fixed / dropin:.2f}× more.")
    fixed_ratio = {w: m(w, "advisor drop-in + TLS fix") / m(w, "mis-configured") for w in ("oltp_point_select", "oltp_read_write")}
    default_ratio = {w: m(w, "advisor drop-in + TLS fix") / m(w, "default config") for w in ("oltp_point_select", "oltp_read_write")}
    out = [f"With the advisor's drop-in and its TLS fix, TPS was {fixed_ratio['oltp_point_select']:.2f}× the "
           f"mis-configured server's on oltp_point_select and {fixed_ratio['oltp_read_write']:.2f}× on "
           f"oltp_read_write ({default_ratio['oltp_point_select']:.2f}× and {default_ratio['oltp_read_write']:.2f}× "
           "the default configuration's).", "",
           "Which pitfalls reproduced here:", "", *notes, "",
           "The buffer pool far below the data and TLS negotiated by the client reproduce, as measured on this "
           "machine before (KNOWLEDGE.md §9). The sort buffer and the small redo log are not expected to: "
           "MariaDB sizes its up-front sort allocation by the row estimate and sysbench's sorts are 100-row "
           "ranges, and this VM's disk acknowledges flushes quickly. The drop-in changes them together with the "
           "log buffer and max_connections, so the row 'rest of the drop-in' cannot attribute a difference to "
           "one of them, and on this shared 2-core VM such single-digit differences move between runs of the "
           "script. The advisor still reports both (the rules weigh flavor, version and, where calibration ran, "
           "the measured sort ratio and flush latency). max_connections below the client threads is not in this "
           "table: sysbench then fails at once (error 1040), and `advisor checklist --sysbench` catches it "
           "before the run.", "",
           f"Data: {r['tables']} tables × {r['size']:,} rows = {r['data_bytes'] / (1 << 20):,.0f} MiB (data + index); "
           f"{r['threads']} threads, {r['seconds']} s per run after a warm-up, {r['reps']} alternated runs per "
           "configuration; medians.", "",
           table(["workload", "configuration", "TPS (median)", "TPS range", "p95 ms", "TPS / mis-configured",
                  "p95 / mis-configured", "runs"],
                 rows), "",
           "Findings of the audit on the mis-configured server: " + ", ".join(f"`{x}`" for x in r["fired"]), "",
           "Settings in the advisor's drop-in: " + "; ".join(f"`{s}`" for s in r["settings"])]
    return "\n".join(out)


def main() -> None:
    quick_main(run, render)


if __name__ == "__main__":
    main()
