"""Named formulas for computed recommendations. Pure; each has unit tests (tests/unit/test_formulas.py).
The sizing arithmetic they share with the sizers (dedicated buffer pool, redo floor and target, I/O
capacity by device, log buffer) is advisor.rules.sizing.

A formula takes the fact view and the rule's `args` and returns {variable: value} — the
variable named as the target version names it, the value as my.cnf writes it — or Unknown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from advisor.rules.derived.common import default_inputs
from advisor.rules.sizing import IO_CAPACITY_BY_CLASS, dedicated_buffer_pool_bytes, log_buffer_target, round_up
from advisor.rules.derived.version import pinned_old_defaults_list
from advisor.rules.facts import FactView, Unknown
from advisor.units import format_cnf_size
from advisor.versions import Version

MiB = 1 << 20
GiB = 1 << 30

FormulaFn = Callable[..., Any]


@dataclass(frozen=True)
class Formula:
    """A named formula a recommendation may compute its value with."""

    name: str
    fn: FormulaFn
    doc: str


FORMULAS: dict[str, Formula] = {}


def formula(name: str, doc: str) -> Callable[[FormulaFn], FormulaFn]:
    def deco(fn: FormulaFn) -> FormulaFn:
        if name in FORMULAS:
            raise ValueError(f"formula {name} defined twice")
        FORMULAS[name] = Formula(name, fn, doc)
        return fn
    return deco


@formula("redo_size", "Redo capacity for one hour of measured writes, no more than the buffer pool can hold "
         "dirty, at least the purpose's floor (1 GiB, 2 GiB for benchmarks), at most 16 GiB "
         "(derived.redo_target_bytes), named for the target: innodb_redo_log_capacity on MySQL/Percona ≥ 8.0.30, "
         "innodb_log_file_size (per file) before and on MariaDB.")
def redo_size(v: FactView, **_: Any) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    target = v.get("derived.redo_target_bytes")
    if isinstance(target, Unknown):
        return target
    if v.flavor in ("mysql", "percona") and v.version >= Version(8, 0, 30):
        return {"innodb_redo_log_capacity": format_cnf_size(target)}
    if v.flavor == "mariadb" and v.version >= Version(10, 5, 0):
        return {"innodb_log_file_size": format_cnf_size(target)}
    files = v.num("var.innodb_log_files_in_group")
    files = 2 if isinstance(files, Unknown) else max(2, int(files))
    return {"innodb_log_file_size": format_cnf_size(round_up(target / files, 64 * MiB))}


@formula("flavor_default", "The variable's compiled-in default on the target flavor (args: variable).")
def flavor_default(v: FactView, variable: str, **_: Any) -> Any:
    d = v.catalogue.default_for(variable, v.flavor, v.version)
    if d is None:
        return Unknown(f"no recorded default for {variable} on {v.flavor} {v.version}")
    return {variable: d}


@formula("buffer_pool_for_memory", "innodb_buffer_pool_size sized as innodb_dedicated_server sizes it, applied to "
         "the memory the server may use (the cgroup limit when lower than RAM): 50 % of 1-4 GiB, 75 % above, "
         "in 128 MiB chunks.")
def buffer_pool_for_memory(v: FactView, **_: Any) -> Any:
    lim = v.num("derived.memory_limit_bytes")
    if isinstance(lim, Unknown):
        return lim
    return {"innodb_buffer_pool_size": format_cnf_size(dedicated_buffer_pool_bytes(int(lim), chunk=128 * MiB))}


# ---------------------------------------------------------------- buffer pool, connections, caches

def bp_for_data(data_bytes: float, limit_bytes: float | None, unit: int) -> int | None:
    """A buffer pool that holds the InnoDB data plus 10 % growth, rounded up to the chunk unit
    (chunk size × instances), but at most 75 % of the memory limit (rounded down to the unit).
    None when even the data does not fit in 75 % of memory: then the data cannot be cached whole."""
    want = round_up(data_bytes * 1.1, unit)
    if limit_bytes is None:
        return want
    cap = int(limit_bytes * 0.75) // unit * unit
    if cap < unit:
        return None
    return min(want, cap)


@formula("buffer_pool_for_data", "innodb_buffer_pool_size that holds the InnoDB data + index bytes plus 10 %, "
         "rounded up to innodb_buffer_pool_chunk_size × instances, capped at 75 % of the memory limit "
         "(needs host memory).")
def buffer_pool_for_data(v: FactView, **_: Any) -> Any:
    data, limit = v.get("derived.innodb_data_bytes"), v.get("derived.memory_limit_bytes")
    if isinstance(data, Unknown):
        return data
    if isinstance(limit, Unknown):
        return Unknown(f"the host's memory is not known, so a buffer pool size cannot be checked against it ({limit.reason})")
    unit = v.get("derived.buffer_pool_chunk_unit_bytes")
    unit = 128 * MiB if isinstance(unit, Unknown) or unit <= 0 else int(unit)
    size = bp_for_data(float(data), float(limit), unit)
    if size is None:
        return Unknown("75 % of the memory limit is smaller than one buffer pool chunk")
    return {"innodb_buffer_pool_size": format_cnf_size(size)}


@formula("buffer_pool_chunk_aligned", "innodb_buffer_pool_size rounded up to a multiple of "
         "innodb_buffer_pool_chunk_size × innodb_buffer_pool_instances (what the server would do).")
def buffer_pool_chunk_aligned(v: FactView, **_: Any) -> Any:
    bp, unit = v.num("var.innodb_buffer_pool_size"), v.get("derived.buffer_pool_chunk_unit_bytes")
    for x in (bp, unit):
        if isinstance(x, Unknown):
            return x
    return {"innodb_buffer_pool_size": format_cnf_size(round_up(bp, int(unit)))}


def instances_for_pool(bp_bytes: float, current: int) -> int:
    """Buffer pool instances so that each holds at least 1 GiB (at least 1, at most the current count)."""
    return max(1, min(current, int(bp_bytes // GiB)))


@formula("buffer_pool_instances_for_size", "innodb_buffer_pool_instances such that each instance holds at least "
         "1 GiB: floor(buffer pool / 1 GiB), at least 1, never more than now.")
def buffer_pool_instances_for_size(v: FactView, **_: Any) -> Any:
    bp, inst = v.num("var.innodb_buffer_pool_size"), v.num("var.innodb_buffer_pool_instances")
    for x in (bp, inst):
        if isinstance(x, Unknown):
            return x
    return {"innodb_buffer_pool_instances": str(instances_for_pool(bp, int(inst)))}


def connections_for_budget(limit_bytes: float, global_bytes: float, per_conn: float, used: int | None) -> int | None:
    """max_connections that keeps global buffers + connections × per-connection buffers within 90 % of
    memory, never below the peak actually used (+10 %). None when the global buffers alone do not fit."""
    room = limit_bytes * 0.9 - global_bytes
    if room <= 0 or per_conn <= 0:
        return None
    n = int(room // per_conn)
    if used is not None:
        n = max(n, int(math.ceil(used * 1.1)))
    return max(10, n)


@formula("max_connections_for_memory", "max_connections that keeps worst-case memory (global buffers + "
         "connections × per-connection buffers) within 90 % of the memory limit, never below 1.1 × "
         "Max_used_connections.")
def max_connections_for_memory(v: FactView, **_: Any) -> Any:
    lim, g, p = v.get("derived.memory_limit_bytes"), v.get("derived.global_buffer_bytes"), \
        v.get("derived.per_connection_buffer_bytes")
    for x in (lim, g, p):
        if isinstance(x, Unknown):
            return x
    used = v.num("status.Max_used_connections")
    n = connections_for_budget(float(lim), float(g), float(p), None if isinstance(used, Unknown) else int(used))
    if n is None:
        return Unknown("the global buffers alone exceed 90 % of the memory limit")
    return {"max_connections": str(n)}


def connections_headroom(used: int, current: int) -> int:
    """max_connections with a third of headroom over the peak, rounded up to 50, never lowered."""
    return max(current, round_up(used * 1.5, 50))


@formula("max_connections_headroom", "max_connections = 1.5 × Max_used_connections rounded up to 50, never lower "
         "than now.")
def max_connections_headroom(v: FactView, **_: Any) -> Any:
    used, mc = v.num("status.Max_used_connections"), v.num("var.max_connections")
    for x in (used, mc):
        if isinstance(x, Unknown):
            return x
    return {"max_connections": str(connections_headroom(int(used), int(mc)))}


def table_cache_for(open_tables: int, current: int) -> int:
    """Twice the larger of the current cache and the tables open now, rounded up to 1000, at most 524288."""
    return min(524288, round_up(2 * max(current, open_tables), 1000))


@formula("table_open_cache_doubled", "table_open_cache = 2 × max(table_open_cache, Open_tables), rounded up to "
         "1000; open_files_limit = 10 + max_connections + 2 × that (the manual's formula).")
def table_open_cache_doubled(v: FactView, **_: Any) -> Any:
    toc, ot, mc = v.num("var.table_open_cache"), v.num("status.Open_tables"), v.num("var.max_connections")
    for x in (toc, mc):
        if isinstance(x, Unknown):
            return x
    n = table_cache_for(0 if isinstance(ot, Unknown) else int(ot), int(toc))
    return {"table_open_cache": str(n), "open_files_limit": str(10 + int(mc) + 2 * n)}


@formula("open_files_limit_needed", "open_files_limit = 10 + max_connections + 2 × table_open_cache.")
def open_files_limit_needed(v: FactView, **_: Any) -> Any:
    need = v.get("derived.open_files_needed")
    if isinstance(need, Unknown):
        return need
    return {"open_files_limit": str(int(need))}


def thread_cache_for(max_used: int, current: int) -> int:
    """Enough cached threads for the peak of concurrent connections (at most 1000 more than now,
    within the 16384 maximum), never lower than now."""
    return min(16384, max(current, min(max_used, current + 1000)))


@formula("thread_cache_for_peak", "thread_cache_size = Max_used_connections (never lower than now, max 16384).")
def thread_cache_for_peak(v: FactView, **_: Any) -> Any:
    used, cur = v.num("status.Max_used_connections"), v.num("var.thread_cache_size")
    for x in (used, cur):
        if isinstance(x, Unknown):
            return x
    return {"thread_cache_size": str(thread_cache_for(int(used), int(cur)))}


@formula("tmp_table_pair", "tmp_table_size = max_heap_table_size = the larger of the two (the smaller one is the "
         "effective limit, so the larger value was the intent).")
def tmp_table_pair(v: FactView, **_: Any) -> Any:
    t, h = v.num("var.tmp_table_size"), v.num("var.max_heap_table_size")
    for x in (t, h):
        if isinstance(x, Unknown):
            return x
    both = format_cnf_size(int(max(t, h)))
    return {"tmp_table_size": both, "max_heap_table_size": both}


@formula("io_capacity_for_device", "innodb_io_capacity / innodb_io_capacity_max by datadir device class: "
         "rotational 200/400, SATA/SAS SSD 1000/2000, client NVMe 1000/2000, datacenter NVMe 10000/20000; a "
         "variable already at its value is left out.")
def io_capacity_for_device(v: FactView, **_: Any) -> Any:
    c = v.get("host.datadir.device_class")
    if isinstance(c, Unknown):
        return c
    if c not in IO_CAPACITY_BY_CLASS:
        return Unknown(f"no I/O capacity is recommended for device class {c!r}")
    cap, mx = IO_CAPACITY_BY_CLASS[c]
    out = {"innodb_io_capacity": str(cap), "innodb_io_capacity_max": str(mx)}
    for name, want in (("innodb_io_capacity", cap), ("innodb_io_capacity_max", mx)):
        now = v.num(f"var.{name}")
        if not isinstance(now, Unknown) and now == want:
            del out[name]  # already there: recommending the value it has says nothing
    return out or Unknown(f"innodb_io_capacity and innodb_io_capacity_max are already {cap} / {mx}")


@formula("log_buffer_size", "innodb_log_buffer_size = 64 MiB (MySQL 8.4's default); doubled (max 256 MiB) when "
         "Innodb_log_waits grew at 64 MiB or more.")
def log_buffer_size(v: FactView, **_: Any) -> Any:
    cur = v.num("var.innodb_log_buffer_size")
    if isinstance(cur, Unknown):
        return cur
    waits = v.num("status.Innodb_log_waits")
    return {"innodb_log_buffer_size": format_cnf_size(log_buffer_target(int(cur), 0 if isinstance(waits, Unknown) else waits))}


@formula("defaults_of_target", "For each setting pinned to a pre-8.4 default (derived.pinned_old_defaults), the "
         "target's own default from the variable catalogue.")
def defaults_of_target(v: FactView, **_: Any) -> Any:
    pinned = pinned_old_defaults_list(v)
    if isinstance(pinned, Unknown):
        return pinned
    ctx = default_inputs(v)
    out = {}
    for item in pinned:
        name = item.split("=", 1)[0]
        d = v.catalogue.default_for(name, v.flavor, v.version, **ctx)
        if d is not None:
            out[name] = d
    return out or Unknown("no setting is pinned to a pre-8.4 default")
