"""The checklist's manual checks (advisor.rules.checks.manual): the commands they give for the target and
the sysbench command, and when they do not apply."""

from __future__ import annotations

from advisor.rules.checks import CHECKS, check_context
from advisor.sysbench import parse_command
from tests.support.facts import view


def run(check_id, facts=None, line=None, target="mariadb 10.11.6"):
    cmd = parse_command(line) if line else None
    return CHECKS[check_id].fn(check_context(view(facts or {}, target, "benchmark"), cmd))


def test_same_client_host_names_the_address_to_route_to():
    assert run("same-client-host").command == "hostname; ip route get example"
    r = run("same-client-host", line="sysbench oltp_read_only --mysql-host=10.1.2.3 run")
    assert r.status == "manual" and r.command == "hostname; ip route get 10.1.2.3"


def test_record_versions_config_lists_what_shapes_throughput():
    r = run("record-versions-config", {"var.innodb_buffer_pool_size": "8G", "var.log_bin": "OFF",
                                       "var.innodb_flush_method": "", "var.innodb_log_file_size": "1G"})
    assert r.status == "manual"
    assert "innodb_buffer_pool_size=8 GiB" in r.evidence and "innodb_flush_method=(empty)" in r.evidence
    assert "redo log 1 GiB" in r.evidence and "log_bin=OFF" in r.evidence
    assert r.command.startswith("advisor collect -h example -P 3306 -o before-run.json")


def test_analyze_after_prepare_uses_the_benchmarks_schema_and_user():
    r = run("analyze-after-prepare", line="sysbench oltp_read_write --tables=3 --mysql-db=bench --mysql-user=u1 "
                                          "--mysql-host=example run")
    assert 'ANALYZE TABLE bench.sbtest1, bench.sbtest2, bench.sbtest3' in r.command and "-u u1" in r.command
    assert r.command.startswith("mariadb ")
    assert run("analyze-after-prepare", target="mysql 8.0.36").command.startswith("mysql ")
    assert run("analyze-after-prepare", line="sysbench fileio --file-test-mode=seqwr run") is None


def test_restore_data_between_runs_by_workload():
    writes = run("restore-data-between-runs", line="sysbench oltp_write_only --mysql-host=example run")
    assert writes.status == "manual" and "cleanup" in writes.command and "prepare" in writes.command
    reads = run("restore-data-between-runs", line="sysbench select_random_points --mysql-host=example run")
    assert reads.status == "pass" and reads.title == "Same data for every run"
    backup = run("restore-data-between-runs", {"var.datadir": "/data/mysql/"},
                 line="sysbench oltp_read_write --mysql-host=example prepare")
    assert backup.command == ("systemctl stop mariadb && rsync -a --delete /data/mysql/ /backup/after-prepare/ && "
                              "systemctl start mariadb")
    tidb = run("restore-data-between-runs", target="tidb 7.5.1")
    assert "tiup cluster stop" in tidb.command


def test_warm_up_only_without_a_sysbench_command():
    r = run("warm-up")
    assert r.status == "manual" and "USE INDEX (k_1)" in r.command
    assert run("warm-up", line="sysbench oltp_read_only --mysql-host=example run") is None
