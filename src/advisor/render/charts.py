"""What the HTML reports plot, built from the models: calibration distributions and the stream
against the line rate (a Snapshot's calibration), the memory budget (its variables and host
memory), and a watch run's time series (the `advisor.watch/1` JSON shape, docs/watch.md). Pure:
each function returns a list of (svg.Chart, caption) pairs, empty when there is nothing to plot, and
says in the caption what the chart leaves out.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Sequence

from advisor.render import svg
from advisor.snapshot import Calibration, Histogram, Snapshot
from advisor.units import format_size

Captioned = tuple[svg.Chart, str]


def _bins(h: Optional[Histogram]) -> list[svg.Bin]:
    return [svg.Bin(b.lo, b.hi, b.count) for b in h.bins] if h is not None else []


def ms_text(v: Optional[float]) -> str:
    return "–" if v is None else svg.fmt_number(v) + " ms"


# ---------------------------------------------------------------- calibration

def calibration_charts(cal: Optional[Calibration], route: tuple[Optional[str], Optional[int]] = (None, None)) -> list[Captioned]:
    if cal is None:
        return []
    out: list[Captioned] = []
    r = cal.rtt_ms
    if r is not None and r.histogram is not None and r.histogram.bins:
        out.append((svg.histogram("rtt", "Round trips (SELECT 1)", [svg.HistSeries("SELECT 1", _bins(r.histogram))],
                                  markers=[m for m in (svg.Marker("p50", r.p50) if r.p50 else None,
                                                       svg.Marker("p99", r.p99) if r.p99 else None) if m]),
                    f"{r.samples:,} round trips on one connection: p50 {ms_text(r.p50)}, p99 {ms_text(r.p99)}, "
                    f"max {ms_text(r.max)}."))
    t = cal.tls
    if t is not None:
        for key, title, what in (("handshake_histogram", "Connect time, TLS on vs off", "connects"),
                                 ("query_histogram", "Small queries, TLS on vs off", "SELECT 1 queries")):
            pair = getattr(t, key)
            if pair is None:
                continue
            series = [svg.HistSeries(name, _bins(h)) for name, h in (("TLS on", pair.on), ("TLS off", pair.off))
                      if h is not None and h.bins]
            if not series:
                continue
            med = t.handshake_ms if key == "handshake_histogram" else t.query_ms
            counts = ", ".join(f"{s.name} {sum(b.count for b in s.bins):,}" for s in series)
            out.append((svg.histogram(f"tls-{key.split('_')[0]}", title, series),
                        f"{what} per side ({counts}); median {ms_text(med.on)} with TLS, {ms_text(med.off)} without. "
                        "Bars are shares of each side's samples."))
    f = cal.fsync_ms
    if f is not None and f.histogram is not None and f.histogram.bins:
        where = f" in {cal.flush.path} ({cal.flush.fstype or 'unknown filesystem'})" if cal.flush and cal.flush.path else ""
        out.append((svg.histogram("flush", "Flush latency (16 KiB write + fdatasync)",
                                  [svg.HistSeries("fdatasync", _bins(f.histogram))],
                                  markers=[m for m in (svg.Marker("p50", f.p50) if f.p50 else None,
                                                       svg.Marker("p99", f.p99) if f.p99 else None) if m]),
                    f"{f.samples:,} flushes{where}: p50 {ms_text(f.p50)}, p99 {ms_text(f.p99)}."))
    c = cal.commit_ms
    if c is not None and c.histogram is not None and c.histogram.bins:
        out.append((svg.histogram("commit", "Commit latency (autocommit INSERT)", [svg.HistSeries("commit", _bins(c.histogram))],
                                  markers=[m for m in (svg.Marker("p50", c.p50) if c.p50 else None,
                                                       svg.Marker("p99", c.p99) if c.p99 else None) if m]),
                    f"{c.samples:,} single-row commits: p50 {ms_text(c.p50)}, p99 {ms_text(c.p99)}."))
    out += stream_chart(cal, route)
    return out


def stream_chart(cal: Calibration, route: tuple[Optional[str], Optional[int]]) -> list[Captioned]:
    s, t = cal.stream, cal.tls
    items: list[svg.Bar] = []
    if s is not None and s.mbytes_per_s is not None:
        items.append(svg.Bar(f"stream ({'TLS' if s.tls else 'plain'})", s.mbytes_per_s, f"{s.chunks} queries"))
    if t is not None:
        if t.stream_mbytes_per_s.off is not None:
            items.append(svg.Bar("TLS probe: plain", t.stream_mbytes_per_s.off))
        if t.stream_mbytes_per_s.on is not None:
            items.append(svg.Bar("TLS probe: TLS", t.stream_mbytes_per_s.on))
    if s is not None and s.server_mbytes_per_s is not None:
        items.append(svg.Bar("server generates", s.server_mbytes_per_s, "rows generated without sending them"))
    if not items:
        return []
    kind, link = route
    link = link or (s.link_speed_mbps if s is not None else None)
    refs: list[svg.Marker] = []
    if link:
        from advisor.measure import payload_ceiling_mbytes_per_s

        refs.append(svg.Marker(f"{link:,} Mb/s ceiling", payload_ceiling_mbytes_per_s(link)))
        basis = (f"the dashed line is the TCP payload ceiling of the {link:,} Mb/s link "
                 "(Mb/s × 10⁶/8 × 1460/1538).")
    elif kind in ("loopback", "socket") or (s is not None and s.route_kind in ("loopback", "socket")):
        basis = "no line rate: the path is loopback or a unix socket, so no NIC limits it."
    else:
        basis = "no line rate: the link speed of the route was not known."
    return [(svg.bars("stream", "Stream throughput against the line rate", items, "MB/s", refs, fmt=lambda v: f"{v:,.1f}"),
             f"MB/s = 10⁶ bytes per second of result data; {basis}")]


# ---------------------------------------------------------------- memory budget

def memory_chart(snap: Snapshot) -> list[Captioned]:
    """Worst-case memory (global buffers + max_connections × per-session buffers + assumed overhead,
    as the memory model advisor.rules.memory counts it) against RAM and the cgroup limit."""
    from advisor.knowledge import default_catalogue
    from advisor.rules.memory import TARGET_FRACTION, PlannedValues, compute_budget
    from advisor.versions import Version

    variables = snap.server.variables
    if not variables:
        return []
    try:
        version = Version.parse(snap.target.version)
    except ValueError:
        return []
    mem = snap.host.memory if snap.host is not None else None
    limit = mem.effective_limit_bytes or mem.total_bytes if mem is not None else None
    cpus = snap.host.cpu.logical_count if snap.host is not None else None
    budget = compute_budget(PlannedValues(snap.target.flavor, version, variables, default_catalogue(), cpus), limit)
    parts = [svg.Bar(f"{line.name} {format_size(line.bytes)}" if line.name != "connections"
                     else f"connections {line.detail} = {format_size(line.bytes)}", float(line.bytes), line.detail)
             for line in budget.lines]
    refs: list[svg.Marker] = []
    if mem is not None and mem.total_bytes:
        refs.append(svg.Marker("RAM", float(mem.total_bytes)))
    if mem is not None and mem.cgroup_limit_bytes:
        refs.append(svg.Marker("cgroup limit", float(mem.cgroup_limit_bytes)))
    if limit:
        refs.append(svg.Marker(f"{TARGET_FRACTION:.0%} of the limit", limit * TARGET_FRACTION))
    per = ", ".join(f"{p.name} {format_size(p.bytes)}" for p in budget.per_connection_parts)
    sums = (f"{format_size(budget.total - budget.overhead)} of buffers and connections + "
            f"{format_size(budget.overhead)} assumed server overhead = {format_size(budget.total)}")
    if limit:
        verdict = (f"{sums}, {budget.total / limit:.0%} of the {format_size(limit)} limit"
                   + ("." if budget.total <= limit else ": it does not fit."))
    else:
        verdict = f"{sums}; the host's memory was not collected, so there is no limit to compare."
    cap = (f"Worst case: {verdict} Connections: {budget.max_connections:,} × {format_size(budget.per_connection)} "
           f"({per}). The overhead is an assumption (1/16 of the limit, 128 MiB to 1 GiB), not a measurement.")
    if budget.assumptions:
        cap += " Assumed: " + "; ".join(budget.assumptions) + "."
    return [(svg.stacked_bar("memory", "Memory budget against RAM", parts, refs, format_size, "bytes", binary=True), cap)]


# ---------------------------------------------------------------- watch time series

def _get(d: Any, *path: str) -> Any:
    for p in path:
        if not isinstance(d, Mapping):
            return None
        d = d.get(p)
    return d


def _x(iv: Mapping[str, Any]) -> float:
    return float(iv.get("end_s") or 0.0)


def watch_charts(run: Mapping[str, Any]) -> list[Captioned]:
    """Charts of an `advisor.watch/1` series: throughput, CPU split, NIC traffic against the line
    rate and device utilisation, each over the seconds since the watch started."""
    ivs: Sequence[Mapping[str, Any]] = run.get("intervals") or []
    if not ivs:
        return []
    out: list[Captioned] = []
    step = _get(run, "setup", "interval_s")
    every = f"one point per {svg.fmt_number(float(step))} s interval" if step else "one point per interval"

    # throughput: sysbench's own reports, and the server's commits
    tps: list[tuple[float, Optional[float]]] = []
    for iv in ivs:
        rep = [r.get("tps") for r in iv.get("sysbench") or [] if r.get("tps") is not None]
        tps.append((_x(iv), sum(rep) / len(rep) if rep else None))
    commits = [(_x(iv), _sum_rates(iv, ("Com_commit", "Com_rollback"))) for iv in ivs]
    qps = [(_x(iv), _get(iv, "server", "rates", "Questions")) for iv in ivs]
    series = [svg.LineSeries(n, p) for n, p in (("sysbench tps", tps), ("server commits/s", commits)) if _any(p)]
    if series:
        out.append((svg.lines("tps", "Transactions per second", series, "per second"),
                    f"{every}; sysbench's --report-interval lines averaged per interval, and the server's "
                    "Com_commit + Com_rollback per second (the watcher's own statements removed)."))
    elif _any(qps):
        out.append((svg.lines("tps", "Queries per second", [svg.LineSeries("server Questions/s", qps)], "per second"),
                    f"{every}; the server's Questions counter per second (no sysbench lines were seen)."))

    for side, label in (("server_host", "server host"), ("client_host", "client host")):
        parts = ("user", "system", "irq", "iowait", "steal")
        cpu = {p: [(_x(iv), _pct(_get(iv, side, "cpu", p))) for iv in ivs] for p in parts}
        if not any(_any(v) for v in cpu.values()):
            continue
        cpus = next((c for iv in ivs if (c := _get(iv, side, "cpu", "cpus"))), None)
        out.append((svg.lines(f"cpu-{side.split('_')[0]}", f"CPU on the {label}",
                              [svg.LineSeries(p, cpu[p]) for p in parts], "% of CPU time", y_max=100.0, stacked=True,
                              yfmt=lambda v: f"{v:.0f}%"),
                    f"{every}; shares of the time of {cpus or 'all'} CPU{'s' if cpus != 1 else ''} "
                    "(user includes nice; irq is hard + soft interrupts); idle is the rest up to 100 %."))

    setups = [n for side in ("server_host", "client_host") for n in (_get(run, "setup", side, "nics") or [])]
    side_of = {n.get("interface"): n.get("side") for n in setups}
    nic_series: list[svg.LineSeries] = []
    refs: list[svg.Marker] = []
    for side in ("server_host", "client_host"):
        names = sorted({n.get("interface") for iv in ivs for n in (_get(iv, side, "nics") or []) if n.get("interface")})
        for name in names:
            for d in ("rx", "tx"):
                pts = [(_x(iv), next((n.get(f"{d}_mbytes_per_s") for n in (_get(iv, side, "nics") or [])
                                      if n.get("interface") == name), None)) for iv in ivs]
                if _any(pts):
                    nic_series.append(svg.LineSeries(f"{name} {d} ({side_of.get(name) or side.split('_')[0]})", pts))
    for n in setups:
        ceil = n.get("rx_ceiling_mbps") or n.get("tx_ceiling_mbps") or n.get("shaper_mbps") or n.get("speed_mbps")
        if ceil and not n.get("loopback"):
            m = svg.Marker(f"{n.get('interface')} {svg.fmt_number(float(ceil))} Mb/s", float(ceil) / 8)
            if all(abs(r.value - m.value) > 1e-9 for r in refs):
                refs.append(m)
    if nic_series:
        basis = ("dashed lines: each NIC's ceiling (shaper or link speed) in MB/s of wire bits (Mb/s ÷ 8)"
                 if refs else "no line rate is known for these interfaces (loopback, or speed not reported)")
        out.append((svg.lines("nic", "Network traffic against the line rate", nic_series[:6], "MB/s", refs=refs),
                    f"{every}; MB/s = 10⁶ bytes per second as the interface counts them; {basis}."
                    + (f" {len(nic_series) - 6} more series are in the JSON." if len(nic_series) > 6 else "")))

    disk_series: list[svg.LineSeries] = []
    for side in ("server_host",):
        names = sorted({d.get("device") for iv in ivs for d in (_get(iv, side, "disks") or []) if d.get("device")})
        for name in names:
            pts = [(_x(iv), _pct(next((d.get("utilisation") for d in (_get(iv, side, "disks") or [])
                                       if d.get("device") == name), None))) for iv in ivs]
            if _any(pts):
                disk_series.append(svg.LineSeries(name, pts))
    if disk_series:
        out.append((svg.lines("disk", "Device utilisation on the server host", disk_series[:6], "% busy",
                              y_max=100.0, yfmt=lambda v: f"{v:.0f}%"),
                    f"{every}; share of each interval with at least one I/O in flight (/proc/diskstats io_ticks); "
                    "on SSDs and NVMe 100 % busy is not saturation, the queue depth tells more."))
    return out


def _sum_rates(iv: Mapping[str, Any], names: Iterable[str]) -> Optional[float]:
    rates = _get(iv, "server", "rates")
    if not isinstance(rates, Mapping):
        return None
    vals = [rates[n] for n in names if rates.get(n) is not None]
    return float(sum(vals)) if vals else None


def _pct(v: Any) -> Optional[float]:
    return None if v is None else float(v) * 100.0


def _any(points: Sequence[tuple[float, Optional[float]]]) -> bool:
    return any(y is not None for _, y in points)
