"""Read a server: the I/O half of the server collector. Read-only by construction: every
statement it sends is a SELECT or a SHOW (PyMySQL itself may send a session SET at connect).

`read_server` returns raw results and per-query errors; `advisor.collect.parse` turns them into
snapshot sections. Statements are module constants so tests can check them.
"""

from __future__ import annotations

import codecs
import time
from typing import Any, Callable, Optional

from advisor.collect.connection import Endpoint, scrub
from advisor.collect.dictionary import read_dictionary
from advisor.collect.parse import needs_ps_tls, needs_tidb_config, needs_tls_channels
from advisor.collect.raw import QueryError, RawServer
from advisor.errors import CollectionError

Q_VARIABLES = "SHOW GLOBAL VARIABLES"
Q_STATUS = "SHOW GLOBAL STATUS"
Q_SESSION_SSL = "SHOW SESSION STATUS LIKE 'Ssl\\_%'"
Q_CONNECTION_ID = "SELECT CONNECTION_ID()"
Q_DATA_SIZE = (
    "SELECT ENGINE, COUNT(*), SUM(DATA_LENGTH), SUM(INDEX_LENGTH) FROM information_schema.TABLES "
    "WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') "
    "AND TABLE_TYPE = 'BASE TABLE' AND ENGINE IS NOT NULL GROUP BY ENGINE ORDER BY NULL"  # no sort: see collect.dictionary
)
Q_PS_TLS = (
    "SELECT t.PROCESSLIST_ID, t.PROCESSLIST_USER, t.PROCESSLIST_HOST, v.VARIABLE_VALUE, c.VARIABLE_VALUE "
    "FROM performance_schema.threads t "
    "LEFT JOIN performance_schema.status_by_thread v ON v.THREAD_ID = t.THREAD_ID AND v.VARIABLE_NAME = 'Ssl_version' "
    "LEFT JOIN performance_schema.status_by_thread c ON c.THREAD_ID = t.THREAD_ID AND c.VARIABLE_NAME = 'Ssl_cipher' "
    "WHERE t.TYPE = 'FOREGROUND' AND t.PROCESSLIST_ID IS NOT NULL"
)
Q_TLS_CHANNELS = "SELECT CHANNEL, PROPERTY, VALUE FROM performance_schema.tls_channel_status"
Q_TIDB_CONFIG = "SHOW CONFIG WHERE type = 'tidb' AND name LIKE 'prepared-plan-cache%'"
# The TiDB and TiKV items PingCAP's sysbench reports configure and list (pingcap/docs-cn
# benchmark/benchmark-sysbench-v5.2.0-vs-v5.1.1.md, "Parameter configuration"): what `advisor compare`
# holds side by side for TiDB clusters.
TIDB_BENCH_ITEMS = ("log.level", "performance.max-procs", "tikv-client.max-batch-wait-time")
TIKV_BENCH_ITEMS = ("storage.scheduler-worker-pool-size", "raftstore.store-pool-size", "raftstore.apply-pool-size",
                    "rocksdb.max-background-jobs", "raftdb.max-background-jobs",
                    "raftdb.allow-concurrent-memtable-write", "server.grpc-concurrency",
                    "readpool.unified.min-thread-count", "readpool.unified.max-thread-count",
                    "readpool.storage.normal-concurrency", "pessimistic-txn.pipelined", "server.enable-request-batch")
Q_TIDB_BENCH_CONFIG = ("SHOW CONFIG WHERE (type = 'tidb' AND name IN (" + ", ".join(f"'{n}'" for n in TIDB_BENCH_ITEMS)
                       + ")) OR (type = 'tikv' AND name IN (" + ", ".join(f"'{n}'" for n in TIKV_BENCH_ITEMS) + "))")

READ_ONLY_PREFIXES = ("SELECT", "SHOW")


class _Reader:
    def __init__(self, conn: Any, ep: Endpoint, raw: RawServer):
        self.conn, self.ep, self.raw = conn, ep, raw

    def rows(self, sql: str, key: str, fatal: bool) -> Optional[list[tuple[Any, ...]]]:
        import pymysql

        assert sql.lstrip().upper().startswith(READ_ONLY_PREFIXES), sql
        self.raw.queries.append(sql)
        prev = getattr(self.conn, "encoding", "utf8")
        # A value that is not UTF-8 (a server can hold one in a latin1 variable) reads with U+FFFD
        # instead of failing the whole collection: text columns are decoded with a lenient codec.
        self.conn.encoding = LENIENT_UTF8
        try:
            with self.conn.cursor(pymysql.cursors.SSCursor) as cur:
                cur.execute(sql)
                return self._bounded(cur, sql, key)
        except pymysql.err.OperationalError as e:
            code = e.args[0] if e.args else 0
            msg = scrub(str(e.args[1]) if len(e.args) > 1 else str(e), self.ep)
            if code in (2006, 2013, 2014, 2055) or code >= 2000 and code < 3000:
                raise CollectionError(
                    f"the server at {self.ep.describe()} went away during `{sql[:60]}` ({code} {msg}); "
                    "the snapshot was not written.",
                    "check the server's error log (did it restart or run out of memory?) and run the command again.",
                ) from None
            if fatal:
                raise CollectionError(f"`{sql}` failed on {self.ep.describe()}: ({code}) {msg}.",
                                      "the advisor needs this statement; see docs/privileges.md.") from None
            self.raw.errors[key] = QueryError(sql, code, msg)
            return None
        except pymysql.err.MySQLError as e:
            code = e.args[0] if e.args and isinstance(e.args[0], int) else 0
            msg = scrub(str(e.args[1]) if len(e.args) > 1 else str(e), self.ep)
            if fatal:
                raise CollectionError(f"`{sql}` failed on {self.ep.describe()}: ({code}) {msg}.",
                                      "the advisor needs this statement; see docs/privileges.md.") from None
            self.raw.errors[key] = QueryError(sql, code, msg)
            return None
        except (OSError, EOFError) as e:
            raise CollectionError(
                f"the connection to {self.ep.describe()} broke during `{sql[:60]}` ({e}); the snapshot was not written.",
                "check the server's error log and the network, then run the command again.") from None
        finally:
            self.conn.encoding = prev


    def _bounded(self, cur: Any, sql: str, key: str) -> list[tuple[Any, ...]]:
        """The answer's rows within advisor.collect.limits; a cut is recorded in raw.cuts."""
        from advisor.collect.limits import MAX_RESULT_CHARS, MAX_ROWS, MAX_VALUE_CHARS

        deadline = time.monotonic() + self.ep.read_timeout
        out: list[tuple[Any, ...]] = []
        kept, dropped, long_values = 0, 0, 0
        while True:
            if time.monotonic() > deadline:
                cur._result = None  # the rest of the answer is never read: the connection goes
                self.conn._force_close()
                raise CollectionError(
                    f"the server at {self.ep.describe()} took more than the read timeout "
                    f"({self.ep.read_timeout:g} s) to answer `{sql[:60]}` ({len(out) + dropped:,} rows read); "
                    "the snapshot was not written.",
                    "run it again when the server is less busy, or raise --read-timeout.")
            row = cur.fetchone()
            if row is None:
                break
            if len(out) >= MAX_ROWS or kept >= MAX_RESULT_CHARS:
                dropped += 1
                continue
            cells = []
            for v in row:
                if isinstance(v, (str, bytes)) and len(v) > MAX_VALUE_CHARS:
                    v = v[:MAX_VALUE_CHARS]
                    long_values += 1
                kept += len(v) if isinstance(v, (str, bytes)) else 8
                cells.append(v)
            out.append(tuple(cells))
        why = []
        if dropped:
            why.append(f"{len(out) + dropped:,} rows answered, the first {len(out):,} kept (limit "
                       f"{MAX_ROWS:,} rows or {MAX_RESULT_CHARS // 2**20} MiB per statement)")
        if long_values:
            why.append(f"{long_values:,} value(s) longer than {MAX_VALUE_CHARS:,} characters cut to that length")
        if why:
            self.raw.cuts[key] = f"`{sql[:60]}` was read in part: " + "; ".join(why)
        return out


LENIENT_UTF8 = "advisor_utf8_replace"


def _lenient_codec(name: str) -> Optional[codecs.CodecInfo]:
    """UTF-8 that decodes invalid bytes to U+FFFD (PyMySQL decodes with `bytes.decode(conn.encoding)`,
    strict, and has no errors= setting)."""
    if name != LENIENT_UTF8:
        return None
    return codecs.CodecInfo(name=LENIENT_UTF8, encode=codecs.utf_8_encode,
                            decode=lambda data, errors="strict": codecs.utf_8_decode(data, "replace", True))


codecs.register(_lenient_codec)


def _whole(value: Any) -> Optional[int]:
    """A server's integer answer, or None when it is NULL or not an integer."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() and len(text) <= 20 else None


def read_server(conn: Any, ep: Endpoint, sample_seconds: float = 0.0,
                sleep: Callable[[float], None] = time.sleep,
                progress: Optional[Callable[[str, float, float], None]] = None) -> RawServer:
    """`progress(what, elapsed, total)`: told about every half second while the status sample waits
    (the terminal's progress line; None: one sleep)."""

    raw = RawServer()
    r = _Reader(conn, ep, raw)
    raw.variables = [(str(a), b) for a, b in (r.rows(Q_VARIABLES, "variables", fatal=True) or [])]
    raw.status = [(str(a), b) for a, b in (r.rows(Q_STATUS, "status", fatal=True) or [])]
    raw.read_at = time.time()
    t0 = time.monotonic()
    raw.session_ssl = [(str(a), b) for a, b in (r.rows(Q_SESSION_SSL, "session_ssl", fatal=False) or [])]
    cid = r.rows(Q_CONNECTION_ID, "connection_id", fatal=False)
    raw.connection_id = _whole(cid[0][0]) if cid and cid[0] else None
    if cid and raw.connection_id is None:
        raw.errors["connection_id"] = QueryError(Q_CONNECTION_ID, 0, f"the server answered {str(cid[0][:1])[:60]}, "
                                                                     "not a connection id")
    raw.data_size = r.rows(Q_DATA_SIZE, "data_size", fatal=False)
    variables = {k.lower(): v for k, v in raw.variables}
    if needs_ps_tls(variables):
        raw.ps_tls = r.rows(Q_PS_TLS, "ps_tls", fatal=False)
    if needs_tls_channels(variables):
        raw.tls_channels = r.rows(Q_TLS_CHANNELS, "tls_channels", fatal=False)
    if needs_tidb_config(variables):
        raw.tidb_config = r.rows(Q_TIDB_CONFIG, "tidb_config", fatal=False)
        raw.tidb_bench_config = r.rows(Q_TIDB_BENCH_CONFIG, "tidb_bench_config", fatal=False)
    if sample_seconds > 0:
        remaining = sample_seconds - (time.monotonic() - t0)
        while remaining > 0:
            if progress is not None:
                progress("sampling status", sample_seconds - remaining, sample_seconds)
            sleep(min(remaining, 0.5) if progress is not None else remaining)
            remaining = sample_seconds - (time.monotonic() - t0)
        if progress is not None:
            progress("sampling status", sample_seconds, sample_seconds)
        raw.status_after = [(str(a), b) for a, b in (r.rows(Q_STATUS, "status_after", fatal=True) or [])]
        raw.interval_seconds = time.monotonic() - t0
    # last, after every status read: information_schema queries create temporary tables, which a
    # sampled interval must not count as the workload's
    read_dictionary(r, variables, raw)
    return raw
