"""`advisor watch --load FILE --format html`: the saved series rendered by the HTML report's watch page."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.cli import run_cli

SERIES = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "series"


def test_saved_network_run_renders_charts_and_the_verdict(tmp_path):
    out = tmp_path / "w.html"
    p = run_cli("watch", "--load", str(SERIES / "network-10mbit.json"), "--format", "html", "-o", str(out))
    assert p.returncode == 0, p.stderr
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert len(re.findall(r"<svg\b", html)) >= 3  # TPS, CPU split, NIC against its line rate
    assert "network-bound" in html
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org", "")


def test_sarif_is_refused_before_anything_runs():
    p = run_cli("watch", "--load", str(SERIES / "idle.json"), "--format", "sarif")
    assert p.returncode == 2
    assert "is not one of 'text', 'json', 'markdown', 'html'" in p.stderr


def test_help_lists_only_the_formats_watch_writes():
    p = run_cli("watch", "--help")
    assert p.returncode == 0
    assert "text|json|markdown|html" in p.stdout and "sarif" not in p.stdout and "junit" not in p.stdout
    assert "7 when the benchmark failed" in " ".join(p.stdout.split())
