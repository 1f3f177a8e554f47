"""The HTML reports in a real browser (Debian's headless chromium over the DevTools protocol,
tests/support/browser.py): the demo audit, a real calibration against a throwaway mariadbd with TLS,
and a watch series recorded from a real sysbench run over a shaped veth link. For each: no console
message at warning or above, no network request besides the file itself, every expected chart
present with as many drawn marks as data points and each mark laid out, and a print to PDF.

A screenshot of each report is written to the test's temp dir; with --update-golden the
screenshots replace docs/img/*.png (referenced from docs/report-format.md).
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from pathlib import Path

import pytest

from tests.support.browser import Chromium, find_chromium
from tests.support.tools import require_tool
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
DOCS_IMG = ROOT / "docs" / "img"

CHARTS_JS = """[...document.querySelectorAll('figure.chart')].map(f => ({
  id: f.dataset.chart, points: Number(f.dataset.points),
  marks: f.querySelectorAll('svg .mark').length,
  laidOut: [...f.querySelectorAll('svg .mark')].filter(m => { const b = m.getBoundingClientRect();
                                                          return b.width > 0 || b.height > 0; }).length,
  svgWidth: f.querySelector('svg').getBoundingClientRect().width,
  title: f.querySelector('svg title').textContent }))"""

EXTERNAL_JS = """[...document.querySelectorAll('[src], link[href], [style*="url("]')].length
  + [...document.styleSheets].reduce((n, s) => n + [...s.cssRules].filter(r => /url\\(|@import|@font-face/.test(r.cssText)).length, 0)"""


@pytest.fixture(scope="module")
def browser():
    if find_chromium() is None:
        require_tool("chromium")  # skips naming the package (fails under CI=true)
    with Chromium() as b:
        yield b


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def check_page(browser: Chromium, html: Path, shot: Path, expected: set[str], tmp_path: Path, update: bool,
               doc_charts: tuple[str, ...] = ()) -> list[dict]:
    page = browser.open(html, screenshot=shot, max_height=2400)
    assert page.console_errors == [], page.console_errors
    assert page.requests == [] and page.failed == [], (page.requests, page.failed)
    assert page.evaluate(EXTERNAL_JS) == 0  # nothing that could fetch: no src, stylesheet link, url() or font
    charts = page.evaluate(CHARTS_JS)
    missing = page.evaluate("[...document.querySelectorAll('ul.items li')].map(li => li.textContent)")
    assert {c["id"] for c in charts} == expected, (charts, missing)
    for c in charts:
        assert c["points"] > 0 and c["marks"] > 0 and c["laidOut"] == c["marks"], c
        assert c["svgWidth"] > 300 and c["title"], c
    w, h = png_size(shot)
    assert w == browser.width and 600 < h <= 2400
    for cid in doc_charts:  # a chart on its own, for the docs
        png_size(page.element_screenshot(f"#chart-{cid}", tmp_path / f"chart-{cid}.png"))
    pdf = tmp_path / (html.stem + ".pdf")
    assert browser.pdf(html, pdf) > 10_000
    assert pdf.read_bytes()[:5] == b"%PDF-"
    if update:
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        for name in [shot.name] + [f"chart-{cid}.png" for cid in doc_charts]:
            shutil.copyfile(tmp_path / name, DOCS_IMG / name)
    return charts


def test_demo_audit_report(browser, tmp_path, golden):
    html = tmp_path / "report-audit.html"
    p = run_cli("audit", "--demo", "--purpose", "benchmark", "--format", "html", "-o", str(html))
    assert p.returncode == 0, p.stderr
    charts = check_page(browser, html, tmp_path / "report-audit.png", {"memory"}, tmp_path, golden.update, doc_charts=("memory",))
    # the seed's budget: 64 GiB buffer pool + 2,000 connections x 48.9 MiB = 160.5 GiB on a 128 GiB host
    assert charts[0]["points"] == 6
    text = html.read_text(encoding="utf-8")
    assert "160.5 GiB" in text and "128 GiB" in text and "does not fit" in text


@pytest.mark.requires_mariadbd
def test_calibration_report(browser, mariadb_factory, tls_certs, tmp_path, golden):
    db = mariadb_factory(tls=tls_certs)
    html = tmp_path / "report-calibration.html"
    snap_file = tmp_path / "cal-snapshot.json"
    p = run_cli("calibrate", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults",
                "--calibrate-seconds", "8", "--format", "html", "-o", str(html), "--save-snapshot", str(snap_file),
                timeout=90)
    assert p.returncode == 0, p.stderr
    cal = json.loads(snap_file.read_text(encoding="utf-8"))["calibration"]
    # the charts of what was measured: on a loaded machine a probe can lose its share of the budget
    # (then calibration.missing says so, and the report lists it); round trips, TLS and the stream always run first
    measured = {"rtt": cal["rtt_ms"], "tls-handshake": cal["tls"] and cal["tls"]["handshake_histogram"],
                "tls-query": cal["tls"] and cal["tls"]["query_histogram"], "flush": cal["fsync_ms"],
                "stream": cal["stream"] and cal["stream"]["mbytes_per_s"]}
    expected = {k for k, v in measured.items() if v}
    assert {"rtt", "tls-handshake", "tls-query", "stream"} <= expected, cal["missing"]
    check_page(browser, html, tmp_path / "report-calibration.png", expected, tmp_path, golden.update,
               doc_charts=("tls-query", "stream"))
    if "flush" not in expected:
        assert any(m["fact"] == "calibration.fsync_ms" for m in cal["missing"]), cal["missing"]


@pytest.mark.requires_mariadbd
@pytest.mark.requires_root
def test_watch_report_of_a_recorded_sysbench_run(browser, mariadb_factory, tmp_path, golden):
    if shutil.which("sysbench") is None:
        pytest.fail("sysbench is not installed. Tip: apt-get install sysbench (.ci/run installs it).", pytrace=False)
    from advisor.render.html import render_watch
    from tests.support.netns import NetNS
    from tests.support.watch_recording import record

    with NetNS(rate="100mbit") as ns:
        db = mariadb_factory(netns=ns)
        run = record(db, ns.host_if, seconds=5, host=ns.ns_addr, ceiling_mbps=100)
    assert len(run["intervals"]) >= 4 and run["setup"]["command"]["exit_status"] == 0
    html = tmp_path / "report-watch.html"
    html.write_text(render_watch(run), encoding="utf-8")
    charts = check_page(browser, html, tmp_path / "report-watch.png", {"tps", "cpu-server", "nic", "disk"}, tmp_path, golden.update,
                        doc_charts=("nic",))
    nic = next(c for c in charts if c["id"] == "nic")
    assert nic["points"] == 2 * len(run["intervals"])  # rx and tx of the client's veth end, every interval
    assert "100 Mb/s (12.5 MB/s)" in html.read_text(encoding="utf-8")  # the shaper's ceiling line


def test_fleet_report(browser, tmp_path, golden):
    """`advisor fleet --format html` over a fetched directory: the targets, the roll-up and drift, each host."""
    from tests.support.fleet import make_fetched

    html = tmp_path / "report-fleet.html"
    p = run_cli("fleet", "--snapshots", str(make_fetched(tmp_path / "fetched")), "--format", "html", "-o", str(html))
    assert p.returncode == 6, p.stderr  # db-gone was not collected
    check_page(browser, html, tmp_path / "report-fleet.png", set(), tmp_path, golden.update)
    text = html.read_text(encoding="utf-8")
    assert "Configuration drift in group a" in text and "Not audited (1)" in text
