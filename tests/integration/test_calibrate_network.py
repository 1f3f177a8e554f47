"""Stream probe against a real mariadbd behind a real veth pair, shaped with tc (issue 4 acceptance).

The route facts come from the advisor's own client network collector (issue 3, `ip -j route get`
plus /sys/class/net/<if>/speed: a veth reports 10000 Mb/s); the test checks them against the
kernel's answer read here directly.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_cli, run_json
from tests.support.netns import NetNS

pytestmark = [pytest.mark.requires_mariadbd, pytest.mark.requires_root, pytest.mark.requires_tool("ip", "tc")]

SHAPED_TARGET = 11.8  # MB/s: 100 Mb/s x 1e6/8 x 1460/1538 = 11.87, with TCP timestamps 11.77
TOLERANCE = 0.15


def conn_args(db) -> list[str]:
    return ["--host", db.host, "--port", str(db.port), "--user", "root", "--no-defaults"]


def client_facts(addr: str) -> dict:
    """The client section from the kernel's answer for this address: route, device speed and MTU."""
    route = json.loads(subprocess.run(["ip", "-j", "route", "get", addr], capture_output=True, text=True,
                                      check=True).stdout)[0]
    dev = route["dev"]
    speed = int(Path(f"/sys/class/net/{dev}/speed").read_text())
    mtu = int(Path(f"/sys/class/net/{dev}/mtu").read_text())
    kind = "loopback" if dev == "lo" or route.get("type") == "local" else "interface"
    return {
        "source": "local",
        "route": {"destination": addr, "kind": kind, "interface": dev, "source_address": route.get("prefsrc"),
                  "gateway": route.get("gateway"), "speed_mbps": speed if speed > 0 else None, "mtu": mtu},
        "interfaces": [{"name": dev, "operstate": Path(f"/sys/class/net/{dev}/operstate").read_text().strip(),
                        "speed_mbps": speed if speed > 0 else None, "mtu": mtu}],
        "missing": [],
    }


def tbf_rate_mbps(dev: str) -> int:
    """The rate of the tbf qdisc on `dev`, as tc reports it (bytes/s), in Mb/s."""
    qdiscs = json.loads(subprocess.run(["tc", "-j", "qdisc", "show", "dev", dev], capture_output=True, text=True,
                                       check=True).stdout)
    tbf = next(q for q in qdiscs if q["kind"] == "tbf")
    return int(tbf["options"]["rate"] * 8 // 1_000_000)


def with_client(snapshot_path: Path, client: dict, out: Path) -> Path:
    snap = json.loads(snapshot_path.read_text())
    snap["client"] = client
    snap["missing"] = [m for m in snap["missing"] if m["fact"] != "client"]
    out.write_text(json.dumps(snap))
    return out


def test_shaped_100mbit_stream_and_network_findings(mariadb_factory, tmp_path):
    with NetNS(rate="100mbit") as ns:
        db = mariadb_factory(netns=ns)
        saved = tmp_path / "shaped.json"
        code, cal, err = run_json("calibrate", *conn_args(db), "--format", "json", "--save-snapshot", str(saved),
                                  timeout=60)
        assert code == 0, err
        stream = cal["stream"]
        mb = stream["mbytes_per_s"]
        print(f"\nshaped 100mbit: stream {mb} MB/s, client CPU {stream['client_cpu_fraction']}, "
              f"server generates {stream['server_mbytes_per_s']} MB/s, {stream['chunks']} queries, basis {stream['basis']}, "
              f"link {stream['link_speed_mbps']} Mb/s, {stream['line_rate_fraction']} of the ceiling")
        assert abs(mb - SHAPED_TARGET) <= TOLERANCE * SHAPED_TARGET, mb
        assert stream["client_cpu_bound"] is False and stream["basis"] == "tcp_info"
        assert cal["duration_s"] <= 10.0

        # the collector's route is the kernel's: the veth, which reports 10000 Mb/s
        kernel = client_facts(db.host)["route"]
        snap = json.loads(saved.read_text())
        route = snap["client"]["route"]
        assert route["kind"] == "interface" and route["interface"] == kernel["interface"] == ns.host_if
        assert route["speed_mbps"] == kernel["speed_mbps"] == 10000
        assert stream["route_kind"] == "interface" and stream["link_speed_mbps"] == 10000
        assert stream["line_rate_fraction"] == pytest.approx(mb / 1186.606, abs=1e-4)
        assert cal["verdicts"]["stream"]["verdict"] == "path_bottleneck"

        # 1. the real route: a veth that reports 10000 Mb/s, shaped to 100 Mb/s -> path bottleneck
        code, report, err = run_json("audit", "--snapshot", str(saved), "--purpose", "benchmark", "--format", "json")
        assert code == 0, err
        f = next(f for f in report["findings"] if f["rule"] == "network-path-bottleneck")
        print("finding:", f["message"])
        assert f"{mb:.1f} MB/s" in f["message"] and ns.host_if in f["message"] and "10,000 Mb/s" in f["message"]
        assert f["evidence"]["calibration.stream.mbytes_per_s"] == mb
        statuses = {o["rule"]: o["status"] for o in report["outcomes"]}
        assert statuses["network-link-saturated"] == "passed"

        # 2. the same measurement with the link speed known to be the shaper's rate (a 100 Mb/s NIC, as
        #    tbf emulates one): the stream is at line rate and the link is the ceiling
        rate = tbf_rate_mbps(ns.host_if)
        assert rate == 100
        client = snap["client"]
        client["route"]["speed_mbps"] = rate
        for i in client["interfaces"]:
            if i["name"] == ns.host_if:
                i["speed_mbps"] = rate
        nic100 = with_client(saved, client, tmp_path / "nic100.json")
        code, report, err = run_json("audit", "--snapshot", str(nic100), "--purpose", "benchmark", "--format", "json")
        assert code == 0, err
        f = next(f for f in report["findings"] if f["rule"] == "network-link-saturated")
        print("finding:", f["message"])
        assert f"{mb:.1f} MB/s" in f["message"] and "100 Mb/s" in f["message"] and "11.9 MB/s" in f["message"]
        statuses = {o["rule"]: o["status"] for o in report["outcomes"]}
        assert statuses["network-path-bottleneck"] == "passed"

        # 3. the live audit runs the calibration by default with --purpose benchmark and cites the MB/s
        code, report, err = run_json("audit", *conn_args(db), "--purpose", "benchmark", "--format", "json",
                                     "--calibrate-seconds", "6", timeout=60)
        assert code == 0, err
        assert any(n.startswith("calibration (full) ran") for n in report["notes"]), report["notes"]
        f = next(f for f in report["findings"] if f["rule"] == "network-path-bottleneck")
        live_mb = f["evidence"]["calibration.stream.mbytes_per_s"]
        print("live audit finding:", f["message"])
        assert abs(live_mb - SHAPED_TARGET) <= TOLERANCE * SHAPED_TARGET and f"{live_mb:.1f} MB/s" in f["message"]
        # the report carries the measurements it cites, with their sample counts and verdicts
        cal = report["calibration"]
        assert cal["stream"]["mbytes_per_s"] == live_mb and cal["rtt_ms"]["samples"] > 0
        assert cal["verdicts"]["stream"]["verdict"] == "path_bottleneck", cal["verdicts"]


def test_unshaped_veth_is_above_the_shaped_figure_or_client_bound(mariadb_factory):
    with NetNS() as ns:
        db = mariadb_factory(netns=ns)
        code, cal, err = run_json("calibrate", *conn_args(db), "--format", "json", "--calibrate-seconds", "6",
                                  timeout=60)
        assert code == 0, err
        s = cal["stream"]
        print(f"\nunshaped veth: stream {s['mbytes_per_s']} MB/s, client CPU {s['client_cpu_fraction']}, "
              f"server generates {s['server_mbytes_per_s']} MB/s")
        assert s["client_cpu_bound"] or s["mbytes_per_s"] > SHAPED_TARGET * (1 + TOLERANCE)


def test_loopback_is_no_network(mariadb):
    p = run_cli("calibrate", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "root", "--no-defaults",
                "--calibrate-seconds", "3")
    assert p.returncode == 0, p.stderr
    assert "no_network" in p.stdout and "over loopback" in p.stdout
