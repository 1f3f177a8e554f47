"""What a watched host is: CPU limits, line rates, the interfaces to watch. On documents shaped like the
sampler's setup line, with /proc/net/route lines in the kernel's format (proc(5): destination,
gateway and mask as little-endian hex) and the recorded tc output of a 10 Mbit/s veth."""

from pathlib import Path

from advisor.snapshot import ClientFacts, Interface, Route
from advisor.watch.hostsetup import build_host_setup, ceilings, client_nics, cpu_limits, server_nic
from advisor.watch.procfs import Shaper, parse_tc_qdiscs

PROC = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "proc"
ROUTE_HEAD = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
# 10.213.0.0/30 on the veth end, as the kernel prints it (0000D50A = 10.213.0.0, FCFFFFFF = /30)
NS_ROUTE = ROUTE_HEAD + "advn1\t0000D50A\t00000000\t0001\t0\t0\t0\tFCFFFFFF\t0\t0\t0\n"
HOST_ROUTE = ROUTE_HEAD + "eth0\t00000000\t0102A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n" \
                          "eth0\t0002A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"


def doc(files=None, host_files=None, pid=77, other_netns=False, cpu_count=4):
    return {"cpu_count": cpu_count, "clk_tck": 100, "other_netns": other_netns, "files": files or {},
            "host": {"files": host_files or {}, "links": {}, "dirs": {}, "errors": {}, "paths": {},
                     "mysqld": {"pid": pid, "how": "pid_file /run/mysqld/mysqld.pid"}}}


def test_cpu_limits_from_affinity_and_quota():
    d = doc({"/proc/77/status": "Name:\tmariadbd\nCpus_allowed_list:\t0-1\n",
             "/sys/fs/cgroup/system.slice/mariadb.service/cpu.max": "150000 100000\n",
             "/sys/fs/cgroup/system.slice/cpu.max": "max 100000\n"})
    assert cpu_limits(d) == ([0, 1], 1.5, 1.5)
    assert cpu_limits(doc(cpu_count=8)) == (list(range(8)), None, 8.0)
    v1 = doc({"/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "300000\n", "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"})
    assert cpu_limits(v1)[1:] == (3.0, 3.0)


def test_ceilings():
    shaper = parse_tc_qdiscs((PROC / "tc-qdisc-host.json").read_text())[0]
    rx, tx, src = ceilings(10000, shaper)
    assert (rx, tx) == (10000.0, 10.0) and src == "tbf shaper at 10 Mb/s on its egress; link speed 10,000 Mb/s"
    assert ceilings(1000, None) == (1000.0, 1000.0, "link speed 1,000 Mb/s")
    assert ceilings(None, None) == (None, None, "no link speed reported and no shaper")


def test_client_nics_follow_the_route():
    c = ClientFacts(route=Route(destination="db1", kind="interface", interface="eth0", speed_mbps=1000,
                                source_address="192.168.2.10"),
                    interfaces=[Interface(name="eth0", kind="physical", speed_mbps=1000)])
    nics, why = client_nics(c, "tcp", {})
    assert why is None and [(n.interface, n.rx_ceiling_mbps, n.tx_ceiling_mbps, n.kind) for n in nics] == \
        [("eth0", 1000.0, 1000.0, "physical")]
    lo, _ = client_nics(ClientFacts(route=Route(destination="127.0.0.1", kind="loopback", interface="lo")), "tcp", {})
    assert lo[0].loopback and lo[0].ceiling_source == "loopback has no line rate"
    sock, _ = client_nics(None, "socket", {})
    assert sock[0].loopback and sock[0].kind == "unix socket"
    none, why = client_nics(ClientFacts(), "tcp", {})
    assert none == [] and why == "the client's route to the server is unknown"


def test_server_nic_in_mysqlds_network_namespace():
    d = doc({"/proc/77/net/route": NS_ROUTE}, other_netns=True)
    shaper = Shaper(interface="advn1", kind="tbf", rate_bits_per_s=10_000_000)
    nic, why = server_nic(d, "10.213.0.1", {"advn1": shaper})
    assert why is None and nic is not None
    assert (nic.interface, nic.netns, nic.tx_ceiling_mbps, nic.rx_ceiling_mbps) == ("advn1", "mysqld", 10.0, None)
    assert "not visible from outside mysqld's network namespace" in nic.ceiling_source


def test_server_nic_on_a_remote_host_and_the_reasons_when_unknown():
    host_files = {"/proc/net/route": HOST_ROUTE, "/sys/class/net/eth0/speed": "25000\n",
                  "/sys/class/net/eth0/operstate": "up\n"}
    d = doc(host_files=host_files)
    d["host"]["dirs"] = {"/sys/class/net": ["eth0", "lo"], "/sys/class/net/eth0": ["device", "speed"]}
    nic, why = server_nic(d, "192.168.2.10", {})
    assert why is None and nic is not None and nic.interface == "eth0" and nic.speed_mbps == 25000
    assert nic.rx_ceiling_mbps == nic.tx_ceiling_mbps == 25000.0
    assert server_nic(d, None, {}) == (None, "the client's source address is unknown, so the server's interface "
                                             "toward it is not known")


def test_build_host_setup_records_what_is_missing():
    hs = build_host_setup(doc(pid=None), "server", "ssh", "sampled on db1 over ssh", {}, [])
    reasons = {m.fact: m.reason for m in hs.missing}
    assert reasons["mysqld"].startswith("the server process was not found")
    assert reasons["datadir_devices"] == "the server's datadir is unknown"
    assert hs.cpus_available == 4.0 and hs.source == "ssh"
