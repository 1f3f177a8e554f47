"""The network-namespace support itself: real veth pairs, real tbf shaping, mariadbd inside a namespace.

All traffic goes to addresses of namespaces these tests create, and every transfer is a fixed
number of bytes under socket timeouts.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.netns import NetNS, NetNSError, rate_bits, tbf_burst

pytestmark = [pytest.mark.requires_mariadbd, pytest.mark.requires_tool("ip", "tc")]

MB = 1_000_000
# 100mbit is 12.5 MB/s of frames through tbf; TCP over Ethernet carries 1448 of every 1514 bytes,
# about 11.96 MB/s of payload. The shaper guarantees the upper bound: nothing gets through faster
# than the rate plus one bucket (tbf_burst) over the measured interval. How close a transfer comes to
# the rate depends on how busy this machine is; bench/shaping.py measures that side by side.
RATE_BYTES = 100_000_000 / 8
TRANSFER = 24 * MB
WARMUP = 2 * MB  # slow start and the bucket's initial burst stay out of the measurement
PORT = 40_000  # the namespace is fresh: any port is free there

_PEER = r"""
import socket, sys, time
mode, host, port, total, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
srv = socket.create_server((host, port))
srv.settimeout(30)
print("listening", flush=True)
conn, _ = srv.accept()
conn.settimeout(30)
if mode == "send":
    conn.sendall(b"x" * total)
    conn.shutdown(socket.SHUT_WR)
    conn.recv(1)
else:
    got, start = 0, None
    while got < total:
        data = conn.recv(1 << 20)
        if not data:
            break
        got += len(data)
        if start is None and got >= warmup:
            start, mark = time.monotonic(), got
    print(got, (got - mark) / (time.monotonic() - start), flush=True)
conn.close()
"""


def _links() -> str:
    return subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout


def _namespaces() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout


def shaped_ceiling(seconds: float) -> float:
    """MB/s a 100mbit tbf lets through over `seconds` at most: the rate, plus one full bucket."""
    return (RATE_BYTES * seconds + tbf_burst("100mbit")) / seconds / MB


def _start_peer(ns: NetNS, mode: str) -> subprocess.Popen[str]:
    return _start_peer_bytes(ns, TRANSFER, mode)


def _start_peer_bytes(ns: NetNS, total: int, mode: str = "send") -> subprocess.Popen[str]:
    peer = ns.popen(
        [sys.executable, "-c", _PEER, mode, ns.ns_addr, str(PORT), str(total), str(min(WARMUP, total))],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert peer.stdout is not None and peer.stdout.readline().strip() == "listening"
    return peer


def test_namespace_is_routed_through_the_host_veth(netns: NetNS) -> None:
    route = subprocess.run(["ip", "route", "get", netns.ns_addr], capture_output=True, text=True, check=True).stdout
    assert f"dev {netns.host_if} " in route
    assert f"src {netns.host_addr}" in route
    assert netns.ns_if in netns.exec(["ip", "-o", "addr", "show"]).stdout
    assert len(netns.host_if) <= 15 and len(netns.ns_if) <= 15
    assert netns.name.startswith("adv-") and netns.name in _namespaces()


def test_mariadbd_inside_the_namespace_is_reached_from_the_host(netns: NetNS, mariadb_factory) -> None:
    db = mariadb_factory(netns=netns)
    assert db.host == netns.ns_addr
    ((bind, port, user),) = db.query("SELECT @@bind_address, @@port, USER()")
    assert (bind, port) == (netns.ns_addr, db.port)
    assert user == f"root@{netns.host_addr}"  # the client really came over the veth
    assert db.pid in netns.pids()
    # bound inside the namespace only: nothing listens on that port on the host's loopback
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", db.port), timeout=1).close()


def test_mariadbd_by_namespace_name(netns: NetNS, mariadb_factory) -> None:
    db = mariadb_factory(netns=netns.name)
    assert db.query("SELECT @@bind_address") == ((netns.ns_addr,),)


def test_shaping_parameters() -> None:
    assert rate_bits("100mbit") == 100_000_000
    assert rate_bits("12.5mbps") == 100_000_000  # tc's "bps" is bytes per second
    assert tbf_burst("100mbit") == 125_000  # rate / 100 s: >= rate/HZ for any HZ >= 100
    assert tbf_burst("1mbit") == 65536 + 1514  # never below one GSO packet


def test_rate_limits_both_directions() -> None:
    with NetNS(rate="100mbit") as ns:
        for dev, prefix in ((ns.host_if, []), (ns.ns_if, ns.command([]))):
            qdisc = subprocess.run([*prefix, "tc", "qdisc", "show", "dev", dev], capture_output=True, text=True).stdout
            assert "tbf" in qdisc and "rate 100Mbit" in qdisc, qdisc

        # namespace -> host (a server streaming to the client): the host measures
        held = ns.shaper_stats(inside=True)["overlimits"]
        peer = _start_peer(ns, "send")
        with socket.create_connection((ns.ns_addr, PORT), timeout=30) as sock:
            got, start, mark = 0, 0.0, 0
            while got < TRANSFER:
                data = sock.recv(1 << 20)
                assert data, f"stream ended after {got} bytes"
                got += len(data)
                if not start and got >= WARMUP:
                    start, mark = time.monotonic(), got
            down_s = time.monotonic() - start
            downstream = (got - mark) / down_s / MB
            sock.sendall(b"!")
        assert peer.wait(30) == 0
        down_held = ns.shaper_stats(inside=True)["overlimits"] - held

        # host -> namespace: the namespace side measures
        held = ns.shaper_stats(inside=False)["overlimits"]
        peer = _start_peer(ns, "receive")
        t0 = time.monotonic()
        with socket.create_connection((ns.ns_addr, PORT), timeout=30) as sock:
            sock.sendall(b"x" * TRANSFER)
        out, _ = peer.communicate(timeout=30)
        up_s = time.monotonic() - t0
        got, rate = out.split()
        upstream = float(rate) / MB
        assert int(got) == TRANSFER
        up_held = ns.shaper_stats(inside=False)["overlimits"] - held

    print(f"\nns->host {downstream:.2f} MB/s ({down_held} overlimits), host->ns {upstream:.2f} MB/s ({up_held})")
    # each direction went through its own shaper, which held packets back and kept the rate
    assert down_held > 0 and up_held > 0
    assert downstream <= shaped_ceiling(down_s), f"ns->host {downstream:.2f} MB/s"
    assert upstream <= shaped_ceiling(up_s), f"host->ns {upstream:.2f} MB/s"


def test_rate_limits_a_result_set_from_mariadbd(mariadb_factory) -> None:
    with NetNS(rate="100mbit") as ns:
        db = mariadb_factory(netns=ns)
        conn = db.connect()
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT REPEAT('x', 1 << 20)")  # warm-up
                held = ns.shaper_stats(inside=True)["overlimits"]
                received, start = 0, time.monotonic()
                for _ in range(16):
                    cur.execute("SELECT REPEAT('x', 1 << 20)")
                    received += len(cur.fetchone()[0])
                seconds = time.monotonic() - start
                rate = received / seconds / MB
                held = ns.shaper_stats(inside=True)["overlimits"] - held
        finally:
            conn.close()
        db.close()
    print(f"\nresult sets {rate:.2f} MB/s, {held} overlimits")
    assert received == 16 << 20
    assert held > 0 and rate <= shaped_ceiling(seconds), f"{rate:.2f} MB/s"


def test_cleanup_leaves_nothing_behind_even_when_the_body_raises() -> None:
    with pytest.raises(RuntimeError, match="boom"), NetNS(rate="100mbit") as ns:
        sleeper = ns.popen(["sleep", "300"])
        assert ns.name in _namespaces() and ns.host_if in _links()
        raise RuntimeError("boom")
    assert sleeper.wait(5) == -9  # what still ran inside was killed
    assert ns.name not in _namespaces()
    links = _links()
    assert ns.host_if not in links and ns.ns_if not in links
    assert not Path(f"/run/netns/{ns.name}").exists()


def test_delay_is_applied_or_refused_clearly() -> None:
    # netem needs CONFIG_NET_SCH_NETEM, which some kernels (this project's Firecracker VMs) lack.
    ns = NetNS(delay="20ms")
    try:
        with ns:
            peer = _start_peer_bytes(ns, 1)
            start = time.monotonic()
            with socket.create_connection((ns.ns_addr, PORT), timeout=10) as sock:
                handshake = time.monotonic() - start
                sock.recv(1)
                sock.sendall(b"!")
            peer.wait(10)
        assert handshake >= 0.04  # 20 ms each way
    except NetNSError as exc:
        assert "CONFIG_NET_SCH_NETEM" in str(exc)
    links = _links()
    assert ns.host_if not in links and ns.ns_if not in links
    assert ns.name not in _namespaces()
