"""Issue 3 acceptance on this machine: `advisor collect` against a throwaway mariadbd whose datadir is on
the local disk reads the host facts and the client's route; the audit uses them; host-facts files work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.cli import run_cli, run_json

pytestmark = pytest.mark.requires_mariadbd


def conn_args(db) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults"]


def meminfo_total_bytes() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemTotal")


def physical_device_of(path: str) -> str:
    """The disk under `path`, found independently of the advisor: stat -> /sys/dev/block -> the
    partition's parent (this machine has no device-mapper or md layers; the tree tests cover those)."""
    st = os.stat(path)
    real = os.path.realpath(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    assert not os.listdir(os.path.join(real, "slaves")), "stacked device: extend this helper"
    return os.path.basename(real)


def max_open_files(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no Max open files")


def test_collect_reads_this_machine_and_the_loopback_route(mariadb):
    p = run_cli("collect", *conn_args(mariadb), "--format", "json")
    from advisor.snapshot import load_snapshot

    # host and client facts are built without validation (speed): they must validate and round-trip
    assert load_snapshot(p.stdout).to_json() == p.stdout
    code, snap, err = run_json("collect", *conn_args(mariadb), "--format", "json")
    assert code == 0, err
    host, client = snap["host"], snap["client"]
    assert host["source"] == "local" and "loopback" in host["origin"]
    processors = sum(1 for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("processor"))
    assert host["cpu"]["logical_count"] == processors == os.cpu_count()
    assert host["memory"]["total_bytes"] == meminfo_total_bytes()
    assert host["mysqld_open_files_limit"] == max_open_files(mariadb.pid)  # found through @@pid_file

    datadir = host["datadir"]
    assert datadir["path"] == str(mariadb.datadir)
    want = physical_device_of(str(mariadb.datadir))
    assert [d["name"] for d in datadir["devices"]] == [want]
    dev = datadir["devices"][0]
    for key in ("name", "model", "rotational", "write_cache"):
        assert key in dev
    sysq = Path(f"/sys/block/{want}/queue")
    assert dev["rotational"] == (sysq.joinpath("rotational").read_text().strip() == "1")
    assert dev["write_cache"] == sysq.joinpath("write_cache").read_text().strip()
    assert dev["device_class"] and dev["class_reason"]
    missing = {m["fact"]: m["reason"] for m in host["missing"]}
    if dev["model"] is None:  # virtio-blk has no model: null with a reason, not an error
        assert missing[f"host.datadir.devices.{want}.model"]

    route = client["route"]
    assert (route["kind"], route["interface"], route["source_address"]) == ("loopback", "lo", "127.0.0.1")
    assert route["method"] == "/proc/net/route"  # loopback: no `ip route get` needed
    cmissing = {m["fact"]: m["reason"] for m in client["missing"]}
    for i in client["interfaces"]:
        if i["operstate"] == "up" and i["kind"] != "loopback" and i["speed_mbps"] is None:
            assert cmissing[f"client.interfaces.{i['name']}.speed_mbps"]  # e.g. virtio_net reports speed -1
    assert not any(m["fact"] in ("host", "client") for m in snap["missing"])


def test_audit_evaluates_the_host_rules_on_this_machine(mariadb):
    code, report, err = run_json("audit", *conn_args(mariadb), "--purpose", "benchmark", "--format", "json")
    assert code == 0, err
    status = {o["rule"]: o for o in report["outcomes"]}
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    assert status["transparent-huge-pages-always"]["status"] == ("fired" if "[always]" in thp else "passed")
    assert status["buffer-pool-exceeds-memory-limit"]["status"] == "passed"  # 128 MiB pool
    assert status["network-route-slow-link"]["status"] == "not_applicable"   # loopback
    gov = status["cpu-governor-not-performance"]
    if not list(Path("/sys/devices/system/cpu").glob("cpu*/cpufreq/scaling_governor")):
        assert gov["status"] == "unknown" and "cpufreq" in gov["reason"]


def test_host_facts_file_from_this_machine(mariadb, tmp_path):
    facts = tmp_path / "host.json"
    p = run_cli("collect", "--host-facts-only", "-o", str(facts))
    assert p.returncode == 0, p.stderr
    code, snap, err = run_json("collect", *conn_args(mariadb), "--host-facts", str(facts))
    assert code == 0, err
    assert snap["host"]["source"] == "file" and str(facts) in snap["host"]["origin"]
    assert snap["host"]["memory"]["total_bytes"] == meminfo_total_bytes()
    assert snap["host"]["datadir"]["path"] == str(mariadb.datadir)
    assert snap["host"]["datadir"]["devices"][0]["name"] == physical_device_of(str(mariadb.datadir))

