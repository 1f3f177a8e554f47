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


def test_live_row_waits_for_the_report_line_of_its_interval():
    """The live table's TPS column does not lag QPS by a row: a row whose sysbench line has not arrived
    yet is written when it arrives (with that line's TPS), before the line itself."""
    import io
    import time

    from advisor.commands.watch import LiveOutput
    from advisor.watch.model import load_run

    run = load_run((SERIES / "rate-limited.json").read_text(), "rate-limited.json")
    iv = run.intervals[1].model_copy(update={"sysbench": []})
    out = io.StringIO()
    live = LiveOutput(out, table=True)
    live.output("[ 1s ] thds: 2 tps: 111.00 qps: 111.00 (r/w/o: 111.00/0.00/0.00) lat (ms,95%): 1.00 err/s: 0.00 reconn/s: 0.00\n")
    live.latest_at = time.monotonic() - 0.9  # that line came 0.9 s before the interval closed
    live.interval(run, iv)
    assert out.getvalue().count("\n") == 1  # the row waits
    live.output("[ 2s ] thds: 2 tps: 222.00 qps: 222.00 (r/w/o: 222.00/0.00/0.00) lat (ms,95%): 1.00 err/s: 0.00 reconn/s: 0.00\n")
    row, line = out.getvalue().splitlines()[1:3]
    assert "222" in row and "111" not in row and line.startswith("[ 2s ]")
    live.output("[ 3s ] thds: 2 tps: 333.00 qps: 333.00 (r/w/o: 333.00/0.00/0.00) lat (ms,95%): 1.00 err/s: 0.00 reconn/s: 0.00\n")
    live.interval(run, iv)  # the line came just before the interval closed: the row goes out at once
    assert "333" in out.getvalue().splitlines()[-1]
    live.flush()
