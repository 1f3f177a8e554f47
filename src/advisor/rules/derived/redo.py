"""Derived facts about the InnoDB redo log: its capacity on this target and what sets it, the variable
to change, how many hours of measured writes it holds, and the capacity the advisor recommends."""

from __future__ import annotations

from typing import Any

from advisor.rules.derived.common import ratio
from advisor.rules.facts import FactSet, FactView, Unknown
from advisor.rules.sizing import datadir_device_bytes, redo_floor, redo_target, round_up
from advisor.units import format_number, format_size
from advisor.versions import Version

FACTS = FactSet()


def _has_redo_capacity_variable(v: FactView) -> bool:
    return v.flavor in ("mysql", "percona") and v.version >= Version(8, 0, 30)


def _legacy(v: FactView) -> tuple[int, int, str]:
    """(bytes, files, description) of innodb_log_file_size × innodb_log_files_in_group; one file on
    MariaDB ≥ 10.5 (a single ib_logfile0)."""
    size = int(v.need_num("var.innodb_log_file_size"))
    if v.flavor == "mariadb" and v.version >= Version(10, 5, 0):
        return size, 1, f"innodb_log_file_size {format_size(size)}, one file"
    files = int(v.num_or("var.innodb_log_files_in_group", 2))  # 2: the default on MySQL and MariaDB < 10.5
    return size * files, files, f"innodb_log_file_size {format_size(size)} × innodb_log_files_in_group {files}"


def _legacy_set(v: FactView) -> bool:
    """Whether innodb_log_file_size or innodb_log_files_in_group differs from its default (on MySQL ≥ 8.0.30
    the manual's test for "defined": then, with innodb_redo_log_capacity not defined, they size the log)."""
    for name in ("innodb_log_file_size", "innodb_log_files_in_group"):
        val = v.get(f"var.{name}")
        if not isinstance(val, Unknown) and v.catalogue.is_default(name, val, v.flavor, v.version) is False:
            return True
    return False


def _redo(v: FactView) -> Any:
    """(capacity bytes, what sets it) on this target, or Unknown."""
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    if not _has_redo_capacity_variable(v):
        size, _, text = _legacy(v)
        return size, text
    cap = v.num("var.innodb_redo_log_capacity")
    resized = v.num("status.Innodb_redo_log_capacity_resized")
    legacy = None if isinstance(v.num("var.innodb_log_file_size"), Unknown) else _legacy(v)
    cap_default = (not isinstance(cap, Unknown)
                   and v.catalogue.is_default("innodb_redo_log_capacity", int(cap), v.flavor, v.version) is True)
    if not isinstance(resized, Unknown) and resized > 0:
        if legacy is not None and int(resized) == legacy[0] and (isinstance(cap, Unknown) or int(cap) != legacy[0]):
            return int(resized), (f"{legacy[2]}, as innodb_redo_log_capacity is not set; "
                                  f"Innodb_redo_log_capacity_resized is {format_size(int(resized))}")
        if not isinstance(cap, Unknown) and int(cap) == int(resized):
            return int(resized), "innodb_redo_log_capacity"
        return int(resized), f"innodb_redo_log_capacity; Innodb_redo_log_capacity_resized is {format_size(int(resized))}"
    if legacy is not None and (isinstance(cap, Unknown) or (cap_default and _legacy_set(v))):
        return legacy[0], f"{legacy[2]}, as innodb_redo_log_capacity is not set"
    if isinstance(cap, Unknown):
        return cap
    return int(cap), "innodb_redo_log_capacity"


@FACTS.define("redo_capacity_bytes", "Total InnoDB redo log capacity. MySQL/Percona ≥ 8.0.30: "
              "Innodb_redo_log_capacity_resized when the status has it, else innodb_redo_log_capacity, except "
              "that when the capacity is at its default and innodb_log_file_size / innodb_log_files_in_group are "
              "set, their product (the manual's rule when the capacity is not defined); before 8.0.30 "
              "innodb_log_file_size × innodb_log_files_in_group; innodb_log_file_size alone on MariaDB ≥ 10.5 "
              "(one ib_logfile0).", unit="bytes")
def redo_capacity_bytes(v: FactView) -> Any:
    r = v.memo("_redo", lambda: _redo(v))
    return r if isinstance(r, Unknown) else r[0]


@FACTS.define("redo_sized_by", "What sets the redo capacity on this target, for messages: "
              "'innodb_log_file_size 64 MiB × innodb_log_files_in_group 2', 'innodb_redo_log_capacity', or the "
              "legacy pair when innodb_redo_log_capacity is not set on MySQL ≥ 8.0.30.")
def redo_sized_by(v: FactView) -> Any:
    r = v.memo("_redo", lambda: _redo(v))
    return r if isinstance(r, Unknown) else r[1]


@FACTS.define("redo_variable", "The variable to change to resize the redo log on this target: "
              "innodb_redo_log_capacity (MySQL/Percona ≥ 8.0.30) or innodb_log_file_size.")
def redo_variable(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    return "innodb_redo_log_capacity" if _has_redo_capacity_variable(v) else "innodb_log_file_size"


@FACTS.define("redo_resize_how", "How the redo log is resized on this target (dynamic or at a restart), as a "
              "sentence for a fix, with the recommended size where the statement takes it.")
def redo_resize_how(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    target = v.get("derived.redo_target_bytes")
    value = "the new size" if isinstance(target, Unknown) else str(int(target))
    if _has_redo_capacity_variable(v):
        drop = ("; drop innodb_log_file_size and innodb_log_files_in_group from the option file, which it supersedes"
                if _legacy_set(v) else "")
        return (f"innodb_redo_log_capacity is dynamic: SET PERSIST innodb_redo_log_capacity = {value} resizes it "
                f"at once and keeps it across restarts{drop}")
    if v.flavor == "mariadb" and v.version >= Version(10, 9, 0):
        return (f"innodb_log_file_size is dynamic on MariaDB ≥ 10.9: SET GLOBAL innodb_log_file_size = {value}, "
                "and the same in the option file")
    if v.flavor == "mariadb" and v.version >= Version(10, 5, 0):
        return "set innodb_log_file_size in the option file and restart; the single ib_logfile0 is recreated at that size"
    return ("set innodb_log_file_size in the option file and restart after a clean shutdown "
            "(innodb_fast_shutdown 0 or 1, not 2); InnoDB recreates the log files at the new size")


@FACTS.define("redo_bytes_per_hour", "Redo written per hour: rate of Innodb_os_log_written × 3600 "
              "(over the sampled interval when there is one, else since server start).", unit="bytes")
def redo_bytes_per_hour(v: FactView) -> Any:
    return float(v.need("rate.Innodb_os_log_written")) * 3600.0


@FACTS.define("redo_hours_of_writes", "How many hours of the measured redo write rate the redo log holds.", unit="h")
def redo_hours_of_writes(v: FactView) -> Any:
    return ratio(v.get("derived.redo_capacity_bytes"), v.get("derived.redo_bytes_per_hour"),
                 "no redo writes measured yet (Innodb_os_log_written rate is 0)")


def _target(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    cpus = v.known("host.cpu.logical_count")
    floor = redo_floor(v.purpose, None, int(cpus) if cpus is not None else None)
    pool = v.num("var.innodb_buffer_pool_size")
    limit = v.known("derived.memory_limit_bytes")
    return redo_target(v.known("derived.redo_bytes_per_hour"), floor,
                       pool_bytes=None if isinstance(pool, Unknown) else int(pool),
                       memory_bytes=None if limit is None else int(limit),
                       disk_bytes=datadir_device_bytes(v.snapshot.host))



@FACTS.define("redo_target_bytes", "The total redo capacity the advisor recommends (advisor.rules.sizing.redo_target): "
              "one hour of measured writes, at most what the buffer pool can hold dirty, at least the floor for the "
              "purpose, at most 16 GiB and a tenth of the datadir's device.", unit="bytes")
def redo_target_bytes(v: FactView) -> Any:
    t = v.memo("_redo_target", lambda: _target(v))
    return t if isinstance(t, Unknown) else t[0]


@FACTS.define("redo_target_reason", "Why the recommended redo capacity is what it is, in words that match the "
              "numbers (one hour of writes, the floor, or a cap).")
def redo_target_reason(v: FactView) -> Any:
    t = v.memo("_redo_target", lambda: _target(v))
    return t if isinstance(t, Unknown) else t[1]


@FACTS.define("redo_target_layout", "The recommended redo capacity as the target's variables make it up: "
              "'2 GiB of redo' or 'innodb_log_file_size 512 MiB × 2 files (innodb_log_files_in_group) = 1 GiB in all'.")
def redo_target_layout(v: FactView) -> Any:
    total = int(v.need("derived.redo_target_bytes"))
    if _has_redo_capacity_variable(v):
        return f"{format_size(total)} of redo"
    files = 1 if v.flavor == "mariadb" and v.version >= Version(10, 5, 0) else \
        max(2, int(v.num_or("var.innodb_log_files_in_group", 2)))
    if files == 1:
        return f"{format_size(total)} of redo in one file"
    per = round_up(total / files, 64 << 20)
    return (f"{format_size(per)} × {format_number(files)} files (innodb_log_files_in_group) = "
            f"{format_size(per * files)} of redo")
