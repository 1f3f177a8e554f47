"""The shared half of the calibration probes: what a probe may send, signals, the probe context,
connection handling and the low-level measurements (stream chunks, query samples)."""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

from advisor.collect import calibrate_stats
from advisor.collect.connection import Endpoint, scrub
from advisor.snapshot import Calibration, Snapshot

ProgressFn = Callable[[str, float, float], None]  # (probe name, seconds elapsed, budget seconds)

_ALLOWED = re.compile(r"^\s*(SELECT\b|WITH RECURSIVE\b|SET SESSION sort_buffer_size\b|SHOW GRANTS$)", re.IGNORECASE)
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
class ProbeContext:
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


def is_gone(e: BaseException) -> bool:
    import pymysql

    if isinstance(e, (OSError, EOFError)):
        return True
    if isinstance(e, pymysql.err.InterfaceError):
        return True
    return isinstance(e, pymysql.err.OperationalError) and bool(e.args) and e.args[0] in _GONE


def error_text(e: BaseException, ep: Endpoint) -> str:
    if len(getattr(e, "args", ())) >= 2:
        return scrub(f"({e.args[0]}) {e.args[1]}", ep)
    return scrub(str(e) or type(e).__name__, ep)


def close_conn(ctx: ProbeContext, conn: Any) -> None:
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


def force_close(ctx: ProbeContext, conn: Any) -> None:
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
class StreamChunk:
    rows: int
    payload: int
    seconds: float
    cpu: float
    wire: Optional[int]


def stream_chunk(ctx: ProbeContext, conn: Any, sql: str, probe: str) -> StreamChunk:
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
        if rows == 0 and not is_gone(e):  # the server refused the statement: the connection is fine
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
    return StreamChunk(rows, payload, t1 - t0, c1 - c0, wire)


def stream_loop(ctx: ProbeContext, conn: Any, method: str, deadline: float, start_rows: int, probe: str) -> list[StreamChunk]:
    """Run stream queries sized by calibrate_stats.next_chunk_rows until the deadline."""
    chunks: list[StreamChunk] = []
    rows = start_rows
    limit = calibrate_stats.max_rows(method)
    while rows > 0 and time.monotonic() < deadline:
        src = calibrate_stats.source_for(method, rows)
        c = stream_chunk(ctx, conn, calibrate_stats.stream_sql(src, rows), probe)
        chunks.append(c)
        rows = calibrate_stats.next_chunk_rows(c.rows, c.seconds, c.payload, deadline - time.monotonic(), limit=limit)
    return chunks


def chunk_rate(chunks: list[StreamChunk]) -> tuple[Optional[float], int, int, float, float, Optional[bool]]:
    """(bytes/s, chunks used, bytes, seconds, cpu seconds, wire-basis?) over the measured chunks."""
    if not chunks:
        return None, 0, 0, 0.0, 0.0, None
    wire = all(c.wire is not None for c in chunks)
    triples = [((c.wire if wire else c.payload) or 0, c.seconds, c.cpu) for c in chunks]
    rate, used, b, s = calibrate_stats.stream_rate(triples)
    good = [c for i, c in enumerate(chunks) if i > 0 and c.seconds >= 0.05] or chunks
    cpu = sum(c.cpu for c in good)
    return rate, used, b, s, cpu, wire


def query_samples(ctx: ProbeContext, conn: Any, deadline: float, max_samples: int, probe: str) -> list[float]:
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


