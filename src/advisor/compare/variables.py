"""Server variables side by side: which differ, whether each side is at its own compiled-in default
(the variable catalogue, advisor.knowledge), and what kind of difference that makes. Pure.

- the values differ and at least one side set its own: a configuration difference;
- every side is at its own default and the defaults differ: a *differing default*, which comes with
  the version (or flavor), or with the host when the default is sized from CPUs or memory;
- the variable exists on some sides only: listed once per comparison, with the names.
Names that identify a server or a path (hostname, server_uuid, datadir, log file names) differ on
every pair of servers and cannot change a result; they are harmless."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.knowledge.values import normalise
from advisor.snapshot import Snapshot
from advisor.units import to_number


@dataclass(frozen=True)
class Known:
    group: str
    aspects: tuple[str, ...]
    weight: int
    why: str
    fix: str = ""     # when setting the variable is not how to align it


_DUR = ("config", "durability")
_BIN = ("config", "binlog")
_MEM = ("config", "memory")
_TLS = ("config", "tls")
_TIDB = ("config", "tidb")
_CFG = ("config",)

KNOWN: dict[str, Known] = {
    "innodb_flush_log_at_trx_commit": Known("durability", _DUR, 95, "1 flushes the redo log at every commit; 0 and 2 "
                                            "flush about once a second, so commits stop waiting for the disk"),
    "sync_binlog": Known("durability", _DUR, 90, "1 flushes the binary log at every commit group; 0 leaves it to the "
                         "OS, N to every Nth group"),
    "innodb_doublewrite": Known("durability", _DUR, 80, "the doublewrite buffer writes every flushed page twice"),
    "innodb_flush_method": Known("durability", _DUR, 70, "O_DIRECT bypasses the OS page cache for data files; fsync "
                                 "double-buffers them"),
    "innodb_flush_log_at_timeout": Known("durability", _DUR, 35, "how often relaxed durability flushes the redo log"),
    "log_bin": Known("binlog", _BIN, 85, "the binary log adds a write, and with sync_binlog = 1 a flush, to every "
                     "commit"),
    "binlog_format": Known("binlog", _BIN, 45, "ROW logs every changed row; STATEMENT logs the statement"),
    "binlog_row_image": Known("binlog", _BIN, 35, "FULL logs whole rows, MINIMAL only the changed columns"),
    "binlog_transaction_compression": Known("binlog", _BIN, 30, "compressing the binary log costs CPU at commit"),
    "innodb_buffer_pool_size": Known("memory", _MEM, 88, "the buffer pool decides how much of the data is read from "
                                     "memory"),
    "innodb_buffer_pool_instances": Known("memory", _MEM, 35, "buffer pool instances split its mutexes"),
    "innodb_log_file_size": Known("variables", _DUR, 75, "a small redo log forces early checkpoints and page flushes "
                                  "under writes"),
    "innodb_redo_log_capacity": Known("variables", _DUR, 75, "a small redo log forces early checkpoints and page "
                                      "flushes under writes"),
    "innodb_log_files_in_group": Known("variables", _DUR, 60, "with innodb_log_file_size it sets the redo capacity"),
    "innodb_log_buffer_size": Known("variables", _CFG, 40, "a small log buffer makes large transactions write early"),
    "require_secure_transport": Known("tls", _TLS, 60, "forces every client onto TLS"),
    "have_ssl": Known("tls", _TLS, 55, "whether the server can accept TLS at all",
                      fix="give every server a certificate and key (ssl_cert, ssl_key), or none of them"),
    "tls_version": Known("tls", _TLS, 30, "the TLS protocol versions the server accepts"),
    "ssl_cipher": Known("tls", _TLS, 30, "the ciphers the server accepts"),
    "transaction_isolation": Known("variables", _CFG, 70, "isolation levels take different locks and read views"),
    "tx_isolation": Known("variables", _CFG, 70, "isolation levels take different locks and read views"),
    "autocommit": Known("variables", _CFG, 60, "without autocommit statements wait in open transactions"),
    "thread_handling": Known("variables", _CFG, 70, "a thread pool and one thread per connection scale differently"),
    "thread_pool_size": Known("variables", _CFG, 45, "the thread pool's group count limits concurrent execution"),
    "performance_schema": Known("variables", _CFG, 60, "the Performance Schema costs 1–10 % of throughput "
                                "(KNOWLEDGE.md §7)"),
    "query_cache_type": Known("variables", _CFG, 60, "the query cache serialises on one mutex under writes"),
    "query_cache_size": Known("variables", _CFG, 50, "the query cache serialises on one mutex under writes"),
    "general_log": Known("variables", _CFG, 60, "the general log writes every statement"),
    "slow_query_log": Known("variables", _CFG, 30, "the slow log writes the statements over long_query_time"),
    "long_query_time": Known("variables", _CFG, 35, "with the slow log on, 0 writes every statement"),
    "innodb_io_capacity": Known("variables", _CFG, 55, "sets how fast InnoDB flushes dirty pages in the background"),
    "innodb_io_capacity_max": Known("variables", _CFG, 45, "caps InnoDB's flushing when it falls behind"),
    "innodb_thread_concurrency": Known("variables", _CFG, 55, "limits threads inside InnoDB"),
    "innodb_adaptive_hash_index": Known("variables", _CFG, 50, "the adaptive hash index speeds lookups and can "
                                        "become a point of contention"),
    "innodb_change_buffering": Known("variables", _CFG, 40, "the change buffer defers secondary-index writes"),
    "innodb_flush_neighbors": Known("variables", _CFG, 40, "flushing neighbouring pages helps disks, costs on flash"),
    "sort_buffer_size": Known("variables", _CFG, 45, "every sort allocates it; large values cost an mmap per sort"),
    "join_buffer_size": Known("variables", _CFG, 35, "every join without an index allocates it"),
    "max_connections": Known("variables", _CFG, 40, "a benchmark with more threads than max_connections fails"),
    "table_open_cache": Known("variables", _CFG, 30, "a small table cache reopens tables"),
    "default_storage_engine": Known("variables", _CFG, 70, "tables created without ENGINE land in another engine"),
    "character_set_server": Known("variables", _CFG, 35, "multi-byte character sets make rows and sorts larger"),
    "collation_server": Known("variables", _CFG, 35, "collations differ in comparison cost"),
    "tidb_enable_async_commit": Known("tidb", _TIDB, 85, "async commit returns before the second commit phase"),
    "tidb_enable_1pc": Known("tidb", _TIDB, 80, "one-phase commit skips a phase for single-Region transactions"),
    "tidb_guarantee_linearizability": Known("tidb", _TIDB, 75, "OFF skips a PD timestamp fetch per async commit"),
    "tidb_enable_clustered_index": Known("tidb", _TIDB, 70, "clustered tables store rows by primary key; it decides "
                                         "the layout of tables created afterwards"),
    "tidb_txn_mode": Known("tidb", _TIDB, 80, "pessimistic and optimistic transactions lock and retry differently"),
    "tidb_disable_txn_auto_retry": Known("tidb", _TIDB, 40, "whether optimistic transactions retry on conflict"),
    "tidb_hashagg_final_concurrency": Known("tidb", _TIDB, 50, "the concurrency of hash aggregation's final phase"),
    "tidb_hashagg_partial_concurrency": Known("tidb", _TIDB, 50, "the concurrency of hash aggregation's partial "
                                              "phase"),
    "tidb_enable_prepared_plan_cache": Known("tidb", _TIDB, 75, "the plan cache skips planning of prepared "
                                             "statements"),
    "tidb_prepared_plan_cache_size": Known("tidb", _TIDB, 40, "how many plans the plan cache keeps"),
    "tidb_executor_concurrency": Known("tidb", _TIDB, 45, "the concurrency of executors"),
    "tidb_distsql_scan_concurrency": Known("tidb", _TIDB, 45, "the concurrency of coprocessor scans"),
    "tidb_analyze_version": Known("tidb", _TIDB, 45, "statistics version 1 and 2 give the optimizer different "
                                  "estimates"),
    "tidb_stmt_summary_max_stmt_count": Known("tidb", _TIDB, 15, "how many statement kinds the statement summary "
                                              "keeps in memory"),
    "tidb_general_log": Known("tidb", _TIDB, 60, "the general log writes every statement"),
}

# Identity and paths: they differ between any two servers and change no result.
IDENTITY = frozenset((
    "hostname", "server_uuid", "server_uid", "server_id", "port", "socket", "pid_file", "datadir", "basedir", "tmpdir",
    "log_error", "general_log_file", "slow_query_log_file", "log_bin_basename", "log_bin_index", "relay_log",
    "relay_log_basename", "relay_log_index", "relay_log_info_file", "report_host", "report_port", "gtid_executed",
    "gtid_purged", "innodb_data_home_dir", "innodb_log_group_home_dir", "innodb_undo_directory", "secure_file_priv",
    "character_sets_dir", "plugin_dir", "lc_messages_dir", "innodb_buffer_pool_filename", "ssl_ca", "ssl_capath",
    "ssl_cert", "ssl_key", "ssl_crl", "ssl_crlpath", "system_time_zone", "timestamp", "pseudo_thread_id",
    "mysqlx_port", "mysqlx_socket", "admin_address", "admin_port", "bind_address", "mysqlx_bind_address",
    "wsrep_node_name", "wsrep_node_address",
    "innodb_tmpdir", "slave_load_tmpdir", "replica_load_tmpdir", "license", "lower_case_file_system",
    "large_files_support", "persisted_globals_load", "socket_mode",
))
# What follows from the version itself (the version difference is reported once, as target.version).
VERSION_TEXT = re.compile(r"^(version|version_comment|version_compile_\w+|version_source_revision|innodb_version|"
                          r"protocol_version|tidb_.*_version_text)$")
HARMLESS_PATTERN = re.compile(r"(_dir|_file|_path)$")
# Read-only or derived: set by the build, the version or the server itself, never by SET or my.cnf,
# so no fix can name a value for them (have_ssl follows from certificates: it keeps its own fix).
READ_ONLY = re.compile(r"^(have_(?!ssl$|openssl$)\w+|build_id|character_set_system|version_\w+|lower_case_file_system|"
                       r"large_files_support|license|protocol_version|hostname|server_uuid|pid_file)$")
# Names that look like paths but size or shape something.
NOT_IDENTITY = frozenset(("innodb_data_file_path", "innodb_temp_data_file_path"))


@dataclass
class VarDiff:
    name: str
    values: list[Optional[str]]
    defaults: list[Optional[str]]
    at_default: list[Optional[bool]]
    kind: str                     # differs | default_differs
    sized_by_host: bool = False
    noop_everywhere: bool = False


def identity(name: str) -> bool:
    return name in IDENTITY or (name not in NOT_IDENTITY and bool(HARMLESS_PATTERN.search(name)))


def read_only(name: str) -> bool:
    return bool(READ_ONLY.match(name)) or identity(name)


def _lower_bound(text: str) -> Optional[str]:
    m = re.search(r">=\s*([0-9][0-9.]*)", text)
    return m.group(1) if m else None


def default_changed_in(cat: VariableCatalogue, name: str, flavor: str, older: str, newer: str) -> Optional[str]:
    """The release of `flavor` in which the compiled-in default of `name` became the one `newer`
    has, searched between `older` (exclusive) and `newer`: the earliest catalogued range start from
    which the default stays the newer one. None when the catalogue cannot say."""
    from advisor.versions import Version

    var = cat.get(name)
    want = cat.default_for(name, flavor, newer)
    if var is None or want is None:
        return None
    lo, hi = Version.parse(older), Version.parse(newer)
    bounds = {_lower_bound(str(e.range)) for e in var.versions if flavor in e.flavors}
    starts = sorted((b for b in bounds if b is not None), key=lambda x: Version.parse(x).as_tuple())
    cands = [b for b in starts if lo.as_tuple() < Version.parse(b).as_tuple() <= hi.as_tuple()]
    found = None
    for b in reversed(cands):
        d = cat.default_for(name, flavor, b)
        if d is None or normalise(d, var.unit) != normalise(want, var.unit):
            break
        found = b
    return found


def same(a: Optional[str], b: Optional[str], unit: Optional[str]) -> bool:
    if a is None or b is None:
        return a is b
    if unit is not None:
        na, nb = normalise(a, unit), normalise(b, unit)
        if na is not None and nb is not None:
            return abs(na - nb) < 1e-9 if isinstance(na, float) and isinstance(nb, float) else na == nb
    x, y = to_number(a), to_number(b)
    if x is not None and y is not None:
        return float(x) == float(y)
    return a.strip().lower() == b.strip().lower()


def _inputs(s: Snapshot) -> dict[str, Any]:
    h = s.host
    pool = to_number({k.lower(): v for k, v in s.server.variables.items()}.get("innodb_buffer_pool_size"))
    return {"cpus": h.cpu.logical_count if h else None,
            "ram_bytes": (h.memory.effective_limit_bytes or h.memory.total_bytes) if h else None,
            "buffer_pool_bytes": int(pool) if pool is not None else None}


def compare_variables(snaps: Sequence[Snapshot], cat: VariableCatalogue) -> tuple[list[VarDiff], list[set[str]]]:
    """The variables whose values differ, and per side the names only some sides have."""
    lowered = [{k.lower(): v for k, v in s.server.variables.items()} for s in snaps]
    names = sorted(set().union(*lowered))
    inputs = [_inputs(s) for s in snaps]
    out: list[VarDiff] = []
    only: list[set[str]] = [set() for _ in snaps]
    for name in names:
        if VERSION_TEXT.match(name):
            continue
        values = [v.get(name) for v in lowered]
        if any(x is None for x in values):
            for i, x in enumerate(values):
                if x is not None:
                    only[i].add(name)
            continue
        unit = cat.unit(name)
        if all(same(values[0], x, unit) for x in values[1:]):
            continue
        out.append(_diff(name, values, snaps, inputs, cat))
    return out, only


def _diff(name: str, values: list[Optional[str]], snaps: Sequence[Snapshot], inputs: list[dict[str, Any]],
          cat: VariableCatalogue) -> VarDiff:
    defaults, at_default, formula, noop = [], [], False, True
    for s, value, inp in zip(snaps, values, inputs):
        t = s.target
        spec = cat.info(name, t.flavor, t.version)
        defaults.append(cat.default_for(name, t.flavor, t.version, **inp))
        at_default.append(cat.is_default(name, value, t.flavor, t.version, **inp))
        formula = formula or (spec is not None and spec.default_formula is not None)
        noop = noop and spec is not None and spec.noop
    unit = cat.unit(name)
    differing_defaults = (all(a is True for a in at_default)
                          and not all(same(defaults[0], d, unit) for d in defaults[1:]))
    return VarDiff(name, list(values), defaults, at_default, "default_differs" if differing_defaults else "differs",
                   sized_by_host=differing_defaults and formula, noop_everywhere=noop)
