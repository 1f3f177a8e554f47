"""The sizing model: how big a setting should be, as named pure functions that rules (advisor.rules.formulas
and derived facts), the sizers that write my.cnf lines (advisor.rules.sizers) and the checklist call.
Each has its own unit test (tests/unit/test_sizing.py); none reads a file: the variable catalogue is
handed in where a function needs it.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.units import format_number, format_size, try_number
from advisor.versions import Version

MiB = 1 << 20
GiB = 1 << 30

WORKLOADS = ("oltp", "bulk-load", "benchmark")
BULK_LOAD_REDO_FLOOR = 4 * GiB
REDO_CAP = 16 * GiB          # MySQL 8.4's innodb_dedicated_server ceiling
REDO_STEP = 512 * MiB

IO_CAPACITY_BY_CLASS: dict[str, tuple[int, int]] = {
    # (innodb_io_capacity, innodb_io_capacity_max)
    "rotational": (200, 400),       # refman: ~100 per 7200 rpm disk; 200 = the pre-8.4 default
    "ssd": (1000, 2000),            # refman: around 1000 for high-end SSDs
    "nvme_client": (1000, 2000),    # flushes are slow without power-loss protection: keep it moderate
    "nvme_plp": (10000, 20000),     # MySQL 8.4's defaults, chosen for current SSD/NVMe storage
}


def round_up(n: float, step: int) -> int:
    return int(math.ceil(n / step) * step)


def round_down(n: float, step: int) -> int:
    return int(n // step) * step


# ---------------------------------------------------------------- memory limit

def memory_limit(host: Any) -> tuple[Optional[int], str]:
    """(bytes, 'cgroup' | 'RAM' | 'memory') the server may use: the cgroup limit when it is below RAM,
    else the effective limit or RAM; (None, 'memory') when the host's memory is not known."""
    if host is None or host.memory.total_bytes is None and host.memory.effective_limit_bytes is None:
        return None, "memory"
    m = host.memory
    if m.cgroup_limit_bytes is not None and (m.total_bytes is None or m.cgroup_limit_bytes < m.total_bytes):
        return m.cgroup_limit_bytes, "cgroup"
    return m.effective_limit_bytes or m.total_bytes, "RAM"


# ---------------------------------------------------------------- buffer pool

def dedicated_buffer_pool_bytes(memory: float, chunk: Optional[int] = None) -> int:
    """innodb_dedicated_server's buffer pool for this much memory (MySQL 8.0/8.4 manual): below 1 GiB the
    128 MiB default, up to 4 GiB half of it, above that three quarters; rounded down to `chunk` (at
    least one chunk) when one is given."""
    if memory < GiB:
        return 128 * MiB
    want = memory * 0.5 if memory <= 4 * GiB else memory * 0.75
    if chunk is None:
        return int(want)
    return max(chunk, round_down(want, chunk))


def buffer_pool_instances(catalogue: VariableCatalogue, flavor: str, version: Version, bp_bytes: int,
                          cpus: Optional[int], current: Optional[int], current_is_default: Optional[bool]) -> int:
    """The instance count the server will use for a buffer pool of `bp_bytes`: the explicit setting
    when the server has a non-default one, else the catalogue's default for that size."""
    if catalogue.exists_on("innodb_buffer_pool_instances", flavor, version) is not True:
        return 1
    if current is not None and current_is_default is False:
        return max(1, current)
    d = catalogue.default_for("innodb_buffer_pool_instances", flavor, version, cpus=cpus, buffer_pool_bytes=bp_bytes)
    n = try_number(d) if d is not None else None
    if n is None:
        return max(1, current or 1)
    return max(1, int(n))


def buffer_pool_unit(chunk_bytes: Optional[int], instances: int) -> int:
    """The step the server rounds innodb_buffer_pool_size to: chunk × instances (MySQL; MariaDB before
    10.8). A chunk of 0 (MariaDB 10.8+ autosizes it) or unknown gives 1 MiB. Sizes are written in steps
    of at least 128 MiB, which every smaller power-of-two unit divides."""
    unit = chunk_bytes * max(1, instances) if chunk_bytes and chunk_bytes > 0 else MiB
    if unit < 128 * MiB and (128 * MiB) % unit == 0:
        return 128 * MiB
    return unit


# ---------------------------------------------------------------- redo

def redo_floor(purpose: str, workload: Optional[str] = None, cpus: Optional[int] = None) -> tuple[int, str]:
    """The least redo capacity worth having, and why: 1 GiB (production) or 2 GiB (benchmark), 4 GiB for a
    bulk load, and at least MySQL 8.4's innodb_dedicated_server choice of logical CPUs / 2 GiB."""
    bench = purpose == "benchmark" or workload == "benchmark"
    floor = 2 * GiB if bench else 1 * GiB
    why = f"a {format_size(floor)} floor for {'benchmark' if workload == 'benchmark' else purpose} use"
    if workload == "bulk-load" and BULK_LOAD_REDO_FLOOR > floor:
        floor = BULK_LOAD_REDO_FLOOR
        why = f"a {format_size(floor)} floor for bulk loads, which write at least as much redo as data"
    if cpus:
        dedicated = min(REDO_CAP, max(1, cpus // 2) * GiB)
        if dedicated > floor:
            floor = dedicated
            why = f"innodb_dedicated_server's {format_number(cpus)} CPUs / 2 = {format_size(dedicated)} (MySQL 8.4)"
    return floor, why


def datadir_device_bytes(host: Any) -> Optional[int]:
    """Size of the devices behind the datadir (their sum), or None when the host facts do not say."""
    devs = host.datadir.devices if host is not None and host.datadir is not None else []
    sizes = [d.size_bytes for d in devs if d.size_bytes]
    return sum(sizes) if sizes else None


def redo_target(per_hour: Optional[float], floor: tuple[int, str], pool_bytes: Optional[int] = None,
                memory_bytes: Optional[int] = None, disk_bytes: Optional[int] = None) -> tuple[int, str]:
    """(bytes, why) of the redo capacity to recommend. One hour of the measured writes (Percona's classic
    sizing), but no more than the buffer pool can hold dirty — the larger of the pool and what
    innodb_dedicated_server would give this memory: redo beyond the pages InnoDB can keep dirty buys no
    checkpoint room (the manual: "even as big as the buffer pool"); at least the purpose's floor; at most
    16 GiB, and at most a tenth of the datadir's device when its size is known. Rounded up to 512 MiB."""
    floor_bytes, floor_why = floor
    dirty = max([x for x in (pool_bytes, dedicated_buffer_pool_bytes(memory_bytes) if memory_bytes else None)
                 if x] or [0])
    if per_hour is None:
        want, why = float(floor_bytes), f"no redo write rate was measured, so {floor_why} decides"
    elif per_hour <= floor_bytes:
        want, why = float(floor_bytes), (f"one hour of the measured writes is {format_size(per_hour)}, less than "
                                         f"{floor_why}, so the floor decides")
    elif dirty and per_hour > dirty:
        want = float(max(floor_bytes, dirty))
        why = (f"one hour of the measured writes is {format_size(per_hour)}, more than the {format_size(dirty)} the "
               f"buffer pool can hold dirty, so " + ("the log is sized to the pool" if dirty >= floor_bytes
                                                        else f"{floor_why} decides"))
    else:
        want, why = float(per_hour), f"the log holds one hour of the measured writes, {format_size(per_hour)}"
    target = min(REDO_CAP, round_up(want, REDO_STEP))
    if target == REDO_CAP and want > REDO_CAP:
        why += f", capped at {format_size(REDO_CAP)} (innodb_dedicated_server's ceiling)"
    if disk_bytes:
        disk_cap = max(REDO_STEP, round_down(disk_bytes / 10, REDO_STEP))
        if target > disk_cap:
            target = disk_cap
            why += f", capped at a tenth of the {format_size(disk_bytes)} datadir device"
    return target, why


def redo_settings(catalogue: VariableCatalogue, flavor: str, version: Version, total_bytes: int,
                  files_in_group: Optional[int]) -> dict[str, int]:
    """The variables that give `total_bytes` of redo on this target, named by the catalogue:
    innodb_redo_log_capacity where it exists (MySQL/Percona 8.0.30+), else innodb_log_file_size — one
    file on MariaDB 10.5+, innodb_log_files_in_group files (rounded up to 64 MiB each) before."""
    if catalogue.exists_on("innodb_redo_log_capacity", flavor, version):
        return {"innodb_redo_log_capacity": total_bytes}
    files = 1
    if catalogue.exists_on("innodb_log_files_in_group", flavor, version):
        d = catalogue.default_for("innodb_log_files_in_group", flavor, version)
        files = max(1, files_in_group or int(try_number(d) or 1))
    if files == 1:
        return {"innodb_log_file_size": total_bytes}
    return {"innodb_log_file_size": round_up(total_bytes / files, 64 * MiB)}


# ---------------------------------------------------------------- I/O capacity, connections, log buffer

def io_capacity_for(device_class: str) -> Optional[tuple[int, int]]:
    """(innodb_io_capacity, innodb_io_capacity_max) for a datadir device class; None for virtual or
    unknown devices."""
    return IO_CAPACITY_BY_CLASS.get(device_class)


THREADS_PER_CPU_SWEEP = 8     # a thread sweep past ~8 client threads per CPU measures queueing, not the server
DATA_GROWTH = 1.25            # the buffer pool the data needs: its size and a quarter for growth


def with_headroom(n: int) -> int:
    """Connections for `n` client threads: 10 % and at least 10 more, for monitoring and the advisor."""
    return n + max(10, -(-n // 10))


def expected_connections(workload: str, threads: Optional[int], max_used: Optional[int],
                         cpus: Optional[int]) -> tuple[Optional[int], str]:
    """How many connections the workload runs at once, and from what: the benchmark's client threads when
    they are given (--sysbench), else the larger of the peak used so far (Max_used_connections) and, for a
    benchmark, a thread sweep to THREADS_PER_CPU_SWEEP per logical CPU; (None, why) when nothing says."""
    if threads:
        return with_headroom(threads), f"the sysbench command's {format_number(threads)} threads and room for monitoring"
    cands: list[tuple[int, str]] = []
    if max_used:
        cands.append((with_headroom(max_used), f"the {format_number(max_used)} connections used at once so far "
                                               "(Max_used_connections) and room for monitoring"))
    if workload == "benchmark" and cpus:
        cands.append((with_headroom(THREADS_PER_CPU_SWEEP * cpus),
                      f"a thread sweep to {THREADS_PER_CPU_SWEEP} threads per CPU on {format_number(cpus)} CPUs, "
                      "beyond which a run measures queueing"))
    if not cands:
        return None, "neither the benchmark's threads (--sysbench), the peak of connections used nor the CPUs are known"
    return max(cands)


def connections_for_workload(workload: str, current: int, threads: Optional[int] = None,
                             max_used: Optional[int] = None, cpus: Optional[int] = None) -> tuple[Optional[int], str]:
    """max_connections for a benchmark (expected_connections), never below the current value; (None, why)
    when nothing tells how many connections the run opens. Other workloads keep the current value."""
    if workload != "benchmark":
        return current, "the workload is not a benchmark"
    want, why = expected_connections(workload, threads, max_used, cpus)
    if want is None:
        return None, why
    return max(current, want), why


def data_pool_floor(data_bytes: Optional[float], unit: int) -> Optional[int]:
    """The buffer pool the InnoDB data and its growth need (DATA_GROWTH × the data, rounded up to the
    pool's unit), or None when the data size is not known."""
    if data_bytes is None:
        return None
    return max(unit, round_up(float(data_bytes) * DATA_GROWTH, unit))


def log_buffer_target(current: int, waits: float) -> int:
    """64 MiB (MySQL 8.4's default); when the log already waited at that size or more, double it, at
    most 256 MiB."""
    if waits > 0 and current >= 64 * MiB:
        return min(256 * MiB, current * 2)
    return max(current, 64 * MiB)


def log_buffer_for_workload(workload: str, current: int) -> int:
    """innodb_log_buffer_size: at least 64 MiB (MySQL 8.4's default) for loads and benchmarks, whose
    large or many concurrent transactions fill a 16 MiB buffer; otherwise unchanged."""
    if workload in ("bulk-load", "benchmark"):
        return log_buffer_target(current, 0)
    return current
