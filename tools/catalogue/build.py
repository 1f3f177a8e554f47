"""Rebuild the generated variable catalogue from the saved source extracts (offline, reproducible).

    .venv/bin/python -m tools.catalogue.build           # write src/advisor/knowledge/generated-*.json
    .venv/bin/python -m tools.catalogue.build --check   # exit 1 when the committed files are stale

Inputs (tools/catalogue/sources/, provenance in PROVENANCE.md there):
  MariaDB 10.11.19  mariadb-10.11.19-system-variables.json   information_schema.SYSTEM_VARIABLES, recorded
                    mariadb-10.11.19-help-variables.tsv       mariadbd --no-defaults --verbose --help
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


def build_mariadb(inp: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: mariadb_entry(v, inp["units"]) for name, v in sorted(inp["mdb"]["variables"].items())}


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

    def segments(a0: tuple[int, int, int], b0: tuple[int, int, int], flavor: str) -> list[dict[str, Any]]:
        cuts = sorted({c for c in (a0, b0, (8, 0, 41), (8, 1, 0), dep) if c is not None and a0 <= c <= b0})
        out_: list[dict[str, Any]] = []
        for x, y in zip(cuts, cuts[1:]):
            e: dict[str, Any] = {"flavors": [flavor], "range": f">={_s(x)},<{_s(y)}"}
            if default is not None and x >= (8, 0, 41) and y <= (8, 1, 0):
                e["default"] = default
            if dep and x >= dep:
                e["deprecated"] = True
            out_.append(e)
        return out_

    versions = segments(start, end, "mysql") if start < end else []
    if not versions and removed and removed <= lo:
        # removed before the window (8.0.0): the manual says it existed before; outside the coverage
        versions.append({"flavors": ["mysql"], "range": f"<{_s(removed)}"})
    covered = ["mysql"]
    cov = {"mysql": f">={_s(lo)},<{_s(hi)}"}
    if p80 or p84:
        # Percona Server follows MySQL; its captures (8.0.32, 8.4.5) show which variables it has
        pv = [dict(e, flavors=["percona"]) for e in versions if p80 and _v(e["range"].split(",")[0][2:]) < (8, 1, 0)]
        if p84:
            pv += [e for e in segments((8, 4, 0), (8, 5, 0), "percona")]
        if pv:
            covered.append("percona")
            plo = lo if p80 else (8, 4, 0)
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
    elif known80 > (8, 0, 0):
        notes.append(f"first seen in the {_s(known80)} sources; earlier 8.0 releases are not known")
    if name in _MACHINE or (inno and "autosized" in inno.get("flags", "")):
        notes.append("its value depends on the machine or the installation")
    if notes:
        out["note"] = "; ".join(notes)
    return out


def build_mysql(inp: dict[str, Any]) -> dict[str, dict[str, Any]]:
    names = mysql_names(inp)
    return {name: mysql_entry(name, info, inp) for name, info in sorted(names.items())}


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
        "generated-mariadb.json": render("mariadb", mdb, ["mariadb-10.11.19-system-variables.json", "units.tsv"]),
        "generated-mysql.json": render("mysql", my, sorted(p.name for p in SOURCES.glob("mysql-*.tsv")) + [
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
