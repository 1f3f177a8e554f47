"""The client's network path: /proc/net route lookup and `ip -j route get` parsing on recorded data."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from advisor.collect.host_gather import Gatherer
from advisor.collect.host_parse import RawTree
from advisor.collect.network import read_client, resolve_address
from advisor.collect.network_parse import (client_facts, interpret_ip_route_get, local_addresses, lookup_route,
                                           parse_fib_trie_local, parse_ip_route_get, parse_proc_route)

HOSTS = Path(__file__).resolve().parents[1] / "fixtures" / "hosts"
SEED0 = str(HOSTS / "seed-000-client")
IPJ = HOSTS / "ip-route-get"


def tree(name: str) -> RawTree:
    return RawTree(Gatherer(str(HOSTS / name)).network())


def test_proc_route_little_endian_hex():
    routes = parse_proc_route((HOSTS / "this-vm/proc/net/route").read_text())
    default, link = routes
    assert (default.iface, str(default.network), str(default.gateway)) == ("eth0", "0.0.0.0/0", "192.0.2.1")
    assert (str(link.network), link.gateway) == ("192.0.2.0/24", None)


def test_fib_trie_local_addresses_recorded():
    addrs = parse_fib_trie_local((HOSTS / "this-vm/proc/net/fib_trie").read_text())
    assert [str(a) for a in addrs] == ["127.0.0.1", "192.0.2.2"]  # not the /8 network or broadcast leaves


def test_local_addresses_are_attributed_to_interfaces():
    la = local_addresses(tree("this-vm"))
    assert la.by_iface["eth0"][:2] == ["192.0.2.2/24", "fd00::2/64"]
    assert la.by_iface["lo"] == ["127.0.0.1/8", "::1/128"]


@pytest.mark.parametrize("dest,kind,iface,src,gw", [
    ("10.186.60.104", "interface", "em3", "10.186.60.61", None),      # the benchmark's server address
    ("172.16.20.104", "interface", "vlan2", "172.16.20.61", None),    # the server on the fast network
    ("8.8.8.8", "interface", "em3", "10.186.60.61", "10.186.60.254"),
    ("10.186.60.61", "loopback", "lo", "10.186.60.61", None),         # the client's own address
    ("127.0.0.1", "loopback", "lo", "127.0.0.1", None),
])
def test_route_lookup_on_the_seed_000_client(dest, kind, iface, src, gw):
    r = lookup_route(tree("seed-000-client"), ipaddress.ip_address(dest))
    assert (r.kind, r.interface, r.source, r.gateway, r.error) == (kind, iface, src, gw, None)
    assert r.method == "/proc/net/route"


def test_ipv6_route_lookup_recorded():
    t = tree("this-vm")
    r = lookup_route(t, ipaddress.ip_address("fd00::5"))
    assert (r.kind, r.interface, r.source, r.method) == ("interface", "eth0", "fd00::2", "/proc/net/ipv6_route")
    r = lookup_route(t, ipaddress.ip_address("2001:db8::1"))
    assert r.interface == "eth0" and r.gateway == "fd00::1"
    assert lookup_route(t, ipaddress.ip_address("::1")).kind == "loopback"


def test_no_route_is_a_reason():
    t = RawTree({"files": {"/proc/net/route": "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"}})
    r = lookup_route(t, ipaddress.ip_address("10.0.0.1"))
    assert r.kind is None and "network unreachable" in r.error


@pytest.mark.parametrize("fname,kind,dev,src,gw", [
    ("loopback-127.0.0.1.json", "loopback", "lo", "127.0.0.1", None),
    ("own-address-192.0.2.2.json", "loopback", "lo", "192.0.2.2", None),
    ("via-gateway-8.8.8.8.json", "interface", "eth0", "192.0.2.2", "192.0.2.1"),
    ("loopback-ipv6.json", "loopback", "lo", "::1", None),
    ("on-link-ipv6-fd00--5.json", "interface", "eth0", "fd00::2", None),
])
def test_ip_route_get_recorded(fname, kind, dev, src, gw):
    r = parse_ip_route_get((IPJ / fname).read_text())
    assert (r.kind, r.interface, r.source, r.gateway, r.error) == (kind, dev, src, gw, None)
    assert r.method == "ip route get"


def test_ip_route_get_unreachable_recorded():
    err = (IPJ / "netns-no-route.stderr").read_text().splitlines()
    js, why = interpret_ip_route_get("8.8.8.8", int(err[-1].split("=")[1]), "", err[0])
    assert why is None
    r = parse_ip_route_get(js)
    assert r.kind is None and r.error == "the route to 8.8.8.8 is unreachable"
    js, why = interpret_ip_route_get("8.8.8.8", 1, "", "Error: any valid prefix is expected rather than \"x\".")
    assert js is None and "failed" in why
    assert "not JSON" in parse_ip_route_get("dev lo").error


def test_interfaces_of_the_seed_000_client():
    c = read_client("10.186.60.104", "tcp", SEED0)
    by = {i.name: i for i in c.interfaces}
    assert (by["em3"].speed_mbps, by["em3"].duplex, by["em3"].virtual, by["em3"].driver) == (1000, "full", False, "igb")
    assert by["em3"].addresses == ["10.186.60.61/24"] and by["em3"].tx_bytes == 74_588_291_512
    v = by["vlan2"]
    assert (v.speed_mbps, v.kind, v.virtual, v.lower, v.addresses) == (10000, "vlan", True, ["p2p1"], ["172.16.20.61/24"])
    assert (by["p2p1"].speed_mbps, by["p2p1"].kind) == (10000, "physical")
    assert by["em1"].operstate == "down" and by["em1"].speed_mbps is None
    assert by["lo"].kind == "loopback"
    assert c.route.interface == "em3" and c.route.speed_mbps == 1000 and c.route.source_address == "10.186.60.61"
    assert c.missing == []  # down interfaces have no speed, and that is not a missing fact


def test_paravirtual_nic_speed_is_null_with_a_reason():
    c = read_client("8.8.8.8", "tcp", str(HOSTS / "this-vm"))
    assert c.route.interface == "eth0" and c.route.speed_mbps is None and c.route.gateway == "192.0.2.1"
    why = {m.fact: m.reason for m in c.missing}
    assert "virtio_net driver reports no link speed" in why["client.route.speed_mbps"]
    eth0 = next(i for i in c.interfaces if i.name == "eth0")
    assert (eth0.kind, eth0.driver, eth0.virtual) == ("paravirtual", "virtio_net", False)
    ifb = next(i for i in c.interfaces if i.name == "ifb0")
    assert ifb.virtual is True and ifb.kind == "virtual"


def test_unix_socket_and_unresolvable_names():
    raw = Gatherer(SEED0).network()
    c = client_facts(raw, "localhost", None, "socket")
    assert c.route.kind == "socket" and c.route.interface is None
    c = read_client("no-such-host.invalid", "tcp", SEED0)
    assert c.route is None and "cannot resolve" in {m.fact: m.reason for m in c.missing}["client.route"]


def test_names_are_resolved_first():
    addr, err = resolve_address("localhost")
    assert err is None and addr.is_loopback
    assert resolve_address("[::1]")[0] == ipaddress.ip_address("::1")


def test_live_route_to_loopback_needs_no_ip_command():
    # a loopback destination always leaves by lo: the route comes from the kernel's tables already
    # read, without forking `ip`
    c = read_client("127.0.0.1", "tcp")
    assert (c.route.kind, c.route.interface, c.route.method) == ("loopback", "lo", "/proc/net/route")
