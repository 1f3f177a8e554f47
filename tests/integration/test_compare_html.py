"""`advisor compare --format html` in a real headless Chromium (tests/support/browser.py), as the other
HTML reports are checked (tests/integration/test_html_browser.py): no console message at warning or
above, no network request, nothing that could fetch, every calibration chart drawn with one bar per
side, the ranked table of differences, and a print to PDF. The inputs are a real calibrated snapshot
(tests/fixtures/calibration) and the same snapshot with the flush latency of a slower drive."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.test_html_browser import EXTERNAL_JS, browser, check_page  # noqa: F401 (fixture)
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
CALIBRATED = ROOT / "tests" / "fixtures" / "calibration" / "mariadb-10.11-tls-calibrated.snapshot.json"
ROWS_JS = """[...document.querySelectorAll('section table tbody tr')].filter(r => r.className.startsWith('v-'))
  .map(r => ({cls: r.className, cells: [...r.querySelectorAll('td')].map(td => td.textContent)}))"""


def slower_drive(doc: dict, factor: float) -> dict:
    """The snapshot with every fsync sample `factor` times as long (what a client-grade NVMe shows)."""
    f = doc["calibration"]["fsync_ms"]
    for k in ("p50", "p99", "min", "max", "mean"):
        f[k] = round(f[k] * factor, 4)
    for b in f["histogram"]["bins"]:
        b["lo"], b["hi"] = round(b["lo"] * factor, 5), round(b["hi"] * factor, 5)
    return doc


def test_compare_report_in_the_browser(browser, tmp_path):  # noqa: F811 (the fixture)
    a = tmp_path / "fast.json"
    b = tmp_path / "slow.json"
    a.write_text(CALIBRATED.read_text(encoding="utf-8"), encoding="utf-8")
    slow = slower_drive(json.loads(CALIBRATED.read_text(encoding="utf-8")), 20.0)
    slow["server"]["variables"]["datadir"] = "/srv/other/data/"  # another server: one server's own gap is load
    b.write_text(json.dumps(slow), encoding="utf-8")
    html = tmp_path / "report-compare.html"
    p = run_cli("compare", str(a), str(b), "--format", "html", "-o", str(html))
    assert p.returncode == 0, p.stderr
    expected = {"cmp-fsync-ms", "cmp-rtt-ms", "cmp-stream-mbytes-per-s", "cmp-tls-query-ratio",
                "cmp-tls-throughput-ratio"}
    charts = check_page(browser, html, tmp_path / "report-compare.png", expected, tmp_path, False)
    assert all(c["points"] == 2 for c in charts)  # one bar per side
    page = browser.open(html)
    rows = page.evaluate(ROWS_JS)
    assert rows[0]["cls"] == "v-confounding"
    assert rows[0]["cells"][:2] == ["1", "flush latency (fsync of 16 KiB) · Calibration"]
    assert rows[0]["cells"][2].startswith("p50 4.11 ms") and rows[0]["cells"][3].startswith("p50 82.17 ms")
    assert page.evaluate("document.querySelector('.stats li.v-confounding .v').textContent") == "1"
    assert page.evaluate(EXTERNAL_JS) == 0 and page.requests == [] and page.console_errors == []
