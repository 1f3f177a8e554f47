"""What sysbench accepts, as data: its options per era (1.0.x and 1.1/master) with types and defaults,
its built-in tests and bundled Lua scripts with their commands, and the size of the sbtest tables it
creates. Read from sysbench's sources and checked against the installed 1.0.20 (see
advisor.sysbench.command for the behaviour the parser reproduces). Pure data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, Optional

MASK = "***"

# ---------------------------------------------------------------- option catalogue

OptType = Literal["int", "number", "bool", "string", "list", "size", "double", "ssl", "file"]
Era = Literal["1.0", "1.1"]
BOTH: tuple[Era, ...] = ("1.0", "1.1")
ONLY_10: tuple[Era, ...] = ("1.0",)
ONLY_11: tuple[Era, ...] = ("1.1",)


@dataclass(frozen=True)
class OptSpec:
    name: str
    type: OptType
    default: Any = None
    eras: tuple[Era, ...] = BOTH
    scope: str = "general"  # general | rand | log | db | mysql | pgsql | oltp | <script name>
    alias_of: Optional[str] = None
    choices: tuple[str, ...] = ()

    @property
    def secret(self) -> bool:
        return is_secret_name(self.name)


_SECRET_NAME = re.compile(r"pass|pa?s+w|pwd|secret|token|credential", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """Names whose value is never shown: passwords and their misspellings (--mysql-pasword), tokens."""
    return bool(_SECRET_NAME.search(name))


def opt_spec(name: str, type_: OptType, default: Any = None, eras: tuple[Era, ...] = BOTH, scope: str = "general",
       alias_of: Optional[str] = None, choices: tuple[str, ...] = ()) -> OptSpec:
    return OptSpec(name, type_, default, eras, scope, alias_of, choices)


# Defaults are those of sysbench 1.0.20; where 1.1 differs, DEFAULTS_11 says so.
CORE_SPECS: list[OptSpec] = [
    # general (src/sysbench.c general_args)
    opt_spec("threads", "int", 1), opt_spec("events", "int", 0), opt_spec("time", "int", 10),
    opt_spec("warmup-time", "int", 0, ONLY_11), opt_spec("forced-shutdown", "string", "off"),
    opt_spec("thread-stack-size", "size", "64K"), opt_spec("thread-init-timeout", "int", 30, ONLY_11),
    opt_spec("rate", "int", 0), opt_spec("report-interval", "int", 0), opt_spec("report-checkpoints", "list", ""),
    opt_spec("debug", "bool", False), opt_spec("validate", "bool", False), opt_spec("help", "bool", False),
    opt_spec("version", "bool", False), opt_spec("config-file", "file"), opt_spec("luajit-cmd", "string", None, ONLY_11),
    opt_spec("tx-rate", "int", 0, ONLY_10, alias_of="rate"), opt_spec("max-requests", "int", 0, ONLY_10, alias_of="events"),
    opt_spec("max-time", "int", 0, ONLY_10, alias_of="time"), opt_spec("num-threads", "int", 1, ONLY_10, alias_of="threads"),
    # random numbers (src/sb_rand.c rand_args)
    opt_spec("rand-type", "string", "special", scope="rand",
       choices=("uniform", "gaussian", "special", "pareto", "zipfian")),
    opt_spec("rand-spec-iter", "int", 12, scope="rand"), opt_spec("rand-spec-pct", "int", 1, scope="rand"),
    opt_spec("rand-spec-res", "int", 75, scope="rand"), opt_spec("rand-seed", "int", 0, scope="rand"),
    opt_spec("rand-pareto-h", "double", 0.2, scope="rand"), opt_spec("rand-zipfian-exp", "double", 0.8, ONLY_11, scope="rand"),
    # log
    opt_spec("verbosity", "int", 3, scope="log"), opt_spec("percentile", "int", 95, scope="log"),
    opt_spec("histogram", "bool", False, scope="log"),
    # database (src/db_driver.c)
    opt_spec("db-driver", "string", "mysql", scope="db"), opt_spec("db-ps-mode", "string", "auto", scope="db",
                                                       choices=("auto", "disable")),
    opt_spec("db-debug", "bool", False, scope="db"),
    # MySQL driver (src/drivers/mysql/drv_mysql.c)
    opt_spec("mysql-host", "list", "localhost", scope="mysql"), opt_spec("mysql-port", "list", "3306", scope="mysql"),
    opt_spec("mysql-socket", "list", None, scope="mysql"), opt_spec("mysql-user", "string", "sbtest", scope="mysql"),
    opt_spec("mysql-password", "string", "", scope="mysql"), opt_spec("mysql-db", "string", "sbtest", scope="mysql"),
    opt_spec("mysql-ssl", "ssl", "off", scope="mysql"), opt_spec("mysql-ssl-cipher", "string", "", scope="mysql"),
    opt_spec("mysql-ssl-key", "string", None, ONLY_11, scope="mysql"),
    opt_spec("mysql-ssl-ca", "string", None, ONLY_11, scope="mysql"),
    opt_spec("mysql-ssl-cert", "string", None, ONLY_11, scope="mysql"),
    opt_spec("mysql-compression", "bool", False, scope="mysql"),
    opt_spec("mysql-compression-algorithms", "string", "zlib", ONLY_11, scope="mysql"),
    opt_spec("mysql-debug", "bool", False, scope="mysql"), opt_spec("mysql-ignore-errors", "list", "1213,1020,1205", scope="mysql"),
    opt_spec("mysql-dry-run", "bool", False, scope="mysql"),
    # PostgreSQL driver
    opt_spec("pgsql-host", "string", "localhost", scope="pgsql"), opt_spec("pgsql-port", "int", 5432, scope="pgsql"),
    opt_spec("pgsql-user", "string", "sbtest", scope="pgsql"), opt_spec("pgsql-password", "string", "", scope="pgsql"),
    opt_spec("pgsql-db", "string", "sbtest", scope="pgsql"),
]

# oltp_common.lua option_defs (1.0.20 as installed; master adds a few, marked 1.1)
OLTP_SPECS: list[OptSpec] = [
    opt_spec("table-size", "number", 10000, scope="oltp"), opt_spec("range-size", "number", 100, scope="oltp"),
    opt_spec("tables", "number", 1, scope="oltp"), opt_spec("point-selects", "number", 10, scope="oltp"),
    opt_spec("simple-ranges", "number", 1, scope="oltp"), opt_spec("sum-ranges", "number", 1, scope="oltp"),
    opt_spec("order-ranges", "number", 1, scope="oltp"), opt_spec("distinct-ranges", "number", 1, scope="oltp"),
    opt_spec("index-updates", "number", 1, scope="oltp"), opt_spec("non-index-updates", "number", 1, scope="oltp"),
    opt_spec("delete-inserts", "number", 1, scope="oltp"), opt_spec("range-selects", "bool", True, scope="oltp"),
    opt_spec("auto-inc", "bool", True, scope="oltp"), opt_spec("skip-trx", "bool", False, scope="oltp"),
    opt_spec("secondary", "bool", False, scope="oltp"), opt_spec("create-secondary", "bool", True, scope="oltp"),
    opt_spec("mysql-storage-engine", "string", "innodb", scope="oltp"), opt_spec("pgsql-variant", "string", None, scope="oltp"),
    opt_spec("reconnect", "number", 0, ONLY_11, scope="oltp"),
    opt_spec("create-table-options", "string", "", ONLY_11, scope="oltp"),
]
SCRIPT_EXTRA_OPTIONS: dict[str, list[OptSpec]] = {
    "select_random_points": [opt_spec("random-points", "number", 10, scope="select_random_points")],
    "select_random_ranges": [opt_spec("number-of-ranges", "number", 10, scope="select_random_ranges"),
                             opt_spec("delta", "number", 5, scope="select_random_ranges")],
}
DEFAULTS_11: dict[str, Any] = {"rand-type": "uniform", "mysql-ssl": "disabled"}

CORE_OPTIONS = {o.name: o for o in CORE_SPECS}
OLTP_OPTIONS = {o.name: o for o in OLTP_SPECS}
ALL_OPTIONS: dict[str, OptSpec] = {**CORE_OPTIONS, **OLTP_OPTIONS,
                                   **{o.name: o for opts in SCRIPT_EXTRA_OPTIONS.values() for o in opts}}

# ---------------------------------------------------------------- tests and commands

BUILTIN_TESTS = ("fileio", "cpu", "memory", "threads", "mutex")
# Bundled Lua scripts (/usr/share/sysbench in 1.0.20 and master): name -> (uses the sbtest tables, writes)
LUA_SCRIPTS: dict[str, tuple[bool, bool]] = {
    "oltp_common": (True, True),  # prepare/cleanup only (the TiDB report prepares with it)
    "oltp_read_write": (True, True),
    "oltp_read_only": (True, False),
    "oltp_point_select": (True, False),
    "oltp_write_only": (True, True),
    "oltp_update_index": (True, True),
    "oltp_update_non_index": (True, True),
    "oltp_insert": (True, True),
    "oltp_delete": (True, True),
    "select_random_points": (True, False),
    "select_random_ranges": (True, False),
    "bulk_insert": (False, True),
}
OLTP_COMMANDS_10 = ("prepare", "prewarm", "run", "cleanup", "help")
OLTP_COMMANDS_11 = ("warmup",)
BUILTIN_COMMANDS = {"fileio": ("prepare", "run", "cleanup", "help"), "cpu": ("run", "help"),
                    "memory": ("run", "help"), "threads": ("run", "help"), "mutex": ("run", "help")}
DB_COMMANDS = ("prepare", "prewarm", "warmup", "run", "cleanup")


SSL_MODES_11 = ("disabled", "preferred", "required", "verify_ca", "verify_identity")


# ---------------------------------------------------------------- the sbtest tables

# Bytes per sbtest row in InnoDB, data + indexes, measured here (docs/checklist.md, "Row size"):
# sysbench 1.0.20 `oltp_read_write --tables=1 --table-size=1000000 prepare` on MariaDB 10.11.19 (16 KiB
# pages, DYNAMIC rows), then ANALYZE TABLE: data_length 225,132,544 + index_length 16,269,312 bytes
# = 241.4 B/row (100,000 rows: 241.8). Derivation: 5 B record header + 6 B DB_TRX_ID + 7 B DB_ROLL_PTR +
# 4 B id + 4 B k + 120 B c + 60 B pad = 206 B; 73 rows per 16 KiB leaf page (InnoDB leaves 1/16 free
# when it fills pages in key order) -> 224.5 B/row in the clustered index; the secondary index k
# (k + id + header, built sorted by CREATE INDEX after the load) adds 16.3 B/row.
SBTEST_ROW_BYTES = 241
SBTEST_K_INDEX_BYTES = 16


def dataset_bytes(tables: int, table_size: int, secondary: bool = True) -> int:
    """Estimated InnoDB bytes (data + indexes) of `tables` sbtest tables of `table_size` rows."""
    per_row = SBTEST_ROW_BYTES if secondary else SBTEST_ROW_BYTES - SBTEST_K_INDEX_BYTES
    return tables * table_size * per_row
