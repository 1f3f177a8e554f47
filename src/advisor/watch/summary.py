"""The numbers verdicts judge: named facts (`watch.*`) computed over a series. Pure.

Every fact is a small function registered with its unit and a one-line doc (the verdict
reference page lists them), computed over the *loaded* intervals: those whose workload (server
queries per second, else the benchmark's TPS) is at least half the median of the intervals that
had any, so ramp-up, a connect phase and the tail after the benchmark stopped do not dilute the
numbers. Values are medians over those intervals unless the doc says otherwise. A fact that cannot
be computed is Unknown with the reason (what was not sampled, and why).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Optional

from advisor.rules.facts import Unknown
from advisor.watch.model import HostInterval, HostSetup, Interval, NicSetup, WatchRun

LOAD_FLOOR_QPS = 5.0     # below this many queries per second (the watcher's own removed) a server is idle
ACTIVE_FRACTION = 0.5    # an interval is loaded when its load is at least half the median load


@dataclass(frozen=True)
class SummaryFact:
    name: str
    fn: Callable[["Series"], Any]
    unit: str
    doc: str


FACTS: dict[str, SummaryFact] = {}


def fact(name: str, unit: str, doc: str) -> Callable[[Callable[["Series"], Any]], Callable[["Series"], Any]]:
    def deco(fn: Callable[["Series"], Any]) -> Callable[["Series"], Any]:
        if name in FACTS:
            raise ValueError(f"summary fact {name} defined twice")
        FACTS[name] = SummaryFact(name, fn, unit, doc)
        return fn
    return deco


def median(values: list[Optional[float]]) -> Optional[float]:
    xs = [v for v in values if v is not None]
    return statistics.median(xs) if xs else None


def interval_load(iv: Interval) -> Optional[float]:
    """The workload of one interval: server queries per second, else the benchmark's TPS / events."""
    if iv.server is not None and "Questions" in iv.server.rates:
        return iv.server.rates["Questions"]
    rates = [r.tps if r.tps is not None else r.eps for r in iv.sysbench]
    rates = [r for r in rates if r is not None]
    return statistics.mean(rates) if rates else None


def loaded_intervals(intervals: list[Interval]) -> list[Interval]:
    loads = [(iv, interval_load(iv)) for iv in intervals]
    busy = [x for _, x in loads if x is not None and x >= LOAD_FLOOR_QPS]
    if not busy:
        return []
    floor = max(LOAD_FLOOR_QPS, ACTIVE_FRACTION * statistics.median(busy))
    return [iv for iv, x in loads if x is not None and x >= floor]


class Series:
    """A series with the caches the fact functions share. `baseline`: another run to compare with."""

    def __init__(self, run: WatchRun, baseline: Optional[WatchRun] = None, baseline_name: str = ""):
        self.run = run
        self.setup = run.setup
        self.loaded = loaded_intervals(run.intervals)
        self.baseline = Series(baseline) if baseline is not None else None
        self.baseline_name = baseline_name
        self._cache: dict[str, Any] = {}

    # ------------------------------------------------------------------ helpers
    def need_load(self) -> Optional[Unknown]:
        if not self.run.intervals:
            return Unknown("the watch recorded no complete interval")
        if not self.loaded:
            return Unknown("no interval carried load")
        return None

    def server_hosts(self) -> list[HostInterval]:
        return [iv.server_host for iv in self.loaded if iv.server_host is not None]

    def client_hosts(self) -> list[HostInterval]:
        """The client's host samples: its own, or the server's when both run on one host."""
        if self.setup.same_host:
            return self.server_hosts()
        return [iv.client_host for iv in self.loaded if iv.client_host is not None]

    def client_setup(self) -> Optional[HostSetup]:
        return self.setup.server_host if self.setup.same_host else self.setup.client_host

    def _rate_of(self, iv: Interval, name: str) -> Optional[float]:
        """A counter's rate in one interval; Com_* counters are stored only when they moved."""
        if iv.server is None or iv.server.restarted:
            return None
        if name in iv.server.rates:
            return iv.server.rates[name]
        return 0.0 if name.startswith("Com_") and iv.server.rates else None

    def rate(self, name: str) -> Optional[float]:
        return median([self._rate_of(iv, name) for iv in self.loaded])

    def total(self, name: str) -> Optional[float]:
        """Sum of a counter over the loaded intervals (rate × seconds)."""
        xs = [r * iv.seconds for iv in self.loaded for r in [self._rate_of(iv, name)] if r is not None]
        return sum(xs) if xs else None

    def why_server(self) -> str:
        u = self.need_load()
        return u.reason if u is not None else self.why_no_server_host()

    def gauge(self, name: str) -> Optional[float]:
        return median([iv.server.gauges.get(name) for iv in self.loaded if iv.server is not None])

    def why_no_server_host(self) -> str:
        m = next((m.reason for m in self.setup.missing if m.fact == "server_host"), None)
        return m or "the server's host was not sampled"

    def why_no_client_host(self) -> str:
        m = next((m.reason for m in self.setup.missing if m.fact == "client_host"), None)
        return m or "the benchmark client's host was not sampled"


def compute(series: Series) -> tuple[dict[str, Any], dict[str, str]]:
    """Every registered fact: (values, reasons for the unknown ones)."""
    values: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for name, f in FACTS.items():
        v = f.fn(series)
        if isinstance(v, Unknown):
            missing[name] = v.reason
        elif v is not None:
            values[name] = v
        else:
            missing[name] = "not measured"
    return values, missing


def _u(v: Optional[float], reason: str) -> Any:
    return Unknown(reason) if v is None else v


# ---------------------------------------------------------------------- run and load

@fact("watch.duration_s", "s", "How long the watch sampled.")
def duration_s(s: Series) -> Any:
    return round(s.run.duration_s, 1)


@fact("watch.intervals", "count", "Intervals recorded.")
def intervals(s: Series) -> Any:
    return len(s.run.intervals)


@fact("watch.loaded_intervals", "count", "Intervals that carried load (the ones the other facts are computed over).")
def loaded_count(s: Series) -> Any:
    return len(s.loaded)


@fact("watch.load.qps", "per second", "Median queries per second over all intervals (the watcher's own removed).")
def load_qps(s: Series) -> Any:
    return _u(median([interval_load(iv) for iv in s.run.intervals]), "neither the server's counters nor the "
              "benchmark's report lines were sampled")


@fact("watch.load.peak_qps", "per second", "Highest queries per second of one interval.")
def load_peak(s: Series) -> Any:
    loads = [x for x in (interval_load(iv) for iv in s.run.intervals) if x is not None]
    return max(loads) if loads else Unknown("no interval had a load figure")


@fact("watch.load.busy", "bool", "Whether any interval carried load (at least 5 queries per second).")
def load_busy(s: Series) -> Any:
    if not s.run.intervals:
        return Unknown("the watch recorded no complete interval")
    if all(interval_load(iv) is None for iv in s.run.intervals):
        return Unknown("neither the server's counters nor the benchmark's report lines were sampled")
    return bool(s.loaded)


@fact("watch.load.threads_running", "count", "Median Threads_running over all intervals (the watcher's excluded).")
def load_threads(s: Series) -> Any:
    return _u(median([iv.server.gauges.get("Threads_running") for iv in s.run.intervals if iv.server]),
              "the server's status was not sampled")


@fact("watch.tps", "per second", "Median transactions per second: sysbench's report lines, else the server's commits.")
def tps(s: Series) -> Any:
    v = median([r.tps for iv in s.loaded for r in iv.sysbench])
    if v is not None:
        return v
    v = median([iv.server.rates.get("Com_commit", 0.0) + iv.server.rates.get("Com_rollback", 0.0)
                for iv in s.loaded if iv.server is not None])
    return v if v else Unknown("no sysbench report lines and no commits")


@fact("watch.tps_source", "text", "Where watch.tps comes from.")
def tps_source(s: Series) -> Any:
    if any(r.tps is not None for iv in s.loaded for r in iv.sysbench):
        return "sysbench's report lines"
    return "the server's Com_commit + Com_rollback"


@fact("watch.sysbench.latency_ms", "ms", "Median of sysbench's per-interval latency percentile.")
def sb_latency(s: Series) -> Any:
    return _u(median([r.latency_ms for iv in s.loaded for r in iv.sysbench]), "no sysbench report lines with latency "
              "(run sysbench with --report-interval=1)")


@fact("watch.sysbench.errors_per_s", "per second", "Median of sysbench's errors per second.")
def sb_errors(s: Series) -> Any:
    return _u(median([r.errors_per_s for iv in s.loaded for r in iv.sysbench]), "no sysbench report lines")


# ---------------------------------------------------------------------- CPU

def _cpu(hosts: list[HostInterval], attr: str) -> Optional[float]:
    return median([getattr(h.cpu, attr) if attr != "busy" else h.cpu.busy for h in hosts])


@fact("watch.server.cpus", "CPUs", "CPUs mysqld may use: its affinity, capped by its cgroup quota.")
def server_cpus(s: Series) -> Any:
    h = s.setup.server_host
    if h is None:
        return Unknown(s.why_no_server_host())
    return _u(h.cpus_available, "the CPUs mysqld may use are unknown")


@fact("watch.server.cpu.busy", "fraction", "Busy share (user + system + interrupts) of the CPUs mysqld may use.")
def server_busy(s: Series) -> Any:
    return _u(_cpu(s.server_hosts(), "busy"), s.why_server())


@fact("watch.server.cpu.user", "fraction", "User share of the CPUs mysqld may use.")
def server_user(s: Series) -> Any:
    return _u(_cpu(s.server_hosts(), "user"), s.why_server())


@fact("watch.server.cpu.system", "fraction", "System share (kernel, interrupts included) of the CPUs mysqld may use.")
def server_system(s: Series) -> Any:
    hs = s.server_hosts()
    return _u(median([h.cpu.system + h.cpu.irq for h in hs]), s.why_server())


@fact("watch.server.cpu.system_of_busy", "fraction", "System time as a share of busy time on the server's CPUs.")
def server_system_of_busy(s: Series) -> Any:
    hs = s.server_hosts()
    return _u(median([(h.cpu.system + h.cpu.irq) / h.cpu.busy if h.cpu.busy > 0 else None for h in hs]),
              s.why_server())


@fact("watch.server.cpu.iowait", "fraction", "I/O-wait share of the CPUs mysqld may use.")
def server_iowait(s: Series) -> Any:
    return _u(_cpu(s.server_hosts(), "iowait"), s.why_server())


@fact("watch.server.cpu.steal", "fraction", "Share of the server's CPU time the hypervisor gave to other guests.")
def server_steal(s: Series) -> Any:
    return _u(_cpu(s.server_hosts(), "steal"), s.why_server())


@fact("watch.server.cpu.hottest", "fraction", "Median busy share of the busiest single CPU mysqld may use.")
def server_hottest(s: Series) -> Any:
    allowed = set(str(c) for c in (s.setup.server_host.allowed_cpus if s.setup.server_host else []))
    vals = [max((c.busy for n, c in h.per_cpu.items() if not allowed or n in allowed), default=None)
            for h in s.server_hosts()]
    return _u(median(vals), s.why_server())


def _mysqld(s: Series) -> list[Any]:
    return [h.mysqld for h in s.server_hosts() if h.mysqld is not None]


@fact("watch.server.mysqld.cores", "CPUs", "CPU mysqld used (user + system, all threads).")
def mysqld_cores(s: Series) -> Any:
    ps = _mysqld(s)
    if not ps:
        h = s.setup.server_host
        return Unknown(f"mysqld's CPU was not sampled: {h.mysqld_how}" if h else s.why_no_server_host())
    return median([p.cores for p in ps])


@fact("watch.server.mysqld.share", "fraction", "mysqld's CPU as a share of the CPUs it may use.")
def mysqld_share(s: Series) -> Any:
    cores, cpus = mysqld_cores(s), server_cpus(s)
    if isinstance(cores, Unknown):
        return cores
    if isinstance(cpus, Unknown):
        return cpus
    return cores / cpus if cpus else Unknown("mysqld may use no CPU?")


@fact("watch.server.mysqld.system_of_busy", "fraction", "System time as a share of mysqld's own CPU time.")
def mysqld_system(s: Series) -> Any:
    ps = _mysqld(s)
    return _u(median([p.system_cores / p.cores if p.cores > 0 else None for p in ps]), "mysqld's CPU was not sampled")


@fact("watch.server.mysqld.faults_per_query", "per query", "mysqld's minor page faults per query.")
def mysqld_faults(s: Series) -> Any:
    vals = []
    for iv in s.loaded:
        h = iv.server_host
        if h is None or h.mysqld is None or iv.server is None:
            continue
        q = iv.server.rates.get("Questions")
        if q:
            vals.append(h.mysqld.minor_faults_per_s / q)
    return _u(median(vals), "mysqld's page faults or the server's query counters were not sampled")


@fact("watch.server.mysqld.faults_per_s", "per second", "mysqld's minor page faults per second.")
def mysqld_faults_s(s: Series) -> Any:
    return _u(median([p.minor_faults_per_s for p in _mysqld(s)]), "mysqld was not sampled")


@fact("watch.server.other.cores", "CPUs", "CPU used on the server's CPUs by neither mysqld nor the benchmark command.")
def other_cores(s: Series) -> Any:
    vals = []
    for h in s.server_hosts():
        if h.mysqld is None:
            continue
        used = h.cpu.busy * h.cpu.cpus - h.mysqld.cores - (h.command.cores if h.command is not None else 0.0)
        vals.append(max(0.0, used))
    return _u(median(vals), "mysqld's CPU was not sampled")


@fact("watch.same_host", "bool", "Whether the benchmark client runs on the server's host (they share its CPUs).")
def same_host(s: Series) -> Any:
    if s.setup.command is None:
        return Unknown("no command ran under the watch, so the benchmark client is not known")
    return s.setup.same_host


@fact("watch.client.cpus", "CPUs", "CPUs of the benchmark client's host.")
def client_cpus(s: Series) -> Any:
    h = s.client_setup()
    return _u(h.cpu_count if h else None, s.why_no_client_host())


@fact("watch.client.cpu.busy", "fraction", "Busy share of all CPUs of the client's host.")
def client_busy(s: Series) -> Any:
    return _u(median([h.all_cpus.busy for h in s.client_hosts()]), s.why_no_client_host())


@fact("watch.client.cpu.system_of_busy", "fraction", "System time as a share of busy time on the client's host.")
def client_system_of_busy(s: Series) -> Any:
    return _u(median([(h.all_cpus.system + h.all_cpus.irq) / h.all_cpus.busy if h.all_cpus.busy > 0 else None
                      for h in s.client_hosts()]), s.why_no_client_host())


@fact("watch.client.command.cores", "CPUs", "CPU the benchmark command (with its child processes) used.")
def command_cores(s: Series) -> Any:
    vals = [h.command.cores for h in s.client_hosts() if h.command is not None]
    if s.setup.command is None:
        return Unknown("no command ran under the watch")
    return _u(median(vals), s.why_no_client_host())


@fact("watch.client.command.share", "fraction", "The command's CPU as a share of its host's CPUs.")
def command_share(s: Series) -> Any:
    c, n = command_cores(s), client_cpus(s)
    if isinstance(c, Unknown):
        return c
    if isinstance(n, Unknown):
        return n
    return c / n


@fact("watch.client.command.name", "text", "The benchmark command's process name.")
def command_name(s: Series) -> Any:
    names = [h.command.name for h in s.client_hosts() if h.command is not None]
    return names[0] if names else Unknown("the command's process was not sampled")


@fact("watch.cpu.top", "text", "Which consumer used the most CPU on the server's host: mysqld, the command or other processes.")
def cpu_top(s: Series) -> Any:
    m = mysqld_cores(s)
    if isinstance(m, Unknown):
        return m
    c = command_cores(s) if s.setup.same_host else 0.0
    c = 0.0 if isinstance(c, Unknown) else c
    o = other_cores(s)
    o = 0.0 if isinstance(o, Unknown) else o
    return max((m, "mysqld"), (c, "command"), (o, "other"))[1]


# ---------------------------------------------------------------------- network

@dataclass(frozen=True)
class NicPick:
    nic: NicSetup
    direction: str          # "rx" | "tx"
    utilisation: float
    mbytes_per_s: float
    packets_per_s: float
    ceiling_mbps: float


def _nic_series(s: Series) -> list[tuple[NicSetup, list[Any]]]:
    out = []
    for setup, attr in ((s.setup.server_host, "server_host"), (s.setup.client_host, "client_host")):
        if setup is None or (attr == "client_host" and s.setup.same_host):
            continue
        for nic in setup.nics:
            rates = [r for iv in s.loaded for h in [getattr(iv, attr)] if h is not None
                     for r in h.nics if r.interface == nic.interface]
            out.append((nic, rates))
    return out


def nic_pick(s: Series) -> Any:
    if "nic" in s._cache:
        return s._cache["nic"]
    best: Optional[NicPick] = None
    why = "no network interface was sampled"
    for nic, rates in _nic_series(s):
        if nic.loopback:
            why = "the connection goes over loopback, which has no line rate"
            continue
        for d in ("rx", "tx"):
            ceiling = nic.rx_ceiling_mbps if d == "rx" else nic.tx_ceiling_mbps
            u = median([getattr(r, f"{d}_utilisation") for r in rates])
            if ceiling is None or u is None:
                why = f"the line rate of {nic.interface} is unknown ({nic.ceiling_source or 'no speed, no shaper'})"
                continue
            if best is None or u > best.utilisation:
                best = NicPick(nic, d, u, median([getattr(r, f"{d}_mbytes_per_s") for r in rates]) or 0.0,
                               median([getattr(r, f"{d}_packets_per_s") for r in rates]) or 0.0, ceiling)
    s._cache["nic"] = best if best is not None else Unknown(why)
    return s._cache["nic"]


def _pick(s: Series, f: Callable[[NicPick], Any]) -> Any:
    p = nic_pick(s)
    return p if isinstance(p, Unknown) else f(p)


@fact("watch.net.loopback", "bool", "Whether every watched interface is loopback (client and server on one host).")
def net_loopback(s: Series) -> Any:
    nics = [n for h in (s.setup.server_host, s.setup.client_host) if h for n in h.nics]
    return Unknown("no network interface was sampled") if not nics else all(n.loopback for n in nics)


@fact("watch.net.utilisation", "fraction", "The busiest direction of the busiest interface, as a share of its ceiling.")
def net_util(s: Series) -> Any:
    return _pick(s, lambda p: p.utilisation)


@fact("watch.net.interface", "text", "That interface.")
def net_if(s: Series) -> Any:
    return _pick(s, lambda p: p.nic.interface)


@fact("watch.net.where", "text", "Whose interface it is, in words.")
def net_where(s: Series) -> Any:
    def words(p: NicPick) -> str:
        side = "the server's" if p.nic.side == "server" else "the client's"
        ns = " (in mysqld's network namespace)" if p.nic.netns == "mysqld" else ""
        return f"{side} interface {p.nic.interface}{ns}"
    return _pick(s, words)


@fact("watch.net.direction", "text", "'sends' or 'receives': the busiest direction.")
def net_dir(s: Series) -> Any:
    return _pick(s, lambda p: "sends" if p.direction == "tx" else "receives")


@fact("watch.net.mbytes_per_s", "MB/s", "Bytes per second in that direction (frames as the kernel counts them).")
def net_mb(s: Series) -> Any:
    return _pick(s, lambda p: p.mbytes_per_s)


@fact("watch.net.packets_per_s", "per second", "Packets per second in that direction.")
def net_pps(s: Series) -> Any:
    return _pick(s, lambda p: p.packets_per_s)


@fact("watch.net.ceiling_mbps", "Mb/s", "The line rate that direction is judged against.")
def net_ceiling(s: Series) -> Any:
    return _pick(s, lambda p: p.ceiling_mbps)


@fact("watch.net.ceiling_source", "text", "Where the line rate comes from (link speed, tbf shaper).")
def net_ceiling_src(s: Series) -> Any:
    return _pick(s, lambda p: p.nic.ceiling_source)


@fact("watch.net.bytes_per_query", "bytes", "Bytes in that direction per server query.")
def net_per_query(s: Series) -> Any:
    p, q = nic_pick(s), load_qps(s)
    if isinstance(p, Unknown):
        return p
    if isinstance(q, Unknown) or not q:
        return Unknown("no query rate")
    return p.mbytes_per_s * 1e6 / q


# ---------------------------------------------------------------------- storage and buffer pool

def disk_pick(s: Series) -> Any:
    if "disk" in s._cache:
        return s._cache["disk"]
    h = s.setup.server_host
    if h is None:
        s._cache["disk"] = Unknown(s.why_no_server_host())
        return s._cache["disk"]
    if not h.datadir_devices:
        m = next((m.reason for m in h.missing if m.fact == "datadir_devices"), "the datadir's device is unknown")
        s._cache["disk"] = Unknown(m)
        return s._cache["disk"]
    best = None
    for dev in h.datadir_devices:
        rates = [r for x in s.server_hosts() for r in x.disks if r.device == dev]
        u = median([r.utilisation for r in rates])
        if u is not None and (best is None or u > best[1]):
            best = (dev, u, rates)
    s._cache["disk"] = best if best is not None else Unknown(f"{', '.join(h.datadir_devices)} was not in /proc/diskstats")
    return s._cache["disk"]


def _disk(s: Series, f: Callable[[list[Any]], Optional[float]]) -> Any:
    p = disk_pick(s)
    if isinstance(p, Unknown):
        return p
    return _u(f(p[2]), f"{p[0]} did no I/O of that kind")


@fact("watch.disk.device", "text", "The datadir's busiest device.")
def disk_device(s: Series) -> Any:
    p = disk_pick(s)
    return p if isinstance(p, Unknown) else p[0]


@fact("watch.disk.utilisation", "fraction", "Its utilisation (share of time with I/O in flight).")
def disk_util(s: Series) -> Any:
    p = disk_pick(s)
    return p if isinstance(p, Unknown) else p[1]


@fact("watch.disk.read_iops", "per second", "Its reads per second.")
def disk_riops(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.reads_per_s for r in rs]))


@fact("watch.disk.write_iops", "per second", "Its writes per second.")
def disk_wiops(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.writes_per_s for r in rs]))


@fact("watch.disk.read_mbytes_per_s", "MB/s", "Its read throughput.")
def disk_rmb(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.read_mbytes_per_s for r in rs]))


@fact("watch.disk.write_mbytes_per_s", "MB/s", "Its write throughput.")
def disk_wmb(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.write_mbytes_per_s for r in rs]))


@fact("watch.disk.read_await_ms", "ms", "Average time of one read, queueing included.")
def disk_rawait(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.read_await_ms for r in rs]))


@fact("watch.disk.write_await_ms", "ms", "Average time of one write, queueing included.")
def disk_wawait(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.write_await_ms for r in rs]))


@fact("watch.disk.queue_depth", "count", "Average I/Os in flight.")
def disk_queue(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.queue_depth for r in rs]))


@fact("watch.disk.flush_ms", "ms", "Average time of one cache flush on that device (kernel 5.5+).")
def disk_flush_ms(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.flush_ms for r in rs]))


@fact("watch.disk.flushes_per_s", "per second", "Cache flushes per second on that device (kernel 5.5+).")
def disk_flushes(s: Series) -> Any:
    return _disk(s, lambda rs: median([r.flushes_per_s for r in rs]))


@fact("watch.bp.miss_rate", "fraction", "Share of buffer pool page requests that had to read the page (Innodb_buffer_pool_reads / _read_requests), over the loaded intervals.")
def bp_miss(s: Series) -> Any:
    reads, reqs = s.total("Innodb_buffer_pool_reads"), s.total("Innodb_buffer_pool_read_requests")
    if reads is None or reqs is None:
        return Unknown("the server's status was not sampled")
    return reads / reqs if reqs > 0 else Unknown("no buffer pool page was requested")


@fact("watch.bp.reads_per_s", "per second", "Pages read into the buffer pool per second.")
def bp_reads(s: Series) -> Any:
    return _u(s.rate("Innodb_buffer_pool_reads"), "the server's status was not sampled")


@fact("watch.bp.reads_per_query", "per query", "Pages read into the buffer pool per query.")
def bp_reads_q(s: Series) -> Any:
    r, q = s.total("Innodb_buffer_pool_reads"), s.total("Questions")
    return r / q if r is not None and q else Unknown("the server's status was not sampled")


@fact("watch.bp.wait_free_per_s", "per second", "Waits for a free buffer pool page per second (Innodb_buffer_pool_wait_free).")
def bp_wait_free(s: Series) -> Any:
    return _u(s.rate("Innodb_buffer_pool_wait_free"), "the server's status was not sampled")


# ---------------------------------------------------------------------- flushing

@fact("watch.flush.fsyncs_per_s", "per second", "InnoDB fsync calls per second (the larger of Innodb_data_fsyncs and Innodb_os_log_fsyncs: one may include the other).")
def fsyncs(s: Series) -> Any:
    a, b = s.rate("Innodb_data_fsyncs"), s.rate("Innodb_os_log_fsyncs")
    vals = [v for v in (a, b) if v is not None]
    return max(vals) if vals else Unknown("the server's status was not sampled")


@fact("watch.flush.latency_ms", "ms", "Time of one flush: the device's cache flush time, else its write await.")
def flush_latency(s: Series) -> Any:
    v = disk_flush_ms(s)
    if not isinstance(v, Unknown) and v is not None:
        return v
    return disk_wawait(s)


@fact("watch.flush.busy", "s per s", "fsyncs per second × the time of one flush: seconds spent flushing per second.")
def flush_busy(s: Series) -> Any:
    f, lat = fsyncs(s), flush_latency(s)
    if isinstance(f, Unknown):
        return f
    if isinstance(lat, Unknown):
        return lat
    return f * lat / 1000.0


@fact("watch.flush.log_waits_per_s", "per second", "Waits for redo log buffer space per second (Innodb_log_waits).")
def log_waits(s: Series) -> Any:
    return _u(s.rate("Innodb_log_waits"), "the server's status was not sampled")


@fact("watch.flush.pending", "count", "Median Innodb_data_pending_fsyncs.")
def pending_fsyncs(s: Series) -> Any:
    return _u(s.gauge("Innodb_data_pending_fsyncs"), "the server's status was not sampled")


# ---------------------------------------------------------------------- locks and concurrency

@fact("watch.lock.threads_running", "count", "Median Threads_running over the loaded intervals (the watcher's excluded).")
def lock_running(s: Series) -> Any:
    return _u(s.gauge("Threads_running"), "the server's status was not sampled")


@fact("watch.lock.running_per_cpu", "per CPU", "Threads_running per CPU mysqld may use.")
def running_per_cpu(s: Series) -> Any:
    r, c = lock_running(s), server_cpus(s)
    if isinstance(r, Unknown):
        return r
    if isinstance(c, Unknown):
        return c
    return r / c


@fact("watch.lock.row_lock_waiting", "sessions", "Average sessions waiting for row locks (Innodb_row_lock_time ms per second / 1000).")
def row_lock_waiting(s: Series) -> Any:
    v = s.rate("Innodb_row_lock_time")
    return _u(None if v is None else v / 1000.0, "the server's status was not sampled")


@fact("watch.lock.row_lock_waits_per_s", "per second", "Row lock waits per second.")
def row_lock_waits(s: Series) -> Any:
    return _u(s.rate("Innodb_row_lock_waits"), "the server's status was not sampled")


@fact("watch.lock.wait_share", "fraction", "Share of the running sessions that wait for row locks (row_lock_waiting / threads_running).")
def lock_wait_share(s: Series) -> Any:
    w, r = row_lock_waiting(s), lock_running(s)
    if isinstance(w, Unknown):
        return w
    if isinstance(r, Unknown):
        return r
    return min(1.0, w / r) if r > 0 else 0.0  # nobody running, nobody waiting


LOCK_STATE_WORDS = ("lock", "waiting for")


def _states(s: Series) -> list[dict[str, int]]:
    return [iv.server.states for iv in s.loaded if iv.server is not None and iv.server.states]


@fact("watch.lock.state_share", "fraction", "Share of non-sleeping sessions in a lock-wait state (processlist).")
def lock_state_share(s: Series) -> Any:
    vals = []
    for st in _states(s):
        active = {k: n for k, n in st.items() if not k.startswith(("Sleep", "Daemon", "Binlog Dump"))}
        total = sum(active.values())
        if total:
            waiting = sum(n for k, n in active.items() if any(w in k.lower() for w in LOCK_STATE_WORDS))
            vals.append(waiting / total)
    return _u(median(vals), "the processlist was not sampled (it needs the PROCESS privilege)")


@fact("watch.lock.top_state", "text", "The most frequent processlist state of non-sleeping sessions.")
def top_state(s: Series) -> Any:
    counts: dict[str, int] = {}
    for st in _states(s):
        for k, n in st.items():
            if not k.startswith(("Sleep", "Daemon")):
                counts[k] = counts.get(k, 0) + n
    if not counts:
        return Unknown("no active session was seen in the processlist")
    return max(counts.items(), key=lambda kv: kv[1])[0]


# ---------------------------------------------------------------------- TLS

@fact("watch.tls.connections", "count", "Connections opened while the watch ran.")
def tls_conns(s: Series) -> Any:
    xs = [iv.server.rates.get("Connections", 0.0) * iv.seconds for iv in s.run.intervals if iv.server]
    return round(sum(xs)) if xs else Unknown("the server's status was not sampled")


@fact("watch.tls.handshakes", "count", "TLS handshakes the server accepted while the watch ran (Ssl_accepts).")
def tls_handshakes(s: Series) -> Any:
    xs = [iv.server.rates.get("Ssl_accepts", 0.0) * iv.seconds for iv in s.run.intervals if iv.server]
    return round(sum(xs)) if xs else Unknown("the server's status was not sampled")


def _sysbench_ssl(s: Series) -> Optional[bool]:
    sb = s.setup.command.sysbench if s.setup.command else None
    if not sb:
        return None
    v = (sb.get("options") or {}).get("mysql-ssl")
    if v is None:
        return None
    return str(v).lower() in ("true", "on", "1", "required", "preferred", "verify_ca", "verify_identity")


@fact("watch.tls.share", "fraction", "Share of the benchmark's connections that use TLS: TLS handshakes per connection opened during the watch, else the sysbench command's --mysql-ssl.")
def tls_share(s: Series) -> Any:
    c, h = tls_conns(s), tls_handshakes(s)
    if not isinstance(c, Unknown) and c >= 1 and not isinstance(h, Unknown):
        return min(1.0, h / c)
    ssl = _sysbench_ssl(s)
    if ssl is not None:
        return 1.0 if ssl else 0.0
    return Unknown("no connection was opened while the watch ran and the command does not say whether it uses TLS")


@fact("watch.tls.basis", "text", "How watch.tls.share was found.")
def tls_basis(s: Series) -> Any:
    c, h = tls_conns(s), tls_handshakes(s)
    if not isinstance(c, Unknown) and c >= 1:
        return f"{h} TLS handshakes for {c} connections opened during the watch"
    if _sysbench_ssl(s) is not None:
        return "the sysbench command's --mysql-ssl option"
    return Unknown("nothing says whether the benchmark uses TLS")


# ---------------------------------------------------------------------- the command and a baseline

@fact("watch.command.exit_status", "status", "The command's exit status.")
def exit_status(s: Series) -> Any:
    c = s.setup.command
    if c is None:
        return Unknown("no command ran under the watch")
    return _u(c.exit_status, "the command did not finish")


@fact("watch.command.interrupted", "bool", "Whether the watch was interrupted (Ctrl-C) before the end.")
def interrupted(s: Series) -> Any:
    return s.run.end_reason.startswith("interrupted")


def _base(s: Series, fn: Callable[[Series], Any]) -> Any:
    if s.baseline is None:
        return Unknown("no baseline series was given (--baseline FILE)")
    return fn(s.baseline)


@fact("watch.baseline.name", "text", "The baseline series' file.")
def baseline_name(s: Series) -> Any:
    return s.baseline_name if s.baseline is not None else Unknown("no baseline series was given (--baseline FILE)")


@fact("watch.baseline.tps", "per second", "watch.tps of the baseline.")
def baseline_tps(s: Series) -> Any:
    return _base(s, tps)


@fact("watch.baseline.tls_share", "fraction", "watch.tls.share of the baseline.")
def baseline_tls(s: Series) -> Any:
    return _base(s, tls_share)


@fact("watch.baseline.server_system_of_busy", "fraction", "watch.server.cpu.system_of_busy of the baseline.")
def baseline_sys(s: Series) -> Any:
    return _base(s, server_system_of_busy)


@fact("watch.baseline.tps_ratio", "ratio", "watch.tps / the baseline's.")
def baseline_ratio(s: Series) -> Any:
    a, b = tps(s), baseline_tps(s)
    if isinstance(a, Unknown):
        return a
    if isinstance(b, Unknown):
        return b
    return a / b if b else Unknown("the baseline's TPS is 0")
