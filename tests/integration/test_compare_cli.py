"""Issue 17 acceptance for `advisor compare`, end to end through the CLI: recorded servers are served
over the real MySQL protocol (tests/support/wire_server.py), collected by `advisor collect` (with
`--sysroot` pointing at a recorded or reconstructed /proc+/sys tree for the host facts), and the
snapshot files are compared by `advisor compare`.

- the Percona case (seed 003): the same Percona Server variable set on two hosts, a client-grade
  Samsung PM981 and a datacenter PM983 behind the datadir -> the device class ranks first, confounding;
- the TiDB case: v5.1 against v5.2 with the six globals of PingCAP's v5.2.0-vs-v5.1.1 report set on
  both -> the version is expected (--about version); a global that differs is confounding;
- two identical snapshots -> nothing to worry about.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.support.cli import assert_one_paragraph_error, run_cli, run_json
from tests.support.wire_server import ReplayServer, load_set

ROOT = Path(__file__).resolve().parents[2]
HOSTS = ROOT / "tests" / "fixtures" / "hosts"
DUMPS = ROOT / "tests" / "fixtures" / "dumps"

# The seed servers keep their datadir at /var/lib/mysql (the PM983 tree mounts it on the drive); the
# recorded Percona set is a sandbox whose datadir was /tmp/12345/data. Everything else is as recorded.
PERCONA = {"datadir": "/var/lib/mysql/"}
# pingcap/docs-cn benchmark/benchmark-sysbench-v5.2.0-vs-v5.1.1.md, "TiDB global variable configuration"
SEED_GLOBALS = {"tidb_hashagg_final_concurrency": "1", "tidb_hashagg_partial_concurrency": "1",
                "tidb_enable_async_commit": "ON", "tidb_enable_1pc": "ON", "tidb_guarantee_linearizability": "OFF",
                "tidb_enable_clustered_index": "ON"}


# The same report's TiDB and TiKV parameter configuration (three TiKV instances, as in its cluster).
REPORT_TIDB = {"log.level": "error", "performance.max-procs": "20", "tikv-client.max-batch-wait-time": "2000000"}
REPORT_TIKV = {"storage.scheduler-worker-pool-size": "5", "raftstore.store-pool-size": "3",
               "raftstore.apply-pool-size": "3", "rocksdb.max-background-jobs": "8", "raftdb.max-background-jobs": "4",
               "raftdb.allow-concurrent-memtable-write": "true", "server.grpc-concurrency": "6",
               "readpool.unified.min-thread-count": "5", "readpool.unified.max-thread-count": "20",
               "readpool.storage.normal-concurrency": "10", "pessimistic-txn.pipelined": "true",
               "server.enable-request-batch": "false"}


def with_config(set_name: str, tidb: dict[str, str], tikv: dict[str, str], **overrides: str) -> dict:
    """A recorded TiDB set whose SHOW CONFIG also answers the benchmark items (one TiDB, three TiKV)."""
    data = load_set(set_name)
    data["variables"].update(overrides)
    rows = [["tidb", "tidb-0:4000", k, v] for k, v in tidb.items()]
    rows += [["tikv", f"tikv-{i}:20160", k, v] for i in range(3) for k, v in tikv.items()]
    data["queries"] = list(data.get("queries", [])) + [{
        "match": r"^SHOW CONFIG WHERE \(type = 'tidb' AND name IN", "columns": ["Type", "Instance", "Name", "Value"],
        "rows": rows}]
    return data


def collect(tmp_path: Path, set_name: str | dict, out: str, sysroot: str | None = None, **overrides: str) -> Path:
    path = tmp_path / out
    server = ReplayServer(set_name) if isinstance(set_name, dict) else ReplayServer.from_set(set_name, overrides=overrides)
    with server as srv:
        extra = ["--sysroot", str(HOSTS / sysroot)] if sysroot else []
        p = run_cli("collect", "--host", "127.0.0.1", "--port", str(srv.port), "--user", "root", "--no-defaults",
                    *extra, "-o", str(path))
    assert p.returncode == 0, p.stderr
    return path


def compare(*args: str) -> tuple[int, dict, str]:
    code, doc, err = run_json("compare", *args, "--format", "json")
    assert doc is not None, err
    return code, doc, err


@pytest.fixture(scope="module")
def percona(tmp_path_factory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("percona")
    return (collect(d, "percona-8.0", "pm981.json", "seed-003-pm981", **PERCONA),
            collect(d, "percona-8.0", "pm983.json", "seed-003-pm983", **PERCONA))


def test_percona_pm981_vs_pm983_ranks_the_device_class_first(percona):
    a, b = percona
    code, doc, err = compare(str(a), str(b))
    assert code == 0, err
    first = doc["differences"][0]
    assert (first["id"], first["verdict"], first["rank"]) == ("host.datadir.device_class", "confounding", 1)
    assert "nvme_client" in first["values"][0] and "nvme_plp" in first["values"][1]
    assert "23:19" in first["reason"] and first["fix"]
    ids = [d["id"] for d in doc["differences"]]
    assert not [i for i in ids if i.startswith("var.")], "the same variable set on both sides"
    assert {"host.datadir.write_cache", "derived.datadir_models", "host.cpu.logical_count"} <= set(ids)
    assert doc["verdict"] == "confounded" and doc["sides"][0]["flavor"] == doc["sides"][1]["flavor"] == "percona"
    text = run_cli("compare", str(a), str(b), "--label", "pm981", "--label", "pm983")
    assert text.returncode == 0, text.stderr
    assert "NOT A FAIR COMPARISON" in text.stdout and "1. datadir device class" in text.stdout
    assert "pm981: SAMSUNG MZVLB1T0HBLR" in text.stdout and "pm983: SAMSUNG MZQLB960HAJR" in text.stdout


def test_percona_about_storage_makes_the_drive_expected_and_fail_on_confounding(percona):
    a, b = percona
    code, doc, _ = compare(str(a), str(b), "--about", "storage")
    by_id = {d["id"]: d for d in doc["differences"]}
    assert by_id["host.datadir.device_class"]["verdict"] == "expected"
    assert by_id["host.cpu.logical_count"]["verdict"] == "confounding"  # the storage, not the whole host
    assert doc["differences"][0]["verdict"] == "confounding"
    p = run_cli("compare", str(a), str(b), "--about", "host", "--fail-on-confounding")
    assert p.returncode == 0, p.stdout  # everything that differs is the host
    p = run_cli("compare", str(a), str(b), "--fail-on-confounding")
    assert p.returncode == 1


@pytest.fixture(scope="module")
def tidb(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("tidb")
    return {"5.1": collect(d, "tidb-5.1", "tidb-5.1.json", **SEED_GLOBALS),
            "5.2": collect(d, "tidb-5.2", "tidb-5.2.json", **SEED_GLOBALS),
            "5.2-linearizable": collect(d, "tidb-5.2", "tidb-5.2-lin.json",
                                        **{**SEED_GLOBALS, "tidb_guarantee_linearizability": "ON"}),
            "5.1-as-recorded": collect(d, "tidb-5.1", "tidb-5.1-raw.json")}


def test_tidb_51_vs_52_with_the_seed_globals_is_about_the_version(tidb):
    code, doc, err = compare(str(tidb["5.1"]), str(tidb["5.2"]), "--about", "version")
    assert code == 0, err
    by_id = {d["id"]: d for d in doc["differences"]}
    assert by_id["target.version"]["verdict"] == "expected"
    assert by_id["target.version"]["values"] == ["5.1.4", "5.2.0"]
    assert doc["summary"]["confounding"] == 0 and doc["verdict"] == "fair"
    for name in SEED_GLOBALS:  # the six globals are equal, so none is a difference
        assert f"var.{name}" not in by_id
    # defaults that moved between the releases (variable catalogue): part of the version
    d = by_id["var.tidb_analyze_version"]
    assert (d["kind"], d["verdict"], d["values"], d["defaults"]) == ("default_differs", "expected", ["1", "2"],
                                                                     ["1", "2"])
    assert by_id["var.tidb_stmt_summary_max_stmt_count"]["kind"] == "default_differs"


def test_tidb_a_global_that_differs_is_confounding(tidb):
    code, doc, _ = compare(str(tidb["5.1"]), str(tidb["5.2-linearizable"]), "--about", "version")
    first = doc["differences"][0]
    assert (first["id"], first["verdict"]) == ("var.tidb_guarantee_linearizability", "confounding")
    assert first["values"] == ["OFF", "ON"]
    assert first["fix"].startswith("set tidb_guarantee_linearizability = OFF on B as on A (the baseline; SET GLOBAL works)")
    # the upgraded 5.1 cluster as recorded (async commit and 1PC off) against 5.2 with the globals
    code, doc, _ = compare(str(tidb["5.1-as-recorded"]), str(tidb["5.2"]), "--about", "version")
    confounding = {d["id"] for d in doc["differences"] if d["verdict"] == "confounding"}
    assert set(f"var.{n}" for n in SEED_GLOBALS) <= confounding
    # without --about, the version itself confounds; the defaults it moved come with it (issue 25 §2.8)
    code, doc, _ = compare(str(tidb["5.1"]), str(tidb["5.2"]))
    by_id = {d["id"]: d for d in doc["differences"]}
    assert by_id["target.version"]["verdict"] == "confounding"
    moved = by_id["var.tidb_analyze_version"]
    assert (moved["verdict"], moved["fix"]) == ("expected", "") and moved["reason"].startswith("default changed in 5.2")


def test_tidb_and_tikv_configuration_side_by_side(tmp_path):
    """PingCAP's v5.3.0-vs-v5.2.2 report no longer lists server.enable-request-batch = false: a cluster
    that keeps TiKV's own value (true here) against one configured as the v5.2.0 report says."""
    a = collect(tmp_path, with_config("tidb-5.1", REPORT_TIDB, REPORT_TIKV, **SEED_GLOBALS), "a.json")
    b = collect(tmp_path, with_config("tidb-5.2", REPORT_TIDB, {**REPORT_TIKV, "server.enable-request-batch": "true"},
                                      **SEED_GLOBALS), "b.json")
    snap = json.loads(a.read_text())
    assert snap["server"]["tidb_config"]["tikv.server.grpc-concurrency"] == "6"  # one value: every TiKV agrees
    assert snap["server"]["tidb_config"]["performance.max-procs"] == "20"
    code, doc, _ = compare(str(a), str(b), "--about", "version")
    first = doc["differences"][0]
    assert (first["id"], first["verdict"], first["values"]) == (
        "server.tidb_config.tikv.server.enable-request-batch", "confounding", ["false", "true"])
    assert first["title"] == "TiKV configuration server.enable-request-batch" and "TiKV configuration" in first["fix"]
    assert [d["id"] for d in doc["differences"] if d["id"].startswith("server.tidb_config")] == [first["id"]]


def test_identical_snapshots_are_nothing_to_worry_about(percona, tmp_path):
    a, _ = percona
    again = collect(tmp_path, "percona-8.0", "pm981-again.json", "seed-003-pm981", **PERCONA)
    code, doc, err = compare(str(a), str(again))
    assert code == 0, err
    assert doc["verdict"] == "nothing_to_worry_about" and doc["differences"] == []
    # neither side was calibrated; the replayed set has no rows for information_schema.TABLES
    nc = {n["fact"]: n for n in doc["not_compared"]}
    assert list(nc) == ["calibration", "derived.buffer_pool_fit"] and nc["calibration"]["sides"] == ["A", "B"]
    assert "information_schema.TABLES" in nc["derived.buffer_pool_fit"]["reason"], nc
    p = run_cli("compare", str(a), str(again), "--fail-on-confounding")
    assert p.returncode == 0 and "NOTHING TO WORRY ABOUT" in p.stdout, p.stdout


def test_json_markdown_and_the_schema(percona, tidb):
    a, b = percona
    schema = json.loads(run_cli("schema", "compare").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    for args in ((str(a), str(b)), (str(tidb["5.1"]), str(tidb["5.2"]), "--about", "version")):
        code, doc, _ = compare(*args)
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
        assert not errors, errors[:3]
    p = run_cli("compare", str(a), str(b), "--format", "markdown")
    assert p.returncode == 0
    assert "## Confounding (" in p.stdout and "| 1 | Storage behind the datadir | datadir device class |" in p.stdout


def test_three_inputs_one_a_dump_one_live(percona, tmp_path):
    """A dump that `advisor import` reads and a live server (mysql://host:port) beside a snapshot."""
    a, _ = percona
    dump = DUMPS / "percona-8.0.32-pt-mysql-summary"
    with ReplayServer.from_set("percona-8.0") as srv:
        code, doc, err = compare(str(a), str(dump), f"mysql://root@127.0.0.1:{srv.port}", "--no-defaults",
                                 "--no-calibrate")
    assert code == 0, err
    assert [s["label"] for s in doc["sides"]] == ["A", "B", "C"]
    assert all(len(d["values"]) == 3 for d in doc["differences"])
    nc = {n["fact"]: n for n in doc["not_compared"]}
    assert "B" in nc["host"]["sides"]  # a dump has no host facts, and says so


def test_bad_inputs_are_one_paragraph_errors(percona, tmp_path):
    a, _ = percona
    cases = [
        (("compare", str(a)), 2, "two inputs or more"),
        (("compare", str(a), str(tmp_path / "nope.json")), 2, "is not a file, a directory or a live server"),
        (("compare", str(a), str(a), "--about", "weather"), 2, "--about weather"),
        (("compare", str(a), str(a), "--label", "x"), 2, "--label was given 1 time(s) for 2 inputs"),
        (("compare", str(a), str(a), "--label", "x", "--label", "x"), 2, "must be distinct"),
    ]
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": 1, "advisor_version": "x"')
    cases.append((("compare", str(a), str(broken)), 4, "not valid JSON"))
    cases.append((("compare", str(a), "mysql://127.0.0.1:1", "--no-defaults"), 3, "127.0.0.1:1"))
    for args, rc, text in cases:
        p = run_cli(*args)
        assert p.returncode == rc, (args, p.returncode, p.stderr)
        assert_one_paragraph_error(p.stderr)
        assert text in p.stderr and "Tip:" in p.stderr, p.stderr


@pytest.mark.requires_mariadbd
def test_two_live_servers_calibrated(mariadb_factory):
    """Two throwaway mariadbd on this machine, one with relaxed durability, compared live with the full
    calibration: the same host on both sides, the setting confounding, the calibration figures side by
    side (their verdicts depend on this machine's load, so only their presence is checked)."""
    a = mariadb_factory()
    b = mariadb_factory(options={"innodb-flush-log-at-trx-commit": "2"})
    code, doc, err = compare(f"mysql://root@127.0.0.1:{a.port}", f"mysql://root@127.0.0.1:{b.port}", "--no-defaults",
                             "--calibrate", "--calibrate-seconds", "3")
    assert code == 0, err
    by_id = {d["id"]: d for d in doc["differences"]}
    d = by_id["var.innodb_flush_log_at_trx_commit"]
    assert (d["verdict"], d["raw"], d["group"]) == ("confounding", ["1", "2"], "durability")
    assert d["fix"].startswith("set innodb_flush_log_at_trx_commit = 1 on B as on A (the baseline; SET GLOBAL works)")
    assert by_id["var.port"]["verdict"] == by_id["var.datadir"]["verdict"] == "harmless"
    assert not [i for i in by_id if i.startswith(("host.", "derived.datadir", "derived.memory"))]  # one host
    assert "calibration" not in {n["fact"] for n in doc["not_compared"]}
    assert {f["id"] for f in doc["figures"]} >= {"calibration.rtt_ms"}
    assert all(len(f["values"]) == 2 for f in doc["figures"])


def test_one_tls_server_read_without_and_with_tls(mariadb_factory, tls_certs, tmp_path):
    """Issue 25 §2.6, live: one throwaway mariadbd with real certificates, collected once with
    --ssl-mode=DISABLED and once with REQUIRED. The TLS on each snapshot's own connection differs
    (confounding: a benchmark client would pay for it on one side only), and both sides are recognised
    as the same server; two snapshots without TLS on the connection differ in nothing."""
    db = mariadb_factory(tls=tls_certs)
    paths = {}
    for mode in ("DISABLED", "REQUIRED", "DISABLED-again"):
        path = paths[mode] = tmp_path / f"{mode}.json"
        p = run_cli("collect", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults",
                    "--ssl-mode", mode.split("-")[0], "-o", str(path))
        assert p.returncode == 0, p.stderr
    code, doc, err = compare(str(paths["DISABLED"]), str(paths["REQUIRED"]))
    assert code == 0, err
    d = {x["id"]: x for x in doc["differences"]}["derived.tls"]
    assert d["verdict"] == "confounding" and d["values"][0] == "off", d
    assert d["values"][1].startswith("on (TLSv1."), d
    assert "the same server on both sides (hostname " in doc["headline"] and f"port {db.port}" in doc["headline"]
    code, doc, err = compare(str(paths["DISABLED"]), str(paths["DISABLED-again"]))
    assert code == 0, err
    assert "derived.tls" not in {x["id"] for x in doc["differences"]}
    assert doc["verdict"] == "nothing_to_worry_about" and doc["summary"]["confounding"] == 0, doc["differences"]
