"""Parsers of the /proc files `advisor watch` samples, and of `tc -j qdisc show`. Pure.

Formats as proc(5) and the kernel's Documentation/admin-guide/iostats.rst describe them:
  /proc/stat         `cpu  user nice system idle iowait irq softirq steal guest guest_nice` in clock
                     ticks (USER_HZ), one `cpuN` line per CPU; `ctxt`, `procs_running`.
  /proc/PID/stat     pid (comm) state ppid ... minflt(10) cminflt majflt(12) cmajflt utime(14)
                     stime(15) cutime cstime ... num_threads(20) ... starttime(22); comm may hold
                     spaces and parentheses, so fields are counted after the last ')'.
  /proc/diskstats    major minor name + 11 fields (before 4.18), 15 (4.18: discards) or 17 (5.5:
                     flushes); sectors are always 512 bytes.
  /proc/net/dev      `iface: rx bytes packets errs drop fifo frame compressed multicast tx bytes
                     packets errs drop fifo colls carrier compressed`.
Every parser skips lines it cannot read instead of failing: a sample with a strange line still
yields the rest.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Optional

SECTOR_BYTES = 512


# ---------------------------------------------------------------------- /proc/stat

@dataclass(frozen=True)
class CpuTicks:
    """Cumulative clock ticks of one CPU line (guest time is already inside user and nice)."""

    user: int
    nice: int
    system: int
    idle: int
    iowait: int
    irq: int
    softirq: int
    steal: int

    @property
    def total(self) -> int:
        return self.user + self.nice + self.system + self.idle + self.iowait + self.irq + self.softirq + self.steal


@dataclass(frozen=True)
class ProcStat:
    total: Optional[CpuTicks]
    cpus: dict[int, CpuTicks]
    ctxt: Optional[int]
    procs_running: Optional[int]


def parse_proc_stat(text: str) -> ProcStat:
    total: Optional[CpuTicks] = None
    cpus: dict[int, CpuTicks] = {}
    ctxt = running = None
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        key = parts[0]
        if key.startswith("cpu"):
            nums = [int(x) for x in parts[1:9] if x.isdigit()]
            if len(nums) < 4:
                continue
            nums += [0] * (8 - len(nums))  # kernels before 2.6.11 have fewer columns
            ticks = CpuTicks(*nums[:8])
            if key == "cpu":
                total = ticks
            elif key[3:].isdigit():
                cpus[int(key[3:])] = ticks
        elif key == "ctxt" and len(parts) > 1 and parts[1].isdigit():
            ctxt = int(parts[1])
        elif key == "procs_running" and len(parts) > 1 and parts[1].isdigit():
            running = int(parts[1])
    return ProcStat(total, cpus, ctxt, running)


# ---------------------------------------------------------------------- /proc/PID/stat

@dataclass(frozen=True)
class PidStat:
    pid: int
    comm: str
    state: str
    ppid: int
    minflt: int
    majflt: int
    utime: int
    stime: int
    cutime: int
    cstime: int
    num_threads: int
    starttime: int


def parse_pid_stat(text: str) -> Optional[PidStat]:
    """None when the text is not a /proc/PID/stat line (the process exited mid-read, say)."""
    text = text.strip()
    open_, close = text.find("("), text.rfind(")")
    if open_ < 0 or close < open_:
        return None
    head = text[:open_].strip()
    rest = text[close + 1:].split()
    if not head.isdigit() or len(rest) < 20:
        return None
    try:
        f = [int(x) if i > 0 else 0 for i, x in enumerate(rest[:20])]
    except ValueError:
        return None
    # rest[0] is field 3 (state); field n is rest[n - 3]
    return PidStat(pid=int(head), comm=text[open_ + 1:close], state=rest[0], ppid=f[1], minflt=f[7], majflt=f[9],
                   utime=f[11], stime=f[12], cutime=f[13], cstime=f[14], num_threads=f[17], starttime=f[19])


def parse_cpu_list(text: str) -> Optional[list[int]]:
    """'0-3,8-11' -> [0, 1, 2, 3, 8, 9, 10, 11] (kernel cpulist format); None if malformed."""
    out: list[int] = []
    text = text.strip()
    if not text:
        return []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)(?:-(\d+))?\s*", part)
        if m is None:
            return None
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        out.extend(range(lo, hi + 1))
    return sorted(set(out))


def parse_status_cpus_allowed(text: str) -> Optional[list[int]]:
    """Cpus_allowed_list of /proc/PID/status: the CPUs the process may run on (its affinity mask)."""
    m = re.search(r"^Cpus_allowed_list:\s*(\S+)\s*$", text, re.M)
    return parse_cpu_list(m.group(1)) if m else None


def parse_cpu_quota(cpu_max: Optional[str] = None, cfs_quota_us: Optional[str] = None,
                    cfs_period_us: Optional[str] = None) -> Optional[float]:
    """CPUs' worth of time a cgroup may use: cgroup v2 `cpu.max` ('max 100000' or '150000 100000'),
    or v1 cpu.cfs_quota_us / cpu.cfs_period_us (-1 = no quota). None when there is no quota."""
    if cpu_max is not None:
        parts = cpu_max.split()
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit() and int(parts[1]) > 0:
            return int(parts[0]) / int(parts[1])
        return None
    if cfs_quota_us is not None and cfs_period_us is not None:
        q, p = cfs_quota_us.strip(), cfs_period_us.strip()
        if q.lstrip("-").isdigit() and p.isdigit() and int(q) > 0 and int(p) > 0:
            return int(q) / int(p)
    return None


# ---------------------------------------------------------------------- /proc/diskstats

@dataclass(frozen=True)
class DiskCounters:
    name: str
    reads: int
    read_sectors: int
    read_ms: int
    writes: int
    write_sectors: int
    write_ms: int
    in_flight: int
    io_ms: int
    weighted_ms: int
    flushes: Optional[int] = None     # kernel 5.5+
    flush_ms: Optional[int] = None


def parse_diskstats(text: str) -> dict[str, DiskCounters]:
    out: dict[str, DiskCounters] = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) < 14 or not all(x.isdigit() for x in p[3:14]):
            continue
        n = [int(x) for x in p[3:]]
        flushes = flush_ms = None
        if len(n) >= 17:
            flushes, flush_ms = n[15], n[16]
        out[p[2]] = DiskCounters(name=p[2], reads=n[0], read_sectors=n[2], read_ms=n[3], writes=n[4],
                                 write_sectors=n[6], write_ms=n[7], in_flight=n[8], io_ms=n[9], weighted_ms=n[10],
                                 flushes=flushes, flush_ms=flush_ms)
    return out


# ---------------------------------------------------------------------- /proc/net/dev

@dataclass(frozen=True)
class NetCounters:
    name: str
    rx_bytes: int
    rx_packets: int
    tx_bytes: int
    tx_packets: int
    rx_drops: int = 0
    tx_drops: int = 0


def parse_net_dev(text: str) -> dict[str, NetCounters]:
    out: dict[str, NetCounters] = {}
    for line in text.splitlines():
        name, sep, rest = line.partition(":")
        if not sep or "|" in line:
            continue
        f = rest.split()
        if len(f) < 16 or not all(x.isdigit() for x in f[:16]):
            continue
        n = [int(x) for x in f[:16]]
        out[name.strip()] = NetCounters(name=name.strip(), rx_bytes=n[0], rx_packets=n[1], tx_bytes=n[8],
                                        tx_packets=n[9], rx_drops=n[3], tx_drops=n[11])
    return out


# ---------------------------------------------------------------------- tc qdiscs

@dataclass(frozen=True)
class Shaper:
    """A rate limit on an interface's egress: a tbf qdisc's rate (tc reports bytes per second)."""

    interface: str
    kind: str
    rate_bits_per_s: int
    handle: Optional[str] = None


def parse_tc_qdiscs(text: str) -> list[Shaper]:
    """`tc -j qdisc show [dev IF]` -> the rate-limiting qdiscs (tbf) it lists. A qdisc without a
    rate (fq_codel, noqueue, netem) limits no bandwidth and is left out."""
    try:
        data = json.loads(text or "[]")
    except json.JSONDecodeError:
        return []
    out: list[Shaper] = []
    for q in data if isinstance(data, list) else []:
        if not isinstance(q, dict) or q.get("kind") != "tbf":
            continue
        rate = (q.get("options") or {}).get("rate")
        if isinstance(rate, (int, float)) and rate > 0:
            out.append(Shaper(interface=str(q.get("dev") or ""), kind="tbf", rate_bits_per_s=int(rate * 8),
                              handle=q.get("handle")))
    return out


def parse_schedstat(text: str) -> Optional[int]:
    """Nanoseconds a thread waited on a run queue (the second field of /proc/PID/task/TID/schedstat:
    time on the CPU, time runnable but waiting for one, timeslices run); None when unreadable."""
    parts = (text or "").split()
    if len(parts) < 2 or not parts[1].isdigit():
        return None
    return int(parts[1])
