"""Derived facts about the InnoDB redo log: its capacity on this target, the variable that sizes it,
and how many hours of measured writes it holds."""

from __future__ import annotations

from typing import Any

from advisor.rules.derived.common import ratio
from advisor.rules.facts import FactSet, FactView, Unknown
from advisor.versions import Version

FACTS = FactSet()


def _has_redo_capacity_variable(v: FactView) -> bool:
    return v.flavor in ("mysql", "percona") and v.version >= Version(8, 0, 30)


@FACTS.define("redo_capacity_bytes", "Total InnoDB redo log capacity: innodb_redo_log_capacity on MySQL/Percona "
              "≥ 8.0.30; innodb_log_file_size × innodb_log_files_in_group before; innodb_log_file_size alone on "
              "MariaDB ≥ 10.5 (one ib_logfile0).", unit="bytes")
def redo_capacity_bytes(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    if _has_redo_capacity_variable(v):
        cap = v.num("var.innodb_redo_log_capacity")
        if not isinstance(cap, Unknown):
            return int(cap)
    size = v.need_num("var.innodb_log_file_size")
    if v.flavor == "mariadb" and v.version >= Version(10, 5, 0):
        return int(size)
    files = v.num_or("var.innodb_log_files_in_group", 2)  # 2: the default on MySQL < 8.0.30 and MariaDB < 10.5
    return int(size) * int(files)


@FACTS.define("redo_variable", "The variable that sizes the redo log on this target: innodb_redo_log_capacity "
              "(MySQL/Percona ≥ 8.0.30) or innodb_log_file_size.")
def redo_variable(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    return "innodb_redo_log_capacity" if _has_redo_capacity_variable(v) else "innodb_log_file_size"


@FACTS.define("redo_bytes_per_hour", "Redo written per hour: rate of Innodb_os_log_written × 3600 "
              "(over the sampled interval when there is one, else since server start).", unit="bytes")
def redo_bytes_per_hour(v: FactView) -> Any:
    return float(v.need("rate.Innodb_os_log_written")) * 3600.0


@FACTS.define("redo_hours_of_writes", "How many hours of the measured redo write rate the redo log holds.", unit="h")
def redo_hours_of_writes(v: FactView) -> Any:
    return ratio(v.get("derived.redo_capacity_bytes"), v.get("derived.redo_bytes_per_hour"),
                 "no redo writes measured yet (Innodb_os_log_written rate is 0)")
