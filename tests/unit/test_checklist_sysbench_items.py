"""Checklist items for a sysbench command against a server snapshot (the sysbench-* checks of
advisor.rules.checks).

Snapshots: tests/golden/checklist/inputs/ (collected with `advisor collect` from throwaway MariaDB
10.11.19 servers, see the README there); variations are made in code with the fact changed named in
each test. LocalSysbench values: DEBIAN is what read_local_sysbench found on this machine (sysbench
1.0.20+ds-5 linked against libmariadb.so.3 3.3.20); the others describe builds we do not have here
(sysbench 1.0.20 / 1.1.0-ead2689 linked against libmysqlclient, libmariadb 3.4) to exercise the rules
stated in KNOWLEDGE.md §1.3 and §9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.checklist import check_items
from advisor.knowledge import default_catalogue
from advisor.rules.checks import check_context
from advisor.rules.engine import fact_view
from advisor.rules.loader import load_entries
from advisor.snapshot import ClientFacts, Cpu, HostFacts, Interface, Route, Snapshot
from advisor.sysbench import SBTEST_ROW_BYTES, LocalSysbench, dataset_bytes, parse_command

INPUTS = Path(__file__).resolve().parents[1] / "golden" / "checklist" / "inputs"
DEBIAN = LocalSysbench(path="/usr/bin/sysbench", version="1.0.20", library="libmariadb",
                       library_file="libmariadb.so.3", library_version="3.3.20")
MYSQL_1020 = LocalSysbench(path="/usr/bin/sysbench", version="1.0.20", library="libmysqlclient",
                           library_file="libmysqlclient.so.21", library_version="8.0.36")
MASTER = LocalSysbench(path="/usr/local/bin/sysbench", version="1.1.0-ead2689", library="libmysqlclient",
                       library_file="libmysqlclient.so.21", library_version="8.0.36")
MARIADB_34 = LocalSysbench(path="/usr/bin/sysbench", version="1.0.20", library="libmariadb",
                           library_file="libmariadb.so.3", library_version="3.4.1")
NOWHERE = LocalSysbench(reason="sysbench is not on this machine's PATH")


def sysbench_items(cmd, s: Snapshot, local):
    """The items of the sysbench-* checks for this command and snapshot."""
    ctx = check_context(fact_view(s, "benchmark", default_catalogue()), cmd, local)
    return [it for it in check_items(ctx, load_entries()) if it.id.startswith("sysbench-")]


def snap(name: str = "default", variables: dict[str, str] | None = None, status: dict[str, str] | None = None,
         **sections: Any) -> Snapshot:
    s = Snapshot.model_validate(json.loads((INPUTS / f"mariadb-10.11-{name}.json").read_text()))
    s.server.variables.update(variables or {})
    s.server.status.update(status or {})
    for k, v in sections.items():
        setattr(s, k, v)
    return s


def items(line: str, s: Snapshot | None = None, local: LocalSysbench | None = DEBIAN, config: str | None = None):
    s = s or snap()
    port = s.target.port
    cmd = parse_command(line.replace("PORT", str(port)), config_text=config)
    return {it.id: it for it in sysbench_items(cmd, s, local)}


ACCEPT = ("sysbench oltp_read_write --threads=200 --mysql-host=127.0.0.1 --mysql-port=PORT --tables=10 "
          "--table-size=10000000 --time=600 run")


# ---------------------------------------------------------------- the acceptance command

def test_acceptance_command_against_default_mariadb():
    it = items(ACCEPT)
    mc = it["sysbench-max-connections"]
    assert mc.status == "fail" and "max_connections 151 < 200 threads" in mc.evidence
    assert mc.facts == {"threads": 200, "max_connections": 151, "other_connections": 0, "max_user_connections": 0}
    ds = it["sysbench-dataset"]
    assert ds.status == "fail" and "128 MiB" in ds.evidence and "22.4 GiB" in ds.evidence and "I/O-bound" in ds.evidence
    assert ds.facts["dataset_bytes"] == 10 * 10_000_000 * SBTEST_ROW_BYTES
    assert it["sysbench-rand-type"].status == "fail" and "special" in it["sysbench-rand-type"].evidence
    assert it["sysbench-report-interval"].status == "fail"
    assert it["sysbench-duration"].status == "pass"
    assert it["sysbench-data-prepared"].status == "fail"  # the throwaway server has no sbtest tables
    assert it["sysbench-target"].status == "pass" and it["sysbench-route"].status == "pass"
    assert it["sysbench-tls"].status == "pass"  # have_ssl DISABLED
    assert it["sysbench-warmup"].status == "manual" and it["sysbench-warmup"].command.endswith(" prewarm")


# ---------------------------------------------------------------- max_connections

def test_other_connections_reduce_the_room():
    s = snap(status={"Threads_connected": "12"})
    mc = items(ACCEPT.replace("200", "145"), s)["sysbench-max-connections"]
    assert mc.status == "fail" and "11 other connections" in mc.evidence and "145 threads > 140 free connections" in mc.evidence
    assert "lower --threads to 140" in mc.fix


def test_threads_within_max_connections_pass():
    mc = items(ACCEPT.replace("200", "150"))["sysbench-max-connections"]
    assert mc.status == "pass" and "151 ≥ 150" in mc.evidence


def test_max_user_connections_limit():
    mc = items(ACCEPT.replace("200", "50"), snap(variables={"max_user_connections": "20"}))["sysbench-max-connections"]
    assert mc.status == "fail" and "max_user_connections 20 < 50" in mc.evidence


def test_cleanup_opens_one_connection_so_no_check():
    it = items(ACCEPT.replace(" run", " cleanup"))
    assert "sysbench-max-connections" not in it and "sysbench-target" in it


def test_unresolved_thread_count_is_unknown():
    it = items("sysbench oltp_read_write --threads=$T --mysql-host=127.0.0.1 --mysql-port=PORT run")
    assert it["sysbench-max-connections"].status == "unknown" and "$T" in it["sysbench-max-connections"].evidence


# ---------------------------------------------------------------- dataset and buffer pool

def test_dataset_estimate_is_tables_times_rows_times_measured_row_size():
    assert dataset_bytes(10, 10_000_000) == 24_100_000_000
    assert dataset_bytes(1, 1000, secondary=False) == 1000 * (SBTEST_ROW_BYTES - 16)


def test_small_dataset_is_in_memory():
    ds = items("sysbench oltp_read_only --tables=2 --table-size=100000 --mysql-host=127.0.0.1 --mysql-port=PORT "
               "--rand-type=uniform run")["sysbench-dataset"]
    assert ds.status == "pass" and "in-memory" in ds.evidence and "in-memory" in ds.evidence


def test_big_buffer_pool_makes_the_acceptance_dataset_fit():
    ds = items(ACCEPT, snap(variables={"innodb_buffer_pool_size": str(32 << 30)}))["sysbench-dataset"]
    assert ds.status == "pass"


def test_dataset_fix_names_a_fitting_table_size_and_the_host_memory():
    s = snap(host=HostFacts(memory={"total_bytes": 64 << 30, "effective_limit_bytes": 64 << 30}))
    ds = items(ACCEPT, s)["sysbench-dataset"]
    assert "--table-size=44553" in ds.fix and "64 GiB" in ds.fix


def test_prepared_data_present():
    it = items("sysbench oltp_read_write --tables=2 --table-size=100000 --mysql-host=127.0.0.1 --mysql-port=PORT run",
               snap("prepared"))
    assert it["sysbench-data-prepared"].status == "pass"


# ---------------------------------------------------------------- run options

@pytest.mark.parametrize("local,expect", [(DEBIAN, "defaults to special"), (MASTER, "defaults to uniform"),
                                          (NOWHERE, "special in sysbench 1.0.x and to uniform in 1.1")])
def test_rand_type_default_depends_on_the_sysbench_build(local, expect):
    rt = items(ACCEPT, local=local)["sysbench-rand-type"]
    assert rt.status == "fail" and expect in rt.evidence


def test_rand_type_explicit_passes():
    assert items(ACCEPT + " --rand-type=uniform")["sysbench-rand-type"].status == "pass"
    special = items(ACCEPT + " --rand-type=special")["sysbench-rand-type"]
    assert special.status == "pass" and "1% of the rows" in special.evidence


@pytest.mark.parametrize("opts,status", [("", "fail"), ("--time=30", "fail"), ("--time=60", "pass"),
                                         ("--time=0 --events=100000", "unknown"), ("--time=0", "fail")])
def test_duration(opts, status):
    line = "sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-port=PORT " + opts + " run"
    d = items(line)["sysbench-duration"]
    assert d.status == status
    if opts == "":
        assert "default 10 s" in d.evidence


@pytest.mark.parametrize("opts,status", [("", "pass"), ("--rate=100", "note"), ("--tx-rate=24", "note")])
def test_rate_limit(opts, status):
    line = "sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-port=PORT --time=300 " + opts + " run"
    it = items(line)["sysbench-rate-limit"]
    assert it.status == status
    if status == "note":
        assert "by construction" in it.evidence and it.fix


@pytest.mark.parametrize("opts,status", [("", "pass"), ("--mysql-ignore-errors=1213,1205", "pass"),
                                         ("--mysql-ignore-errors=all", "fail")])
def test_ignore_errors(opts, status):
    line = "sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-port=PORT --time=300 " + opts + " run"
    it = items(line)["sysbench-ignore-errors"]
    assert it.status == status
    if opts.endswith("1205"):
        assert "1213, 1205" in it.evidence and "1020" not in it.evidence


def test_report_interval_and_warmup_time():
    it = items("sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-port=PORT --report-interval=10 "
               "--warmup-time=60 run", local=MASTER)
    assert it["sysbench-report-interval"].status == "pass" and it["sysbench-warmup"].status == "pass"
    assert it["sysbench-command-line"].status == "pass"


def test_prewarm_command_is_the_warmup():
    it = items("sysbench oltp_read_only --tables=2 --mysql-host=127.0.0.1 --mysql-port=PORT prewarm")
    assert it["sysbench-warmup"].status == "pass" and "sysbench-rand-type" not in it


# ---------------------------------------------------------------- the command line as sysbench reads it

def test_space_form_fails_the_command_line_item():
    cl = items("sysbench oltp_read_write --threads 8 --mysql-host=127.0.0.1 --mysql-port=PORT run")["sysbench-command-line"]
    assert cl.status == "fail" and "Unrecognized command line argument" in cl.evidence


def test_options_this_sysbench_lacks_fail():
    cl = items("sysbench oltp_read_write --warmup-time=30 --mysql-ssl=required --mysql-host=127.0.0.1 "
               "--mysql-port=PORT warmup")["sysbench-command-line"]
    assert cl.status == "fail"
    assert "no --warmup-time" in cl.evidence and "--mysql-ssl=on|off only" in cl.evidence
    assert "no `warmup` command" in cl.evidence
    ok = items("sysbench oltp_read_write --warmup-time=30 --mysql-host=127.0.0.1 --mysql-port=PORT run",
               local=MASTER)["sysbench-command-line"]
    assert ok.status == "pass"
    old = items("sysbench oltp_read_write --num-threads=8 --mysql-host=127.0.0.1 --mysql-port=PORT run",
                local=MASTER)["sysbench-command-line"]
    assert old.status == "fail" and "no --num-threads" in old.evidence


def test_unread_config_file_makes_the_command_line_unknown():
    cmd = parse_command("sysbench --config-file=config oltp_point_select run", config_problem="config does not exist")
    it = {i.id: i for i in sysbench_items(cmd, snap(), DEBIAN)}
    assert it["sysbench-command-line"].status == "unknown" and "config does not exist" in it["sysbench-command-line"].evidence
    assert it["sysbench-max-connections"].status == "unknown"


def test_builtin_test_gets_only_the_command_line_item():
    it = items("sysbench cpu --threads=2 run")
    assert list(it) == ["sysbench-command-line"]


# ---------------------------------------------------------------- target and route

def test_other_target_is_unknown():
    t = items("sysbench oltp_read_write --mysql-host=10.1.1.1 --mysql-port=3306 run")["sysbench-target"]
    assert t.status == "unknown" and "10.1.1.1:3306" in t.evidence


def test_localhost_means_the_socket():
    it = items("sysbench oltp_read_write run")  # defaults: --mysql-host=localhost
    assert it["sysbench-target"].status == "unknown" and "Unix socket" in it["sysbench-target"].evidence
    assert it["sysbench-route"].status == "pass" and it["sysbench-tls"].status == "unknown"


def _client(route: Route, *ifaces: Interface) -> ClientFacts:
    return ClientFacts(source="recorded", route=route, interfaces=list(ifaces))


def test_route_over_1g_fails():
    s = snap(client=_client(Route(destination="10.0.0.12", kind="interface", interface="em3", speed_mbps=1000),
                            Interface(name="em3", operstate="up", speed_mbps=1000)))
    r = items("sysbench oltp_read_write --mysql-host=10.0.0.12 run", s)["sysbench-route"]
    assert r.status == "fail" and "118 MB/s" in r.evidence


def test_route_with_idle_faster_interface_fails():
    s = snap(client=_client(Route(destination="10.0.0.12", kind="interface", interface="em3", speed_mbps=1000),
                            Interface(name="em3", operstate="up", speed_mbps=1000),
                            Interface(name="vlan2", operstate="up", speed_mbps=10000)))
    r = items("sysbench oltp_read_write --mysql-host=10.0.0.12 run", s)["sysbench-route"]
    assert r.status == "fail" and "vlan2" in r.evidence and "10,000 Mb/s" in r.evidence


def test_route_25g_passes_and_other_destination_is_unknown():
    s = snap(client=_client(Route(destination="10.0.0.12", kind="interface", interface="ens1", speed_mbps=25000),
                            Interface(name="ens1", operstate="up", speed_mbps=25000)))
    assert items("sysbench oltp_read_write --mysql-host=10.0.0.12 run", s)["sysbench-route"].status == "pass"
    other = items("sysbench oltp_read_write --mysql-host=10.9.9.9 run", s)["sysbench-route"]
    assert other.status == "unknown" and "10.0.0.12" in other.evidence


def test_route_unknown_without_client_facts():
    r = items("sysbench oltp_read_write --mysql-host=10.0.0.12 run")["sysbench-route"]
    assert r.status == "unknown" and "not collected" in r.evidence and "ip route get 10.0.0.12" in r.fix


def test_client_cpu():
    s = snap(host=HostFacts(cpu=Cpu(logical_count=2)))
    local = items(ACCEPT, s)["sysbench-client-cpu"]
    assert local.status == "fail" and "200 threads for 2 logical CPUs" in local.evidence
    remote = items(ACCEPT.replace("127.0.0.1", "10.0.0.12"), snap(host=HostFacts(cpu=Cpu(logical_count=64))))
    assert remote["sysbench-client-cpu"].status == "pass"


# ---------------------------------------------------------------- TLS (KNOWLEDGE.md §1.3, §9)

TLS_RUN = "sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-port=PORT run"


@pytest.mark.parametrize("local,opts,status,needle", [
    (DEBIAN, "", "pass", "libmariadb 3.3.20 does not start TLS"),
    (MARIADB_34, "", "fail", "enables TLS by default"),
    (MYSQL_1020, "", "fail", "negotiates TLS with this server"),
    (MYSQL_1020, "--mysql-ssl=off", "fail", "sets no SSL mode"),
    (MASTER, "", "pass", "defaults to --mysql-ssl=disabled"),
    (MASTER, "--mysql-ssl=disabled", "pass", "SSL_MODE_DISABLED"),
    (NOWHERE, "", "unknown", "ldd $(command -v sysbench)"),
    (DEBIAN, "--mysql-ssl=on", "pass", "encrypted by choice"),
    (MASTER, "--mysql-ssl=required", "pass", "encrypted by choice"),
])
def test_tls_against_a_server_with_certificates(local, opts, status, needle):
    it = items(TLS_RUN.replace(" run", f" {opts} run"), snap("tls"), local=local)["sysbench-tls"]
    assert it.status == status, it.evidence
    assert needle in it.evidence + it.fix
    assert "Ssl_accepts" in it.evidence + it.fix  # MariaDB, performance_schema off: how to check during the run


def test_tls_asked_but_server_has_none():
    it = items(TLS_RUN.replace(" run", " --mysql-ssl=on run"), snap(), local=DEBIAN)["sysbench-tls"]
    assert it.status == "fail" and "offers none" in it.evidence


def test_tls_howto_on_mysql_with_performance_schema():
    s = snap("tls", variables={"performance_schema": "ON"})
    s.target = s.target.model_copy(update={"flavor": "mysql", "version": "8.0.36", "version_string": "8.0.36"})
    it = items(TLS_RUN, s, local=MYSQL_1020)["sysbench-tls"]
    assert "sys.session_ssl_status" in it.fix


def test_custom_script_options_are_said_to_be_unchecked():
    cl = items("sysbench ./tpcc.lua --scale=10 --mysql-host=127.0.0.1 --mysql-port=PORT run")["sysbench-command-line"]
    assert cl.status == "pass" and "--scale=10 belong to tpcc itself and were not checked" in cl.evidence


def test_pgsql_driver_is_not_this_server():
    cl = items("sysbench oltp_read_only --db-driver=pgsql --pgsql-host=pg1 run")["sysbench-command-line"]
    assert cl.status == "fail" and "PostgreSQL" in cl.evidence
