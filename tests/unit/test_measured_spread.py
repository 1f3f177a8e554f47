"""A measurement carries its spread (issue 25 item 10, STYLE 23): each calibration probe records the
middle half of its samples (p25-p75; the per-round ratios' for the sort and TLS A/B), and a verdict or
rule whose threshold lies inside that middle half is uncertain, with the numbers, never a finding or a
pass drawn from noise.

The fixture is one real calibration (tests/fixtures/calibration/PROVENANCE.md) of a throwaway MariaDB on
this project's test machine: the round trip sits far below its thresholds (middle half 0.032-0.042 ms
against 0.5 ms), the flush far above 0.5 ms (0.61-5.06 ms) while spanning the 3 ms class boundary, and
the sort A/B ratio's middle half (0.85-1.31) spans the 1.2 at which the server's sort buffer counts as
slower."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor import api
from advisor.knowledge import default_catalogue
from advisor.rules.calibration import verdicts_of
from advisor.rules.engine import UNCERTAIN, eval_condition, fact_view
from advisor.rules.schema import parse_condition
from advisor.snapshot import load_snapshot

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "calibration" / "mariadb-10.11-disk-spread.snapshot.json"


@pytest.fixture(scope="module")
def snap():
    return load_snapshot(FIXTURE.read_text())


def test_each_probe_recorded_its_spread(snap):
    cal = snap.calibration
    for d in (cal.rtt_ms, cal.fsync_ms, cal.commit_ms):
        assert d.p25 is not None and d.p75 is not None and d.p25 <= d.p50 <= d.p75
    sp = cal.sort_probe
    assert sp.ratio_p25 is not None and sp.ratio_p25 <= sp.ratio <= sp.ratio_p75


def _leaf(snap, fact: str, op: str, value: float):
    view = fact_view(snap, "benchmark", default_catalogue())
    return eval_condition(parse_condition({"fact": fact, "op": op, "value": value}), view)


def test_far_below_far_above_and_spanning_the_threshold(snap):
    below = _leaf(snap, "calibration.rtt_ms.p50", "ge", 0.5)       # 0.032-0.042 ms against 0.5 ms
    above = _leaf(snap, "calibration.fsync_ms.p50", "ge", 0.5)     # 0.61-5.06 ms against 0.5 ms
    across = _leaf(snap, "calibration.fsync_ms.p50", "ge", 3.0)    # 0.61-5.06 ms against 3 ms
    assert below[0] is False and above[0] is True
    assert across[0] is None and across[1].startswith(UNCERTAIN), across
    assert "0.61 ms to 5.06 ms" in across[1] and "3" in across[1], across[1]


def test_calibration_verdicts_say_uncertain_with_the_numbers(snap):
    v = verdicts_of(snap)
    assert v["rtt"].code == "near"                       # far below 0.5 ms
    assert v["flush"].code == "uncertain"                # the middle half spans the 3 ms boundary
    assert "2.24 ms" in v["flush"].why and "0.611 ms" in v["flush"].why and "5.06 ms" in v["flush"].why
    assert "3 ms boundary" in v["flush"].why
    assert v["sort"].code == "uncertain"                 # 0.85-1.31 spans 1.2
    assert "0.85" in v["sort"].why and "1.31" in v["sort"].why and "1.20" in v["sort"].why


def test_rules_on_the_recorded_calibration(snap):
    report = api.audit(snap, purpose="benchmark", source="snapshot")
    out = {o.rule: o for o in report.outcomes}
    # far above 0.5 ms: a finding
    assert out["flush-slow-durable-commits"].status == "fired"
    # far below 2 ms: a pass
    assert out["network-round-trip-long"].status == "passed"
    # 32M fires on the setting alone; the measured-slower wording needs a ratio whose middle half is past 1.2
    sort = out["sort-buffer-oversized"]
    assert sort.status == "fired" and "calibration" not in sort.finding.message, sort
    assert out["sort-buffer-measured-slower"].status == "passed"  # it judges only values below 32M


def test_a_rule_on_a_measurement_spanning_its_threshold_is_unknown_uncertain(snap):
    """The sort A/B of the fixture (ratio 0.98, middle half 0.85-1.31) on a server whose value is below 32M:
    sort-buffer-measured-slower can neither fire nor pass."""
    below = snap.model_copy(deep=True)
    below.server.variables["sort_buffer_size"] = str(16 << 20)
    below.calibration.sort_probe.server_value = 16 << 20
    out = {o.rule: o for o in api.audit(below, purpose="benchmark", source="snapshot").outcomes}
    sort = out["sort-buffer-measured-slower"]
    assert sort.status == "unknown" and sort.reason.startswith(UNCERTAIN), sort
    assert "0.85 to 1.31" in sort.reason and "1.2" in sort.reason, sort.reason


def test_without_a_recorded_spread_the_figure_decides(snap):
    bare = snap.model_copy(deep=True)
    bare.calibration.fsync_ms.p25 = bare.calibration.fsync_ms.p75 = None
    bare.calibration.fsync_ms.histogram = None
    assert _leaf(bare, "calibration.fsync_ms.p50", "ge", 3.0)[0] is False


def test_an_older_snapshot_has_its_spread_from_the_histogram(snap):
    old = snap.model_copy(deep=True)
    old.calibration.fsync_ms.p25 = old.calibration.fsync_ms.p75 = None  # written before p25/p75 existed
    r = _leaf(old, "calibration.fsync_ms.p50", "ge", 3.0)
    assert r[0] is None and r[1].startswith(UNCERTAIN)


def test_derived_facts_from_a_measurement_carry_its_spread():
    from tests.support.facts import view

    tls = {"available": True, "query_ms": {"on": 0.021, "off": 0.02}, "query_ratio": 1.04, "query_ratio_p25": 0.97,
           "query_ratio_p75": 1.12, "throughput_ratio": 0.99}
    v = view({"calibration": {"mode": "full", "tls": tls}}, purpose="benchmark")
    assert v.spread("derived.tls_query_latency_ratio") == (0.97, 1.12)
    r = eval_condition(parse_condition({"fact": "derived.tls_query_latency_ratio", "op": "ge", "value": 1.05}), v)
    assert r[0] is None and r[1].startswith(UNCERTAIN) and "0.97 to 1.12" in r[1], r
    # a reciprocal maps the ends across: 1000 / p75 .. 1000 / p25
    f = view({"calibration": {"mode": "full", "fsync_ms": {"p50": 2.0, "p25": 1.0, "p75": 4.0, "samples": 9}}})
    assert f.spread("derived.flush_bound_commits_per_s") == (250.0, 1000.0)


def test_the_tls_verdict_is_uncertain_when_the_ratio_spans_and_the_stream_shows_nothing():
    from advisor.rules.calibration import tls_verdict
    from advisor.snapshot import TlsProbe

    spanning = TlsProbe(available=True, query_ms={"on": 0.021, "off": 0.02}, query_ratio=1.04, query_ratio_p25=0.97,
                        query_ratio_p75=1.12, throughput_ratio=0.99)
    v = tls_verdict(spanning)
    assert v.code == "uncertain" and "0.97 to 1.12" in v.why and "1.05" in v.why, v
    # a stream cost decides on its own: the small-query spread does not matter then
    streaming = spanning.model_copy(update={"throughput_ratio": 0.8})
    assert tls_verdict(streaming).code == "measurable_cost"
