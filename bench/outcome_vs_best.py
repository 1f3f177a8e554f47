"""The advice measured against the best: the advisor's drop-in as a share of the best configuration a
search finds, per workload and data size (issue 27).

For each case (workload × data that fits in memory / data about 3× the memory mariadbd may use):
  - mariadbd runs in a cgroup v1 memory cgroup whose limit is the memory it may use, so that the
    advisor's host facts read the limit as the server's memory (as a container's would);
  - `advisor mycnf` writes its drop-in from the running stock server and from a running mis-configured
    server (the same data), and `advisor mycnf --profile` from the same hardware with no server;
  - optuna's TPE sampler searches the knobs that matter within a fixed trial budget; each trial restarts
    mariadbd on the case's datadir with the trial's settings, warms up with sysbench, then measures;
  - durability is held as the production purpose says, in every configuration alike:
    innodb_flush_log_at_trx_commit=1, sync_binlog=1 with the binary log on, doublewrite on;
  - stock, mis-configured, the three drop-ins and the search's best are then re-run the same number of
    times, alternated, and the table gives medians with their range and the drop-in's TPS as a share of
    the best's.

    python3 -m bench.outcome_vs_best [--quick] [--trials N] [--runs N] [--seconds S] [--device ram]

With `--device ram` every datadir sits on an ext4 file system on a loop device backed by a fully
written file in /dev/shm: a fast device whose flushes take the same time every run, so that the spread
is the configuration's, not a shared disk's (on a VM's shared disk one configuration's durable-write TPS
varied threefold between runs). The backing file is written in full before mariadbd starts, so that
mariadbd's writes land on pages already charged outside its memory cgroup, and the file system is made
and mounted without discard, so that no page is handed back and charged again.

Run it as root (cgroups, drop_caches). It prints Markdown for docs/benchmarks.md and writes
bench/out/outcome_vs_best/results.json as it goes (a rerun with --render-only prints the table again).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

from bench.common import OUT, ensure_packages, installed_advisor, log, machine, median, table
from tests.support.mariadb import MariaDB, find_mariadbd

WORKLOADS = ("oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_point_select")
MEM_LIMIT = 1 << 30  # what mariadbd may use: the memory cgroup's limit (the advisor sizes from 1 GiB up)
DATA = {
    # name: (tables, rows per table); sysbench rows take ~225 bytes with the secondary index
    "fits": (4, 200_000),         # ~210 MiB against 1 GiB
    "3x-memory": (12, 1_000_000),  # ~3.1 GiB against 1 GiB
}
THREADS = 4
DURABLE = ("innodb_flush_log_at_trx_commit=1\nsync_binlog=1\ninnodb_doublewrite=1\n"
           "log_bin=binlog\nbinlog_format=ROW\n")
# What the production purpose asks of every server besides durability, and every drop-in turns on: the search
# tunes with it on too, so the comparison is between tunings, not between observed and unobserved servers.
OBSERVED = {"performance_schema": "ON", "slow_query_log": "ON", "long_query_time": "1"}
MIS = {"innodb_buffer_pool_size": "32M", "sort_buffer_size": "32M", "join_buffer_size": "32M",
       "innodb_log_file_size": "48M", "innodb_log_buffer_size": "1M", "table_open_cache": "16",
       "thread_cache_size": "0", "innodb_io_capacity": "100", "innodb_io_capacity_max": "200",
       "innodb_adaptive_hash_index": "ON", "tmp_table_size": "1M", "max_heap_table_size": "1M"}
CG = Path("/sys/fs/cgroup/memory/advisor-outcome-vs-best")
RESULTS = OUT / "outcome_vs_best"


# --- the server ---------------------------------------------------------------------------------

def cgroup() -> Path:
    CG.mkdir(exist_ok=True)
    (CG / "memory.limit_in_bytes").write_text(str(MEM_LIMIT))
    try:
        (CG / "memory.swappiness").write_text("0")
    except OSError:
        pass
    return CG


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """mariadbd on a case's datadir in the memory cgroup, at high CPU priority (the machine is shared)."""

    def __init__(self, datadir: Path, work: Path, cnf_text: str):
        self.work = work
        work.mkdir(parents=True, exist_ok=True)
        self.datadir = datadir
        self.port = _free_port()
        self.cnf = work / "my.cnf"
        self.log = work / "error.log"
        if self.log.exists():
            self.log.unlink()
        self.cnf.write_text(
            "[mysqld]\n"
            f"datadir={datadir}\nsocket={work}/s.sock\nport={self.port}\nbind-address=127.0.0.1\n"
            f"pid-file={work}/m.pid\nlog-error={self.log}\ntmpdir={work}\nuser=root\n"
            "skip-name-resolve\n" + cnf_text)
        procs = cgroup() / "cgroup.procs"

        def enter() -> None:
            procs.write_text(str(os.getpid()))
            os.nice(-15)

        self.proc = subprocess.Popen([find_mariadbd(), f"--defaults-file={self.cnf}"], preexec_fn=enter,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import pymysql

        deadline = time.time() + 180
        while True:
            try:
                pymysql.connect(host="127.0.0.1", port=self.port, user="root", password="",
                                connect_timeout=1).close()
                break
            except pymysql.err.OperationalError:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    tail = self.log.read_text(errors="replace")[-1500:] if self.log.exists() else ""
                    raise RuntimeError(f"mariadbd did not start with:\n{cnf_text}\n{tail}")
                time.sleep(0.3)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class RamDevice:
    """ext4 on a loop device over a fully written /dev/shm file, mounted at RESULTS / "ram"."""

    def __init__(self, gib: int):
        self.image = Path("/dev/shm/advisor-outcome-vs-best.img")
        self.mount = RESULTS / "ram"
        self.loop = ""
        self.gib = gib

    def __enter__(self) -> Path:
        self.mount.mkdir(parents=True, exist_ok=True)
        subprocess.run(["umount", str(self.mount)], capture_output=True)
        log(f"outcome_vs_best: writing a {self.gib} GiB RAM-backed device ...")
        subprocess.run(["dd", "if=/dev/zero", f"of={self.image}", "bs=16M", f"count={self.gib * 64}",
                        "status=none"], check=True)
        self.loop = subprocess.run(["losetup", "--find", "--show", str(self.image)], check=True,
                                   capture_output=True, text=True).stdout.strip()
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
                        self.loop], check=True)
        subprocess.run(["mount", "-o", "nodiscard,noatime", self.loop, str(self.mount)], check=True)
        return self.mount

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["umount", str(self.mount)], capture_output=True)
        if self.loop:
            subprocess.run(["losetup", "-d", self.loop], capture_output=True)
        self.image.unlink(missing_ok=True)


def drop_caches() -> None:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3")
    except OSError:
        pass


def sysbench(port: int, workload: str, seconds: int, tables: int, size: int) -> tuple[Optional[float], Optional[float], str]:
    cmd = ["nice", "-n", "-15", "sysbench", workload, "--mysql-host=127.0.0.1", f"--mysql-port={port}",
           "--mysql-user=root", "--mysql-password=", "--mysql-db=sbtest", f"--tables={tables}",
           f"--table-size={size}", f"--threads={THREADS}", f"--time={seconds}", "--report-interval=0",
           "--rand-type=uniform", "--db-ps-mode=auto", "--mysql-ssl=off", "run"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 180)
    tps = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", p.stdout)
    p95 = re.search(r"95th percentile:\s+([\d.]+)", p.stdout)
    if p.returncode != 0 or not tps:
        return None, None, (p.stdout + p.stderr)[-400:]
    return float(tps.group(1)), float(p95.group(1)) if p95 else None, ""


def prepare(name: str, tables: int, size: int) -> Path:
    golden = OUT / "outcome_vs_best" / f"golden-{name}"  # shared by both devices: the data are the same
    stamp = golden / ".prepared"
    if stamp.exists() and stamp.read_text() == f"{tables}x{size}":
        return golden
    log(f"outcome_vs_best: preparing {name}: {tables} × {size:,} rows ...")
    import tempfile

    # the loading server's datadir in RAM when there is room (it is copied to disk when loaded)
    shm = shutil.disk_usage("/dev/shm").free if Path("/dev/shm").is_dir() else 0
    tempfile.tempdir = "/dev/shm" if shm > 12 * (1 << 30) else None
    with MariaDB(options={"innodb-buffer-pool-size": "2G", "innodb-log-file-size": "1G",
                          "innodb-flush-log-at-trx-commit": "0"}) as db:
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
    tempfile.tempdir = None
    (golden / ".bytes").write_text(str(int(size_b)))
    stamp.write_text(f"{tables}x{size}")
    return golden


# --- configurations -----------------------------------------------------------------------------

def cnf(settings: dict[str, Any]) -> str:
    return "".join(f"{k}={v}\n" for k, v in settings.items())


def dropin_settings(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^\s*([a-z_][a-z0-9_-]*)\s*=\s*(.*?)\s*$", line)
        if m:
            out[m.group(1).replace("-", "_")] = m.group(2)
    return out


def sysbench_line(workload: str, tables: int, size: int, port: Optional[int] = None) -> str:
    where = f" --mysql-host=127.0.0.1 --mysql-port={port}" if port else ""
    return (f"sysbench {workload}{where} --mysql-user=root --mysql-db=sbtest --tables={tables} --table-size={size} "
            f"--threads={THREADS} --time=60 --rand-type=uniform run")


def advisor_dropins(advisor: str, datadir: Path, work: Path, workload: str, tables: int,
                    size: int) -> dict[str, dict[str, str]]:
    """The drop-ins: from the running stock server, from the running mis-configured one, from the profile.
    Each is told the benchmark's sysbench line, as a user preparing this run would."""
    out: dict[str, dict[str, str]] = {}
    for name, start in (("stock", DURABLE), ("mis-configured", DURABLE + cnf(MIS))):
        srv = Server(datadir, work / f"for-advisor-{name}", start)
        try:
            target = work / f"99-advisor-from-{name}.cnf"
            p = subprocess.run([advisor, "mycnf", "--host", "127.0.0.1", "--port", str(srv.port), "--user", "root",
                                "--no-defaults", "--purpose", "production", "-o", str(target),
                                "--sysbench", sysbench_line(workload, tables, size, srv.port)],
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                raise RuntimeError(f"advisor mycnf on the {name} server exited {p.returncode}:\n{p.stderr}")
            audit = subprocess.run([advisor, "audit", "--host", "127.0.0.1", "--port", str(srv.port), "--user", "root",
                                    "--no-defaults", "--purpose", "production", "--no-calibrate", "--format", "json"],
                                   capture_output=True, text=True, timeout=300)
            (work / f"audit-{name}.json").write_text(audit.stdout)
        finally:
            srv.stop()
        out[f"advisor from {name}"] = dropin_settings(target)
    target = work / "99-advisor-profile.cnf"
    p = subprocess.run([advisor, "mycnf", "--profile", "--ram", f"{MEM_LIMIT >> 20}M", "--cores", str(os.cpu_count()),
                        "--disk", "ssd", "--flavor", "mariadb", "--version", _mariadb_version(), "--workload", "oltp",
                        "--purpose", "production", "-o", str(target),
                        "--sysbench", sysbench_line(workload, tables, size)],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"advisor mycnf --profile exited {p.returncode}:\n{p.stderr}")
    out["advisor --profile"] = dropin_settings(target)
    return out


def _mariadb_version() -> str:
    v = subprocess.run([find_mariadbd(), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"(\d+\.\d+\.\d+)-MariaDB", v)
    return m.group(1) if m else "10.11"


def held(settings: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The settings with production durability restored; what had to be overridden."""
    fixed = dict(settings)
    changed = []
    for line in DURABLE.strip().splitlines():
        k, v = line.split("=", 1)
        if k in fixed and str(fixed[k]).lower() not in (v.lower(), "on" if v == "1" else v):
            changed.append(f"{k}={fixed[k]}")
        fixed[k] = v
    return fixed, changed


def search_space(trial: Any) -> dict[str, Any]:
    mib = MEM_LIMIT >> 20
    bp = trial.suggest_int("innodb_buffer_pool_size_mb", 64, int(mib * 0.85), log=True)
    iocap = trial.suggest_int("innodb_io_capacity", 100, 20000, log=True)
    return {
        "innodb_buffer_pool_size": f"{bp}M",
        "innodb_log_file_size": f"{trial.suggest_int('innodb_log_file_size_mb', 48, 2048, log=True)}M",
        "innodb_log_buffer_size": f"{trial.suggest_int('innodb_log_buffer_size_mb', 1, 128, log=True)}M",
        "innodb_flush_method": trial.suggest_categorical("innodb_flush_method", ["fsync", "O_DIRECT", "O_DIRECT_NO_FSYNC"]),
        "innodb_io_capacity": iocap,
        "innodb_io_capacity_max": int(iocap * trial.suggest_float("io_capacity_max_ratio", 1.0, 10.0)),
        "table_open_cache": trial.suggest_int("table_open_cache", 16, 4000, log=True),
        "thread_cache_size": trial.suggest_int("thread_cache_size", 0, 64),
        "sort_buffer_size": f"{trial.suggest_int('sort_buffer_size_kb', 32, 32768, log=True)}K",
        "join_buffer_size": f"{trial.suggest_int('join_buffer_size_kb', 128, 32768, log=True)}K",
        "tmp_table_size": f"{trial.suggest_int('tmp_table_size_mb', 1, 256, log=True)}M",
        "max_heap_table_size": f"{trial.suggest_int('tmp_table_size_mb', 1, 256, log=True)}M",
        "innodb_adaptive_hash_index": trial.suggest_categorical("innodb_adaptive_hash_index", ["ON", "OFF"]),
        "innodb_change_buffering": trial.suggest_categorical("innodb_change_buffering", ["none", "all"]),
        "innodb_flush_neighbors": trial.suggest_categorical("innodb_flush_neighbors", [0, 1]),
        "innodb_read_io_threads": trial.suggest_int("innodb_read_io_threads", 1, 8),
        "innodb_write_io_threads": trial.suggest_int("innodb_write_io_threads", 1, 8),
    }


STOCK_PARAMS = {  # MariaDB 10.11's own defaults, as the search's first trial
    "innodb_buffer_pool_size_mb": 128, "innodb_log_file_size_mb": 96, "innodb_log_buffer_size_mb": 16,
    "innodb_flush_method": "O_DIRECT", "innodb_io_capacity": 200, "io_capacity_max_ratio": 10.0,
    "table_open_cache": 2000, "thread_cache_size": 9, "sort_buffer_size_kb": 2048, "join_buffer_size_kb": 256,
    "tmp_table_size_mb": 16, "innodb_adaptive_hash_index": "OFF", "innodb_change_buffering": "none",
    "innodb_flush_neighbors": 1, "innodb_read_io_threads": 4, "innodb_write_io_threads": 4,
}


# --- measuring ----------------------------------------------------------------------------------

def measure(datadir: Path, work: Path, settings: dict[str, Any], workload: str, tables: int, size: int,
            warm: int, seconds: int) -> dict[str, Any]:
    drop_caches()
    try:
        srv = Server(datadir, work, DURABLE + cnf(settings))
    except RuntimeError as e:
        return {"tps": None, "p95": None, "error": str(e)[-600:]}
    try:
        sysbench(srv.port, workload, warm, tables, size)
        tps, p95, err = sysbench(srv.port, workload, seconds, tables, size)
    finally:
        srv.stop()
    if tps is None and srv.proc.returncode not in (0, None, -15):
        err = f"mariadbd exited {srv.proc.returncode} (out of memory in the cgroup?) " + err
    return {"tps": tps, "p95": p95, "error": err}


def run_case(advisor: str, workload: str, data: str, args: argparse.Namespace, results: dict) -> None:
    import optuna

    key = f"{workload}/{data}"
    previous = results["cases"].get(key)
    if previous and previous.get("done") and not args.rerun:
        return
    tables, size = DATA[data] if not args.quick else (2, 50_000 if data == "fits" else 400_000)
    golden = prepare(data + ("-quick" if args.quick else ""), tables, size)
    work = (args.ram or RESULTS) / "work"
    datadir = work / "data"
    if datadir.exists():
        shutil.rmtree(datadir)
    shutil.copytree(golden, datadir, symlinks=True)
    case: dict[str, Any] = {"workload": workload, "data": data, "tables": tables, "size": size,
                            "budget": {"trials": args.trials, "runs": args.runs},
                            "device": args.device,
                            "data_bytes": int((golden / ".bytes").read_text()), "trials": [], "runs": {}}
    results["cases"][key] = case
    dropins = advisor_dropins(advisor, datadir, work, workload, tables, size)
    case["dropins"] = {}
    configs: dict[str, dict[str, str]] = {"stock": {}, "mis-configured": dict(MIS)}
    for name, s in dropins.items():
        # the drop-in is included after the server's own settings, as `advisor mycnf` says to install it
        base = dict(MIS) if name == "advisor from mis-configured" else {}
        fixed, overridden = held({**base, **s})
        configs[name] = fixed
        case["dropins"][name] = {"settings": s, "durability_overridden": overridden}
    if args.rerun and previous and previous.get("best_settings"):
        # the drop-ins written again by the current advisor, against the same search's best (its trials kept)
        case["trials"], case["best_trial"] = previous["trials"], previous["best_trial"]
        case["budget"], case["rerun_of_search"] = previous["budget"], True
        configs["search's best"] = case["best_settings"] = previous["best_settings"]
    elif not args.render_only:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(
            seed=27, n_startup_trials=max(3, args.trials // 3)))
        study.enqueue_trial(STOCK_PARAMS)

        def objective(trial: Any) -> float:
            settings = {**search_space(trial), **OBSERVED}
            r = measure(datadir, work / "run", settings, workload, tables, size, args.warm, args.seconds)
            case["trials"].append({"n": trial.number, "settings": settings, **r})
            _save(results)
            log(f"outcome_vs_best: {key} trial {trial.number + 1}/{args.trials}: {r['tps']} TPS, p95 {r['p95']} ms"
                + (f" ({r['error'][:120]})" if r["error"] else ""))
            return r["tps"] or 0.0

        study.optimize(objective, n_trials=args.trials)
        best = max((t for t in case["trials"] if t["tps"]), key=lambda t: t["tps"])
        case["best_trial"] = best["n"] + 1
        configs["search's best"] = {k: str(v) for k, v in best["settings"].items()}
        case["best_settings"] = configs["search's best"]
    names = list(configs)
    for rep in range(args.runs):
        for name in names[rep % len(names):] + names[: rep % len(names)]:
            r = measure(datadir, work / "run", configs[name], workload, tables, size, args.warm, args.seconds)
            case["runs"].setdefault(name, []).append(r)
            _save(results)
            log(f"outcome_vs_best: {key} run {rep + 1}/{args.runs} {name}: {r['tps']} TPS, p95 {r['p95']} ms"
                + (f" ({r['error'][:120]})" if r["error"] else ""))
    case["done"] = True
    _save(results)


def _save(results: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    tmp = RESULTS / "results.json.tmp"
    tmp.write_text(json.dumps(results, indent=1, default=str))
    tmp.replace(RESULTS / "results.json")


# --- the report ---------------------------------------------------------------------------------

def _stats(runs: list[dict]) -> tuple[float, float, float, float, int]:
    t = [r["tps"] for r in runs if r["tps"]]
    p = [r["p95"] for r in runs if r["p95"]]
    if not t:
        return float("nan"), float("nan"), float("nan"), float("nan"), 0
    return median(t), min(t), max(t), median(p) if p else float("nan"), len(t)


def render(results: dict) -> str:
    a = results["args"]
    rows, verdicts, best_rows = [], [], []
    for key, case in results["cases"].items():
        if not case.get("done"):
            continue
        st = {name: _stats(runs) for name, runs in case["runs"].items()}
        best_tps, best_lo, best_hi, best_p95, _ = st["search's best"]
        for name in ("advisor from stock", "advisor from mis-configured", "advisor --profile"):
            tps, lo, hi, p95, n = st[name]
            share = tps / best_tps
            # within noise: the two ranges overlap
            within = lo <= best_hi and best_lo <= hi
            verdicts.append((key, name, share, p95 / best_p95 if best_p95 else float("nan"), within))
        cells = [key, f"{case['data_bytes'] / (1 << 20):,.0f} MiB"]
        for name in ("stock", "mis-configured", "advisor from stock", "advisor from mis-configured",
                     "advisor --profile", "search's best"):
            tps, lo, hi, p95, n = st[name]
            cells.append(f"{tps:,.0f} ({lo:,.0f}–{hi:,.0f}); p95 {p95:.1f}")
        shares = [v for v in verdicts if v[0] == key]
        cells.append(" / ".join(f"{s:.0%}" + ("≈" if w else "") for _, _, s, _, w in shares))
        cells.append(f"{case.get('best_trial', '?')} of {len(case['trials'])}")
        rows.append(cells)
        diff = {k: v for k, v in case["best_settings"].items()
                if str(case["dropins"]["advisor from stock"]["settings"].get(k, "")).lower() != str(v).lower()}
        best_rows.append(f"- {key}: " + ", ".join(f"`{k}={v}`" for k, v in sorted(case["best_settings"].items())))
    under = [v for v in verdicts if v[2] < 0.95 and not v[4]]
    # the budget each case ran with (cases may be run in several invocations with --cases)
    budgets: dict[tuple[int, int], list[str]] = {}
    for key, case in results["cases"].items():
        if case.get("done"):
            b = case.get("budget") or {"trials": a["trials"], "runs": a["runs"]}
            budgets.setdefault((b["trials"], b["runs"]), []).append(key)
    tail = f" --warm {a['warm']} --seconds {a['seconds']}" + (" --quick" if a["quick"] else "")
    if {c.get("device", "disk") for c in results["cases"].values() if c.get("done")} == {"ram"}:
        tail += " --device ram"
    if len(budgets) > 1:
        command = "Commands: " + "; ".join(f"`python3 -m bench.outcome_vs_best --trials {t} --runs {r}{tail} --cases "
                                           f"{','.join(keys)}`" for (t, r), keys in budgets.items())
        trials = " or ".join(str(t) for t, _ in budgets)
        runs = " or ".join(str(r) for _, r in budgets)
    else:
        (t, r), = budgets or {(a["trials"], a["runs"]): []}
        command = f"Command: `python3 -m bench.outcome_vs_best --trials {t} --runs {r}{tail}`"
        trials, runs = str(t), str(r)
    devices = {c.get("device", "disk") for c in results["cases"].values() if c.get("done")}
    where = ("Every datadir sat on a RAM-backed device: ext4 on a loop device over a fully written file in "
             "/dev/shm (`--device ram`), so flushes took the same short time every run and the spread is the "
             "configuration's and the CPU's, not the shared disk's; the memory cgroup still limited mariadbd's "
             "buffer pool and page cache, so data 3× the memory is still read from the device. "
             if devices == {"ram"} else "")
    lines = [
        f"Machine: {results['machine']}. mariadbd ran in a memory cgroup limited to {MEM_LIMIT >> 20} MiB "
        "(the advisor's host facts read that limit as the server's memory), at nice −15 with sysbench, "
        "while other work ran on the machine at normal priority. " + where, "",
        command + f". Each trial and run: a restart of "
        f"mariadbd on the case's datadir, page cache dropped, {a['warm']} s of sysbench to warm up, then "
        f"{a['seconds']} s measured; {THREADS} threads, uniform keys. Search: optuna TPE (seed 27), "
        f"{trials} trials per case, the first one MariaDB's stock defaults, over buffer pool, redo size, "
        "log buffer, flush method, io_capacity and its max, table and thread caches, sort/join buffers, "
        "temporary-table size, adaptive hash index, change buffering, flush neighbours and I/O threads. "
        f"Then every configuration below ran {runs} times, alternated; cells give the median TPS, its "
        "range, and the median p95 latency in ms.", "",
        "Durability held in every configuration, as the production purpose says: "
        "innodb_flush_log_at_trx_commit=1, binary log on with sync_binlog=1, doublewrite on. "
        "The search's trials (and so its best) also run with what the production purpose turns on and every "
        "drop-in has: " + ", ".join(f"{k}={v}" for k, v in OBSERVED.items()) + "; stock and mis-configured "
        "run without it, as they are. "
        f"Mis-configured start: " + ", ".join(f"{k}={v}" for k, v in MIS.items()) + ".", "",
        table(["case", "data", "stock", "mis-configured", "advisor (from stock)", "advisor (from mis-configured)",
               "advisor --profile", "search's best", "drop-ins as % of best (stock / mis / profile)",
               "best found at trial"], rows), "",
        "≈: the drop-in's TPS range overlaps the best's: the difference is within the runs' spread.", "",
        "The search's best configurations:", "", *best_rows, "",
    ]
    if under:
        lines.append("Below 95 % of the best beyond the spread: " + "; ".join(
            f"{k} {n} {s:.0%}" for k, n, s, _, _ in under) + ".")
    else:
        lines.append("Every drop-in reached 95 % of the search's best, or was within the runs' spread of it.")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small data, 2 workloads, few trials")
    ap.add_argument("--trials", type=int, default=8)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--warm", type=int, default=8)
    ap.add_argument("--seconds", type=int, default=12)
    ap.add_argument("--cases", default="", help="comma-separated workload/data keys to run (default: all)")
    ap.add_argument("--render-only", action="store_true", help="print the table from results.json")
    ap.add_argument("--rerun", action="store_true",
                    help="re-run the --cases given with the drop-ins the current advisor writes and the search's "
                         "best already found (no new search)")
    ap.add_argument("--device", choices=("disk", "ram"), default="disk",
                    help="where the datadirs sit: this machine's disk, or a RAM-backed loop device (steady flushes)")
    args = ap.parse_args()
    global RESULTS
    if args.device == "ram":
        RESULTS = OUT / "outcome_vs_best-ram"
    path = RESULTS / "results.json"
    if args.render_only:
        print(render(json.loads(path.read_text())))
        return
    if os.geteuid() != 0:
        sys.exit("bench.outcome_vs_best: run as root (it creates a memory cgroup and drops the page cache)")
    ensure_packages({"sysbench": "sysbench"})
    try:
        import optuna  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "optuna"], check=True)
    advisor = installed_advisor()
    results = json.loads(path.read_text()) if path.exists() else {"cases": {}}
    results["args"] = {"quick": args.quick, "trials": args.trials, "runs": args.runs, "warm": args.warm,
                       "seconds": args.seconds}
    results["machine"] = machine()
    keys = [f"{w}/{d}" for d in DATA for w in WORKLOADS]
    if args.quick:
        keys = ["oltp_point_select/fits", "oltp_read_write/fits"]
    if args.cases:
        keys = [k for k in keys if k in args.cases.split(",")]
    args.ram = None
    if args.device == "ram":
        gib = 8 if any(k.endswith("/3x-memory") for k in keys) else 3
        with RamDevice(gib) as mount:
            args.ram = mount
            for key in keys:
                w, d = key.split("/")
                run_case(advisor, w, d, args, results)
    else:
        for key in keys:
            w, d = key.split("/")
            run_case(advisor, w, d, args, results)
    print(render(results))


if __name__ == "__main__":
    main()
