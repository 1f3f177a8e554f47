"""Shaping: how close the stream probe and a plain TCP transfer come to a tc tbf shaper's rate, and
how much faster the same probe streams over an unshaped veth, side by side.

    python3 -m bench.shaping [--quick]

Two network namespaces (tests/support/netns.py), one shaped to 100 Mb/s and one not, each with a
throwaway mariadbd inside. Rounds alternate: the stream probe (`--probe stream`) against each, and
a 24 MB TCP transfer from the shaped namespace to the host. Printed: medians, the shaped figures as
a fraction of what the shaper lets through (100 Mb/s of frames = 11.96 MB/s of TCP payload with
timestamps, 1448 of every 1514 bytes), and unshaped ÷ shaped.

The tests assert only what the shaper guarantees (never above the rate, packets held back); these
fractions were once test assertions (>= 11.0 MB/s, within 15 % of 11.8) and fail on a busy machine.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from bench.common import log, median, quick_main, table
from tests.support.mariadb import MariaDB
from tests.support.netns import NetNS

RATE = "100mbit"
PAYLOAD_CEILING = 100e6 / 8 * 1448 / 1514 / 1e6  # MB/s of TCP payload through 100 Mb/s of frames
PORT = 40_001
TRANSFER = 24_000_000
_SENDER = r"""
import socket, sys
srv = socket.create_server((sys.argv[1], int(sys.argv[2])))
print("listening", flush=True)
conn, _ = srv.accept()
conn.sendall(b"x" * int(sys.argv[3]))
conn.close()
"""


def stream_probe(db: MariaDB) -> float:
    from advisor import api
    from advisor.collect.connection import ConnectionOptions

    snap = api.calibrate(ConnectionOptions(host=db.host, port=db.port, user="root", no_defaults=True), budget_s=4.0,
                         probes=["stream"])
    s = snap.calibration.stream
    if s is None or s.mbytes_per_s is None:
        raise SystemExit(f"the stream probe did not measure: {snap.calibration.missing}")
    return s.mbytes_per_s


def tcp_transfer(ns: NetNS) -> float:
    peer = ns.popen([sys.executable, "-c", _SENDER, ns.ns_addr, str(PORT), str(TRANSFER)], stdout=subprocess.PIPE,
                    text=True)
    assert peer.stdout is not None and peer.stdout.readline().strip() == "listening"
    got, start, mark = 0, 0.0, 0
    with socket.create_connection((ns.ns_addr, PORT), timeout=30) as sock:
        while True:
            data = sock.recv(1 << 20)
            if not data:
                break
            got += len(data)
            if not start and got >= 2_000_000:  # slow start and the bucket's first burst stay out
                start, mark = time.monotonic(), got
    peer.wait(30)
    return (got - mark) / (time.monotonic() - start) / 1e6


def run(quick: bool = False) -> dict:
    rounds = 3 if quick else 9
    out: dict[str, list[float]] = {"probe, shaped": [], "probe, unshaped": [], "tcp, shaped": []}
    with NetNS(rate=RATE) as shaped_ns, NetNS() as open_ns:
        shaped, unshaped = MariaDB(netns=shaped_ns).start(), MariaDB(netns=open_ns).start()
        try:
            for i in range(rounds):
                jobs = [("probe, shaped", lambda: stream_probe(shaped)), ("probe, unshaped", lambda: stream_probe(unshaped)),
                        ("tcp, shaped", lambda: tcp_transfer(shaped_ns))]
                for name, job in (jobs if i % 2 == 0 else list(reversed(jobs))):
                    out[name].append(job())
                log(f"shaping: round {i + 1}/{rounds}")
        finally:
            shaped.close()
            unshaped.close()
    return {"rounds": rounds, "mbps": out}


def render(r: dict) -> str:
    m = {k: median(v) for k, v in r["mbps"].items()}
    rows = [(name, f"{m[name]:.2f}", f"{min(v):.2f}–{max(v):.2f}",
             f"{m[name] / PAYLOAD_CEILING:.3f}" if "shaped" in name and "unshaped" not in name else "")
            for name, v in r["mbps"].items()]
    return (f"{r['rounds']} rounds, alternated; shaper tbf {RATE} (payload ceiling {PAYLOAD_CEILING:.2f} MB/s).\n\n"
            + table(["measurement", "median MB/s", "range", "÷ payload ceiling"], rows)
            + f"\n\nThe unshaped veth streams {m['probe, unshaped'] / m['probe, shaped']:.1f}× as fast as the shaped "
              "one with the same probe, so the shaped figure is the shaper's, not the machine's.")


if __name__ == "__main__":
    quick_main(run, render)
