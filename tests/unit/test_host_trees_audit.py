"""Issue 3 acceptance on recorded and reconstructed trees: the real readers (api.collect_machine with
--sysroot) fill the snapshot's host and client sections, then the real audit runs the rule catalogue.

The server section comes from a recorded variable set (tests/fixtures/flavors) with the seed's
settings applied, as a live collection would have read it."""

from __future__ import annotations

from pathlib import Path

from advisor import api
from advisor.snapshot import ServerFacts, Snapshot, Target
from tests.support.wire_server import load_set

HOSTS = Path(__file__).resolve().parents[1] / "fixtures" / "hosts"


def snapshot(set_name: str, flavor: str, version: str, host: str, **variables: str) -> Snapshot:
    s = load_set(set_name)
    v = {k: str(x) for k, x in s["variables"].items()}
    v.update(variables)
    return Snapshot(advisor_version="test", collected_at="2026-11-30T00:00:00Z",
                    target=Target(host=host, port=3306, flavor=flavor, version=version, version_string=v["version"]),
                    server=ServerFacts(variables=v, status={k: str(x) for k, x in s["status"].items()}))


def audit(snap: Snapshot, purpose: str = "benchmark") -> dict[str, object]:
    report = api.audit(snap, purpose=purpose)
    return {o.rule: o for o in report.outcomes}


def test_seed_000_client_route_fires_naming_em3_and_vlan2():
    snap = snapshot("mysql-5.7", "mysql", "5.7.44", "10.186.60.104")
    api.collect_machine(snap, "10.186.60.104", "tcp", sysroot=str(HOSTS / "seed-000-client"))
    assert snap.client.route.interface == "em3" and snap.client.route.speed_mbps == 1000
    out = audit(snap)["network-route-slow-link"]
    assert out.status == "fired", out.reason
    f = out.finding
    assert f.severity == "warning"
    assert "em3" in f.message and "vlan2" in f.message and "10,000 Mb/s" in f.message and "1,000 Mb/s" in f.message
    assert f.evidence["derived.fastest_other_interface"] == "vlan2"  # not p2p1, the bare NIC under it
    assert f.evidence["client.route.source_address"] == "10.186.60.61"


def test_seed_000_client_on_the_fast_network_stays_quiet():
    snap = snapshot("mysql-5.7", "mysql", "5.7.44", "172.16.20.104")
    api.collect_machine(snap, "172.16.20.104", "tcp", sysroot=str(HOSTS / "seed-000-client"))
    out = audit(snap)["network-route-slow-link"]
    assert snap.client.route.interface == "vlan2"
    assert out.status == "passed", out.reason


def test_seed_003_pm981_fires_client_grade_nvme():
    snap = snapshot("mariadb-10.11", "mariadb", "10.11.19", "10.0.3.10", innodb_log_file_size=str(128 << 20))
    api.collect_machine(snap, "10.0.3.10", "tcp", sysroot=str(HOSTS / "seed-003-pm981"))
    assert snap.host.source == "recorded" and snap.host.datadir.device_class == "nvme_client"
    outcomes = audit(snap)
    nvme = outcomes["nvme-client-no-plp"]
    assert nvme.status == "fired", nvme.reason
    assert "MZVLB1T0HBLR" in nvme.finding.message
    redo = outcomes["redo-small-on-slow-flush-device"]
    assert redo.status == "fired" and "MZVLB1T0HBLR" in redo.finding.message
    # one home for the redo size (tests/test_consistency.py): redo-log-undersized recommends it, this finding
    # points there. One hour of writes is unknown, so the floor: innodb_dedicated_server's 12 CPUs / 2 = 6 GiB
    assert redo.finding.recommendation == {} and "redo-log-undersized" in redo.finding.fix
    assert outcomes["redo-log-undersized"].finding.recommendation == {"innodb_log_file_size": "6G"}
    assert outcomes["cpu-governor-not-performance"].status == "fired"  # powersave
    assert outcomes["swappiness-high-with-swap"].status == "fired"     # 2 GiB swap, swappiness 60
    assert outcomes["transparent-huge-pages-always"].status == "passed"  # madvise


def test_seed_003_pm983_stays_quiet():
    snap = snapshot("mariadb-10.11", "mariadb", "10.11.19", "10.0.3.11", innodb_log_file_size=str(128 << 20))
    api.collect_machine(snap, "10.0.3.11", "tcp", sysroot=str(HOSTS / "seed-003-pm983"))
    outcomes = audit(snap)
    for rule in ("nvme-client-no-plp", "redo-small-on-slow-flush-device", "nvme-scheduler-not-none",
                 "cpu-governor-not-performance", "swappiness-high-with-swap", "transparent-huge-pages-always",
                 "buffer-pool-exceeds-memory-limit"):
        assert outcomes[rule].status == "passed", (rule, outcomes[rule].reason)
    assert "MZQLB960HAJR" in str(snap.host.datadir.devices[0].model)


def test_cgroup_v2_container_4g_limit_makes_a_6g_pool_fire():
    snap = snapshot("mysql-8.0.36", "mysql", "8.0.36", "10.0.4.2", innodb_buffer_pool_size=str(6 << 30))
    api.collect_machine(snap, "10.0.4.2", "tcp", sysroot=str(HOSTS / "cgroup-v2-container"))
    assert snap.host.memory.total_bytes > 60 << 30 and snap.host.memory.cgroup_limit_bytes == 4 << 30
    out = audit(snap, "production")["buffer-pool-exceeds-memory-limit"]
    assert out.status == "fired", out.reason
    f = out.finding
    assert f.severity == "critical"
    assert "6 GiB" in f.message and "4 GiB" in f.message and "cgroup v2" in f.message
    assert f.recommendation == {"innodb_buffer_pool_size": "2G"}
    assert audit(snap, "production")["transparent-huge-pages-always"].status == "fired"


def test_same_pool_without_the_container_limit_passes():
    snap = snapshot("mysql-8.0.36", "mysql", "8.0.36", "10.0.4.3", innodb_buffer_pool_size=str(6 << 30))
    api.collect_machine(snap, "10.0.4.3", "tcp", sysroot=str(HOSTS / "seed-003-pm983"))
    assert audit(snap, "production")["buffer-pool-exceeds-memory-limit"].status == "passed"


def test_md_mirror_of_client_drives_and_lvm_on_hdd():
    snap = snapshot("mariadb-10.11", "mariadb", "10.11.19", "10.0.5.2")
    api.collect_machine(snap, "10.0.5.2", "tcp", sysroot=str(HOSTS / "md-raid1-nvme"))
    outcomes = audit(snap)
    assert outcomes["nvme-client-no-plp"].status == "fired"
    assert "MZVLB512HBJQ" in outcomes["nvme-client-no-plp"].finding.message
    snap = snapshot("mariadb-10.11", "mariadb", "10.11.19", "10.0.5.3")
    api.collect_machine(snap, "10.0.5.3", "tcp", sysroot=str(HOSTS / "lvm-hdd"))
    outcomes = audit(snap)
    assert outcomes["nvme-client-no-plp"].status == "passed"
    redo = outcomes["redo-small-on-slow-flush-device"]
    assert redo.status == "fired" and "spinning disk" in redo.finding.message  # 96 MiB redo, flush = 1


def test_remote_server_without_host_facts_says_how_to_supply_them():
    snap = snapshot("mysql-8.0.36", "mysql", "8.0.36", "192.0.2.200", hostname="db-elsewhere")
    api.collect_machine(snap, "192.0.2.200", "tcp")  # TEST-NET address: not this machine
    assert snap.host is None
    [m] = [m for m in snap.missing if m.fact == "host"]
    assert "not on this machine" in m.reason and "--ssh" in m.reason and "--host-facts" in m.reason
    out = audit(snap, "production")["transparent-huge-pages-always"]
    assert out.status == "unknown" and "--host-facts" in out.reason
