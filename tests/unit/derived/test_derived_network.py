"""Derived facts of advisor.rules.derived.network."""

from __future__ import annotations

import pytest

from advisor.rules.facts import Unknown
from tests.support.facts import view


def _client(route, *interfaces):
    return {"client": {"route": route, "interfaces": list(interfaces)}}


EM3 = {"destination": "10.0.0.2", "kind": "interface", "interface": "em3", "speed_mbps": 1000}
VLAN2 = {"name": "vlan2", "operstate": "up", "speed_mbps": 10000, "addresses": ["10.1.0.1/24"]}
ENO1 = {"name": "eno1", "operstate": "up", "speed_mbps": 10000}
DOWN = {"name": "eth9", "operstate": "down", "speed_mbps": 25000}


def test_route_speed_mbps():
    assert view(_client(EM3)).get("derived.route_speed_mbps") == 1000
    loop = view(_client({"destination": "127.0.0.1", "kind": "loopback"})).get("derived.route_speed_mbps")
    assert isinstance(loop, Unknown) and "no NIC" in loop.reason
    virt = view(_client({**EM3, "speed_mbps": None})).get("derived.route_speed_mbps")
    assert "no link speed" in virt.reason
    assert "not collected" in view({}).get("derived.route_speed_mbps").reason


def test_fastest_other_interface_prefers_one_with_an_address_and_skips_down_ones():
    v = view(_client(EM3, {"name": "em3", "operstate": "up", "speed_mbps": 1000}, ENO1, VLAN2, DOWN))
    assert v.get("derived.fastest_other_interface_speed_mbps") == 10000
    assert v.get("derived.fastest_other_interface") == "vlan2"


def test_fastest_other_interface_when_there_is_none():
    v = view(_client(EM3, {"name": "lo", "speed_mbps": None}))
    assert v.get("derived.fastest_other_interface_speed_mbps") == 0
    assert v.get("derived.fastest_other_interface") == ""
    assert isinstance(view({}).get("derived.fastest_other_interface"), Unknown)
    assert isinstance(view({}).get("derived.fastest_other_interface_speed_mbps"), Unknown)


def _stream(**probe):
    return {"calibration": {"mode": "full", "stream": probe}}


def test_link_payload_ceiling_from_the_route_or_what_calibration_recorded():
    assert view(_client(EM3)).get("derived.link_payload_ceiling_mbytes_per_s") == pytest.approx(118.66, abs=0.01)
    recorded = view(_stream(mbytes_per_s=50.0, link_speed_mbps=100))
    assert recorded.get("derived.link_payload_ceiling_mbytes_per_s") == pytest.approx(11.866, abs=0.001)
    assert isinstance(view({}).get("derived.link_payload_ceiling_mbytes_per_s"), Unknown)


def test_stream_line_rate_fraction():
    v = view({**_client(EM3), **_stream(mbytes_per_s=112.7, client_cpu_bound=False)})
    assert v.get("derived.stream_line_rate_fraction") == pytest.approx(0.95, abs=0.01)
    cpu = view({**_client(EM3), **_stream(mbytes_per_s=60.0, client_cpu_bound=True)})
    assert "CPU-bound" in cpu.get("derived.stream_line_rate_fraction").reason
    assert isinstance(view(_client(EM3)).get("derived.stream_line_rate_fraction"), Unknown)


def test_stream_server_headroom():
    assert view(_stream(mbytes_per_s=100.0, server_mbytes_per_s=450.0)).get("derived.stream_server_headroom") == 4.5
    assert "0 MB/s" in view(_stream(mbytes_per_s=0.0, server_mbytes_per_s=4.0)).get(
        "derived.stream_server_headroom").reason


def test_round_trip_bound_statements_per_s():
    from advisor.rules.facts import Unknown

    v = view({"calibration": {"mode": "full", "rtt_ms": {"p50": 2.5, "samples": 400}}})
    assert v.get("derived.round_trip_bound_statements_per_s") == pytest.approx(400.0)
    assert isinstance(view({}).get("derived.round_trip_bound_statements_per_s"), Unknown)
