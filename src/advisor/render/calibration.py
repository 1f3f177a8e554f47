"""Renderers for `advisor calibrate`: plain text for a terminal and JSON (`advisor.calibration/1`,
docs/calibration.md). They return strings and never print."""

from __future__ import annotations

from typing import Optional

from advisor.render import json_out
from advisor.render.layout import fill, hang

from advisor.rules.calibration import calibration_document, verdicts_of
from advisor.snapshot import Snapshot
from advisor.units import format_size



def _ms(v: Optional[float]) -> str:
    if v is None:
        return "–"
    return f"{v:.3f} ms" if v < 1 else (f"{v:.2f} ms" if v < 10 else f"{v:.0f} ms")


def _mb(v: Optional[float]) -> str:
    return "–" if v is None else f"{v:,.1f} MB/s"


def render_json(snap: Snapshot) -> str:
    return json_out.dumps(calibration_document(snap), indent=2) + "\n"


def render_text(snap: Snapshot, width: int = 100) -> str:
    cal = snap.calibration
    t = snap.target
    if cal is None:
        return fill(f"advisor calibrate — {t.title}: calibration did not run.", width, "") + "\n"
    head = (f"advisor calibrate — {t.title} — {cal.duration_s:.1f} s of a "
            f"{cal.budget_s or 0:g} s budget ({cal.mode}), at most {cal.connections_max or 0} "
            f"connection{'' if cal.connections_max == 1 else 's'} open")
    return "\n".join([fill(head, width, ""), "", *wrap_body(body_lines(snap), width)]).rstrip() + "\n"


# The verdict codes (advisor.rules.calibration, advisor.measure.flush_class) stay in JSON; a person
# reads these words. A code without a label is shown with its underscores as spaces, never raw.
VERDICT_LABELS = {
    "near": "near", "lan": "local network", "far": "far", "no_network": "no network in the path",
    "client_bound": "bound by the client", "link_unknown": "link speed unknown", "line_rate": "at line rate",
    "server_bound": "bound by the server", "path_bottleneck": "capped on the path",
    "below_line_rate": "below line rate", "unavailable": "not available", "measurable_cost": "measurable cost",
    "negligible": "negligible", "server_value_slower": "server's value slower",
    "server_value_not_slower": "server's value not slower", "not_measured": "not measured",
    "measured": "measured", "memory": "in memory", "plp_like": "like power-loss-protected storage",
    "intermediate": "intermediate", "client_nvme_like": "like a client NVMe drive", "slow": "slow",
    "unknown": "unknown",
}


def verdict_label(code: str) -> str:
    return VERDICT_LABELS.get(code, code.replace("_", " "))


LABEL_WIDTH = 14  # body_lines' label column: "round trips", "sort buffer", ...


def wrap_body(lines: list[str], width: int, indent: str = "") -> list[str]:
    """body_lines wrapped to `width` for a terminal, each behind `indent`: a probe's text continues
    under its text column (a verdict's under the text after its arrow, a "not measured" entry's under
    its reason), never under the label."""
    out = []
    for line in lines:
        if not line:
            out.append("")
            continue
        lead = len(line) - len(line.lstrip(" "))
        if lead >= LABEL_WIDTH:
            at = lead + (2 if line.lstrip().startswith("→ ") else 0)
        elif lead:
            at = lead + 2
        else:
            at = LABEL_WIDTH if len(line) > LABEL_WIDTH and line[LABEL_WIDTH - 1] == " " else 2
        out.append(hang(line, width, len(indent) + at, indent))
    return out


def body_lines(snap: Snapshot) -> list[str]:
    """The measurements and their verdicts, one probe per block, without the header line: what
    `advisor calibrate` prints and what an audit's report shows under "Measured"."""
    cal = snap.calibration
    if cal is None:
        return []
    lines: list[str] = []
    v = verdicts_of(snap)
    w = LABEL_WIDTH

    def row(label: str, text: str) -> None:
        lines.append(f"{label:<{w}}{text}")

    def verdict(key: str) -> None:
        if key in v:
            lines.append(f"{'':<{w}}→ {verdict_label(v[key].code)}: {v[key].why}")

    r = cal.rtt_ms
    if r is not None and r.samples:
        row("round trips", f"SELECT 1: p50 {_ms(r.p50)}, p99 {_ms(r.p99)} ({r.samples:,} samples)")
        verdict("rtt")
    s = cal.stream
    if s is not None and s.mbytes_per_s is not None:
        enc = "TLS" if s.tls else "plain"
        basis = "bytes on the socket (TCP_INFO)" if s.basis == "tcp_info" else "result bytes"
        row("stream", f"{_mb(s.mbytes_per_s)} over {s.transport} ({enc}), {s.chunks} queries, {s.bytes / 1e6:,.1f} MB "
                      f"in {s.seconds:.2f} s, counted as {basis}")
        extra = f"client CPU {100 * (s.client_cpu_fraction or 0):.0f}% of wall time"
        if s.server_mbytes_per_s is not None:
            extra += f"; the server generates the rows at {_mb(s.server_mbytes_per_s)}"
        if s.link_speed_mbps:
            extra += (f"; link {s.link_speed_mbps:,} Mb/s, payload ceiling {_mb(s.payload_ceiling_mbytes_per_s)} "
                      f"({100 * (s.line_rate_fraction or 0):.0f}% used)")
        row("", extra)
        verdict("stream")
    sp = cal.sort_probe
    if sp is not None and sp.ratio is not None:
        row("sort buffer", f"{format_size(sp.server_value)}: {_ms(sp.server_ms)}, {format_size(sp.small_value)}: "
                           f"{_ms(sp.small_ms)} → ratio {sp.ratio:.2f} ({sp.samples} runs each, {sp.rows:,} rows)")
        verdict("sort")
    tl = cal.tls
    if tl is not None:
        if tl.available:
            row("TLS", f"handshake {_ms(tl.handshake_ms.on)} on / {_ms(tl.handshake_ms.off)} off ({tl.samples} each); "
                       f"SELECT 1 {_ms(tl.query_ms.on)} / {_ms(tl.query_ms.off)}")
            ratio = f" (ratio {tl.throughput_ratio:.2f})" if tl.throughput_ratio is not None else ""
            row("", f"stream {_mb(tl.stream_mbytes_per_s.on)} on / {_mb(tl.stream_mbytes_per_s.off)} off{ratio}; "
                    f"{tl.tls_version or ''} {tl.tls_cipher or ''}".rstrip())
        else:
            side = "TLS" if tl.tls_possible else ("plain" if tl.plain_possible else "neither")
            row("TLS", f"not compared: {v['tls'].why}")  # the verdict's reason, with its fallback
            if side != "neither":
                on_off = tl.handshake_ms.on if tl.tls_possible else tl.handshake_ms.off
                row("", f"{side} only: handshake {_ms(on_off)}, stream "
                        f"{_mb(tl.stream_mbytes_per_s.on if tl.tls_possible else tl.stream_mbytes_per_s.off)}")
        if tl.available:
            verdict("tls")
    f = cal.fsync_ms
    if f is not None and f.samples:
        fl = cal.flush
        where_fs = f" in {fl.path} ({fl.fstype or 'unknown fs'})" if fl else ""
        row("flush", f"16 KiB write + fdatasync{where_fs}: p50 {_ms(f.p50)}, p99 {_ms(f.p99)} ({f.samples:,} samples)")
        verdict("flush")
    c = cal.commit_ms
    if c is not None and c.samples:
        wp = cal.write_probe
        row("commit", f"autocommit INSERT: p50 {_ms(c.p50)}, p99 {_ms(c.p99)} ({c.samples:,} samples)"
                      + (f"; scratch schema {wp.schema_name} {wp.cleanup}" if wp else ""))
    if cal.missing:
        lines.append("")
        lines.append("not measured:")
        for m in cal.missing:
            lines.append(f"  {m.fact}: {m.reason}")
    return lines
