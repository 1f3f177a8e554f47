"""Derived facts of advisor.rules.derived.memory."""

from __future__ import annotations

import pytest

from advisor.rules.sizing import dedicated_buffer_pool_bytes as dedicated_bp_for_ram
from advisor.rules.facts import Unknown
from tests.support.facts import view

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def test_memory_limit_bytes():
    assert view({"host.memory": {"total_bytes": 16 * GiB, "effective_limit_bytes": 8 * GiB}}).get(
        "derived.memory_limit_bytes") == 8 * GiB
    assert view({"host.memory": {"total_bytes": 16 * GiB}}).get("derived.memory_limit_bytes") == 16 * GiB
    assert isinstance(view({}).get("derived.memory_limit_bytes"), Unknown)


@pytest.mark.parametrize("memory,want", [
    ({"total_bytes": 16 * GiB, "cgroup_version": 2, "cgroup_limit_bytes": 4 * GiB}, "cgroup v2 limit (memory.max)"),
    ({"total_bytes": 16 * GiB, "cgroup_version": 1, "cgroup_limit_bytes": 4 * GiB},
     "cgroup v1 limit (memory.limit_in_bytes)"),
    ({"total_bytes": 16 * GiB, "cgroup_version": 2, "cgroup_limit_bytes": 32 * GiB}, "the host's RAM"),
    ({"total_bytes": 16 * GiB}, "the host's RAM"),
])
def test_memory_limit_source(memory, want):
    assert want in view({"host.memory": memory}).get("derived.memory_limit_source")


def test_memory_limit_source_unknown():
    assert "host facts" in view({}).get("derived.memory_limit_source").reason
    assert "RAM is unknown" in view({"host.memory": {"swappiness": 60}}).get("derived.memory_limit_source").reason


def test_innodb_data_bytes():
    sizes = {"InnoDB": {"tables": 3, "data_bytes": 100 * MiB, "index_bytes": 50 * MiB},
             "MyISAM": {"tables": 1, "data_bytes": 1 * GiB, "index_bytes": 0}}
    assert view({"server.data_size": sizes}).get("derived.innodb_data_bytes") == 150 * MiB
    assert view({"server.data_size": {"MyISAM": sizes["MyISAM"]}}).get("derived.innodb_data_bytes") == 0
    assert "not collected" in view({}).get("derived.innodb_data_bytes").reason


def test_myisam_tables():
    """0 when the per-engine sizes were read and name no MyISAM; unknown when they were not read."""
    sizes = {"InnoDB": {"tables": 3, "data_bytes": 100 * MiB, "index_bytes": 50 * MiB},
             "MyISAM": {"tables": 2, "data_bytes": 1 * GiB, "index_bytes": 0}}
    assert view({"server.data_size": sizes}).get("derived.myisam_tables") == 2
    assert view({"server.data_size": {"InnoDB": sizes["InnoDB"]}}).get("derived.myisam_tables") == 0
    missing = view({}).get("derived.myisam_tables")
    assert isinstance(missing, Unknown) and "not collected" in missing.reason


def test_buffer_pool_share_of_memory_and_data_ratio():
    v = view({"var.innodb_buffer_pool_size": "4G", "host.memory": {"total_bytes": 16 * GiB},
              "server.data_size": {"InnoDB": {"tables": 1, "data_bytes": 8 * GiB, "index_bytes": 0}}})
    assert v.get("derived.buffer_pool_share_of_memory") == 0.25
    assert v.get("derived.buffer_pool_data_ratio") == 0.5
    empty = view({"var.innodb_buffer_pool_size": "4G", "server.data_size": {}})
    assert "no InnoDB data" in empty.get("derived.buffer_pool_data_ratio").reason
    assert isinstance(view({"var.innodb_buffer_pool_size": "4G"}).get("derived.buffer_pool_share_of_memory"), Unknown)


def test_buffer_pool_instance_and_chunk_facts():
    v = view({"var.innodb_buffer_pool_size": str(GiB + 64 * MiB), "var.innodb_buffer_pool_instances": 8,
              "var.innodb_buffer_pool_chunk_size": "128M"})
    assert v.get("derived.buffer_pool_instance_bytes") == (GiB + 64 * MiB) / 8
    assert v.get("derived.buffer_pool_chunk_unit_bytes") == 1 * GiB
    assert v.get("derived.buffer_pool_chunk_remainder_bytes") == 64 * MiB
    one = view({"var.innodb_buffer_pool_size": "1G", "var.innodb_buffer_pool_chunk_size": "128M"})
    assert one.get("derived.buffer_pool_chunk_unit_bytes") == 128 * MiB       # instances unknown: one
    assert one.get("derived.buffer_pool_chunk_remainder_bytes") == 0
    auto = view({"var.innodb_buffer_pool_size": "1G", "var.innodb_buffer_pool_chunk_size": 0}, "mariadb 11.4.4")
    assert "autosized" in auto.get("derived.buffer_pool_chunk_remainder_bytes").reason
    assert isinstance(view({}).get("derived.buffer_pool_instance_bytes"), Unknown)


@pytest.mark.parametrize("ram,want", [(512 * MiB, 128 * MiB), (2 * GiB, 1 * GiB), (4 * GiB, 2 * GiB),
                                      (64 * GiB, 48 * GiB)])
def test_dedicated_buffer_pool_bytes(ram, want):
    assert dedicated_bp_for_ram(ram) == want
    assert view({"host.memory": {"total_bytes": ram}}).get("derived.dedicated_buffer_pool_bytes") == want
    assert isinstance(view({}).get("derived.dedicated_buffer_pool_bytes"), Unknown)


def test_tmp_table_limit_bytes():
    assert view({"var.tmp_table_size": "64M", "var.max_heap_table_size": "16M"}).get(
        "derived.tmp_table_limit_bytes") == 16 * MiB
    assert isinstance(view({"var.tmp_table_size": "64M"}).get("derived.tmp_table_limit_bytes"), Unknown)


@pytest.mark.parametrize("target,facts,want", [
    ("mariadb 10.11.6", {}, True),
    ("mysql 5.7.44", {}, True),
    ("mysql 8.0.36", {"var.internal_tmp_mem_storage_engine": "TempTable"}, False),
    ("mysql 8.0.36", {"var.internal_tmp_mem_storage_engine": "MEMORY"}, True),
])
def test_tmp_tables_use_memory_engine(target, facts, want):
    assert view(facts, target).get("derived.tmp_tables_use_memory_engine") is want


def test_tmp_tables_use_memory_engine_unknown():
    assert isinstance(view({}, "mysql 8.0.36").get("derived.tmp_tables_use_memory_engine"), Unknown)
    assert "TiDB" in view({}, "tidb 7.5.1").get("derived.tmp_tables_use_memory_engine").reason


BUFFERS = {"var.sort_buffer_size": "256K", "var.join_buffer_size": "256K", "var.read_buffer_size": "128K",
           "var.read_rnd_buffer_size": "256K", "var.thread_stack": "1M", "var.binlog_cache_size": "32K",
           "var.tmp_table_size": "16M", "var.max_heap_table_size": "32M"}
PER_CONN = 256 * KiB + 256 * KiB + 128 * KiB + 256 * KiB + 1 * MiB + 32 * KiB


def test_per_connection_buffer_bytes_adds_a_memory_temp_table_where_memory_holds_them():
    temptable = view({**BUFFERS, "var.internal_tmp_mem_storage_engine": "TempTable"})
    assert temptable.get("derived.per_connection_buffer_bytes") == PER_CONN
    assert view(BUFFERS, "mariadb 10.11.6").get("derived.per_connection_buffer_bytes") == PER_CONN + 16 * MiB
    partial = {k: v for k, v in BUFFERS.items() if k != "var.thread_stack"}
    assert "thread_stack" in view(partial, "mariadb 10.11.6").get("derived.per_connection_buffer_bytes").reason


def test_global_buffer_bytes_counts_what_exists():
    mysql = view({"var.innodb_buffer_pool_size": "1G", "var.innodb_log_buffer_size": "16M",
                  "var.key_buffer_size": "8M", "var.internal_tmp_mem_storage_engine": "TempTable",
                  "var.temptable_max_ram": "1G"})
    assert mysql.get("derived.global_buffer_bytes") == 2 * GiB + 24 * MiB
    maria = view({"var.innodb_buffer_pool_size": "1G", "var.aria_pagecache_buffer_size": "128M",
                  "var.query_cache_size": "1M", "var.temptable_max_ram": "1G"}, "mariadb 10.11.6")
    assert maria.get("derived.global_buffer_bytes") == GiB + 129 * MiB   # no TempTable pool on MariaDB
    assert isinstance(view({}).get("derived.global_buffer_bytes"), Unknown)


def test_max_memory_bytes_and_ratio():
    facts = {**BUFFERS, "var.innodb_buffer_pool_size": "1G", "var.max_connections": 100,
             "host.memory": {"total_bytes": 4 * GiB}}
    v = view(facts, "mariadb 10.11.6")
    per = PER_CONN + 16 * MiB
    assert v.get("derived.max_memory_bytes") == GiB + 100 * per
    assert v.get("derived.max_memory_ratio") == pytest.approx((GiB + 100 * per) / (4 * GiB))
    no_limit = {k: x for k, x in facts.items() if k != "var.max_connections"}
    assert "max_connections" in view(no_limit, "mariadb 10.11.6").get("derived.max_memory_bytes").reason
