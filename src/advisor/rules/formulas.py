"""Named formulas for computed recommendations. Pure; each has unit tests.

A formula takes the fact view and the rule's `args` and returns {variable: value} — the
variable named as the target version names it, the value as my.cnf writes it — or Unknown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from advisor.rules.facts import FactView, Unknown
from advisor.units import format_cnf_size
from advisor.versions import Version

MiB = 1 << 20
GiB = 1 << 30

FormulaFn = Callable[..., Any]


@dataclass(frozen=True)
class Formula:
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


def round_up(n: float, step: int) -> int:
    return int(math.ceil(n / step) * step)


def redo_target_bytes(per_hour: float | None, purpose: str, floor: int | None = None, cap: int = 16 * GiB) -> int:
    """Redo capacity that holds one hour of writes, at least a floor (2 GiB for benchmarks, where
    a load phase writes far more than steady state; 1 GiB otherwise), at most `cap`, rounded up
    to 512 MiB. One hour follows Percona's classic sizing advice; the 16 GiB cap matches MySQL
    8.4's innodb_dedicated_server ceiling."""
    if floor is None:
        floor = 2 * GiB if purpose == "benchmark" else 1 * GiB
    want = max(float(floor), per_hour or 0.0)
    return min(cap, round_up(want, 512 * MiB))


@formula("redo_size", "Redo capacity for one hour of measured writes (floor 1 GiB, 2 GiB for benchmarks, "
         "cap 16 GiB), named for the target: innodb_redo_log_capacity on MySQL/Percona ≥ 8.0.30, "
         "innodb_log_file_size (per file) before and on MariaDB.")
def redo_size(v: FactView, **_: Any) -> Any:
    per_hour = v.get("derived.redo_bytes_per_hour")
    target = redo_target_bytes(None if isinstance(per_hour, Unknown) else per_hour, v.purpose)
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    if v.flavor in ("mysql", "percona") and v.version >= Version(8, 0, 30):
        return {"innodb_redo_log_capacity": format_cnf_size(target)}
    if v.flavor == "mariadb" and v.version >= Version(10, 5, 0):
        return {"innodb_log_file_size": format_cnf_size(target)}
    files = v.num("var.innodb_log_files_in_group")
    files = 2 if isinstance(files, Unknown) else max(2, int(files))
    return {"innodb_log_file_size": format_cnf_size(round_up(target / files, 64 * MiB))}


@formula("flavor_default", "The variable's compiled-in default on the target flavor (args: variable).")
def flavor_default(v: FactView, variable: str, **_: Any) -> Any:
    from advisor.knowledge import default_for

    d = default_for(variable, v.flavor, v.version)
    if d is None:
        return Unknown(f"no recorded default for {variable} on {v.flavor} {v.version}")
    return {variable: d}


def dedicated_buffer_pool_bytes(memory: int, chunk: int = 128 * MiB) -> int:
    """innodb_dedicated_server's buffer pool rule applied to the memory the server may use: below
    1 GiB the 128 MiB default, 1-4 GiB half, above 4 GiB three quarters (MySQL 8.0/8.4 manual,
    innodb_dedicated_server); rounded down to the 128 MiB chunk size."""
    if memory < GiB:
        return 128 * MiB
    want = memory * 0.5 if memory <= 4 * GiB else memory * 0.75
    return max(chunk, int(want // chunk) * chunk)


@formula("buffer_pool_for_memory", "innodb_buffer_pool_size sized as innodb_dedicated_server sizes it, applied to "
         "the memory the server may use (the cgroup limit when lower than RAM): 50 % of 1-4 GiB, 75 % above, "
         "in 128 MiB chunks.")
def buffer_pool_for_memory(v: FactView, **_: Any) -> Any:
    lim = v.num("derived.memory_limit_bytes")
    if isinstance(lim, Unknown):
        return lim
    return {"innodb_buffer_pool_size": format_cnf_size(dedicated_buffer_pool_bytes(int(lim)))}
