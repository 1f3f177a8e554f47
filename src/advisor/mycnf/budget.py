"""The memory budget of a configuration, and fitting a configuration into a memory limit. Pure.

Worst case, as the connection-memory-over-budget rule counts it (advisor.rules.derived.memory):

    total = innodb_buffer_pool_size + innodb_log_buffer_size
          + key_buffer_size + aria_pagecache_buffer_size (MariaDB) + query_cache_size (where it exists)
          + temptable_max_ram (MySQL/Percona 8.0+ when internal temporary tables use TempTable)
          + max_connections × (sort_buffer_size + join_buffer_size + read_buffer_size
                               + read_rnd_buffer_size + thread_stack + binlog_cache_size
                               + one in-memory temporary table, min(tmp_table_size, max_heap_table_size),
                                 where the MEMORY engine holds them: MariaDB, MySQL before 8.0)
          + server overhead

The server overhead is an ASSUMPTION, not a measurement: memory mysqld uses beyond the buffers
above (code, data dictionary, table and thread caches, performance_schema, allocator slack),
taken as 1/16 of the memory limit, at least 128 MiB and at most 1 GiB (512 MiB when the limit is
not known). Measure a running server with sys.memory_global_total (MySQL) or the process RSS.

A generated configuration keeps `total` at or below 90 % of the limit (the rest is for the OS,
the page cache of binary logs and files, and tools); it never exceeds the limit. When it would,
`fit` lowers settings in a fixed order (see FIT_ORDER) and says what it lowered and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from advisor.units import format_number, format_size, to_number
from advisor.versions import Version

MiB = 1 << 20
GiB = 1 << 30

TARGET_FRACTION = 0.90
OVERHEAD_MIN = 128 * MiB
OVERHEAD_MAX = 1 * GiB
OVERHEAD_UNKNOWN_LIMIT = 512 * MiB

PER_CONNECTION = ("sort_buffer_size", "join_buffer_size", "read_buffer_size", "read_rnd_buffer_size",
                  "thread_stack", "binlog_cache_size")
GLOBALS = ("innodb_buffer_pool_size", "innodb_log_buffer_size", "key_buffer_size", "aria_pagecache_buffer_size",
           "query_cache_size")
# Used only when neither the server nor the catalogue gives a value; each use is stated as an assumption.
FALLBACK_BYTES = {
    "thread_stack": 1 * MiB,            # the largest default of the supported versions (MySQL 8.0.41+)
    "sort_buffer_size": 2 * MiB, "join_buffer_size": 256 * 1024, "read_buffer_size": 128 * 1024,
    "read_rnd_buffer_size": 256 * 1024, "binlog_cache_size": 32 * 1024,
    "innodb_buffer_pool_size": 128 * MiB, "innodb_log_buffer_size": 64 * MiB,
    "tmp_table_size": 16 * MiB, "max_heap_table_size": 16 * MiB, "temptable_max_ram": 1 * GiB,
    "max_connections": 151,
}


class BudgetError(Exception):
    """The configuration cannot be made to fit the memory limit."""


@dataclass(frozen=True)
class BudgetLine:
    name: str
    bytes: int
    detail: str = ""


@dataclass(frozen=True)
class MemoryBudget:
    lines: tuple[BudgetLine, ...]
    per_connection: int
    per_connection_parts: tuple[BudgetLine, ...]
    max_connections: int
    overhead: int
    total: int
    limit: Optional[int]
    assumptions: tuple[str, ...] = ()

    @property
    def fits(self) -> Optional[bool]:
        return None if self.limit is None else self.total <= self.limit

    @property
    def ratio(self) -> Optional[float]:
        return None if not self.limit else self.total / self.limit


def server_overhead_bytes(limit: Optional[int]) -> int:
    """The assumed overhead beyond configured buffers: limit / 16, clamped to 128 MiB .. 1 GiB."""
    if limit is None:
        return OVERHEAD_UNKNOWN_LIMIT
    return int(min(OVERHEAD_MAX, max(OVERHEAD_MIN, limit // 16)))


def _bytes(value: object) -> Optional[int]:
    n = to_number(value)
    return None if n is None else int(n)

@dataclass
class Values:
    """Effective variable values on one target: explicit values, then the catalogue's defaults,
    then conservative fallbacks (recorded as assumptions)."""

    flavor: str
    version: Version
    explicit: Mapping[str, str]
    cpus: Optional[int] = None
    assumptions: list[str] = field(default_factory=list)

    def exists(self, name: str) -> bool:
        from advisor import knowledge

        if name.lower() in {k.lower() for k in self.explicit}:
            return True
        return bool(knowledge.exists_on(name, self.flavor, self.version))

    def raw(self, name: str) -> Optional[str]:
        for k, v in self.explicit.items():
            if k.lower() == name.lower():
                return v
        return None

    def get_bytes(self, name: str, buffer_pool_bytes: Optional[int] = None) -> int:
        from advisor import knowledge

        v = _bytes(self.raw(name))
        if v is not None:
            return v
        if knowledge.exists_on(name, self.flavor, self.version) is False:
            return 0
        d = knowledge.default_for(name, self.flavor, self.version, cpus=self.cpus, buffer_pool_bytes=buffer_pool_bytes)
        v = _bytes(d)
        if v is not None:
            return v
        fb = FALLBACK_BYTES.get(name, 0)
        note = f"{name} is not known for {self.flavor} {self.version}; assumed {format_size(fb) if name != 'max_connections' else fb}"
        if fb and note not in self.assumptions:
            self.assumptions.append(note)
        return fb


def tmp_tables_in_memory_engine(flavor: str, version: Version, engine: Optional[str]) -> bool:
    """MEMORY-engine internal temporary tables (per connection): MariaDB, MySQL before 8.0, or
    internal_tmp_mem_storage_engine = MEMORY."""
    if flavor == "mariadb" or version < Version(8, 0, 0):
        return True
    return (engine or "TempTable").strip().upper() == "MEMORY"


def compute_budget(values: Values, limit: Optional[int]) -> MemoryBudget:
    lines: list[BudgetLine] = []
    bp = values.get_bytes("innodb_buffer_pool_size")
    for name in GLOBALS:
        if name != "innodb_buffer_pool_size" and not values.exists(name):
            continue
        n = bp if name == "innodb_buffer_pool_size" else values.get_bytes(name, buffer_pool_bytes=bp)
        lines.append(BudgetLine(name, n, format_size(n)))
    mem_engine = tmp_tables_in_memory_engine(values.flavor, values.version, values.raw("internal_tmp_mem_storage_engine"))
    if not mem_engine and values.exists("temptable_max_ram"):
        n = values.get_bytes("temptable_max_ram")
        lines.append(BudgetLine("temptable_max_ram", n, f"{format_size(n)} (TempTable pool for internal temporary tables)"))
    parts: list[BudgetLine] = []
    for name in PER_CONNECTION:
        n = values.get_bytes(name)
        parts.append(BudgetLine(name, n, format_size(n)))
    if mem_engine:
        t, h = values.get_bytes("tmp_table_size"), values.get_bytes("max_heap_table_size")
        parts.append(BudgetLine("tmp table", min(t, h), f"{format_size(min(t, h))} (min of tmp_table_size, max_heap_table_size)"))
    per_conn = sum(p.bytes for p in parts)
    mc = values.get_bytes("max_connections")
    conns = mc * per_conn
    lines.append(BudgetLine("connections", conns, f"{format_number(mc)} × {format_size(per_conn)}"))
    overhead = server_overhead_bytes(limit)
    lines.append(BudgetLine("server overhead (assumed)", overhead, format_size(overhead)))
    total = sum(x.bytes for x in lines)
    return MemoryBudget(tuple(lines), per_conn, tuple(parts), mc, overhead, total, limit, tuple(values.assumptions))


# ---------------------------------------------------------------- fitting

@dataclass(frozen=True)
class Adjustment:
    variable: str
    old: int
    new: int
    reason: str


def round_down(n: float, unit: int) -> int:
    return int(n // unit) * unit


def fit(values: Values, limit: int, bp_unit: int, conn_floor: int, min_connections: int = 10) -> tuple[dict[str, str], list[Adjustment], MemoryBudget]:
    """Lower settings until the budget is at most TARGET_FRACTION of `limit`. Returns the new
    explicit values (my.cnf sizes), the adjustments made (in order) and the final budget.
    Raises BudgetError when even the floors exceed the limit itself.

    FIT_ORDER (each step only while the budget is still over the target):
      1. innodb_buffer_pool_size down to the room left, not below min(wanted, max(128 MiB, 25 % of the limit));
      2. temptable_max_ram down to max(64 MiB, 5 % of the limit);
      3. tmp_table_size and max_heap_table_size down to 16 MiB (MEMORY-engine temporary tables are per connection);
      4. max_connections down to the room left, not below `conn_floor` (1.1 × Max_used_connections, or the
         current value capped at 151);
      5. key_buffer_size down to 8 MiB, aria_pagecache_buffer_size down to 32 MiB (assumes InnoDB data);
      6. tmp_table_size and max_heap_table_size down to 4 MiB;
      7. max_connections down to the room left, not below `min_connections`;
      8. innodb_buffer_pool_size down to the room left, not below 128 MiB (or its current size if smaller)."""
    from advisor.units import format_cnf_size

    explicit = {k.lower(): v for k, v in values.explicit.items()}
    v = Values(values.flavor, values.version, explicit, values.cpus, list(values.assumptions))
    target = int(limit * TARGET_FRACTION)
    adjustments: list[Adjustment] = []

    def budget() -> MemoryBudget:
        return compute_budget(v, limit)

    def set_bytes(name: str, new: int, why: str) -> None:
        old = v.get_bytes(name)
        if new >= old:
            return
        explicit[name] = format_cnf_size(new) if name != "max_connections" else str(new)
        adjustments.append(Adjustment(name, old, new, why))

    def over() -> int:
        return budget().total - target

    pct = int(TARGET_FRACTION * 100)

    def lower_bp(floor: int) -> None:
        b = budget()
        cur = v.get_bytes("innodb_buffer_pool_size")
        others = b.total - cur
        room = round_down(target - others, bp_unit)
        new = max(floor, room)
        if room >= floor:
            why = (f"lowered so that it fits the memory budget: the other buffers, the overhead and "
                   f"{format_number(b.max_connections)} connections × {format_size(b.per_connection)} take "
                   f"{format_size(others)} of {pct} % of the {format_size(limit)} limit")
        else:
            why = (f"lowered to its floor of {format_size(floor)}: the other buffers, the overhead and "
                   f"{format_number(b.max_connections)} connections × {format_size(b.per_connection)} take "
                   f"{format_size(others)}, more than {pct} % of the {format_size(limit)} limit allows next to it")
        set_bytes("innodb_buffer_pool_size", new, why)

    def lower_connections(floor: int) -> None:
        b = budget()
        room = int((target - (b.total - b.max_connections * b.per_connection)) // max(1, b.per_connection))
        new = max(floor, room)
        set_bytes("max_connections", new,
                  f"lowered so that {format_number(new)} connections × {format_size(b.per_connection)} of "
                  f"per-connection buffers fit next to the global buffers in {pct} % of the {format_size(limit)} limit"
                  + ("" if room >= floor else f" (as far as the floor of {format_number(floor)} allows)"))

    def lower_tmp(size: int) -> None:
        if any(p.name == "tmp table" for p in budget().per_connection_parts):
            for name in ("tmp_table_size", "max_heap_table_size"):
                set_bytes(name, size, f"lowered to {format_size(size)} because every connection may hold one in-memory "
                          "temporary table of this size (MEMORY engine) and the memory budget does not fit otherwise")

    wanted_bp = v.get_bytes("innodb_buffer_pool_size")
    if over() > 0:                                                   # 1
        lower_bp(min(wanted_bp, max(round_down(max(128 * MiB, limit * 0.25), bp_unit), bp_unit)))
    if over() > 0 and "temptable_max_ram" in {x.name for x in budget().lines}:   # 2
        set_bytes("temptable_max_ram", max(64 * MiB, round_down(limit * 0.05, MiB)),
                  f"lowered to 5 % of the {format_size(limit)} memory limit (at least 64 MiB) to fit the memory "
                  "budget; larger internal temporary tables spill to disk")
    if over() > 0:                                                   # 3
        lower_tmp(16 * MiB)
    if over() > 0:                                                   # 4
        lower_connections(conn_floor)
    if over() > 0:                                                   # 5
        if v.exists("key_buffer_size"):
            set_bytes("key_buffer_size", 8 * MiB, "lowered to 8 MiB (the MyISAM index cache) to fit the memory "
                      "budget; assumes the data is InnoDB")
        if v.exists("aria_pagecache_buffer_size"):
            set_bytes("aria_pagecache_buffer_size", 32 * MiB, "lowered to 32 MiB (the Aria page cache, used by "
                      "system tables and on-disk temporary tables) to fit the memory budget; assumes the data is InnoDB")
    if over() > 0:                                                   # 6
        lower_tmp(4 * MiB)
    if over() > 0:                                                   # 7
        lower_connections(min_connections)
    if over() > 0:                                                   # 8
        lower_bp(min(v.get_bytes("innodb_buffer_pool_size"), 128 * MiB))
    final = budget()
    if final.total > limit:
        raise BudgetError(
            f"even at the lowest settings this advisor uses, the worst-case memory is {format_size(final.total)}, "
            f"more than the {format_size(limit)} memory limit")
    return explicit, adjustments, final


def conn_floor_for(current: int, max_used: Optional[int]) -> int:
    """The lowest max_connections the fitter goes to before touching caches: 1.1 × the peak of
    connections actually used, or the current value capped at 151 (the default) when not known."""
    if max_used is not None:
        return max(10, -(-max_used * 11 // 10))  # ceil(1.1 × peak) without float error
    return max(10, min(current, 151))
