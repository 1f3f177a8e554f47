"""The HTML reports' tables in a real Chromium (tests/support/browser.py) at 1280 and 390 CSS pixels
wide: no word in the "Every rule" and "Verdicts" tables (nor any other table of the report) is
broken inside itself ("outco/me", "passe/d"), and no table pushes the page wider than the window.
Measured in the browser: for every cell, each word (a run of letters and digits) has a Range with
one client rect, i.e. it sits on one line. A line may break at spaces and at punctuation: after the
hyphens of a rule id, the commas of a sql_mode list, the bars of a regular expression (the
`breakable` filter of advisor.render.templates). The screenshots are written into the test's temp
dir and their paths printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.browser import Chromium, find_chromium
from tests.support.cli import run_cli
from tests.support.tools import require_tool

ROOT = Path(__file__).resolve().parents[2]
CALIBRATED = ROOT / "tests" / "fixtures" / "calibration" / "mariadb-10.11-tls-calibrated.snapshot.json"

# every word (a run of letters and digits) of every table cell; a word whose Range has more than one
# client rect was broken across lines
SPLIT_WORDS_JS = r"""(() => {
  const out = [];
  for (const table of document.querySelectorAll('table')) {
    const caption = (table.closest('section')?.querySelector('h2')?.textContent || '') + ' / ' +
                    (table.querySelector('caption')?.textContent || '');
    for (const cell of table.querySelectorAll('td, th')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent;
        const re = /[\p{L}\p{N}]+/gu;
        let m;
        while ((m = re.exec(text)) !== null) {
          const r = document.createRange();
          r.setStart(node, m.index);
          r.setEnd(node, m.index + m[0].length);
          const rects = [...r.getClientRects()].filter(x => x.width > 0);
          if (rects.length > 1) out.push({table: caption, word: m[0], lines: rects.length});
        }
      }
    }
  }
  return out;
})()"""

WIDE_JS = """[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right + scrollX > innerWidth + 1
  || e.scrollWidth > e.clientWidth + 1).slice(0, 5).map(e => [e.tagName, e.className,
  Math.round(e.getBoundingClientRect().right), e.textContent.slice(0, 80)])"""
TABLES_JS = "[...document.querySelectorAll('table caption')].map(c => c.textContent)"


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    d = tmp_path_factory.mktemp("html")
    out = {}
    for name, args in (("audit-demo", ("--demo",)), ("audit-calibrated", ("--snapshot", str(CALIBRATED)))):
        p = run_cli("audit", *args, "--format", "html", "-o", str(d / f"{name}.html"))
        assert p.returncode in (0, 1), p.stderr
        out[name] = d / f"{name}.html"
    return out


@pytest.mark.parametrize("width", [1280, 390])
def test_no_word_is_broken_inside_a_table_cell(reports, tmp_path, width):
    if find_chromium() is None:
        require_tool("chromium")
    with Chromium(width=width, height=900) as browser:
        for name, html in reports.items():
            shot = tmp_path / f"{name}-{width}.png"
            page = browser.open(html, screenshot=shot)
            print(f"\nscreenshot: {shot}")
            assert page.console_errors == []
            captions = page.evaluate(TABLES_JS)
            assert any(c.startswith(f"{n} rules") for c in captions for n in range(1, 10_000)) or \
                any("rules:" in c for c in captions), captions
            if name == "audit-calibrated":
                assert "Verdicts" in captions, captions
            broken = page.evaluate(SPLIT_WORDS_JS)
            assert broken == [], json.dumps(broken[:20], indent=1)
            # nothing is pushed out of the page sideways either
            wide = page.evaluate(WIDE_JS)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, wide
