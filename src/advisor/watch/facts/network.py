"""Network facts: the busiest direction of the busiest watched interface against its ceiling.
Pure; registered in advisor.watch.facts.base.FACTS."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from advisor.rules.facts import Unknown
from advisor.watch.facts.base import Series, fact, median
from advisor.watch.facts.load import load_qps
from advisor.watch.model import NicSetup


@dataclass(frozen=True)
class NicPick:
    nic: NicSetup
    direction: str          # "rx" | "tx"
    utilisation: float
    mbytes_per_s: float
    packets_per_s: float
    ceiling_mbps: float


def _nic_series(s: Series) -> list[tuple[NicSetup, list[Any]]]:
    out = []
    for setup, attr in ((s.setup.server_host, "server_host"), (s.setup.client_host, "client_host")):
        if setup is None or (attr == "client_host" and s.setup.same_host):
            continue
        for nic in setup.nics:
            rates = [r for iv in s.loaded for h in [getattr(iv, attr)] if h is not None
                     for r in h.nics if r.interface == nic.interface]
            out.append((nic, rates))
    return out


def nic_pick(s: Series) -> Any:
    if "nic" in s._cache:
        return s._cache["nic"]
    best: Optional[NicPick] = None
    why = "no network interface was sampled"
    for nic, rates in _nic_series(s):
        if nic.loopback:
            why = "the connection goes over loopback, which has no line rate"
            continue
        for d in ("rx", "tx"):
            ceiling = nic.rx_ceiling_mbps if d == "rx" else nic.tx_ceiling_mbps
            u = median([getattr(r, f"{d}_utilisation") for r in rates])
            if ceiling is None or u is None:
                why = f"the line rate of {nic.interface} is unknown ({nic.ceiling_source or 'no speed, no shaper'})"
                continue
            if best is None or u > best.utilisation:
                best = NicPick(nic, d, u, median([getattr(r, f"{d}_mbytes_per_s") for r in rates]) or 0.0,
                               median([getattr(r, f"{d}_packets_per_s") for r in rates]) or 0.0, ceiling)
    s._cache["nic"] = best if best is not None else Unknown(why)
    return s._cache["nic"]


def _pick(s: Series, f: Callable[[NicPick], Any]) -> Any:
    p = nic_pick(s)
    return p if isinstance(p, Unknown) else f(p)


@fact("watch.net.loopback", "bool", "Whether every watched interface is loopback (client and server on one host).")
def net_loopback(s: Series) -> Any:
    nics = [n for h in (s.setup.server_host, s.setup.client_host) if h for n in h.nics]
    return Unknown("no network interface was sampled") if not nics else all(n.loopback for n in nics)


@fact("watch.net.utilisation", "fraction", "The busiest direction of the busiest interface, as a share of its ceiling.")
def net_util(s: Series) -> Any:
    return _pick(s, lambda p: p.utilisation)


@fact("watch.net.interface", "text", "That interface.")
def net_if(s: Series) -> Any:
    return _pick(s, lambda p: p.nic.interface)


@fact("watch.net.where", "text", "Whose interface it is, in words.")
def net_where(s: Series) -> Any:
    def words(p: NicPick) -> str:
        side = "the server's" if p.nic.side == "server" else "the client's"
        ns = " (in mysqld's network namespace)" if p.nic.netns == "mysqld" else ""
        return f"{side} interface {p.nic.interface}{ns}"
    return _pick(s, words)


@fact("watch.net.direction", "text", "'sends' or 'receives': the busiest direction.")
def net_dir(s: Series) -> Any:
    return _pick(s, lambda p: "sends" if p.direction == "tx" else "receives")


@fact("watch.net.mbytes_per_s", "MB/s", "Bytes per second in that direction (frames as the kernel counts them).")
def net_mb(s: Series) -> Any:
    return _pick(s, lambda p: p.mbytes_per_s)


@fact("watch.net.packets_per_s", "per second", "Packets per second in that direction.")
def net_pps(s: Series) -> Any:
    return _pick(s, lambda p: p.packets_per_s)


@fact("watch.net.ceiling_mbps", "Mb/s", "The line rate that direction is judged against.")
def net_ceiling(s: Series) -> Any:
    return _pick(s, lambda p: p.ceiling_mbps)


@fact("watch.net.ceiling_source", "text", "Where the line rate comes from (link speed, tbf shaper).")
def net_ceiling_src(s: Series) -> Any:
    return _pick(s, lambda p: p.nic.ceiling_source)


@fact("watch.net.bytes_per_query", "bytes", "Bytes in that direction per server query.")
def net_per_query(s: Series) -> Any:
    p, q = nic_pick(s), load_qps(s)
    if isinstance(p, Unknown):
        return p
    if isinstance(q, Unknown) or not q:
        return Unknown("no query rate")
    return p.mbytes_per_s * 1e6 / q
