"""The watch series: what `advisor watch` measured, interval by interval, as a versioned pydantic model.

`--save FILE` writes a WatchRun (JSON), `--load FILE` reads one back and judges it again, and the
JSON report embeds it; every interval keeps its timestamps so any tool can plot it. Field names say
their unit (`_per_s`, `_mbytes_per_s` = 10^6 bytes per second, `_ms`, `_s`); shares and
utilisations are fractions from 0 to 1; `cores` are CPU-seconds per second. UNITS lists them for
readers of the JSON.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

SERIES_SCHEMA = "advisor.watch/1"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Missing(_M):
    fact: str
    reason: str


# ---------------------------------------------------------------------- per interval

PER_CPU_FIELDS = ("user", "system", "irq", "iowait", "steal", "idle")


class CpuShare(_M):
    """Where the CPUs' time went over one interval, as fractions of the time of `cpus` CPUs."""

    cpus: int
    user: float = Field(description="user and nice (guest time included)")
    system: float
    irq: float = Field(description="hardware and software interrupts")
    iowait: float
    steal: float
    idle: float

    @property
    def busy(self) -> float:
        return self.user + self.system + self.irq


class ProcessCpu(_M):
    """One process (mysqld) or a process tree (the benchmark command) over one interval."""

    pid: int
    name: str
    cores: float = Field(description="CPU-seconds per second, user + system, all threads")
    user_cores: float
    system_cores: float
    minor_faults_per_s: float
    major_faults_per_s: float
    threads: int
    processes: int = 1
    run_wait_cores: Optional[float] = Field(None, description="seconds per second its threads waited, runnable, for a CPU "
                                            "(run-queue delay, /proc/PID/task/*/schedstat), summed over threads")


class DiskRate(_M):
    device: str
    reads_per_s: float
    writes_per_s: float
    read_mbytes_per_s: float
    write_mbytes_per_s: float
    read_await_ms: Optional[float] = None
    write_await_ms: Optional[float] = None
    utilisation: float = Field(description="share of the interval with at least one I/O in flight (io_ticks)")
    queue_depth: float = Field(description="average I/Os in flight (weighted ms / interval ms)")
    flushes_per_s: Optional[float] = Field(None, description="cache flush requests (kernel 5.5+)")
    flush_ms: Optional[float] = Field(None, description="average time of one flush request")


class NicRate(_M):
    interface: str
    rx_mbytes_per_s: float
    tx_mbytes_per_s: float
    rx_packets_per_s: float
    tx_packets_per_s: float
    rx_drops_per_s: float = 0.0
    tx_drops_per_s: float = 0.0
    rx_utilisation: Optional[float] = Field(None, description="share of the receive ceiling (NicSetup)")
    tx_utilisation: Optional[float] = None


class HostInterval(_M):
    cpu: CpuShare = Field(description="over the CPUs that count: the server's allowed CPUs on its host, all CPUs on the client's")
    all_cpus: CpuShare
    per_cpu: dict[str, list[float]] = Field(default_factory=dict, description="CPU number -> " + ", ".join(PER_CPU_FIELDS))
    context_switches_per_s: Optional[float] = None
    procs_running: Optional[int] = None
    mysqld: Optional[ProcessCpu] = None
    command: Optional[ProcessCpu] = None
    disks: list[DiskRate] = Field(default_factory=list)
    nics: list[NicRate] = Field(default_factory=list)
    lag_s: float = Field(0.0, description="age of the host sample when the interval closed (streams, ssh)")


class ServerInterval(_M):
    rates: dict[str, float] = Field(default_factory=dict, description="status counters per second, the watcher's own statements removed")
    gauges: dict[str, float] = Field(default_factory=dict, description="status values at the end of the interval")
    states: dict[str, int] = Field(default_factory=dict, description="processlist 'Command: State' -> sessions (the watcher's excluded)")
    sample_ms: float = Field(0.0, description="time the watcher's statements took")
    restarted: bool = False


class SysbenchReport(_M):
    """One --report-interval line of sysbench."""

    t_s: float = Field(description="sysbench's own time stamp: seconds since its threads started")
    received_s: Optional[float] = Field(None, description="seconds since the watch started when the line arrived")
    threads: int
    tps: Optional[float] = None
    qps: Optional[float] = None
    reads_per_s: Optional[float] = None
    writes_per_s: Optional[float] = None
    other_per_s: Optional[float] = None
    eps: Optional[float] = Field(None, description="events per second (cpu, fileio, memory tests)")
    latency_ms: Optional[float] = None
    latency_percentile: Optional[float] = Field(None, description="95 for the 95th percentile, 0 for the average")
    errors_per_s: Optional[float] = None
    reconnects_per_s: Optional[float] = None


class Interval(_M):
    index: int
    start_s: float = Field(description="seconds since the watch started")
    end_s: float
    at: str = Field(description="ISO 8601 UTC time at the end of the interval")
    seconds: float
    server: Optional[ServerInterval] = None
    server_host: Optional[HostInterval] = None
    client_host: Optional[HostInterval] = Field(None, description="None when the client runs on the server's host")
    sysbench: list[SysbenchReport] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    watcher_cpu_s: float = Field(0.0, description="CPU time the watcher itself used in this interval")


# ---------------------------------------------------------------------- once per run

class NicSetup(_M):
    interface: str
    side: Literal["server", "client"]
    kind: Optional[str] = None
    netns: Optional[str] = Field(None, description="'mysqld' when the interface is in the server's own network namespace")
    speed_mbps: Optional[int] = None
    shaper_mbps: Optional[float] = Field(None, description="rate of a tbf qdisc on the interface's egress")
    rx_ceiling_mbps: Optional[float] = None
    tx_ceiling_mbps: Optional[float] = None
    ceiling_source: str = ""
    loopback: bool = False


class HostSetup(_M):
    role: Literal["server", "client", "server+client"]
    source: Literal["local", "ssh", "stream", "recorded"]
    origin: str = ""
    hostname: Optional[str] = None
    cpu_count: Optional[int] = None
    clk_tck: int = 100
    mysqld_pid: Optional[int] = None
    mysqld_how: str = ""
    allowed_cpus: list[int] = Field(default_factory=list)
    cpu_quota: Optional[float] = Field(None, description="cgroup CPU quota in CPUs, None when unlimited")
    cpus_available: Optional[float] = Field(None, description="CPUs mysqld may use: allowed CPUs, capped by the quota")
    datadir_devices: list[str] = Field(default_factory=list)
    nics: list[NicSetup] = Field(default_factory=list)
    missing: list[Missing] = Field(default_factory=list)


class SysbenchSummary(_M):
    """sysbench's final report."""

    transactions: Optional[int] = None
    tps: Optional[float] = None
    queries: Optional[int] = None
    qps: Optional[float] = None
    ignored_errors: Optional[int] = None
    reconnects: Optional[int] = None
    total_time_s: Optional[float] = None
    events: Optional[int] = None
    events_per_s: Optional[float] = None
    latency_min_ms: Optional[float] = None
    latency_avg_ms: Optional[float] = None
    latency_max_ms: Optional[float] = None
    latency_pct_ms: Optional[float] = None
    percentile: Optional[int] = None
    fatal: list[str] = Field(default_factory=list, description="FATAL lines sysbench printed")


class CommandInfo(_M):
    display: str = Field(description="the command line, passwords masked")
    sysbench: Optional[dict[str, Any]] = Field(None, description="the parsed sysbench command (advisor.sysbench)")
    pid: Optional[int] = None
    exit_status: Optional[int] = None
    signal: Optional[int] = None
    interrupted: bool = False
    summary: Optional[SysbenchSummary] = None
    output_lines: int = 0


class AuditFinding(_M):
    rule: str
    severity: str
    title: str
    message: str
    fix: str = ""


class AuditInfo(_M):
    ran: bool = False
    reason: str = ""
    snapshot: Optional[dict[str, Any]] = Field(None, description="the audit's snapshot (advisor collect format)")
    findings: list[AuditFinding] = Field(default_factory=list)
    statuses: dict[str, str] = Field(default_factory=dict, description="rule id -> fired, passed, not_applicable or unknown")
    unknown: dict[str, str] = Field(default_factory=dict, description="rule id -> why it could not be evaluated")


class Target(_M):
    flavor: Optional[str] = None
    version: Optional[str] = None
    host: Optional[str] = None
    port: Optional[int] = None
    socket: Optional[str] = None
    transport: str = "tcp"
    endpoint: str = ""
    tls: Optional[str] = Field(None, description="TLS version of the watcher's own connection, None when plain")


class SyncProbe(_M):
    """What one commit's flushes cost the process that waits for them: a 16 KiB write + fdatasync in a
    temp file on the datadir's filesystem, overwriting (as the redo log does) and appending (as the binary
    log does), timed in a burst at the start of the watch and a few times each interval while the
    benchmark runs (the server's host is this machine). The device's own cache-flush time in
    /proc/diskstats leaves out the filesystem's journal commit."""

    path: str = Field(description="directory of the temporary file (the datadir's parent)")
    fstype: Optional[str] = None
    samples: int = 0
    p50: Optional[float] = Field(None, description="median, ms")
    p25: Optional[float] = Field(None, description="25th percentile, ms (the middle half's low end)")
    p75: Optional[float] = Field(None, description="75th percentile, ms (the middle half's high end)")
    p99: Optional[float] = None
    append_samples: int = 0
    append_p50: Optional[float] = Field(None, description="median of the same write appended (the file grows), ms: "
                                        "what a binary log flush costs")
    append_p25: Optional[float] = None
    append_p75: Optional[float] = None
    during_run: bool = Field(False, description="true: the figures are of the flushes timed while the benchmark ran "
                             "(each interval); false: of the burst at the start (too few during a short run)")


class ServerSyncs(_M):
    """What the server's threads waited for one file's flushes over the watch: the difference between
    performance_schema.file_summary_by_event_name at its start and at its end (COUNT_MISC and
    SUM_TIMER_MISC: syncs, with the rare other file operations of that class)."""

    count: int
    ms_each: Optional[float] = Field(None, description="mean wait of one, ms")


class WatchSetup(_M):
    target: Target = Field(default_factory=Target)
    interval_s: float
    seconds: Optional[float] = None
    server_host: Optional[HostSetup] = None
    client_host: Optional[HostSetup] = None
    same_host: bool = False
    command: Optional[CommandInfo] = None
    audit: AuditInfo = Field(default_factory=AuditInfo)
    statements_per_interval: int = 0
    commit_sync: Optional[SyncProbe] = Field(None, description="the flush a durable commit waits for, measured here")
    server_syncs: Optional[dict[str, ServerSyncs]] = Field(
        None, description="'binlog' / 'redo': the server's own flush waits over the watch (performance_schema)")
    missing: list[Missing] = Field(default_factory=list)


class Startup(_M):
    """How long the watch took to start, from the advisor process's start (its /proc start time)."""

    first_sample_s: Optional[float] = Field(None, description="seconds from the process's start to the first sample")
    cpu_before_first_sample_s: Optional[float] = Field(None, description="CPU time the process used before it")
    first_sample_at: str = ""
    audit_done_s: Optional[float] = Field(None, description="seconds from the process's start to the end of the "
                                          "audit, which runs beside the sampling after the first sample")
    audit_cpu_s: Optional[float] = Field(None, description="CPU time the audit's thread used (not in watcher_cpu_s)")


class WatchRun(_M):
    schema_: Literal["advisor.watch/1"] = Field(SERIES_SCHEMA, alias="schema")
    advisor_version: str
    started_at: str
    ended_at: str = ""
    duration_s: float = 0.0
    end_reason: str = ""
    setup: WatchSetup
    intervals: list[Interval] = Field(default_factory=list)
    watcher_cpu_s: float = Field(0.0, description="CPU time the watcher used while sampling (after setup)")
    startup: Optional[Startup] = None
    units: dict[str, str] = Field(default_factory=dict)

    model_config = ConfigDict(extra="forbid", defer_build=True, populate_by_name=True)

    def to_json(self) -> str:
        return self.model_dump_json(indent=1, by_alias=True) + "\n"


UNITS: dict[str, str] = {
    "*_per_s": "per second",
    "*_mbytes_per_s": "MB/s (10^6 bytes per second)",
    "*_ms": "milliseconds",
    "*_s, seconds": "seconds",
    "*_mbps": "Mb/s (10^6 bits per second)",
    "cores, user_cores, system_cores": "CPU-seconds per second (1.0 = one CPU fully used)",
    "cpu.*, all_cpus.*": "fraction (0-1) of the time of `cpus` CPUs",
    "per_cpu.N": "[user, system, irq, iowait, steal, idle] of CPU N, fractions (0-1)",
    "utilisation, rx_utilisation, tx_utilisation": "fraction (0-1)",
    "server.rates.*": "status counter per second (Innodb_row_lock_time: ms per second)",
    "server.gauges.*": "status value at the end of the interval",
    "at, started_at, ended_at": "ISO 8601 UTC",
}


def load_run(text: str, source: str) -> WatchRun:
    """Parse a saved series; raises InvalidInputError with one paragraph."""
    import json

    from pydantic import ValidationError

    from advisor.errors import InvalidInputError

    tip = "pass a file written by `advisor watch --save FILE` (or the `run` object of its JSON report)."
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidInputError(f"{source} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); it may "
                                "be truncated.", tip) from None
    if isinstance(raw, dict) and raw.get("schema") == "advisor.watch-report/1" and isinstance(raw.get("run"), dict):
        raw = raw["run"]
    if not isinstance(raw, dict) or raw.get("schema") != SERIES_SCHEMA:
        got = raw.get("schema") if isinstance(raw, dict) else type(raw).__name__
        raise InvalidInputError(f"{source} is not a watch series (schema {got!r}, expected {SERIES_SCHEMA!r}).", tip)
    try:
        return WatchRun.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise InvalidInputError(f"{source} is not a valid watch series: {loc}: {first['msg']}.", tip) from None
