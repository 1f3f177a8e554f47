"""The variable catalogue: schema, API, and agreement with recorded servers.

Recorded references: tests/fixtures/knowledge/mariadb-10.11.19-system-variables.tsv (a real MariaDB
10.11.19's information_schema.SYSTEM_VARIABLES, see PROVENANCE.md there) and the version-matrix
sets in tests/fixtures/flavors/ (MySQL 5.7 … TiDB 7.5, each with its PROVENANCE.md).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from advisor import knowledge as K
from advisor.knowledge.defaults import DEFAULT_FORMULAS, Inputs, compute
from advisor.knowledge.schema import VariableFile
from advisor.versions import Version

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MiB, GiB = 1 << 20, 1 << 30


# ---------------------------------------------------------------- the data

def test_catalogue_size_and_sources():
    cat = K.catalogue()
    assert len(cat) >= 80
    for name, var in cat.items():
        assert var.sources, name
        assert all(s.startswith("https://") for s in var.sources), name
        assert name == name.lower(), name


def test_every_variable_exists_somewhere():
    for name, var in K.catalogue().items():
        assert var.versions, name
        if all(fl in var.removed for e in var.versions for fl in e.flavors):
            # removed before the data's window (MySQL variables removed in 8.0.0): the data says so
            fl = var.versions[0].flavors[0]
            assert K.exists_on(name, fl, var.removed[fl]) is False, name
            continue
        assert any(K.exists_on(name, e.flavors[0], _first_version_in(e.range)) for e in var.versions), name


def _first_version_in(rng: str) -> Version:
    from advisor.knowledge.rulecheck import KNOWN_RELEASES, _boundaries
    from advisor.versions import VersionRange

    r = VersionRange(rng)
    cands = sorted(_boundaries([rng]) | {Version.parse(v) for vs in KNOWN_RELEASES.values() for v in vs})
    return next(v for v in cands if r.contains(v))


# ---------------------------------------------------------------- the API the generator uses

def test_exists_on():
    assert K.exists_on("query_cache_size", "mysql", "5.7.44") is True
    assert K.exists_on("query_cache_size", "mysql", "8.0.36") is False
    assert K.exists_on("query_cache_size", "mariadb", "10.11.6") is True
    assert K.exists_on("innodb_log_files_in_group", "mariadb", "10.4.34") is True
    assert K.exists_on("innodb_log_files_in_group", "mariadb", "10.11.6") is False
    assert K.exists_on("innodb_redo_log_capacity", "mysql", "8.0.29") is False
    assert K.exists_on("innodb_redo_log_capacity", "mysql", Version(8, 0, 30)) is True
    assert K.exists_on("innodb_redo_log_capacity", "percona", "8.0.36-28") is True
    assert K.exists_on("no_such_variable", "mysql", "8.0.36") is None
    assert K.exists_on("sort_buffer_size", "tidb", "7.5.1") is None  # TiDB not researched for it
    assert K.exists_on("tidb_enable_prepared_plan_cache", "tidb", "6.0.0") is False
    assert K.exists_on("tidb_enable_prepared_plan_cache", "tidb", "6.1.0") is True


def test_default_for_versions():
    assert K.default_for("innodb_io_capacity", "mysql", "8.0.36") == "200"
    assert K.default_for("innodb_io_capacity", "mysql", "8.4.0") == "10000"
    assert K.default_for("innodb_log_buffer_size", "mysql", "8.4.3") == str(64 * MiB)
    assert K.default_for("innodb_flush_method", "mysql", "8.0.36") == "fsync"
    assert K.default_for("innodb_flush_method", "mysql", "8.4.3") == "O_DIRECT"
    assert K.default_for("innodb_flush_method", "mariadb", "10.5.27") == "fsync"
    assert K.default_for("innodb_flush_method", "mariadb", "10.6.20") == "O_DIRECT"
    assert K.default_for("sort_buffer_size", "mariadb", "10.11.6") == "2097152"
    assert K.default_for("max_allowed_packet", "mysql", "5.7.44") == "4194304"
    assert K.default_for("sync_binlog", "mariadb", "10.11.6") == "0"
    assert K.default_for("log_bin", "mysql", "8.0.36") == "ON"
    assert K.default_for("innodb_change_buffering", "mariadb", "10.6.6") == "all"
    assert K.default_for("innodb_change_buffering", "mariadb", "10.6.7") == "none"
    assert K.default_for("open_files_limit", "mysql", "8.0.36") is None  # autosized, no default
    assert K.default_for("query_cache_size", "mysql", "8.0.36") is None  # does not exist


def test_default_formulas_need_their_inputs():
    assert K.default_for("innodb_read_io_threads", "mysql", "8.4.3") is None
    assert K.default_for("innodb_read_io_threads", "mysql", "8.4.3", cpus=16) == "8"
    assert K.default_for("innodb_read_io_threads", "mysql", "8.4.3", cpus=4) == "4"
    assert K.default_for("innodb_read_io_threads", "mysql", "8.0.36", cpus=64) == "4"
    assert K.default_for("innodb_parallel_read_threads", "mysql", "8.4.3", cpus=64) == "8"
    assert K.default_for("innodb_buffer_pool_instances", "mysql", "8.0.36", buffer_pool_bytes=128 * MiB) == "1"
    assert K.default_for("innodb_buffer_pool_instances", "mysql", "8.0.36", buffer_pool_bytes=4 * GiB) == "8"
    assert K.default_for("innodb_buffer_pool_instances", "mysql", "8.4.3", buffer_pool_bytes=48 * GiB, cpus=16) == "4"
    assert K.default_for("innodb_page_cleaners", "mysql", "8.0.36", buffer_pool_bytes=128 * MiB) == "1"
    assert K.default_for("temptable_max_ram", "mysql", "8.4.3", ram_bytes=64 * GiB) == str(int(64 * GiB * 3 // 100))
    assert K.default_for("temptable_max_ram", "mysql", "8.4.3", ram_bytes=8 * GiB) == str(GiB)
    assert K.default_for("thread_pool_size", "mariadb", "10.11.6", cpus=2) == "2"


@pytest.mark.parametrize("name,inputs,want", [
    ("bp_instances_80", Inputs(buffer_pool_bytes=GiB - 1), 1),
    ("bp_instances_80", Inputs(buffer_pool_bytes=GiB), 8),
    ("bp_instances_84", Inputs(buffer_pool_bytes=GiB, cpus=64), 1),
    ("bp_instances_84", Inputs(buffer_pool_bytes=2 * GiB, cpus=64), 8),      # 2 GiB / 128 MiB / 2 = 8
    ("bp_instances_84", Inputs(buffer_pool_bytes=512 * GiB, cpus=512), 64),  # clamped at 64
    ("bp_instances_84", Inputs(buffer_pool_bytes=8 * GiB, cpus=2), 1),       # cpus / 4 = 0 -> 1
    ("page_cleaners_80", Inputs(buffer_pool_bytes=8 * GiB), 4),
    ("half_cpus_min_4", Inputs(cpus=2), 4),
    ("eighth_cpus_min_4", Inputs(cpus=96), 12),
    ("temptable_max_ram_84", Inputs(ram_bytes=512 * GiB), 4 * GiB),
    ("cpus", Inputs(cpus=24), 24),
])
def test_default_formula_values(name, inputs, want):
    assert compute(name, inputs) == want


def test_default_formula_missing_input_is_none():
    for name, f in DEFAULT_FORMULAS.items():
        assert compute(name, Inputs()) is None, name


def test_info_fields():
    s = K.info("innodb_log_file_size", "mysql", "8.0.36")
    assert s is not None
    assert (s.unit, s.scope, s.dynamic, s.default) == ("bytes", "global", False, "50331648")
    assert s.deprecated and s.deprecated_since == "8.0.30"
    assert s.replaced_by == ("innodb_redo_log_capacity",)
    assert s.sources and s.min == 4194304
    m = K.info("innodb_log_file_size", "mariadb", "10.11.6")
    assert m is not None and m.dynamic is True and not m.deprecated and m.default == "100663296"
    e = K.info("innodb_flush_method", "mysql", "8.0.36")
    assert e is not None and e.enum_values is not None and "O_DIRECT_NO_FSYNC" in e.enum_values
    assert K.info("innodb_buffer_pool_instances", "mysql", "8.4.3").default_formula == "bp_instances_84"
    assert K.info("query_cache_size", "mysql", "8.0.36") is None
    assert K.info("query_cache_size", "mysql", "5.7.44").removed_in == "8.0.3"


def test_check_setting_refuses_variables_missing_on_the_target():
    p = K.check_setting("query_cache_size", 0, "mysql", "8.0.36")
    assert p == ["query_cache_size does not exist on MySQL 8.0.36: removed in MySQL 8.0.3"]
    p = K.check_setting("innodb_log_files_in_group", 2, "mariadb", "10.11.6")
    assert len(p) == 1 and "removed in MariaDB 10.6.0" in p[0]
    p = K.check_setting("innodb_redo_log_capacity", "1G", "mysql", "5.7.44")
    assert p == ["innodb_redo_log_capacity does not exist on MySQL 5.7.44 (it exists on MySQL >=8.0.30)"]
    p = K.check_setting("innodb_log_files_in_group", 2, "mysql", "8.0.36")
    assert p == []  # deprecated but still accepted: info().deprecated says so
    p = K.check_setting("innodb_dedicated_server", "ON", "mariadb", "10.11.6")
    assert p == ["innodb_dedicated_server does not exist on MariaDB"]


def test_check_setting_values():
    assert K.check_setting("innodb_buffer_pool_size", "8G", "mysql", "8.0.36") == []
    assert "below the minimum 100" in K.check_setting("innodb_io_capacity", 50, "mysql", "8.0.36")[0]
    assert "above the maximum" in K.check_setting("max_allowed_packet", "2G", "mariadb", "10.11.6")[0]
    assert "not one of" in K.check_setting("innodb_flush_method", "O_DIRECTX", "mysql", "8.0.36")[0]
    assert K.check_setting("innodb_flush_method", "o_direct", "mysql", "8.0.36") == []
    assert "takes ON or OFF" in K.check_setting("skip_name_resolve", "maybe", "mysql", "8.0.36")[0]
    assert "takes a number" in K.check_setting("max_connections", "lots", "mysql", "8.0.36")[0]
    assert K.check_setting("tls_version", "TLSv1.2,TLSv1.3", "mysql", "8.0.36") == []
    assert "TLSv1.1" in K.check_setting("tls_version", "TLSv1.1,TLSv1.2", "mysql", "8.0.36")[0]
    assert K.check_setting("thread_handling", "pool-of-threads", "percona", "8.0.36") == []
    assert "not one of" in K.check_setting("thread_handling", "pool-of-threads", "mysql", "8.0.36")[0]
    assert "not in the variable catalogue" in K.check_setting("sort_buffer_size", "1M", "tidb", "7.5.1")[0]
    assert "not a flavor" in K.check_setting("sort_buffer_size", "1M", "oracle", "19.0")[0]


def test_is_default():
    assert K.is_default("innodb_io_capacity", "200", "mysql", "8.0.36") is True
    assert K.is_default("innodb_io_capacity", "200", "mysql", "8.4.3") is False
    assert K.is_default("innodb_log_buffer_size", "64M", "mysql", "8.4.3") is True
    assert K.is_default("innodb_adaptive_hash_index", "OFF", "mariadb", "10.11.6") is True
    assert K.is_default("innodb_adaptive_hash_index", "1", "mysql", "8.0.36") is True
    assert K.is_default("innodb_max_dirty_pages_pct", "90", "mysql", "8.0.36") is True
    assert K.is_default("innodb_flush_method", "o_direct", "mysql", "8.4.3") is True
    assert K.is_default("innodb_read_io_threads", "8", "mysql", "8.4.3") is None
    assert K.is_default("innodb_read_io_threads", "8", "mysql", "8.4.3", cpus=16) is True
    assert K.is_default("open_files_limit", "10000", "mysql", "8.0.36") is None
    assert K.is_default("no_such_variable", "1", "mysql", "8.0.36") is None


# ---------------------------------------------------------------- schema

def _var(**over):
    base = {"unit": "count", "scope": "global", "dynamic": True, "sources": ["https://example.org/x"],
            "versions": [{"flavors": ["mysql"], "range": "<8.0.3", "default": 1}]}
    base.update(over)
    return base


def test_schema_is_closed_and_checked():
    VariableFile.model_validate(_var())
    with pytest.raises(ValidationError, match="Extra inputs"):
        VariableFile.model_validate(_var(defualt=1))
    with pytest.raises(ValidationError, match="version range"):
        VariableFile.model_validate(_var(versions=[{"flavors": ["mysql"], "range": "=>8.0"}]))
    with pytest.raises(ValidationError, match="no default formula"):
        VariableFile.model_validate(_var(versions=[{"flavors": ["mysql"], "default_formula": "eval_me"}]))
    with pytest.raises(ValidationError, match="says it exists there"):
        VariableFile.model_validate(_var(removed={"mysql": "5.7.0"}))
    with pytest.raises(ValidationError, match="covers"):
        VariableFile.model_validate(_var(deprecated={"mysql": "8.0.30"}))
    with pytest.raises(ValidationError, match="https"):
        VariableFile.model_validate(_var(sources=["dev.mysql.com"]))
    with pytest.raises(ValidationError, match="covered"):
        VariableFile.model_validate(_var(covered=["mariadb"]))
    VariableFile.model_validate(_var(removed={"mysql": "8.0.3"}))


# ---------------------------------------------------------------- agreement with a real MariaDB 10.11.19

def _mariadb_1011() -> dict[str, dict[str, str]]:
    path = FIXTURES / "knowledge" / "mariadb-10.11.19-system-variables.tsv"
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return {r["VARIABLE_NAME"].lower(): r for r in rows}


MARIADB_AUTOSIZED = {
    # computed at startup; the catalogue records the value a default server prints or a formula
    "thread_pool_size", "open_files_limit", "innodb_open_files", "back_log", "table_open_cache_instances",
    # started with --skip-networking (see the fixture's PROVENANCE.md)
    "skip_networking",
}


def test_catalogue_matches_real_mariadb_1011():
    live = _mariadb_1011()
    v = Version(10, 11, 19)
    checked = 0
    for name, var in K.catalogue().items():
        if "mariadb" not in var.covered:
            continue
        exists = K.exists_on(name, "mariadb", v)
        assert exists == (name in live), f"{name}: catalogue exists={exists}, server has it={name in live}"
        if not exists:
            continue
        row, spec = live[name], K.info(name, "mariadb", v)
        assert spec is not None
        want_scope = {"GLOBAL": "global", "SESSION": "both", "SESSION ONLY": "session"}[row["VARIABLE_SCOPE"]]
        assert spec.scope == want_scope, f"{name}: scope {spec.scope} vs {row['VARIABLE_SCOPE']}"
        assert spec.dynamic == (row["READ_ONLY"] == "NO"), f"{name}: dynamic {spec.dynamic} vs READ_ONLY {row['READ_ONLY']}"
        d = K.default_for(name, "mariadb", v, cpus=2)
        if d is not None and name not in MARIADB_AUTOSIZED:
            assert K.is_default(name, row["GLOBAL_VALUE"], "mariadb", v, cpus=2), \
                f"{name}: catalogue default {d!r}, server prints {row['GLOBAL_VALUE']!r}"
        if spec.min is not None and row["NUMERIC_MIN_VALUE"] not in ("NULL", ""):
            assert float(row["NUMERIC_MIN_VALUE"]) == spec.min, f"{name}: min"
        if spec.max is not None and row["NUMERIC_MAX_VALUE"] not in ("NULL", ""):
            assert float(row["NUMERIC_MAX_VALUE"]) == spec.max, f"{name}: max"
        if spec.enum and row["ENUM_VALUE_LIST"] not in ("NULL", "") and spec.unit in ("enum", "set"):
            assert {x.lower() for x in spec.enum} == {x.lower() for x in row["ENUM_VALUE_LIST"].split(",")}, name
        checked += 1
    assert checked >= 60


# ---------------------------------------------------------------- agreement with the version-matrix sets

# Values the recorded sets carry that are configuration, not compiled-in defaults (see each set's
# PROVENANCE.md): the Docker images' entrypoint config, and a Percona test-suite configuration.
# the mysql-8.0.x sets are derived from a Percona Server 8.0.32 capture: Percona's optimizer_switch has
# favor_range_scan and its performance_schema registers more instrument classes than MySQL's 8.0.32 tree
_PERCONA_VALUES = {"optimizer_switch", "performance_schema_max_memory_classes", "performance_schema_max_rwlock_classes",
                   "performance_schema_max_statement_classes", "performance_schema_max_mutex_classes",
                   "performance_schema_max_cond_classes", "performance_schema_max_stage_classes",
                   "performance_schema_max_thread_classes", "performance_schema_max_file_classes",
                   "performance_schema_max_socket_classes"}
CONFIGURED = {
    "mysql-8.0.28": _PERCONA_VALUES,
    "mysql-8.0.36": _PERCONA_VALUES,
    "mysql-5.7": {"character_set_server", "skip_name_resolve"},
    "mariadb-10.6": {"character_set_server", "skip_name_resolve"},
    # character-set-server = utf8mb4 / collation-server = utf8mb4_general_ci in /etc/mysql: the server
    # derives the connection, database and result character sets and collations from them
    "mariadb-10.11": {"character_set_server", "skip_name_resolve", "character_set_client", "character_set_connection",
                      "character_set_database", "character_set_results", "collation_connection",
                      "collation_database", "collation_server"},
    "mariadb-11.4": {"character_set_server", "skip_name_resolve"},
    "percona-8.0": {"binlog_format", "general_log", "innodb_buffer_pool_chunk_size", "innodb_buffer_pool_size",
                    "innodb_lock_wait_timeout", "innodb_log_file_size", "key_buffer_size", "long_query_time",
                    "slow_query_log", "log_slow_admin_statements",  # the slow log is configured (long_query_time 0)
                    # the sandbox's own configuration, not Percona Server 8.0.32 defaults
                    # (caching_sha2_password, ibdata1:12M:autoextend and local_infile OFF there)
                    "default_authentication_plugin", "innodb_data_file_path", "local_infile"},
    # a cluster created at v5.2: its bootstrap sets both ON over the compiled-in OFF (tidb-5.2/PROVENANCE.md)
    "tidb-5.2": {"tidb_enable_async_commit", "tidb_enable_1pc"},
}


# Variables a derived set (see its PROVENANCE.md) has or lacks against a primary source; the
# catalogue follows the primary source.
DERIVED_GAPS = {
    "mysql-8.0.28": {
        "myisam_repair_threads": "refman 8.0 lifecycle: deprecated 8.0.29, removed 8.0.30, so 8.0.28 has it",
        "persist_sensitive_variables_in_plaintext": "refman 8.0 lifecycle: added in 8.0.29",
    },
    "mariadb-10.6": {"version_source_revision": "a build hash: the derived set dropped it rather than invent one"},
    "mariadb-11.4": {"histogram_type": "the derived set carries 10.11.19's DOUBLE_PREC_HB over; the 11.4 snapshot's "
                                       "mysqld--help.result (sources/PROVENANCE.md) shows JSON_HB",
                     "session_track_system_variables": "the derived set carries 10.11.19's list over; the 11.4 "
                                                       "snapshot's help adds redirect_url (the 11.3 variable)",
                     "innodb_undo_tablespaces": "the derived set carries 10.11.19's 0 over; the MariaDB docs' InnoDB "
                                                "System Variables page (sources/PROVENANCE.md) gives 3 from 11.0"},
    "mysql-8.0.36": {"build_id": "refman 8.0 lifecycle: added in 8.0.31 (Linux builds); the set dropped it as Percona's"},
    "mysql-8.4": {
        "build_id": "refman 8.4 system variable reference lists it; the set dropped it as Percona's",
        **{f"innodb_api_{x}": "refman 8.4 lifecycle: removed in MySQL 8.3.0; the set kept Percona Server's"
           for x in ("bk_commit_interval", "disable_rowlock", "enable_binlog", "enable_mdl", "trx_level")},
    },
}


def _sets() -> list[str]:
    return sorted(p.name for p in (FIXTURES / "flavors").iterdir() if (p / "variables.json").is_file())


@pytest.mark.parametrize("name", _sets())
def test_catalogue_matches_recorded_set(name):
    from advisor.versions import detect_flavor

    variables = {k.lower(): v for k, v in json.loads((FIXTURES / "flavors" / name / "variables.json").read_text()).items()}
    flavor = detect_flavor(variables["version"], variables.get("version_comment", ""))
    version = Version.parse(variables["version"])
    bp = int(variables.get("innodb_buffer_pool_size", "0") or 0) or None
    compared = 0
    for var in K.names():
        exists = K.exists_on(var, flavor, version)
        if exists is None or var in DERIVED_GAPS.get(name, {}):
            continue
        spec = K.info(var, flavor, version)
        if spec is not None and spec.scope == "session":
            continue  # SHOW GLOBAL VARIABLES does not list session-only variables
        compared += 1
        assert exists == (var in variables), f"{name}: {var} exists={exists} in the catalogue"
        if not exists or var in CONFIGURED.get(name, ()):
            continue
        same = K.is_default(var, variables[var], flavor, version, buffer_pool_bytes=bp)
        assert same is not False, (f"{name}: {var} = {variables[var]!r}, catalogue default "
                                   f"{K.default_for(var, flavor, version, buffer_pool_bytes=bp)!r}")
    assert compared >= 10, name
