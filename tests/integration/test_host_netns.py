"""Issue 3 acceptance: a throwaway mariadbd inside a network namespace reached over a veth pair; the
route detection picks the host-side veth and its address, through `ip route get` and through the
/proc fallback alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.collect.network import read_client
from tests.support.cli import run_json

pytestmark = [pytest.mark.requires_mariadbd, pytest.mark.requires_tool("ip")]


def test_route_to_a_server_in_a_namespace_uses_the_veth(netns, mariadb_factory):
    db = mariadb_factory(netns=netns)
    assert db.host == netns.ns_addr
    code, snap, err = run_json("collect", "--host", db.host, "--port", str(db.port), "--user", "root",
                               "--no-defaults", "--format", "json")
    assert code == 0, err
    route = snap["client"]["route"]
    assert route["kind"] == "interface"
    assert route["interface"] == netns.host_if
    assert route["source_address"] == netns.host_addr
    assert route["destination"] == netns.ns_addr and route["gateway"] is None
    assert route["method"] == "ip route get"
    veth = next(i for i in snap["client"]["interfaces"] if i["name"] == netns.host_if)
    assert veth["virtual"] is True and veth["operstate"] == "up"
    assert f"{netns.host_addr}/30" in veth["addresses"]
    sysfs_speed = int(Path(f"/sys/class/net/{netns.host_if}/speed").read_text())
    assert route["speed_mbps"] == veth["speed_mbps"] == sysfs_speed  # veth reports 10000
    assert veth["tx_bytes"] > 0 and veth["rx_bytes"] > 0  # the collection itself crossed it

    # the same answer without `ip`, from /proc/net/route and /proc/net/fib_trie
    c = read_client(netns.ns_addr, "tcp", use_ip=False)
    assert (c.route.interface, c.route.source_address, c.route.method) == (
        netns.host_if, netns.host_addr, "/proc/net/route")

    # same kernel, same hostname, datadir visible here: the host facts are this machine's
    host = snap["host"]
    assert host is not None and "@@hostname" in host["origin"]
    assert host["datadir"]["path"] == str(db.datadir)
