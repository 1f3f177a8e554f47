"""From two samples to the rates of one interval. Pure: samples in, model values out.

Counters only grow; a counter that went down (a server restart, a device re-attached, a process
replaced by one with the same pid) gives no rate for that interval instead of a negative one.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from advisor.watch.model import CpuShare, DiskRate, HostInterval, HostSetup, NicRate, ProcessCpu, ServerInterval
from advisor.watch.procfs import (parse_schedstat, SECTOR_BYTES, CpuTicks, DiskCounters, NetCounters, PidStat, parse_diskstats,
                                  parse_net_dev, parse_pid_stat, parse_proc_stat)

MB = 1e6


# ---------------------------------------------------------------------- CPU

def cpu_share(prev: Iterable[CpuTicks], cur: Iterable[CpuTicks]) -> Optional[CpuShare]:
    """Shares of the summed ticks of matching CPU lines; None when no time passed."""
    p, c = list(prev), list(cur)
    if not p or len(p) != len(c):
        return None
    d = {f: sum(getattr(b, f) - getattr(a, f) for a, b in zip(p, c))
         for f in ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")}
    if any(v < 0 for v in d.values()):
        return None
    total = sum(d.values())
    if total <= 0:
        return None
    r = lambda x: round(x / total, 4)  # noqa: E731
    return CpuShare.model_construct(cpus=len(c), user=r(d["user"] + d["nice"]), system=r(d["system"]),
                                    irq=r(d["irq"] + d["softirq"]), iowait=r(d["iowait"]), steal=r(d["steal"]),
                                    idle=r(d["idle"]))


MAX_PER_CPU = 256  # CPUs whose own shares are kept per interval


def process_cpu(prev: PidStat, cur: PidStat, seconds: float, clk_tck: int) -> Optional[ProcessCpu]:
    if prev.pid != cur.pid or prev.starttime != cur.starttime or seconds <= 0:
        return None
    du, ds = cur.utime - prev.utime, cur.stime - prev.stime
    if du < 0 or ds < 0:
        return None
    return ProcessCpu.model_construct(
        pid=cur.pid, name=cur.comm, cores=_r((du + ds) / clk_tck / seconds), user_cores=_r(du / clk_tck / seconds),
        system_cores=_r(ds / clk_tck / seconds), minor_faults_per_s=_r(max(0, cur.minflt - prev.minflt) / seconds),
        major_faults_per_s=_r(max(0, cur.majflt - prev.majflt) / seconds), threads=cur.num_threads, processes=1)


def _r(x: Optional[float], digits: int = 4) -> Optional[float]:
    """Values as the series keeps them: 4 decimals (a share of 0.0001, a rate of 0.0001/s)."""
    return None if x is None else round(x, digits)


def tree_cpu(prev: list[PidStat], cur: list[PidStat], seconds: float, clk_tck: int) -> Optional[ProcessCpu]:
    """CPU of a process tree: the first entry is its root. Processes seen in both samples count by
    their delta, new ones by their whole time (they started within the interval), and children
    that exited within it through the root's cutime/cstime."""
    if not cur or seconds <= 0:
        return None
    before = {(s.pid, s.starttime): s for s in prev}
    user = system = minflt = majflt = 0
    for s in cur:
        a = before.get((s.pid, s.starttime))
        if a is None:
            user, system, minflt, majflt = user + s.utime, system + s.stime, minflt + s.minflt, majflt + s.majflt
        else:
            user += max(0, s.utime - a.utime)
            system += max(0, s.stime - a.stime)
            minflt += max(0, s.minflt - a.minflt)
            majflt += max(0, s.majflt - a.majflt)
    root, root_prev = cur[0], before.get((cur[0].pid, cur[0].starttime))
    if root_prev is not None:
        user += max(0, root.cutime - root_prev.cutime)
        system += max(0, root.cstime - root_prev.cstime)
    return ProcessCpu.model_construct(
        pid=root.pid, name=root.comm, cores=_r((user + system) / clk_tck / seconds),
        user_cores=_r(user / clk_tck / seconds), system_cores=_r(system / clk_tck / seconds),
        minor_faults_per_s=_r(minflt / seconds), major_faults_per_s=_r(majflt / seconds),
        threads=sum(s.num_threads for s in cur), processes=len(cur))


def run_wait(prev: Optional[dict[str, Any]], cur: Optional[dict[str, Any]], pids: list[int],
             seconds: float) -> Optional[float]:
    """Seconds per second the processes' threads waited on a run queue: the growth of the second
    field of each thread's schedstat, over threads present in both samples ({pid: {tid: text}})."""
    if not prev or not cur or seconds <= 0:
        return None
    total, seen = 0, False
    for pid in pids:
        a, b = prev.get(str(pid)) or {}, cur.get(str(pid)) or {}
        for tid, text in b.items():
            x, y = parse_schedstat(a.get(tid, "")), parse_schedstat(text)
            if x is not None and y is not None:
                total += max(0, y - x)
                seen = True
    return _r(total / 1e9 / seconds) if seen else None


# ---------------------------------------------------------------------- disks and NICs

def disk_rate(a: DiskCounters, b: DiskCounters, seconds: float) -> Optional[DiskRate]:
    dr, dw = b.reads - a.reads, b.writes - a.writes
    if seconds <= 0 or dr < 0 or dw < 0 or b.io_ms < a.io_ms:
        return None
    flushes = flush_ms = None
    if a.flushes is not None and b.flushes is not None and b.flushes >= a.flushes:
        n = b.flushes - a.flushes
        flushes = n / seconds
        flush_ms = (b.flush_ms - a.flush_ms) / n if n and b.flush_ms is not None and a.flush_ms is not None else None
    return DiskRate.model_construct(
        device=b.name, reads_per_s=_r(dr / seconds), writes_per_s=_r(dw / seconds),
        read_mbytes_per_s=_r((b.read_sectors - a.read_sectors) * SECTOR_BYTES / MB / seconds),
        write_mbytes_per_s=_r((b.write_sectors - a.write_sectors) * SECTOR_BYTES / MB / seconds),
        read_await_ms=_r((b.read_ms - a.read_ms) / dr) if dr else None,
        write_await_ms=_r((b.write_ms - a.write_ms) / dw) if dw else None,
        utilisation=_r(min(1.0, (b.io_ms - a.io_ms) / (seconds * 1000))),
        queue_depth=_r(max(0, b.weighted_ms - a.weighted_ms) / (seconds * 1000)), flushes_per_s=_r(flushes),
        flush_ms=_r(flush_ms))


ETHERNET_OVERHEAD_BYTES = 24  # preamble 7 + start delimiter 1 + frame check sequence 4 + inter-frame gap 12


def wire_utilisation(bytes_per_s: float, packets_per_s: float, ceiling_mbps: Optional[float], shaped: bool) -> Optional[float]:
    """Share of a link's capacity one direction uses. /proc/net/dev counts each frame from its
    Ethernet header on; on a physical link every frame also costs 24 bytes of preamble, check
    sequence and gap, so small packets fill a link before their bytes reach its speed. A tbf
    shaper counts the frame as the kernel holds it, without those 24 bytes."""
    if not ceiling_mbps:
        return None
    wire = bytes_per_s + (0 if shaped else ETHERNET_OVERHEAD_BYTES * packets_per_s)
    return wire * 8 / (ceiling_mbps * 1e6)


def nic_rate(a: NetCounters, b: NetCounters, seconds: float, rx_ceiling: Optional[float] = None,
             tx_ceiling: Optional[float] = None, rx_shaped: bool = False, tx_shaped: bool = False) -> Optional[NicRate]:
    if seconds <= 0 or b.rx_bytes < a.rx_bytes or b.tx_bytes < a.tx_bytes:
        return None
    rxb, txb = (b.rx_bytes - a.rx_bytes) / seconds, (b.tx_bytes - a.tx_bytes) / seconds
    rxp, txp = max(0, b.rx_packets - a.rx_packets) / seconds, max(0, b.tx_packets - a.tx_packets) / seconds
    return NicRate.model_construct(
        interface=b.name, rx_mbytes_per_s=_r(rxb / MB, 6), tx_mbytes_per_s=_r(txb / MB, 6), rx_packets_per_s=_r(rxp),
        tx_packets_per_s=_r(txp), rx_drops_per_s=_r(max(0, b.rx_drops - a.rx_drops) / seconds),
        tx_drops_per_s=_r(max(0, b.tx_drops - a.tx_drops) / seconds),
        rx_utilisation=_r(wire_utilisation(rxb, rxp, rx_ceiling, rx_shaped)),
        tx_utilisation=_r(wire_utilisation(txb, txp, tx_ceiling, tx_shaped)))


# ---------------------------------------------------------------------- a host interval

def host_interval(prev: dict[str, Any], cur: dict[str, Any], setup: HostSetup) -> Optional[HostInterval]:
    """Rates between two sampler documents ({"mono", "files", "command"}) of the host `setup` describes."""
    seconds = cur["mono"] - prev["mono"]
    pf, cf = prev.get("files") or {}, cur.get("files") or {}
    if seconds <= 0 or not pf.get("/proc/stat") or not cf.get("/proc/stat"):
        return None
    ps, cs = parse_proc_stat(pf["/proc/stat"]), parse_proc_stat(cf["/proc/stat"])
    if ps.total is None or cs.total is None:
        return None
    all_cpus = cpu_share([ps.total], [cs.total])
    if all_cpus is None:
        return None
    allowed = [n for n in setup.allowed_cpus if n in ps.cpus and n in cs.cpus]
    per_cpu = {str(n): [s.user, s.system, s.irq, s.iowait, s.steal, s.idle] for n in (allowed or sorted(cs.cpus))[:MAX_PER_CPU]
               if n in ps.cpus for s in [cpu_share([ps.cpus[n]], [cs.cpus[n]])] if s is not None}
    cpu = (cpu_share([ps.cpus[n] for n in allowed], [cs.cpus[n] for n in allowed]) if allowed else None) or all_cpus
    h = HostInterval.model_construct(cpu=cpu, all_cpus=all_cpus, per_cpu=per_cpu, procs_running=cs.procs_running,
                                     context_switches_per_s=_r((cs.ctxt - ps.ctxt) / seconds)
                                     if cs.ctxt is not None and ps.ctxt is not None and cs.ctxt >= ps.ctxt else None,
                                     mysqld=None, command=None, disks=[], nics=[], lag_s=0.0)
    ps_wait, cs_wait = prev.get("schedstat"), cur.get("schedstat")
    if setup.mysqld_pid:
        key = f"/proc/{setup.mysqld_pid}/stat"
        a = parse_pid_stat(pf.get(key) or "")
        b = parse_pid_stat(cf.get(key) or "")
        if a and b:
            h.mysqld = process_cpu(a, b, seconds, setup.clk_tck)
            if h.mysqld is not None:
                h.mysqld.run_wait_cores = run_wait(ps_wait, cs_wait, [b.pid], seconds)
    if cur.get("command"):
        before = [s for s in (parse_pid_stat(t) for t in prev.get("command") or []) if s]
        after = [s for s in (parse_pid_stat(t) for t in cur["command"]) if s]
        h.command = tree_cpu(before, after, seconds, setup.clk_tck)
        if h.command is not None:
            h.command.run_wait_cores = run_wait(ps_wait, cs_wait, [s.pid for s in after], seconds)
    if setup.datadir_devices and pf.get("/proc/diskstats") and cf.get("/proc/diskstats"):
        da, db = parse_diskstats(pf["/proc/diskstats"]), parse_diskstats(cf["/proc/diskstats"])
        h.disks = [r for d in setup.datadir_devices if d in da and d in db
                   for r in [disk_rate(da[d], db[d], seconds)] if r is not None]
    h.nics = _nics(pf, cf, setup, seconds)
    return h


def _nics(pf: dict[str, Any], cf: dict[str, Any], setup: HostSetup, seconds: float) -> list[NicRate]:
    out: list[NicRate] = []
    for nic in setup.nics:
        path = f"/proc/{setup.mysqld_pid}/net/dev" if nic.netns == "mysqld" else "/proc/net/dev"
        a, b = parse_net_dev(pf.get(path) or ""), parse_net_dev(cf.get(path) or "")
        if nic.interface in a and nic.interface in b:
            shaped = nic.shaper_mbps is not None
            r = nic_rate(a[nic.interface], b[nic.interface], seconds, nic.rx_ceiling_mbps, nic.tx_ceiling_mbps,
                         rx_shaped=False, tx_shaped=shaped and nic.tx_ceiling_mbps == nic.shaper_mbps)
            if r is not None:
                out.append(r)
    return out


# ---------------------------------------------------------------------- server status

# Counters turned into per-second rates.
RATE_COUNTERS = (
    "Questions", "Queries", "Connections", "Aborted_connects", "Bytes_received", "Bytes_sent",
    "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
    "Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_ahead",
    "Innodb_buffer_pool_write_requests", "Innodb_buffer_pool_pages_flushed", "Innodb_buffer_pool_wait_free",
    "Innodb_data_reads", "Innodb_data_writes", "Innodb_data_read", "Innodb_data_written", "Innodb_data_fsyncs",
    "Innodb_os_log_fsyncs", "Innodb_os_log_written", "Innodb_log_writes", "Innodb_log_write_requests",
    "Innodb_log_waits", "Innodb_row_lock_waits", "Innodb_row_lock_time", "Ssl_accepts", "Ssl_finished_accepts",
    "Created_tmp_disk_tables", "Created_tmp_tables", "Created_tmp_files", "Sort_merge_passes", "Sort_rows",
    "Sort_scan", "Sort_range", "Select_full_join", "Select_scan", "Table_open_cache_misses",
    "Table_open_cache_hits", "Opened_tables", "Threads_created", "Handler_read_rnd_next", "Slow_queries",
    "Table_locks_waited", "Binlog_group_commits",
)
# Statement counters kept as rates when they moved: what a benchmark sends.
COM_COUNTERS = (
    "Com_select", "Com_insert", "Com_insert_select", "Com_update", "Com_update_multi", "Com_delete",
    "Com_delete_multi", "Com_replace", "Com_replace_select", "Com_load", "Com_begin", "Com_commit", "Com_rollback",
    "Com_stmt_prepare", "Com_stmt_execute", "Com_stmt_close", "Com_stmt_fetch", "Com_call_procedure",
    "Com_set_option", "Com_show_status", "Com_lock_tables", "Com_admin_commands",
)
GAUGES = (
    "Threads_running", "Threads_connected", "Innodb_row_lock_current_waits", "Innodb_data_pending_fsyncs",
    "Innodb_data_pending_reads", "Innodb_data_pending_writes", "Innodb_buffer_pool_pages_dirty",
    "Innodb_buffer_pool_pages_free", "Innodb_buffer_pool_pages_total", "Innodb_checkpoint_age", "Uptime",
)
# What the watcher's own statements add to the counters in one interval (SHOW GLOBAL STATUS and
# one SELECT on information_schema.PROCESSLIST), subtracted so the rates describe the workload.
OWN_PER_INTERVAL = {"Questions": 2, "Queries": 2, "Com_show_status": 1, "Com_select": 1}
OWN_RUNNING = 1  # the watcher's thread runs SHOW GLOBAL STATUS while it counts Threads_running


def status_names() -> tuple[str, ...]:
    """Every status variable the watch reads."""
    return RATE_COUNTERS + COM_COUNTERS + GAUGES


def _num(v: Any) -> Optional[float]:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def server_interval(prev: dict[str, Any], cur: dict[str, Any], seconds: float,
                    states: Optional[dict[str, int]] = None, sample_ms: float = 0.0) -> ServerInterval:
    """Rates of two SHOW GLOBAL STATUS results ({name: value}) `seconds` apart."""
    pu, cu = _num(prev.get("Uptime")), _num(cur.get("Uptime"))
    restarted = pu is not None and cu is not None and cu < pu
    rates: dict[str, float] = {}
    if not restarted and seconds > 0:
        names = RATE_COUNTERS + COM_COUNTERS
        for name in names:
            a, b = _num(prev.get(name)), _num(cur.get(name))
            if a is None or b is None or b < a:
                continue
            d = b - a - OWN_PER_INTERVAL.get(name, 0)
            if name.startswith("Com_") and d <= 0:
                continue
            rates[name] = round(max(0.0, d) / seconds, 4)
    gauges: dict[str, float] = {}
    for name in GAUGES:
        v = _num(cur.get(name))
        if v is not None:
            gauges[name] = max(0.0, v - OWN_RUNNING) if name == "Threads_running" else v
    return ServerInterval.model_construct(rates=rates, gauges=gauges, states=dict(states or {}), sample_ms=sample_ms,
                                          restarted=restarted)
