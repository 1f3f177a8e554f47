"""Each sizer of advisor.rules.sizers, directly: what it proposes for a known host, what it cannot size
and says so, and what it never writes unasked. (Each sizer's own examples run in test_entry_examples.py.)"""

from __future__ import annotations

from advisor.rules.sizers import SIZERS, pick_reference, sizing_context, weakens_durability
from tests.support.facts import view

MiB, GiB = 1 << 20, 1 << 30
HOST = {"host.memory": {"total_bytes": 64 * GiB}, "host.cpu": {"logical_count": 16},
        "host.datadir": {"path": "/var/lib/mysql", "device_class": "nvme_plp"}}
SERVER = {"var.innodb_buffer_pool_size": "128M", "var.innodb_buffer_pool_instances": 1,
          "var.innodb_buffer_pool_chunk_size": "128M", "var.innodb_io_capacity": 200,
          "var.innodb_io_capacity_max": 2000, "var.max_connections": 151, "var.innodb_log_buffer_size": "16M",
          "var.innodb_redo_log_capacity": "100M"}


def run(sizer_id, facts=None, workload="oltp", purpose="production", target="mysql 8.0.36", unsafe=False, threads=None):
    ctx = sizing_context(view({**SERVER, **HOST, **(facts or {})}, target, purpose), workload, unsafe, threads)
    return SIZERS[sizer_id].fn(ctx)


def lines(outcome):
    return {p.variable: p.value for p in outcome.proposals}


def test_sizing_buffer_pool_for_a_known_host():
    out = run("sizing.buffer-pool")
    assert lines(out) == {"innodb_buffer_pool_size": "48G"}
    reason = out.proposals[0].reason
    assert "64 GiB" in reason and "75 %" in reason and "48 GiB" in reason and reason.endswith(".")


def test_sizing_redo_capacity_uses_the_dedicated_server_floor_for_16_cpus():
    assert lines(run("sizing.redo-capacity")) == {"innodb_redo_log_capacity": "8G"}


def test_sizing_io_capacity_for_datacenter_nvme():
    assert lines(run("sizing.io-capacity")) == {"innodb_io_capacity": "10000", "innodb_io_capacity_max": "20000"}


def test_sizing_benchmark_connections_and_log_buffer_only_for_their_workloads():
    assert run("sizing.benchmark-connections").status == "not_applicable"
    # sized from the benchmark's threads (issue 14 §2.16), not for a sweep to 1,024 on any host
    assert lines(run("sizing.benchmark-connections", workload="benchmark", purpose="benchmark", threads=256)) == \
        {"max_connections": "282"}
    assert run("sizing.benchmark-connections", workload="benchmark", purpose="benchmark", threads=64).status == "passed"
    assert run("sizing.log-buffer").status == "not_applicable"
    assert lines(run("sizing.log-buffer", workload="bulk-load")) == {"innodb_log_buffer_size": "64M"}


def test_what_cannot_be_sized_is_said():
    no_host = {"host": None}
    for sizer_id, word in (("sizing.buffer-pool", "memory limit is unknown"),
                           ("sizing.io-capacity", "device class is unknown")):
        ctx = sizing_context(view(SERVER, "mysql 8.0.36", "benchmark"), "benchmark")
        out = SIZERS[sizer_id].fn(ctx)
        assert out.status == "unknown" and word in out.reason and out.variable, (sizer_id, no_host)
    out = SIZERS["sizing.benchmark-connections"].fn(sizing_context(view(SERVER, "mysql 8.0.36", "benchmark"), "benchmark"))
    assert out.status == "unknown" and "max_connections" in out.reason


def test_durability_relaxed_for_benchmark_only_when_asked():
    assert run("durability.relaxed-for-benchmark", purpose="benchmark").status == "not_applicable"
    out = run("durability.relaxed-for-benchmark", purpose="benchmark", workload="benchmark", unsafe=True)
    assert lines(out) == {"innodb_flush_log_at_trx_commit": "2", "sync_binlog": "0", "innodb_doublewrite": "OFF"}
    assert all(p.kind == "guard" and p.severity == "unsafe" for p in out.proposals)


def test_durability_full_states_durable_values():
    out = run("durability.full", {"var.innodb_flush_log_at_trx_commit": 0, "var.sync_binlog": 1,
                                  "var.innodb_doublewrite": "OFF"})
    assert lines(out) == {"innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "ON"}
    assert weakens_durability("innodb_flush_method", "NOSYNC")


def test_sizing_memory_budget_lowers_connections_on_a_small_host():
    out = run("sizing.memory-budget", {"host.memory": {"total_bytes": 4 * GiB}, "var.innodb_buffer_pool_size": "2G",
                                       "var.max_connections": 5000, "var.sort_buffer_size": "4M",
                                       "var.thread_stack": "1M", "status.Max_used_connections": 20})
    assert out.status == "fired" and "max_connections" in lines(out)
    assert int(lines(out)["max_connections"]) < 5000
    assert "innodb_buffer_pool_size" not in lines(out)  # 30 connections at once fit: the pool is not cut for 5,000


def test_pick_reference_prefers_the_targets_documentation():
    refs = ("https://dev.mysql.com/doc/refman/8.0/en/innodb-redo-log.html",
            "https://mariadb.com/kb/en/innodb-system-variables/#innodb_log_file_size")
    assert pick_reference(refs, "mysql", "innodb_log_file_size") == refs[0]
    assert pick_reference(refs, "mariadb", "innodb_log_file_size") == refs[1]
    assert pick_reference(refs, "percona", "innodb_redo_log_capacity") == refs[0]
