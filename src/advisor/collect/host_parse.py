"""Parse the raw host files (advisor.collect.host_gather) into the snapshot's `host` section. Pure.

The same raw document comes from this machine, from a server over ssh, from a host-facts file
or from a recorded tree under tests/fixtures/hosts/, so every host fact is parsed by this module
alone. A fact that cannot be read is left None and recorded in `missing` with the reason.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any, Optional

from advisor.collect.host_gather import cgroup_dirs, cgroup_mounts, parse_mountinfo_lines
from advisor.snapshot import BlockDevice, Cpu, HostFacts, Memory, Storage, Thp
from advisor.units import whole

UNLIMITED = 1 << 60  # cgroup v1 reports "no limit" as PAGE_COUNTER_MAX pages (9223372036854771712)


class RawTree:
    """Read access to a raw document: file text, symlink targets, directory listings, errors."""

    def __init__(self, raw: dict[str, Any]):
        self.raw = raw
        self.files: dict[str, str] = raw.get("files") or {}
        self.links: dict[str, str] = raw.get("links") or {}
        self.dirs: dict[str, list[str]] = raw.get("dirs") or {}
        self.errors: dict[str, str] = raw.get("errors") or {}
        self.paths: dict[str, dict[str, Any]] = raw.get("paths") or {}

    def text(self, path: str) -> Optional[str]:
        return self.files.get(path)

    def value(self, path: str) -> Optional[str]:
        t = self.files.get(path)
        return None if t is None else t.strip()

    def int(self, path: str) -> Optional[int]:
        v = self.value(path)
        if v is None:
            return None
        try:
            return int(v)
        except ValueError:
            return None

    def link(self, path: str) -> Optional[str]:
        return self.links.get(path)

    def ls(self, path: str) -> Optional[list[str]]:
        return self.dirs.get(path)

    def why(self, path: str, default: str = "not present") -> str:
        e = self.errors.get(path)
        if e is None:
            return f"{path}: {default}"
        if "No such file" in e:
            return f"{path} does not exist"
        if "Permission" in e:
            return f"{path} is not readable by this user (run as root or the server's owner)"
        if "Invalid argument" in e:
            return f"{path} cannot be read (EINVAL: the driver reports no value)"
        return f"{path}: {e}"


# ---------------------------------------------------------------------- small parsers

def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo: 'MemTotal:       24683656 kB' -> bytes."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if not parts or whole(parts[0]) is None:
            continue
        n = int(parts[0])
        if len(parts) > 1 and parts[1] == "kB":
            n *= 1024
        out[key.strip()] = n
    return out


def parse_cpuinfo(text: str) -> tuple[Optional[str], int]:
    """(model name, number of 'processor' entries)."""
    model = None
    count = 0
    for line in text.splitlines():
        key, _, val = line.partition(":")
        key = key.strip().lower()
        if key == "processor":
            count += 1
        elif key in ("model name", "cpu model") and model is None and val.strip():
            model = " ".join(val.split())
    return model, count


def count_cpu_list(text: str) -> Optional[int]:
    """'0-3,8-11' -> 8 (kernel cpulist / nodelist format)."""
    total = 0
    text = text.strip()
    if not text:
        return 0
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)(?:-(\d+))?\s*", part)
        if m is None:
            return None
        total += (int(m.group(2)) - int(m.group(1)) + 1) if m.group(2) else 1
    return total


def bracketed(text: str) -> Optional[str]:
    """'always [madvise] never' -> 'madvise' (sysfs multiple-choice files)."""
    m = re.search(r"\[([^\]]+)\]", text)
    if m:
        return m.group(1)
    t = text.strip()
    return t or None


def parse_limits(text: str) -> dict[str, tuple[str, str]]:
    """/proc/PID/limits: {'Max open files': (soft, hard)}."""
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines()[1:]:
        m = re.match(r"^(.*?)\s{2,}(\S+)\s+(\S+)(?:\s+\S+)?\s*$", line)
        if m:
            out[m.group(1).strip()] = (m.group(2), m.group(3))
    return out


def parse_cgroup_limit(value: Optional[str]) -> Optional[int]:
    """memory.max 'max' or bytes; v1 limit_in_bytes bytes (huge = none). None means no limit."""
    if value is None:
        return None
    v = value.strip()
    if v == "max" or whole(v) is None:
        return None
    n = int(v)
    return None if n >= UNLIMITED else n


# ---------------------------------------------------------------------- host facts

def parse_host(raw: dict[str, Any], dirs: Optional[dict[str, str]] = None, source: str = "local",
               models: Any = None) -> HostFacts:
    """HostFacts from a raw document. `dirs` maps roles (datadir, innodb_log_group_home_dir, ...)
    to the server's paths; the first is the datadir."""
    t = RawTree(raw)
    h = HostFacts.model_construct(source=source)  # type: ignore[arg-type]
    h.hostname = t.value("/proc/sys/kernel/hostname")
    h.kernel = t.value("/proc/sys/kernel/osrelease")
    if h.hostname is None:
        h.note_missing("host.hostname", t.why("/proc/sys/kernel/hostname"))
    _cpu(t, h)
    _memory(t, h)
    _thp(t, h)
    _open_files(t, h)
    if dirs:
        from advisor.collect.storage import DeviceModels

        table = models or DeviceModels.builtin()
        items = list(dirs.items())
        role, path = items[0]
        h.datadir = resolve_storage(t, path, role, table)
        _note_storage_missing(h, t, h.datadir, "host.datadir")
        for role, path in items[1:]:
            st = resolve_storage(t, path, role, table)
            _note_storage_missing(h, t, st, f"host.other_dirs.{role}")
            h.other_dirs.append(st)
    else:
        h.note_missing("host.datadir", "the server's datadir is unknown (no server variables), so the "
                       "storage behind it was not resolved")
    return h


def _cpu(t: RawTree, h: HostFacts) -> None:
    cpu = Cpu.model_construct()
    info = t.text("/proc/cpuinfo")
    if info is not None:
        cpu.model, n = parse_cpuinfo(info)
        online = t.value("/sys/devices/system/cpu/online")
        cpu.logical_count = (count_cpu_list(online) if online else None) or (n or None)
        if cpu.model is None:
            h.note_missing("host.cpu.model", "/proc/cpuinfo has no 'model name' line on this architecture")
    else:
        h.note_missing("host.cpu", t.why("/proc/cpuinfo"))
    nodes = t.value("/sys/devices/system/node/online")
    if nodes is not None:
        cpu.numa_nodes = count_cpu_list(nodes)
    else:
        listing = t.ls("/sys/devices/system/node")
        if listing is not None:
            cpu.numa_nodes = sum(1 for x in listing if re.fullmatch(r"node\d+", x)) or None
        if cpu.numa_nodes is None:
            h.note_missing("host.cpu.numa_nodes", t.why("/sys/devices/system/node/online",
                           "not present (kernel without NUMA support)"))
    govs = [v.strip() for k, v in sorted(t.files.items())
            if k.startswith("/sys/devices/system/cpu/") and k.endswith("/scaling_governor")]
    if govs:
        distinct = sorted(set(govs), key=govs.index)
        cpu.governor = distinct[0] if len(distinct) == 1 else ",".join(distinct)
    else:
        h.note_missing("host.cpu.governor", "no cpufreq scaling_governor in /sys/devices/system/cpu: there is no "
                       "cpufreq driver here (typical in a virtual machine, where the hypervisor controls the "
                       "frequency, or with the intel_pstate/amd_pstate driver unloaded)")
    h.cpu = cpu


def _memory(t: RawTree, h: HostFacts) -> None:
    mem = Memory.model_construct()
    mi = t.text("/proc/meminfo")
    if mi is not None:
        m = parse_meminfo(mi)
        mem.total_bytes = m.get("MemTotal")
        mem.swap_total_bytes = m.get("SwapTotal")
    else:
        h.note_missing("host.memory", t.why("/proc/meminfo"))
    mem.swappiness = t.int("/proc/sys/vm/swappiness")
    if mem.swappiness is None:
        h.note_missing("host.memory.swappiness", t.why("/proc/sys/vm/swappiness"))
    version, limit, why = cgroup_memory_limit(t)
    mem.cgroup_version = version
    mem.cgroup_limit_bytes = limit
    if why:
        h.note_missing("host.memory.cgroup_limit_bytes", why)
    if mem.total_bytes is not None:
        mem.effective_limit_bytes = min(mem.total_bytes, limit) if limit is not None else mem.total_bytes
    h.memory = mem


def cgroup_memory_limit(t: RawTree) -> tuple[Optional[int], Optional[int], Optional[str]]:
    """(cgroup version, tightest memory limit from the process's cgroup up to the root, reason if
    it could not be determined). The process is mysqld when its pid was found, else the collector."""
    pid = (t.raw.get("mysqld") or {}).get("pid")
    cg = t.text(f"/proc/{pid}/cgroup") if pid else None
    if cg is None:
        cg = t.text("/proc/self/cgroup")
    mi = t.text("/proc/self/mountinfo")
    if cg is None or mi is None:
        return None, None, "the process's cgroup could not be read (" + (
            t.why("/proc/self/cgroup") if cg is None else t.why("/proc/self/mountinfo")) + ")"
    v2_limits: list[int] = []
    v1_limits: list[int] = []
    v2_seen = v1_seen = False
    for mount_root, mount_point, fstype, opts in cgroup_mounts(mi):
        for line in cg.splitlines():
            parts = line.split(":", 2)
            if len(parts) != 3:
                continue
            hid, controllers, path = parts
            if fstype == "cgroup2" and hid == "0":
                for d in cgroup_dirs(mount_root, mount_point, path):
                    v = t.value(d + "/memory.max")
                    if v is not None:
                        v2_seen = True
                        n = parse_cgroup_limit(v)
                        if n is not None:
                            v2_limits.append(n)
            elif (fstype == "cgroup" and "memory" in controllers.split(",")
                  and "memory" in opts.split(",")):
                for d in cgroup_dirs(mount_root, mount_point, path):
                    v = t.value(d + "/memory.limit_in_bytes")
                    if v is not None:
                        v1_seen = True
                        n = parse_cgroup_limit(v)
                        if n is not None:
                            v1_limits.append(n)
                    stat = t.text(d + "/memory.stat")
                    if stat:
                        m = re.search(r"^hierarchical_memory_limit (\d+)$", stat, re.M)
                        if m:
                            n = parse_cgroup_limit(m.group(1))
                            if n is not None:
                                v1_limits.append(n)
    if v2_seen:
        return 2, (min(v2_limits) if v2_limits else None), None
    if v1_seen:
        return 1, (min(v1_limits) if v1_limits else None), None
    return None, None, ("no cgroup memory controller is visible (no memory.max or memory.limit_in_bytes under "
                        "the cgroup mounts), so only RAM bounds the server's memory")


def _thp(t: RawTree, h: HostFacts) -> None:
    en = t.value("/sys/kernel/mm/transparent_hugepage/enabled")
    df = t.value("/sys/kernel/mm/transparent_hugepage/defrag")
    h.thp = Thp.model_construct(enabled=bracketed(en) if en else None, defrag=bracketed(df) if df else None)
    if en is None:
        h.note_missing("host.thp.enabled", t.why("/sys/kernel/mm/transparent_hugepage/enabled",
                       "not present (kernel built without transparent huge pages)"))


def _open_files(t: RawTree, h: HostFacts) -> None:
    info = t.raw.get("mysqld") or {}
    pid = info.get("pid")
    if not pid:
        h.note_missing("host.mysqld_open_files_limit", f"the server process was not found: {info.get('how') or 'not searched'}")
        return
    text = t.text(f"/proc/{pid}/limits")
    if text is None:
        h.note_missing("host.mysqld_open_files_limit", t.why(f"/proc/{pid}/limits"))
        return
    soft = parse_limits(text).get("Max open files", (None, None))[0]
    if soft is None:
        h.note_missing("host.mysqld_open_files_limit", f"/proc/{pid}/limits has no 'Max open files' line")
    elif soft == "unlimited":
        h.mysqld_open_files_limit = None
        h.note_missing("host.mysqld_open_files_limit", "the server's open files limit is unlimited")
    elif whole(soft) is not None:
        h.mysqld_open_files_limit = whole(soft)


def _note_storage_missing(h: HostFacts, t: RawTree, st: Storage, prefix: str) -> None:
    if not st.devices:
        h.note_missing(f"{prefix}.devices", st.class_reason or "no physical device was resolved")
    for d in st.devices:
        base = f"/sys/class/block/{d.name}"
        if d.model is None:
            why = t.why(base + "/device/model")
            if d.transport in ("virtio_blk", "xen_blkfront", "vbd"):
                why = f"{d.transport} disks have no model string in sysfs ({why})"
            h.note_missing(f"{prefix}.devices.{d.name}.model", why)
        for attr, path in (("rotational", "queue/rotational"), ("write_cache", "queue/write_cache"),
                           ("scheduler", "queue/scheduler")):
            if getattr(d, attr) is None:
                h.note_missing(f"{prefix}.devices.{d.name}.{attr}", t.why(f"{base}/{path}"))


# ---------------------------------------------------------------------- storage

@dataclass(frozen=True)
class Mount:
    """One line of /proc/self/mountinfo: where a filesystem is mounted, its type and device."""

    mount_point: str
    fstype: str
    source: str
    major: str
    minor: str
    options: list[str]


def find_mount(mountinfo: str, path: str, dev: Optional[str] = None) -> Optional[Mount]:
    """The mount holding `path`: the longest mount point that is a prefix of the path (the last such
    mount when several are stacked), preferring mounts of the path's own device number when known."""
    best: Optional[Mount] = None
    best_len = -1
    best_dev = False
    path = posixpath.normpath(path) if path else "/"
    for m in parse_mountinfo_lines(mountinfo):
        mp = m["mount_point"].rstrip("/") or "/"
        if not (path == mp or path.startswith(mp + "/") or mp == "/"):
            continue
        same_dev = dev is not None and f"{m['major']}:{m['minor']}" == dev
        ln = len(mp) if mp != "/" else 0
        opts = m["options"].split(",")
        opts += [o for o in m["super_options"].split(",") if o and o not in opts]
        cand = Mount(m["mount_point"], m["fstype"], m["source"], m["major"], m["minor"], opts)
        if (same_dev, ln) >= (best_dev, best_len):
            best, best_len, best_dev = cand, ln, same_dev
    return best


NETWORK_FS = ("nfs", "nfs4", "cifs", "smb3", "glusterfs", "ceph", "fuse.sshfs", "9p", "virtiofs")


def resolve_storage(t: RawTree, path: str, role: str, models: Any) -> Storage:
    """Storage behind a server directory: mount, filesystem, and the block device stack down to the
    physical devices, each classified (advisor.collect.storage)."""
    from advisor.collect.storage import classify_device, combine_classes

    st = Storage.model_construct(path=path, role=role)
    info = t.paths.get(path) or {}
    real = info.get("realpath") or path
    mi = t.text("/proc/self/mountinfo")
    pid = (t.raw.get("mysqld") or {}).get("pid")
    if info.get("exists") is False and pid and t.text(f"/proc/{pid}/mountinfo"):
        # the datadir is not visible here (e.g. mysqld in a container): use the server's mount namespace
        mi = t.text(f"/proc/{pid}/mountinfo")
        st.stack.append(f"{path} resolved in the server process's mount namespace (/proc/{pid}/mountinfo)")
    if mi is None:
        st.class_reason = t.why("/proc/self/mountinfo")
        return st
    mount = find_mount(mi, real, info.get("dev"))
    if mount is None:
        st.class_reason = f"no mount in /proc/self/mountinfo holds {real}"
        return st
    st.mount_point, st.fstype, st.source, st.mount_options = mount.mount_point, mount.fstype, mount.source, mount.options
    if real != path:
        st.stack.append(f"{path} -> {real} (symlink)")
    name = None
    if mount.major != "0":
        target = t.link(f"/sys/dev/block/{mount.major}:{mount.minor}")
        if target:
            name = target.rstrip("/").split("/")[-1]
        else:
            st.class_reason = (f"{mount.source} ({mount.major}:{mount.minor}) is not in /sys/dev/block "
                               "(is /sys from another machine or namespace?)")
            return st
    elif mount.source.startswith("/dev/"):
        target = t.link(mount.source)
        name = (target or mount.source).rstrip("/").split("/")[-1]
        if t.link(f"/sys/class/block/{name}") is None:
            st.class_reason = f"{mount.source} ({mount.fstype}) could not be matched to a block device in /sys"
            return st
    else:
        kind = "a network filesystem" if mount.fstype in NETWORK_FS else "not backed by a local block device"
        st.class_reason = f"{real} is on {mount.fstype} from {mount.source!r}, {kind}; the device behind it is not visible here"
        return st

    devices: list[BlockDevice] = []
    _walk(t, name, st.stack, devices, 0)
    for d in devices:
        cls, reason = classify_device(d, models)
        d.device_class, d.class_reason = cls, reason  # type: ignore[assignment]
    st.devices = devices
    if devices:
        st.device_class, st.class_reason = combine_classes(devices)  # type: ignore[assignment]
    else:
        st.class_reason = f"no physical device found below {name}"
    return st


def _walk(t: RawTree, name: str, stack: list[str], out: list[BlockDevice], depth: int) -> None:
    base = f"/sys/class/block/{name}"
    target = t.link(base)
    if depth > 8:
        stack.append(f"{name} (stack deeper than 8 levels; not followed)")
        return
    if target is None:
        stack.append(f"{name} (not in /sys/class/block)")
        return
    if t.value(base + "/partition") is not None:
        parts = target.rstrip("/").split("/")
        if len(parts) < 2 or not parts[-2]:
            stack.append(f"{name} (a partition whose /sys link {target!r} names no parent device)")
            return
        parent = parts[-2]
        stack.append(f"{name} (partition {t.value(base + '/partition')} of {parent})")
        _walk(t, parent, stack, out, depth + 1)
        return
    slaves = t.ls(base + "/slaves") or []
    if slaves:
        stack.append(f"{name} ({_virtual_kind(t, name)} over {', '.join(slaves)})")
        for s in slaves:
            _walk(t, s, stack, out, depth + 1)
        return
    stack.append(name)
    out.append(block_device(t, name))


def _virtual_kind(t: RawTree, name: str) -> str:
    base = f"/sys/class/block/{name}"
    level = t.value(base + "/md/level")
    if level:
        return f"md {level}"
    uuid = t.value(base + "/dm/uuid") or ""
    dm_name = t.value(base + "/dm/name")
    if uuid.startswith("LVM-"):
        return f"LVM volume {dm_name}" if dm_name else "LVM volume"
    if uuid.startswith("CRYPT-"):
        return f"dm-crypt {dm_name}" if dm_name else "dm-crypt"
    if uuid.startswith("mpath-"):
        return f"multipath {dm_name}" if dm_name else "multipath"
    if dm_name:
        return f"device-mapper {dm_name}"
    return "stacked device"


KIND_PREFIXES = (("nvme", "nvme"), ("xvd", "xvd"), ("vd", "vd"), ("sd", "sd"), ("hd", "hd"), ("mmcblk", "mmc"),
                 ("loop", "loop"), ("dm-", "dm"), ("md", "md"), ("zram", "zram"), ("nbd", "nbd"), ("rbd", "rbd"),
                 ("pmem", "pmem"), ("sr", "sr"))


def device_kind(name: str) -> Optional[str]:
    for prefix, kind in KIND_PREFIXES:
        if name.startswith(prefix):
            return kind
    return None


def block_device(t: RawTree, name: str) -> BlockDevice:
    base = f"/sys/class/block/{name}"
    kind = device_kind(name)
    size = t.int(base + "/size")
    rot = t.value(base + "/queue/rotational")
    wc = t.value(base + "/queue/write_cache")
    sched = t.value(base + "/queue/scheduler")
    model = t.value(base + "/device/model") or None
    vendor = t.value(base + "/device/vendor") or None
    driver = t.link(base + "/device/driver")
    driver = driver.rstrip("/").split("/")[-1] if driver else None
    transport = t.value(base + "/device/transport") or None
    if transport is None and driver:
        transport = driver
    d = BlockDevice.model_construct(
        name=name, kind=kind, model=model, vendor=vendor,
        size_bytes=size * 512 if size is not None else None,
        rotational=(rot == "1") if rot in ("0", "1") else None,
        write_cache=wc if wc in ("write back", "write through") else None,  # type: ignore[arg-type]
        scheduler=bracketed(sched) if sched else None,
        nvme_vwc=(wc == "write back") if kind == "nvme" and wc in ("write back", "write through") else None,
        transport=transport,
    )
    return d
