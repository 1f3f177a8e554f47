"""Calibration: short, safe measurements that give findings measured evidence (the I/O half).

Probes, each within its share of one total budget (advisor.collect.calibrate_stats.WEIGHTS):
  rtt     latency of a trivial query (SELECT 1)
  stream  MB/s of a large result the server generates (no user data), read unbuffered; client CPU
  sort    the same sort with the server's sort_buffer_size and a 256 KiB session value, alternated
  tls     handshake time, small-query latency and stream MB/s with and without TLS
  fsync   fdatasync of 16 KiB writes in a temp file beside the datadir (only on the server's host)
  commit  autocommit single-row inserts in a scratch schema (only with write_probe=True)

Safety: at most two connections open at once (the main one plus one probe connection); statements
are SELECT, WITH ... SELECT and `SET SESSION sort_buffer_size` unless the write probe was asked for;
the temp file and the scratch schema are removed on errors, Ctrl-C and SIGTERM (try/finally, with
SIGTERM turned into KeyboardInterrupt while calibrating and both signals deferred during cleanup).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import socket
import struct
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

from advisor.collect import calibrate_stats as cs
from advisor.collect.connection import Endpoint, _ssl_args, connect, scrub
from advisor.errors import CollectionError
from advisor.histogram import log_histogram
from advisor.snapshot import (Calibration, Distribution, FlushProbe, Histogram, OnOff, OnOffHistogram, Snapshot,
                              SortProbe, StreamProbe, TlsProbe, WriteProbe)

ProgressFn = Callable[[str, float, float], None]  # (probe name, seconds elapsed, budget seconds)

_ALLOWED = re.compile(r"^\s*(SELECT\b|WITH RECURSIVE\b|SET SESSION sort_buffer_size\b)", re.IGNORECASE)
_WRITE_ALLOWED = re.compile(r"^\s*(CREATE DATABASE `advisor_probe_[0-9a-f]+`|CREATE TABLE `advisor_probe_[0-9a-f]+`\.|"
                            r"INSERT INTO `advisor_probe_[0-9a-f]+`\.|DROP DATABASE IF EXISTS `advisor_probe_[0-9a-f]+`|"
                            r"KILL CONNECTION \d+$)")
_GONE = (2006, 2013, 2055, 0)  # server gone, lost connection, lost at handshake, closed


class ProbeSkipped(Exception):
    """A probe could not run here; the reason goes into calibration.missing."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def time_left(deadline: float, need_s: float, what: str) -> float:
    """Seconds left before `deadline`; raises ProbeSkipped, naming what was left and what `what` needs,
    when that is less than `need_s`. Probes call it after their not-applicable checks, so a probe that
    could never run says so even when the budget is gone."""
    left = deadline - time.monotonic()
    if left < need_s:
        raise ProbeSkipped(f"the calibration budget left {max(left, 0.0):.2f} s for {what}, "
                           f"which needs at least {need_s:g} s")
    return left


def check_statement(sql: str, write: bool = False) -> str:
    """Guard: the probes only send read-only statements and a session SET, plus, for the opt-in
    write probe, statements on its own scratch schema."""
    if _ALLOWED.match(sql) or (write and _WRITE_ALLOWED.match(sql)):
        return sql
    raise AssertionError(f"calibration may not send: {sql[:80]}")


# ---------------------------------------------------------------- signals

@contextlib.contextmanager
def interrupts_on_sigterm() -> Iterator[None]:
    """While calibrating, SIGTERM raises KeyboardInterrupt like Ctrl-C does, so `finally` blocks run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    old_term = signal.signal(signal.SIGTERM, handler)
    old_int = signal.getsignal(signal.SIGINT)
    if old_int in (signal.SIG_IGN, signal.SIG_DFL, None):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGINT, old_int if old_int is not None else signal.default_int_handler)


@contextlib.contextmanager
def deferred_signals() -> Iterator[list[int]]:
    """Hold SIGINT and SIGTERM while cleaning up; re-raise as KeyboardInterrupt afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    got: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        got.append(signum)

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield got
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if got:
        raise KeyboardInterrupt(f"signal {got[0]} during cleanup")


# ---------------------------------------------------------------- context

@dataclass
class _Ctx:
    ep: Endpoint
    snap: Snapshot
    cal: Calibration
    progress: Optional[ProgressFn]
    started: float
    budget: float
    conn: Any = None
    open_now: int = 0
    open_max: int = 0
    generator: Optional[str] = None
    last_tick: float = 0.0
    errors: list[str] = field(default_factory=list)

    def tick(self, probe: str) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        if now - self.last_tick >= 0.1:
            self.last_tick = now
            self.progress(probe, now - self.started, self.budget)

    def var(self, name: str) -> Optional[str]:
        v = {k.lower(): x for k, x in self.snap.server.variables.items()}.get(name.lower())
        return None if v is None else str(v)

    def opened(self) -> None:
        self.open_now += 1
        self.open_max = max(self.open_max, self.open_now)

    def closed(self) -> None:
        self.open_now -= 1


def _is_gone(e: BaseException) -> bool:
    import pymysql

    if isinstance(e, (OSError, EOFError)):
        return True
    if isinstance(e, pymysql.err.InterfaceError):
        return True
    return isinstance(e, pymysql.err.OperationalError) and bool(e.args) and e.args[0] in _GONE


def _err_text(e: BaseException, ep: Endpoint) -> str:
    if len(getattr(e, "args", ())) >= 2:
        return scrub(f"({e.args[0]}) {e.args[1]}", ep)
    return scrub(str(e) or type(e).__name__, ep)


def _close(ctx: _Ctx, conn: Any) -> None:
    if conn is None:
        return
    try:
        conn.close()
    except Exception:  # already broken: the socket goes with the object
        with contextlib.suppress(Exception):
            conn._force_close()
    ctx.closed()


def _abandon(cur: Any, conn: Any) -> None:
    """Drop an unbuffered result without reading the rest of it (closing the cursor would drain it,
    which for a large result takes as long as reading it): the connection is closed hard."""
    res = getattr(cur, "_result", None)
    if res is not None:
        res.unbuffered_active = False
    cur._result = None
    with contextlib.suppress(Exception):
        conn._force_close()


def _force_close(ctx: _Ctx, conn: Any) -> None:
    with contextlib.suppress(Exception):
        conn._force_close()
    ctx.closed()


# ---------------------------------------------------------------- low-level measurements

def _tcp_bytes_received(sock: Any) -> Optional[int]:
    """Kernel count of TCP payload bytes received on this socket (struct tcp_info.tcpi_bytes_received,
    Linux >= 4.1, offset 128), or None where not available (unix socket, other OS)."""
    try:
        if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
            return None
        buf = sock.getsockopt(socket.IPPROTO_TCP, getattr(socket, "TCP_INFO", 11), 256)
    except (OSError, AttributeError, ValueError):
        return None
    if len(buf) < 136:
        return None
    return int(struct.unpack_from("=Q", buf, 128)[0])


@dataclass
class _Chunk:
    rows: int
    payload: int
    seconds: float
    cpu: float
    wire: Optional[int]


def _stream_chunk(ctx: _Ctx, conn: Any, sql: str, probe: str) -> _Chunk:
    import pymysql
    import pymysql.cursors

    check_statement(sql)
    sock = getattr(conn, "_sock", None)
    w0 = _tcp_bytes_received(sock)
    c0, t0 = time.process_time(), time.perf_counter()
    cur = conn.cursor(pymysql.cursors.SSCursor)
    rows = payload = 0
    try:
        cur.execute(sql)
        for row in cur.fetchall_unbuffered():
            payload += len(row[0])
            rows += 1
            if rows & 63 == 0:
                ctx.tick(probe)
    except pymysql.MySQLError as e:
        if rows == 0 and not _is_gone(e):  # the server refused the statement: the connection is fine
            cur.close()
        else:
            _abandon(cur, conn)
        raise
    except BaseException:
        _abandon(cur, conn)  # interrupted mid-result: do not read the rest of it
        raise
    cur.close()
    t1, c1 = time.perf_counter(), time.process_time()
    w1 = _tcp_bytes_received(sock)
    wire = (w1 - w0) if (w0 is not None and w1 is not None) else None
    return _Chunk(rows, payload, t1 - t0, c1 - c0, wire)


def _stream_loop(ctx: _Ctx, conn: Any, method: str, deadline: float, start_rows: int, probe: str) -> list[_Chunk]:
    """Run stream queries sized by calibrate_stats.next_chunk_rows until the deadline."""
    chunks: list[_Chunk] = []
    rows = start_rows
    limit = cs.max_rows(method)
    while rows > 0 and time.monotonic() < deadline:
        src = cs.source_for(method, rows)
        c = _stream_chunk(ctx, conn, cs.stream_sql(src, rows), probe)
        chunks.append(c)
        rows = cs.next_chunk_rows(c.rows, c.seconds, c.payload, deadline - time.monotonic(), limit=limit)
    return chunks


def _rate(chunks: list[_Chunk]) -> tuple[Optional[float], int, int, float, float, Optional[bool]]:
    """(bytes/s, chunks used, bytes, seconds, cpu seconds, wire-basis?) over the measured chunks."""
    if not chunks:
        return None, 0, 0, 0.0, 0.0, None
    wire = all(c.wire is not None for c in chunks)
    triples = [((c.wire if wire else c.payload) or 0, c.seconds, c.cpu) for c in chunks]
    rate, used, b, s = cs.stream_rate(triples)
    good = [c for i, c in enumerate(chunks) if i > 0 and c.seconds >= 0.05] or chunks
    cpu = sum(c.cpu for c in good)
    return rate, used, b, s, cpu, wire


def _query_samples(ctx: _Ctx, conn: Any, deadline: float, max_samples: int, probe: str) -> list[float]:
    cur = conn.cursor()
    out: list[float] = []
    sql = check_statement("SELECT 1")
    try:
        while len(out) < max_samples and (time.monotonic() < deadline or not out):  # one query at least
            t = time.perf_counter()
            cur.execute(sql)
            cur.fetchall()
            out.append((time.perf_counter() - t) * 1000.0)
            if len(out) & 31 == 0:
                ctx.tick(probe)
    finally:
        cur.close()
    return out


# ---------------------------------------------------------------- probes

def probe_rtt(ctx: _Ctx, deadline: float) -> None:
    time_left(deadline, 0.02, "round trips")
    cap = 200 if ctx.cal.mode == "light" else 2000
    samples = _query_samples(ctx, ctx.conn, deadline, cap + 1, "round trips")
    samples = samples[1:] if len(samples) > 1 else samples  # the first one may pay for cold caches
    ctx.cal.rtt_ms = Distribution(**cs.distribution(samples))


def _route(ctx: _Ctx, conn: Any) -> tuple[Optional[str], Optional[int]]:
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


def _pick_generator(ctx: _Ctx, conn: Any, probe: str) -> tuple[str, _Chunk]:
    """The first row generator that works here, with its first (warm-up) chunk."""
    import pymysql

    tried: list[str] = []
    chain = [ctx.generator] if ctx.generator else cs.generator_chain(ctx.snap.target.flavor, ctx.snap.target.version)
    for method in chain:
        rows = 8
        try:
            chunk = _stream_chunk(ctx, conn, cs.stream_sql(cs.source_for(method, rows), rows), probe)
        except pymysql.MySQLError as e:
            if _is_gone(e):
                raise
            tried.append(f"{method}: {_err_text(e, ctx.ep)}")
            continue
        ctx.generator = method
        return method, chunk
    raise ProbeSkipped("the server generated no rows for the probe (" + "; ".join(tried) + ")")


def probe_stream(ctx: _Ctx, deadline: float) -> None:
    conn = ctx.conn
    now = time.monotonic()
    share = time_left(deadline, 0.3, "the stream probe")
    method, first = _pick_generator(ctx, conn, "stream")
    chunks = [first]
    loop_deadline = now + share * 0.8
    rows = cs.next_chunk_rows(first.rows, first.seconds, first.payload, loop_deadline - time.monotonic(),
                              limit=cs.max_rows(method))
    chunks += _stream_loop(ctx, conn, method, loop_deadline, rows, "stream")
    rate, used, b, s, cpu, wire = _rate(chunks)
    frac, bound = cs.cpu_bound(cpu, s)
    kind, link = _route(ctx, conn)
    sock = getattr(conn, "_sock", None)
    probe = StreamProbe(
        mbytes_per_s=None if rate is None else round(rate / 1e6, 3), bytes=int(b), seconds=round(s, 4),
        client_cpu_bound=bound, client_cpu_fraction=frac, method=method, row_bytes=cs.ROW_BYTES, chunks=used,
        basis="tcp_info" if wire else "rows", tls=_is_tls(sock), transport=ctx.ep.transport, route_kind=kind,
    )
    if link:
        ceiling = cs.payload_ceiling_mbytes_per_s(link)
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
        gen_rows = max(8, min(int(rate * min(left * 0.8, 0.5) / cs.ROW_BYTES), cs.max_rows(method)))
        sql = check_statement(cs.generate_sql(cs.source_for(method, gen_rows), gen_rows))
        cur = conn.cursor()
        try:
            t = time.perf_counter()
            cur.execute(sql)
            cur.fetchall()
            dt = time.perf_counter() - t
        finally:
            cur.close()
        if dt > 0:
            probe.server_mbytes_per_s = round(gen_rows * cs.ROW_BYTES / dt / 1e6, 3)
    elif rate:
        ctx.cal.note_missing("calibration.stream.server_mbytes_per_s",
                             f"the stream probe's share of the budget ran out ({max(left, 0.0):.2f} s left) before "
                             "the server's row generation could be timed")


def _is_tls(sock: Any) -> Optional[bool]:
    if sock is None:
        return None
    import ssl

    return isinstance(sock, ssl.SSLSocket)


def probe_sort(ctx: _Ctx, deadline: float) -> None:
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
    if server_value <= cs.SMALL_SORT_BUFFER:
        raise ProbeSkipped(f"sort_buffer_size is already {server_value} bytes, no larger than the probe's "
                           f"small value ({cs.SMALL_SORT_BUFFER}); there is nothing to compare")
    conn = ctx.conn
    share = time_left(deadline, 0.2, "the sort probe")
    chain = [ctx.generator] if ctx.generator else cs.generator_chain(ctx.snap.target.flavor, ctx.snap.target.version)
    rows = cs.SORT_ROWS
    cur = conn.cursor()
    set_server = check_statement("SET SESSION sort_buffer_size = DEFAULT")
    set_small = check_statement(f"SET SESSION sort_buffer_size = {cs.SMALL_SORT_BUFFER}")

    def timed(sql: str) -> float:
        t = time.perf_counter()
        cur.execute(sql)
        cur.fetchall()
        return (time.perf_counter() - t) * 1000.0

    try:
        cur.execute(set_server)
        method, sql, warm = None, "", 0.0
        tried = []
        trial = cs.SORT_ROWS // 10  # a tenth first: sizes the real query to the server's speed
        for m in chain:
            q = check_statement(cs.sort_sql(cs.source_for(m, trial), trial))
            try:
                warm = timed(q)
            except pymysql.MySQLError as e:
                if _is_gone(e):
                    raise
                tried.append(f"{m}: {_err_text(e, ctx.ep)}")
                continue
            method = m
            break
        if method is None:
            raise ProbeSkipped("the sort query failed (" + "; ".join(tried) + ")")
        # Full size unless that would not leave room for several alternating pairs in the share.
        per_row = warm / 1000.0 / trial
        rows = max(trial // 2, min(cs.SORT_ROWS, int(share / 12 / max(per_row, 1e-9))))
        sql = check_statement(cs.sort_sql(cs.source_for(method, rows), rows))
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
    b, s = cs.median(big), cs.median(small)
    ctx.cal.sort_probe = SortProbe(
        ratio=round(b / s, 4) if b and s else None, server_value=server_value, small_value=cs.SMALL_SORT_BUFFER,
        server_ms=None if b is None else round(b, 4), small_ms=None if s is None else round(s, 4),
        samples=min(len(big), len(small)), rows=rows, method=method)


def _tls_kwargs(ep: Endpoint, want_tls: bool) -> dict[str, Any]:
    kw: dict[str, Any] = dict(user=ep.user, password=ep.password, connect_timeout=ep.connect_timeout,
                              read_timeout=ep.read_timeout, write_timeout=ep.read_timeout, autocommit=True,
                              charset="utf8mb4")
    kw.update(host=ep.host, port=ep.port)
    if not want_tls:
        kw["ssl_disabled"] = True
    else:
        mode = ep.ssl_mode if ep.ssl_mode in ("VERIFY_CA", "VERIFY_IDENTITY") else "REQUIRED"
        kw.update(_ssl_args(replace(ep, ssl_mode=mode)))  # the context is built once, outside the timing
    return kw


def _probe_connect(ctx: _Ctx, kw: dict[str, Any], want_tls: bool) -> tuple[Any, float]:
    """Open a probe connection; (connection, handshake ms). Raises pymysql errors / OSError."""
    import pymysql

    t = time.perf_counter()
    conn = pymysql.connect(**kw)
    ms = (time.perf_counter() - t) * 1000.0
    ctx.opened()
    if want_tls and not _is_tls(conn._sock):
        _close(ctx, conn)
        raise _NoTls()
    return conn, ms


class _NoTls(Exception):
    pass


def _tls_reasons(ctx: _Ctx, plain_err: Optional[str], tls_err: Optional[str]) -> str:
    if tls_err is not None:
        have = (ctx.var("have_ssl") or "").upper()
        ch = ctx.snap.server.tls_channels or {}
        if have in ("DISABLED", "NO"):
            why = f"the server has no TLS certificates (have_ssl = {have})"
        elif ch.get("Enabled", "").strip().lower() in ("no", "0", "off"):
            why = "the server's TLS channel is disabled (tls_channel_status mysql_main Enabled = No)"
        else:
            why = f"the server does not offer TLS ({tls_err})"
        return why + "; only plain connections were measured"
    if plain_err is not None:
        rst = (ctx.var("require_secure_transport") or "").upper()
        if rst in ("ON", "1"):
            why = "require_secure_transport is ON: the server refuses unencrypted connections"
        else:
            why = f"a plain-text connection was refused ({plain_err}); the account may require TLS"
        return why + "; only TLS connections were measured"
    return ""


def probe_tls(ctx: _Ctx, deadline: float) -> None:
    import pymysql

    if ctx.ep.socket:
        raise ProbeSkipped("the advisor connects over a unix socket, where TLS is not used; connect with --host "
                           "and --port to measure TLS on the network path")
    start = time.monotonic()
    share = time_left(deadline, 0.4, "the TLS probe")
    kws = {False: _tls_kwargs(ctx.ep, False), True: _tls_kwargs(ctx.ep, True)}
    errs: dict[bool, Optional[str]] = {False: None, True: None}
    hs: dict[bool, list[float]] = {False: [], True: []}
    version = cipher = None
    for mode in (False, True):
        try:
            conn, ms = _probe_connect(ctx, kws[mode], mode)
        except _NoTls:
            errs[mode] = "the connection was not encrypted"
            continue
        except pymysql.MySQLError as e:
            errs[mode] = _err_text(e, ctx.ep)
            continue
        except OSError as e:
            errs[mode] = scrub(str(e), ctx.ep)
            continue
        hs[mode].append(ms)
        if mode:
            with contextlib.suppress(Exception):
                version, cipher = conn._sock.version(), conn._sock.cipher()[0]
        _close(ctx, conn)
    probe = TlsProbe(available=errs[False] is None and errs[True] is None,
                     plain_possible=errs[False] is None, tls_possible=errs[True] is None,
                     tls_version=version, tls_cipher=cipher)
    ctx.cal.tls = probe
    if errs[False] is not None and errs[True] is not None:
        probe.reason = f"neither a plain ({errs[False]}) nor a TLS ({errs[True]}) probe connection could be made"
        raise ProbeSkipped(probe.reason)
    modes = [m for m in (False, True) if errs[m] is None]
    if not probe.available:
        probe.reason = _tls_reasons(ctx, errs[False], errs[True])

    # 1. Fresh connections, alternating plain / TLS: each connect is a handshake sample, then a burst of
    #    SELECT 1 on it. Where the server's thread runs relative to this process matters more than the
    #    TLS record work (a wake-up across cores costs ~10-15 us here, TLS ~4-5 us), and the server keeps
    #    its threads where they are, so one connection per side would compare placements. So each round
    #    pins this process to the next CPU (both sides alike; restored afterwards), runs plain then TLS
    #    back to back, and the ratio is the median over rounds of TLS ÷ plain: rounds where the two
    #    connections landed differently err both ways and cancel out in the median.
    rounds_phase = start + share * 0.4
    per_mode = 24
    slot = share * 0.4 / (per_mode * len(modes))
    q_rounds: dict[bool, list[float]] = {False: [], True: []}
    q_count: dict[bool, int] = {False: 0, True: 0}
    q_all: dict[bool, list[float]] = {False: [], True: []}  # every small-query latency, for the histogram
    sql = check_statement("SELECT 1")
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    r = 0
    try:
        while time.monotonic() < rounds_phase and min(len(hs[m]) for m in modes) < per_mode + 1:
            if len(cpus) > 1:
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(0, {cpus[r % len(cpus)]})
            r += 1
            for m in modes:
                conn, ms = _probe_connect(ctx, kws[m], m)
                try:
                    hs[m].append(ms)
                    cur = conn.cursor()
                    lat: list[float] = []
                    until = time.monotonic() + slot
                    while time.monotonic() < until and len(lat) < 300:
                        t = time.perf_counter()
                        cur.execute(sql)
                        cur.fetchall()
                        lat.append((time.perf_counter() - t) * 1000.0)
                    cur.close()
                finally:
                    _close(ctx, conn)
                lat = lat[1:] if len(lat) > 1 else lat
                if lat:
                    q_rounds[m].append(cs.median(lat))  # type: ignore[arg-type]
                    q_count[m] += len(lat)
                    q_all[m] += lat
            ctx.tick("TLS")
    finally:
        if len(cpus) > 1:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, set(cpus))
    # 2. Streams, interleaved chunk by chunk on one plain and one TLS connection, so that load changes on
    #    the machine hit both sides alike. The main connection serves as the side its own encryption
    #    matches; the other is the one probe connection.
    chunks: dict[bool, list[_Chunk]] = {False: [], True: []}
    main_tls = bool(_is_tls(getattr(ctx.conn, "_sock", None)))
    conns: dict[bool, Any] = {}
    opened: list[Any] = []
    try:
        for m in modes:
            if m == main_tls:
                conns[m] = ctx.conn
            else:
                conns[m], _ = _probe_connect(ctx, kws[m], m)
                opened.append(conns[m])
        method = ctx.generator
        if method is None:
            try:
                method, _ = _pick_generator(ctx, conns[modes[0]], "TLS")
            except ProbeSkipped as e:  # handshakes and small queries still stand
                ctx.cal.note_missing("calibration.tls.stream_mbytes_per_s", e.reason)
        limit = cs.max_rows(method) if method else 0
        rows = {m: 8 for m in modes}
        stop = deadline - 0.01
        while method and time.monotonic() < stop and all(rows[m] > 0 for m in modes):
            for m in modes:
                c = _stream_chunk(ctx, conns[m], cs.stream_sql(cs.source_for(method, rows[m]), rows[m]), "TLS")
                chunks[m].append(c)
                # each side aims at half the time left, so a pair of chunks fits
                rows[m] = cs.next_chunk_rows(c.rows, c.seconds, c.payload, (stop - time.monotonic()) / 2, limit=limit)
    finally:
        for c in opened:
            _close(ctx, c)

    def hs_p50(m: bool) -> Optional[float]:
        vals = hs[m][1:] if len(hs[m]) > 1 else hs[m]
        v = cs.median(vals)
        return None if v is None else round(v, 4)

    def stream_mb(m: bool) -> Optional[float]:
        rate = _rate(chunks[m])[0]
        return None if rate is None else round(rate / 1e6, 3)

    def q_p50(m: bool) -> Optional[float]:
        v = cs.median(q_rounds[m])
        return None if v is None else round(v, 4)

    probe.handshake_ms = OnOff(on=hs_p50(True) if errs[True] is None else None,
                               off=hs_p50(False) if errs[False] is None else None)
    probe.handshake_histogram = OnOffHistogram(**{k: Histogram(**log_histogram(hs[m])) if hs[m] else None
                                                  for k, m in (("on", True), ("off", False))})
    probe.query_histogram = OnOffHistogram(**{k: Histogram(**log_histogram(q_all[m])) if q_all[m] else None
                                              for k, m in (("on", True), ("off", False))})
    probe.query_ms = OnOff(on=q_p50(True) if errs[True] is None else None,
                           off=q_p50(False) if errs[False] is None else None)
    probe.stream_mbytes_per_s = OnOff(on=stream_mb(True) if errs[True] is None else None,
                                      off=stream_mb(False) if errs[False] is None else None)
    probe.samples = min(len(hs[m]) for m in modes)
    probe.query_samples = min(q_count[m] for m in modes)
    if not all(q_rounds[m] for m in modes):
        ctx.cal.note_missing("calibration.tls.query_ms",
                             f"the TLS probe's share of the budget ({share:.2f} s) ran out before a round of small "
                             "queries on each side")
    if method and not all(chunks[m] for m in modes):
        ctx.cal.note_missing("calibration.tls.stream_mbytes_per_s",
                             f"the TLS probe's share of the budget ({share:.2f} s) ran out before a stream query on "
                             "each side")
    if probe.available:
        pairs = [t / p for p, t in zip(q_rounds[False], q_rounds[True]) if p > 0]
        r = cs.median(pairs)
        probe.query_ratio = None if r is None else round(r, 4)
    probe.stream_samples = min(len(chunks[m]) for m in modes)
    if probe.available and probe.stream_mbytes_per_s.on and probe.stream_mbytes_per_s.off:
        probe.throughput_ratio = round(probe.stream_mbytes_per_s.on / probe.stream_mbytes_per_s.off, 4)


# ---------------------------------------------------------------- flush probe (local only)

def _hostname() -> Optional[str]:
    try:
        return socket.gethostname()
    except OSError:
        return None


def read_locality(ctx: _Ctx) -> cs.LocalityFacts:
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
    return cs.LocalityFacts(datadir=datadir, datadir_exists=exists, server_hostname=ctx.var("hostname"),
                            local_hostname=_hostname(), pid=pid, pid_comm=comm, pid_cwd=cwd, pid_cwd_error=cwd_err,
                            datadir_real=real, transport=ctx.ep.transport)


def _fstype(path: str) -> Optional[str]:
    try:
        text = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return None
    return cs.mount_fstype(text, path)


def probe_fsync(ctx: _Ctx, deadline: float) -> None:
    facts = read_locality(ctx)
    local, why = cs.decide_locality(facts)
    ctx.cal.local, ctx.cal.local_reason = local, why
    if not local:
        raise ProbeSkipped(f"not on the server's host: {why}")
    datadir = facts.datadir_real or facts.datadir or ""
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
    time_left(deadline, 0.05, "the flush probe")
    fstype = _fstype(datadir)
    name = os.path.join(parent, f".advisor-fsync-{os.getpid()}-{secrets.token_hex(4)}.tmp")
    samples: list[float] = []
    fd = -1
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        block = os.urandom(cs.FLUSH_WRITE_BYTES)
        for off in range(0, cs.FLUSH_FILE_BYTES, cs.FLUSH_WRITE_BYTES):
            os.pwrite(fd, block, off)
        os.fsync(fd)  # allocated and on disk: the timed flushes below change data only, no metadata
        off = 0
        while (time.monotonic() < deadline or not samples) and len(samples) < 5000:  # one flush at least
            t = time.perf_counter()
            os.pwrite(fd, block, off)
            os.fdatasync(fd)
            samples.append((time.perf_counter() - t) * 1000.0)
            off = (off + cs.FLUSH_WRITE_BYTES) % cs.FLUSH_FILE_BYTES
            if len(samples) & 15 == 0:
                ctx.tick("flush")
    except OSError as e:
        raise ProbeSkipped(f"the flush probe's temp file in {parent} failed: {e.strerror}") from None
    finally:
        with deferred_signals():
            if fd >= 0:
                os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
    dist = Distribution(**cs.distribution(samples))
    cls, reason = cs.flush_class(dist.p50, fstype)
    ctx.cal.fsync_ms = dist
    ctx.cal.flush = FlushProbe(path=parent, fstype=fstype, write_bytes=cs.FLUSH_WRITE_BYTES, flush_class=cls,  # type: ignore[arg-type]
                               class_reason=reason)


# ---------------------------------------------------------------- commit probe (opt-in writes)

def _drop_scratch(ctx: _Ctx, wp: WriteProbe, conn_ok: bool, thread_id: Optional[int]) -> None:
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
        _force_close(ctx, ctx.conn)
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
        wp.cleanup = f"could not drop it: {_err_text(e, ctx.ep)}"
        raise CollectionError(
            f"the write probe's scratch schema `{wp.schema_name}` could not be dropped ({wp.cleanup}).",
            f"drop it by hand: DROP DATABASE `{wp.schema_name}`;") from None
    finally:
        if second is not None:
            _close(ctx, second)


def probe_commit(ctx: _Ctx, deadline: float) -> None:
    import pymysql

    name = f"advisor_probe_{secrets.token_hex(4)}"
    with ctx.conn.cursor() as cur:
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
                if _is_gone(e):
                    raise
                if e.args and e.args[0] == 1007:  # exists: someone else's, leave it alone
                    wp.cleanup = "not created: it already existed"
                    raise ProbeSkipped(f"schema {name} already exists; the write probe refuses to use it") from None
                raise ProbeSkipped(f"cannot create the scratch schema: {_err_text(e, ctx.ep)} "
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
        if _is_gone(e):
            raise
        conn_ok = True
        raise ProbeSkipped(f"the commit probe failed: {_err_text(e, ctx.ep)}") from None
    finally:
        with deferred_signals():
            if wp.created or not conn_ok:
                # not conn_ok: interrupted, maybe during CREATE DATABASE itself; IF EXISTS covers both
                _drop_scratch(ctx, wp, conn_ok, thread_id)
    samples = samples[1:] if len(samples) > 1 else samples
    ctx.cal.commit_ms = Distribution(**cs.distribution(samples))


# ---------------------------------------------------------------- orchestration

PROBES: dict[str, Callable[[_Ctx, float], None]] = {
    "rtt": probe_rtt, "stream": probe_stream, "sort": probe_sort, "tls": probe_tls, "fsync": probe_fsync,
    "commit": probe_commit,
}
LABEL = {"rtt": "round trips", "stream": "stream", "sort": "sort buffer", "tls": "TLS", "fsync": "flush",
         "commit": "commit"}
FACT = {"rtt": "calibration.rtt_ms", "stream": "calibration.stream", "sort": "calibration.sort_probe",
        "tls": "calibration.tls", "fsync": "calibration.fsync_ms", "commit": "calibration.commit_ms"}


def plan(mode: str, write_probe: bool, only: Optional[Sequence[str]] = None) -> list[str]:
    """The probes a calibration runs, in order; `only` keeps just those (`advisor calibrate --probe`)."""
    if mode == "light":
        return ["rtt"]
    names = ["rtt", "stream", "sort", "tls", "fsync"] + (["commit"] if write_probe else [])
    return [n for n in names if n in only] if only else names


def run_calibration(snap: Snapshot, ep: Endpoint, mode: str = "full", budget_s: float = 10.0,
                    write_probe: bool = False, progress: Optional[ProgressFn] = None,
                    started: Optional[float] = None, probes: Optional[Sequence[str]] = None) -> Calibration:
    """Run the probes against `ep` within `budget_s` seconds counted from `started` (monotonic; default
    now) and return the calibration section. `snap` supplies the server facts (variables, flavor) and,
    when collected, the client's route. `probes` (names in PROBES) runs only those, with the whole
    budget shared among them; the others are reported as not selected."""
    unknown = sorted(set(probes or ()) - set(PROBES))
    if unknown:
        raise ValueError(f"unknown calibration probe(s) {', '.join(unknown)}; expected some of {', '.join(PROBES)}")
    started = time.monotonic() if started is None else started
    budget = min(budget_s, cs.LIGHT_BUDGET_S) if mode == "light" else budget_s
    cal = Calibration(budget_s=budget, mode=mode)  # type: ignore[arg-type]
    ctx = _Ctx(ep=ep, snap=snap, cal=cal, progress=progress, started=started, budget=budget)
    end = started + budget - (cs.END_RESERVE_S if mode == "full" else 0.05)
    names = plan(mode, write_probe, probes)
    if mode == "light":
        cal.note_missing("calibration", "light calibration (production purpose): only round trips were measured; "
                         "pass --calibrate for the full set")
    else:
        if not write_probe:
            cal.note_missing("calibration.commit_ms", "the commit probe writes, so it runs only with --write-probe")
        for n in plan(mode, write_probe):
            if n not in names:
                cal.note_missing(FACT[n], "not run: the calibration was limited to "
                                          + " ".join(f"--probe {x}" for x in names))
    with interrupts_on_sigterm():
        try:
            ctx.conn = connect(ep)
            ctx.opened()
            for i, name in enumerate(names):
                now = time.monotonic()
                share = cs.probe_share(end - now, cs.WEIGHTS[name], [cs.WEIGHTS[n] for n in names[i:]])
                if progress:
                    progress(LABEL[name], now - started, budget)
                try:  # every probe runs its not-applicable checks, then stops if its share is too small
                    PROBES[name](ctx, now + share)
                except ProbeSkipped as e:
                    cal.note_missing(FACT[name], e.reason)
                except CollectionError:
                    raise
                except Exception as e:
                    if _is_gone(e):
                        raise CollectionError(
                            f"the connection to {ep.describe()} broke during the {name} probe "
                            f"({_err_text(e, ep)}); calibration stopped.",
                            "check the server's error log and the network, then run again.") from None
                    import pymysql

                    if isinstance(e, pymysql.MySQLError):
                        cal.note_missing(FACT[name], f"the server refused a probe statement: {_err_text(e, ep)}")
                    else:
                        raise
        finally:
            if ctx.conn is not None:
                _close(ctx, ctx.conn)
                ctx.conn = None
    cal.duration_s = round(time.monotonic() - started, 3)
    cal.connections_max = ctx.open_max
    return cal
