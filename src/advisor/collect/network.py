"""Read the client's network path to the server: the I/O half (advisor.collect.network_parse parses).

The machine running `advisor audit --host X` is where the benchmark client runs, so the route to
X and the interfaces are read here. On the live system (sysroot "/") the route comes from
`ip -j route get ADDR` (the kernel's own answer, policy routing included; one short subprocess,
about 2 ms); under --sysroot, or when `ip` is missing, it is computed from /proc/net/route.
"""

from __future__ import annotations

import ipaddress
import os
import socket as _socket
from typing import Optional

from advisor.collect.host_gather import Gatherer
from advisor.collect.network_parse import IPAddr, client_facts, interpret_ip_route_get
from advisor.snapshot import ClientFacts

IP_TIMEOUT_S = 3.0


def resolve_address(host: str) -> tuple[Optional[IPAddr], Optional[str]]:
    """The first address the resolver returns for `host` (what a MySQL client would connect to)."""
    try:
        return ipaddress.ip_address(host.strip("[]")), None
    except ValueError:
        pass
    try:
        infos = _socket.getaddrinfo(host, None, type=_socket.SOCK_STREAM)
    except (OSError, UnicodeError) as e:
        return None, f"cannot resolve {host!r}: {e}"
    for fam in (_socket.AF_INET, _socket.AF_INET6):
        for info in infos:
            if info[0] == fam:
                return ipaddress.ip_address(info[4][0].split("%")[0]), None
    return None, f"{host!r} resolved to no IPv4 or IPv6 address"


def ip_route_get(addr: IPAddr) -> tuple[Optional[str], Optional[str]]:
    """(JSON text of `ip -j route get ADDR`, None) or (None, why it could not run)."""
    import shutil
    import subprocess  # here: a loopback or socket connection never runs `ip` (~3.5 ms of imports)

    ip = shutil.which("ip") or next((p for p in ("/usr/sbin/ip", "/sbin/ip") if os.path.exists(p)), None)
    if ip is None:
        return None, "the `ip` command (iproute2) is not installed; the route was computed from /proc/net/route"
    try:
        p = subprocess.run([ip, "-j", "route", "get", str(addr)], capture_output=True, text=True,
                           timeout=IP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"`ip -j route get {addr}` failed ({e}); the route was computed from /proc/net/route"
    return interpret_ip_route_get(str(addr), p.returncode, p.stdout, p.stderr)


def read_client(host: Optional[str], transport: str, sysroot: str = "/", use_ip: Optional[bool] = None,
                source: str = "local") -> ClientFacts:
    """ClientFacts for a connection to `host` (None/'' with transport 'socket' for a unix socket)."""
    raw = Gatherer(sysroot).network()
    if transport == "socket" or not host:
        return client_facts(raw, host or "localhost", None, "socket", source=source)
    addr, err = resolve_address(host)
    if addr is None:
        c = client_facts(raw, host, None, transport, source=source)
        c.missing = [m for m in c.missing if m.fact != "client.route"]
        c.note_missing("client.route", err or f"cannot resolve {host!r}")
        return c
    live = sysroot in ("", "/")
    if use_ip is None:
        # loopback addresses always leave by lo: no need to ask the kernel (saves a fork of `ip`)
        use_ip = live and not addr.is_loopback
    js, ip_err = (ip_route_get(addr) if use_ip else (None, None))
    c = client_facts(raw, host, addr, transport, ip_route_json=js, source=source)
    if ip_err and use_ip:
        c.note_missing("client.route.method", ip_err)
    return c
