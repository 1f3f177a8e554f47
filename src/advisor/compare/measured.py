"""Calibration figures side by side, with their spread: round trips, the result stream, flush and
commit latency, the cost of TLS. A difference between two measurements counts only when it is larger
than what each measurement scatters by: for distributions, the middle halves (the 25th to the 75th
percentile, read from the recorded histogram) do not overlap and the medians differ by more than a
fifth; for single figures (MB/s, ratios), a relative gap larger than the figure's tolerance. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from advisor.measure import histogram_quantile
from advisor.snapshot import Distribution


@dataclass(frozen=True)
class Measure:
    id: str          # fact path under calibration
    title: str
    aspects: tuple[str, ...]
    weight: int
    why: str
    fix: str
    kind: str        # "distribution" or "figure"
    unit: str = "ms"
    tolerance: float = 0.15   # figures: relative gap below this is noise


MEASURES: tuple[Measure, ...] = (
    Measure("calibration.fsync_ms", "flush latency (fsync of 16 KiB)", ("host", "storage"), 91,
            "every durable commit waits for at least one flush; its latency caps single-session commits per second",
            "put the datadir on devices with the same flush latency, or say the comparison is about the storage "
            "(--about storage)", "distribution"),
    Measure("calibration.commit_ms", "commit latency", ("host", "storage", "durability"), 89,
            "the measured time of a durable commit is what write benchmarks add up",
            "make the storage and the durability settings the same on every side", "distribution"),
    Measure("calibration.rtt_ms", "round trip to the server", ("network",), 77,
            "each statement of a benchmark costs at least one round trip; a longer one lowers the rate of every "
            "single-threaded client", "run the client at the same network distance from every server", "distribution"),
    Measure("calibration.stream.mbytes_per_s", "result stream rate", ("network",), 74,
            "the stream rate caps any benchmark that moves large result sets (oltp_read_only ranges)",
            "use the same network path and client machine for every side", "figure", unit="MB/s", tolerance=0.25),
    Measure("calibration.tls.query_ratio", "TLS cost per small query (TLS ÷ plain)", ("tls", "host", "cpu"), 65,
            "TLS adds CPU time to each statement; a different cost on each side means TLS weighs differently",
            "run every side with TLS on, or every side with it off, on the same CPU model", "figure", unit="×",
            tolerance=0.10),
    Measure("calibration.tls.throughput_ratio", "TLS throughput (TLS ÷ plain)", ("tls", "host", "cpu"), 60,
            "TLS encryption costs CPU per byte; the cost differs between CPU models and TLS libraries",
            "run every side with TLS on, or every side with it off, on the same CPU model", "figure", unit="×",
            tolerance=0.10),
)


MIN_SAMPLES = 10  # a distribution with fewer samples has no middle half worth comparing


def quantile(d: Distribution, q: float) -> Optional[float]:
    """The q-quantile of a recorded distribution from its histogram (log-interpolated inside a bin),
    or None when it has no histogram (advisor.measure.histogram_quantile)."""
    return histogram_quantile(d.histogram, q)


def middle(d: Distribution) -> Optional[tuple[float, float]]:
    """The 25th–75th percentile range, or (p50, p50) without a histogram."""
    lo, hi = quantile(d, 0.25), quantile(d, 0.75)
    if lo is not None and hi is not None:
        return lo, hi
    return (d.p50, d.p50) if d.p50 is not None else None


def show(m: Measure, value: Any) -> str:
    if isinstance(value, Distribution):
        mid = middle(value)
        spread = f", middle half {_ms(mid[0])}–{_ms(mid[1])}" if mid and value.histogram else ""
        p99 = f", p99 {_ms(value.p99)}" if value.p99 is not None else ""
        return f"p50 {_ms(value.p50)}{spread}{p99} ({value.samples} samples)"
    if isinstance(value, (int, float)):
        return f"{value:,.1f} MB/s" if m.unit == "MB/s" else f"{value:.2f}{m.unit}"
    return str(value)


def _ms(x: Optional[float]) -> str:
    if x is None:
        return "unknown"
    return f"{x * 1000:.0f} µs" if x < 1 else f"{x:.2f} ms"


def differs(m: Measure, values: Sequence[Any]) -> Optional[bool]:
    """True when the figures differ beyond their spread, False when within it, None when they cannot
    be judged (a distribution without a median)."""
    if m.kind == "distribution":
        mids = [middle(v) for v in values]
        p50s = [v.p50 for v in values]
        if any(x is None for x in mids) or any(p is None or p <= 0 for p in p50s):
            return None
        apart = max(lo for lo, _ in mids) > min(hi for _, hi in mids)  # type: ignore[misc]
        return apart and max(p50s) / min(p50s) > 1.2
    nums = [float(v) for v in values]
    lo, hi = min(nums), max(nums)
    if lo <= 0:
        return hi > 0
    return (hi - lo) / lo > m.tolerance
