"""Record a real watch series (the `advisor.watch/1` shape, docs/watch.md) without `advisor watch`:
a real sysbench run against a throwaway mariadbd, sampled once a second by a minimal sampler of
/proc/stat (CPU split), /proc/net/dev (the client's interface), /proc/diskstats (the disks) and the
server's SHOW GLOBAL STATUS. It feeds the HTML renderer's browser test until `advisor watch` lands;
only the fields the charts read are filled, each as the documented model names and units them.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Optional

SECTOR = 512
_SB_LINE = re.compile(r"^\[\s*(?P<t>\d+(?:\.\d+)?)s\s*\]\s+thds:\s*(?P<thds>\d+)\s+tps:\s*(?P<tps>[\d.]+)\s+"
                      r"qps:\s*(?P<qps>[\d.]+).*?lat \(ms,(?P<pct>\d+)%\):\s*(?P<lat>[\d.]+)"
                      r"\s+err/s:\s*(?P<err>[\d.]+)\s+reconn/s:\s*(?P<rec>[\d.]+)")


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_cpu(root: Path = Path("/proc")) -> list[int]:
    """The aggregate `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal."""
    for line in (root / "stat").read_text().splitlines():
        if line.startswith("cpu "):
            return [int(x) for x in line.split()[1:9]]
    raise RuntimeError("no cpu line in /proc/stat")


def cpu_count(root: Path = Path("/proc")) -> int:
    return sum(1 for line in (root / "stat").read_text().splitlines() if re.match(r"cpu\d+ ", line))


def read_net(dev: str, root: Path = Path("/proc")) -> tuple[int, int, int, int]:
    """rx bytes, rx packets, tx bytes, tx packets of one interface in /proc/net/dev."""
    for line in (root / "net/dev").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name.strip() == dev:
            f = [int(x) for x in rest.split()]
            return f[0], f[1], f[8], f[9]
    raise RuntimeError(f"{dev} not in /proc/net/dev")


def read_disks(root: Path = Path("/proc")) -> dict[str, list[int]]:
    """Whole disks of /proc/diskstats (no partitions, loops or rams): the 11 classic fields."""
    out: dict[str, list[int]] = {}
    for line in (root / "diskstats").read_text().splitlines():
        f = line.split()
        name = f[2]
        if re.match(r"^(loop|ram|zram|sr|dm-|md)", name) or re.match(r"^(sd[a-z]+|vd[a-z]+|xvd[a-z]+)\d+$", name) \
                or re.match(r"^nvme\d+n\d+p\d+$", name):
            continue
        out[name] = [int(x) for x in f[3:14]]
    return out


def _status(conn: Any) -> dict[str, float]:
    with conn.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback', 'Questions', "
                    "'Threads_running', 'Threads_connected')")
        return {k: float(v) for k, v in cur.fetchall()}


def record(db: Any, nic: str, seconds: int = 6, threads: int = 2, host: Optional[str] = None,
           ceiling_mbps: Optional[float] = None) -> dict[str, Any]:
    """Run sysbench oltp_read_write for `seconds` against `db` and return the series."""
    host = host or db.host
    base = ["--mysql-host=" + host, f"--mysql-port={db.port}", "--mysql-user=root", "--mysql-db=sbtest",
            "--tables=1", "--table-size=5000"]
    db.query("CREATE DATABASE IF NOT EXISTS sbtest")
    p = subprocess.run(["sysbench", "oltp_read_write", *base, "prepare"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(p.stdout + p.stderr)
    cmd = ["sysbench", "oltp_read_write", *base, f"--threads={threads}", f"--time={seconds}", "--report-interval=1",
           "run"]
    conn = db.connect()
    lines: list[str] = []
    started_at = _now()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    prev = (time.monotonic(), read_cpu(), read_net(nic), read_disks(), _status(conn))
    intervals: list[dict[str, Any]] = []
    seen_lines = 0
    ncpu = cpu_count()
    while proc.poll() is None and time.monotonic() - t0 < seconds + 30:
        time.sleep(1.0)
        cur = (time.monotonic(), read_cpu(), read_net(nic), read_disks(), _status(conn))
        dt_s = cur[0] - prev[0]
        d = [b - a for a, b in zip(prev[1], cur[1])]
        total = sum(d) or 1
        cpu = {"cpus": ncpu, "user": (d[0] + d[1]) / total, "system": d[2] / total, "irq": (d[5] + d[6]) / total,
               "iowait": d[4] / total, "steal": d[7] / total, "idle": d[3] / total}
        rxb, rxp, txb, txp = (b - a for a, b in zip(prev[2], cur[2]))
        nic_rate = {"interface": nic, "rx_mbytes_per_s": rxb / 1e6 / dt_s, "tx_mbytes_per_s": txb / 1e6 / dt_s,
                    "rx_packets_per_s": rxp / dt_s, "tx_packets_per_s": txp / dt_s}
        if ceiling_mbps:
            nic_rate["rx_utilisation"] = min(1.0, rxb * 8 / 1e6 / dt_s / ceiling_mbps)
            nic_rate["tx_utilisation"] = min(1.0, txb * 8 / 1e6 / dt_s / ceiling_mbps)
        disks = []
        for name, b in cur[3].items():
            a = prev[3].get(name)
            if a is None:
                continue
            reads, writes = b[0] - a[0], b[4] - a[4]
            disks.append({"device": name, "reads_per_s": reads / dt_s, "writes_per_s": writes / dt_s,
                          "read_mbytes_per_s": (b[2] - a[2]) * SECTOR / 1e6 / dt_s,
                          "write_mbytes_per_s": (b[6] - a[6]) * SECTOR / 1e6 / dt_s,
                          "read_await_ms": (b[3] - a[3]) / reads if reads else None,
                          "write_await_ms": (b[7] - a[7]) / writes if writes else None,
                          "utilisation": min(1.0, (b[9] - a[9]) / (dt_s * 1000)),
                          "queue_depth": max(0, b[10] - a[10]) / (dt_s * 1000)})
        rates = {k: (cur[4][k] - prev[4].get(k, 0.0)) / dt_s for k in ("Com_commit", "Com_rollback", "Questions")}
        gauges = {k: cur[4][k] for k in ("Threads_running", "Threads_connected") if k in cur[4]}
        reports = []
        for line in lines[seen_lines:]:
            m = _SB_LINE.match(line.strip())
            if m:
                reports.append({"t_s": float(m["t"]), "threads": int(m["thds"]), "tps": float(m["tps"]),
                                "qps": float(m["qps"]), "latency_ms": float(m["lat"]),
                                "latency_percentile": float(m["pct"]), "errors_per_s": float(m["err"]),
                                "reconnects_per_s": float(m["rec"])})
        seen_lines = len(lines)
        i = len(intervals)
        host_iv = {"cpu": cpu, "all_cpus": cpu, "disks": disks, "nics": [nic_rate]}
        intervals.append({"index": i, "start_s": round(prev[0] - t0, 3), "end_s": round(cur[0] - t0, 3), "at": _now(),
                          "seconds": round(dt_s, 3), "server": {"rates": rates, "gauges": gauges},
                          "server_host": host_iv, "client_host": None, "sysbench": reports})
        prev = cur
    proc.wait(timeout=30)
    reader.join(timeout=5)
    conn.close()
    summary: dict[str, Any] = {}
    for line in lines:
        m = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", line)
        if m:
            summary.update(transactions=int(m[1]), tps=float(m[2]))
        m = re.search(r"95th percentile:\s+([\d.]+)", line)
        if m:
            summary.update(latency_pct_ms=float(m[1]), percentile=95)
    nic_setup = {"interface": nic, "side": "client", "loopback": nic == "lo"}
    if ceiling_mbps:
        nic_setup.update(shaper_mbps=ceiling_mbps, rx_ceiling_mbps=ceiling_mbps, tx_ceiling_mbps=ceiling_mbps,
                         ceiling_source="tbf qdisc")
    return {
        "schema": "advisor.watch/1", "advisor_version": "test", "started_at": started_at, "ended_at": _now(),
        "duration_s": round(time.monotonic() - t0, 3), "end_reason": f"the command exited ({proc.returncode})",
        "setup": {"target": {"flavor": "mariadb", "version": db.query("SELECT VERSION()")[0][0].split("-")[0],
                             "host": host, "port": db.port, "transport": "tcp", "endpoint": f"{host}:{db.port}"},
                  "interval_s": 1.0, "same_host": True,
                  "server_host": {"role": "server+client", "source": "local", "cpu_count": ncpu, "nics": [nic_setup]},
                  "command": {"display": " ".join(cmd), "exit_status": proc.returncode, "summary": summary},
                  "missing": []},
        "intervals": intervals,
        "units": {"*_mbytes_per_s": "MB/s (10^6 bytes per second)", "cpu.*": "fraction (0-1) of the time of `cpus` CPUs"},
    }
