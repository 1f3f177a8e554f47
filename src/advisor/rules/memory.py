"""The memory model: the worst-case memory of a configuration, and fitting one into a memory limit.
One model for the rules (the derived facts of advisor.rules.derived.memory read the server's values
through ObservedValues), for my.cnf (PlannedValues: explicit values, then the catalogue's defaults,
then stated fallbacks) and for the sizer sizing.memory-budget (fit_to_memory). Pure.

    buffers = innodb_buffer_pool_size + innodb_log_buffer_size
            + key_buffer_size + aria_pagecache_buffer_size (MariaDB) + query_cache_size (where it exists)
            + temptable_max_ram (MySQL/Percona 8.0+ when internal temporary tables use TempTable)
            + connections × (sort_buffer_size + join_buffer_size + read_buffer_size
                                 + read_rnd_buffer_size + thread_stack + binlog_cache_size
                                 + one in-memory temporary table, min(tmp_table_size, max_heap_table_size),
                                   where the MEMORY engine holds them: MariaDB, MySQL before 8.0)
    total   = buffers + server overhead

The server overhead is an ASSUMPTION, not a measurement: memory mysqld uses beyond the buffers above
(code, data dictionary, table and thread caches, performance_schema, allocator slack), taken as 1/16
of the memory limit, at least 128 MiB and at most 1 GiB (512 MiB when the limit is not known).

`connections` are the ones the workload runs at once when that is known (fit_to_memory's `active`),
else max_connections; the worst case of every max_connections doing so is kept beside (`worst_case`).
A generated configuration keeps `total` at or below 90 % of the limit (the rest is for the OS, the
page cache of binary logs and files, and tools); it never exceeds the limit. When it would,
fit_to_memory lowers settings in a fixed order (FIT_ORDER) and says what it lowered and why.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Optional, Protocol

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules.facts import FactView
from advisor.rules.sizing import round_down
from advisor.units import format_cnf_size, format_number, format_size, to_number
from advisor.versions import Version

MiB = 1 << 20
GiB = 1 << 30

TARGET_FRACTION = 0.90
OVERHEAD_MIN = 128 * MiB
OVERHEAD_MAX = 1 * GiB
OVERHEAD_UNKNOWN_LIMIT = 512 * MiB

# Which buffers are global and which per connection, and the stated assumption used when neither the server
# nor the catalogue's defaults give a value, are the catalogue's (traits memory / fallback, in traits.toml's
# order): VariableCatalogue.names_with("memory", "per_connection"), VariableCatalogue.traits(name).fallback.
TMP_TABLE_PART = "tmp table"


class BudgetError(Exception):
    """The configuration cannot be made to fit the memory limit."""


# The records here are NamedTuples and plain classes, not dataclasses: an audit imports this module,
# and a dataclass costs about a millisecond of start-up to create (bench/startup.py).

class BudgetLine(NamedTuple):
    name: str
    bytes: int
    detail: str = ""


class MemoryBudget(NamedTuple):
    lines: tuple[BudgetLine, ...]
    per_connection: int
    per_connection_parts: tuple[BudgetLine, ...]
    max_connections: int
    overhead: int
    total: int
    limit: Optional[int]
    assumptions: tuple[str, ...] = ()
    active: Optional[int] = None      # connections counted with all their buffers (None: every max_connections)
    worst_case: Optional[int] = None  # the total with every max_connections using all its buffers at once

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


def tmp_tables_in_memory_engine(flavor: str, version: Version, engine: Optional[str]) -> bool:
    """MEMORY-engine internal temporary tables (per connection): MariaDB, MySQL before 8.0, or
    internal_tmp_mem_storage_engine = MEMORY (TempTable, 8.0's default, when not given)."""
    if flavor == "mariadb" or version < Version(8, 0, 0):
        return True
    return (engine or "TempTable").strip().upper() == "MEMORY"


# ---------------------------------------------------------------- where the values come from

class ValueSource(Protocol):
    flavor: str
    version: Version
    catalogue: VariableCatalogue

    def exists(self, name: str) -> bool: ...
    def size(self, name: str, optional: bool = False, buffer_pool_bytes: Optional[int] = None) -> int: ...
    def memory_engine(self) -> Optional[bool]: ...


class PlannedValues:
    """A configuration's effective values on one target: explicit values, then the catalogue's defaults,
    then conservative fallbacks (recorded as assumptions)."""

    def __init__(self, flavor: str, version: Version, explicit: Mapping[str, str], catalogue: VariableCatalogue,
                 cpus: Optional[int] = None, assumptions: Optional[list[str]] = None):
        self.flavor, self.version, self.explicit, self.catalogue = flavor, version, explicit, catalogue
        self.cpus = cpus
        self.assumptions: list[str] = assumptions if assumptions is not None else []

    def exists(self, name: str) -> bool:
        if name.lower() in {k.lower() for k in self.explicit}:
            return True
        return bool(self.catalogue.exists_on(name, self.flavor, self.version))

    def raw(self, name: str) -> Optional[str]:
        for k, v in self.explicit.items():
            if k.lower() == name.lower():
                return v
        return None

    def size(self, name: str, optional: bool = False, buffer_pool_bytes: Optional[int] = None) -> int:
        v = _int(self.raw(name))
        if v is not None:
            return v
        if self.catalogue.exists_on(name, self.flavor, self.version) is False:
            return 0
        d = self.catalogue.default_for(name, self.flavor, self.version, cpus=self.cpus,
                                       buffer_pool_bytes=buffer_pool_bytes)
        v = _int(d)
        if v is not None:
            return v
        fb = int(self.catalogue.traits(name).fallback or 0)
        note = (f"{name} is not known for {self.flavor} {self.version}; assumed "
                f"{format_size(fb) if name != 'max_connections' else fb}")
        if fb and note not in self.assumptions:
            self.assumptions.append(note)
        return fb

    def memory_engine(self) -> Optional[bool]:
        return tmp_tables_in_memory_engine(self.flavor, self.version, self.raw("internal_tmp_mem_storage_engine"))


class ObservedValues:
    """The server's own values, as the rules read them: a required value the server did not report makes
    the figure unknown (FactMissing from the view); an optional global buffer it did not report counts 0."""

    def __init__(self, view: FactView):
        self.view = view

    @property
    def flavor(self) -> str:
        return self.view.flavor

    @property
    def version(self) -> Version:
        return self.view.version

    @property
    def catalogue(self) -> VariableCatalogue:
        return self.view.catalogue

    def exists(self, name: str) -> bool:
        return True

    def size(self, name: str, optional: bool = False, buffer_pool_bytes: Optional[int] = None) -> int:
        return self.view.num_or(f"var.{name}", 0) if optional else self.view.need_num(f"var.{name}")

    def memory_engine(self) -> Optional[bool]:
        m = self.view.get("derived.tmp_tables_use_memory_engine")
        return m if isinstance(m, bool) else None


def _int(value: object) -> Optional[int]:
    n = to_number(value)
    return None if n is None else int(n)


# ---------------------------------------------------------------- the model

def global_lines(src: ValueSource) -> list[BudgetLine]:
    """Memory allocated once: the buffer pool, the other global buffers that exist on the target, and
    the TempTable pool where internal temporary tables use it."""
    bp = src.size("innodb_buffer_pool_size")
    lines = [BudgetLine("innodb_buffer_pool_size", bp, format_size(bp))]
    for name in src.catalogue.names_with("memory", "global"):
        if name == "innodb_buffer_pool_size":
            continue
        if src.exists(name):
            n = src.size(name, optional=True, buffer_pool_bytes=bp)
            lines.append(BudgetLine(name, n, format_size(n)))
    if src.memory_engine() is False and src.exists("temptable_max_ram"):
        n = src.size("temptable_max_ram", optional=True)
        lines.append(BudgetLine("temptable_max_ram", n, f"{format_size(n)} (TempTable pool for internal temporary tables)"))
    return lines


def per_connection_parts(src: ValueSource) -> list[BudgetLine]:
    """The buffers one busy connection may allocate, plus one in-memory temporary table where the MEMORY
    engine holds them."""
    parts = [BudgetLine(name, n, format_size(n)) for name in src.catalogue.names_with("memory", "per_connection")
             for n in [src.size(name)]]
    if src.memory_engine() is True:
        t = min(src.size("tmp_table_size"), src.size("max_heap_table_size"))
        parts.append(BudgetLine(TMP_TABLE_PART, t, f"{format_size(t)} (min of tmp_table_size, max_heap_table_size)"))
    return parts


def compute_budget(src: ValueSource, limit: Optional[int], active: Optional[int] = None) -> MemoryBudget:
    """The budget of a configuration. With `active` (the connections the workload is expected to run at
    once, advisor.rules.sizing.expected_connections) only those count with all their buffers; the worst
    case of every max_connections doing so is kept beside it (`worst_case`), to be shown, not spent."""
    lines = global_lines(src)
    parts = per_connection_parts(src)
    per_conn = sum(p.bytes for p in parts)
    mc = src.size("max_connections")
    counted = mc if active is None else min(mc, max(1, active))
    detail = (f"{format_number(mc)} × {format_size(per_conn)}" if counted == mc else
              f"{format_number(counted)} expected at once × {format_size(per_conn)} (max_connections {format_number(mc)})")
    lines.append(BudgetLine("connections", counted * per_conn, detail))
    overhead = server_overhead_bytes(limit)
    lines.append(BudgetLine("server overhead (assumed)", overhead, format_size(overhead)))
    total = sum(x.bytes for x in lines)
    assumptions = tuple(getattr(src, "assumptions", ()))
    worst = total + (mc - counted) * per_conn
    return MemoryBudget(tuple(lines), per_conn, tuple(parts), mc, overhead, total, limit, assumptions,
                        counted if counted != mc else None, worst)


# ---------------------------------------------------------------- fitting (sizer sizing.memory-budget)

class Adjustment(NamedTuple):
    variable: str
    old: int
    new: int
    reason: str


def conn_floor_for(current: int, max_used: Optional[int]) -> int:
    """The lowest max_connections the fitter goes to before touching caches: 1.1 × the peak of
    connections actually used, or the current value capped at 151 (the default) when not known."""
    if max_used is not None:
        return max(10, -(-max_used * 11 // 10))  # ceil(1.1 × peak) without float error
    return max(10, min(current, 151))


class _Fitter:
    """Lowers one setting at a time while the budget is above TARGET_FRACTION of the limit."""

    def __init__(self, values: PlannedValues, limit: int, bp_unit: int, active: Optional[int] = None):
        self.explicit = {k.lower(): v for k, v in values.explicit.items()}
        self.values = PlannedValues(values.flavor, values.version, self.explicit, values.catalogue, values.cpus,
                                    list(values.assumptions))
        self.limit, self.bp_unit, self.active = limit, bp_unit, active
        self.target = int(limit * TARGET_FRACTION)
        self.pct = int(TARGET_FRACTION * 100)
        self.adjustments: list[Adjustment] = []

    def budget(self) -> MemoryBudget:
        return compute_budget(self.values, self.limit, self.active)

    def counted(self, b: MemoryBudget) -> int:
        return b.active if b.active is not None else b.max_connections

    def over(self) -> bool:
        return self.budget().total > self.target

    def set_size(self, name: str, new: int, why: str) -> None:
        old = self.values.size(name)
        if new >= old:
            return
        self.explicit[name] = format_cnf_size(new) if name != "max_connections" else str(new)
        self.adjustments.append(Adjustment(name, old, new, why))

    def lower_bp(self, floor: int) -> None:
        b = self.budget()
        others = b.total - self.values.size("innodb_buffer_pool_size")
        room = round_down(self.target - others, self.bp_unit)
        taken = (f"the other buffers, the overhead and {format_number(self.counted(b))} connections × "
                 f"{format_size(b.per_connection)} take {format_size(others)}")
        if room >= floor:
            why = f"lowered so that it fits the memory budget: {taken} of {self.pct} % of the {format_size(self.limit)} limit"
        else:
            why = (f"lowered to its floor of {format_size(floor)}: {taken}, more than {self.pct} % of the "
                   f"{format_size(self.limit)} limit allows next to it")
        self.set_size("innodb_buffer_pool_size", max(floor, room), why)

    def give_back_bp(self, wanted: int) -> None:
        """After the later steps made room, raise the pool that step 1 lowered back up to the room left
        (never above what was wanted): its first cut was made while the cheaper caches were still large."""
        first = next((a for a in self.adjustments if a.variable == "innodb_buffer_pool_size"), None)
        if first is None:
            return
        current = self.values.size("innodb_buffer_pool_size")
        b = self.budget()
        others = b.total - current
        room = round_down(self.target - others, self.bp_unit)
        new = min(wanted, room)
        if new <= current:
            return
        self.explicit["innodb_buffer_pool_size"] = format_cnf_size(new)
        taken = (f"the other buffers, the overhead and {format_number(self.counted(b))} connections × "
                 f"{format_size(b.per_connection)} take {format_size(others)}")
        self.adjustments = [a for a in self.adjustments if a.variable != "innodb_buffer_pool_size"]
        if new < wanted:
            self.adjustments.append(Adjustment("innodb_buffer_pool_size", first.old, new,
                                               f"lowered so that it fits the memory budget: {taken} of {self.pct} % "
                                               f"of the {format_size(self.limit)} limit"))

    def lower_connections(self, floor: int) -> None:
        b = self.budget()
        room = int((self.target - (b.total - self.counted(b) * b.per_connection)) // max(1, b.per_connection))
        if self.active is not None and room >= self.counted(b):
            return  # the expected connections fit: fewer allowed connections would not make the rest fit
        new = max(floor, room)
        self.set_size("max_connections", new,
                      f"lowered so that {format_number(new)} connections × {format_size(b.per_connection)} of "
                      f"per-connection buffers fit next to the global buffers in {self.pct} % of the "
                      f"{format_size(self.limit)} limit"
                      + ("" if room >= floor else f" (as far as the floor of {format_number(floor)} allows)"))

    def cap_worst_case(self, floor: int) -> None:
        """With the expected connections counted: when every max_connections using all its buffers at once
        would pass the limit itself, lower max_connections (never the buffer pool) so that it does not, as far
        as the expected connections allow; what is left over the limit is the header's WARNING."""
        b = self.budget()
        if self.active is None or b.worst_case is None or b.worst_case <= self.limit:
            return
        room = int((self.limit - (b.total - self.counted(b) * b.per_connection)) // max(1, b.per_connection))
        new = max(floor, room)
        if new < b.max_connections:
            self.set_size("max_connections", new,
                          f"lowered so that even {format_number(new)} connections each using all "
                          f"{format_size(b.per_connection)} of per-connection buffers at once stay within the "
                          f"{format_size(self.limit)} limit; the buffer pool is not lowered for that worst case")

    def lower_tmp(self, size: int) -> None:
        if any(p.name == TMP_TABLE_PART for p in self.budget().per_connection_parts):
            for name in ("tmp_table_size", "max_heap_table_size"):
                self.set_size(name, size, f"lowered to {format_size(size)} because every connection may hold one "
                              "in-memory temporary table of this size (MEMORY engine) and the memory budget does "
                              "not fit otherwise")

    def lower_temptable(self) -> None:
        if "temptable_max_ram" in {x.name for x in self.budget().lines}:
            self.set_size("temptable_max_ram", max(64 * MiB, round_down(self.limit * 0.05, MiB)),
                          f"lowered to 5 % of the {format_size(self.limit)} memory limit (at least 64 MiB) to fit "
                          "the memory budget; larger internal temporary tables spill to disk")

    def lower_myisam_aria(self) -> None:
        if self.values.exists("key_buffer_size"):
            self.set_size("key_buffer_size", 8 * MiB, "lowered to 8 MiB (the MyISAM index cache) to fit the "
                          "memory budget; assumes the data is InnoDB")
        if self.values.exists("aria_pagecache_buffer_size"):
            self.set_size("aria_pagecache_buffer_size", 32 * MiB, "lowered to 32 MiB (the Aria page cache, used by "
                          "system tables and on-disk temporary tables) to fit the memory budget; assumes the data "
                          "is InnoDB")


def fit_to_memory(values: PlannedValues, limit: int, bp_unit: int, conn_floor: int,
                  min_connections: int = 10, active: Optional[int] = None,
                  bp_floor: Optional[int] = None) -> tuple[dict[str, str], list[Adjustment], MemoryBudget]:
    """Lower settings until the budget is at most TARGET_FRACTION of `limit`. Returns the new explicit
    values (my.cnf sizes), the adjustments made (in order) and the final budget. Raises BudgetError
    when even the floors exceed the limit itself.

    FIT_ORDER (each step only while the budget is still over the target):
      1. innodb_buffer_pool_size down to the room left, not below min(wanted, max(128 MiB, 25 % of the limit));
      2. temptable_max_ram down to max(64 MiB, 5 % of the limit);
      3. tmp_table_size and max_heap_table_size down to 16 MiB (MEMORY-engine temporary tables are per connection);
      4. max_connections down to the room left, not below `conn_floor` (1.1 × Max_used_connections, or the
         current value capped at 151);
      5. key_buffer_size down to 8 MiB, aria_pagecache_buffer_size down to 32 MiB (assumes InnoDB data);
      6. tmp_table_size and max_heap_table_size down to 4 MiB;
      7. max_connections down to the room left, not below `min_connections`;
      8. innodb_buffer_pool_size down to the room left, not below 128 MiB (or its current size if smaller);
      9. innodb_buffer_pool_size back up to the room the later steps left, never above what was wanted
         (step 1 cut it while the cheaper caches were still large).

    `active`: the connections the workload is expected to run at once (the sysbench threads, the peak
    used, the CPUs; advisor.rules.sizing.expected_connections): only those count with all their buffers,
    so the buffer pool is not spent on a worst case that does not happen (the budget keeps it as
    `worst_case`, shown as a warning). `bp_floor`: the pool the data and its growth need; step 1 does not
    go below it (the later steps may, when the memory cannot hold it)."""
    f = _Fitter(values, limit, bp_unit, active)
    wanted_bp = f.values.size("innodb_buffer_pool_size")
    floor1 = max(round_down(max(128 * MiB, limit * 0.25), bp_unit), bp_unit, bp_floor or 0)
    steps = (
        lambda: f.lower_bp(min(wanted_bp, floor1)),
        f.lower_temptable,
        lambda: f.lower_tmp(16 * MiB),
        lambda: f.lower_connections(conn_floor),
        f.lower_myisam_aria,
        lambda: f.lower_tmp(4 * MiB),
        lambda: f.lower_connections(min_connections),
        lambda: f.lower_bp(min(f.values.size("innodb_buffer_pool_size"), 128 * MiB)),
    )
    for step in steps:
        if f.over():
            step()
    f.give_back_bp(wanted_bp)  # 9. the pool up to the room the later steps left, not above what was wanted
    f.cap_worst_case(active or conn_floor)  # not below the connections the workload runs at once
    final = f.budget()
    if final.total > limit:
        raise BudgetError(
            f"even at the lowest settings this advisor uses, the worst-case memory is {format_size(final.total)}, "
            f"more than the {format_size(limit)} memory limit")
    return f.explicit, f.adjustments, final
