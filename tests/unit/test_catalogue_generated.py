"""The generated part of the variable catalogue (tools/catalogue/build.py over the extracts in
tools/catalogue/sources/): it is current, valid, covers every variable of its sources, gives every
variable a unit, carries the lifecycle the manuals state, and agrees with the curated entries
except for the differences listed here with their reasons."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from advisor import knowledge as K
from advisor.knowledge.merged import _generated
from advisor.knowledge.schema import Unit, VariableFile
from advisor.knowledge.values import normalise
from advisor.versions import Version, VersionRange

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "tools" / "catalogue" / "sources"
sys.path.insert(0, str(ROOT))

from tools.catalogue import build as B  # noqa: E402
from tools.catalogue.parse import parse_help_variables, tsv_rows  # noqa: E402


@pytest.fixture(scope="module")
def inputs():
    return B.load_inputs()


@pytest.fixture(scope="module")
def built():
    return B.build()


def _raw(name: str) -> dict:
    return json.loads((ROOT / "src" / "advisor" / "knowledge" / name).read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the files

def test_generated_files_are_current(built):
    for name, text in built.items():
        path = ROOT / "src" / "advisor" / "knowledge" / name
        assert path.read_text(encoding="utf-8") == text, f"{name} is stale: run python -m tools.catalogue.build"


@pytest.mark.parametrize("name", ["generated-mariadb.json", "generated-mysql.json"])
def test_every_generated_entry_validates(name):
    raw = _raw(name)
    assert raw["generated_by"].startswith("tools/catalogue/build.py")
    from advisor.knowledge.merged import expand

    for var in raw["variables"]:
        body = expand(raw, var)
        data = {k: v for k, v in body.items() if k != "src"}
        data["sources"] = [raw["sources"][s] for s in body["src"]]
        VariableFile.model_validate(data)
        assert var == var.lower()


def test_sources_carry_provenance():
    text = (SOURCES / "PROVENANCE.md").read_text(encoding="utf-8")
    for f in SOURCES.iterdir():
        if f.name != "PROVENANCE.md":
            assert f"`{f.name}`" in text, f"{f.name} has no entry in PROVENANCE.md"
    for url in B.URL.values():
        assert url.startswith("https://")


def test_help_parser_reads_the_variables_table():
    text = ("--foo  bar\n\nVariables (--variable-name=value)\nand boolean options {FALSE|TRUE}  Value (after reading options)\n"
            "---------------- -----\nsort-buffer-size 2097152\nlog-bin (No default value)\n\nTo see what values ...\n")
    assert parse_help_variables(text) == {"sort-buffer-size": "2097152", "log-bin": ""}
    with pytest.raises(ValueError, match="Variables"):
        parse_help_variables("no table here")


# ---------------------------------------------------------------- coverage of the sources

def test_every_mysql_source_variable_is_catalogued(inputs):
    """Each variable the MySQL extracts name is catalogued for the release the extract describes,
    or is excluded as a class (plugin/component variables) or by name with a reason."""
    excluded = inputs["excluded"]
    assert all(r["reason"] for r in excluded.values())
    missing = []
    for name, row in inputs["ref84"].items():  # the 8.4 manual's system variable reference
        if name in excluded or B.is_plugin(name):
            continue
        if K.exists_on(name, "mysql", "8.4.3") is not True:
            missing.append(f"{name} (8.4)")
    for name, row in inputs["inno80"].items():  # ha_innodb.cc of 8.0.41
        if row["build"] == "release" and name != "innodb_status_file" and K.exists_on(name, "mysql", "8.0.41") is not True:
            missing.append(f"{name} (8.0.41 InnoDB)")
    variables = set(inputs["ref84"]) | inputs["percona80"] | set(B.mysql_names(inputs))
    for opt in inputs["help80"]:  # mysqld --help of 8.0.41: options that are variables
        name = opt.replace("-", "_")
        if name in variables and name not in excluded and not B.is_plugin(name):
            if K.exists_on(name, "mysql", "8.0.41") is not True:
                missing.append(f"{name} (8.0.41 server)")
    assert not missing, missing
    assert len([n for n in K.names() if K.exists_on(n, "mysql", "8.0.41")]) >= 550
    assert len([n for n in K.names() if K.exists_on(n, "mysql", "8.4.3")]) >= 550


def test_mysql_options_that_are_not_variables_are_known(inputs):
    """Every option of the 8.0.41 help is a catalogued variable, or an option without a variable of
    its name (the 8.4 reference, the lifecycle pages and the Percona capture do not list it as one)."""
    names = B.mysql_names(inputs)
    options_only = sorted(o for o in inputs["help80"] if o.replace("-", "_") not in names)
    assert "skip-grant-tables" in options_only and "initialize" in options_only and "help" in options_only
    assert "sort-buffer-size" not in options_only
    for o in options_only:
        assert K.exists_on(o.replace("-", "_"), "mysql", "8.0.41") is not True, o


def test_every_recorded_mariadb_variable_is_catalogued_with_its_default(inputs):
    rows = inputs["mdb"]["variables"]
    v = Version.parse(inputs["mdb"]["server"]["version"])
    compared = 0
    for name, row in rows.items():
        assert K.exists_on(name, "mariadb", v) is True, name
        d = K.default_for(name, "mariadb", v)
        if row["GLOBAL_VALUE_ORIGIN"] == "COMPILE-TIME" and d is not None and row["GLOBAL_VALUE"] is not None:
            assert K.is_default(name, row["GLOBAL_VALUE"], "mariadb", v) is True, (name, row["GLOBAL_VALUE"], d)
            compared += 1
    assert compared >= 450


def test_generated_mariadb_window_is_honest():
    # the data is from 10.4.12 and 10.11.19: a variable only 10.11.19 has is absent on 10.4.12 and "not
    # known" in between (10.5-10.10 were not read), unless a curated entry says more
    assert K.exists_on("innodb_log_file_mmap", "mariadb", "10.11.19") is True
    assert K.exists_on("innodb_log_file_mmap", "mariadb", "10.4.12") is False
    assert K.exists_on("innodb_log_file_mmap", "mariadb", "10.6.18") is None
    problems = K.check_setting("innodb_log_file_mmap", "ON", "mariadb", "10.6.18")
    assert problems and "catalogued for MariaDB >=10.4.12,<10.5 and >=10.11.0,<10.12 only" in problems[0]
    # one both have existed in between; the 10.6 snapshot's help table (between 10.6.1 and 10.6.13) shows 0
    # as 10.4.12 and 10.11.19 do: the default holds across by continuity
    assert K.exists_on("binlog_commit_wait_count", "mariadb", "10.6.18") is True
    assert K.default_for("binlog_commit_wait_count", "mariadb", "10.6.18") == "0"
    assert K.default_for("binlog_commit_wait_count", "mariadb", "10.4.12") == "0"
    # the snapshot shows OFF as 10.4.12 does, 10.11.19 shows ON (changed in 10.10): OFF up to the snapshot,
    # nothing claimed after it (where between 10.6.x and 10.11 it changed is not in these sources)
    assert K.default_for("explicit_defaults_for_timestamp", "mariadb", "10.5.15") == "OFF"
    assert K.exists_on("explicit_defaults_for_timestamp", "mariadb", "10.6.18") is True
    assert K.default_for("explicit_defaults_for_timestamp", "mariadb", "10.6.18") is None
    # the help table does not show slave_parallel_mode's default (10.11.19 prints conservative, defaults to
    # optimistic): no snapshot value is taken for it
    assert K.default_for("slave_parallel_mode", "mariadb", "10.6.18") is None
    assert K.default_for("slave_parallel_mode", "mariadb", "11.4.4") is None
    # a curated entry keeps its own ranges
    assert K.exists_on("innodb_log_files_in_group", "mariadb", "10.6.18") is False


# ---------------------------------------------------------------- units

def test_every_variable_has_a_unit():
    units = set(Unit.__args__)  # type: ignore[attr-defined]
    for name in K.names():
        assert K.unit_of(name) in units, name


@pytest.mark.parametrize("name,unit", [
    ("innodb_io_capacity", "count"), ("innodb_io_capacity_max", "count"), ("thread_cache_size", "count"),
    ("max_connections", "count"), ("table_open_cache", "count"), ("innodb_lru_scan_depth", "count"),
    ("sort_buffer_size", "bytes"), ("innodb_redo_log_capacity", "bytes"), ("max_allowed_packet", "bytes"),
    ("innodb_old_blocks_time", "milliseconds"), ("max_execution_time", "milliseconds"),
    ("binlog_group_commit_sync_delay", "microseconds"), ("innodb_thread_sleep_delay", "microseconds"),
    ("long_query_time", "seconds"), ("wait_timeout", "seconds"), ("innodb_lock_wait_timeout", "seconds"),
    ("local_infile", "bool"), ("binlog_format", "enum"), ("sql_mode", "set"), ("datadir", "string"),
    ("innodb_max_dirty_pages_pct", "float"),
])
def test_unit_of(name, unit):
    assert K.unit_of(name) == unit
    assert K.unit_of(name.upper(), "mysql", "8.0.36") == unit


def test_unit_of_unknown_is_none():
    assert K.unit_of("no_such_variable") is None


def test_unit_table_names_catalogued_numeric_variables(inputs):
    numeric = ("bytes", "count", "seconds", "milliseconds", "microseconds", "float")
    for name, unit in inputs["units"].items():
        assert unit in numeric, name
        assert name in K.catalogue(), f"units.tsv names {name}, which no source has"


# ---------------------------------------------------------------- lifecycle

def test_mysql_lifecycle_from_the_manuals():
    # innodb_log_file_size: deprecated in 8.0.30 in favour of innodb_redo_log_capacity
    spec = K.info("innodb_log_file_size", "mysql", "8.0.36")
    assert spec.deprecated and spec.replaced_by == ("innodb_redo_log_capacity",)
    assert K.exists_on("innodb_redo_log_capacity", "mysql", "8.0.29") is False
    assert K.exists_on("innodb_redo_log_capacity", "mysql", "8.0.30") is True
    # default_authentication_plugin: deprecated 8.0.27, removed 8.4.0, replaced by authentication_policy
    assert K.info("default_authentication_plugin", "mysql", "8.0.36").deprecation == "deprecated since mysql 8.0.27"
    p = K.check_setting("default_authentication_plugin", "caching_sha2_password", "mysql", "8.4.3")
    assert p == ["default_authentication_plugin does not exist on MySQL 8.4.3: removed in MySQL 8.4.0; "
                 "use authentication_policy instead"]
    # expire_logs_days: deprecated 8.0.3, removed 8.2.0 (not 8.4.0), replaced by binlog_expire_logs_seconds
    assert K.exists_on("expire_logs_days", "mysql", "8.0.36") is True
    assert K.exists_on("expire_logs_days", "mysql", "8.2.0") is False
    assert "use binlog_expire_logs_seconds" in K.check_setting("expire_logs_days", "7", "mysql", "8.4.3")[0]
    # the query cache and tx_isolation went in 8.0.3
    for name in ("query_cache_type", "query_cache_size", "query_cache_limit", "query_cache_min_res_unit",
                 "query_cache_wlock_invalidate", "tx_isolation", "tx_read_only"):
        assert K.exists_on(name, "mysql", "8.0.36") is False, name
        assert K.catalogue()[name].removed["mysql"] == "8.0.3", name
    assert "use transaction_isolation" in K.check_setting("tx_isolation", "READ-COMMITTED", "mysql", "8.0.36")[0]
    # binlog_format is deprecated from 8.0.34 (the curated entry said nothing until checked)
    assert not K.info("binlog_format", "mysql", "8.0.33").deprecated
    assert K.info("binlog_format", "mysql", "8.0.34").deprecated
    # slave_* names point at their replica_* successors
    assert K.info("slave_parallel_workers", "mysql", "8.0.36").replaced_by == ("replica_parallel_workers",)


def test_replication_renames_are_deprecated_and_marked_renamed():
    # MySQL 8.0.26 renamed slave_* to replica_* (mysqld --help of 8.0.41: "This option is deprecated. Use
    # replica_skip_errors instead."); the server prints both names with one value
    for name, new in (("slave_skip_errors", "replica_skip_errors"), ("log_slave_updates", "log_replica_updates"),
                      ("slave_parallel_workers", "replica_parallel_workers"), ("skip_slave_start", "skip_replica_start"),
                      ("slave_allow_batching", "replica_allow_batching")):
        spec = K.info(name, "mysql", "8.0.41")
        assert spec.deprecated and spec.replaced_by == (new,) and spec.renamed, name
    assert K.info("slave_net_timeout", "mysql", "8.0.36").deprecation == "deprecated since mysql 8.0.26"
    assert not K.info("slave_net_timeout", "mysql", "8.0.25").deprecated
    assert not K.info("slave_net_timeout", "mariadb", "10.11.19").deprecated  # MariaDB keeps the name
    assert K.info("tx_isolation", "mysql", "5.7.44").renamed
    # a successor is a different variable, not a new name
    for name in ("innodb_log_file_size", "expire_logs_days", "default_authentication_plugin"):
        assert not K.info(name, "mysql", "8.0.36").renamed, name


def test_defaults_the_help_result_does_not_show():
    # refman: log_replica_updates is ON unless the binary log is off; SHOW VARIABLES prints OFF for
    # slave_skip_errors; the performance_schema sizes print their autosized value, not -1
    for name, want in (("log_replica_updates", "ON"), ("log_slave_updates", "ON"), ("replica_skip_errors", "OFF"),
                       ("slave_skip_errors", "OFF"), ("optimizer_trace_offset", "-1"),
                       ("performance_schema_session_connect_attrs_size", None)):
        assert K.default_for(name, "mysql", "8.0.41") == want, name
    assert K.is_default("log_slave_updates", "ON", "mysql", "8.4.3") is True


def test_removed_before_the_window_is_still_known():
    # innodb_file_format left in 8.0.0: known as absent on 8.0, and present on 5.6 / 5.7 (their trees)
    assert K.exists_on("innodb_file_format", "mysql", "8.0.36") is False
    assert "removed in MySQL 8.0.0" in K.check_setting("innodb_file_format", "Barracuda", "mysql", "8.0.36")[0]
    assert K.exists_on("innodb_file_format", "mysql", "5.7.44") is True
    assert K.default_for("innodb_file_format", "mysql", "5.7.44") is None  # ha_innodb.cc names no literal default
    assert K.exists_on("innodb_file_format", "mysql", "5.6.29") is True
    assert K.exists_on("innodb_file_format", "mysql", "5.5.62") is None  # before any tree read


def test_first_sighting_bounds_what_is_claimed():
    # explain_json_format_version appears in the 8.4 reference only: 8.0 is not known
    assert K.exists_on("explain_json_format_version", "mysql", "8.4.3") is True
    assert K.exists_on("explain_json_format_version", "mysql", "8.0.36") is None
    # defaults from the 8.0.41 sources are claimed for 8.0.41 and later 8.0 releases, from the 8.0.32 and
    # 8.0.27 trees back to 8.0.27 where each next tree shows the same; earlier 8.0 releases are not known
    assert K.default_for("innodb_old_blocks_time", "mysql", "8.0.41") == "1000"
    assert K.default_for("innodb_old_blocks_time", "mysql", "8.0.36") == "1000"
    assert K.default_for("innodb_old_blocks_time", "mysql", "8.0.27") == "1000"
    assert K.default_for("innodb_old_blocks_time", "mysql", "8.0.20") is None
    assert K.exists_on("innodb_old_blocks_time", "mysql", "8.0.36") is True


def test_percona_coverage_follows_its_captures():
    assert K.exists_on("innodb_io_capacity", "percona", "8.0.32") is True
    # Percona Server 8.4.5 still has the InnoDB memcached variables MySQL removed in 8.3.0
    assert K.exists_on("innodb_api_trx_level", "mysql", "8.4.3") is False
    assert K.exists_on("innodb_api_trx_level", "percona", "8.4.5") is True


def test_mariadb_deprecations_from_the_server():
    spec = K.info("innodb_purge_rseg_truncate_frequency", "mariadb", "10.11.19")
    assert spec.deprecated and spec.noop and spec.deprecation == "deprecated"
    assert "has no effect" in K.check_setting("innodb_purge_rseg_truncate_frequency", "128", "mariadb", "10.11.19")[0]


# ---------------------------------------------------------------- curated over generated

# Differences between a curated entry and the servers' own data that are deliberate.
_MDB104_LIMITS = "the curated MariaDB entry gives 10.11's limits and flags for every release; 10.4.12's differ"
ACCEPTED = {
    "innodb_buffer_pool_instances mariadb 10.4.12: min curated=1.0 generated=0": _MDB104_LIMITS,
    "innodb_buffer_pool_size mariadb 10.4.12: min curated=2097152.0 generated=5242880": _MDB104_LIMITS,
    "innodb_io_capacity mariadb 10.4.12: max curated=4294967295.0 generated=1.8446744073709552e+19": _MDB104_LIMITS,
    "innodb_lock_wait_timeout mariadb 10.4.12: max curated=100000000.0 generated=1073741824": _MDB104_LIMITS,
    "innodb_log_buffer_size mariadb 10.4.12: min curated=2097152.0 generated=262144": _MDB104_LIMITS,
    "innodb_page_cleaners mariadb 10.4.12: dynamic curated=False generated=True": _MDB104_LIMITS,
    "innodb_write_io_threads mariadb 10.4.12: min curated=2.0 generated=1": _MDB104_LIMITS,
    "optimizer_prune_level mariadb 10.4.12: max curated=2.0 generated=1": _MDB104_LIMITS + " (10.9 added level 2)",
    "tmp_table_size mariadb 10.4.12: min curated=0.0 generated=1024": _MDB104_LIMITS,
    "skip_grant_tables mariadb 10.4.12: exists curated=True generated=False":
        "the 10.4.12 sysvars results do not list it (a startup option there); the curated entry does not date "
        "when it became a variable",
    "expire_logs_days: unit curated=float generated=count":
        "whole days on MySQL, a decimal number of days on MariaDB 10.6+ (its generated data says float); one unit "
        "per variable, and float holds both",
    "have_ssl: unit curated=enum generated=string": "curated lists YES/NO/DISABLED, the values the server prints",
    "innodb_autoinc_lock_mode: unit curated=enum generated=count": "0/1/2 are modes, not quantities",
    "innodb_doublewrite: unit curated=enum generated=bool": "MariaDB 11.x adds 'fast'; 10.11 is boolean and its ON/OFF are members of the enum",
    "innodb_flush_log_at_trx_commit: unit curated=enum generated=count": "0/1/2 are modes, not quantities",
    "innodb_flush_neighbors: unit curated=enum generated=count": "0/1/2 are modes, not quantities",
    "internal_tmp_mem_storage_engine: unit curated=enum generated=string": "curated lists MEMORY/TempTable",
    "transaction_isolation: unit curated=enum generated=string": "curated lists the four isolation levels",
    "innodb_change_buffering mariadb 10.11.19: deprecated curated=True generated=False":
        "MariaDB's manual deprecates it in 10.9; the server's own comment does not say so",
    "innodb_change_buffer_max_size mariadb 10.11.19: deprecated curated=True generated=False":
        "MariaDB's manual deprecates it in 10.9; the server's own comment does not say so",
}


def _conflicts() -> set[str]:
    cat = K.catalogue()
    points = {"mariadb": ["10.4.12", "10.11.19"], "mysql": ["5.6.29", "5.7.22", "5.7.41", "8.0.41", "8.4.0"],
              "percona": ["8.0.41"]}
    out = set()
    for name in cat.curated_names():
        cur = cat._curated[name]
        for d, src in cat.generated(name):
            g = _generated(d, src)
            for fl in (f for f in g.covered if f in cur.covered):
                for ver in points.get(fl, []):
                    v = Version.parse(ver)
                    if g.coverage.get(fl) and not any(VersionRange(w).contains(v) for w in g.coverage[fl].split(" || ")):
                        continue
                    ge = next((e for e in g.versions if fl in e.flavors and VersionRange(e.range).contains(v)), None)
                    ce = next((e for e in cur.versions if fl in e.flavors and VersionRange(e.range).contains(v)), None)
                    if (ge is None) != (ce is None):
                        out.add(f"{name} {fl} {ver}: exists curated={ce is not None} generated={ge is not None}")
                    if ge is None or ce is None:
                        continue
                    if cur.unit != g.unit:
                        out.add(f"{name}: unit curated={cur.unit} generated={g.unit}")
                    for k in ("scope", "dynamic", "min", "max"):
                        cv = getattr(ce, k) if getattr(ce, k) is not None else getattr(cur, k)
                        gv = getattr(ge, k) if getattr(ge, k) is not None else getattr(g, k)
                        if cv is not None and gv is not None and cv != gv:
                            out.add(f"{name} {fl} {ver}: {k} curated={cv} generated={gv}")
                    if ce.default is not None and ge.default is not None and \
                            normalise(ce.default, cur.unit) != normalise(ge.default, cur.unit):
                        out.add(f"{name} {fl} {ver}: default curated={ce.default!r} generated={ge.default!r}")
                    if bool(ce.deprecated) != bool(ge.deprecated):
                        out.add(f"{name} {fl} {ver}: deprecated curated={ce.deprecated} generated={ge.deprecated}")
    return out


def test_curated_entries_agree_with_the_servers_data():
    found = _conflicts()
    new = sorted(found - set(ACCEPTED))
    assert not new, "curated vs generated (fix the curated entry, or accept with a reason): " + "; ".join(new)
    stale = sorted(set(ACCEPTED) - found)
    assert not stale, f"accepted differences that no longer occur: {stale}"


def test_merge_keeps_curated_ranges_and_adds_other_flavors():
    cat = K.catalogue()
    assert cat.origin("sort_buffer_size") == "merged"
    assert cat.origin("innodb_old_blocks_time") == "generated"
    assert cat.origin("tidb_txn_mode") == "curated"
    assert cat.origin("nope") is None
    # aria_pagecache_buffer_size: the curated entry says MySQL has none; the generated data agrees
    assert K.exists_on("aria_pagecache_buffer_size", "mysql", "8.0.36") is False
    # generated limits of one flavor do not leak into another's entries
    spec = K.info("innodb_io_capacity", "mariadb", "10.11.19")
    assert spec.min == 100 and spec.unit == "count"


def test_merge_gives_each_flavor_its_own_limits():
    from advisor.knowledge.merged import Catalogue

    curated = {}
    gen = [{"sources": {"a": "https://a"}, "variables": {"v": {
        "unit": "count", "scope": "global", "dynamic": True, "min": 5, "max": 10, "covered": ["mariadb"],
        "src": ["a"], "versions": [{"flavors": ["mariadb"], "range": "*", "default": 7}]}}},
        {"sources": {"b": "https://b"}, "variables": {"v": {
            "unit": "count", "scope": "both", "dynamic": False, "covered": ["mysql"], "src": ["b"],
            "versions": [{"flavors": ["mysql"], "range": "*"}]}}}]
    cat = Catalogue(curated, gen)
    v = cat["v"]
    mdb = next(e for e in v.versions if "mariadb" in e.flavors)
    my = next(e for e in v.versions if "mysql" in e.flavors)
    assert (mdb.min, mdb.max, mdb.scope) == (5, 10, None)
    assert (my.min, my.max, my.scope, my.dynamic) == (None, None, "both", False)
    assert v.sources == ["https://a", "https://b"] and v.covered == ["mariadb", "mysql"]


# ---------------------------------------------------------------- load time is cached

def test_catalogue_is_loaded_once_and_the_curated_part_is_cached(tmp_path, monkeypatch):
    import subprocess

    env = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "src"),
           "PYTHONDONTWRITEBYTECODE": "1"}  # no byte-code in src/ (the sdist test builds from the tree)
    code = ("from advisor import knowledge as K; c = K.catalogue(); assert c is K.catalogue(); "
            "K.info('sort_buffer_size', 'mysql', '8.0.36'); K.risky('sort_buffer_size'); print(len(c))")
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert int(out.stdout) >= 900
    cached = sorted(p.name.split("-")[0] for p in (tmp_path / "advisor").glob("*.pickle"))
    assert cached == ["risky", "traits", "variables"]  # traits.toml: the variables' one record (issue 23 §1)
    # the two generated files, parsed, as plain data (marshal), private like the pickles
    kept, = (tmp_path / "advisor").glob("generated-json-*.marshal")
    assert kept.stat().st_mode & 0o077 == 0
