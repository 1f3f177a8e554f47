"""Every named formula of advisor.rules.formulas, through the registry the rule files name it by."""

from __future__ import annotations

import pytest

from advisor.rules import formulas as F
from advisor.rules.facts import Unknown
from tests.support.facts import view

MiB, GiB = 1 << 20, 1 << 30


def run(name: str, facts: dict, target: str = "mysql 8.0.36", purpose: str = "production", **args):
    return F.FORMULAS[name].fn(view(facts, target, purpose), **args)


@pytest.mark.parametrize("target,purpose,facts,want", [
    ("mysql 8.0.36", "production", {}, {"innodb_redo_log_capacity": "1G"}),
    ("mysql 8.0.36", "benchmark", {}, {"innodb_redo_log_capacity": "2G"}),
    ("mysql 8.0.36", "production", {"status.Innodb_os_log_written": 3 * GiB - 100 * MiB, "status.Uptime": 3600},
     {"innodb_redo_log_capacity": "3G"}),                                   # one hour of writes, in 512 MiB steps
    ("mysql 5.7.44", "production", {"var.innodb_log_files_in_group": 2}, {"innodb_log_file_size": "512M"}),  # per file
    ("mariadb 10.11.6", "benchmark", {}, {"innodb_log_file_size": "2G"}),   # one file on MariaDB 10.5+
])
def test_redo_size(target, purpose, facts, want):
    assert run("redo_size", facts, target, purpose) == want


def test_redo_size_has_nothing_for_tidb():
    assert "TiDB" in run("redo_size", {}, "tidb 7.5.1").reason


def test_flavor_default():
    assert run("flavor_default", {}, "mysql 8.4.3", variable="innodb_io_capacity") == {"innodb_io_capacity": "10000"}
    assert isinstance(run("flavor_default", {}, variable="not_a_variable"), Unknown)


@pytest.mark.parametrize("memory,want", [(64 * GiB, "48G"), (2 * GiB, "1G"), (512 * MiB, "128M")])
def test_buffer_pool_for_memory(memory, want):
    assert run("buffer_pool_for_memory", {"host.memory": {"total_bytes": memory}}) == {"innodb_buffer_pool_size": want}
    assert isinstance(run("buffer_pool_for_memory", {}), Unknown)


def test_buffer_pool_for_data():
    facts = {"var.innodb_buffer_pool_size": "128M", "var.innodb_buffer_pool_chunk_size": "128M",
             "host.memory": {"total_bytes": 64 * GiB},
             "server.data_size": {"InnoDB": {"tables": 1, "data_bytes": 10 * GiB, "index_bytes": 0}}}
    assert run("buffer_pool_for_data", facts) == {"innodb_buffer_pool_size": "11G"}   # data + 10 %, in chunks
    small = {**facts, "host.memory": {"total_bytes": 8 * GiB}}
    assert run("buffer_pool_for_data", small) == {"innodb_buffer_pool_size": "6G"}    # at most 75 % of memory


def test_buffer_pool_instances_for_size():
    facts = {"var.innodb_buffer_pool_size": "4G", "var.innodb_buffer_pool_instances": 8}
    assert run("buffer_pool_instances_for_size", facts) == {"innodb_buffer_pool_instances": "4"}
    assert isinstance(run("buffer_pool_instances_for_size", {"var.innodb_buffer_pool_size": "4G"}), Unknown)


def test_max_connections_for_memory():
    facts = {"var.innodb_buffer_pool_size": "2G", "var.internal_tmp_mem_storage_engine": "TempTable",
             "var.sort_buffer_size": "1M", "var.join_buffer_size": "256K", "var.read_buffer_size": "128K",
             "var.read_rnd_buffer_size": "256K", "var.thread_stack": "1M", "var.binlog_cache_size": "32K",
             "status.Max_used_connections": 50, "host.memory": {"total_bytes": 8 * GiB}}
    per = (1024 + 256 + 128 + 256 + 1024 + 32) * 1024
    want = int((8 * GiB * 0.9 - 2 * GiB) // per)
    assert run("max_connections_for_memory", facts) == {"max_connections": str(want)}
    full = {**facts, "var.innodb_buffer_pool_size": "7680M"}
    assert "global buffers alone" in run("max_connections_for_memory", full).reason


def test_max_connections_headroom():
    facts = {"status.Max_used_connections": 152, "var.max_connections": 151}
    assert run("max_connections_headroom", facts) == {"max_connections": "250"}


def test_table_open_cache_doubled_and_open_files():
    facts = {"var.table_open_cache": 4000, "status.Open_tables": 3900, "var.max_connections": 151}
    assert run("table_open_cache_doubled", facts) == {"table_open_cache": "8000", "open_files_limit": "16161"}
    assert run("open_files_limit_needed", facts) == {"open_files_limit": "8161"}
    assert isinstance(run("open_files_limit_needed", {}), Unknown)


def test_thread_cache_for_peak():
    assert run("thread_cache_for_peak", {"status.Max_used_connections": 120, "var.thread_cache_size": 9}) == \
        {"thread_cache_size": "120"}


def test_log_buffer_size():
    assert run("log_buffer_size", {"var.innodb_log_buffer_size": "16M"}) == {"innodb_log_buffer_size": "64M"}
    waited = {"var.innodb_log_buffer_size": "64M", "status.Innodb_log_waits": 5}
    assert run("log_buffer_size", waited) == {"innodb_log_buffer_size": "128M"}


def test_tmp_table_pair_chunk_alignment_io_capacity_and_defaults():
    assert run("tmp_table_pair", {"var.tmp_table_size": "64M", "var.max_heap_table_size": "16M"}) == \
        {"tmp_table_size": "64M", "max_heap_table_size": "64M"}
    aligned = {"var.innodb_buffer_pool_size": "9728M", "var.innodb_buffer_pool_chunk_size": "128M",
               "var.innodb_buffer_pool_instances": 8}
    assert run("buffer_pool_chunk_aligned", aligned) == {"innodb_buffer_pool_size": "10G"}
    assert run("io_capacity_for_device", {"host.datadir": {"path": "/d", "device_class": "nvme_plp"}}) == \
        {"innodb_io_capacity": "10000", "innodb_io_capacity_max": "20000"}
    # a value the server already has is not recommended (issue 14 §2.11: max 2000 on an SSD)
    ssd = {"host.datadir": {"path": "/d", "device_class": "ssd"}, "var.innodb_io_capacity": "200",
           "var.innodb_io_capacity_max": "2000"}
    assert run("io_capacity_for_device", ssd) == {"innodb_io_capacity": "1000"}
    assert isinstance(run("defaults_of_target", {"var.innodb_io_capacity": "200"}, "mysql 8.0.36"), Unknown)
