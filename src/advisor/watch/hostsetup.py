"""What a watched host is: its CPUs and the ones mysqld may use, the datadir's devices, the
interfaces to watch and their line rates. Pure: built from a sampler's setup document (advisor.
watch.sampler), the audit's client facts and any shapers the I/O side found.

Line rates. A NIC's link speed (/sys/class/net/IF/speed) limits both directions. A tbf qdisc on an
interface limits what it sends (its egress) to the qdisc's rate; what it receives is the peer's
egress, so a shaper counts for `tx` only. A veth reports 10000 Mb/s whatever shapes it; its peer in
another namespace (a server in a container or a test's namespace) is watched from that side.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Optional

from advisor.collect.host_parse import RawTree, parse_host
from advisor.collect.network_parse import lookup_route, parse_interfaces
from advisor.snapshot import ClientFacts
from advisor.watch.model import HostSetup, Missing, NicSetup
from advisor.watch.procfs import Shaper, parse_cpu_quota, parse_status_cpus_allowed


def cpu_limits(doc: dict[str, Any]) -> tuple[list[int], Optional[float], Optional[float]]:
    """(CPUs mysqld may run on, its cgroup quota in CPUs or None, CPUs available = the smaller)."""
    files = doc.get("files") or {}
    host = doc.get("host") or {}
    pid = (host.get("mysqld") or {}).get("pid")
    count = doc.get("cpu_count") or 0
    allowed = parse_status_cpus_allowed(files.get(f"/proc/{pid}/status") or "") if pid else None
    if not allowed:
        allowed = list(range(count))
    quotas: list[float] = []
    dirs = {k.rsplit("/", 1)[0] for k in files if k.endswith(("/cpu.max", "/cpu.cfs_quota_us"))}
    for d in dirs:
        q = parse_cpu_quota(cpu_max=files.get(d + "/cpu.max")) if d + "/cpu.max" in files else parse_cpu_quota(
            cfs_quota_us=files.get(d + "/cpu.cfs_quota_us"), cfs_period_us=files.get(d + "/cpu.cfs_period_us"))
        if q is not None:
            quotas.append(q)
    quota = min(quotas) if quotas else None
    avail = float(len(allowed)) if allowed else None
    if quota is not None and avail is not None:
        avail = min(avail, quota)
    return allowed, quota, avail


def ceilings(speed: Optional[int], shaper: Optional[Shaper]) -> tuple[Optional[float], Optional[float], str]:
    """(receive ceiling, send ceiling, where they come from) in Mb/s."""
    shaped = shaper.rate_bits_per_s / 1e6 if shaper else None
    tx = min(x for x in (speed, shaped) if x is not None) if (speed or shaped) else None
    parts = []
    if shaped is not None:
        parts.append(f"tbf shaper at {shaped:g} Mb/s on its egress")
    if speed:
        parts.append(f"link speed {speed:,} Mb/s")
    return (float(speed) if speed else None), tx, ("; ".join(parts) or "no link speed reported and no shaper")


def client_nics(client: Optional[ClientFacts], transport: str, shapers: dict[str, Shaper]) -> tuple[list[NicSetup], Optional[str]]:
    """The interface the client's route to the server leaves by (from the audit's client facts)."""
    if transport == "socket":
        return [NicSetup(interface="lo", side="client", kind="unix socket", loopback=True,
                         ceiling_source="a unix socket: no network")], None
    if client is None or client.route is None:
        why = next((m.reason for m in (client.missing if client else []) if m.fact == "client.route"),
                   "the client's route to the server is unknown")
        return [], why
    r = client.route
    if r.kind in ("loopback", "socket") or r.interface == "lo":
        return [NicSetup(interface="lo", side="client", kind="loopback", loopback=True,
                         ceiling_source="loopback has no line rate")], None
    iface = next((i for i in client.interfaces if i.name == r.interface), None)
    rx, tx, src = ceilings(r.speed_mbps, shapers.get(r.interface or ""))
    return [NicSetup(interface=r.interface or "?", side="client", kind=iface.kind if iface else None,
                     speed_mbps=r.speed_mbps, shaper_mbps=(shapers[r.interface].rate_bits_per_s / 1e6
                                                           if r.interface in shapers else None),
                     rx_ceiling_mbps=rx, tx_ceiling_mbps=tx, ceiling_source=src)], None


def server_nic(doc: dict[str, Any], client_address: Optional[str], shapers: dict[str, Shaper]) -> tuple[Optional[NicSetup], Optional[str]]:
    """The server host's interface toward the client: the route from the server's network
    namespace (mysqld's own, when it has one) to the client's address."""
    if not client_address:
        return None, "the client's source address is unknown, so the server's interface toward it is not known"
    try:
        addr = ipaddress.ip_address(client_address)
    except ValueError:
        return None, f"{client_address!r} is not an IP address"
    host = doc.get("host") or {}
    pid = (host.get("mysqld") or {}).get("pid")
    other = bool(doc.get("other_netns"))
    files = dict(host.get("files") or {})
    if other and pid:
        # the server's namespace: its routes and addresses, under the paths the parsers read
        for name in ("route", "ipv6_route", "if_inet6", "fib_trie"):
            files[f"/proc/net/{name}"] = (doc.get("files") or {}).get(f"/proc/{pid}/net/{name}") or ""
    t = RawTree({**host, "files": files})
    res = lookup_route(t, addr)
    if res.error or not res.interface:
        return None, res.error or f"no route to {addr} on the server's host"
    if res.kind == "loopback":
        return NicSetup(interface="lo", side="server", kind="loopback", loopback=True,
                        netns="mysqld" if other else None, ceiling_source="loopback has no line rate"), None
    speed = None
    kind = None
    if not other:
        ifaces, _ = parse_interfaces(RawTree(host))
        i = next((x for x in ifaces if x.name == res.interface), None)
        speed, kind = (i.speed_mbps, i.kind) if i else (None, None)
    rx, tx, src = ceilings(speed, shapers.get(res.interface))
    if other and speed is None:
        src += "; its link speed is not visible from outside mysqld's network namespace"
    return NicSetup(interface=res.interface, side="server", kind=kind, netns="mysqld" if other else None,
                    speed_mbps=speed, shaper_mbps=(shapers[res.interface].rate_bits_per_s / 1e6
                                                   if res.interface in shapers else None),
                    rx_ceiling_mbps=rx, tx_ceiling_mbps=tx, ceiling_source=src), None


def datadir_devices(doc: dict[str, Any], dirs: dict[str, str], source: str) -> tuple[list[str], Optional[str]]:
    """The physical devices under the server's directories (the audit's storage resolution)."""
    if not dirs:
        return [], "the server's datadir is unknown"
    facts = parse_host(doc.get("host") or {}, dirs, source if source in ("local", "ssh", "file", "recorded") else "file")
    names: list[str] = []
    for st in [facts.datadir, *facts.other_dirs]:
        if st is None:
            continue
        for d in st.devices:
            if d.name not in names:
                names.append(d.name)
    if not names:
        st = facts.datadir
        return [], (st.class_reason if st and st.class_reason else "no block device was found under the datadir")
    return names, None


def build_host_setup(doc: dict[str, Any], role: str, source: str, origin: str, dirs: dict[str, str],
                     nics: list[NicSetup], nic_missing: Optional[str] = None) -> HostSetup:
    host = doc.get("host") or {}
    mysqld = host.get("mysqld") or {}
    allowed, quota, avail = cpu_limits(doc)
    hs = HostSetup(role=role, source=source, origin=origin, clk_tck=int(doc.get("clk_tck") or 100),  # type: ignore[arg-type]
                   cpu_count=doc.get("cpu_count"), hostname=(RawTree(host).value("/proc/sys/kernel/hostname")),
                   mysqld_pid=mysqld.get("pid"), mysqld_how=str(mysqld.get("how") or ""),
                   allowed_cpus=allowed, cpu_quota=quota, cpus_available=avail, nics=nics)
    if role != "client":
        if not hs.mysqld_pid:
            hs.missing.append(Missing(fact="mysqld", reason=f"the server process was not found: {hs.mysqld_how}"))
        devs, why = datadir_devices(doc, dirs, source)
        hs.datadir_devices = devs
        if why:
            hs.missing.append(Missing(fact="datadir_devices", reason=why))
    if nic_missing:
        hs.missing.append(Missing(fact="nics", reason=nic_missing))
    return hs
