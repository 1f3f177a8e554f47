"""Configuration smells are reported from the configuration alone: a value that is wrong whatever the
workload (a per-session buffer of 64M, a 4G key buffer with no MyISAM tables, a thread cache of 0) fires
at its severity on a freshly started server with almost no traffic, and the finding says that no
workload evidence was needed. The whole catalogue runs (hand-written and generated rules), as an audit."""

from __future__ import annotations

import pytest

from advisor.rules.engine import evaluate
from advisor.rules.examples import example_snapshot
from advisor.rules.loader import load_entries
from advisor.rules.schema import SEVERITY_RANK, Example

CATALOGUE = load_entries()

# A server a minute after start: the counters exist but say nothing about the workload yet.
FRESH = {"status.Uptime": "60", "status.Connections": "3", "status.Threads_created": "2",
         "status.Max_used_connections": "2", "status.Questions": "40"}
BASE = {"var.thread_handling": "one-thread-per-connection", "var.log_bin": "ON",
        "server.data_size": {"InnoDB": {"tables": 12, "data_bytes": 2_000_000_000, "index_bytes": 300_000_000}}}

SMELLS = [
    ("mariadb 10.11.19", "sort_buffer_size", "64M"), ("mysql 5.7.44", "sort_buffer_size", "64M"),
    ("mariadb 10.11.19", "join_buffer_size", "64M"), ("mysql 8.0.19", "join_buffer_size", "64M"),
    ("mysql 8.0.36", "read_buffer_size", "64M"), ("mariadb 10.11.19", "read_rnd_buffer_size", "64M"),
    ("mysql 8.0.36", "query_prealloc_size", "64M"), ("mariadb 10.11.19", "transaction_prealloc_size", "64M"),
    ("mysql 8.0.36", "query_alloc_block_size", "64M"), ("mariadb 10.11.19", "transaction_alloc_block_size", "64M"),
    ("mysql 8.0.36", "tmp_table_size", "4G"), ("mariadb 10.11.19", "max_heap_table_size", "4G"),
    ("mysql 8.0.36", "key_buffer_size", "4G"), ("mariadb 10.11.19", "key_buffer_size", "4G"),
    ("mysql 8.0.36", "thread_cache_size", "0"), ("mariadb 10.11.19", "thread_cache_size", "0"),
    ("mysql 8.0.36", "innodb_flush_method", "nosync"), ("mariadb 10.11.19", "innodb_checksum_algorithm", "none"),
    ("mysql 8.0.36", "thread_stack", "128K"), ("mariadb 10.11.19", "foreign_key_checks", "OFF"),
]


# sort-buffer-oversized's wording is being reworked with its evidence (issue 14, §2.11) by another change
WORDED_ELSEWHERE = {"sort-buffer-oversized"}


def _naming(outcomes, variable):
    rules = {r.id: r for r in CATALOGUE.rules}
    return [o for o in outcomes if variable in [v.lower() for v in rules[o.rule].spec.variables]]


@pytest.mark.parametrize("target,variable,value", SMELLS, ids=[f"{t.split()[0]}-{v}" for t, v, _ in SMELLS])
def test_a_smell_fires_on_a_fresh_server_from_the_configuration_alone(target, variable, value):
    ex = Example(name="smell", expect="fired", target=target, facts={**BASE, **FRESH, f"var.{variable}": value})
    outcomes = evaluate(example_snapshot(ex), CATALOGUE.rules, "production", catalogue=CATALOGUE.variables)
    fired = [o for o in _naming(outcomes, variable) if o.status == "fired"]
    assert fired, f"nothing reports {variable} = {value} on {target}: " + "; ".join(
        f"{o.rule} {o.status} ({o.reason})" for o in _naming(outcomes, variable))
    f = fired[0].finding
    assert SEVERITY_RANK[f.severity] >= SEVERITY_RANK["info"]
    if fired[0].rule in WORDED_ELSEWHERE:
        return
    text = " ".join(f.message.lower().split())
    assert any(s in text for s in ("configuration alone", "no workload evidence", "table list alone")), f.message


def test_workload_counters_raise_the_thread_cache_smell():
    """The counters add to a smell, they do not decide it: with a busy connection rate the finding says so."""
    busy = {**BASE, "var.thread_cache_size": "0", "status.Uptime": "1000", "status.Connections": "50000",
            "status.Threads_created": "50000"}
    ex = Example(name="busy", expect="fired", target="mysql 8.0.36", facts=busy)
    out = {o.rule: o for o in evaluate(example_snapshot(ex), CATALOGUE.rules, "production", catalogue=CATALOGUE.variables)}
    assert out["thread-cache-disabled"].status == "fired"
    assert "50 connections per second" in out["thread-cache-disabled"].finding.message
