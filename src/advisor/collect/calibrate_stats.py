"""The pure half of calibration: statistics, SQL text, budget shares, chunk sizing, locality and the
verdicts the calibration report prints. No I/O, no clock: advisor.collect.calibrate measures and
calls these; unit tests feed them numbers.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

from advisor.histogram import log_histogram
from advisor.versions import Version

# ---------------------------------------------------------------- constants

ROW_BYTES = 16384  # stream probe: one 16 KiB value per row (one MySQL packet each, few rows per MB)
SMALL_SORT_BUFFER = 262144  # the sort probe's small session value (MySQL's default, 256 KiB)
SORT_ROWS = 100_000  # rows the sort probe sorts: big enough that the buffer size matters
SORT_PAD = 8
FLUSH_WRITE_BYTES = 16384  # one InnoDB page, as the redo log and doublewrite buffer write
FLUSH_FILE_BYTES = 1 << 20  # preallocated temp file the flush probe overwrites in 16 KiB steps
CPU_BOUND_FRACTION = 0.85  # client process CPU / wall time at or above which the client is the limit
LINE_RATE_FRACTION = 0.9  # stream at or above this share of the payload ceiling: the link is the ceiling
PATH_BOTTLENECK_FRACTION = 0.5  # below this share (client and server not the limit): something on the path
SERVER_HEADROOM = 1.5  # server row generation / stream rate below this: the server limited the probe
# Ethernet: 1460 bytes of TCP payload per 1538 bytes on the wire (preamble 8 + frame 1518 + gap 12).
TCP_PAYLOAD_PER_WIRE = 1460 / 1538

# Budget shares (relative) of the probes in a full calibration.
WEIGHTS = {"rtt": 1.0, "stream": 3.0, "sort": 2.0, "tls": 3.0, "fsync": 1.0, "commit": 1.5}
LIGHT_BUDGET_S = 1.0  # a light calibration (round trips only) never takes longer than this
END_RESERVE_S = 0.3  # kept free at the end of the budget for closing connections and removing files


# ---------------------------------------------------------------- statistics

def percentile(values: Sequence[float], q: float) -> Optional[float]:
    """The q-th percentile (0..100) by linear interpolation between closest ranks; None if empty."""
    if not values:
        return None
    s = sorted(values)
    if len(s) == 1:
        return float(s[0])
    pos = (len(s) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return float(s[lo] + (s[hi] - s[lo]) * (pos - lo))


def distribution(values_ms: Sequence[float], digits: int = 4) -> dict[str, Any]:
    """p50, p99, samples, min, max, mean and the log-bucket histogram of latencies in milliseconds
    (for snapshot.Distribution)."""
    if not values_ms:
        return {"p50": None, "p99": None, "samples": 0, "min": None, "max": None, "mean": None, "histogram": None}

    def r(x: Optional[float]) -> Optional[float]:
        return None if x is None else round(x, digits)
    return {"p50": r(percentile(values_ms, 50)), "p99": r(percentile(values_ms, 99)), "samples": len(values_ms),
            "min": r(min(values_ms)), "max": r(max(values_ms)), "mean": r(sum(values_ms) / len(values_ms)),
            "histogram": log_histogram(values_ms)}


def median(values: Sequence[float]) -> Optional[float]:
    return percentile(values, 50)


# ---------------------------------------------------------------- network arithmetic

def payload_ceiling_bytes_per_s(link_mbps: float) -> float:
    """Most TCP payload bytes per second a link of `link_mbps` Mb/s carries per direction:
    Mb/s x 1e6/8 x 1460/1538 (KNOWLEDGE.md section 6). 1000 Mb/s -> 118.7 MB/s."""
    return link_mbps * 1e6 / 8 * TCP_PAYLOAD_PER_WIRE


def payload_ceiling_mbytes_per_s(link_mbps: float) -> float:
    return payload_ceiling_bytes_per_s(link_mbps) / 1e6


def cpu_bound(cpu_seconds: float, wall_seconds: float, threshold: float = CPU_BOUND_FRACTION) -> tuple[Optional[float], Optional[bool]]:
    """(client CPU fraction, CPU-bound?) from process CPU time and wall time over the same interval."""
    if wall_seconds <= 0:
        return None, None
    frac = cpu_seconds / wall_seconds
    return round(frac, 3), frac >= threshold


# ---------------------------------------------------------------- row generators (SQL text)

@dataclass(frozen=True)
class RowSource:
    """Rows generated on the server without touching user data: `{prefix}SELECT ... FROM {from_sql}`
    with `n_expr` numbering the rows (1.. or 0..) and a LIMIT when the source is larger than asked."""

    method: str
    prefix: str
    from_sql: str
    n_expr: str
    needs_limit: bool


def sequence_source(rows: int, schema: str = "mysql") -> RowSource:
    """MariaDB's sequence engine: seq_1_to_N exists in every schema (reading it needs SELECT there)."""
    return RowSource("sequence", "", f"{schema}.seq_1_to_{max(1, int(rows))}", "seq", False)


def cte_source() -> RowSource:
    """A recursive CTE of 1,000 rows joined with itself (10^6 rows). 999 recursion steps stay below
    MySQL's cte_max_recursion_depth default of 1000, so no session variable is needed."""
    return RowSource("recursive_cte",
                     "WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 999) ",
                     "d a CROSS JOIN d b", "(a.n * 1000 + b.n)", True)


def digits_source(rows: int) -> RowSource:
    """Derived tables of 16 literal rows cross-joined: works on every flavor and version (MySQL 5.7,
    TiDB before 5.1), 16^k rows for k tables."""
    k = 1
    while 16 ** k < rows and k < 6:
        k += 1
    digits = "(SELECT 0 AS n" + "".join(f" UNION ALL SELECT {i}" for i in range(1, 16)) + ")"
    names = "abcdef"[:k]
    from_sql = " CROSS JOIN ".join(f"{digits} {x}" for x in names)
    n_expr = "(" + " + ".join(f"{16 ** i} * {x}.n" if i else f"{x}.n" for i, x in enumerate(names)) + ")"
    return RowSource("derived_digits", "", from_sql, n_expr, True)


def source_for(method: str, rows: int) -> RowSource:
    if method == "sequence":
        return sequence_source(rows)
    if method == "recursive_cte":
        return cte_source()
    if method == "derived_digits":
        return digits_source(rows)
    raise ValueError(f"unknown row generator {method!r}")


def generator_chain(flavor: str, version: str) -> list[str]:
    """Row generators to try, best first, for a flavor and version; the last one works everywhere."""
    v = Version.parse(version)
    if flavor == "mariadb":
        chain = ["sequence"] + (["recursive_cte"] if v >= Version(10, 2, 2) else [])
    elif flavor in ("mysql", "percona"):
        chain = ["recursive_cte"] if v >= Version(8, 0, 1) else []
    elif flavor == "tidb":
        chain = ["recursive_cte"] if v >= Version(5, 1, 0) else []
    else:
        chain = []
    return chain + ["derived_digits"]


def max_rows(method: str) -> int:
    return {"sequence": 10 ** 9, "recursive_cte": 10 ** 6, "derived_digits": 16 ** 6}[method]


def stream_sql(src: RowSource, rows: int, row_bytes: int = ROW_BYTES) -> str:
    """A large result: `rows` rows of one `row_bytes`-byte binary value each. The value depends on the
    row number, so the server builds every row (no constant folding)."""
    expr = f"REPEAT(CHAR(65 + {src.n_expr} % 26), {int(row_bytes)})"
    limit = f" LIMIT {int(rows)}" if src.needs_limit else ""
    return f"{src.prefix}SELECT {expr} FROM {src.from_sql}{limit}"


def generate_sql(src: RowSource, rows: int, row_bytes: int = ROW_BYTES) -> str:
    """The same rows as stream_sql, summed on the server: how fast the server makes them without sending."""
    expr = f"REPEAT(CHAR(65 + {src.n_expr} % 26), {int(row_bytes)})"
    limit = f" LIMIT {int(rows)}" if src.needs_limit else ""
    return f"{src.prefix}SELECT SUM(LENGTH(g.x)) FROM (SELECT {expr} AS x FROM {src.from_sql}{limit}) g"


def sort_sql(src: RowSource, rows: int = SORT_ROWS, pad: int = SORT_PAD) -> str:
    """A read-only sort of `rows` generated rows by a computed key (nothing to index), folded to one
    result row. ORDER BY ... LIMIT equal to the row count keeps the sort (a derived table's ORDER BY
    without LIMIT may be dropped) and rules out the priority-queue shortcut (LIMIT is not small).
    Sources larger than `rows` are cut to `rows` first, so exactly `rows` rows are sorted."""
    if src.needs_limit:
        from_sql, n = f"(SELECT {src.n_expr} AS n FROM {src.from_sql} LIMIT {int(rows)}) g", "g.n"
    else:
        from_sql, n = src.from_sql, src.n_expr
    return (f"{src.prefix}SELECT COUNT(*), SUM(t.k) FROM (SELECT ({n} * 7919) % 1000003 AS k, "
            f"REPEAT(CHAR(65 + {n} % 26), {int(pad)}) AS p FROM {from_sql} ORDER BY k LIMIT {int(rows)}) t")


# ---------------------------------------------------------------- budget and chunk sizing

def probe_share(remaining_s: float, weight: float, weights_left: Iterable[float]) -> float:
    """Seconds for the next probe: its weight's share of what is left of the budget (time a skipped or
    quick probe did not use flows to the probes after it)."""
    total = sum(weights_left)
    if remaining_s <= 0 or total <= 0:
        return 0.0
    return remaining_s * weight / total


def next_chunk_rows(prev_rows: int, prev_seconds: float, prev_bytes: int, time_left: float,
                    row_bytes: int = ROW_BYTES, target_s: float = 0.4, limit: int = 10 ** 9) -> int:
    """Rows for the next stream query. Grows at most 4x a step until a query lasts long enough to
    trust its rate (>= 50 ms: anything shorter fits in socket buffers and token-bucket bursts), then
    aims at `target_s` or what is left, whichever is less. 0 means stop."""
    aim = min(target_s, time_left)
    if aim < 0.05:
        return 0
    if prev_seconds < 0.05 or prev_bytes <= 0:
        return max(1, min(prev_rows * 4, limit))
    rate = prev_bytes / prev_seconds
    want = int(rate * aim / row_bytes)
    return max(1, min(want, prev_rows * 4, limit))


def stream_rate(chunks: Sequence[tuple[int, float, float]]) -> tuple[Optional[float], int, float, float]:
    """(bytes/s, chunks used, bytes, seconds) over measured chunks (bytes, seconds, cpu_seconds).
    The first chunk is warm-up (connection slow start, empty buffers) and chunks shorter than 50 ms
    are bursts; both are left out unless nothing else exists."""
    good = [c for i, c in enumerate(chunks) if i > 0 and c[1] >= 0.05]
    if not good:
        good = list(chunks)
    b = sum(c[0] for c in good)
    s = sum(c[1] for c in good)
    if s <= 0:
        return None, 0, 0, 0.0
    return b / s, len(good), b, s


# ---------------------------------------------------------------- locality (flush probe)

@dataclass(frozen=True)
class LocalityFacts:
    """What the reader found on this machine about the server's files (all optional)."""

    datadir: Optional[str]  # @@datadir as the server reports it
    datadir_exists: bool
    server_hostname: Optional[str]
    local_hostname: Optional[str]
    pid: Optional[int]  # from @@pid_file, if the file was readable here
    pid_comm: Optional[str]  # /proc/<pid>/comm
    pid_cwd: Optional[str]  # /proc/<pid>/cwd target; mysqld and mariadbd chdir to their datadir
    pid_cwd_error: Optional[str] = None
    datadir_real: Optional[str] = None
    transport: str = "tcp"
    socket_matches: bool = False  # connected over a unix socket that is @@socket


SERVER_COMMS = ("mysqld", "mariadbd", "mysqld-debug")


def decide_locality(f: LocalityFacts) -> tuple[bool, str]:
    """Whether the advisor runs on the server's host and sees its datadir, decided conservatively:
    the datadir path exists here, the host names agree, and the PID in @@pid_file is a running
    mysqld/mariadbd whose working directory is that datadir."""
    if not f.datadir:
        return False, "the server reports no datadir"
    if not f.datadir_exists:
        return False, f"datadir {f.datadir} does not exist on this machine (the server runs elsewhere)"
    if f.server_hostname and f.local_hostname and f.server_hostname != f.local_hostname:
        return False, (f"the server's hostname is {f.server_hostname!r} and this machine's is {f.local_hostname!r}; "
                       f"{f.datadir} here is another directory")
    if f.pid is None:
        return False, "the server's pid file is not readable here, so its datadir cannot be confirmed local"
    if f.pid_comm is None:
        return False, f"no process {f.pid} (from the server's pid file) runs here"
    if f.pid_comm not in SERVER_COMMS:
        return False, f"process {f.pid} from the server's pid file is {f.pid_comm!r}, not mysqld or mariadbd"
    if f.pid_cwd is None:
        return False, (f"cannot read the working directory of process {f.pid}"
                       f"{' (' + f.pid_cwd_error + ')' if f.pid_cwd_error else ''}; run as the server's user or root")
    real = f.datadir_real or f.datadir
    if os.path.normpath(f.pid_cwd) != os.path.normpath(real):
        return False, f"process {f.pid} works in {f.pid_cwd}, not in the datadir {real}"
    return True, f"{f.pid_comm} (pid {f.pid}) runs here with its datadir {real}"


def mount_fstype(mountinfo: str, path: str) -> Optional[str]:
    """Filesystem type of the mount holding `path`: the longest mount point that prefixes it in
    /proc/self/mountinfo text (proc(5): fields up to ' - ', then fstype, source, options)."""
    best, best_len = None, -1
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        parts = left.split()
        if not sep or len(parts) < 5 or not right.split():
            continue
        mp = parts[4].replace("\\040", " ")
        if (path == mp or path.startswith(mp.rstrip("/") + "/")) and len(mp) > best_len:
            best, best_len = right.split()[0], len(mp)
    return best


PLP_LIKE_BELOW_MS = 0.25


def flush_class(p50_ms: Optional[float], fstype: Optional[str]) -> tuple[Optional[str], str]:
    """Classify flush behaviour from the median fdatasync of a 16 KiB write (KNOWLEDGE.md section 5):
    drives with power-loss protection acknowledge in tens of microseconds (12-58 us published), client
    NVMe without it in 0.5-1 ms, rotational or networked storage in several. The first boundary sits
    in the gap between those populations (0.25 ms), not next to either, so that run-to-run noise of a
    real device does not flip its class (a virtual disk here measured 0.03-0.15 ms on different days);
    the second is the 0.5 ms at which flush-slow-durable-commits fires."""
    if fstype in ("tmpfs", "ramfs"):
        return "memory", f"{fstype} keeps files in memory; fdatasync flushes nothing"
    if p50_ms is None:
        return None, "no flush was measured"
    if p50_ms < PLP_LIKE_BELOW_MS:
        return "plp_like", (f"median {p50_ms:.3f} ms: flushes are acknowledged from a protected (or ignored) cache, "
                            "as datacenter drives with power-loss protection do")
    if p50_ms < 0.5:
        return "intermediate", f"median {p50_ms:.2f} ms: between protected-cache and client-drive flush times"
    if p50_ms < 3.0:
        return "client_nvme_like", (f"median {p50_ms:.2f} ms: each flush empties a volatile write cache, "
                                    "as client drives without power-loss protection do (about 1 ms)")
    return "slow", f"median {p50_ms:.1f} ms: rotational, networked or throttled storage"


# ---------------------------------------------------------------- verdicts

@dataclass(frozen=True)
class Verdict:
    code: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"verdict": self.code, "why": self.why}


def stream_verdict(stream: Any, route_kind: Optional[str], link_mbps: Optional[int]) -> Verdict:
    """What limited the stream probe: the client's CPU, the server, the link, or something on the path."""
    if stream is None or stream.mbytes_per_s is None:
        return Verdict("not_measured", "the stream probe did not run")
    mb = stream.mbytes_per_s
    if route_kind in ("loopback", "socket"):
        return Verdict("no_network", f"{mb:.1f} MB/s over {'a unix socket' if route_kind == 'socket' else 'loopback'}: "
                       "no NIC is involved, so this is a client/server ceiling, not a network one")
    if stream.client_cpu_bound:
        return Verdict("client_bound", f"the client used {100 * (stream.client_cpu_fraction or 0):.0f}% of a CPU "
                       f"while reading {mb:.1f} MB/s; the client, not the network, was the limit")
    if not link_mbps:
        return Verdict("link_unknown", f"{mb:.1f} MB/s; the link speed of the route to the server is unknown, "
                       "so it cannot be compared with the line rate")
    ceiling = payload_ceiling_mbytes_per_s(link_mbps)
    frac = mb / ceiling
    head = (stream.server_mbytes_per_s / mb) if stream.server_mbytes_per_s and mb > 0 else None
    if frac >= LINE_RATE_FRACTION:
        return Verdict("line_rate", f"{mb:.1f} MB/s is {100 * frac:.0f}% of the {link_mbps} Mb/s link's "
                       f"{ceiling:.1f} MB/s payload ceiling: the link is the ceiling")
    if head is not None and head < SERVER_HEADROOM:
        return Verdict("server_bound", f"{mb:.1f} MB/s, while the server generates the same rows at only "
                       f"{stream.server_mbytes_per_s:.1f} MB/s without sending them: the server limited the probe")
    if frac < PATH_BOTTLENECK_FRACTION and head is not None:
        return Verdict("path_bottleneck", f"{mb:.1f} MB/s is {100 * frac:.0f}% of the {link_mbps} Mb/s link's "
                       f"{ceiling:.1f} MB/s payload ceiling with client and server idle enough: a shaper, proxy or "
                       "virtual NIC on the path caps throughput")
    return Verdict("below_line_rate", f"{mb:.1f} MB/s is {100 * frac:.0f}% of the {link_mbps} Mb/s link's "
                   f"{ceiling:.1f} MB/s payload ceiling")


# TLS verdict: a cost is "measurable" from 5 %: the on/off samples are interleaved on two connections, so
# the noise between them is far smaller, and for benchmark comparability any measurable cost matters.
# (On loopback here small queries take 1.1-1.5x as long and streams run at 80-88 % of plain; behind a
# link that is the bottleneck the stream ratio is about 1.)
TLS_THROUGHPUT_MEASURABLE = 0.95
TLS_QUERY_MEASURABLE = 1.05


def tls_verdict(tls: Any) -> Verdict:
    if tls is None:
        return Verdict("not_measured", "the TLS probe did not run")
    if not tls.available:
        return Verdict("unavailable", tls.reason or "TLS and plain connections could not both be made")
    parts = []
    cost = False
    if tls.throughput_ratio is not None:
        parts.append(f"stream {100 * tls.throughput_ratio:.0f}% of plain")
        cost |= tls.throughput_ratio < TLS_THROUGHPUT_MEASURABLE
    q = tls.query_ms
    if q.on is not None and q.off:
        r = tls.query_ratio if getattr(tls, "query_ratio", None) is not None else q.on / q.off
        if r >= 1:
            parts.append(f"small queries {r:.2f}x as slow")
            cost |= r >= TLS_QUERY_MEASURABLE
        else:  # TLS only adds work: a lower figure is scheduling noise
            parts.append(f"small queries not separable from scheduling noise ({q.on:.4f} ms on, {q.off:.4f} ms off)")
    h = tls.handshake_ms
    if h.on is not None and h.off:
        parts.append(f"handshake {h.on:.2f} ms vs {h.off:.2f} ms")
    return Verdict("measurable_cost" if cost else "negligible", "; ".join(parts) or "measured")


SORT_SLOWER = 1.2


def sort_verdict(sp: Any) -> Verdict:
    """Actionable or not: the server's value measurably slower (the sort-buffer rules fire) or not."""
    if sp is None or sp.ratio is None:
        return Verdict("not_measured", "the sort probe did not run")
    if sp.ratio >= SORT_SLOWER:
        return Verdict("server_value_slower", f"the server's sort_buffer_size made the same sort {sp.ratio:.2f}x "
                       "as slow as a 256 KiB session value")
    return Verdict("server_value_not_slower", f"ratio {sp.ratio:.2f} (server's value ÷ 256 KiB): the server's "
                   "sort_buffer_size is not measurably slower")


def flush_verdict(cal: Any) -> Verdict:
    if cal.fsync_ms is None or cal.fsync_ms.p50 is None:
        return Verdict("not_measured", "the flush probe did not run")
    fl = cal.flush
    if fl is not None and fl.flush_class:
        return Verdict(fl.flush_class, fl.class_reason)
    cls, why = flush_class(cal.fsync_ms.p50, None)
    return Verdict(cls or "unknown", why)


def rtt_verdict(rtt: Any) -> Verdict:
    if rtt is None or rtt.p50 is None:
        return Verdict("not_measured", "the round-trip probe did not run")
    if rtt.p50 < 0.5:
        return Verdict("near", f"median {rtt.p50:.3f} ms: same host or a fast local network")
    if rtt.p50 < 2.0:
        return Verdict("lan", f"median {rtt.p50:.2f} ms: a local network with some hops")
    return Verdict("far", f"median {rtt.p50:.1f} ms: every statement waits this long; chatty clients suffer")


def verdicts(cal: Any, route_kind: Optional[str], link_mbps: Optional[int]) -> dict[str, Verdict]:
    out = {"rtt": rtt_verdict(cal.rtt_ms)}
    if cal.mode != "light":
        out["stream"] = stream_verdict(cal.stream, route_kind, link_mbps)
        out["tls"] = tls_verdict(cal.tls)
        out["sort"] = sort_verdict(cal.sort_probe)
        out["flush"] = flush_verdict(cal)
    if cal.commit_ms is not None and cal.commit_ms.p50 is not None:
        out["commit"] = Verdict("measured", f"median autocommit insert {cal.commit_ms.p50:.2f} ms")
    return out


def route_of(snapshot: Any) -> tuple[Optional[str], Optional[int]]:
    """(route kind, link Mb/s) for the verdicts: the client facts' route when collected, else what the
    stream probe recorded about its own connection."""
    client = getattr(snapshot, "client", None)
    if client is not None and client.route is not None:
        r = client.route
        speed = r.speed_mbps if r.kind == "interface" and r.speed_mbps and r.speed_mbps > 0 else None
        return r.kind, speed
    cal = getattr(snapshot, "calibration", None)
    st = getattr(cal, "stream", None) if cal is not None else None
    if st is not None:
        return st.route_kind, st.link_speed_mbps
    return None, None
