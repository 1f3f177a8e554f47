"""Statistics and classifications of measurements, shared by the calibration probes (which record
them into the snapshot) and the rules (which judge them). Pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

CPU_BOUND_FRACTION = 0.85  # client process CPU / wall time at or above which the client is the limit
# Ethernet: 1460 bytes of TCP payload per 1538 bytes on the wire (preamble 8 + frame 1518 + gap 12).
TCP_PAYLOAD_PER_WIRE = 1460 / 1538


# ---------------------------------------------------------------- statistics

def percentile(values: Sequence[float], q: float) -> Optional[float]:
    """The q-th percentile (0..100) by linear interpolation between closest ranks; None if empty."""
    if not values:
        return None
    s = sorted(values)
    if len(s) == 1:
        return float(s[0])
    pos = (len(s) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return float(s[lo] + (s[hi] - s[lo]) * (pos - lo))


def distribution(values_ms: Sequence[float], digits: int = 4) -> dict[str, Any]:
    """p50, p99, samples, min, max, mean and the log-bucket histogram of latencies in milliseconds
    (for snapshot.Distribution)."""
    from advisor.histogram import log_histogram

    if not values_ms:
        return {"p50": None, "p99": None, "samples": 0, "min": None, "max": None, "mean": None, "histogram": None}

    def r(x: Optional[float]) -> Optional[float]:
        return None if x is None else round(x, digits)
    return {"p50": r(percentile(values_ms, 50)), "p99": r(percentile(values_ms, 99)), "samples": len(values_ms),
            "min": r(min(values_ms)), "max": r(max(values_ms)), "mean": r(sum(values_ms) / len(values_ms)),
            "histogram": log_histogram(values_ms)}


def median(values: Sequence[float]) -> Optional[float]:
    return percentile(values, 50)


# ---------------------------------------------------------------- network arithmetic

def payload_ceiling_bytes_per_s(link_mbps: float) -> float:
    """Most TCP payload bytes per second a link of `link_mbps` Mb/s carries per direction:
    Mb/s x 1e6/8 x 1460/1538 (KNOWLEDGE.md section 6). 1000 Mb/s -> 118.7 MB/s."""
    return link_mbps * 1e6 / 8 * TCP_PAYLOAD_PER_WIRE


def payload_ceiling_mbytes_per_s(link_mbps: float) -> float:
    return payload_ceiling_bytes_per_s(link_mbps) / 1e6


def cpu_bound(cpu_seconds: float, wall_seconds: float, threshold: float = CPU_BOUND_FRACTION) -> tuple[Optional[float], Optional[bool]]:
    """(client CPU fraction, CPU-bound?) from process CPU time and wall time over the same interval."""
    if wall_seconds <= 0:
        return None, None
    frac = cpu_seconds / wall_seconds
    return round(frac, 3), frac >= threshold



# ---------------------------------------------------------------- flush classes

PLP_LIKE_BELOW_MS = 0.25


def flush_class(p50_ms: Optional[float], fstype: Optional[str]) -> tuple[Optional[str], str]:
    """Classify flush behaviour from the median fdatasync of a 16 KiB write (KNOWLEDGE.md section 5):
    drives with power-loss protection acknowledge in tens of microseconds (12-58 us published), client
    NVMe without it in 0.5-1 ms, rotational or networked storage in several. The first boundary sits
    in the gap between those populations (0.25 ms), not next to either, so that run-to-run noise of a
    real device does not flip its class (a virtual disk here measured 0.03-0.15 ms on different days);
    the second is the 0.5 ms at which flush-slow-durable-commits fires."""
    if fstype in ("tmpfs", "ramfs"):
        return "memory", f"{fstype} keeps files in memory; fdatasync flushes nothing"
    if p50_ms is None:
        return None, "no flush was measured"
    if p50_ms < PLP_LIKE_BELOW_MS:
        return "plp_like", (f"median {p50_ms:.3f} ms: flushes are acknowledged from a protected (or ignored) cache, "
                            "as datacenter drives with power-loss protection do")
    if p50_ms < 0.5:
        return "intermediate", f"median {p50_ms:.2f} ms: between protected-cache and client-drive flush times"
    if p50_ms < 3.0:
        return "client_nvme_like", (f"median {p50_ms:.2f} ms: each flush empties a volatile write cache, "
                                    "as client drives without power-loss protection do (about 1 ms)")
    return "slow", f"median {p50_ms:.1f} ms: rotational, networked or throttled storage"
