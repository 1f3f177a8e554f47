"""Real network paths for integration tests: a network namespace joined to the host by a veth pair.

``NetNS`` makes namespace ``adv-<rand>`` with host-side ``advh<rand>`` and namespace-side
``advn<rand>`` (12 characters, under IFNAMSIZ's 15), addressed from a /30 in 10.213.0.0/16 that
no host address or route overlaps, chosen under an flock so parallel tests never share one.
Traffic only ever goes to these addresses, which exist only in namespaces the test made.

Shaping (``rate=``) puts a token bucket (tbf) on the egress of BOTH veth ends, so server -> client
and client -> server are each limited to ``rate``:

* ``burst`` = max(rate / 100 s, 64 KiB + one frame). tbf needs burst >= rate/HZ to reach its rate
  when it is refilled once per tick; HZ is 100..1000 (250 here), so rate/100 covers any kernel.
  The 64 KiB floor lets one GSO super-packet (veth passes up to 64 KiB) through whole instead of
  tbf segmenting it. At 100mbit that is 125,000 B, 10 ms of traffic: negligible in a
  multi-second measurement.
* ``latency`` = 50 ms: the most a packet may wait in the queue; tbf turns it into
  limit = rate * latency + burst (750,000 B at 100mbit). Enough queue for one TCP flow to keep
  the link busy, short enough not to add bufferbloat to latency measurements.

``delay=`` adds netem (per direction, so the round trip grows by twice the delay) as the root
qdisc with tbf under it. Kernels built without CONFIG_NET_SCH_NETEM (the Firecracker kernel of
this project's machines, 6.18) refuse it: NetNS then raises NetNSError and cleans up.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import ipaddress
import json
import math
import os
import random
import re
import secrets
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

POOL = ipaddress.ip_network("10.213.0.0/16")
TBF_LATENCY = "50ms"
_ROUTE_TYPES = ("local", "broadcast", "unreachable", "blackhole", "prohibit", "throw")
_GSO_MAX = 65536 + 1514
_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps|tbps)?\s*$", re.I)
_RATE_UNITS = {
    "bit": 1,
    "kbit": 1e3,
    "mbit": 1e6,
    "gbit": 1e9,
    "tbit": 1e12,
    "bps": 8,
    "kbps": 8e3,
    "mbps": 8e6,
    "gbps": 8e9,
    "tbps": 8e12,  # tc: "bps" means bytes per second
}


class NetNSError(RuntimeError):
    """Creating, shaping or removing a namespace failed; the message names the ip/tc command."""


def rate_bits(rate: str | int) -> int:
    """tc rate ("100mbit", "12.5mbps", 100_000_000) in bits per second."""
    if isinstance(rate, int):
        return rate
    match = _RATE.match(rate)
    if match is None:
        raise ValueError(f"cannot read rate {rate!r}; use a tc rate such as '100mbit'")
    return int(float(match.group(1)) * _RATE_UNITS[(match.group(2) or "bit").lower()])


def tbf_burst(rate: str | int) -> int:
    """Bucket size in bytes for ``rate``; see the module docstring."""
    return max(math.ceil(rate_bits(rate) / 8 / 100), _GSO_MAX)


class NetNS:
    """A throwaway namespace with one veth link to the host; removed on exit even if the body raises."""

    def __init__(self, *, rate: str | int | None = None, delay: str | None = None) -> None:
        tag = secrets.token_hex(4)
        self.name = f"adv-{tag}"
        self.host_if = f"advh{tag}"
        self.ns_if = f"advn{tag}"
        self.rate = rate
        self.delay = delay
        self.subnet: ipaddress.IPv4Network | None = None
        self.host_addr = ""
        self.ns_addr = ""
        self._created = False

    def __enter__(self) -> NetNS:
        return self.create()

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    def __repr__(self) -> str:
        return f"NetNS({self.name}: {self.host_if} {self.host_addr} <-> {self.ns_if} {self.ns_addr})"

    def create(self) -> NetNS:
        if os.geteuid() != 0:
            raise NetNSError("network namespaces need root (CAP_NET_ADMIN and CAP_SYS_ADMIN); run the tests as root")
        _LIVE.add(self)
        self._created = True
        try:
            with _allocation_lock():
                _sweep_orphans()
                _record(self)
                _run("ip", "netns", "add", self.name)
                self.subnet = _free_subnet()
                host, ns = list(self.subnet.hosts())
                self.host_addr, self.ns_addr = str(host), str(ns)
                _run("ip", "link", "add", self.host_if, "type", "veth", "peer", "name", self.ns_if)
                _run("ip", "addr", "add", f"{host}/{self.subnet.prefixlen}", "dev", self.host_if)
            _run("ip", "link", "set", self.ns_if, "netns", self.name)
            self.ip("addr", "add", f"{ns}/{self.subnet.prefixlen}", "dev", self.ns_if)
            self.ip("link", "set", "lo", "up")
            self.ip("link", "set", self.ns_if, "up")
            _run("ip", "link", "set", self.host_if, "up")
            if self.rate is not None or self.delay is not None:
                self._shape([], self.host_if)
                self._shape(["ip", "netns", "exec", self.name], self.ns_if)
            self._wait_link_up()
        except BaseException:
            self.destroy()
            raise
        return self

    def _shape(self, prefix: list[str], dev: str) -> None:
        tbf_parent = ["root"]
        if self.delay is not None:
            proc = subprocess.run(
                [*prefix, "tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "netem", "delay", self.delay],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                hint = ""
                if "unknown" in proc.stderr.lower():
                    hint = " This kernel has no netem qdisc (CONFIG_NET_SCH_NETEM is not set): no delay possible."
                reason = proc.stderr.strip().rstrip(".")
                raise NetNSError(f"tc qdisc add dev {dev} root netem delay {self.delay} failed: {reason}.{hint}")
            tbf_parent = ["parent", "1:1", "handle", "10:"]
        if self.rate is not None:
            _run(
                *prefix,
                "tc",
                "qdisc",
                "add",
                "dev",
                dev,
                *tbf_parent,
                "tbf",
                "rate",
                f"{rate_bits(self.rate)}bit",
                "burst",
                str(tbf_burst(self.rate)),
                "latency",
                TBF_LATENCY,
            )

    def _wait_link_up(self, timeout: float = 5.0) -> None:
        # veth carrier comes up asynchronously; a connect right away could be dropped.
        deadline = time.monotonic() + timeout
        while Path(f"/sys/class/net/{self.host_if}/operstate").read_text().strip() != "up":
            if time.monotonic() > deadline:
                raise NetNSError(f"{self.host_if} did not come up within {timeout:.0f} s")
            time.sleep(0.01)

    def destroy(self) -> None:
        """Kill what still runs in the namespace, delete the veth pair (and its qdiscs) and the namespace."""
        if not self._created:
            return
        self._created = False
        _LIVE.discard(self)
        errors = _remove(self.name, self.host_if)
        _REGISTRY.joinpath(self.name).unlink(missing_ok=True)
        deadline = time.monotonic() + 5
        while Path(f"/sys/class/net/{self.host_if}").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        if errors:
            raise NetNSError(f"cleaning up {self.name}: " + "; ".join(errors))

    def pids(self) -> list[int]:
        return _pids(self.name)

    def ip(self, *args: str) -> str:
        """``ip -n <name> ARGS``; returns stdout."""
        return _run("ip", "-n", self.name, *args)

    def command(self, cmd: Sequence[str] | str) -> list[str]:
        """``cmd`` prefixed with ``ip netns exec <name>``, for Popen."""
        argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        return ["ip", "netns", "exec", self.name, *argv]

    def exec(
        self, cmd: Sequence[str] | str, *, check: bool = True, timeout: float = 60, **kw: Any
    ) -> subprocess.CompletedProcess[str]:
        """Run ``cmd`` inside the namespace and wait; raises NetNSError on a non-zero exit if ``check``."""
        proc = subprocess.run(self.command(cmd), capture_output=True, text=True, timeout=timeout, **kw)
        if check and proc.returncode != 0:
            raise NetNSError(f"{shlex.join(self.command(cmd))} exited {proc.returncode}: {proc.stderr.strip()}")
        return proc

    def popen(self, cmd: Sequence[str] | str, **kw: Any) -> subprocess.Popen[Any]:
        """Start ``cmd`` inside the namespace; anything still running there is killed by ``destroy()``."""
        return subprocess.Popen(self.command(cmd), **kw)

    def shaper_stats(self, inside: bool = True) -> dict[str, int]:
        """``tc -s`` counters of the tbf qdisc on the namespace's end of the veth (what the namespace
        sends to the host) or, with ``inside=False``, on the host's end: bytes, packets, overlimits
        (times the bucket held packets back because they came faster than the rate) and drops."""
        dev = self.ns_if if inside else self.host_if
        cmd = [*(self.command([]) if inside else []), "tc", "-s", "-j", "qdisc", "show", "dev", dev]
        tbf = next(q for q in json.loads(_run(*cmd)) if q["kind"] == "tbf")
        return {k: int(tbf.get(k, 0)) for k in ("bytes", "packets", "overlimits", "drops")}


_REGISTRY = Path(tempfile.gettempdir()) / f"advisor-netns-{os.getuid()}"


def _record(ns: NetNS) -> None:
    """Note which process owns the namespace, so a later run can remove it if this one is SIGKILLed."""
    _REGISTRY.mkdir(exist_ok=True)
    _REGISTRY.joinpath(ns.name).write_text(f"{os.getpid()} {ns.host_if}\n")


def _sweep_orphans() -> None:
    """Remove namespaces recorded by test processes that no longer exist (call under _allocation_lock)."""
    if not _REGISTRY.is_dir():
        return
    for entry in _REGISTRY.iterdir():
        try:
            pid_text, host_if = entry.read_text().split()
            if _alive(int(pid_text)):
                continue
        except (OSError, ValueError):
            continue
        _remove(entry.name, host_if)
        entry.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs; a zombie (killed, not yet reaped) counts as dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


def _remove(name: str, host_if: str) -> list[str]:
    errors: list[str] = []
    if Path(f"/run/netns/{name}").exists():
        for pid in _pids(name):  # only ever processes started inside a namespace we made
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    if Path(f"/sys/class/net/{host_if}").exists():
        errors += _try("ip", "link", "del", host_if)  # takes the peer and both qdiscs with it
    if Path(f"/run/netns/{name}").exists():
        errors += _try("ip", "netns", "del", name)
    return errors


def _pids(name: str) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True).stdout
    return [int(pid) for pid in out.split()]


def _run(*cmd: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise NetNSError(f"{shlex.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def _try(*cmd: str) -> list[str]:
    try:
        _run(*cmd)
    except NetNSError as exc:
        return [str(exc)]
    return []


@contextlib.contextmanager
def _allocation_lock() -> Iterator[None]:
    with open(Path(tempfile.gettempdir()) / f"advisor-netns-{os.getuid()}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _free_subnet() -> ipaddress.IPv4Network:
    """A random /30 of POOL clear of every host address and of every route inside POOL.

    Call under _allocation_lock, and hold it until the host address is assigned. A broader
    route (say 10.0.0.0/8 on eth0) is no conflict: the /30 is more specific.
    """
    taken: list[ipaddress.IPv4Network] = []
    for text in re.findall(r"\binet (\S+)", _run("ip", "-4", "-o", "addr", "show")):
        iface = ipaddress.ip_interface(text)
        taken.append(ipaddress.ip_network(iface.ip))
        taken.append(iface.network)
    for line in _run("ip", "-4", "route", "show", "table", "all").splitlines():
        words = [w for w in line.split() if w not in _ROUTE_TYPES]
        try:
            taken.append(ipaddress.ip_network(words[0], strict=False))
        except (IndexError, ValueError):
            continue  # "default" and the like
    taken = [net for net in taken if net.prefixlen >= POOL.prefixlen and net.overlaps(POOL)]
    candidates = list(POOL.subnets(new_prefix=30))
    for net in random.sample(candidates, len(candidates)):
        if not any(net.overlaps(other) for other in taken):
            return net
    raise NetNSError(f"no free /30 left in {POOL}; stale namespaces? see: ip netns list")


_LIVE: set[NetNS] = set()


@atexit.register
def _remove_leftovers() -> None:
    for ns in list(_LIVE):
        with contextlib.suppress(NetNSError):
            ns.destroy()
