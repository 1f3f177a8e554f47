"""The HTML view models and template: findings grouped by severity, the charts each report should
have, escaped text, no "None" and nothing that could fetch, StrictUndefined."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

from advisor import api
from advisor.collect import calibrate_stats as cs
from advisor.fleet import FleetResult, FleetTarget
from advisor.histogram import log_histogram
from advisor.render import html
from advisor.rules.engine import Finding, Outcome
from advisor.snapshot import (Calibration, ClientFacts, Distribution, FlushProbe, Histogram, OnOff, OnOffHistogram,
                              Route, StreamProbe, TlsProbe)

ROOT = Path(__file__).resolve().parents[2]
FETCHING = re.compile(r"<script|<link|<img|<iframe|\bsrc=|@import|@font-face|url\(", re.I)


def chart_ids(text: str) -> list[str]:
    return re.findall(r'<figure class="chart" id="chart-[^"]+" data-chart="([^"]+)" data-points="[1-9]', text)


def assert_clean(text: str) -> None:
    assert not FETCHING.search(text), FETCHING.search(text)
    assert "None" not in re.sub(r"<[^>]+>", " ", text)  # no empty interpolation reads as None
    assert "{{" not in text and "{%" not in text


@pytest.fixture(scope="module")
def demo():
    snap = api.demo_snapshot()
    return snap, api.audit(snap, purpose="benchmark", source="the bundled demo snapshot (seed 000)")


def test_demo_audit_page(demo):
    snap, report = demo
    page = html.audit_page(report, snap)
    groups = page.sections[0].groups
    shown = report.finding_groups  # one finding per cause (advisor.rules.groups)
    assert len(shown) < len(report.findings)  # the demo's benchmark audit has cause groups with consequences
    assert [g.severity for g in groups] == [s for s in ("critical", "warning", "info")
                                            if any(fg.severity == s for fg in shown)]
    assert sum(len(g.findings) for g in groups) == len(shown)
    text = html.render_page(page)
    assert_clean(text)
    assert chart_ids(text) == ["memory"]
    for fg in shown:
        assert text.count(f'id="findings-{fg.lead.rule}"') == 1
        for q in fg.consequences:  # the other fired rules of the cause are listed in the lead's article
            assert text.count(f'id="findings-{q.rule}"') == 0 and f"[{q.rule}] ({q.severity})" in text
    assert text.count("Also from the same cause") == sum(1 for fg in shown if fg.consequences)
    # every outcome is a row of the "Every rule" table
    assert text.count('<tr class="st-') == len(report.outcomes)
    sort = next(f for f in report.findings if f.rule == "sort-buffer-oversized")
    assert all(f"{k} = {v}" in text for k, v in sort.recommendation.items())  # the my.cnf block


def test_text_is_escaped():
    f = Finding(rule="x-rule", severity="warning", category="memory", title="<b>bold</b>",
                message="value <script>alert(1)</script> & more", variables=[], evidence={"var.x": "<y>"},
                recommendation={}, references=["https://example.org/?a=1&b=2"])
    report = api.audit(api.demo_snapshot())
    report.outcomes = [Outcome("x-rule", "fired", "because", f)]
    text = html.render_audit(report)
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in text
    assert "&lt;b&gt;bold&lt;/b&gt;" in text and "&lt;y&gt;" in text and 'href="https://example.org/?a=1&amp;b=2"' in text


def test_strict_undefined():
    from advisor.render.templates import environment

    page = SimpleNamespace(title="t", subtitle="s", kind="audit", stats=[], sections=[])  # no footer
    with pytest.raises(jinja2.UndefinedError):
        environment().get_template(html.TEMPLATE).render(page=page, version="0")


def dist(values):
    return Distribution(**cs.distribution(values))


def test_calibration_page_charts_from_the_histograms(demo):
    snap, _ = demo
    rnd = random.Random(1)
    rtt = [rnd.lognormvariate(-3, 0.3) for _ in range(2000)]
    fl = [rnd.lognormvariate(0, 0.2) for _ in range(300)]
    on, off = [rnd.lognormvariate(1.5, 0.1) for _ in range(24)], [rnd.lognormvariate(0.2, 0.1) for _ in range(24)]
    snap = snap.model_copy(deep=True)
    snap.client = ClientFacts(route=Route(destination="10.10.1.12", kind="interface", interface="em3", speed_mbps=1000))
    snap.calibration = Calibration(
        duration_s=9.7, budget_s=10, mode="full", connections_max=2, rtt_ms=dist(rtt), fsync_ms=dist(fl),
        flush=FlushProbe(path="/data", fstype="xfs"),
        stream=StreamProbe(mbytes_per_s=112.0, bytes=10**9, seconds=8.9, chunks=9, tls=False, transport="tcp",
                           server_mbytes_per_s=800.0),
        tls=TlsProbe(available=True, samples=24, handshake_ms=OnOff(on=4.5, off=1.2),
                     stream_mbytes_per_s=OnOff(on=90.0, off=111.0),
                     handshake_histogram=OnOffHistogram(on=Histogram(**log_histogram(on)),
                                                        off=Histogram(**log_histogram(off)))))
    text = html.render_calibration(snap)
    assert_clean(text)
    assert chart_ids(text) == ["rtt", "tls-handshake", "flush", "stream"]
    assert "1,000 Mb/s ceiling 118.7" in text  # the payload ceiling line of the route's link
    assert "2,000 round trips" in text and "300 flushes in /data (xfs)" in text


def test_watch_page_from_a_recorded_series():
    run = json.loads((ROOT / "tests/fixtures/watch/sysbench-veth-100mbit.json").read_text(encoding="utf-8"))
    text = html.render_watch(run)
    assert_clean(text)
    assert chart_ids(text) == ["tps", "cpu-server", "nic", "disk"]
    nic = run["setup"]["server_host"]["nics"][0]["interface"]
    assert f"{nic} 100 Mb/s (12.5 MB/s)" in text and f"{nic} rx (client)" in text
    page = html.watch_page(run)
    tps = next(c for s in page.sections for c in s.charts if c.id == "tps")
    assert tps.points == sum(1 for iv in run["intervals"] if iv["sysbench"]) + len(run["intervals"])


def test_fleet_page(demo):
    _, report = demo
    ok = FleetResult(FleetTarget(1, "db1:3306", "db1", 3306, None), 0.12, report=report)
    bad = FleetResult(FleetTarget(2, "db2", "db2", None, None), 5.0, error="cannot connect to db2:3306", exit_code=3)
    text = html.render_fleet([ok, bad], 5.1, 4)
    assert_clean(text)
    assert "error: cannot connect to db2:3306" in text and text.count('id="t1-') == len(report.finding_groups)


def test_audit_of_a_calibrated_snapshot_shows_its_measurements():
    from advisor.snapshot import load_snapshot

    path = ROOT / "tests/fixtures/calibration/mariadb-10.11-tls-calibrated.snapshot.json"
    snap = load_snapshot(path.read_text(encoding="utf-8"))
    report = api.audit(snap, purpose="benchmark", source=f"snapshot {path.name}")
    text = html.render_audit(report, snap)
    assert_clean(text)
    assert chart_ids(text) == ["memory", "rtt", "tls-handshake", "tls-query", "flush", "stream"]
    assert f"{snap.calibration.rtt_ms.samples:,} round trips" in text
    assert "no line rate: the path is loopback" in text  # 127.0.0.1: no NIC limits the stream
