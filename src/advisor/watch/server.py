"""Sample the server during a watch: the I/O half (advisor.watch.counters computes the rates).

Two read-only statements per interval, on one connection the watcher keeps open:
  SHOW GLOBAL STATUS WHERE Variable_name IN (...)     the ~80 counters and gauges the watch uses
  SELECT COMMAND, STATE, COUNT(*) ... PROCESSLIST     sessions per state (PROCESS privilege to see others)
The server computes its whole status either way; naming the variables keeps the result (and the
watcher's parsing, most of its CPU) to a sixth of the ~500 rows. A server that refuses the WHERE
form gets the plain SHOW GLOBAL STATUS. A statement that fails is recorded once and skipped
afterwards; a lost connection is reopened at the next interval, and the interval in between has no
server numbers.

The start-of-watch audit reads through the same connection from its own thread (shared()): one
statement at a time under a lock, so a sample waits for at most one of the audit's statements and
the watch stays one session on the server.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Optional

from advisor.collect.connection import Endpoint, connect, scrub

from advisor.watch.counters import status_names

Q_STATUS_ALL = "SHOW GLOBAL STATUS"
Q_STATUS = Q_STATUS_ALL + " WHERE Variable_name IN (" + ", ".join(f"'{n}'" for n in status_names()) + ")"
Q_STATES = ("SELECT COMMAND, STATE, COUNT(*) FROM information_schema.PROCESSLIST "
            "WHERE ID <> CONNECTION_ID() GROUP BY COMMAND, STATE")
STATEMENTS = (Q_STATUS, Q_STATES)
RECONNECT_S = 2.0


class ServerSampler:
    def __init__(self, ep: Endpoint, conn: Any = None):
        self.ep = ep
        self.conn = conn
        self.states_ok = True
        self.status_sql = Q_STATUS
        self.notes: list[str] = []
        self.statements = 0
        self.lock = threading.Lock()
        self.shared_counts: dict[str, int] = {}  # what the shared connection's statements added to the counters
        self.seen: dict[str, int] = {}  # shared_counts as of the last SHOW GLOBAL STATUS

    def _query(self, sql: str) -> list[tuple[Any, ...]]:
        assert sql.lstrip().upper().startswith(("SELECT", "SHOW")), sql
        if self.conn is None:  # reconnecting: do not stall the sampling for a full connect timeout
            import dataclasses

            self.conn = connect(dataclasses.replace(self.ep, connect_timeout=min(self.ep.connect_timeout, RECONNECT_S)))
        self.statements += 1
        with self.lock, self.conn.cursor() as cur:
            cur.execute(sql)
            rows = list(cur.fetchall())
            if sql.startswith(Q_STATUS_ALL):
                self.seen = dict(self.shared_counts)
            return rows

    def shared(self) -> "SharedConnection":
        """The connection for another thread's reads (the audit's collect), one cursor at a time."""
        return SharedConnection(self)

    def sample(self) -> tuple[Optional[dict[str, str]], dict[str, int], float, Optional[str]]:
        """(status or None, states, milliseconds the statements took, what went wrong or None)."""
        import pymysql

        t0 = time.perf_counter()
        try:
            try:
                status = {str(k): v for k, v in self._query(self.status_sql)}
            except pymysql.err.ProgrammingError:
                if self.status_sql == Q_STATUS_ALL:
                    raise
                self.status_sql = Q_STATUS_ALL  # a server without SHOW ... WHERE
                status = {str(k): v for k, v in self._query(self.status_sql)}
        except (pymysql.err.MySQLError, OSError, EOFError) as e:
            self._drop()
            return None, {}, (time.perf_counter() - t0) * 1000, f"SHOW GLOBAL STATUS failed: {scrub(str(e), self.ep)}"
        except Exception as e:  # ConnectError while reconnecting
            self._drop()
            return None, {}, (time.perf_counter() - t0) * 1000, str(e)
        states: dict[str, int] = {}
        if self.states_ok:
            try:
                for command, state, n in self._query(Q_STATES):
                    key = f"{command}: {state}" if state else str(command)
                    states[key] = states.get(key, 0) + int(n)
            except pymysql.err.MySQLError as e:
                self.states_ok = False
                self.notes.append(f"the processlist query failed and is not sent again: {scrub(str(e), self.ep)}")
        return status, states, (time.perf_counter() - t0) * 1000, None

    def _drop(self) -> None:
        with self.lock:  # not while the audit's thread is inside a statement
            try:
                if self.conn is not None:
                    self.conn.close()
            except Exception:  # the connection is already broken
                pass
            self.conn = None

    def close(self) -> None:
        self._drop()


class SharedConnection:
    """The sampler's connection as advisor.collect reads it: `with conn.cursor() as cur` holds the
    sampler's lock for that statement; other attributes (encoding) are the connection's. A connection
    the sampler dropped (the server went away) reads as a broken one (OSError)."""

    def __init__(self, sampler: ServerSampler):
        object.__setattr__(self, "_sampler", sampler)

    def _conn(self) -> Any:
        conn = self._sampler.conn
        if conn is None:
            raise OSError("the watch's connection to the server was lost")
        return conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._conn(), name, value)

    def cursor(self, cursor_class: Any = None) -> "_LockedCursor":
        return _LockedCursor(self._sampler, cursor_class)

    def close(self) -> None:  # the sampler owns the connection
        pass


def counted(sql: str) -> tuple[str, ...]:
    """The status counters one read-only statement adds 1 to (those the watch reads)."""
    words = sql.split(None, 3)
    head = [w.upper() for w in words[:3]]
    out: tuple[str, ...] = ("Questions", "Queries")
    if head[:1] == ["SELECT"]:
        out += ("Com_select",)
    elif head[:1] == ["SHOW"] and "STATUS" in head[1:]:
        out += ("Com_show_status",)
    return out


class _LockedCursor:
    """A cursor for one statement at a time under the sampler's lock (held until the `with` ends, so an
    unbuffered SSCursor's rows are all read before the next statement); counts what it adds to the
    counters. Other attributes, read or set, are the cursor's."""

    _OWN = frozenset({"sampler", "cursor_class", "cur"})

    def __init__(self, sampler: ServerSampler, cursor_class: Any = None):
        self.sampler = sampler
        self.cursor_class = cursor_class
        self.cur: Any = None

    def __enter__(self) -> "_LockedCursor":
        self.sampler.lock.acquire()
        try:
            conn = self.sampler.conn
            if conn is None:
                raise OSError("the watch's connection to the server was lost")
            cur = conn.cursor() if self.cursor_class is None else conn.cursor(self.cursor_class)
            self.cur = cur.__enter__()
            return self
        except BaseException:
            self.sampler.lock.release()
            raise

    def execute(self, sql: str, *args: Any) -> Any:
        counts = self.sampler.shared_counts
        for name in counted(sql):
            counts[name] = counts.get(name, 0) + 1
        return self.cur.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cur, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self.cur, name, value)

    def __exit__(self, *exc: Any) -> None:
        try:
            self.cur.__exit__(*exc)
        finally:
            self.sampler.lock.release()


# The files a durable commit flushes, as performance_schema instruments them (MySQL's redo log; MariaDB
# 10.8+ no longer instruments its redo log, only the binary log).
FILE_WAIT_EVENTS = {"binlog": "wait/io/file/sql/binlog", "redo": "wait/io/file/innodb/innodb_log_file"}
Q_FILE_WAITS = ("SELECT EVENT_NAME, COUNT_MISC, SUM_TIMER_MISC FROM performance_schema.file_summary_by_event_name "
                "WHERE EVENT_NAME IN (" + ", ".join(f"'{e}'" for e in FILE_WAIT_EVENTS.values()) + ")")


def read_file_waits(conn: Any) -> Optional[dict[str, tuple[int, int]]]:
    """{'binlog'|'redo': (syncs and other misc file operations, their picoseconds)} from
    performance_schema, once at the start of a watch and once at its end (their difference is what the
    server's own threads waited for those flushes); None when performance_schema is off or unreadable.
    `conn` is the sampler's shared() connection, so the statement is counted as the audit's are and
    taken out of the interval's rates (a lost connection raises OSError there)."""
    import pymysql

    try:
        with conn.cursor() as cur:
            cur.execute(Q_FILE_WAITS)
            rows = list(cur.fetchall())
    except (pymysql.MySQLError, OSError):
        return None
    names = {v: k for k, v in FILE_WAIT_EVENTS.items()}
    out = {names[str(e)]: (int(n or 0), int(t or 0)) for e, n, t in rows if str(e) in names}
    return out or None
