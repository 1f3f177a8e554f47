"""The sizing layer: what a tuned server needs even when no rule fired. Named pure functions,
each with unit tests, reusing advisor.rules.formulas where a formula exists.

`sizing_proposals(inputs)` returns the proposals and, for what it could not size, the reason
(a fact that is unknown is reported, never guessed). Rules win over sizing when both propose a
variable (advisor.mycnf.model.resolve); the memory budget (advisor.mycnf.budget) then decides
what fits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from advisor.mycnf.proposals import Proposal
from advisor.rules.derived.memory import dedicated_bp_for_ram
from advisor.rules.formulas import IO_CAPACITY_BY_CLASS, log_buffer_target, redo_target_bytes, round_up
from advisor.units import format_cnf_size, format_number, format_size, to_number, try_number
from advisor.versions import Version

MiB = 1 << 20
GiB = 1 << 30

WORKLOADS = ("oltp", "bulk-load", "benchmark")
BENCHMARK_MAX_CONNECTIONS = 1100
BULK_LOAD_REDO_FLOOR = 4 * GiB

REF_DEDICATED = "https://dev.mysql.com/doc/refman/8.4/en/innodb-dedicated-server.html"
REF_BP = "https://dev.mysql.com/doc/refman/8.0/en/innodb-buffer-pool-resize.html"
REF_REDO = "https://dev.mysql.com/doc/refman/8.0/en/innodb-redo-log.html"
REF_MARIADB_REDO = "https://mariadb.com/kb/en/innodb-system-variables/#innodb_log_file_size"
REF_IO = "https://dev.mysql.com/doc/refman/8.0/en/innodb-configuring-io-capacity.html"
REF_CONN = "https://dev.mysql.com/doc/refman/8.0/en/too-many-connections.html"
REF_LOG_BUFFER = "https://dev.mysql.com/doc/refman/8.4/en/innodb-parameters.html#sysvar_innodb_log_buffer_size"
REF_DURABILITY = {
    "innodb_flush_log_at_trx_commit": "https://dev.mysql.com/doc/refman/8.0/en/innodb-parameters.html#sysvar_innodb_flush_log_at_trx_commit",
    "sync_binlog": "https://dev.mysql.com/doc/refman/8.0/en/replication-options-binary-log.html#sysvar_sync_binlog",
    "innodb_doublewrite": "https://dev.mysql.com/doc/refman/8.0/en/innodb-doublewrite-buffer.html",
}


@dataclass(frozen=True)
class SizingInputs:
    flavor: str
    version: Version
    purpose: str
    workload: str
    variables: Mapping[str, str]                # SHOW GLOBAL VARIABLES, lower-case names
    limit_bytes: Optional[int] = None           # cgroup limit or RAM
    limit_label: str = "memory"
    cpus: Optional[int] = None
    device_class: Optional[str] = None
    redo_bytes_per_hour: Optional[float] = None
    redo_basis: str = ""
    redo_capacity_bytes: Optional[int] = None   # the redo log's total capacity now
    allow_unsafe_durability: bool = False


@dataclass
class SizingResult:
    proposals: list[Proposal] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (variable, "variable: why it was not sized")


def _num(variables: Mapping[str, str], name: str) -> Optional[int]:
    n = to_number(variables.get(name))
    return None if n is None else int(n)

# ---------------------------------------------------------------- buffer pool

def buffer_pool_target(limit_bytes: int) -> int:
    """What innodb_dedicated_server would choose for this memory (< 1 GiB: 128 MiB; 1–4 GiB: 50 %;
    above: 75 %): the built-in baseline a generated my.cnf starts from."""
    return dedicated_bp_for_ram(float(limit_bytes))


def buffer_pool_instances(flavor: str, version: Version, bp_bytes: int, cpus: Optional[int],
                          current: Optional[int], current_is_default: Optional[bool]) -> int:
    """The instance count the server will use for a buffer pool of `bp_bytes`: the explicit
    setting when the server has a non-default one, else the catalogue's default for that size."""
    from advisor import knowledge

    if knowledge.exists_on("innodb_buffer_pool_instances", flavor, version) is not True:
        return 1
    if current is not None and current_is_default is False:
        return max(1, current)
    d = knowledge.default_for("innodb_buffer_pool_instances", flavor, version, cpus=cpus, buffer_pool_bytes=bp_bytes)
    n = try_number(d) if d is not None else None
    if n is None:
        return max(1, current or 1)
    return max(1, int(n))


def buffer_pool_unit(chunk_bytes: Optional[int], instances: int) -> int:
    """The step the server rounds innodb_buffer_pool_size to: chunk × instances (MySQL; MariaDB
    before 10.8). A chunk of 0 (MariaDB 10.8+ autosizes it) or unknown gives 1 MiB. Sizes are
    written in steps of at least 128 MiB, which every smaller power-of-two unit divides."""
    unit = chunk_bytes * max(1, instances) if chunk_bytes and chunk_bytes > 0 else MiB
    if unit < 128 * MiB and (128 * MiB) % unit == 0:
        return 128 * MiB
    return unit


def round_down(n: float, unit: int) -> int:
    return int(n // unit) * unit


# ---------------------------------------------------------------- redo

def redo_floor(purpose: str, workload: str, cpus: Optional[int]) -> tuple[int, str]:
    """The least redo capacity worth having, and why: 1 GiB (production) or 2 GiB (benchmark), 4 GiB
    for a bulk load, and at least MySQL 8.4's innodb_dedicated_server choice of logical CPUs / 2 GiB."""
    floor = 2 * GiB if purpose == "benchmark" or workload == "benchmark" else 1 * GiB
    why = [f"a {format_size(floor)} floor for {purpose if workload != 'benchmark' else 'benchmark'} use"]
    if workload == "bulk-load" and BULK_LOAD_REDO_FLOOR > floor:
        floor = BULK_LOAD_REDO_FLOOR
        why = [f"a {format_size(floor)} floor for bulk loads, which write at least as much redo as data"]
    if cpus:
        dedicated = min(16 * GiB, max(1, cpus // 2) * GiB)
        if dedicated > floor:
            floor = dedicated
            why = [f"innodb_dedicated_server's {format_number(cpus)} CPUs / 2 = {format_size(dedicated)} (MySQL 8.4)"]
    return floor, why[0]


def redo_target(per_hour: Optional[float], purpose: str, workload: str, cpus: Optional[int]) -> int:
    """One hour of measured redo writes, at least `redo_floor`, at most 16 GiB, in 512 MiB steps
    (advisor.rules.formulas.redo_target_bytes)."""
    floor, _ = redo_floor(purpose, workload, cpus)
    return redo_target_bytes(per_hour, purpose, floor=floor)


def redo_settings(flavor: str, version: Version, total_bytes: int, files_in_group: Optional[int]) -> dict[str, int]:
    """The variables that give `total_bytes` of redo on this target, named by the catalogue:
    innodb_redo_log_capacity where it exists (MySQL/Percona 8.0.30+), else innodb_log_file_size —
    one file on MariaDB 10.5+, innodb_log_files_in_group files (rounded up to 64 MiB each) before."""
    from advisor import knowledge

    if knowledge.exists_on("innodb_redo_log_capacity", flavor, version):
        return {"innodb_redo_log_capacity": total_bytes}
    files = 1
    if knowledge.exists_on("innodb_log_files_in_group", flavor, version):
        d = knowledge.default_for("innodb_log_files_in_group", flavor, version)
        files = max(1, files_in_group or int(try_number(d) or 1))
    if files == 1:
        return {"innodb_log_file_size": total_bytes}
    return {"innodb_log_file_size": round_up(total_bytes / files, 64 * MiB)}


# ---------------------------------------------------------------- I/O capacity

def io_capacity_for(device_class: str) -> Optional[tuple[int, int]]:
    """(innodb_io_capacity, innodb_io_capacity_max) for a datadir device class
    (advisor.rules.formulas.IO_CAPACITY_BY_CLASS); None for virtual/unknown devices."""
    return IO_CAPACITY_BY_CLASS.get(device_class)


# ---------------------------------------------------------------- connections, log buffer

def connections_for_workload(workload: str, current: int) -> int:
    """max_connections for the workload: a benchmark's thread sweep commonly goes to 1,024 client
    threads, so BENCHMARK_MAX_CONNECTIONS (1,100) leaves room for monitoring; otherwise unchanged."""
    if workload == "benchmark":
        return max(current, BENCHMARK_MAX_CONNECTIONS)
    return current


def log_buffer_for_workload(workload: str, current: int) -> int:
    """innodb_log_buffer_size: at least 64 MiB (MySQL 8.4's default) for loads and benchmarks,
    whose large or many concurrent transactions fill a 16 MiB buffer; otherwise unchanged."""
    if workload in ("bulk-load", "benchmark"):
        return log_buffer_target(current, 0)
    return current


# ---------------------------------------------------------------- durability (benchmark only)

DURABILITY_RELAXED = {
    "innodb_flush_log_at_trx_commit": ("2", "the redo log is written at each commit and flushed about once a "
                                       "second, so an OS crash or power loss can lose about a second of commits"),
    "sync_binlog": ("0", "the binary log is flushed when the OS decides, so it can lose transactions that InnoDB kept"),
    "innodb_doublewrite": ("OFF", "a page torn by a crash in the middle of a write cannot be repaired"),
}


# ---------------------------------------------------------------- all sizers

def sizing_proposals(inp: SizingInputs) -> SizingResult:
    from advisor import knowledge

    out = SizingResult()
    v = inp.variables
    fl, ver = inp.flavor, inp.version

    # buffer pool
    if inp.limit_bytes is None:
        out.skipped.append(("innodb_buffer_pool_size", "innodb_buffer_pool_size: not sized, because the memory limit is unknown"))
    else:
        cur = _num(v, "innodb_buffer_pool_size")
        want = buffer_pool_target(inp.limit_bytes)
        inst_now = _num(v, "innodb_buffer_pool_instances")
        inst_default = (knowledge.is_default("innodb_buffer_pool_instances", v["innodb_buffer_pool_instances"], fl, ver,
                                             cpus=inp.cpus, buffer_pool_bytes=cur)
                        if "innodb_buffer_pool_instances" in v else None)
        inst = buffer_pool_instances(fl, ver, want, inp.cpus, inst_now, inst_default)
        unit = buffer_pool_unit(_num(v, "innodb_buffer_pool_chunk_size"), inst)
        target = max(unit, round_down(want, unit))
        if cur is None or cur < target * 0.9:
            share = "50 %" if inp.limit_bytes <= 4 * GiB else "75 %"
            out.proposals.append(Proposal(
                "innodb_buffer_pool_size", format_cnf_size(target), "sizing.buffer-pool", "sizing", "sizing",
                f"The buffer pool is {format_size(cur) if cur is not None else 'unknown'} with a {format_size(inp.limit_bytes)} "
                f"{inp.limit_label} limit; innodb_dedicated_server's baseline for that memory is {share} "
                f"({format_size(want)}), rounded down to {format_size(target)} (a multiple of chunk × instances, "
                f"{format_size(unit)}), within the memory budget below.", REF_DEDICATED))

    # redo
    if fl in ("mysql", "percona", "mariadb"):
        target = redo_target(inp.redo_bytes_per_hour, inp.purpose, inp.workload, inp.cpus)
        cur_cap = inp.redo_capacity_bytes
        if cur_cap is None or cur_cap < target:
            _, floor_why = redo_floor(inp.purpose, inp.workload, inp.cpus)
            rate = (f"one hour of measured writes is {format_size(inp.redo_bytes_per_hour)} ({inp.redo_basis})"
                    if inp.redo_bytes_per_hour is not None else "no redo write rate was measured")
            files = _num(v, "innodb_log_files_in_group")
            for var, n in redo_settings(fl, ver, target, files).items():
                per = "" if n == target else f" ({format_size(n)} per file)"
                out.proposals.append(Proposal(
                    var, format_cnf_size(n), "sizing.redo-capacity", "sizing", "sizing",
                    f"The redo log holds {format_size(cur_cap) if cur_cap is not None else 'an unknown amount'}; "
                    f"{rate}, and the target is the larger of that and {floor_why}, at most 16 GiB: "
                    f"{format_size(target)}{per}.",
                    REF_REDO if var == "innodb_redo_log_capacity" or fl != "mariadb" else REF_MARIADB_REDO))

    # I/O capacity
    if inp.device_class in (None, "unknown", "virtual"):
        out.skipped.append(("innodb_io_capacity", "innodb_io_capacity: not sized, because the datadir's device class is "
                            + ("unknown" if inp.device_class in (None, "unknown") else "virtual (backing storage not visible)")))
    else:
        pair = io_capacity_for(inp.device_class)
        cur, cur_max = _num(v, "innodb_io_capacity"), _num(v, "innodb_io_capacity_max")
        if pair is not None and cur is not None:
            cap, mx = pair
            wrong = cur < cap or (inp.device_class == "rotational" and cur > cap)
            if wrong:
                why = (f"innodb_io_capacity is {format_number(cur)} with the datadir on {inp.device_class} storage; "
                       f"the manual's guidance for that class gives {format_number(cap)} (max {format_number(mx)}).")
                out.proposals.append(Proposal("innodb_io_capacity", str(cap), "sizing.io-capacity", "sizing", "sizing", why, REF_IO))
                if cur_max is None or cur_max != mx:
                    out.proposals.append(Proposal("innodb_io_capacity_max", str(max(mx, cap)), "sizing.io-capacity",
                                                  "sizing", "sizing", why, REF_IO))

    # connections for a benchmark sweep
    mc = _num(v, "max_connections")
    if inp.workload == "benchmark" and mc is not None:
        want = connections_for_workload(inp.workload, mc)
        if want > mc:
            if inp.limit_bytes is None:
                out.skipped.append(("max_connections", f"max_connections: not raised to {format_number(want)} for a benchmark "
                                    "thread sweep, because the memory limit is unknown and the budget could not be checked"))
            else:
                out.proposals.append(Proposal(
                    "max_connections", str(want), "sizing.benchmark-connections", "sizing", "sizing",
                    f"max_connections is {format_number(mc)}; a benchmark thread sweep commonly goes to 1,024 client "
                    f"threads and a client beyond max_connections fails with 'Too many connections', so "
                    f"{format_number(want)} leaves room for monitoring (the memory budget may lower it).", REF_CONN))

    # log buffer for loads and benchmarks
    lb = _num(v, "innodb_log_buffer_size")
    if lb is not None and inp.workload in ("bulk-load", "benchmark"):
        want = log_buffer_for_workload(inp.workload, lb)
        if want > lb:
            if inp.limit_bytes is None:
                out.skipped.append(("innodb_log_buffer_size", "innodb_log_buffer_size: not raised by sizing, because the memory "
                                    "limit is unknown"))
            else:
                out.proposals.append(Proposal(
                    "innodb_log_buffer_size", format_cnf_size(want), "sizing.log-buffer", "sizing", "sizing",
                    f"innodb_log_buffer_size is {format_size(lb)}; a {inp.workload} workload writes large or many "
                    f"concurrent transactions, and {format_size(want)} is MySQL 8.4's default.", REF_LOG_BUFFER))

    # relaxed durability, only when asked for a benchmark
    if inp.allow_unsafe_durability:
        for var, (val, risk) in DURABILITY_RELAXED.items():
            if knowledge.exists_on(var, fl, ver) is not True:
                continue
            out.proposals.append(Proposal(
                var, val, "durability.relaxed-for-benchmark", "guard", "unsafe",
                f"UNSAFE, asked for with --purpose benchmark --allow-unsafe-durability: with {var} = {val} {risk}; "
                "use it only on a server whose data can be thrown away.", REF_DURABILITY[var]))
    return out
