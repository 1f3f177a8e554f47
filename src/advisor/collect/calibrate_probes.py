"""The calibration probes other than TLS: round trips, stream throughput, sort buffer A/B, flush
latency (on the server's host only) and commit latency (opt-in writes)."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import time
from pathlib import Path
from typing import Any, Callable, Optional

from advisor.collect import calibrate_stats
from advisor.collect.connection import connect
from advisor.errors import CollectionError
from advisor.snapshot import Distribution, FlushProbe, SortProbe, StreamProbe, WriteProbe
from advisor.collect.calibrate_base import (ProbeSkipped, StreamChunk, ProbeContext, close_conn, error_text, force_close, is_gone,
                                            query_samples, chunk_rate, stream_chunk, stream_loop, check_statement,
                                            deferred_signals, time_left)



# ---------------------------------------------------------------- probes

def probe_rtt(ctx: ProbeContext, deadline: float) -> None:
    time_left(deadline, 0.02, "round trips")
    cap = 200 if ctx.cal.mode == "light" else 2000
    samples = query_samples(ctx, ctx.conn, deadline, cap + 1, "round trips")
    samples = samples[1:] if len(samples) > 1 else samples  # the first one may pay for cold caches
    ctx.cal.rtt_ms = Distribution(**calibrate_stats.distribution(samples))


def _route(ctx: ProbeContext, conn: Any) -> tuple[Optional[str], Optional[int]]:
    """(route kind, link Mb/s) from the client facts when collected, else what the socket shows."""
    client = ctx.snap.client
    if client is not None and client.route is not None:
        r = client.route
        return r.kind, (r.speed_mbps if r.kind == "interface" and r.speed_mbps and r.speed_mbps > 0 else None)
    if ctx.ep.socket:
        return "socket", None
    import ipaddress

    try:
        peer = conn._sock.getpeername()[0]
        if ipaddress.ip_address(peer.split("%")[0]).is_loopback:
            return "loopback", None
    except (OSError, AttributeError, ValueError):
        pass
    return None, None


def pick_generator(ctx: ProbeContext, conn: Any, probe: str) -> tuple[str, StreamChunk]:
    """The first row generator that works here, with its first (warm-up) chunk."""
    import pymysql

    tried: list[str] = []
    chain = [ctx.generator] if ctx.generator else calibrate_stats.generator_chain(ctx.snap.target.flavor, ctx.snap.target.version)
    for method in chain:
        rows = 8
        try:
            chunk = stream_chunk(ctx, conn, calibrate_stats.stream_sql(calibrate_stats.source_for(method, rows), rows), probe)
        except pymysql.MySQLError as e:
            if is_gone(e):
                raise
            tried.append(f"{method}: {error_text(e, ctx.ep)}")
            continue
        ctx.generator = method
        return method, chunk
    raise ProbeSkipped("the server generated no rows for the probe (" + "; ".join(tried) + ")")


def probe_stream(ctx: ProbeContext, deadline: float) -> None:
    conn = ctx.conn
    now = time.monotonic()
    share = time_left(deadline, 0.3, "the stream probe")
    method, first = pick_generator(ctx, conn, "stream")
    chunks = [first]
    loop_deadline = now + share * 0.8
    rows = calibrate_stats.next_chunk_rows(first.rows, first.seconds, first.payload, loop_deadline - time.monotonic(),
                              limit=calibrate_stats.max_rows(method))
    chunks += stream_loop(ctx, conn, method, loop_deadline, rows, "stream")
    rate, used, b, s, cpu, wire = chunk_rate(chunks)
    frac, bound = calibrate_stats.cpu_bound(cpu, s)
    kind, link = _route(ctx, conn)
    sock = getattr(conn, "_sock", None)
    probe = StreamProbe(
        mbytes_per_s=None if rate is None else round(rate / 1e6, 3), bytes=int(b), seconds=round(s, 4),
        client_cpu_bound=bound, client_cpu_fraction=frac, method=method, row_bytes=calibrate_stats.ROW_BYTES, chunks=used,
        basis="tcp_info" if wire else "rows", tls=is_tls(sock), transport=ctx.ep.transport, route_kind=kind,
    )
    if link:
        ceiling = calibrate_stats.payload_ceiling_mbytes_per_s(link)
        probe.link_speed_mbps = link
        probe.payload_ceiling_mbytes_per_s = round(ceiling, 3)
        if probe.mbytes_per_s is not None:
            probe.line_rate_fraction = round(probe.mbytes_per_s / ceiling, 4)
    elif kind not in ("loopback", "socket"):
        client = ctx.snap.client
        if client is None:
            why = "the client's network path was not collected"
        elif client.route is None:
            why = "the route to the server is unknown"
        else:
            why = f"interface {client.route.interface} reports no link speed"
        ctx.cal.note_missing("calibration.stream.link_speed_mbps",
                             f"{why}, so the stream cannot be compared with the line rate")
    ctx.cal.stream = probe
    # How fast does the server make these rows without sending them? Same rows, summed server-side.
    left = deadline - time.monotonic()
    if rate and left > 0.05:
        gen_rows = max(8, min(int(rate * min(left * 0.8, 0.5) / calibrate_stats.ROW_BYTES), calibrate_stats.max_rows(method)))
        sql = check_statement(calibrate_stats.generate_sql(calibrate_stats.source_for(method, gen_rows), gen_rows))
        cur = conn.cursor()
        try:
            t = time.perf_counter()
            cur.execute(sql)
            cur.fetchall()
            dt = time.perf_counter() - t
        finally:
            cur.close()
        if dt > 0:
            probe.server_mbytes_per_s = round(gen_rows * calibrate_stats.ROW_BYTES / dt / 1e6, 3)
    elif rate:
        ctx.cal.note_missing("calibration.stream.server_mbytes_per_s",
                             f"the stream probe's share of the budget ran out ({max(left, 0.0):.2f} s left) before "
                             "the server's row generation could be timed")


def is_tls(sock: Any) -> Optional[bool]:
    if sock is None:
        return None
    import ssl

    return isinstance(sock, ssl.SSLSocket)


def probe_sort(ctx: ProbeContext, deadline: float) -> None:
    import pymysql

    if ctx.snap.target.flavor == "tidb":
        raise ProbeSkipped("TiDB sorts in its own memory; sort_buffer_size does not apply")
    raw = ctx.var("sort_buffer_size")
    try:
        server_value = int(raw) if raw is not None else None
    except ValueError:
        server_value = None
    if server_value is None:
        raise ProbeSkipped("the server reports no numeric sort_buffer_size")
    if server_value <= calibrate_stats.SMALL_SORT_BUFFER:
        raise ProbeSkipped(f"sort_buffer_size is already {server_value} bytes, no larger than the probe's "
                           f"small value ({calibrate_stats.SMALL_SORT_BUFFER}); there is nothing to compare")
    conn = ctx.conn
    share = time_left(deadline, 0.2, "the sort probe")
    chain = [ctx.generator] if ctx.generator else calibrate_stats.generator_chain(ctx.snap.target.flavor, ctx.snap.target.version)
    rows = calibrate_stats.SORT_ROWS
    cur = conn.cursor()
    set_server = check_statement("SET SESSION sort_buffer_size = DEFAULT")
    set_small = check_statement(f"SET SESSION sort_buffer_size = {calibrate_stats.SMALL_SORT_BUFFER}")

    def timed(sql: str) -> float:
        t = time.perf_counter()
        cur.execute(sql)
        cur.fetchall()
        return (time.perf_counter() - t) * 1000.0

    try:
        cur.execute(set_server)
        method, sql, warm = None, "", 0.0
        tried = []
        trial = calibrate_stats.SORT_ROWS // 10  # a tenth first: sizes the real query to the server's speed
        for m in chain:
            q = check_statement(calibrate_stats.sort_sql(calibrate_stats.source_for(m, trial), trial))
            try:
                warm = timed(q)
            except pymysql.MySQLError as e:
                if is_gone(e):
                    raise
                tried.append(f"{m}: {error_text(e, ctx.ep)}")
                continue
            method = m
            break
        if method is None:
            raise ProbeSkipped("the sort query failed (" + "; ".join(tried) + ")")
        # Full size unless that would not leave room for several alternating pairs in the share.
        per_row = warm / 1000.0 / trial
        rows = max(trial // 2, min(calibrate_stats.SORT_ROWS, int(share / 12 / max(per_row, 1e-9))))
        sql = check_statement(calibrate_stats.sort_sql(calibrate_stats.source_for(method, rows), rows))
        timed(sql)
        cur.execute(set_small)
        timed(sql)  # warm the small-buffer path too
        big: list[float] = []
        small: list[float] = []
        i = 0
        while time.monotonic() < deadline or not big:
            order = ((set_server, big), (set_small, small)) if i % 2 == 0 else ((set_small, small), (set_server, big))
            for setter, bucket in order:
                cur.execute(setter)
                bucket.append(timed(sql))
            i += 1
            ctx.tick("sort buffer")
            if i >= 200:
                break
        cur.execute(set_server)  # back to the global value (on errors the connection is closed anyway)
    finally:
        cur.close()
    b, s = calibrate_stats.median(big), calibrate_stats.median(small)
    pairs = [x / y for x, y in zip(big, small) if y > 0]  # each round's pair ran back to back
    lo, hi = calibrate_stats.percentile(pairs, 25), calibrate_stats.percentile(pairs, 75)
    ctx.cal.sort_probe = SortProbe(
        ratio=round(b / s, 4) if b and s else None,
        ratio_p25=None if lo is None else round(lo, 4), ratio_p75=None if hi is None else round(hi, 4), server_value=server_value, small_value=calibrate_stats.SMALL_SORT_BUFFER,
        server_ms=None if b is None else round(b, 4), small_ms=None if s is None else round(s, 4),
        samples=min(len(big), len(small)), rows=rows, method=method)




# ---------------------------------------------------------------- flush probe (local only)

def _hostname() -> Optional[str]:
    try:
        return socket.gethostname()
    except OSError:
        return None


def read_locality(ctx: ProbeContext) -> calibrate_stats.LocalityFacts:
    datadir = ctx.var("datadir")
    pid_file = ctx.var("pid_file")
    exists = bool(datadir) and Path(datadir).is_dir()  # type: ignore[arg-type]
    real = os.path.realpath(datadir) if exists else None  # type: ignore[arg-type]
    pid = comm = cwd = cwd_err = None
    if pid_file and exists:
        p = Path(pid_file if os.path.isabs(pid_file) else os.path.join(datadir or "", pid_file))
        with contextlib.suppress(OSError, ValueError):
            pid = int(p.read_text().split()[0])
    if pid is not None:
        with contextlib.suppress(OSError):
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError as e:
            cwd_err = e.strerror
    return calibrate_stats.LocalityFacts(datadir=datadir, datadir_exists=exists, server_hostname=ctx.var("hostname"),
                            local_hostname=_hostname(), pid=pid, pid_comm=comm, pid_cwd=cwd, pid_cwd_error=cwd_err,
                            datadir_real=real, transport=ctx.ep.transport)


def _fstype(path: str) -> Optional[str]:
    try:
        text = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return None
    return calibrate_stats.mount_fstype(text, path)


def flush_dir(datadir: str) -> str:
    """The directory the flush probe writes its temp file in: the datadir's parent, when it is on the
    datadir's filesystem and writable (the advisor creates no files inside the datadir). ProbeSkipped
    with the reason otherwise."""
    parent = os.path.dirname(datadir.rstrip("/")) or "/"
    try:
        same_fs = os.stat(parent).st_dev == os.stat(datadir).st_dev
    except OSError as e:
        raise ProbeSkipped(f"cannot stat {parent}: {e.strerror}") from None
    if not same_fs:
        raise ProbeSkipped(f"the datadir {datadir} is a mount point, so its parent {parent} is another filesystem, "
                           "and the advisor creates no files inside the datadir")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ProbeSkipped(f"{parent} (the datadir's parent directory) is not writable by this user")
    return parent


class FlushTimer:
    """Two temp files in `parent` (the datadir's filesystem) for timing flushes over a while, as a watch
    does: one preallocated and overwritten in 16 KiB steps (as the redo log is), one appended to (as the
    binary log grows; cut back to empty, untimed, every GROW_LIMIT bytes). close() removes both; the
    caller calls it on every exit. OSError when a file cannot be made or written."""

    GROW_LIMIT = 4 << 20

    def __init__(self, parent: str, grow: bool = True):
        self.parent = parent
        self.names: list[str] = []
        self.fds: list[int] = []
        self.block = os.urandom(calibrate_stats.FLUSH_WRITE_BYTES)
        self.off = 0
        self.grown = 0
        try:
            over = self._open("over")
            self.grow = self._open("grow") if grow else -1
            for off in range(0, calibrate_stats.FLUSH_FILE_BYTES, calibrate_stats.FLUSH_WRITE_BYTES):
                os.pwrite(over, self.block, off)
            os.fsync(over)  # allocated and on disk: the timed overwrites change data only, no metadata
        except BaseException:  # OSError, or Ctrl-C / SIGTERM while the files are being made
            self.close()
            raise
        self.over = over

    def _open(self, kind: str) -> int:
        name = os.path.join(self.parent, f".advisor-fsync-{os.getpid()}-{kind}-{secrets.token_hex(4)}.tmp")
        self.names.append(name)
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self.fds.append(fd)
        return fd

    def _timed(self, fd: int, off: int) -> float:
        t = time.perf_counter()
        os.pwrite(fd, self.block, off)
        os.fdatasync(fd)
        return (time.perf_counter() - t) * 1000.0

    def overwrite(self) -> float:
        ms = self._timed(self.over, self.off)
        self.off = (self.off + calibrate_stats.FLUSH_WRITE_BYTES) % calibrate_stats.FLUSH_FILE_BYTES
        return ms

    def append(self) -> float:
        if self.grown >= self.GROW_LIMIT:
            os.ftruncate(self.grow, 0)
            os.fsync(self.grow)
            self.grown = 0
        ms = self._timed(self.grow, self.grown)
        self.grown += calibrate_stats.FLUSH_WRITE_BYTES
        return ms

    def close(self) -> None:
        with deferred_signals():
            for fd in self.fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            for name in self.names:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name)
            self.fds, self.names = [], []


def probe_fsync(ctx: ProbeContext, deadline: float) -> None:
    facts = read_locality(ctx)
    local, why = calibrate_stats.decide_locality(facts)
    ctx.cal.local, ctx.cal.local_reason = local, why
    if not local:
        raise ProbeSkipped(f"not on the server's host: {why}")
    datadir = facts.datadir_real or facts.datadir or ""
    parent = flush_dir(datadir)
    time_left(deadline, 0.05, "the flush probe")
    fstype = _fstype(datadir)
    samples: list[float] = []
    timer = None
    try:
        timer = FlushTimer(parent, grow=False)
        while (time.monotonic() < deadline or not samples) and len(samples) < 5000:  # one flush at least
            samples.append(timer.overwrite())
            if len(samples) & 15 == 0:
                ctx.tick("flush")
    except OSError as e:
        raise ProbeSkipped(f"the flush probe's temp file in {parent} failed: {e.strerror}") from None
    finally:
        if timer is not None:
            timer.close()
    dist = Distribution(**calibrate_stats.distribution(samples))
    cls, reason = calibrate_stats.flush_class(dist.p50, fstype)
    ctx.cal.fsync_ms = dist
    ctx.cal.flush = FlushProbe(path=parent, fstype=fstype, write_bytes=calibrate_stats.FLUSH_WRITE_BYTES, flush_class=cls,  # type: ignore[arg-type]
                               class_reason=reason)


# ---------------------------------------------------------------- commit probe (opt-in writes)

def _drop_scratch(ctx: ProbeContext, wp: WriteProbe, conn_ok: bool, thread_id: Optional[int]) -> None:
    """Drop the scratch schema: on the probe connection if it is healthy; else on a fresh second
    connection, after force-closing the first and killing its server thread (a statement cut off by a
    signal leaves the first connection unusable, and its statement may still run on the server)."""
    stmt = check_statement(f"DROP DATABASE IF EXISTS `{wp.schema_name}`", write=True)
    if conn_ok and ctx.conn is not None:
        try:
            with ctx.conn.cursor() as cur:
                cur.execute(stmt)
            wp.dropped, wp.cleanup = True, "dropped on the probe connection"
            return
        except Exception:  # fall through to a second connection
            pass
    if ctx.conn is not None:
        force_close(ctx, ctx.conn)
        ctx.conn = None
    second = None
    try:
        second = connect(ctx.ep)
        ctx.opened()
        with second.cursor() as cur:
            if thread_id:
                with contextlib.suppress(Exception):  # already gone: nothing to stop
                    cur.execute(check_statement(f"KILL CONNECTION {int(thread_id)}", write=True))
            for _ in range(3):
                cur.execute(stmt)
                cur.execute(check_statement("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s"),
                            (wp.schema_name,))
                if not cur.fetchone()[0]:
                    break
                time.sleep(0.1)
            else:
                raise CollectionError(f"schema {wp.schema_name} still exists after DROP DATABASE", None)
        wp.dropped, wp.cleanup = True, "dropped on a second connection"
    except Exception as e:
        wp.cleanup = f"could not drop it: {error_text(e, ctx.ep)}"
        raise CollectionError(
            f"the write probe's scratch schema `{wp.schema_name}` could not be dropped ({wp.cleanup}).",
            f"drop it by hand: DROP DATABASE `{wp.schema_name}`;") from None
    finally:
        if second is not None:
            close_conn(ctx, second)


def probe_commit(ctx: ProbeContext, deadline: float) -> None:
    import pymysql

    name = f"advisor_probe_{secrets.token_hex(4)}"
    with ctx.conn.cursor() as cur:
        try:
            cur.execute(check_statement("SHOW GRANTS"))
            grants = [str(r[0]) for r in cur.fetchall()]
        except pymysql.MySQLError as e:
            if is_gone(e):
                raise
            grants = []  # cannot tell: CREATE is tried and its refusal reported
        lacking = calibrate_stats.write_privileges_missing(grants, name) if grants else None
        if lacking:
            raise ProbeSkipped(f"the account lacks {', '.join(lacking)} for a scratch schema `advisor_probe_…` "
                               "(SHOW GRANTS), so no CREATE was sent; grant CREATE, INSERT, DROP ON "
                               "`advisor\\_probe\\_%`.* to measure commits (docs/privileges.md)")
        cur.execute(check_statement("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s"), (name,))
        if cur.fetchone()[0]:
            raise ProbeSkipped(f"schema {name} already exists; the write probe never touches a schema it did not create")
    time_left(deadline, 0.1, "the commit probe")
    wp = WriteProbe(schema_name=name)
    ctx.cal.write_probe = wp
    thread_id = ctx.conn.thread_id()
    samples: list[float] = []
    conn_ok = False
    try:
        with ctx.conn.cursor() as cur:
            try:
                cur.execute(check_statement(f"CREATE DATABASE `{name}`", write=True))
            except pymysql.MySQLError as e:
                if is_gone(e):
                    raise
                if e.args and e.args[0] == 1007:  # exists: someone else's, leave it alone
                    wp.cleanup = "not created: it already existed"
                    raise ProbeSkipped(f"schema {name} already exists; the write probe refuses to use it") from None
                conn_ok = True  # refused, not cut off: nothing was created, nothing to drop
                raise ProbeSkipped(f"cannot create the scratch schema: {error_text(e, ctx.ep)} "
                                   "(the write probe needs CREATE, INSERT and DROP)") from None
            wp.created = True
            cur.execute(check_statement(
                f"CREATE TABLE `{name}`.probe (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, "
                "v VARBINARY(64) NOT NULL) ENGINE=InnoDB", write=True))
            ins = check_statement(f"INSERT INTO `{name}`.probe (v) VALUES ('advisor commit probe')", write=True)
            while (time.monotonic() < deadline or len(samples) < 2) and len(samples) < 5000:  # 1 measured at least
                t = time.perf_counter()
                cur.execute(ins)
                samples.append((time.perf_counter() - t) * 1000.0)
                if len(samples) & 7 == 0:
                    ctx.tick("commit")
        conn_ok = True
    except pymysql.MySQLError as e:
        if is_gone(e):
            raise
        conn_ok = True
        raise ProbeSkipped(f"the commit probe failed: {error_text(e, ctx.ep)}") from None
    finally:
        with deferred_signals():
            if wp.created or not conn_ok:
                # not conn_ok: interrupted, maybe during CREATE DATABASE itself; IF EXISTS covers both
                _drop_scratch(ctx, wp, conn_ok, thread_id)
    samples = samples[1:] if len(samples) > 1 else samples
    ctx.cal.commit_ms = Distribution(**calibrate_stats.distribution(samples))


