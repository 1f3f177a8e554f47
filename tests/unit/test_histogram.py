"""Log-bucket histograms: counts add up, edges are exact powers of ten, quantiles stay within a bucket."""

import math
import random

import pytest

from advisor.histogram import bucket_index, edge, log_histogram, quantile, total


def test_edges_are_powers_of_ten_and_an_edge_opens_its_own_bucket():
    assert bucket_index(1.0) == 0 and bucket_index(10.0) == 20 and bucket_index(0.1) == -20
    for k in range(-60, 60):
        assert bucket_index(edge(k)) == k, k
        assert bucket_index(edge(k) * 0.999999) == k - 1, k


def test_counts_add_up_bins_ascend_and_hold_their_values():
    rnd = random.Random(7)
    values = [rnd.lognormvariate(-2.5, 0.6) for _ in range(5000)]
    h = log_histogram(values)
    assert h["unit"] == "ms" and h["scale"] == "log10" and h["buckets_per_decade"] == 20
    assert total(h) == 5000
    los = [b["lo"] for b in h["bins"]]
    assert los == sorted(los) and len(set(los)) == len(los)
    assert all(b["count"] > 0 and b["hi"] > b["lo"] for b in h["bins"])
    for b in h["bins"]:  # every bin holds exactly the values between its (rounded) edges
        inside = sum(1 for v in values if b["lo"] * (1 - 1e-3) <= v < b["hi"] * (1 + 1e-3))
        assert inside >= b["count"]


@pytest.mark.parametrize("q", [50, 90, 99])
def test_quantile_within_one_bucket_of_exact(q):
    rnd = random.Random(q)
    values = sorted(rnd.lognormvariate(0, 1) for _ in range(4000))
    exact = values[int(q / 100 * (len(values) - 1))]
    est = quantile(log_histogram(values), q)
    assert est is not None and abs(math.log10(est / exact)) <= 1 / 20 + 1e-9


def test_zero_and_empty():
    h = log_histogram([0.0, 0.0, 0.5])
    assert h["bins"][0]["lo"] == 0.0 and h["bins"][0]["count"] == 2 and total(h) == 3
    assert h["bins"][0]["hi"] == h["bins"][1]["lo"]
    assert log_histogram([])["bins"] == [] and quantile(log_histogram([]), 50) is None
