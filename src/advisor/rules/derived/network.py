"""Derived facts about the client's network path to the server: the route's link speed, a faster
interface left idle, and how the stream probe's throughput compares with the link's payload ceiling."""

from __future__ import annotations

from typing import Any

from advisor.measure import payload_ceiling_mbytes_per_s
from advisor.rules.derived.common import ratio
from advisor.rules.facts import FactSet, FactView, Unknown

FACTS = FactSet()


def _route(v: FactView) -> Any:
    c = v.snapshot.client
    if c is None:
        return Unknown(v.missing_reason("client", "the client's network path was not collected"))
    if c.route is None:
        return Unknown(v.missing_reason("client.route", "the route to the server is unknown"))
    return c.route


@FACTS.define("route_speed_mbps", "Link speed of the interface the client's route to the server leaves by.",
              unit="Mb/s")
def route_speed_mbps(v: FactView) -> Any:
    r = _route(v)
    if isinstance(r, Unknown):
        return r
    if r.kind != "interface":
        return Unknown(f"the route is {r.kind}; no NIC is involved")
    if r.speed_mbps is None or r.speed_mbps <= 0:
        return Unknown(v.missing_reason("client.route.speed_mbps",
                                        f"interface {r.interface} reports no link speed (virtual NIC?)"))
    return r.speed_mbps


def _fastest_other(v: FactView) -> Any:
    r = _route(v)
    if isinstance(r, Unknown):
        return r
    best = None
    for i in v.snapshot.client.interfaces:  # type: ignore[union-attr]
        if i.name == r.interface or i.name == "lo" or (i.operstate or "up").lower() not in ("up", "unknown"):
            continue
        if i.speed_mbps is None or i.speed_mbps <= 0:
            continue
        # at equal speed prefer an interface with an address (vlan2 over the bare NIC it rides on)
        if best is None or (i.speed_mbps, bool(i.addresses)) > (best.speed_mbps, bool(best.addresses)):
            best = i
    return best


@FACTS.define("fastest_other_interface_speed_mbps", "Speed of the fastest other up interface on the client (0 if "
              "none reports a speed).", unit="Mb/s")
def fastest_other_interface_speed_mbps(v: FactView) -> Any:
    b = _fastest_other(v)
    if isinstance(b, Unknown):
        return b
    return 0 if b is None else b.speed_mbps


@FACTS.define("fastest_other_interface", "Name of the fastest other up interface on the client ('' if none).")
def fastest_other_interface(v: FactView) -> Any:
    b = _fastest_other(v)
    if isinstance(b, Unknown):
        return b
    return "" if b is None else b.name


def _link_mbps(v: FactView) -> Any:
    """The route's link speed: the client facts when collected, else what calibration recorded."""
    speed = v.get("derived.route_speed_mbps")
    if not isinstance(speed, Unknown):
        return speed
    recorded = v.get("calibration.stream.link_speed_mbps")
    if not isinstance(recorded, Unknown) and recorded and recorded > 0:
        return recorded
    return speed


@FACTS.define("link_payload_ceiling_mbytes_per_s", "Most TCP payload the route's link carries per direction: "
              "link Mb/s × 10^6/8 × 1460/1538 (Ethernet framing and TCP/IP headers), in MB/s.", unit="MB/s")
def link_payload_ceiling_mbytes_per_s(v: FactView) -> Any:
    speed = _link_mbps(v)
    if isinstance(speed, Unknown):
        return speed
    return payload_ceiling_mbytes_per_s(float(speed))


@FACTS.define("stream_line_rate_fraction", "Calibration's stream MB/s as a share of the link's payload ceiling; "
              "unknown when the client was CPU-bound (then the measurement says nothing about the network).",
              unit="fraction")
def stream_line_rate_fraction(v: FactView) -> Any:
    mb = v.need_num("calibration.stream.mbytes_per_s")
    if v.get("calibration.stream.client_cpu_bound") is True:
        return Unknown("the client was CPU-bound during the stream probe, so its MB/s is no network measurement")
    return mb / v.need("derived.link_payload_ceiling_mbytes_per_s")


@FACTS.define("stream_server_headroom", "How much faster the server generates the stream probe's rows than they "
              "arrived: server-side MB/s ÷ streamed MB/s (near 1: the server limited the probe).", unit="ratio")
def stream_server_headroom(v: FactView) -> Any:
    return ratio(v.num("calibration.stream.server_mbytes_per_s"), v.num("calibration.stream.mbytes_per_s"),
                 "the stream probe measured 0 MB/s")


def _rtt_per_second_spread(v: FactView) -> Any:
    sp = v.spread("calibration.rtt_ms.p50")
    return None if sp is None or sp[0] <= 0 else (1000.0 / sp[1], 1000.0 / sp[0])


@FACTS.define("round_trip_bound_statements_per_s", "Statements per second one connection can run when each waits "
              "for one measured round trip: 1000 ÷ round-trip p50 ms.", unit="1/s", spread=_rtt_per_second_spread)
def round_trip_bound_statements_per_s(v: FactView) -> Any:
    p50 = v.need_num("calibration.rtt_ms.p50")
    if p50 <= 0:
        return Unknown("the measured round trip was 0 ms")
    return 1000.0 / p50
