"""The sizing layer's named functions, and the memory budget formula and fitter."""

from __future__ import annotations

import pytest

from advisor.mycnf.budget import (TARGET_FRACTION, BudgetError, Values, compute_budget, conn_floor_for, fit,
                                  server_overhead_bytes, tmp_tables_in_memory_engine)
from advisor.mycnf.sizing import (SizingInputs, buffer_pool_instances, buffer_pool_target, buffer_pool_unit,
                                  connections_for_workload, io_capacity_for, log_buffer_for_workload, redo_floor,
                                  redo_settings, redo_target, sizing_proposals)
from advisor.versions import Version

MiB, GiB = 1 << 20, 1 << 30


# ---------------------------------------------------------------- sizing functions

@pytest.mark.parametrize("ram,bp", [(512 * MiB, 128 * MiB), (2 * GiB, 1 * GiB), (4 * GiB, 2 * GiB),
                                    (64 * GiB, 48 * GiB), (128 * GiB, 96 * GiB)])
def test_buffer_pool_target_follows_innodb_dedicated_server(ram, bp):
    assert buffer_pool_target(ram) == bp


def test_buffer_pool_instances_by_version():
    # MySQL 8.0: 8 from 1 GiB up, else 1; an explicit non-default count is kept
    assert buffer_pool_instances("mysql", Version(8, 0, 36), 48 * GiB, 16, 1, True) == 8
    assert buffer_pool_instances("mysql", Version(8, 0, 36), 512 * MiB, 16, 8, True) == 1
    assert buffer_pool_instances("mysql", Version(8, 0, 36), 48 * GiB, 16, 4, False) == 4
    # MySQL 8.4: min(bp / 128 MiB / 2, cpus / 4)
    assert buffer_pool_instances("mysql", Version(8, 4, 3), 48 * GiB, 16, None, None) == 4
    # MariaDB 10.6+: no such variable, one pool
    assert buffer_pool_instances("mariadb", Version(10, 11, 6), 48 * GiB, 16, None, None) == 1


def test_buffer_pool_unit():
    assert buffer_pool_unit(128 * MiB, 8) == 1 * GiB
    assert buffer_pool_unit(128 * MiB, 1) == 128 * MiB
    assert buffer_pool_unit(0, 1) == 128 * MiB       # MariaDB 10.8+ autosized chunk: written in 128 MiB steps
    assert buffer_pool_unit(None, 1) == 128 * MiB
    assert buffer_pool_unit(100 * MiB, 3) == 300 * MiB


def test_redo_floor_and_target():
    assert redo_floor("production", "oltp", None)[0] == 1 * GiB
    assert redo_floor("benchmark", "benchmark", None)[0] == 2 * GiB
    assert redo_floor("production", "bulk-load", None)[0] == 4 * GiB
    assert redo_floor("production", "oltp", 16)[0] == 8 * GiB       # innodb_dedicated_server (8.4): cpus / 2 GiB
    assert redo_floor("production", "oltp", 80)[0] == 16 * GiB
    assert redo_target(None, "production", "oltp", None) == 1 * GiB
    assert redo_target(3.2 * GiB, "production", "oltp", 2) == 3584 * MiB   # one hour, rounded up to 512 MiB
    assert redo_target(100 * GiB, "production", "oltp", 2) == 16 * GiB     # capped


def test_redo_settings_name_the_variable_the_target_has():
    assert redo_settings("mysql", Version(8, 0, 36), 8 * GiB, None) == {"innodb_redo_log_capacity": 8 * GiB}
    assert redo_settings("percona", Version(8, 0, 30), 8 * GiB, None) == {"innodb_redo_log_capacity": 8 * GiB}
    assert redo_settings("mysql", Version(8, 0, 20), 8 * GiB, None) == {"innodb_log_file_size": 4 * GiB}
    assert redo_settings("mysql", Version(5, 7, 44), 3 * GiB, 4) == {"innodb_log_file_size": 768 * MiB}
    assert redo_settings("mariadb", Version(10, 11, 6), 8 * GiB, None) == {"innodb_log_file_size": 8 * GiB}
    assert redo_settings("mariadb", Version(10, 4, 34), 8 * GiB, None) == {"innodb_log_file_size": 4 * GiB}


def test_io_capacity_connections_log_buffer():
    assert io_capacity_for("nvme_plp") == (10000, 20000)
    assert io_capacity_for("rotational") == (200, 400)
    assert io_capacity_for("virtual") is None
    assert connections_for_workload("benchmark", 151) == 1100
    assert connections_for_workload("benchmark", 5000) == 5000
    assert connections_for_workload("oltp", 151) == 151
    assert log_buffer_for_workload("bulk-load", 16 * MiB) == 64 * MiB
    assert log_buffer_for_workload("oltp", 16 * MiB) == 16 * MiB


def _inputs(**kw):
    base = dict(flavor="mysql", version=Version(8, 0, 36), purpose="production", workload="oltp",
                variables={"innodb_buffer_pool_size": "134217728", "innodb_buffer_pool_instances": "1",
                           "innodb_buffer_pool_chunk_size": "134217728", "innodb_io_capacity": "200",
                           "innodb_io_capacity_max": "2000", "max_connections": "151",
                           "innodb_log_buffer_size": "16777216"},
                limit_bytes=64 * GiB, limit_label="RAM", cpus=16, device_class="nvme_plp",
                redo_capacity_bytes=100 * MiB)
    base.update(kw)
    return SizingInputs(**base)


def test_sizing_proposals_for_a_known_host():
    r = sizing_proposals(_inputs())
    got = {p.variable: p.value for p in r.proposals}
    assert got == {"innodb_buffer_pool_size": "48G", "innodb_redo_log_capacity": "8G", "innodb_io_capacity": "10000",
                   "innodb_io_capacity_max": "20000"}
    assert all(p.reason.endswith(".") and p.reference.startswith("https://") for p in r.proposals)
    bp = next(p for p in r.proposals if p.variable == "innodb_buffer_pool_size")
    assert "64 GiB" in bp.reason and "75 %" in bp.reason and "48 GiB" in bp.reason


def test_sizing_reports_what_it_could_not_size():
    r = sizing_proposals(_inputs(limit_bytes=None, device_class=None, workload="benchmark", purpose="benchmark"))
    assert not any(p.variable in ("innodb_buffer_pool_size", "innodb_io_capacity", "max_connections",
                                  "innodb_log_buffer_size") for p in r.proposals)
    text = " ".join(t for _, t in r.skipped)
    assert "memory limit is unknown" in text and "device class is unknown" in text and "max_connections" in text


def test_unsafe_durability_only_when_asked():
    assert not any(p.kind == "guard" for p in sizing_proposals(_inputs()).proposals)
    r = sizing_proposals(_inputs(purpose="benchmark", workload="benchmark", allow_unsafe_durability=True))
    got = {p.variable: p.value for p in r.proposals if p.kind == "guard"}
    assert got == {"innodb_flush_log_at_trx_commit": "2", "sync_binlog": "0", "innodb_doublewrite": "OFF"}


# ---------------------------------------------------------------- memory budget

def test_overhead_assumption():
    assert server_overhead_bytes(None) == 512 * MiB
    assert server_overhead_bytes(1 * GiB) == 128 * MiB
    assert server_overhead_bytes(8 * GiB) == 512 * MiB
    assert server_overhead_bytes(256 * GiB) == 1 * GiB


def test_budget_formula_mysql80_tempable_is_global():
    v = Values("mysql", Version(8, 0, 36), {"innodb_buffer_pool_size": "8G", "innodb_log_buffer_size": "64M",
                                            "max_connections": "100", "thread_stack": "1M"})
    b = compute_budget(v, 16 * GiB)
    names = {x.name: x.bytes for x in b.lines}
    assert names["innodb_buffer_pool_size"] == 8 * GiB
    assert names["temptable_max_ram"] == 1 * GiB          # catalogue default, 8.0
    assert "aria_pagecache_buffer_size" not in names and "query_cache_size" not in names
    per = 256 * 1024 + 256 * 1024 + 128 * 1024 + 256 * 1024 + 1 * MiB + 32 * 1024
    assert b.per_connection == per and names["connections"] == 100 * per
    assert b.total == sum(names.values()) and b.overhead == 1 * GiB
    assert b.fits is True


def test_budget_formula_mariadb_counts_a_memory_tmp_table_per_connection():
    v = Values("mariadb", Version(10, 11, 6), {"max_connections": "10"})
    b = compute_budget(v, None)
    parts = {p.name: p.bytes for p in b.per_connection_parts}
    assert parts["tmp table"] == 16 * MiB and parts["sort_buffer_size"] == 2 * MiB
    assert {x.name for x in b.lines} >= {"aria_pagecache_buffer_size", "key_buffer_size", "query_cache_size"}
    assert b.fits is None and b.overhead == 512 * MiB
    assert tmp_tables_in_memory_engine("mysql", Version(8, 0, 36), "MEMORY")
    assert not tmp_tables_in_memory_engine("mysql", Version(8, 0, 36), "TempTable")


def test_unknown_defaults_become_stated_assumptions():
    v = Values("mysql", Version(8, 0, 36), {})
    b = compute_budget(v, 8 * GiB)
    assert any("thread_stack" in a and "assumed 1 MiB" in a for a in b.assumptions)


def test_fit_lowers_the_buffer_pool_first_then_connections():
    v = Values("mysql", Version(8, 0, 36), {"innodb_buffer_pool_size": "96G", "max_connections": "2000",
                                            "sort_buffer_size": "32M", "thread_stack": "1M"})
    explicit, adj, b = fit(v, 128 * GiB, 1 * GiB, conn_floor_for(2000, 210))
    assert b.total <= 128 * GiB * TARGET_FRACTION
    assert [a.variable for a in adj][:1] == ["innodb_buffer_pool_size"]
    assert explicit["innodb_buffer_pool_size"].endswith("G")
    assert all(a.new < a.old and a.reason for a in adj)


def test_fit_keeps_a_budget_that_fits_untouched():
    v = Values("mysql", Version(8, 0, 36), {"innodb_buffer_pool_size": "8G", "max_connections": "151", "thread_stack": "1M"})
    explicit, adj, b = fit(v, 64 * GiB, 1 * GiB, 151)
    assert adj == [] and b.total < 64 * GiB * TARGET_FRACTION


def test_fit_raises_when_nothing_fits():
    v = Values("mariadb", Version(10, 11, 6), {"innodb_buffer_pool_size": "128M", "aria_pagecache_buffer_size": "128M"})
    with pytest.raises(BudgetError):
        fit(v, 256 * MiB, 128 * MiB, 151)


def test_conn_floor():
    assert conn_floor_for(2000, 210) == 231
    assert conn_floor_for(2000, None) == 151
    assert conn_floor_for(50, None) == 50
    assert conn_floor_for(5, 1) == 10
