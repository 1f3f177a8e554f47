"""Verdicts on calibration's measurements: what limited the stream probe, whether TLS costs
measurably, whether the server's sort buffer is slower, the flush class, how far the server is; and
the `calibration` object of a report. Pure: advisor.render.calibration prints them.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from advisor.measure import PLP_LIKE_BELOW_MS, flush_class, middle_half, payload_ceiling_mbytes_per_s, spans

LINE_RATE_FRACTION = 0.9  # stream at or above this share of the payload ceiling: the link is the ceiling
PATH_BOTTLENECK_FRACTION = 0.5  # below this share (client and server not the limit): something on the path
SERVER_HEADROOM = 1.5  # server row generation / stream rate below this: the server limited the probe
CALIBRATION_SCHEMA = "advisor.calibration/1"


def _uncertain(lo: float, hi: float, edges: tuple[float, ...], fmt: str, unit: str, value: float,
               what: str) -> Optional["Verdict"]:
    """Verdict 'uncertain' when the measurement's middle half (lo..hi) reaches across one of `edges`."""
    edge = next((e for e in edges if spans(lo, hi, e)), None)
    if edge is None:
        return None
    f = ("{:" + fmt + "}").format
    return Verdict("uncertain", f"{what} {f(value)}{unit}, but the middle half of the samples runs from {f(lo)}{unit} "
                   f"to {f(hi)}{unit}, across the {f(edge)}{unit} boundary: the measurement does not decide")


class Verdict(NamedTuple):  # not a dataclass: an audit imports this module (start-up, bench/startup.py)
    code: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"verdict": self.code, "why": self.why}


def stream_verdict(stream: Any, route_kind: Optional[str], link_mbps: Optional[int]) -> Verdict:
    """What limited the stream probe: the client's CPU, the server, the link, or something on the path."""
    if stream is None or stream.mbytes_per_s is None:
        return Verdict("not_measured", "the stream probe did not run")
    mb = stream.mbytes_per_s
    if route_kind in ("loopback", "socket"):
        return Verdict("no_network", f"{mb:.1f} MB/s over {'a unix socket' if route_kind == 'socket' else 'loopback'}: "
                       "no NIC is involved, so this is a client/server ceiling, not a network one")
    if stream.client_cpu_bound:
        return Verdict("client_bound", f"the client used {100 * (stream.client_cpu_fraction or 0):.0f}% of a CPU "
                       f"while reading {mb:.1f} MB/s; the client, not the network, was the limit")
    if not link_mbps:
        return Verdict("link_unknown", f"{mb:.1f} MB/s; the link speed of the route to the server is unknown, "
                       "so it cannot be compared with the line rate")
    ceiling = payload_ceiling_mbytes_per_s(link_mbps)
    frac = mb / ceiling
    head = (stream.server_mbytes_per_s / mb) if stream.server_mbytes_per_s and mb > 0 else None
    if frac >= LINE_RATE_FRACTION:
        return Verdict("line_rate", f"{mb:.1f} MB/s is {100 * frac:.0f}% of the {link_mbps} Mb/s link's "
                       f"{ceiling:.1f} MB/s payload ceiling: the link is the ceiling")
    if head is not None and head < SERVER_HEADROOM:
        return Verdict("server_bound", f"{mb:.1f} MB/s, while the server generates the same rows at only "
                       f"{stream.server_mbytes_per_s:.1f} MB/s without sending them: the server limited the probe")
    if frac < PATH_BOTTLENECK_FRACTION and head is not None:
        return Verdict("path_bottleneck", f"{mb:.1f} MB/s is {100 * frac:.0f}% of the {link_mbps} Mb/s link's "
                       f"{ceiling:.1f} MB/s payload ceiling with client and server idle enough: a shaper, proxy or "
                       "virtual NIC on the path caps throughput")
    return Verdict("below_line_rate", f"{mb:.1f} MB/s is {100 * frac:.0f}% of the {link_mbps} Mb/s link's "
                   f"{ceiling:.1f} MB/s payload ceiling")


# TLS verdict: a cost is "measurable" from 5 %: the on/off samples are interleaved on two connections, so
# the noise between them is far smaller, and for benchmark comparability any measurable cost matters.
# (On loopback here small queries take 1.1-1.5x as long and streams run at 80-88 % of plain; behind a
# link that is the bottleneck the stream ratio is about 1.)
TLS_THROUGHPUT_MEASURABLE = 0.95
TLS_QUERY_MEASURABLE = 1.05


def tls_verdict(tls: Any) -> Verdict:
    if tls is None:
        return Verdict("not_measured", "the TLS probe did not run")
    if not tls.available:
        return Verdict("unavailable", tls.reason or "TLS and plain connections could not both be made")
    parts = []
    cost = False
    if tls.throughput_ratio is not None:
        parts.append(f"stream {100 * tls.throughput_ratio:.0f}% of plain")
        cost |= tls.throughput_ratio < TLS_THROUGHPUT_MEASURABLE
    q = tls.query_ms
    if q.on is not None and q.off:
        r = tls.query_ratio if getattr(tls, "query_ratio", None) is not None else q.on / q.off
        if r >= 1:
            parts.append(f"small queries {r:.2f}x as slow")
            cost |= r >= TLS_QUERY_MEASURABLE
        else:  # TLS only adds work: a lower figure is scheduling noise
            parts.append(f"small queries not separable from scheduling noise ({q.on:.4f} ms on, {q.off:.4f} ms off)")
    lo, hi = getattr(tls, "query_ratio_p25", None), getattr(tls, "query_ratio_p75", None)
    stream_cost = tls.throughput_ratio is not None and tls.throughput_ratio < TLS_THROUGHPUT_MEASURABLE
    if not stream_cost and lo is not None and hi is not None and spans(lo, hi, TLS_QUERY_MEASURABLE):
        return Verdict("uncertain", "; ".join(parts) + f"; but the per-round TLS ÷ plain ratios' middle half runs from "
                       f"{lo:.2f} to {hi:.2f}, across {TLS_QUERY_MEASURABLE:.2f}: the measurement does not decide")
    h = tls.handshake_ms
    if h.on is not None and h.off:
        parts.append(f"handshake {h.on:.2f} ms vs {h.off:.2f} ms")
    return Verdict("measurable_cost" if cost else "negligible", "; ".join(parts) or "measured")


SORT_SLOWER = 1.2


def sort_verdict(sp: Any) -> Verdict:
    """Actionable or not: the server's value measurably slower (the sort-buffer rules fire) or not."""
    if sp is None or sp.ratio is None:
        return Verdict("not_measured", "the sort probe did not run")
    lo, hi = getattr(sp, "ratio_p25", None), getattr(sp, "ratio_p75", None)
    if lo is not None and hi is not None:
        u = _uncertain(lo, hi, (SORT_SLOWER,), ".2f", "", sp.ratio, "the ratio (server's value ÷ 256 KiB) was")
        if u is not None:
            return u
    if sp.ratio >= SORT_SLOWER:
        return Verdict("server_value_slower", f"the server's sort_buffer_size made the same sort {sp.ratio:.2f}x "
                       "as slow as a 256 KiB session value")
    return Verdict("server_value_not_slower", f"ratio {sp.ratio:.2f} (server's value ÷ 256 KiB): the server's "
                   "sort_buffer_size is not measurably slower")


FLUSH_EDGES_MS = (PLP_LIKE_BELOW_MS, 0.5, 3.0)  # advisor.measure.flush_class's boundaries
RTT_EDGES_MS = (0.5, 2.0)


def flush_verdict(cal: Any) -> Verdict:
    if cal.fsync_ms is None or cal.fsync_ms.p50 is None:
        return Verdict("not_measured", "the flush probe did not run")
    fl = cal.flush
    if fl is None or fl.flush_class != "memory":
        mid = middle_half(cal.fsync_ms)
        if mid is not None:
            u = _uncertain(mid[0], mid[1], FLUSH_EDGES_MS, ".3g", " ms", cal.fsync_ms.p50, "the median fdatasync was")
            if u is not None:
                return u
    if fl is not None and fl.flush_class:
        return Verdict(fl.flush_class, fl.class_reason)
    cls, why = flush_class(cal.fsync_ms.p50, None)
    return Verdict(cls or "unknown", why)


def rtt_verdict(rtt: Any) -> Verdict:
    if rtt is None or rtt.p50 is None:
        return Verdict("not_measured", "the round-trip probe did not run")
    mid = middle_half(rtt)
    if mid is not None:
        u = _uncertain(mid[0], mid[1], RTT_EDGES_MS, ".3g", " ms", rtt.p50, "the median round trip was")
        if u is not None:
            return u
    if rtt.p50 < 0.5:
        return Verdict("near", f"median {rtt.p50:.3f} ms: same host or a fast local network")
    if rtt.p50 < 2.0:
        return Verdict("lan", f"median {rtt.p50:.2f} ms: a local network with some hops")
    return Verdict("far", f"median {rtt.p50:.1f} ms: every statement waits this long; chatty clients suffer")


def verdicts(cal: Any, route_kind: Optional[str], link_mbps: Optional[int]) -> dict[str, Verdict]:
    out = {"rtt": rtt_verdict(cal.rtt_ms)}
    if cal.mode != "light":
        out["stream"] = stream_verdict(cal.stream, route_kind, link_mbps)
        out["tls"] = tls_verdict(cal.tls)
        out["sort"] = sort_verdict(cal.sort_probe)
        out["flush"] = flush_verdict(cal)
    if cal.commit_ms is not None and cal.commit_ms.p50 is not None:
        out["commit"] = Verdict("measured", f"median autocommit insert {cal.commit_ms.p50:.2f} ms")
    return out


def route_of(snapshot: Any) -> tuple[Optional[str], Optional[int]]:
    """(route kind, link Mb/s) for the verdicts: the client facts' route when collected, else what the
    stream probe recorded about its own connection."""
    client = getattr(snapshot, "client", None)
    if client is not None and client.route is not None:
        r = client.route
        speed = r.speed_mbps if r.kind == "interface" and r.speed_mbps and r.speed_mbps > 0 else None
        return r.kind, speed
    cal = getattr(snapshot, "calibration", None)
    st = getattr(cal, "stream", None) if cal is not None else None
    if st is not None:
        return st.route_kind, st.link_speed_mbps
    return None, None


def verdicts_of(snap: Any) -> dict[str, Verdict]:
    """The verdicts on a snapshot's calibration ({} when it has none)."""
    if snap.calibration is None:
        return {}
    kind, link = route_of(snap)
    return verdicts(snap.calibration, kind, link)


def calibration_document(snap: Any) -> dict[str, Any]:
    """`advisor calibrate --format json` (advisor.calibration/1): target, measurements, verdicts."""
    cal = snap.calibration
    t = snap.target
    body: dict[str, Any] = {
        "schema": CALIBRATION_SCHEMA,
        "target": {"host": t.host if t.transport == "tcp" else (t.socket or "localhost"), "port": t.port,
                   "transport": t.transport, "flavor": t.flavor, "version": t.version},
        "collected_at": snap.collected_at,
    }
    if cal is not None:
        body.update(cal.model_dump())
    body["verdicts"] = {k: v.to_dict() for k, v in verdicts_of(snap).items()}
    return body


def report_calibration(snap: Any) -> Optional[dict[str, Any]]:
    """The `calibration` object of an audit report: the measurements with their sample counts and
    the verdicts, as `advisor calibrate --format json` gives them (without its schema and target)."""
    if snap.calibration is None:
        return None
    body = calibration_document(snap)
    for k in ("schema", "target", "collected_at"):
        body.pop(k, None)
    return body
