"""Charts as inline SVG: histograms on a log axis, bars against a reference line, a stacked budget
bar, and time series. Pure: data in, markup out; no JavaScript, no fonts, no external references,
so a report stays one self-contained file that prints.

Every chart is an <svg> with a <title> and <desc> (read by screen readers), CSS classes for colour
(the HTML report's stylesheet defines them: `s0`..`s5` series, `ref` reference lines, `mk` markers),
and one element with class `mark` per data point drawn, counted in `Chart.points`; the browser test
counts them. Values and labels are XML-escaped here; callers pass plain text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Sequence
from xml.sax.saxutils import escape, quoteattr

Fmt = Callable[[float], str]

WIDTH = 640
PAD_L, PAD_R, PAD_T, PAD_B = 64, 16, 12, 40


# ---------------------------------------------------------------- data the charts take

@dataclass(frozen=True)
class Bin:
    lo: float
    hi: float
    count: int


@dataclass(frozen=True)
class HistSeries:
    name: str
    bins: Sequence[Bin]


@dataclass(frozen=True)
class Marker:
    """A vertical line at x (p50, p99) or a horizontal reference (line rate, RAM) at a value."""

    label: str
    value: float


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    note: str = ""


@dataclass(frozen=True)
class LineSeries:
    name: str
    points: Sequence[tuple[float, Optional[float]]]  # (x, y); y None leaves a gap


@dataclass(frozen=True)
class Chart:
    id: str
    kind: str
    title: str
    svg: str
    points: int
    legend: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (css class, name)


# ---------------------------------------------------------------- number formatting and ticks

def fmt_number(v: float) -> str:
    """Compact axis labels: 0.05, 0.5, 12, 1,200, 1.5k is never used (exact thousands read better)."""
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.0f}" if float(v).is_integer() else f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}".rstrip("0").rstrip(".")
    digits = max(2, -math.floor(math.log10(a)) + 2)  # three significant digits
    return f"{v:.{digits}f}".rstrip("0").rstrip(".")


def nice_step(span: float, count: int = 5) -> float:
    """A 1/2/5 x 10^k step that cuts `span` into about `count` intervals."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(1, count)
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def linear_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    step = nice_step(hi - lo, count)
    start = math.floor(lo / step) * step
    ticks = []
    v = start
    while v <= hi + step * 1e-9:
        if v >= lo - step * 1e-9:
            ticks.append(round(v, 12))
        v += step
    return ticks


def log_ticks(lo: float, hi: float) -> list[float]:
    """1, 2, 5 x 10^k between lo and hi (only powers of ten when the range spans many decades)."""
    out: list[float] = []
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mults = (1, 2, 5) if math.log10(hi / lo) <= 3.01 else (1,)
    for k in range(k0, k1 + 1):
        for m in mults:
            v = m * 10.0 ** k
            if lo <= v <= hi:
                out.append(v)
    return out


# ---------------------------------------------------------------- SVG building blocks

def _a(**attrs: object) -> str:
    return "".join(f" {k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}" for k, v in attrs.items() if v is not None)


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, s: str, cls: str = "lbl", anchor: str = "start") -> str:
    return f'<text{_a(x=_n(x), y=_n(y), class_=cls, text_anchor=anchor)}>{escape(s)}</text>'


def _svg(chart_id: str, title: str, desc: str, height: int, body: Iterable[str]) -> str:
    tid, did = f"{chart_id}-t", f"{chart_id}-d"
    return (f'<svg xmlns="http://www.w3.org/2000/svg"{_a(viewBox=f"0 0 {WIDTH} {height}", role="img", class_="chart")}'
            f'{_a(aria_labelledby=f"{tid} {did}", data_chart=chart_id)}><title id="{tid}">{escape(title)}</title>'
            f'<desc id="{did}">{escape(desc)}</desc>' + "".join(body) + "</svg>")


class _Frame:
    """Plot area and the mapping from data to pixels."""

    def __init__(self, height: int, x0: float, x1: float, y0: float, y1: float, logx: bool = False):
        self.h = height
        self.left, self.right = PAD_L, WIDTH - PAD_R
        self.top, self.bottom = PAD_T, height - PAD_B
        self.x0, self.x1, self.y0, self.y1, self.logx = x0, x1, y0, y1, logx

    def x(self, v: float) -> float:
        if self.logx:
            a, b, v = math.log10(self.x0), math.log10(self.x1), math.log10(max(v, self.x0))
        else:
            a, b = self.x0, self.x1
        return self.left + (v - a) / ((b - a) or 1) * (self.right - self.left)

    def y(self, v: float) -> float:
        return self.bottom - (v - self.y0) / ((self.y1 - self.y0) or 1) * (self.bottom - self.top)

    def axes(self, xticks: Sequence[float], yticks: Sequence[float], xfmt: Fmt, yfmt: Fmt,
             xlabel: str, ylabel: str) -> list[str]:
        out = [f'<rect{_a(x=self.left, y=self.top, width=self.right - self.left, height=self.bottom - self.top, class_="plot")}/>']
        for t in yticks:
            y = self.y(t)
            out.append(f'<line{_a(x1=self.left, x2=self.right, y1=_n(y), y2=_n(y), class_="grid")}/>')
            out.append(_text(self.left - 6, y + 4, yfmt(t), "tick", "end"))
        for t in xticks:
            x = self.x(t)
            out.append(f'<line{_a(x1=_n(x), x2=_n(x), y1=self.bottom, y2=self.bottom + 4, class_="axis")}/>')
            out.append(_text(x, self.bottom + 16, xfmt(t), "tick", "middle"))
        out.append(f'<line{_a(x1=self.left, x2=self.right, y1=self.bottom, y2=self.bottom, class_="axis")}/>')
        out.append(_text((self.left + self.right) / 2, self.h - 6, xlabel, "axlbl", "middle"))
        out.append(f'<text{_a(x=12, y=_n((self.top + self.bottom) / 2), class_="axlbl", text_anchor="middle", transform=f"rotate(-90 12 {_n((self.top + self.bottom) / 2)})")}>{escape(ylabel)}</text>')
        return out


def _vrefs(fr: "_Frame", refs: Sequence[Marker], fmt: Fmt, y_top: float) -> list[str]:
    """Vertical reference lines; labels left of their line, the rightmost one right of it when it
    fits, one row each, so no label crosses another line."""
    out: list[str] = []
    order = sorted(refs, key=lambda r: r.value)
    for j, r in enumerate(order):
        x = fr.x(r.value)
        label = f"{r.label} {fmt(r.value)}"
        right = j == len(order) - 1 and x + 7 * len(label) < fr.right
        out.append(f'<line{_a(x1=_n(x), x2=_n(x), y1=fr.top, y2=fr.bottom, class_="ref")}/>')
        out.append(_text(x + 3 if right else x - 3, y_top + 10 + 12 * (len(order) - 1 - j), label, "reflbl",
                         "start" if right else "end"))
    return out


def byte_ticks(hi: float, count: int = 5) -> list[float]:
    """Ticks at round binary sizes (0, 32 GiB, 64 GiB, ...) up to hi."""
    unit = 1.0
    for u in (1 << 40, 1 << 30, 1 << 20, 1 << 10):
        if hi >= 2 * u:
            unit = float(u)
            break
    return [t * unit for t in linear_ticks(0, hi / unit, count)]


# ---------------------------------------------------------------- charts

def histogram(chart_id: str, title: str, series: Sequence[HistSeries], unit: str = "ms",
              markers: Sequence[Marker] = (), height: int = 220) -> Chart:
    """Counts per log-width bin (as shares of each series' samples, so two series of different
    sizes compare), on a log x axis. Markers are vertical lines (p50, p99)."""
    bins = [b for s in series for b in s.bins if b.count > 0]
    if not bins:
        raise ValueError(f"{chart_id}: no data")
    lo = min(b.lo for b in bins if b.lo > 0) if any(b.lo > 0 for b in bins) else min(b.hi for b in bins) / 10
    hi = max(b.hi for b in bins)
    x0 = 10 ** (math.floor(math.log10(lo) * 2) / 2)  # half-decade boundaries around the data
    x1 = 10 ** (math.ceil(math.log10(hi) * 2) / 2)
    shares = [[(b, b.count / max(1, sum(c.count for c in s.bins))) for b in s.bins if b.count > 0] for s in series]
    top = max(f for s in shares for _, f in s)
    ystep = nice_step(top, 4)
    y1 = math.ceil(top / ystep) * ystep
    fr = _Frame(height, x0, x1, 0.0, y1, logx=True)
    body = fr.axes(log_ticks(x0, x1), linear_ticks(0, y1, 4), fmt_number, lambda v: f"{v * 100:.0f}%",
                   f"latency ({unit}, log scale)", "share of samples")
    points = 0
    n = len(series)
    for i, s in enumerate(shares):
        for b, f in s:
            xa, xb = fr.x(max(b.lo, x0)), fr.x(b.hi)
            w = max(1.0, (xb - xa) / n - 0.5)
            x = xa + i * (xb - xa) / n
            y = fr.y(f)
            body.append(f'<rect{_a(x=_n(x), y=_n(y), width=_n(w), height=_n(fr.bottom - y), class_=f"mark s{i}")}>'
                        f'<title>{escape(series[i].name)}: {escape(fmt_number(b.lo))}–{escape(fmt_number(b.hi))} {escape(unit)}: '
                        f'{b.count:,} samples ({f * 100:.1f}%)</title></rect>')
            points += 1
    for j, m in enumerate(markers):
        x = fr.x(m.value)
        body.append(f'<line{_a(x1=_n(x), x2=_n(x), y1=fr.top, y2=fr.bottom, class_="mk")}/>')
        body.append(_text(x + 3, fr.top + 11 + 12 * (j % 3), f"{m.label} {fmt_number(m.value)} {unit}", "mklbl"))
    desc = "; ".join(f"{s.name}: {sum(b.count for b in s.bins):,} samples" for s in series)
    return Chart(chart_id, "histogram", title, _svg(chart_id, title, desc, height, body), points,
                 tuple((f"s{i}", s.name) for i, s in enumerate(series)))


def bars(chart_id: str, title: str, items: Sequence[Bar], unit: str, refs: Sequence[Marker] = (),
         fmt: Fmt = fmt_number) -> Chart:
    """Horizontal bars with their values, against vertical reference lines (a line rate)."""
    if not items:
        raise ValueError(f"{chart_id}: no data")
    row = 26
    height = PAD_T + PAD_B + row * len(items)
    top = max([b.value for b in items] + [r.value for r in refs])
    step = nice_step(top, 5)
    x1 = math.ceil(top * 1.08 / step) * step
    fr = _Frame(height, 0.0, x1, 0.0, 1.0)
    fr.left = 150
    body = fr.axes(linear_ticks(0, x1, 5), [], fmt_number, fmt_number, unit, "")
    for i, b in enumerate(items):
        y = fr.top + i * row + 4
        w = fr.x(b.value) - fr.left
        body.append(_text(fr.left - 6, y + 13, b.label, "lbl", "end"))
        body.append(f'<rect{_a(x=fr.left, y=y, width=_n(max(w, 1.0)), height=row - 8, class_=f"mark s{i % 6}")}>'
                    f'<title>{escape(b.label)}: {escape(fmt(b.value))} {escape(unit)}{escape(" — " + b.note if b.note else "")}</title></rect>')
        body.append(_text(fr.left + w + 4, y + 13, f"{fmt(b.value)}", "val"))
    body += _vrefs(fr, refs, fmt, fr.bottom - 12 * len(refs) - 6)
    desc = "; ".join(f"{b.label}: {fmt(b.value)} {unit}" for b in items) + "".join(
        f"; {r.label}: {fmt(r.value)} {unit}" for r in refs)
    return Chart(chart_id, "bars", title, _svg(chart_id, title, desc, height, body), len(items))


def stacked_bar(chart_id: str, title: str, parts: Sequence[Bar], refs: Sequence[Marker], fmt: Fmt,
                unit_label: str, binary: bool = False) -> Chart:
    """One bar made of parts (the memory budget), with reference lines (RAM, cgroup limit, 90 %)."""
    parts = [p for p in parts if p.value > 0]
    if not parts:
        raise ValueError(f"{chart_id}: no data")
    height = 150
    total = sum(p.value for p in parts)
    top = max([total] + [r.value for r in refs])
    fr = _Frame(height, 0.0, top * 1.05, 0.0, 1.0)
    fr.left = 24
    body = fr.axes(byte_ticks(fr.x1) if binary else linear_ticks(0, fr.x1, 5), [], fmt, fmt, unit_label, "")
    y, h = fr.top + 30, 36
    acc = 0.0
    for i, p in enumerate(parts):
        xa, xb = fr.x(acc), fr.x(acc + p.value)
        body.append(f'<rect{_a(x=_n(xa), y=y, width=_n(max(xb - xa, 0.8)), height=h, class_=f"mark s{i % 6}")}>'
                    f'<title>{escape(p.label)}: {escape(fmt(p.value))}{escape(" (" + p.note + ")" if p.note else "")}</title></rect>')
        acc += p.value
    body.append(_text(fr.x(total) + 4 if fr.x(total) < fr.right - 90 else fr.x(total) - 4, y + h + 14,
                      f"total {fmt(total)}", "val", "start" if fr.x(total) < fr.right - 90 else "end"))
    body += _vrefs(fr, refs, fmt, fr.top)
    desc = "; ".join(f"{p.label}: {fmt(p.value)}" for p in parts) + f"; total {fmt(total)}" + "".join(
        f"; {r.label}: {fmt(r.value)}" for r in refs)
    return Chart(chart_id, "stacked", title, _svg(chart_id, title, desc, height, body), len(parts),
                 tuple((f"s{i % 6}", p.label) for i, p in enumerate(parts)))


def lines(chart_id: str, title: str, series: Sequence[LineSeries], y_label: str, x_label: str = "seconds",
          refs: Sequence[Marker] = (), y_max: Optional[float] = None, stacked: bool = False,
          yfmt: Fmt = fmt_number, height: int = 200) -> Chart:
    """Time series: one polyline per series (gaps where y is None), or stacked areas (CPU split).
    Reference lines are horizontal (a line rate)."""
    pts = [(x, y) for s in series for x, y in s.points if y is not None]
    if not pts:
        raise ValueError(f"{chart_id}: no data")
    xs = [x for x, _ in pts]
    x0, x1 = min(xs), max(xs)
    if x1 <= x0:
        x1 = x0 + 1
    if stacked:
        xs_all = sorted({x for s in series for x, _ in s.points})
        sums = {x: sum((dict(s.points).get(x) or 0.0) for s in series) for x in xs_all}
        top = max(sums.values())
    else:
        top = max(y for _, y in pts)
    top = max([top] + [r.value for r in refs])
    if y_max is not None:
        top = y_max
    step = nice_step(top or 1.0, 4)
    y1 = y_max if y_max is not None else math.ceil((top or 1.0) * 1.05 / step) * step
    fr = _Frame(height, x0, x1, 0.0, y1)
    body = fr.axes(linear_ticks(x0, x1, 6), linear_ticks(0, y1, 4), fmt_number, yfmt, x_label, y_label)
    points = 0
    if stacked:
        base = {x: 0.0 for x in xs_all}
        for i, s in enumerate(series):
            d = dict(s.points)
            upper = [(x, base[x] + (d.get(x) or 0.0)) for x in xs_all]
            poly = [(fr.x(x), fr.y(y)) for x, y in upper] + [(fr.x(x), fr.y(base[x])) for x in reversed(xs_all)]
            n = sum(1 for x in xs_all if d.get(x) is not None)
            body.append(f'<polygon{_a(points=" ".join(f"{_n(a)},{_n(b)}" for a, b in poly), class_=f"mark area s{i % 6}")}>'
                        f'<title>{escape(s.name)} ({n} points)</title></polygon>')
            points += n
            base = {x: y for x, y in upper}
    else:
        for i, s in enumerate(series):
            run: list[tuple[float, float]] = []
            runs: list[list[tuple[float, float]]] = []
            for x, y in s.points:
                if y is None:
                    if run:
                        runs.append(run)
                    run = []
                else:
                    run.append((x, y))
            if run:
                runs.append(run)
            for r in runs:
                body.append(f'<polyline{_a(points=" ".join(f"{_n(fr.x(x))},{_n(fr.y(min(y, y1)))}" for x, y in r), class_=f"line s{i % 6}")}/>')
                for x, y in r:
                    body.append(f'<circle{_a(cx=_n(fr.x(x)), cy=_n(fr.y(min(y, y1))), r=1.6, class_=f"mark dot s{i % 6}")}>'
                                f'<title>{escape(s.name)} at {escape(fmt_number(x))} s: {escape(yfmt(y))}</title></circle>')
                    points += 1
    for j, r in enumerate(refs):
        y = fr.y(r.value)
        body.append(f'<line{_a(x1=fr.left, x2=fr.right, y1=_n(y), y2=_n(y), class_="ref")}/>')
        body.append(_text(fr.right - 4, y - 4 - 12 * j, f"{r.label} ({yfmt(r.value)} {y_label})", "reflbl", "end"))
    desc = "; ".join(f"{s.name}: {sum(1 for _, y in s.points if y is not None)} points" for s in series)
    return Chart(chart_id, "lines", title, _svg(chart_id, title, desc, height, body), points,
                 tuple((f"s{i % 6}", s.name) for i, s in enumerate(series)))
