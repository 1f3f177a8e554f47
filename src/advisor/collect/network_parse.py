"""Parse the client's network files and `ip -j route get` output into the snapshot's `client`
section. Pure: no I/O; tested on recorded trees and recorded `ip` JSON.

Route selection follows the kernel for the main table: the longest prefix that contains the
destination, then the lowest metric; a destination that is one of this machine's own addresses
goes over loopback. Policy routing (ip rule) is only visible to `ip route get`, which the live
collector prefers; the /proc lookup is the fallback and the only way for recorded trees.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from advisor.collect.host_parse import RawTree
from advisor.snapshot import ClientFacts, Interface, Route

IPAddr = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]
RTF_GATEWAY = 0x0002
RTF_REJECT = 0x0200
RTF_LOCAL = 0x80000000
ARPHRD_LOOPBACK = "772"
# Drivers of paravirtual NICs: they have a device but no physical link, and report speed -1
# (virtio_net unless the host sets one), so a missing speed there is expected, not an error.
PARAVIRT_NIC_DRIVERS = ("virtio_net", "vmxnet3", "hv_netvsc", "xen-netfront", "vif", "ena", "gve")


@dataclass(frozen=True)
class RouteEntry:
    """One route of the kernel's routing table (/proc/net/route or ipv6_route)."""

    iface: str
    network: Union[ipaddress.IPv4Network, ipaddress.IPv6Network]
    gateway: Optional[IPAddr]
    flags: int
    metric: int


@dataclass
class RouteResult:
    """What the route lookup found: kind loopback/interface, or an error reason."""

    kind: Optional[str] = None
    interface: Optional[str] = None
    source: Optional[str] = None
    gateway: Optional[str] = None
    method: str = ""
    error: Optional[str] = None
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------- /proc/net parsers

def _le_ipv4(hexstr: str) -> ipaddress.IPv4Address:
    """/proc/net/route stores addresses as host-order (little-endian on x86) hex."""
    b = bytes.fromhex(hexstr)
    return ipaddress.IPv4Address(bytes(reversed(b)))


def parse_proc_route(text: str) -> list[RouteEntry]:
    out: list[RouteEntry] = []
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) < 8:
            continue
        try:
            dest, gw, mask = _le_ipv4(f[1]), _le_ipv4(f[2]), _le_ipv4(f[7])
            flags, metric = int(f[3], 16), int(f[6])
            net = ipaddress.IPv4Network(f"{dest}/{mask}", strict=False)
        except ValueError:
            continue
        out.append(RouteEntry(f[0], net, gw if flags & RTF_GATEWAY else None, flags, metric))
    return out


def parse_ipv6_route(text: str) -> list[RouteEntry]:
    out: list[RouteEntry] = []
    for line in text.splitlines():
        f = line.split()
        if len(f) < 10:
            continue
        try:
            dest = ipaddress.IPv6Address(bytes.fromhex(f[0]))
            plen = int(f[1], 16)
            nh = ipaddress.IPv6Address(bytes.fromhex(f[4]))
            metric, flags = int(f[5], 16), int(f[8], 16)
            net = ipaddress.IPv6Network(f"{dest}/{plen}", strict=False)
        except ValueError:
            continue
        out.append(RouteEntry(f[9], net, nh if flags & RTF_GATEWAY and int(nh) else None, flags, metric))
    return out


def parse_fib_trie_local(text: str) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses of this machine: leaves followed by '/32 host LOCAL' in /proc/net/fib_trie."""
    out: list[ipaddress.IPv4Address] = []
    last: Optional[str] = None
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"^\|-- (\d+\.\d+\.\d+\.\d+)$", s)
        if m:
            last = m.group(1)
            continue
        if last and re.match(r"^/32 host LOCAL\b", s):
            a = ipaddress.IPv4Address(last)
            if a not in out:
                out.append(a)
    return out


def parse_if_inet6(text: str) -> list[tuple[ipaddress.IPv6Address, str, int]]:
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) < 6:
            continue
        try:
            out.append((ipaddress.IPv6Address(bytes.fromhex(f[0])), f[5], int(f[2], 16)))
        except ValueError:
            continue
    return out


# ---------------------------------------------------------------------- local addresses

@dataclass
class LocalAddresses:
    """This machine's addresses, by interface and all together."""

    by_iface: dict[str, list[str]] = field(default_factory=dict)
    all: set[IPAddr] = field(default_factory=set)

    def add(self, iface: str, addr: IPAddr, plen: Optional[int]) -> None:
        self.all.add(addr)
        text = f"{addr}/{plen}" if plen is not None else str(addr)
        lst = self.by_iface.setdefault(iface, [])
        if text not in lst:
            lst.append(text)


def local_addresses(t: RawTree) -> LocalAddresses:
    la = LocalAddresses()
    routes = parse_proc_route(t.text("/proc/net/route") or "")
    for a in parse_fib_trie_local(t.text("/proc/net/fib_trie") or ""):
        if a.is_loopback:
            la.add("lo", a, 8)
            continue
        links = [r for r in routes if r.gateway is None and a in r.network and r.network.prefixlen > 0]
        if links:
            best = max(links, key=lambda r: r.network.prefixlen)
            la.add(best.iface, a, best.network.prefixlen)
        else:
            la.add("?", a, 32)
    for a6, iface, plen in parse_if_inet6(t.text("/proc/net/if_inet6") or ""):
        la.add(iface, a6, plen)
    return la


# ---------------------------------------------------------------------- route lookup

def lookup_route(t: RawTree, dest: IPAddr) -> RouteResult:
    """Route to `dest` from the main table in /proc/net/route (IPv4) or /proc/net/ipv6_route."""
    la = local_addresses(t)
    res = RouteResult(method="/proc/net/route" if dest.version == 4 else "/proc/net/ipv6_route")
    if dest.is_loopback or dest in la.all:
        res.kind, res.interface = "loopback", "lo"
        res.source = str(dest) if dest in la.all else ("127.0.0.1" if dest.version == 4 else "::1")
        if not dest.is_loopback:
            res.notes.append(f"{dest} is an address of this machine, so the traffic stays on loopback")
        return res
    path = "/proc/net/route" if dest.version == 4 else "/proc/net/ipv6_route"
    text = t.text(path)
    if text is None:
        res.error = t.why(path)
        return res
    routes = parse_proc_route(text) if dest.version == 4 else parse_ipv6_route(text)
    cands = [r for r in routes if dest in r.network and not r.flags & RTF_REJECT and not r.flags & RTF_LOCAL]
    if not cands:
        res.error = f"no route to {dest} in {path} (network unreachable)"
        return res
    best = max(cands, key=lambda r: (r.network.prefixlen, -r.metric))
    res.kind, res.interface = "interface", best.iface
    if best.iface == "lo":
        res.kind = "loopback"
    res.gateway = str(best.gateway) if best.gateway else None
    res.source = _source_address(la, routes, best, dest)
    return res


def _source_address(la: LocalAddresses, routes: list[RouteEntry], r: RouteEntry, dest: IPAddr) -> Optional[str]:
    """The address the kernel would pick: one on the outgoing interface in the subnet of the
    next hop, else the interface's first address of the same family."""
    hop = r.gateway or dest
    addrs = [a for a in la.by_iface.get(r.iface, [])]
    same = []
    for a in addrs:
        try:
            iface = ipaddress.ip_interface(a)
        except ValueError:
            continue
        if iface.version != dest.version or iface.ip.is_link_local:
            continue
        if hop in iface.network:
            return str(iface.ip)
        same.append(str(iface.ip))
    return same[0] if same else None


def interpret_ip_route_get(addr: str, returncode: int, stdout: str, stderr: str) -> tuple[Optional[str], Optional[str]]:
    """(JSON to parse, None) or (None, why `ip -j route get` gave no usable answer). An unreachable
    destination ('RTNETLINK answers: Network is unreachable', exit 2) becomes a route of type
    unreachable, which parse_ip_route_get reports as such."""
    if returncode != 0:
        msg = " ".join(stderr.split()) or f"exit status {returncode}"
        if "unreachable" in msg.lower():
            return json.dumps([{"type": "unreachable", "dst": addr}]), None
        return None, f"`ip -j route get {addr}` failed: {msg}"
    return stdout, None


def parse_ip_route_get(text: str) -> RouteResult:
    """`ip -j route get ADDR` output (iproute2 ≥ 4.13 JSON): [{"type"?, "dst", "gateway"?, "dev", "prefsrc"}]."""
    res = RouteResult(method="ip route get")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        res.error = f"`ip -j route get` printed something that is not JSON ({e.msg})"
        return res
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        res.error = "`ip -j route get` returned no route"
        return res
    r: dict[str, Any] = data[0]
    dev = r.get("dev")
    res.interface = dev
    res.source = r.get("prefsrc")
    res.gateway = r.get("gateway")
    if r.get("type") == "local" or dev == "lo":
        res.kind = "loopback"
    elif r.get("type") in ("unreachable", "prohibit", "blackhole"):
        res.error = f"the route to {r.get('dst')} is {r.get('type')}"
    elif dev:
        res.kind = "interface"
    else:
        res.error = "`ip -j route get` named no output device"
    return res


# ---------------------------------------------------------------------- interfaces

def _int(v: Optional[str]) -> Optional[int]:
    if v is None:
        return None
    try:
        return int(v.strip())
    except ValueError:
        return None


def parse_interfaces(t: RawTree, la: Optional[LocalAddresses] = None) -> tuple[list[Interface], list[tuple[str, str]]]:
    """Interfaces from /sys/class/net, and (fact, reason) notes for values the kernel did not report."""
    la = la or local_addresses(t)
    out: list[Interface] = []
    notes: list[tuple[str, str]] = []
    for name in t.ls("/sys/class/net") or []:
        base = f"/sys/class/net/{name}"
        link = t.link(base) or ""
        listing = t.ls(base) or []
        uevent = t.text(base + "/uevent") or ""
        devtype = re.search(r"^DEVTYPE=(\S+)", uevent, re.M)
        virtual = "/devices/virtual/" in link or (bool(listing) and "device" not in listing)
        kind = devtype.group(1) if devtype else None
        if t.value(base + "/type") == ARPHRD_LOOPBACK:
            kind = "loopback"
        elif kind is None and "bridge" in listing:
            kind = "bridge"
        elif kind is None and "bonding" in listing:
            kind = "bond"
        elif kind is None:
            kind = "virtual" if virtual else "physical"
        lower = [x[len("lower_"):] for x in listing if x.startswith("lower_")]
        drv = t.link(base + "/device/driver")
        driver = drv.rstrip("/").split("/")[-1] if drv else None
        if kind == "physical" and driver in PARAVIRT_NIC_DRIVERS:
            kind = "paravirtual"
        speed = _int(t.value(base + "/speed"))
        oper = t.value(base + "/operstate")
        i = Interface.model_construct(name=name, operstate=oper, speed_mbps=speed if speed and speed > 0 else None,
                      duplex=(t.value(base + "/duplex") or None), mtu=_int(t.value(base + "/mtu")),
                      addresses=list(la.by_iface.get(name, [])), virtual=virtual,
                      rx_bytes=_int(t.value(base + "/statistics/rx_bytes")),
                      tx_bytes=_int(t.value(base + "/statistics/tx_bytes")), kind=kind, lower=lower,
                      driver=driver)
        if i.duplex == "unknown":
            i.duplex = None
        if i.speed_mbps is None and kind != "loopback" and oper in (None, "up", "unknown"):
            what = f"the {driver} driver" if driver else "the driver"
            nic = {"paravirtual": "paravirtual NIC", "physical": "NIC"}.get(kind or "", f"{kind} interface")
            if speed is not None and speed <= 0:
                why = f"{base}/speed is {speed}: {what} reports no link speed ({nic})"
            else:
                why = t.why(base + "/speed") + f" ({nic})"
            notes.append((f"client.interfaces.{name}.speed_mbps", why))
        out.append(i)
    return out, notes


def client_facts(raw: dict[str, Any], destination: str, dest_addr: Optional[IPAddr], transport: str,
                 ip_route_json: Optional[str] = None, ip_error: Optional[str] = None,
                 source: str = "local") -> ClientFacts:
    """ClientFacts: the route to the server and the local interfaces. `ip_route_json` is the output
    of `ip -j route get` when it ran; otherwise the route comes from /proc/net."""
    t = RawTree(raw)
    c = ClientFacts.model_construct(source=source)  # type: ignore[arg-type]
    c.hostname = t.value("/proc/sys/kernel/hostname")
    la = local_addresses(t)
    ifaces, notes = parse_interfaces(t, la)
    c.interfaces = ifaces
    if not ifaces:
        c.note_missing("client.interfaces", t.why("/sys/class/net"))
    if transport == "socket":
        c.route = Route.model_construct(destination=destination, kind="socket")
        return c
    if dest_addr is None:
        c.note_missing("client.route", f"the server address {destination!r} could not be resolved to an IP address")
        return c
    res = parse_ip_route_get(ip_route_json) if ip_route_json is not None else lookup_route(t, dest_addr)
    if ip_error:
        res.notes.append(ip_error)
    if res.error:
        c.note_missing("client.route", res.error)
        return c
    route = Route.model_construct(destination=destination, destination_address=str(dest_addr), kind=res.kind or "interface",  # type: ignore[arg-type]
                  interface=res.interface, source_address=res.source, gateway=res.gateway, method=res.method)
    if route.kind == "interface":
        iface = next((i for i in ifaces if i.name == res.interface), None)
        if iface is not None:
            route.speed_mbps, route.duplex, route.mtu = iface.speed_mbps, iface.duplex, iface.mtu
            for fact, why in notes:
                if fact == f"client.interfaces.{iface.name}.speed_mbps":
                    c.note_missing("client.route.speed_mbps", why)
        else:
            c.note_missing("client.route.speed_mbps", f"interface {res.interface} is not in /sys/class/net")
    else:
        iface = next((i for i in ifaces if i.name == res.interface), None)
        if iface is not None:
            route.mtu = iface.mtu
    for fact, why in notes:
        c.note_missing(fact, why)
    c.route = route
    return c
