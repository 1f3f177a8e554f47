"""Host facts: the pure parsers, and the real gatherer + parser run on recorded and reconstructed trees."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from advisor.collect.host_gather import Gatherer, cgroup_dirs, parse_mountinfo_lines
from advisor.collect.host_parse import (bracketed, count_cpu_list, find_mount, parse_cpuinfo, parse_cgroup_limit,
                                        parse_host, parse_limits, parse_meminfo)

HOSTS = Path(__file__).resolve().parents[1] / "fixtures" / "hosts"


def host(tree: str, datadir: str = "/var/lib/mysql", **dirs: str):
    raw = Gatherer(str(HOSTS / tree)).host([datadir, *dirs.values()])
    return parse_host(raw, {"datadir": datadir, **dirs}, "recorded")


def missing(h) -> dict[str, str]:
    return {m.fact: m.reason for m in h.missing}


# ---------------------------------------------------------------------- pure parsers

def test_meminfo_and_cpuinfo_from_this_machine_recording():
    m = parse_meminfo((HOSTS / "this-vm/proc/meminfo").read_text())
    assert m["MemTotal"] == 24683656 * 1024 and m["SwapTotal"] == 0
    model, n = parse_cpuinfo((HOSTS / "this-vm/proc/cpuinfo").read_text())
    assert (model, n) == ("AMD EPYC", 2)


@pytest.mark.parametrize("text,count", [("0", 1), ("0-1", 2), ("0-3,8-11", 8), ("0,2,4", 3), ("", 0), ("x", None)])
def test_cpu_and_node_lists(text, count):
    assert count_cpu_list(text) == count


def test_sysfs_choice_files():
    assert bracketed("always [madvise] never") == "madvise"
    assert bracketed("none [mq-deadline] kyber bfq") == "mq-deadline"
    assert bracketed("none") == "none"


def test_proc_limits():
    text = ("Limit                     Soft Limit           Hard Limit           Units     \n"
            "Max cpu time              unlimited            unlimited            seconds   \n"
            "Max open files            20000                20000                files     \n")
    assert parse_limits(text)["Max open files"] == ("20000", "20000")


@pytest.mark.parametrize("value,limit", [("max", None), ("4294967296", 4294967296), ("9223372036854771712", None),
                                         (None, None), ("garbage", None)])
def test_cgroup_limit_values(value, limit):
    assert parse_cgroup_limit(value) == limit


def test_cgroup_dirs_walk_to_the_mount_root():
    assert cgroup_dirs("/", "/sys/fs/cgroup", "/system.slice/mariadb.service") == [
        "/sys/fs/cgroup/system.slice/mariadb.service", "/sys/fs/cgroup/system.slice", "/sys/fs/cgroup"]
    # a container with its own cgroup namespace: the limit is at the mount point itself
    assert cgroup_dirs("/", "/sys/fs/cgroup", "/") == ["/sys/fs/cgroup"]
    # cgroup v1 without a namespace: the mount shows only the container's subtree
    assert cgroup_dirs("/docker/abc", "/sys/fs/cgroup/memory", "/docker/abc") == ["/sys/fs/cgroup/memory"]


def test_mountinfo_escapes_and_longest_prefix():
    text = ("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
            "40 27 259:1 / /data\\040disk rw,noatime - xfs /dev/nvme0n1p1 rw,attr2\n"
            "41 27 0:40 / /data rw - tmpfs tmpfs rw\n")
    m = parse_mountinfo_lines(text)
    assert m[1]["mount_point"] == "/data disk"
    assert find_mount(text, "/data disk/mysql").source == "/dev/nvme0n1p1"
    assert find_mount(text, "/data/mysql").fstype == "tmpfs"
    assert find_mount(text, "/var/lib/mysql").mount_point == "/"
    assert find_mount(text, "/data disk/mysql").options == ["rw", "noatime", "attr2"]


def test_gatherer_runs_on_python_36():
    """It is shipped over ssh to servers that may only have an old python3."""
    src = (Path(__file__).resolve().parents[2] / "src/advisor/collect/host_gather.py").read_text()
    tree = ast.parse(src, feature_version=(3, 6))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"json", "os", "re", "sys", "argparse"}, imported  # stdlib only, nothing from advisor


# ---------------------------------------------------------------------- recorded: this machine

def test_this_vm_recording():
    h = host("this-vm")
    assert h.hostname == "vm" and h.kernel.startswith("6.18")
    assert h.cpu.logical_count == 2 and h.cpu.numa_nodes == 1 and h.cpu.model == "AMD EPYC"
    assert h.cpu.governor is None and "cpufreq" in missing(h)["host.cpu.governor"]
    assert h.memory.total_bytes == 24683656 * 1024
    assert h.memory.cgroup_version == 1 and h.memory.cgroup_limit_bytes is None
    assert h.memory.effective_limit_bytes == h.memory.total_bytes
    assert (h.memory.swap_total_bytes, h.memory.swappiness) == (0, 60)
    assert (h.thp.enabled, h.thp.defrag) == ("madvise", "madvise")
    assert h.mysqld_open_files_limit == 20000  # /proc/3768/limits of the recorded mariadbd
    d = h.datadir
    assert (d.mount_point, d.fstype, d.source) == ("/", "ext4", "/dev/vda")
    assert "discard" in d.mount_options
    [vda] = d.devices
    assert (vda.name, vda.kind, vda.vendor, vda.rotational, vda.write_cache, vda.scheduler) == (
        "vda", "vd", "0x1af4", True, "write back", "mq-deadline")
    assert vda.size_bytes == 256 << 30 and vda.transport == "virtio_blk"
    assert vda.device_class == "virtual" and "virtio-blk" in vda.class_reason
    assert vda.model is None and "no model" in missing(h)["host.datadir.devices.vda.model"]


# ---------------------------------------------------------------------- reconstructed trees

def test_pm981_is_client_grade():
    h = host("seed-003-pm981")
    d = h.datadir
    assert d.stack == ["nvme0n1p2 (partition 2 of nvme0n1)", "nvme0n1"]
    [dev] = d.devices
    assert dev.model == "SAMSUNG MZVLB1T0HBLR-000L7" and dev.size_bytes == 1_024_209_543_168
    assert (dev.kind, dev.rotational, dev.write_cache, dev.nvme_vwc, dev.scheduler, dev.transport) == (
        "nvme", False, "write back", True, "none", "pcie")
    assert d.device_class == dev.device_class == "nvme_client"
    assert "PM981" in dev.class_reason and "write back" in dev.class_reason
    assert h.cpu.governor == "powersave" and h.memory.swap_total_bytes == 2_097_148 * 1024


def test_pm983_is_datacenter():
    h = host("seed-003-pm983")
    d = h.datadir
    assert (d.mount_point, d.fstype) == ("/var/lib/mysql", "xfs")
    [dev] = d.devices
    assert dev.model == "SAMSUNG MZQLB960HAJR-00007" and dev.size_bytes == 960_197_124_096
    assert dev.write_cache == "write through" and dev.nvme_vwc is False
    assert d.device_class == "nvme_plp" and "PM983" in d.class_reason
    assert h.cpu.numa_nodes == 2 and h.cpu.governor == "performance"


def test_md_raid1_resolves_both_members():
    h = host("md-raid1-nvme")
    d = h.datadir
    assert d.stack[0] == "md0 (md raid1 over nvme0n1p2, nvme1n1p2)"
    assert [x.name for x in d.devices] == ["nvme0n1", "nvme1n1"]
    assert all(x.model == "SAMSUNG MZVLB512HBJQ-000L2" and x.size_bytes == 512_110_190_592 for x in d.devices)
    assert d.device_class == "nvme_client" and "weakest of 2 devices" in d.class_reason


def test_lvm_on_hdd():
    h = host("lvm-hdd")
    d = h.datadir
    assert d.source == "/dev/mapper/vg0-mysql" and d.mount_point == "/var/lib/mysql"
    assert d.stack == ["dm-0 (LVM volume vg0-mysql over sda2)", "sda2 (partition 2 of sda)", "sda"]
    [sda] = d.devices
    assert (sda.vendor, sda.model, sda.rotational, sda.scheduler) == ("ATA", "ST4000NM0035-1V4", True, "mq-deadline")
    assert sda.size_bytes == 4_000_787_030_016
    assert d.device_class == "rotational"
    assert h.memory.cgroup_version == 1 and h.memory.cgroup_limit_bytes is None
    assert h.thp.enabled == "always"


def test_container_with_cgroup_v2_limit():
    h = host("cgroup-v2-container")
    assert h.memory.total_bytes == 65_843_200 * 1024
    assert (h.memory.cgroup_version, h.memory.cgroup_limit_bytes) == (2, 4 << 30)
    assert h.memory.effective_limit_bytes == 4 << 30
    d = h.datadir  # a bind mount of a docker volume: the device is still found via 259:1
    assert (d.mount_point, d.fstype, d.source) == ("/var/lib/mysql", "ext4", "/dev/nvme0n1p1")
    assert d.devices[0].model == "SAMSUNG MZQLB960HAJR-00007"


def test_storage_not_backed_by_a_block_device_is_reported():
    h = host("cgroup-v2-container", datadir="/srv/mysql")  # on the container's overlay root
    d = h.datadir
    assert d.fstype == "overlay" and d.devices == []
    assert "overlay" in d.class_reason and "not backed by a local block device" in d.class_reason
    assert "host.datadir.devices" in missing(h)


def test_redo_dir_elsewhere_is_resolved_separately():
    h = host("seed-003-pm983", datadir="/var/lib/mysql", innodb_log_group_home_dir="/redo")
    [other] = h.other_dirs
    assert other.role == "innodb_log_group_home_dir" and other.mount_point == "/"  # root is on sda2, not described
    assert other.devices == [] and "sda" in other.class_reason


def test_missing_tree_files_are_reasons_not_errors(tmp_path):
    h = parse_host(Gatherer(str(tmp_path)).host(["/var/lib/mysql"]), {"datadir": "/var/lib/mysql"}, "recorded")
    why = missing(h)
    assert "does not exist" in why["host.cpu"]
    assert "host.memory" in why and h.memory.total_bytes is None
    assert h.datadir.devices == [] and "mountinfo" in h.datadir.class_reason


def test_live_gather_is_fast_and_finds_the_root_device():
    import time

    t0 = time.perf_counter()
    raw = Gatherer("/").host(["/"])
    elapsed = time.perf_counter() - t0
    h = parse_host(raw, {"datadir": "/"}, "local")
    assert elapsed < 0.5, elapsed
    st = os.stat("/")
    want = os.path.basename(os.readlink(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"))
    assert want in h.datadir.stack[-1] or want in h.datadir.stack[0]
    assert h.cpu.logical_count == os.cpu_count()
