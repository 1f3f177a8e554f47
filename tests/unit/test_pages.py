"""Generated pages (advisor.render.pages): every page of every entry kind, the indexes, the rule
reference and the watch verdicts' pages match docs/, nothing stale is left there, and `advisor
explain ID` prints the page.

Regenerate on purpose: `python3 -m pytest --update-golden` (or `python -m advisor.render.pages docs`),
then review the diff.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from advisor.render.pages import PAGE_DIRS, all_pages
from advisor.rules.loader import load_entries

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = all_pages(load_entries())


@pytest.mark.parametrize("rel", sorted(PAGES))
def test_page_is_current(rel, golden):
    golden.check(DOCS / rel, PAGES[rel])


def test_no_stale_pages(golden):
    golden.stale([p for d in PAGE_DIRS for p in (DOCS / d).glob("*.md")], [DOCS / rel for rel in PAGES])


def test_pages_have_the_sections_of_their_kind():
    sizer = PAGES["sizers/sizing.buffer-pool.md"]
    for section in ("## Why", "## Example", "## Examples", "## Variables", "## References"):
        assert section in sizer
    assert "innodb_buffer_pool_size = 48G" in sizer
    check = PAGES["checks/sysbench-max-connections.md"]
    for section in ("## Why it matters", "## Example", "## Examples", "## References"):
        assert section in check
    assert "Too many connections" in check
    assert "[sizing.io-capacity](sizing.io-capacity.md)" in PAGES["sizers/README.md"]
    assert "[warm-up](warm-up.md)" in PAGES["checks/README.md"]


@pytest.mark.parametrize("entry_id,rel", [("log-buffer-small", "rules/log-buffer-small.md"),
                                          ("flush-method-fsync", "rules/flush-method-fsync.md"),
                                          ("sizing.redo-capacity", "sizers/sizing.redo-capacity.md"),
                                          ("sysbench-tls", "checks/sysbench-tls.md"),
                                          ("network-bound", "watch/network-bound.md")])
def test_explain_prints_the_page(entry_id, rel):
    """`--format markdown` prints the page of docs/; the default renders it for a terminal
    (tests/unit/test_terminal.py)."""
    p = subprocess.run([sys.executable, "-m", "advisor", "explain", entry_id, "--format", "markdown"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout == PAGES[rel]


def test_explain_suggests_ids_of_every_kind():
    p = subprocess.run([sys.executable, "-m", "advisor", "explain", "sizing.buffer-pol"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and "did you mean sizing.buffer-pool" in p.stderr and "Traceback" not in p.stderr
