"""Rebuild the generated variable catalogue from the saved source extracts (offline, reproducible).

    .venv/bin/python -m tools.catalogue.build           # write src/advisor/knowledge/generated-*.json
    .venv/bin/python -m tools.catalogue.build --check   # exit 1 when the committed files are stale

Inputs (tools/catalogue/sources/, provenance in PROVENANCE.md there):
  MariaDB 10.11.19  mariadb-10.11.19-system-variables.json   information_schema.SYSTEM_VARIABLES, recorded
                    mariadb-10.11.19-help-variables.tsv       mariadbd --no-defaults --verbose --help
  MariaDB 10.4.12   mariadb-10.4.12-system-variables.tsv      sysvars_*.result + mysqld--help.result of a tree
  MariaDB 10.6, 11.4 mariadb-1*-snapshot-help-variables.tsv   mysqld--help.result of source snapshots (bracketed)
                    mariadb-1*-docs-innodb-variables.tsv      InnoDB defaults per release, MariaDB docs page
  MySQL 5.6 / 5.7,  mysql-5.*-*.tsv, percona-5.7.22-*.tsv     help result, sys_vars.cc, ha_innodb.cc of trees
  Percona 5.7.22
  MySQL 8.0.41      mysql-8.0.41-help-options.tsv             mysqld--help-notwin.result (server options)
                    mysql-8.0.41-innodb-sysvars.tsv           ha_innodb.cc (InnoDB variables)
  MySQL 8.0 / 8.4   mysql-8.0-refman-added-deprecated-removed.tsv, mysql-8.4-refman-added-deprecated-removed.tsv
                    mysql-8.4-refman-system-variable-reference.tsv (scope, dynamic of every 8.4 variable)
  Percona Server    tests/fixtures/flavors/percona-8.0 and mysql-8.4 variables.json (names present: coverage)
  hand-reviewed     units.tsv (numeric units), mysql-types.tsv (types of MySQL-only variables),
                    mysql-renames.tsv (replaced_by; renames), mysql-default-corrections.tsv (defaults the
                    help result does not show as a server prints them), excluded.tsv (rows of the sources
                    that are not server or InnoDB variables, with the reason)

Output: one JSON per flavor family, each variable shaped like a variables.toml table (validated with
advisor.knowledge.schema.VariableFile before it is written), sources as keys into a per-file table.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[2]
SOURCES = Path(__file__).resolve().parent / "sources"
OUT = ROOT / "src" / "advisor" / "knowledge"

MARIADB_RANGE = ">=10.11.0,<10.12"
MYSQL_COVERAGE = ">=8.0.0,<8.5"
MYSQL_DEFAULTS = ">=8.0.41,<8.1"  # the help result and ha_innodb.cc are 8.0.41: defaults are claimed there only
OLD_MYSQL = ("5.6.29", "5.7.22", "5.7.41")
MID_MYSQL80 = ("8.0.27", "8.0.32")  # 8.0 trees read for second sightings of 8.0 defaults (help table, InnoDB)  # MySQL source trees read for 5.6 and 5.7 (sources/PROVENANCE.md)
MARIADB_104 = ">=10.4.12,<10.5"  # the 10.4.12 mysql-test results: existence and defaults there
MARIADB_BETWEEN = ">=10.5.0,<10.11.0"  # no source read: a variable 10.4.12 and 10.11.19 both have existed in between
MARIADB_BOTH = ">=10.4.12,<10.5 || >=10.11.0,<10.12"  # a variable one of the two has: known there, not in between
# mysql-test/main/mysqld--help.result of two MariaDB source snapshots whose release is bracketed, not pinned
# (sources/PROVENANCE.md): (label, first release it can be, first release it cannot be)
MDB_SNAPSHOTS = {"10.6": ("10.6-snapshot", (10, 6, 1), (10, 6, 13)), "11.4": ("11.4-snapshot", (11, 4, 4), (11, 4, 8))}
PERCONA57 = "5.7.22"  # the Percona Server 5.7 tree read (5.7.22-22)
# What the 10.4.12 results leave out (their WHERE clauses): not seen there does not mean absent.
_MDB104_UNSEEN_PREFIX = ("debug", "wsrep", "s3_")
_MDB104_UNSEEN = {"log_tc_size", "innodb_version", "innodb_disallow_writes", "innodb_numa_interleave",
                  "innodb_sched_priority_cleaner", "innodb_evict_tables_on_commit_debug", "innodb_use_native_aio",
                  "innodb_buffer_pool_load_pages_abort"}

URL = {
    "mdb-is": "https://mariadb.com/kb/en/information-schema-system_variables-table/",
    "mysql-help": "https://github.com/enhancedformysql/mysql-8.0.41/blob/1b44651a2b50a7387fe7abcda2773cd4ad2d4672/mysql-test/r/mysqld--help-notwin.result",
    "mysql-innodb": "https://github.com/enhancedformysql/mysql-8.0.41/blob/1b44651a2b50a7387fe7abcda2773cd4ad2d4672/storage/innobase/handler/ha_innodb.cc",
    "refman80-life": "https://dev.mysql.com/doc/refman/8.0/en/added-deprecated-removed.html",
    "refman84-life": "https://dev.mysql.com/doc/refman/8.4/en/added-deprecated-removed.html",
    "refman84-ref": "https://dev.mysql.com/doc/refman/8.4/en/server-system-variable-reference.html",
    "percona80": "https://github.com/percona/percona-toolkit/blob/cf2b0f550f4547daba3fed438cc7011634aafa27/t/pt-mysql-summary/samples/temp_enc009/mysql-variables",
    "percona84": "https://github.com/percona/percona-toolkit/blob/0d0e7210f71651bf15a60a19dc652d2c1b28341d/t/pt-mysql-summary/samples/mysql-variables-pt-2322",
    "mysql57": "https://dev.mysql.com/doc/refman/5.7/en/server-system-variables.html",
    "mysql-5.6.29": "https://github.com/dolphinsboy/mysql-5.6.29/tree/41774d78445a12ad0b1b3f9a61d030fe654a7989",
    "mysql-5.7.22": "https://github.com/hwCloudRDS/mysql-5.7/tree/11250ebaffaa99c3e1a485f856072582d1692db6",
    "mysql-5.7.41": "https://github.com/adofsauron/mysql-5.7.41-dev/tree/a5933a0c0a8148c1e28bfa7420e8a5b721215748/origin/mysql-5.7.41",
    "mdb-10.4.12": "https://github.com/NathanYu17724/MariaDB/tree/4bed139c39a77d6cd0616fed593a2027270840d0/mysql-test/suite/sys_vars/r",
    "mdb-10.6-snapshot": "https://github.com/Olernov/server/blob/9fbf1db59089e56c3b0880abe3b01bff24f91957/mysql-test/main/mysqld--help.result",
    "mdb-11.4-snapshot": "https://github.com/DeanKamali/server/blob/917c99f13d22149832e78c1cf43e91df09e49ad4/mysql-test/main/mysqld--help.result",
    "mdb-docs-innodb": "https://github.com/rusher/mariadb-docs/blob/8e285b6ac8997e4cabb3b1aafda738203dd4bd8d/server/server-usage/storage-engines/innodb/innodb-system-variables.md",
    "percona-5.7.22": "https://github.com/gaopengcarl/percona-server-locks-detail-5.7.22/tree/2f8823f2d6548193fc07f76d675decb2a48d103e",
}

# Values that describe the machine or the recording, not a compiled-in default.
_MACHINE = {
    "basedir", "datadir", "character_sets_dir", "general_log_file", "hostname", "log_error", "pid_file",
    "plugin_dir", "relay_log", "relay_log_index", "relay_log_info_file", "slow_query_log_file", "socket",
    "tmpdir", "secure_file_priv", "lc_messages_dir", "log_bin_basename", "log_bin_index", "relay_log_basename",
    "log_slow_query_file", "slave_load_tmpdir", "replica_load_tmpdir", "aria_log_dir_path", "wsrep_data_home_dir",
    "wsrep_node_name", "wsrep_node_address", "wsrep_node_incoming_address", "wsrep_sst_receive_address",
    "server_uid", "server_uuid", "system_time_zone", "version", "version_comment", "version_compile_machine",
    "version_compile_os", "version_malloc_library", "version_source_revision", "version_ssl_library",
    "version_compile_zlib", "innodb_version", "wsrep_patch_version", "port", "report_port", "bind_address",
    "large_page_size", "lower_case_file_system", "lower_case_table_names", "open_files_limit", "thread_pool_size",
    "skip_name_resolve", "innodb_buffer_pool_size", "log_bin", "skip_networking", "protocol_version",
    "license", "have_ssl", "have_openssl", "ft_stopword_file", "innodb_data_home_dir", "innodb_log_group_home_dir",
    "innodb_undo_directory", "innodb_temp_tablespaces_dir", "innodb_tmpdir", "innodb_buffer_pool_filename",
}

_NUMERIC_TYPES = {"INT", "INT UNSIGNED", "BIGINT", "BIGINT UNSIGNED"}
_INNODB_NUMERIC = {"ULONG", "UINT", "LONG", "ULONGLONG", "LONGLONG", "INT"}


# ------------------------------------------------------------------------------------ inputs

def _read(name: str) -> str:
    return (SOURCES / name).read_text(encoding="utf-8")


def load_inputs() -> dict[str, Any]:
    from tools.catalogue.parse import parse_lifecycle, parse_reference, parse_system_variables, tsv_rows

    fl = ROOT / "tests" / "fixtures" / "flavors"
    return {
        "mdb": parse_system_variables(_read("mariadb-10.11.19-system-variables.json")),
        "mdb_help": {r["option"]: r["value"] for r in tsv_rows(_read("mariadb-10.11.19-help-variables.tsv"))},
        "help80": {r["option"]: r for r in tsv_rows(_read("mysql-8.0.41-help-options.tsv"))},
        "inno80": {r["name"]: r for r in tsv_rows(_read("mysql-8.0.41-innodb-sysvars.tsv"))},
        "life80": parse_lifecycle(_read("mysql-8.0-refman-added-deprecated-removed.tsv")),
        "life84": parse_lifecycle(_read("mysql-8.4-refman-added-deprecated-removed.tsv")),
        "ref84": parse_reference(_read("mysql-8.4-refman-system-variable-reference.tsv")),
        "units": {r["name"]: r["unit"] for r in tsv_rows(_read("units.tsv"))},
        "mysql_types": {r["name"]: r for r in tsv_rows(_read("mysql-types.tsv"))},
        "renames": {r["old"]: r for r in tsv_rows(_read("mysql-renames.tsv"))},
        "default_fixes": {r["name"]: r for r in tsv_rows(_read("mysql-default-corrections.tsv"))},
        "excluded": {r["name"]: r for r in tsv_rows(_read("excluded.tsv"))},
        "percona80": set(json.loads((fl / "percona-8.0" / "variables.json").read_text())),
        "mysql57": set(json.loads((fl / "mysql-5.7" / "variables.json").read_text())),
        "percona84": set(json.loads((fl / "mysql-8.4" / "variables.json").read_text())),
        "old_mysql": {rel: {"help": {r["option"].replace("-", "_"): r["value"] for r in tsv_rows(_read(f"mysql-{rel}-help-options.tsv"))},
                            "sys": {r["name"]: r for r in tsv_rows(_read(f"mysql-{rel}-sys-vars.tsv"))},
                            "inno": {r["name"]: r for r in tsv_rows(_read(f"mysql-{rel}-innodb-sysvars.tsv"))
                                     if r["build"] == "release"}}
                      for rel in OLD_MYSQL},
        "mid80": {rel: {"help": {r["option"].replace("-", "_"): r["value"] for r in tsv_rows(_read(f"mysql-{rel}-help-options.tsv"))},
                        "inno": {r["name"]: r for r in tsv_rows(_read(f"mysql-{rel}-innodb-sysvars.tsv")) if r["build"] == "release"}}
                  for rel in MID_MYSQL80},
        "mdb104": {r["VARIABLE_NAME"]: r for r in tsv_rows(_read("mariadb-10.4.12-system-variables.tsv"))},
        "mdb_snap": {line: {r["option"].replace("-", "_"): r["value"]
                            for r in tsv_rows(_read(f"mariadb-{label}-help-variables.tsv"))}
                     for line, (label, _lo, _hi) in MDB_SNAPSHOTS.items()},
        "mdb_docs_innodb": {line: {r["option"].replace("-", "_"): r["value"]
                                   for r in tsv_rows(_read(f"mariadb-{line}-docs-innodb-variables.tsv"))}
                            for line in MDB_SNAPSHOTS},
        "percona57": {"help": {r["option"].replace("-", "_"): r["value"] for r in tsv_rows(_read(f"percona-{PERCONA57}-help-options.tsv"))},
                      "sys": {r["name"]: r for r in tsv_rows(_read(f"percona-{PERCONA57}-sys-vars.tsv"))},
                      "inno": {r["name"]: r for r in tsv_rows(_read(f"percona-{PERCONA57}-innodb-sysvars.tsv"))
                               if r["build"] == "release"}},
    }


# ------------------------------------------------------------------------------------ units

def numeric_unit(name: str, units: dict[str, str]) -> str:
    return units.get(name, "count")


def _num(x: Optional[str]) -> Optional[float]:
    if x in (None, ""):
        return None
    try:
        return float(x)  # type: ignore[arg-type]
    except ValueError:
        return None


def _whole(x: Optional[float]) -> Any:
    return int(x) if isinstance(x, float) and x.is_integer() and abs(x) < 2 ** 63 else x


# ------------------------------------------------------------------------------------ MariaDB

def _text_unit(vtype: str, values: Optional[str]) -> str:
    """The unit of a non-numeric MariaDB variable type. An ENUM the server gives no value list for
    (character sets, collations, locales: any the server knows) is a string, as both manuals type
    character_set_server and collation_server."""
    if vtype == "ENUM" and not values:
        return "string"
    return {"BOOLEAN": "bool", "ENUM": "enum", "SET": "set", "VARCHAR": "string", "FLAGSET": "string"}[vtype]


def mariadb_entry(v: dict[str, Any], units: dict[str, str]) -> dict[str, Any]:
    name, vtype = v["VARIABLE_NAME"], v["VARIABLE_TYPE"]
    if vtype in _NUMERIC_TYPES:
        unit = numeric_unit(name, units)
    elif vtype == "DOUBLE":
        unit = units.get(name, "float")
    else:
        unit = _text_unit(vtype, v["ENUM_VALUE_LIST"])
    scope = {"GLOBAL": "global", "SESSION": "both", "SESSION ONLY": "session"}[v["VARIABLE_SCOPE"]]
    e: dict[str, Any] = {"unit": unit, "scope": scope, "dynamic": v["READ_ONLY"] == "NO"}
    if vtype in _NUMERIC_TYPES or vtype == "DOUBLE":
        lo, hi = _num(v["NUMERIC_MIN_VALUE"]), _num(v["NUMERIC_MAX_VALUE"])
        if lo is not None:
            e["min"] = _whole(lo)
        if hi is not None:
            e["max"] = _whole(hi)
    if vtype in ("ENUM", "SET") and v["ENUM_VALUE_LIST"]:
        e["enum"] = v["ENUM_VALUE_LIST"].split(",")
    entry: dict[str, Any] = {"flavors": ["mariadb"], "range": MARIADB_RANGE}
    d, g, origin = v["DEFAULT_VALUE"], v["GLOBAL_VALUE"], v["GLOBAL_VALUE_ORIGIN"]
    notes = []
    if d == "-1" and vtype in _NUMERIC_TYPES:
        notes.append("-1 means sized at start-up")
    elif (origin == "COMPILE-TIME" and d is not None and g == d and name not in _MACHINE
            and not str(d).startswith(("/", "./")) and scope != "session"):
        entry["default"] = int(d) if vtype in _NUMERIC_TYPES else d
    elif origin == "AUTO":
        notes.append(f"sized at start-up (compiled-in {d!r}, {g!r} on the recording machine)")
    elif origin == "COMPILE-TIME" and d is not None and g is not None and g != d and name not in _MACHINE:
        notes.append(f"computed at start-up from the compiled-in {d!r} ({g!r} on the recording machine)")
    comment = v["VARIABLE_COMMENT"] or ""
    low = comment.lower()
    if "deprecated" in low:
        entry["deprecated"] = True
    if "no effect" in low or "(ignored)" in low or low.startswith("unused"):
        entry["noop"] = True
    m = re.match(r"Alias for (@@)?([a-z_]+)", comment)
    if m:
        notes.append(f"alias for {m.group(2)}")
    if notes:
        entry["note"] = "; ".join(notes)
    e.update({"covered": ["mariadb"], "coverage": {"mariadb": MARIADB_RANGE}, "src": ["mdb-is"], "versions": [entry]})
    return e


_MDB_SCOPE = {"GLOBAL": "global", "SESSION": "both", "SESSION ONLY": "session"}
# the mysqld--help test runs with --symbolic-links=0 --log-bin=foo --lower-case-table-names=1: not defaults
# and mysql-test-run's bootstrap sets default-storage-engine=myisam and sync-frm=0; table_open_cache and
# table_definition_cache are cut to the test's open_files_limit
_MDB_HELP_SET = {"symbolic_links", "log_bin", "lower_case_table_names", "log_bin_basename", "log_bin_index",
                 "default_storage_engine", "default_tmp_storage_engine", "sync_frm", "table_open_cache",
                 "table_definition_cache"}


def _mdb104_default(r: dict[str, str], e1011: Optional[dict[str, Any]]) -> Any:
    """The 10.4.12 default of a row of the extract, or None (machine value, sized at start-up, a help
    value the test set, a DOUBLE printed differently by the help, or no default in the results)."""
    name, vtype, d = r["VARIABLE_NAME"], r["VARIABLE_TYPE"], r["DEFAULT_VALUE"]
    if r["DEFAULT_FROM"] == "none" or name in _MACHINE or name in _MDB_HELP_SET or d.startswith(("/", "./")):
        return None
    if e1011 is not None and "sized at start-up" in e1011["versions"][0].get("note", "") + e1011["versions"][0].get("note", ""):
        return None
    if e1011 is not None and "computed at start-up" in e1011["versions"][0].get("note", ""):
        return None
    if vtype in _NUMERIC_TYPES:
        if not re.fullmatch(r"-?\d+", d) or d == "-1":
            return None
        return int(d)
    if vtype == "DOUBLE" or r["VARIABLE_SCOPE"] == "SESSION ONLY":
        return None
    if d in ("", "NULL") and vtype != "VARCHAR":
        return None
    return None if d == "NULL" else d


def mariadb104_entry(r: dict[str, str], units: dict[str, str]) -> dict[str, Any]:
    """A variable MariaDB 10.4.12 has and 10.11.19 does not (removed in between: when is not recorded)."""
    vtype = r["VARIABLE_TYPE"]
    enum_list = None if r["ENUM_VALUE_LIST"] in ("", "NULL") else r["ENUM_VALUE_LIST"]
    if vtype in _NUMERIC_TYPES:
        unit = numeric_unit(r["VARIABLE_NAME"], units)
    elif vtype == "DOUBLE":
        unit = units.get(r["VARIABLE_NAME"], "float")
    else:
        unit = _text_unit(vtype, enum_list)
    e: dict[str, Any] = {"unit": unit, "scope": _MDB_SCOPE[r["VARIABLE_SCOPE"]], "dynamic": r["READ_ONLY"] == "NO"}
    return e


def _mdb104_version(r: dict[str, str], top: dict[str, Any], e1011: Optional[dict[str, Any]]) -> dict[str, Any]:
    v: dict[str, Any] = {"flavors": ["mariadb"], "range": MARIADB_104}
    d = _mdb104_default(r, e1011)
    if d is not None:
        v["default"] = d
    scope, dyn = _MDB_SCOPE[r["VARIABLE_SCOPE"]], r["READ_ONLY"] == "NO"
    if scope != top["scope"]:
        v["scope"] = scope
    if dyn != top["dynamic"]:
        v["dynamic"] = dyn
    if r["VARIABLE_TYPE"] in _NUMERIC_TYPES or r["VARIABLE_TYPE"] == "DOUBLE":
        lo, hi = _num(r["NUMERIC_MIN_VALUE"]), _num(r["NUMERIC_MAX_VALUE"])
        if lo is not None and _whole(lo) != top.get("min"):
            v["min"] = _whole(lo)
        if hi is not None and _whole(hi) != top.get("max"):
            v["max"] = _whole(hi)
    if r["VARIABLE_TYPE"] in ("ENUM", "SET") and r["ENUM_VALUE_LIST"] not in ("", "NULL"):
        en = r["ENUM_VALUE_LIST"].split(",")
        if en != top.get("enum"):
            v["enum"] = en
    if r["DEPRECATED"] == "yes":
        v["deprecated"] = True
    return v


def build_mariadb(inp: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """10.11.19 (the recording) and 10.4.12 (the mysql-test results): each variable's entries per release,
    10.5-10.10 by continuity for a variable both have (existence only: no source for those releases)."""
    out = {name: mariadb_entry(v, inp["units"]) for name, v in sorted(inp["mdb"]["variables"].items())}
    for name, e in out.items():
        if name not in inp["mdb104"] and not name.startswith(_MDB104_UNSEEN_PREFIX) and name not in _MDB104_UNSEEN:
            e["coverage"] = {"mariadb": MARIADB_BOTH}  # 10.4.12 has no such variable
    for name, r in inp["mdb104"].items():
        if name in inp["excluded"]:
            continue
        e = out.get(name)
        if e is None:
            top = mariadb104_entry(r, inp["units"])
            ver = _mdb104_version(r, top, None)
            for k in ("min", "max", "enum"):  # a 10.4-only variable: its limits are the top-level ones
                if k in ver:
                    top[k] = ver.pop(k)
            top.update({"covered": ["mariadb"], "coverage": {"mariadb": MARIADB_BOTH}, "src": ["mdb-10.4.12"],
                        "versions": [ver], "note": "in MariaDB 10.4.12, not in 10.11.19: the release that removed it "
                                                   "is not recorded"})
            out[name] = top
            continue
        ver = _mdb104_version(r, e, e)
        mid = {"flavors": ["mariadb"], "range": MARIADB_BETWEEN}
        if ver.get("deprecated") and e["versions"][0].get("deprecated"):
            mid["deprecated"] = True
        e["versions"] = [ver, mid] + e["versions"]
        e["coverage"] = {"mariadb": ">=10.4.12,<10.12"}
        e["src"] = e["src"] + ["mdb-10.4.12"]
    mariadb_snapshots(out, inp)
    return dict(sorted(out.items()))


# mysqld--help.test rewrites these numbers for 32-bit builds (4294967295 -> 18446744073709551615 and so on),
# also where a 64-bit server prints the smaller one (max_password_errors is 4294967295 on 10.11.19): ambiguous
_HELP_REWRITTEN = {"18446744073709551615", "9223372036853727232", "262144", "18446744073709547520"}
# set by the bootstrap command the help test runs (--core-file, --console, --disable-getopt-prefix-matching):
# the snapshots print TRUE / FALSE where the 10.11.19 binary prints its defaults
_MDB_BOOTSTRAP = {"core_file", "console", "getopt_prefix_matching"}


def _help_unfaithful(inp: dict[str, Any]) -> set[str]:
    """Variables whose help-table value is not the server's default on 10.11.19 (its own help table against
    its information_schema DEFAULT_VALUE: slave_parallel_mode, optimizer_switch, aria_checkpoint_interval, ...):
    a snapshot's help value is not taken as their default."""
    out = set()
    helped = {k.replace("-", "_"): v for k, v in inp["mdb_help"].items()}
    for name, v in inp["mdb"]["variables"].items():
        if name in helped:
            h = helped[name]
            if v["VARIABLE_TYPE"] == "BOOLEAN":
                h = {"TRUE": "ON", "FALSE": "OFF"}.get(h, h)
            if h != ("" if v["DEFAULT_VALUE"] is None else str(v["DEFAULT_VALUE"])):
                out.add(name)
    return out


def _snap_default(name: str, help_value: str, e: dict[str, Any], inp: dict[str, Any]) -> Any:
    """A snapshot's help-table value as the variable's default, read as the 10.4.12 help values are
    (_mdb104_default), with the type the 10.11.19 recording or the 10.4.12 results give; None when not usable
    (a value the help does not print faithfully, or one the test rewrites)."""
    v = inp["mdb"]["variables"].get(name) or inp["mdb104"].get(name)
    if v is None or name in inp["help_unfaithful"] or name in _MDB_BOOTSTRAP or help_value in _HELP_REWRITTEN:
        return None
    vtype = v["VARIABLE_TYPE"]
    if vtype == "BOOLEAN":
        help_value = {"TRUE": "ON", "FALSE": "OFF"}.get(help_value, help_value)
    if "MYSQL_" in help_value:
        return None
    allowed = (v.get("ENUM_VALUE_LIST") or "").lower().split(",") if v.get("ENUM_VALUE_LIST") not in (None, "", "NULL") else None
    if vtype in ("ENUM", "SET", "BOOLEAN") and allowed and help_value and \
            not all(x in allowed for x in help_value.lower().split(",")):
        return None  # not a value of the type the 10.11.19 / 10.4.12 sources give (the type changed in between)
    row = {"VARIABLE_NAME": name, "VARIABLE_TYPE": vtype, "VARIABLE_SCOPE": v["VARIABLE_SCOPE"],
           "DEFAULT_VALUE": help_value, "DEFAULT_FROM": "help"}
    v1011 = next((x for x in e["versions"] if x["range"] == MARIADB_RANGE), None)
    return _mdb104_default(row, {"versions": [v1011]} if v1011 is not None else None)


def _entry_default(e: dict[str, Any], rng: str) -> Any:
    x = next((x for x in e["versions"] if x["range"] == rng), None)
    return None if x is None else x.get("default")


def _join(versions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neighbouring entries that say the same, joined."""
    out: list[dict[str, Any]] = []
    for x in versions:
        if out and {k: v for k, v in out[-1].items() if k != "range"} == {k: v for k, v in x.items() if k != "range"} \
                and "||" not in out[-1]["range"] and out[-1]["range"].split(",")[-1][1:] == x["range"].split(",")[0][2:]:
            out[-1] = dict(out[-1], range=out[-1]["range"].split(",")[0] + "," + x["range"].split(",")[1])
        else:
            out.append(x)
    return out


def _docs_innodb(inp: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The InnoDB rows the MariaDB docs give for the 10.6 and 11.4 snapshot windows (the help test leaves InnoDB
    out), merged into those snapshots: only innodb_* names the help snapshot lacks and the 10.11.19 recording has
    (the page does not always say when a variable was removed) and the 10.4.12 results do not leave out.
    _snap_default reads them as it reads the help
    rows (booleans are ON / OFF there), so the same claiming rules apply."""
    rec = inp["mdb"]["variables"]
    out: dict[str, dict[str, str]] = {}
    for line in MDB_SNAPSHOTS:
        out[line] = {}
        for name, value in inp["mdb_docs_innodb"][line].items():
            if not name.startswith("innodb_") or name in inp["mdb_snap"][line] or name not in rec \
                    or name in _MDB104_UNSEEN:  # not placed by the 10.4.12 results; innodb_use_native_aio: OS
                continue
            out[line][name] = value
    return out


def mariadb_snapshots(out: dict[str, dict[str, Any]], inp: dict[str, Any]) -> None:
    """The two bracketed source snapshots (their mysqld--help.result "Variables" tables) over the 10.4.12 /
    10.11.19 entries. A help row is taken for a name the recording or the 10.4.12 results know as a variable
    (the help lists startup options too). 10.6 (a snapshot between 10.6.1 and 10.6.13): the continuity the
    other trees use; 10.4.12's default holds up to the snapshot (from 10.5.0 to 10.6.1) when the snapshot shows
    the same, the snapshot's from 10.6.13 to 10.11 when 10.11.19 shows the same, and across when all three agree;
    a variable the snapshot and one of the two trees have existed in between. 11.4 (a snapshot between 11.4.4
    and 11.4.8, no later tree read): its existence and defaults for 11.4.4-11.4.7."""
    inp["help_unfaithful"] = _help_unfaithful(inp)
    docs = _docs_innodb(inp)
    _label6, lo6, hi6 = MDB_SNAPSHOTS["10.6"]
    snap6 = dict(inp["mdb_snap"]["10.6"], **docs["10.6"])
    r104, r1011 = MARIADB_104, MARIADB_RANGE
    for name, e in out.items():
        if name not in snap6:
            continue
        in104 = any(x["range"] == r104 for x in e["versions"])
        in1011 = any(x["range"] == r1011 for x in e["versions"])
        d6 = _snap_default(name, snap6[name], e, inp)
        d4 = _entry_default(e, r104) if in104 else None
        d11 = _entry_default(e, r1011) if in1011 else None
        if in104 and in1011:  # the existence-only stretch 10.5.0-10.11.0 gets the defaults continuity gives
            i = next(i for i, x in enumerate(e["versions"]) if x["range"] == MARIADB_BETWEEN)
            mid = {k: v for k, v in e["versions"][i].items() if k != "range"}
            segs = [(f">=10.5.0,<{_s(lo6)}", d4 if d4 is not None and d4 == d6 else None),
                    (f">={_s(lo6)},<{_s(hi6)}", d6 if d6 is not None and d4 == d6 == d11 else None),
                    (f">={_s(hi6)},<10.11.0", d6 if d6 is not None and d6 == d11 else None)]
            new = []
            for rng, d in segs:
                x = dict(mid, range=rng)
                if d is not None:
                    x["default"] = d
                new.append(x)
            e["versions"] = e["versions"][:i] + _join(new) + e["versions"][i + 1:]
        elif in1011:  # not in 10.4.12: it exists from the snapshot on (10.6.13 at the latest)
            x = {"flavors": ["mariadb"], "range": f">={_s(hi6)},<10.11.0"}
            if d6 is not None and d6 == d11:
                x["default"] = d6
            i = next(i for i, x in enumerate(e["versions"]) if x["range"] == r1011)
            e["versions"].insert(i, x)
            e["coverage"] = {"mariadb": f"{r104} || >={_s(hi6)},<10.12"}
        elif in104:  # not in 10.11.19: it exists up to the snapshot (10.6.1 at least)
            x = {"flavors": ["mariadb"], "range": f">=10.5.0,<{_s(lo6)}"}
            if d4 is not None and d4 == d6:
                x["default"] = d4
            i = next(i for i, x in enumerate(e["versions"]) if x["range"] == r104)
            e["versions"].insert(i + 1, x)
            e["coverage"] = {"mariadb": f">=10.4.12,<{_s(lo6)} || {r1011}"}
        else:
            continue
        e["src"] = e["src"] + ["mdb-docs-innodb" if name in docs["10.6"] else "mdb-10.6-snapshot"]
    _label11, lo11, hi11 = MDB_SNAPSHOTS["11.4"]
    snap11 = dict(inp["mdb_snap"]["11.4"], **docs["11.4"])
    rng11 = f">={_s(lo11)},<{_s(hi11)}"
    for name, e in out.items():
        if name not in snap11:
            continue
        x: dict[str, Any] = {"flavors": ["mariadb"], "range": rng11}
        d = _snap_default(name, snap11[name], e, inp)
        if d is not None:
            x["default"] = d
        e["versions"] = e["versions"] + [x]
        e["coverage"] = {"mariadb": e["coverage"]["mariadb"] + f" || {rng11}"}
        e["src"] = e["src"] + (["mdb-docs-innodb"] if name in docs["11.4"] else ["mdb-11.4-snapshot"])
        e["src"] = list(dict.fromkeys(e["src"]))


# ------------------------------------------------------------------------------------ MySQL

_PLUGIN_PREFIXES = ("audit_log", "authentication_fido", "authentication_kerberos", "authentication_ldap",
                    "authentication_webauthn", "authentication_windows", "clone_", "component_", "connection_control_", "dragnet.",
                    "enterprise_encryption.", "group_replication_", "keyring_", "lock_order", "mecab_",
                    "mysql_firewall_", "mysqlx", "ngram_", "rewriter_", "rpl_semi_sync_", "syseventlog.",
                    "thread_pool_", "validate_password", "version_tokens_", "daemon_memcached_", "telemetry.")


def is_plugin(name: str) -> bool:
    return name.startswith(_PLUGIN_PREFIXES)


def _v(s: str) -> tuple[int, int, int]:
    p = [int(x) for x in s.split(".")] + [0, 0]
    return (p[0], p[1], p[2])


def _s(t: tuple[int, int, int]) -> str:
    return ".".join(map(str, t))


def mysql_names(inp: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every MySQL server and InnoDB variable of 8.0 and 8.4 the sources name, with the evidence:
    in80 (True / False / None = not known), since/removed/deprecated versions."""
    ref, life80, life84, p80 = inp["ref84"], inp["life80"], inp["life84"], inp["percona80"]
    excluded = inp["excluded"]
    known_vars = set(ref) | {n for n in life80 if "-" not in n and "." not in n} | \
        {n for n in life84 if "-" not in n and "." not in n} | p80
    out: dict[str, dict[str, Any]] = {}

    def add(name: str, **kw: Any) -> None:
        if name in excluded or is_plugin(name):
            return
        out.setdefault(name, {}).update(kw)

    for opt, row in inp["help80"].items():
        name = opt.replace("-", "_")
        if name in known_vars:
            add(name, in80=True, help=row)
    for name, row in inp["inno80"].items():
        if row["build"] == "release" and name != "innodb_status_file":
            add(name, in80=True, innodb=row)
    for name in ref:
        added84 = life84.get(name, {}).get("added")
        if added84:
            add(name, in80=False, since=added84, in84=True)
        elif name in p80 or name in life80 or ref[name]["scope"] == "session" or name in out:
            add(name, in80=True, in84=True)
        else:
            add(name, in80=None, in84=True)  # 8.4 has it; whether 8.0 had it is not known
    for name, ev in list(life80.items()) + list(life84.items()):
        if "-" in name or "." in name:
            continue
        if "removed" in ev and name not in ref and name not in out:
            add(name, in80=True)  # removed later: it existed in 8.0 until then
    for name, ev in life80.items():
        if name in out:
            if "added" in ev:
                out[name]["since"] = ev["added"]
            if "deprecated" in ev:
                out[name]["deprecated"] = ev["deprecated"]
            if "removed" in ev:
                out[name]["removed"] = ev["removed"]
    for name, ev in life84.items():
        if name in out:
            if "deprecated" in ev and "deprecated" not in out[name]:
                out[name]["deprecated"] = ev["deprecated"]
            if "removed" in ev:
                out[name]["removed"] = ev["removed"]
    for name, info in out.items():
        if name in ref:
            info["in84"] = True
        info.setdefault("in84", False)
    return out


def mysql_type(name: str, info: dict[str, Any], inp: dict[str, Any]) -> tuple[str, Optional[list[str]]]:
    """(unit, enum values) for a MySQL variable, from the first source that says."""
    t = inp["mysql_types"].get(name)
    if t:
        kind = t["type"]
        enum = t["values"].split(",") if t.get("values") else None
        return (numeric_unit(name, inp["units"]) if kind == "numeric" else kind), enum
    inno = info.get("innodb")
    if inno and inno["type"]:
        it = inno["type"]
        if it == "BOOL":
            return "bool", None
        if it in _INNODB_NUMERIC:
            return numeric_unit(name, inp["units"]), None
        if it == "DOUBLE":
            return inp["units"].get(name, "float"), None
        if it == "ENUM":
            return "enum", None
        return "string", None
    help_row = info.get("help")
    if help_row and help_row["shown"] == "printed":
        val = help_row["value"]
        if val in ("TRUE", "FALSE"):
            return "bool", None
        if re.fullmatch(r"-?\d+", val):
            return numeric_unit(name, inp["units"]), None
    mdb = inp["mdb"]["variables"].get(name)
    if mdb:
        vt = mdb["VARIABLE_TYPE"]
        if vt in _NUMERIC_TYPES:
            return numeric_unit(name, inp["units"]), None
        if vt == "DOUBLE":
            return inp["units"].get(name, "float"), None
        return _text_unit(vt, mdb["ENUM_VALUE_LIST"]), None
    if name in inp["units"]:
        return inp["units"][name], None
    if help_row and help_row["shown"] == "printed":
        return "string", None
    raise KeyError(name)


# mysqld computes these at start-up from other settings (max_connections, table_open_cache, the
# CPUs): the help result shows the value for its own defaults, which is not a compiled-in default.
_MYSQL_AUTOSIZED = {"back_log", "host_cache_size", "thread_cache_size", "table_definition_cache", "table_open_cache",
                    "innodb_open_files", "open_files_limit", "max_connections_per_hour"}


def _mysql_default(name: str, info: dict[str, Any], unit: str, fixes: dict[str, dict[str, str]]) -> Any:
    if name in _MACHINE or name in _MYSQL_AUTOSIZED:
        return None
    if name in fixes:  # the help result does not show this default as a server prints it (see the table)
        return _typed(fixes[name]["default"], unit)
    inno = info.get("innodb")
    if inno and inno["type"]:
        if "autosized" in inno["flags"] or inno["default"] == "" and inno["type"] != "STR":
            return None
        if inno["type"] == "STR" and inno["default"] == "":
            return None
        return _typed(inno["default"], unit)
    help_row = info.get("help")
    if help_row and help_row["shown"] == "printed":
        val = help_row["value"]
        if "####" in val or "MYSQL_" in val:
            return None
        if unit == "bool":
            return {"TRUE": "ON", "FALSE": "OFF"}.get(val)
        if val == "-1" and name.startswith("performance_schema_"):
            return None  # -1: sized at start-up ("-1 for automated sizing"); a server prints the size
        return _typed(val, unit)
    return None


def _typed(val: str, unit: str) -> Any:
    if unit in ("bytes", "count", "seconds", "milliseconds", "microseconds") and re.fullmatch(r"-?\d+", val):
        return int(val)
    return val


def mysql_entry(name: str, info: dict[str, Any], inp: dict[str, Any]) -> dict[str, Any]:
    ref = inp["ref84"].get(name)
    unit, enum = mysql_type(name, info, inp)
    mdb = inp["mdb"]["variables"].get(name)
    if ref:
        scope, dynamic = ref["scope"], ref["dynamic"]
    elif mdb:  # removed before 8.4: the MariaDB server's own flags for the shared variable
        scope = {"GLOBAL": "global", "SESSION": "both", "SESSION ONLY": "session"}[mdb["VARIABLE_SCOPE"]]
        dynamic = mdb["READ_ONLY"] == "NO"
    elif name in inp["mysql_types"] and inp["mysql_types"][name].get("scope"):
        t = inp["mysql_types"][name]
        scope, dynamic = t["scope"], t["dynamic"] == "yes"
    else:
        raise KeyError(f"{name}: no scope in the sources (add it to mysql-types.tsv)")
    src = ["refman84-ref"] if ref else []
    src += ["mysql-help"] if "help" in info else []
    src += ["mysql-innodb"] if "innodb" in info else []
    src += sorted({f"mysql-{rel}" for rel in inp.get("old_names", {}).get(name, {})})
    if name in inp["life80"]:
        src.append("refman80-life")
    if name in inp["life84"]:
        src.append("refman84-life")
    # What the sources know, as version windows. 8.0: a variable that MySQL 5.7.44 already had, or
    # that the 8.0 manual's lifecycle page dates, is known from 8.0.0; one first seen in the
    # Percona Server 8.0.32 capture from 8.0.32; one first seen in the 8.0.41 sources from 8.0.41.
    # 8.1-8.4: known when the 8.4 reference lists it or a lifecycle page says when it went.
    mdb_session = mdb is not None and mdb["VARIABLE_SCOPE"] == "SESSION ONLY"
    if info["in80"] is False:
        known80 = None
    elif name in inp["mysql57"] or name in inp["life80"] or mdb_session or (ref and ref["scope"] == "session" and mdb):
        known80 = (8, 0, 0)
    elif name in inp["percona80"]:
        known80 = (8, 0, 32)
    elif info["in80"]:
        known80 = (8, 0, 41)
    else:
        known80 = None
    if known80 is not None and known80 > (8, 0, 27) and any(
            name in inp["mid80"]["8.0.27"][k] for k in ("help", "inno")) and _mid80_is_var(name, inp):
        known80 = (8, 0, 27)  # the 8.0.27 tree has it
    removed = _v(info["removed"]) if info.get("removed") else None
    in84: Optional[bool] = True if ref else (False if removed else None)
    lo = known80 if known80 is not None else (8, 1, 0)
    hi = (8, 5, 0) if in84 is not None else (8, 1, 0)
    since = _v(info["since"]) if info.get("since") else (8, 0, 0)
    start = max(since, lo)
    end = min(removed or hi, hi)
    dep = _v(info["deprecated"]) if info.get("deprecated") else None
    r = inp["renames"].get(name)
    if dep is None and r and r["kind"] == "rename" and r["basis"].startswith("mysqld --help"):
        dep = _v(r["since"])  # the lifecycle pages miss it; the server's help says "deprecated. Use <new>"
    default = _mysql_default(name, info, unit, inp["default_fixes"])
    p80, p84 = name in inp["percona80"], name in inp["percona84"]

    # 8.0.27 and 8.0.32: each tree's default from that tree on, to the next tree when the next one shows the same
    mids = {rel: mid80_default(name, unit, inp, rel) for rel in MID_MYSQL80}
    d32 = mids["8.0.32"]
    span32 = (8, 0, 41) if d32 is not None and d32 == default else (8, 0, 33)
    d27 = mids["8.0.27"]
    span27 = (8, 0, 32) if d27 is not None and d27 == d32 else (8, 0, 28)

    def segments(a0: tuple[int, int, int], b0: tuple[int, int, int], flavor: str) -> list[dict[str, Any]]:
        cuts = sorted({c for c in (a0, b0, (8, 0, 27), (8, 0, 28), (8, 0, 32), (8, 0, 33), (8, 0, 41), (8, 1, 0), dep)
                       if c is not None and a0 <= c <= b0})
        out_: list[dict[str, Any]] = []
        for x, y in zip(cuts, cuts[1:]):
            e: dict[str, Any] = {"flavors": [flavor], "range": f">={_s(x)},<{_s(y)}"}
            if default is not None and x >= (8, 0, 41) and y <= (8, 1, 0):
                e["default"] = default
            elif d32 is not None and (8, 0, 32) <= x and y <= span32:
                e["default"] = d32
            elif d27 is not None and (8, 0, 27) <= x and y <= span27:
                e["default"] = d27
            if dep and x >= dep:
                e["deprecated"] = True
            out_.append(e)
        return out_

    versions = segments(start, end, "mysql") if start < end else []
    lo80 = lo
    old_rows = inp.get("old_names", {}).get(name)
    old: list[dict[str, Any]] = []
    if old_rows and known80 is not None:
        old, olo, ohi = old_segments(name, old_rows, unit, {"scope": scope, "dynamic": dynamic}, inp)
        if old and ohi == (8, 0, 0) and olo is not None:
            if start > (8, 0, 0) and start == known80:  # in 5.7.41 and in a later 8.0: in 8.0.0 on as well
                old += segments((8, 0, 0), start, "mysql")
            lo = olo
        else:
            old = []
    if not versions and removed and removed <= lo80 and not old:
        # removed before the window (8.0.0): the manual says it existed before; outside the coverage
        versions.append({"flavors": ["mysql"], "range": f"<{_s(removed)}"})
    if old and removed and removed <= lo80:
        old[-1]["range"] = old[-1]["range"].split(",")[0] + f",<{_s(removed)}"
    versions = old + versions
    covered = ["mysql"]
    cov = {"mysql": f">={_s(lo)},<{_s(hi)}"}
    if p80 or p84:
        # Percona Server follows MySQL; its captures (8.0.32, 8.4.5) show which variables it has
        # (the 8.0.27 / 8.0.32 sightings are MySQL trees: Percona's own defaults differ, e.g. optimizer_switch)
        pv = [{k: v for k, v in dict(e, flavors=["percona"]).items()
               if k != "default" or _v(e["range"].split(",")[0][2:]) >= (8, 0, 41)}
              for e in versions if p80 and (8, 0, 0) <= _v(e["range"].split(",")[0][2:]) < (8, 1, 0)]
        if p84:
            pv += [e for e in segments((8, 4, 0), (8, 5, 0), "percona")]
        if pv:
            covered.append("percona")
            plo = lo80 if p80 else (8, 4, 0)
            cov["percona"] = f">={_s(plo)},<{_s((8, 5, 0) if p84 else (8, 1, 0))}"
            versions += pv
    # one entry for both flavors where they say the same for the same range
    merged_fl: list[dict[str, Any]] = []
    for e in versions:
        twin = next((m for m in merged_fl if m["range"] == e["range"] and
                     {k: v for k, v in m.items() if k != "flavors"} == {k: v for k, v in e.items() if k != "flavors"}), None)
        if twin is not None:
            twin["flavors"] = twin["flavors"] + [f for f in e["flavors"] if f not in twin["flavors"]]
        else:
            merged_fl.append(dict(e))
    versions = merged_fl
    # join neighbours that say the same
    joined: list[dict[str, Any]] = []
    for e in versions:
        if joined and {k: v for k, v in joined[-1].items() if k != "range"} == {k: v for k, v in e.items() if k != "range"} \
                and joined[-1]["range"].split(",")[-1][1:] == e["range"].split(",")[0][2:]:
            first = joined[-1]["range"].split(",")[0]
            joined[-1]["range"] = f"{first},{e['range'].split(',')[1]}"
        else:
            joined.append(e)
    out: dict[str, Any] = {"unit": unit, "scope": scope, "dynamic": dynamic}
    inno = info.get("innodb")
    if inno and inno["min"] != "" and unit not in ("bool", "enum", "set", "string"):
        out["min"] = _whole(float(inno["min"]))
        out["max"] = _whole(float(inno["max"]))
    if enum:
        out["enum"] = enum
    out.update({"covered": covered, "coverage": cov, "src": src + (["percona80"] if p80 else []) +
                (["percona84"] if p84 else []), "versions": joined})
    if dep:
        out["deprecated"] = {fl: _s(dep) for fl in covered
                             if any(fl in e["flavors"] and e.get("deprecated") for e in joined)}
        if not out["deprecated"]:
            del out["deprecated"]
    if removed:
        out["removed"] = {"mysql": _s(removed)}
        if "percona" in covered and not p84 and removed >= (8, 1, 0):
            out["removed"]["percona"] = _s(removed)
    if r:
        out["replaced_by"] = [r["new"]]
        if r["kind"] == "rename":
            out["renamed"] = True
    notes = []
    if known80 is None:
        notes.append("in the MySQL 8.4 manual; whether MySQL 8.0 had it is not recorded")
    elif known80 > (8, 0, 0) and not old:
        notes.append(f"first seen in the {_s(known80)} sources; earlier 8.0 releases are not known")
    if old and lo > (5, 6, 29):
        notes.append(f"first seen in the {_s(lo)} sources; earlier releases are not known")
    if name in _MACHINE or (inno and "autosized" in inno.get("flags", "")):
        notes.append("its value depends on the machine or the installation")
    if notes:
        out["note"] = "; ".join(notes)
    return out


# ------------------------------------------------------------------------------------ MySQL 5.6 / 5.7

# Names the old sys_vars.cc defines that are startup options or need a build option (not variables of a
# release build, or PFS consumer/instrument options that SHOW VARIABLES does not print).
_OLD_NOT_VARS = ("performance_schema_consumer_", "performance_schema_instrument", "transaction_allow_batching",
                 "validate_user_plugins", "core_file", "innodb_status_file")
_SYS_UNIT = {"mybool": "bool", "bit": "bool", "have": "string", "charptr": "string", "lexstring": "string",
             "enum": "enum", "set": "set", "flagset": "string", "double": "float", "tx_isolation": "enum",
             "tx_read_only": "bool", "sql_log_bin": "bool", "gtid_mode": "enum", "enforce_gtid_consistency": "enum",
             "enum_binlog_checksum": "enum", "plugin": "string", "tz": "string", "version": "string",
             "proxy_user": "string", "external_user": "string", "gtid_next": "string", "gtid_set": "string",
             "gtid_executed": "string", "gtid_purged": "string", "gtid_owned": "string", "struct": "string",
             "session_special_double": "float"}
_NUMERIC_SYS = {"ulong", "uint", "ulonglong", "long", "harows", "int32", "keycache", "session_special", "max_user_conn"}


def old_mysql_names(inp: dict[str, Any]) -> dict[str, dict[str, dict[str, str]]]:
    """name -> {release: {"sys"|"inno"|"help": row}} for the variables each old tree has: its sys_vars.cc
    and ha_innodb.cc definitions, and a help-table option that another tree defines or the 5.7.44 capture
    shows (MyISAM's variables are defined by its plugin, not in sys_vars.cc); an option alone is not a variable."""
    capture57 = inp["mysql57"]
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for rel in OLD_MYSQL:
        src = inp["old_mysql"][rel]
        names = set(src["sys"]) | set(src["inno"]) | \
            {n for n in src["help"] if n.startswith("myisam_") and n in capture57}
        for n in names:
            if n in inp["excluded"] or is_plugin(n) or n.startswith(_OLD_NOT_VARS) or "debug" in n:
                continue
            out.setdefault(n, {})[rel] = {k: src[k][n] for k in ("sys", "inno", "help") if n in src[k]}
    return out


def old_unit(name: str, rows: dict[str, dict[str, Any]], inp: dict[str, Any]) -> tuple[str, Optional[list[str]]]:
    """(unit, enum) of a variable only the old trees have."""
    if name in inp["mysql_types"]:
        t = inp["mysql_types"][name]
        return (numeric_unit(name, inp["units"]) if t["type"] == "numeric" else t["type"]), \
            (t["values"].split(",") if t.get("values") else None)
    for rel in reversed(OLD_MYSQL):
        r = rows.get(rel, {})
        if "inno" in r:
            it = r["inno"]["type"]
            return ("bool" if it == "BOOL" else numeric_unit(name, inp["units"]) if it in _INNODB_NUMERIC
                    else inp["units"].get(name, "float") if it == "DOUBLE" else "enum" if it == "ENUM"
                    else "set" if it == "SET" else "string"), None
        if "sys" in r:
            c = r["sys"]["class"]
            if c in _NUMERIC_SYS:
                return numeric_unit(name, inp["units"]), None
            if c in _SYS_UNIT:
                return _SYS_UNIT[c], None
    mdb = inp["mdb"]["variables"].get(name)
    if mdb:
        vt = mdb["VARIABLE_TYPE"]
        return (numeric_unit(name, inp["units"]) if vt in _NUMERIC_TYPES else inp["units"].get(name, "float")
                if vt == "DOUBLE" else _text_unit(vt, mdb["ENUM_VALUE_LIST"])), None
    for rel in reversed(OLD_MYSQL):
        h = rows.get(rel, {}).get("help")
        if h is not None:
            return ("bool" if h in ("TRUE", "FALSE") else numeric_unit(name, inp["units"])
                    if re.fullmatch(r"-?\d+", h) else "string"), None
    raise KeyError(f"{name}: no type in the old MySQL sources (add it to mysql-types.tsv)")


# The 5.x help tests run mysqld with mysql-test-run's bootstrap options, which set these (the manuals give
# 5.7's defaults as log_error_verbosity 3 and log_warnings 2): what the help shows is not the default.
_OLD_MTR_SET = {"log_error_verbosity", "log_warnings"}
# Printed differently by SHOW GLOBAL VARIABLES than by the help (as in mysql-default-corrections.tsv).
_OLD_PRINTS = {"slave_skip_errors": "OFF"}


def old_default(name: str, row: dict[str, Any], unit: str, fixes: dict[str, dict[str, str]]) -> Any:
    """The default one old tree shows for a variable, or None (not shown, computed, machine-dependent)."""
    if name in _MACHINE or name in _MYSQL_AUTOSIZED or name in _OLD_MTR_SET:
        return None
    if name in _OLD_PRINTS:
        return _OLD_PRINTS[name]
    inno = row.get("inno")
    if inno is not None:
        if inno["default_known"] != "yes" or inno["type"] in ("STR", "ENUM", "SET") and not inno["default"]:
            return None
        if inno["type"] == "BOOL":
            return inno["default"]
        return _typed(inno["default"], unit)
    h = row.get("help")
    if h is not None:
        if "####" in h or "MYSQL_" in h or (h == "-1" and name.startswith("performance_schema_")):
            return None
        if unit == "bool":
            return {"TRUE": "ON", "FALSE": "OFF"}.get(h)
        if h == "":
            return None  # "(No default value)" or a value the test filters: not known from here
        return _typed(h, unit)
    sysr = row.get("sys")
    if sysr is not None and sysr["default_known"] == "yes" and sysr["class"] in (_NUMERIC_SYS - {"session_special"}) | {"mybool"} \
            and sysr["scope"] in ("global", "both"):  # a session-only value is the connection's own (pseudo_thread_id)
        if sysr["class"] == "mybool":
            return {"1": "ON", "0": "OFF"}.get(sysr["default"])
        return _typed(sysr["default"], unit) if unit in ("bytes", "count", "seconds", "milliseconds", "microseconds") else None
    return None


# sql_log_bin is defined with SESSION_VAR but refuses SET GLOBAL (5.5.41+) and SHOW GLOBAL VARIABLES leaves it out
# (the 5.7.44 capture; the 5.7 manual's scope is Session).
_OLD_SCOPE = {"sql_log_bin": "session"}


def _mid80_is_var(name: str, inp: dict[str, Any]) -> bool:
    """A help-table name of an 8.0 tree is taken as the variable when the 8.0.41 sources have it as one."""
    return name in inp["inno80"] or name in inp["ref84"] or name in inp["percona80"]


def mid80_default(name: str, unit: str, inp: dict[str, Any], rel: str) -> Any:
    """The default the 8.0.27 / 8.0.32 tree shows (help table or ha_innodb.cc), as old_default reads them, with
    the 8.0.41 corrections (mysql-default-corrections.tsv) applied; None when not shown."""
    if name in inp["default_fixes"]:
        return _typed(inp["default_fixes"][name]["default"], unit)
    src = inp["mid80"][rel]
    row = {k: src[k][name] for k in ("help", "inno") if name in src[k]}
    r41 = inp["inno80"].get(name)
    if "inno" in row and (r41 is None or r41["default"] == "" or "autosized" in r41["flags"]):
        del row["inno"]  # only where the 8.0.41 definition was read by hand (0 can mean "sized at start-up")
    if not row or name in _OLD_MTR_SET and "help" in row:
        return None
    return old_default(name, row, unit, {})


def old_flags(name: str, row: dict[str, Any]) -> tuple[Optional[str], Optional[bool]]:
    if name in _OLD_SCOPE:
        return _OLD_SCOPE[name], True
    r = row.get("inno") or row.get("sys")
    if r is None or not r.get("scope"):
        return None, None
    return r["scope"], r["read_only"] == "no"


def old_segments(name: str, rows: dict[str, dict[str, Any]], unit: str, top: dict[str, Any],
                 inp: dict[str, Any]) -> tuple[list[dict[str, Any]], Optional[tuple[int, int, int]], tuple[int, int, int]]:
    """Version entries for 5.6 / 5.7 from the sightings (5.6.29, 5.7.22, 5.7.41) and the earliest and
    latest release they cover. Existence: 5.6 from 5.6.29; 5.7 from 5.7.0 when 5.6.29 and 5.7.22 both
    have it, else from its first sighting; to the end of 5.7 when 5.7.41 has it. Defaults: each tree's
    value from that tree on, to the next tree when the next one shows the same."""
    seen = {rel: rows[rel] for rel in OLD_MYSQL if rel in rows}
    if "5.7.41" not in seen and "5.7.22" in seen and name in inp["mysql57"]:
        seen["5.7.41"] = {}  # the 5.7.44 capture has it (the 5.7.41 help test filters it): present, default not shown
    d = {rel: old_default(name, r, unit, inp["default_fixes"]) if r else None for rel, r in seen.items()}
    segs: list[tuple[tuple[int, int, int], tuple[int, int, int], Any, str]] = []  # (from, to, default, release)
    if "5.6.29" in seen:
        segs.append(((5, 6, 29), (5, 7, 0), d["5.6.29"], "5.6.29"))
    if "5.7.22" in seen:
        first = (5, 7, 0) if "5.6.29" in seen else (5, 7, 22)
        if first < (5, 7, 22):
            segs.append((first, (5, 7, 22), None, "5.7.22"))
        if "5.7.41" in seen:
            dep22 = seen["5.7.22"].get("sys", {}).get("deprecated") == "yes"
            if d["5.7.22"] == d["5.7.41"] and (not seen["5.7.41"] or dep22 == (seen["5.7.41"].get("sys", {}).get("deprecated") == "yes")):
                segs.append(((5, 7, 22), (8, 0, 0), d["5.7.41"], "5.7.41"))
            else:
                segs += [((5, 7, 22), (5, 7, 23), d["5.7.22"], "5.7.22"), ((5, 7, 23), (5, 7, 41), None, "5.7.22"),
                         ((5, 7, 41), (8, 0, 0), d["5.7.41"], "5.7.41")]
        else:
            segs.append(((5, 7, 22), (5, 7, 23), d["5.7.22"], "5.7.22"))
    elif "5.7.41" in seen:
        segs.append(((5, 7, 41), (8, 0, 0), d["5.7.41"], "5.7.41"))
    if segs and "5.6.29" in seen and segs[0][1] == (5, 7, 0) and len(segs) > 1 and segs[1][0] != (5, 7, 0):
        segs = segs[:1]  # not in 5.7.0-5.7.21: the 5.6 sighting stands alone (coverage stops at 5.7.0)
    out = []
    for a, b, default, rel in segs:
        e: dict[str, Any] = {"flavors": ["mysql"], "range": f">={_s(a)},<{_s(b)}"}
        if default is not None:
            e["default"] = default
        scope, dyn = old_flags(name, seen[rel] or seen.get("5.7.22", {}))
        if a >= (5, 7, 22) or a == (5, 6, 29) or a == (5, 7, 41):
            if (seen[rel] or seen.get("5.7.22", {})).get("sys", {}).get("deprecated") == "yes":
                e["deprecated"] = True
        if scope is not None and scope != top["scope"]:
            e["scope"] = scope
        if dyn is not None and dyn != top["dynamic"]:
            e["dynamic"] = dyn
        out.append(e)
    if not out:
        return [], None, (0, 0, 0)
    return out, _v(out[0]["range"].split(",")[0][2:]), _v(out[-1]["range"].split(",")[1][1:])


def old_only_entry(name: str, rows: dict[str, dict[str, Any]], inp: dict[str, Any]) -> Optional[dict[str, Any]]:
    """A variable the old trees have and the 8.0 / 8.4 sources do not."""
    unit, enum = old_unit(name, rows, inp)
    last = rows[max(rows, key=_v)]
    scope, dyn = old_flags(name, last)
    if scope is None:
        mdb = inp["mdb"]["variables"].get(name)
        if mdb is not None:
            scope, dyn = _MDB_SCOPE[mdb["VARIABLE_SCOPE"]], mdb["READ_ONLY"] == "NO"
        elif name in inp["mysql_types"] and inp["mysql_types"][name].get("scope"):
            scope, dyn = inp["mysql_types"][name]["scope"], inp["mysql_types"][name]["dynamic"] == "yes"
        else:
            scope, dyn = "both", True  # the session-only pseudo variables without a definition class
    top: dict[str, Any] = {"unit": unit, "scope": scope, "dynamic": bool(dyn)}
    segs, lo, hi = old_segments(name, rows, unit, top, inp)
    if not segs:
        return None
    if enum:
        top["enum"] = enum
    note = "not in the MySQL 8.0.41 sources: whether and until when 8.0 had it is not recorded"
    if lo and lo > (5, 7, 0):
        note = f"first seen in the {_s(lo)} sources; " + note
    window = f">={_s(lo)},<{_s(hi)}"
    if hi == (5, 7, 0) and "5.7.22" not in rows and "5.7.41" not in rows:
        window += " || >=5.7.22,<8.0.0"  # neither 5.7 tree has it
    if not any(o.replace("-", "_") == name for o in inp["help80"]):
        window += " || >=8.0.41,<8.5.0"  # nor the 8.0.41 sources or the 8.4 reference
    top.update({"covered": ["mysql"], "coverage": {"mysql": window},
                "src": sorted({f"mysql-{rel}" for rel in rows}), "versions": segs, "note": note})
    return top


def build_mysql(inp: dict[str, Any]) -> dict[str, dict[str, Any]]:
    names = mysql_names(inp)
    inp["old_names"] = old_mysql_names(inp)
    out = {name: mysql_entry(name, info, inp) for name, info in sorted(names.items())}
    for name, rows in inp["old_names"].items():
        if name not in out:
            e = old_only_entry(name, rows, inp)
            if e is not None:
                out[name] = e
    percona57_versions(out, inp)
    return dict(sorted(out.items()))


def percona57_names(inp: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """name -> row ({"sys"|"inno"|"help": ...}) of the Percona Server 5.7.22 tree, by the rule the MySQL trees use."""
    src = inp["percona57"]
    names = set(src["sys"]) | set(src["inno"]) | {n for n in src["help"] if n.startswith("myisam_") and n in inp["mysql57"]}
    return {n: {k: src[k][n] for k in ("sys", "inno", "help") if n in src[k]} for n in sorted(names)
            if not (n in inp["excluded"] or is_plugin(n) or n.startswith(_OLD_NOT_VARS) or "debug" in n)}


def percona57_versions(out: dict[str, dict[str, Any]], inp: dict[str, Any]) -> None:
    """Percona Server 5.7 entries from its 5.7.22-22 tree. Percona Server follows MySQL: a variable the tree
    and MySQL's 5.7.41 tree (or the 5.7.44 capture) both have exists from 5.7.22 to the end of 5.7, with the
    tree's default there when MySQL 5.7.41 shows the same (the next tree read), else for 5.7.22 only; one
    only Percona's tree has (XtraDB's, Percona's features) is known at 5.7.22 only."""
    fixes = inp["default_fixes"]
    for name, row in percona57_names(inp).items():
        e = out.get(name)
        mysql_rows = inp["old_names"].get(name, {})
        if e is None:
            unit, enum = old_unit(name, {"5.7.41": row}, inp)
            scope, dyn = old_flags(name, row)
            if scope is None:
                mdb = inp["mdb"]["variables"].get(name)
                scope, dyn = (_MDB_SCOPE[mdb["VARIABLE_SCOPE"]], mdb["READ_ONLY"] == "NO") if mdb else ("both", True)
            e = {"unit": unit, "scope": scope, "dynamic": bool(dyn)}
            if enum:
                e["enum"] = enum
            e.update({"covered": [], "coverage": {}, "src": [], "versions": [],
                      "note": "in the Percona Server 5.7.22 tree, not in the MySQL sources read"})
            out[name] = e
        unit = e["unit"]
        d = old_default(name, row, unit, fixes)
        scope, dyn = old_flags(name, row)
        later = "5.7.41" in mysql_rows or (name in inp["mysql57"] and "5.7.22" in mysql_rows)
        d41 = old_default(name, mysql_rows["5.7.41"], unit, fixes) if "5.7.41" in mysql_rows else None
        segs = []
        if later and d is not None and d == d41:
            segs.append(((5, 7, 22), (8, 0, 0), d))
        elif later:
            segs += [((5, 7, 22), (5, 7, 23), d), ((5, 7, 23), (8, 0, 0), None)]
        else:
            segs.append(((5, 7, 22), (5, 7, 23), d))
        versions = []
        for a, b, dv in segs:
            x: dict[str, Any] = {"flavors": ["percona"], "range": f">={_s(a)},<{_s(b)}"}
            if dv is not None:
                x["default"] = dv
            if scope is not None and scope != e["scope"]:
                x["scope"] = scope
            if dyn is not None and dyn != e["dynamic"]:
                x["dynamic"] = dyn
            if row.get("sys", {}).get("deprecated") == "yes":
                x["deprecated"] = True
            versions.append(x)
        window = f">={_s(segs[0][0])},<{_s(segs[-1][1])}"
        e["versions"] = e["versions"] + versions
        if "percona" not in e["covered"]:
            e["covered"] = e["covered"] + ["percona"]
            e["coverage"] = dict(e["coverage"], percona=window)
        else:
            prev = e["coverage"]["percona"]
            end = window.split(",<")[1]
            joined = (window.split(",")[0] + "," + prev.split(",", 1)[1]) if prev.startswith(f">={end},") else None
            e["coverage"] = dict(e["coverage"], percona=joined or window + " || " + prev)
        e["src"] = e["src"] + ["percona-5.7.22"]


# ------------------------------------------------------------------------------------ output

def _validate(flavor: str, entries: dict[str, dict[str, Any]]) -> None:
    from advisor.knowledge.schema import VariableFile

    for name, e in entries.items():
        body = {k: v for k, v in e.items() if k != "src"}
        body["sources"] = [URL[s] for s in e["src"]]
        try:
            VariableFile.model_validate(body)
        except Exception as err:
            raise SystemExit(f"tools/catalogue/build.py: generated {flavor} entry {name}: {err}") from None


def _most_common(values: list[Any]) -> Any:
    keyed: dict[str, tuple[int, Any]] = {}
    for v in values:
        k = json.dumps(v, sort_keys=True)
        keyed[k] = (keyed.get(k, (0, v))[0] + 1, v)
    return max(keyed.values(), key=lambda x: x[0])[1]


def render(flavor: str, entries: dict[str, dict[str, Any]], inputs: list[str]) -> str:
    """Compact JSON: the most common covered/coverage/src of the file's variables and the most common
    flavors/range of their version entries are written once ("var_defaults", "entry_defaults");
    each variable and entry carries only what differs (advisor.knowledge.merged.expand undoes it)."""
    used = sorted({s for e in entries.values() for s in e["src"]})
    var_defaults = {k: _most_common([e.get(k) for e in entries.values()]) for k in ("covered", "coverage", "src")}
    all_entries = [v for e in entries.values() for v in e["versions"]]
    entry_defaults = {k: _most_common([v.get(k) for v in all_entries]) for k in ("flavors", "range")}
    head = {"generated_by": "tools/catalogue/build.py (do not edit; rebuild with python -m tools.catalogue.build)",
            "flavor": flavor, "inputs": inputs, "sources": {k: URL[k] for k in used},
            "var_defaults": var_defaults, "entry_defaults": entry_defaults}
    body = []
    for n, e in sorted(entries.items()):
        slim = {k: v for k, v in e.items() if k == "versions" or var_defaults.get(k, object()) != v}
        slim["versions"] = [{k: v for k, v in x.items() if entry_defaults.get(k, object()) != v} for x in e["versions"]]
        body.append(json.dumps(n) + ":" + json.dumps(slim, separators=(",", ":"), sort_keys=True))
    lines = [json.dumps(head, separators=(",", ":"))[:-1] + ',"variables":{']
    return "\n".join(lines) + "\n" + ",\n".join(body) + "\n}}\n"


def build() -> dict[str, str]:
    sys.path.insert(0, str(ROOT / "src"))
    inp = load_inputs()
    mdb = build_mariadb(inp)
    my = build_mysql(inp)
    _validate("mariadb", mdb)
    _validate("mysql", my)
    return {
        "generated-mariadb.json": render("mariadb", mdb, ["mariadb-10.11.19-system-variables.json",
                                                          "mariadb-10.4.12-system-variables.tsv",
                                                          "mariadb-10.6-snapshot-help-variables.tsv",
                                                          "mariadb-11.4-snapshot-help-variables.tsv",
                                                          "mariadb-10.6-docs-innodb-variables.tsv",
                                                          "mariadb-11.4-docs-innodb-variables.tsv", "units.tsv"]),
        "generated-mysql.json": render("mysql", my, sorted(p.name for p in SOURCES.glob("mysql-*.tsv")) +
                                       sorted(p.name for p in SOURCES.glob("percona-*.tsv")) + [
            "units.tsv", "excluded.tsv", "tests/fixtures/flavors/percona-8.0/variables.json",
            "tests/fixtures/flavors/mysql-8.4/variables.json", "tests/fixtures/flavors/mysql-5.7/variables.json"]),
    }


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.catalogue.build", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a committed generated file differs")
    args = ap.parse_args(argv)
    files = build()
    stale = []
    for name, text in files.items():
        path = OUT / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            n = text.count("\n") - 2
            print(f"wrote {path.relative_to(ROOT)} ({n} variables, {len(text) // 1024} KiB)")
    if stale:
        print(f"stale: {', '.join(stale)}; rebuild with python -m tools.catalogue.build", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
