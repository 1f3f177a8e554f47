"""advisor.collect.parse: the TiDB and TiKV items of SHOW CONFIG (rows as the server returns them:
Type, Instance, Name, Value) into snapshot.server.tidb_config, TiKV's under 'tikv.'."""

from __future__ import annotations

from advisor.collect.mysql import Q_TIDB_BENCH_CONFIG, TIKV_BENCH_ITEMS
from advisor.collect.parse import parse_server
from advisor.collect.raw import QueryError, RawServer

VARS = [("version", "5.7.25-TiDB-v5.2.0"), ("version_comment", "TiDB Server (Apache License 2.0)")]


def raw(**kw) -> RawServer:
    return RawServer(variables=list(VARS), status=[], **kw)


def test_instances_that_agree_give_one_value_and_those_that_do_not_say_so():
    r = raw(tidb_config=[("tidb", "tidb-0:4000", "prepared-plan-cache.enabled", "true")],
            tidb_bench_config=[("tidb", "tidb-0:4000", "log.level", "error"),
                               ("tikv", "tikv-0:20160", "server.grpc-concurrency", "6"),
                               ("tikv", "tikv-1:20160", "server.grpc-concurrency", "6"),
                               ("tikv", "tikv-0:20160", "raftstore.apply-pool-size", "3"),
                               ("tikv", "tikv-1:20160", "raftstore.apply-pool-size", "2")])
    cfg = parse_server(r, "root", None, "tcp").tidb_config
    assert cfg == {"prepared-plan-cache.enabled": "true", "log.level": "error", "tikv.server.grpc-concurrency": "6",
                   "tikv.raftstore.apply-pool-size": "3 on tikv-0:20160; 2 on tikv-1:20160"}


def test_a_failed_or_tikv_less_answer_is_recorded_as_missing():
    r = raw(tidb_config=[], errors={"tidb_bench_config": QueryError(Q_TIDB_BENCH_CONFIG, 1142, "denied")})
    facts = parse_server(r, "root", None, "tcp")
    [m] = [m for m in facts.missing if m.fact == "server.tidb_config.tikv"]
    assert "1142" in m.reason
    facts = parse_server(raw(tidb_config=[], tidb_bench_config=[("tidb", "t:4000", "log.level", "info")]),
                         "root", None, "tcp")
    assert facts.tidb_config == {"log.level": "info"}
    assert any("no TiKV item" in m.reason for m in facts.missing)


def test_the_statement_names_every_item_of_the_report():
    assert Q_TIDB_BENCH_CONFIG.startswith("SHOW CONFIG WHERE (type = 'tidb' AND name IN ('log.level'")
    assert all(f"'{n}'" in Q_TIDB_BENCH_CONFIG for n in TIKV_BENCH_ITEMS) and len(TIKV_BENCH_ITEMS) == 12
