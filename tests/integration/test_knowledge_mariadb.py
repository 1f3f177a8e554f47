"""The variable catalogue against a real, freshly started mariadbd (the one flavor that runs here),
and the knowledge-base rules against it: defaults, existence, what a live server accepts."""

from __future__ import annotations

import pymysql
import pytest

from advisor import knowledge as K
from advisor.versions import Version
from tests.support.cli import run_json

pytestmark = pytest.mark.requires_mariadbd


def test_catalogue_defaults_match_live_server(mariadb_factory):
    db = mariadb_factory()
    rows = dict(db.query("SHOW GLOBAL VARIABLES"))
    version = Version.parse(rows["version"])
    cpus = int(rows["thread_pool_size"])  # = the machine's CPUs on a default server
    # The test harness's own options (paths, networking, logs, sizes for speed) are configuration.
    configured = {o.lstrip("-").split("=")[0].replace("-", "_").removeprefix("skip_") for o in db._command("mariadbd")[1:]}
    configured |= {"skip_name_resolve"}  # started with --skip-name-resolve
    compared = 0
    for name in K.names():
        exists = K.exists_on(name, "mariadb", version)
        if exists is None:
            continue
        spec = K.info(name, "mariadb", version)
        if spec is not None and spec.scope == "session":
            continue  # SHOW GLOBAL VARIABLES does not list session-only variables
        assert exists == (name in rows), f"{name}: catalogue exists={exists} on {version}"
        if not exists or name in configured:
            continue
        if K.default_for(name, "mariadb", version, cpus=cpus) is None:
            continue
        assert K.is_default(name, rows[name], "mariadb", version, cpus=cpus), \
            f"{name}: server prints {rows[name]!r}, catalogue says {K.default_for(name, 'mariadb', version, cpus=cpus)!r}"
        compared += 1
    assert compared >= 400  # the generated entries bring the compiled-in defaults of every variable


def test_live_server_refuses_what_the_catalogue_refuses(mariadb_factory):
    db = mariadb_factory()
    version = Version.parse(db.query("SELECT VERSION()")[0][0])
    # innodb_log_files_in_group does not exist on 10.11: both the catalogue and the server say so
    assert K.check_setting("innodb_log_files_in_group", "2", "mariadb", version)
    with pytest.raises(pymysql.err.OperationalError) as e:
        db.query("SET GLOBAL innodb_log_files_in_group = 2")
    assert e.value.args[0] == 1193  # ER_UNKNOWN_SYSTEM_VARIABLE
    # a dynamic variable the catalogue marks dynamic is accepted with SET GLOBAL
    assert K.info("innodb_io_capacity", "mariadb", version).dynamic
    db.query("SET GLOBAL innodb_io_capacity = 400")
    assert db.query("SELECT @@global.innodb_io_capacity")[0][0] == 400
    # one the catalogue marks restart-only is refused at runtime
    assert not K.info("innodb_buffer_pool_chunk_size", "mariadb", version).dynamic
    with pytest.raises(pymysql.err.OperationalError) as e:
        db.query("SET GLOBAL innodb_buffer_pool_chunk_size = 134217728")
    assert e.value.args[0] == 1238  # ER_INCORRECT_GLOBAL_LOCAL_VAR: read-only


def test_knowledge_rules_on_live_server(mariadb_factory):
    db = mariadb_factory(options={"innodb-flush-method": "fsync", "tmp-table-size": "64M", "innodb-flush-neighbors": "1"})
    args = ["--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults"]
    code, report, err = run_json("audit", *args, "--purpose", "benchmark", "--format", "json")
    assert code == 0, err
    by_rule = {f["rule"]: f for f in report["findings"]}
    fsync = by_rule["flush-method-fsync"]
    assert "away from this version's default" in fsync["message"]
    assert fsync["recommendation"] == {"innodb_flush_method": "O_DIRECT"}
    tmp = by_rule["tmp-table-size-mismatch"]
    assert "16 MiB" in tmp["message"] and tmp["recommendation"] == {"tmp_table_size": "64M", "max_heap_table_size": "64M"}
    assert "durability-settings-stated" in by_rule and "binary-log-stated" in by_rule
    assert "performance-schema-stated" in by_rule
