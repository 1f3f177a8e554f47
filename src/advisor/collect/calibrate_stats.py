"""The pure half of the calibration probes: SQL text, budget shares, chunk sizing and locality. No
I/O, no clock: advisor.collect.calibrate measures and calls these; unit tests feed them numbers.
The statistics the probes record come from advisor.measure (re-exported here for the probes); the
verdicts on the results are judgements and live in advisor.rules.calibration.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

# what the probes record (the calibrate_* modules read them as calibrate_stats.*)
from advisor.measure import (CPU_BOUND_FRACTION, PLP_LIKE_BELOW_MS, TCP_PAYLOAD_PER_WIRE, cpu_bound,  # noqa: F401
                             distribution, flush_class, median, payload_ceiling_bytes_per_s,
                             payload_ceiling_mbytes_per_s, percentile)
from advisor.versions import Version

# ---------------------------------------------------------------- constants

ROW_BYTES = 16384  # stream probe: one 16 KiB value per row (one MySQL packet each, few rows per MB)
SMALL_SORT_BUFFER = 262144  # the sort probe's small session value (MySQL's default, 256 KiB)
SORT_ROWS = 100_000  # rows the sort probe sorts: big enough that the buffer size matters
SORT_PAD = 8
FLUSH_WRITE_BYTES = 16384  # one InnoDB page, as the redo log and doublewrite buffer write
FLUSH_FILE_BYTES = 1 << 20  # preallocated temp file the flush probe overwrites in 16 KiB steps

# Budget shares (relative) of the probes in a full calibration.
WEIGHTS = {"rtt": 1.0, "stream": 3.0, "sort": 2.0, "tls": 3.0, "fsync": 1.0, "commit": 1.5}
LIGHT_BUDGET_S = 1.0  # a light calibration (round trips only) never takes longer than this
END_RESERVE_S = 0.3  # kept free at the end of the budget for closing connections and removing files


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





# ---------------------------------------------------------------- the write probe's privileges

WRITE_PRIVILEGES = ("CREATE", "INSERT", "DROP")
_GRANT = re.compile(r"^GRANT\s+(.+?)\s+ON\s+(?:(?:TABLE|FUNCTION|PROCEDURE|PACKAGE(?: BODY)?)\s+)?(\S+)\s+TO\s", re.I | re.S)


def _like(pattern: str, name: str) -> bool:
    """A grant's database pattern (`_` and `%` wildcards, `\\_` a literal) against a schema name."""
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out += re.escape(pattern[i + 1])
            i += 2
            continue
        out += ".*" if c == "%" else "." if c == "_" else re.escape(c)
        i += 1
    return re.fullmatch(out, name, re.S) is not None


def write_privileges_missing(grants: list[str], schema: str) -> Optional[list[str]]:
    """Which of CREATE, INSERT and DROP no line of SHOW GRANTS gives on `schema` (on *.*, or on a
    database pattern that matches it); [] when all are there; None when the grants cannot tell
    (a role is granted: its privileges are not listed here)."""
    have: set[str] = set()
    for line in grants:
        m = _GRANT.match(line.strip())
        if m is None:
            if re.match(r"^GRANT\s+`[^`]*`(@`[^`]*`)?(\s*,\s*`[^`]*`(@`[^`]*`)?)*\s+TO\s", line.strip(), re.I):
                return None  # a role
            continue
        privs, target = m.group(1), m.group(2)
        db = target.split(".", 1)[0].strip("`")
        if not (target.startswith("*.") or _like(db, schema)):
            continue
        names = {p.strip().upper() for p in re.sub(r"\([^)]*\)", "", privs).split(",")}
        if names & {"ALL", "ALL PRIVILEGES"}:
            have.update(WRITE_PRIVILEGES)
        have.update(names)
    return [p for p in WRITE_PRIVILEGES if p not in have]
