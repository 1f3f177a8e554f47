"""Named default formulas: defaults the server computes at startup from the machine.

MySQL 8.4 sizes several InnoDB variables from the number of logical CPUs and the buffer pool
(dev.mysql.com/doc/refman/8.4/en/mysql-nutshell.html, "changed server defaults"). The catalogue
names the formula; this module computes it from the inputs cpus / ram_bytes / buffer_pool_bytes.
Pure functions, no eval. A formula whose input is missing returns None ("not known").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

MiB = 1 << 20
GiB = 1 << 30


@dataclass(frozen=True)
class Inputs:
    """What a default formula may depend on: the host's CPUs and RAM, the buffer pool size."""

    cpus: Optional[int] = None
    ram_bytes: Optional[int] = None
    buffer_pool_bytes: Optional[int] = None


@dataclass(frozen=True)
class DefaultFormula:
    """A default the server computes at start from its inputs (e.g. from the CPU count)."""

    name: str
    inputs: tuple[str, ...]
    doc: str
    fn: Callable[[Inputs], int]


DEFAULT_FORMULAS: dict[str, DefaultFormula] = {}


def _register(name: str, inputs: tuple[str, ...], doc: str) -> Callable[[Callable[[Inputs], int]], Callable[[Inputs], int]]:
    def deco(fn: Callable[[Inputs], int]) -> Callable[[Inputs], int]:
        DEFAULT_FORMULAS[name] = DefaultFormula(name, inputs, doc, fn)
        return fn
    return deco


@_register("bp_instances_80", ("buffer_pool_bytes",),
           "8 when the buffer pool is 1 GiB or more, else 1 (MySQL 5.7/8.0, MariaDB before 10.5).")
def bp_instances_80(i: Inputs) -> int:
    assert i.buffer_pool_bytes is not None
    return 8 if i.buffer_pool_bytes >= GiB else 1


@_register("page_cleaners_80", ("buffer_pool_bytes",),
           "4, lowered to the buffer pool instance count (MySQL 5.7/8.0: 1 for a pool under 1 GiB).")
def page_cleaners_80(i: Inputs) -> int:
    return min(4, bp_instances_80(i))


@_register("bp_instances_84", ("buffer_pool_bytes", "cpus"),
           "MySQL 8.4: 1 when the buffer pool is at most 1 GiB; else min(buffer pool / chunk size (128 MiB) / 2, "
           "logical CPUs / 4), clamped to 1..64.")
def bp_instances_84(i: Inputs) -> int:
    assert i.buffer_pool_bytes is not None and i.cpus is not None
    if i.buffer_pool_bytes <= GiB:
        return 1
    return max(1, min(64, min(i.buffer_pool_bytes // (128 * MiB) // 2, i.cpus // 4)))


@_register("half_cpus_min_4", ("cpus",), "Logical CPUs / 2, at least 4 (MySQL 8.4 innodb_read_io_threads).")
def half_cpus_min_4(i: Inputs) -> int:
    assert i.cpus is not None
    return max(4, i.cpus // 2)


@_register("eighth_cpus_min_4", ("cpus",), "Logical CPUs / 8, at least 4 (MySQL 8.4 innodb_parallel_read_threads).")
def eighth_cpus_min_4(i: Inputs) -> int:
    assert i.cpus is not None
    return max(4, i.cpus // 8)


@_register("temptable_max_ram_84", ("ram_bytes",), "3 % of RAM, clamped to 1..4 GiB (MySQL 8.4 temptable_max_ram).")
def temptable_max_ram_84(i: Inputs) -> int:
    assert i.ram_bytes is not None
    return int(min(4 * GiB, max(GiB, i.ram_bytes * 3 // 100)))


@_register("cpus", ("cpus",), "The number of logical CPUs (thread_pool_size).")
def cpus(i: Inputs) -> int:
    assert i.cpus is not None
    return i.cpus


def compute(name: str, inputs: Inputs) -> Optional[int]:
    """The formula's value, or None when an input it needs is missing."""
    f = DEFAULT_FORMULAS[name]
    if any(getattr(inputs, n) is None for n in f.inputs):
        return None
    return f.fn(inputs)
