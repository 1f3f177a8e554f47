"""The SVG chart module: ticks and labels, one mark per data point, escaped text, well-formed
SVG with nothing that could fetch, and clear errors on empty data."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from advisor.render import svg

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(chart: svg.Chart) -> ET.Element:
    root = ET.fromstring(chart.svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("data-chart") == chart.id
    assert "<script" not in chart.svg and "href" not in chart.svg and "url(" not in chart.svg
    assert root.find("s:title", NS).text == chart.title
    return root


def marks(root: ET.Element) -> list[ET.Element]:
    return [e for e in root.iter() if "mark" in (e.get("class") or "").split()]


def test_steps_and_ticks():
    assert svg.nice_step(100, 5) == 20 and svg.nice_step(0.9, 4) == 0.5 and svg.nice_step(7, 5) == 2
    assert svg.linear_ticks(0, 100, 5) == [0, 20, 40, 60, 80, 100]
    assert svg.log_ticks(0.03, 12) == [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10]
    assert svg.log_ticks(0.001, 1000) == [0.001, 0.01, 0.1, 1, 10, 100, 1000]
    assert svg.byte_ticks(160 * 2**30)[:3] == [0, 50 * 2**30, 100 * 2**30]
    assert [svg.fmt_number(v) for v in (0, 0.05, 0.125, 1.5, 12, 12.5, 1200)] == \
        ["0", "0.05", "0.125", "1.5", "12", "12.5", "1,200"]


def test_histogram_one_mark_per_bin_per_series_and_markers():
    a = svg.HistSeries("TLS on", [svg.Bin(0.1, 0.1122, 5), svg.Bin(0.1122, 0.1259, 15)])
    b = svg.HistSeries("TLS off <&>", [svg.Bin(0.0794, 0.0891, 20)])
    c = svg.histogram("tls", "Small queries", [a, b], markers=[svg.Marker("p50", 0.11)])
    root = parse(c)
    assert c.points == 3 == len(marks(root))
    # shares of each series: 5/20 and 15/20 for TLS on, 20/20 for off; the tallest bar reaches the top
    titles = [m.find("s:title", NS).text for m in marks(root)]
    assert "TLS on: 0.1–0.112 ms: 5 samples (25.0%)" in titles
    assert "TLS off <&>: 0.0794–0.0891 ms: 20 samples (100.0%)" in titles
    assert "&lt;&amp;&gt;" in c.svg  # escaped in the markup, read back as text
    assert c.legend == (("s0", "TLS on"), ("s1", "TLS off <&>"))
    assert any(t.text == "p50 0.11 ms" for t in root.iter("{http://www.w3.org/2000/svg}text"))


def test_bars_against_a_reference_line():
    c = svg.bars("stream", "Stream", [svg.Bar("plain", 73.3), svg.Bar("TLS", 68.3)], "MB/s",
                 [svg.Marker("1,000 Mb/s ceiling", 118.7)])
    root = parse(c)
    assert c.points == 2 == len(marks(root))
    widths = [float(m.get("width")) for m in marks(root)]
    assert widths[0] > widths[1] > 0
    ref = [e for e in root.iter() if e.get("class") == "ref"]
    assert len(ref) == 1 and float(ref[0].get("x1")) > max(float(m.get("x")) + w for m, w in zip(marks(root), widths))


def test_stacked_bar_parts_in_order_and_total():
    g = 2**30
    c = svg.stacked_bar("memory", "Budget", [svg.Bar("pool", 64 * g), svg.Bar("zero", 0), svg.Bar("conns", 96 * g)],
                        [svg.Marker("RAM", 128 * g)], lambda v: f"{v / g:.0f} GiB", "bytes", binary=True)
    root = parse(c)
    ms = marks(root)
    assert c.points == 2 == len(ms)  # the empty part is left out
    x0, w0 = float(ms[0].get("x")), float(ms[0].get("width"))
    assert float(ms[1].get("x")) == pytest.approx(x0 + w0, abs=0.11)
    assert "total 160 GiB" in c.svg and "RAM 128 GiB" in c.svg


def test_lines_split_at_gaps_and_stacked_areas():
    c = svg.lines("tps", "TPS", [svg.LineSeries("tps", [(1, 10.0), (2, None), (3, 12.0), (4, 11.0)])], "per second")
    root = parse(c)
    assert c.points == 3 == len(marks(root))
    assert len(list(root.iter("{http://www.w3.org/2000/svg}polyline"))) == 2  # the gap splits the line
    s = svg.lines("cpu", "CPU", [svg.LineSeries("user", [(1, 60.0), (2, 70.0)]),
                                 svg.LineSeries("system", [(1, 20.0), (2, 10.0)])], "%", y_max=100.0, stacked=True)
    root = parse(s)
    polys = list(root.iter("{http://www.w3.org/2000/svg}polygon"))
    assert len(polys) == 2 and s.points == 4
    # the second area sits on the first: its lower edge is the first one's upper edge
    first = [tuple(map(float, p.split(","))) for p in polys[0].get("points").split()]
    second = [tuple(map(float, p.split(","))) for p in polys[1].get("points").split()]
    assert second[-1] == first[0] and second[-2] == first[1]


@pytest.mark.parametrize("make", [
    lambda: svg.histogram("h", "t", [svg.HistSeries("x", [])]),
    lambda: svg.bars("b", "t", [], "MB/s"),
    lambda: svg.stacked_bar("s", "t", [svg.Bar("x", 0)], [], str, "bytes"),
    lambda: svg.lines("l", "t", [svg.LineSeries("x", [(1, None)])], "y"),
])
def test_no_data_is_an_error_not_an_empty_chart(make):
    with pytest.raises(ValueError, match="no data"):
        make()
