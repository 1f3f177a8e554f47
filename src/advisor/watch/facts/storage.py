"""Storage facts: the datadir's devices, the buffer pool's misses, flushing.
Pure; registered in advisor.watch.facts.base.FACTS."""

from __future__ import annotations

from typing import Any, Callable, Optional

from advisor.rules.facts import Unknown
from advisor.watch.facts.base import Series, _u, fact, median


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


# ---------------------------------------------------------------------- what a commit waits for

def _audit_var(s: Series, name: str) -> Any:
    snap = s.setup.audit.snapshot or {}
    v = ((snap.get("server") or {}).get("variables") or {}).get(name)
    return Unknown(f"{name} was not read at the start of the watch") if v is None else v


def _num_var(s: Series, name: str) -> Any:
    v = _audit_var(s, name)
    if isinstance(v, Unknown):
        return v
    try:
        return float(v)
    except ValueError:
        return Unknown(f"{name} is {v!r}, not a number")


@fact("watch.commit.redo_syncs_per_s", "per second", "Redo log flushes per second: Innodb_os_log_fsyncs, or where "
      "the server no longer counts those (MariaDB 10.8+) Innodb_data_fsyncs, which then counts them with the data "
      "files' (the larger of the two).")
def redo_syncs(s: Series) -> Any:
    return fsyncs(s)


@fact("watch.commit.binlog_syncs_per_s", "per second", "Binary log flushes per second: 0 with the binary log off "
      "or sync_binlog = 0; else binlog group commits ÷ sync_binlog (MariaDB's Binlog_group_commits; MySQL counts "
      "none, and there each group's redo flush stands for its binlog group).")
def binlog_syncs(s: Series) -> Any:
    log_bin = _audit_var(s, "log_bin")
    if isinstance(log_bin, Unknown):
        return log_bin
    if str(log_bin).strip().upper() in ("OFF", "0"):
        return 0.0
    n = _num_var(s, "sync_binlog")
    if isinstance(n, Unknown):
        return n
    if n <= 0:
        return 0.0
    groups = s.rate("Binlog_group_commits")
    if groups is None:
        groups = s.rate("Innodb_os_log_fsyncs")
    return _u(None if groups is None else groups / n, "the server's status was not sampled")


@fact("watch.commit.syncs_per_s", "per second", "Flushes per second that durable commits wait for: redo log plus "
      "binary log.")
def commit_syncs(s: Series) -> Any:
    a, b = redo_syncs(s), binlog_syncs(s)
    for x in (a, b):
        if isinstance(x, Unknown):
            return x
    return a + b


def _sync(s: Series) -> Any:
    p = s.setup.commit_sync
    if p is None or p.p50 is None:
        m = next((m.reason for m in s.setup.missing if m.fact == "commit_sync"), None)
        return Unknown(m or "the flush a commit waits for was not measured at the start of this watch")
    return p


@fact("watch.commit.sync_ms", "ms", "The server's own mean wait for one redo log flush over the watch "
      "(performance_schema, MySQL), else the median 16 KiB overwrite + fdatasync timed on the datadir's filesystem: "
      "what one redo log flush costs the thread that waits for it (the device's own flush "
      "time in /proc/diskstats leaves out the filesystem's journal).")
def commit_sync_ms(s: Series) -> Any:
    server = _server_ms(s, "redo")
    if server is not None:
        return server
    p = _sync(s)
    return p if isinstance(p, Unknown) else p.p50


@fact("watch.commit.binlog_sync_ms", "ms", "The server's own mean wait for one binary log flush over the watch "
      "(performance_schema), else the median 16 KiB append + fdatasync on the datadir's filesystem (the file "
      "grows, so the flush also commits its new size): what one binary log flush costs; the overwrite's when the "
      "append was not timed.")
def commit_binlog_sync_ms(s: Series) -> Any:
    server = _server_ms(s, "binlog")
    if server is not None:
        return server
    p = _sync(s)
    if isinstance(p, Unknown):
        return p
    return p.append_p50 if p.append_p50 is not None else p.p50


def _server_ms(s: Series, log: str) -> Optional[float]:
    """The server's own mean wait for one flush of `log` ('binlog', 'redo') over the watch."""
    w = (s.setup.server_syncs or {}).get(log)
    return w.ms_each if w is not None and w.count > 0 else None


def _busy(s: Series, q: str) -> Any:
    """Seconds of commit waiting per second with the probe's `q` percentile ('p50', 'p25', 'p75'); a log
    whose flushes the server timed itself (performance_schema) counts with that mean instead."""
    p = _sync(s)
    if isinstance(p, Unknown):
        return p
    redo, binlog = redo_syncs(s), binlog_syncs(s)
    for x in (redo, binlog):
        if isinstance(x, Unknown):
            return x
    over = getattr(p, q)
    grow = getattr(p, "append_" + q)
    if over is None:
        return Unknown(f"no {q} of the flush time was recorded")
    redo_ms = _server_ms(s, "redo") or over
    binlog_ms = _server_ms(s, "binlog") or (grow if grow is not None else over)
    return (redo * redo_ms + binlog * binlog_ms) / 1000.0


@fact("watch.commit.busy", "s per s", "Redo log flushes per second × the measured overwrite flush plus binary log "
      "flushes per second × the measured append flush: seconds of commit waiting per second (near 1 with one "
      "thread: the run is its commits).")
def commit_busy(s: Series) -> Any:
    return _busy(s, "p50")


@fact("watch.commit.busy_low", "s per s", "watch.commit.busy at the 25th percentile of the measured flush times.")
def commit_busy_low(s: Series) -> Any:
    return _busy(s, "p25")


@fact("watch.commit.busy_high", "s per s", "watch.commit.busy at the 75th percentile of the measured flush times.")
def commit_busy_high(s: Series) -> Any:
    return _busy(s, "p75")
