"""Log-bucket histograms of latencies: what calibration keeps of its samples, so that any tool can
plot a distribution from the JSON without the raw samples. Pure.

Bucket k holds the values v with 10^(k/n) <= v < 10^((k+1)/n), n buckets per decade (20 by
default: each bucket is 12.2 % wider than the one below, finer than the spread of repeated runs on
a quiet machine). Only non-empty buckets are kept, in ascending order; their counts add up to the
number of samples. Values at or below zero (a clock that did not advance) are counted in a first
bucket whose lower edge is 0.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Iterable, Sequence

BUCKETS_PER_DECADE = 20
_EDGE_DIGITS = 4  # significant digits of the bucket edges written to JSON


def bucket_index(value: float, per_decade: int = BUCKETS_PER_DECADE) -> int | None:
    """The bucket of a positive value; None for values at or below zero."""
    if value <= 0 or not math.isfinite(value):
        return None
    k = math.floor(math.log10(value) * per_decade)
    # log10 of an exact edge can land a hair below the integer: keep edges in their own bucket
    if value >= edge(k + 1, per_decade):
        k += 1
    return k


def edge(k: int, per_decade: int = BUCKETS_PER_DECADE) -> float:
    """The lower edge of bucket k (exact, not rounded)."""
    return 10.0 ** (k / per_decade)


def _round(x: float) -> float:
    if x == 0:
        return 0.0
    return round(x, _EDGE_DIGITS - 1 - math.floor(math.log10(abs(x))))


def log_histogram(values: Iterable[float], unit: str = "ms", per_decade: int = BUCKETS_PER_DECADE) -> dict[str, Any]:
    """{"unit", "scale": "log10", "buckets_per_decade", "bins": [{"lo", "hi", "count"}, ...]} of `values`."""
    counts: Counter[int | None] = Counter(bucket_index(v, per_decade) for v in values)
    bins: list[dict[str, Any]] = []
    zero = counts.pop(None, 0)
    keys = sorted(k for k in counts if k is not None)
    if zero:
        hi = edge(keys[0], per_decade) if keys else 1e-6
        bins.append({"lo": 0.0, "hi": _round(hi), "count": zero})
    for k in keys:
        bins.append({"lo": _round(edge(k, per_decade)), "hi": _round(edge(k + 1, per_decade)), "count": counts[k]})
    return {"unit": unit, "scale": "log10", "buckets_per_decade": per_decade, "bins": bins}


def total(hist: dict[str, Any]) -> int:
    return sum(int(b["count"]) for b in hist.get("bins", ()))


def quantile(hist: dict[str, Any], q: float) -> float | None:
    """The q-th percentile (0..100) estimated from the bins (geometric interpolation inside a bin);
    within one bucket width (12 % at 20 per decade) of the exact value."""
    bins: Sequence[dict[str, Any]] = hist.get("bins", ())
    n = total(hist)
    if n == 0:
        return None
    rank = q / 100.0 * n
    seen = 0
    for b in bins:
        c = int(b["count"])
        if seen + c >= rank and c:
            frac = (rank - seen) / c
            lo, hi = float(b["lo"]), float(b["hi"])
            if lo <= 0:
                return hi * frac
            return lo * (hi / lo) ** frac
        seen += c
    return float(bins[-1]["hi"])
