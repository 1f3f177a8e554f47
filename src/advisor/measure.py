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
        return {"p50": None, "p99": None, "p25": None, "p75": None, "samples": 0, "min": None, "max": None, "mean": None,
                "histogram": None}

    def r(x: Optional[float]) -> Optional[float]:
        return None if x is None else round(x, digits)
    return {"p50": r(percentile(values_ms, 50)), "p99": r(percentile(values_ms, 99)),
            "p25": r(percentile(values_ms, 25)), "p75": r(percentile(values_ms, 75)), "samples": len(values_ms),
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



# ---------------------------------------------------------------- spread (STYLE 23)

def histogram_quantile(hist: Any, q: float) -> Optional[float]:
    """The q-quantile (0..1) of a recorded log-bucket histogram (log-interpolated inside a bin), or None."""
    bins = getattr(hist, "bins", None) if hist is not None else None
    if not bins:
        return None
    total = sum(b.count for b in bins)
    target, seen = q * total, 0
    for b in bins:
        if seen + b.count >= target:
            frac = (target - seen) / b.count if b.count else 0.0
            return float(b.lo * (b.hi / b.lo) ** frac) if b.lo > 0 else float(b.lo + (b.hi - b.lo) * frac)
        seen += b.count
    return float(bins[-1].hi)


def middle_half(dist: Any) -> Optional[tuple[float, float]]:
    """The 25th-75th percentile range of a recorded distribution (its p25/p75, else its histogram's),
    or None when neither was recorded (a single figure, a hand-written example)."""
    if dist is None:
        return None
    lo, hi = getattr(dist, "p25", None), getattr(dist, "p75", None)
    if lo is None or hi is None:
        h = getattr(dist, "histogram", None)
        lo, hi = histogram_quantile(h, 0.25), histogram_quantile(h, 0.75)
    if lo is None or hi is None:
        return None
    return float(lo), float(hi)


# figures that are one number per probe, with their spread recorded beside them: path -> (low, high) fields
FIGURE_SPREADS = {
    "sort_probe.ratio": ("sort_probe", "ratio_p25", "ratio_p75"),
    "tls.query_ratio": ("tls", "query_ratio_p25", "query_ratio_p75"),
}


def calibration_spread(cal: Any, path: str) -> Optional[tuple[float, float]]:
    """The spread of a calibration figure (`path` below calibration., e.g. 'fsync_ms.p50'): the middle
    half of the samples for a distribution's median, the per-round ratios' middle half for the
    ratios; None when none was recorded."""
    if cal is None:
        return None
    if path in FIGURE_SPREADS:
        obj, lo_f, hi_f = FIGURE_SPREADS[path]
        o = getattr(cal, obj, None)
        lo, hi = getattr(o, lo_f, None), getattr(o, hi_f, None)
        return None if lo is None or hi is None else (float(lo), float(hi))
    name, _, field = path.partition(".")
    if field != "p50":
        return None
    return middle_half(getattr(cal, name, None))


def spans(lo: float, hi: float, threshold: float) -> bool:
    """Whether a measurement's middle half reaches both sides of a threshold."""
    return lo < threshold <= hi
