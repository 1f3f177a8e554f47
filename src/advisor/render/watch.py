"""Renderers for `advisor watch`: the live per-interval table, the final report as text, Markdown and
JSON. Pure: they return strings; the CLI writes them."""

from __future__ import annotations

from advisor.render import json_out

import json
import textwrap
from typing import Any, Optional

from advisor.rules.facts import FILTERS
from advisor.units import format_evidence, format_number
from advisor.watch.model import HostInterval, Interval, WatchRun
from advisor.versions import flavor_name
from advisor.watch.report import REPORT_SCHEMA, WatchReport

_COL = {"warning": "\033[33m", "info": "\033[36m", "critical": "\033[1;31m", "dim": "\033[2m", "bold": "\033[1m",
        "reset": "\033[0m"}
SEP = "|"


# ---------------------------------------------------------------------- the live table

def _host(run: WatchRun, iv: Interval) -> Optional[HostInterval]:
    return iv.server_host


def _client(run: WatchRun, iv: Interval) -> Optional[HostInterval]:
    return iv.server_host if run.setup.same_host else iv.client_host


def table_header(run: WatchRun) -> list[str]:
    return [
        f"{'t(s)':>6} {'TPS':>8} {'QPS':>8} {'run':>4} {SEP} {'cpu%':>4} {'us':>3} {'sy':>3} {'wa':>3} {'st':>3} {SEP} "
        f"{'mysqld':>6} {'client':>6} {SEP} {'disk%':>5} {'r/s':>6} {'w/s':>6} {SEP} {'net MB/s':>8} {'line%':>5} {SEP} "
        f"{'miss%':>5}",
    ]


def _n(v: Optional[float], width: int, digits: int = 0) -> str:
    if v is None:
        return f"{'-':>{width}}"
    return f"{v:>{width},.{digits}f}"


def table_row(run: WatchRun, iv: Interval, latest_tps: Optional[float] = None) -> str:
    """One interval. `latest_tps`: for the live table, the benchmark's last reported rate (its line
    for this interval often arrives a moment after the watch sampled)."""
    tps = [r.tps if r.tps is not None else r.eps for r in iv.sysbench]
    tps = [t for t in tps if t is not None] or ([latest_tps] if latest_tps is not None else [])
    srv = iv.server
    qps = srv.rates.get("Questions") if srv else None
    running = srv.gauges.get("Threads_running") if srv else None
    h, c = _host(run, iv), _client(run, iv)
    cpu = h.cpu if h else None
    mysqld = h.mysqld.cores if h and h.mysqld else None
    cmd = c.command.cores if c and c.command else None
    disk = max(h.disks, key=lambda d: d.utilisation) if h and h.disks else None
    nets = [n for x in {id(x): x for x in (h, c) if x is not None}.values() for n in x.nics]
    net_mb = max((max(n.rx_mbytes_per_s, n.tx_mbytes_per_s) for n in nets), default=None)
    utils = [u for n in nets for u in (n.rx_utilisation, n.tx_utilisation) if u is not None]
    miss = None
    if srv and srv.rates.get("Innodb_buffer_pool_read_requests"):
        miss = 100 * srv.rates.get("Innodb_buffer_pool_reads", 0.0) / srv.rates["Innodb_buffer_pool_read_requests"]
    pct = (lambda x: None if x is None else 100 * x)  # noqa: E731
    return (f"{iv.end_s:>6.1f} {_n(sum(tps) / len(tps) if tps else None, 8)} {_n(qps, 8)} {_n(running, 4)} {SEP} "
            f"{_n(pct(cpu.busy) if cpu else None, 4)} {_n(pct(cpu.user) if cpu else None, 3)} "
            f"{_n(pct(cpu.system + cpu.irq) if cpu else None, 3)} {_n(pct(cpu.iowait) if cpu else None, 3)} "
            f"{_n(pct(cpu.steal) if cpu else None, 3)} {SEP} {_n(mysqld, 6, 2)} {_n(cmd, 6, 2)} {SEP} "
            f"{_n(pct(disk.utilisation) if disk else None, 5)} {_n(disk.reads_per_s if disk else None, 6)} "
            f"{_n(disk.writes_per_s if disk else None, 6)} {SEP} {_n(net_mb, 8, 2)} "
            f"{_n(pct(max(utils)) if utils else None, 5)} {SEP} {_n(miss, 5, 1)}")


def table(run: WatchRun) -> list[str]:
    return table_header(run) + [table_row(run, iv) for iv in run.intervals]


# ---------------------------------------------------------------------- text

def _where(run: WatchRun) -> str:
    t = run.setup.target
    where = (f"{t.host}:{t.port}" if t.host else "") if t.transport == "tcp" else (t.socket or "socket")
    name = f"{flavor_name(t.flavor or 'server')} {t.version or ''}".strip()
    return f"{name} at {where}" if where else f"{name} (address not known)"


def setup_lines(run: WatchRun) -> list[str]:
    s = run.setup
    out = [f"watching {_where(run)} every {s.interval_s:g} s"
           + (f" for {s.seconds:g} s" if s.seconds else "") + (f"; TLS {s.target.tls}" if s.target.tls else "")]
    if s.command:
        out.append(f"command: {s.command.display}")
    for h in (s.server_host, s.client_host):
        if h is None:
            continue
        cpus = f"{h.cpus_available:g} of {h.cpu_count} CPUs" if h.role != "client" and h.cpus_available else f"{h.cpu_count} CPUs"
        nics = ", ".join(f"{n.interface}{' (mysqld netns)' if n.netns else ''} [{n.ceiling_source}]" for n in h.nics)
        disks = f", datadir on {', '.join(h.datadir_devices)}" if h.datadir_devices else ""
        pid = f", mysqld pid {h.mysqld_pid}" if h.mysqld_pid else ""
        out.append(f"{h.role} host {h.hostname or ''} ({h.origin}): {cpus}{pid}{disks}; " + (nics or "no interface"))
    out += [f"not sampled: {m.reason}" for m in s.missing if m.fact in ("server_host", "client_host")]
    if s.audit.ran:
        out.append(f"audit at start: {len(s.audit.findings)} findings"
                   + (f" ({', '.join(f.rule for f in s.audit.findings[:6])}{', ...' if len(s.audit.findings) > 6 else ''})"
                      if s.audit.findings else ""))
    return out


def _fmt(name: str, values: dict[str, Any]) -> str:
    v = values.get(name)
    if v is None:
        return "-"
    from advisor.watch.facts import FACTS

    unit = FACTS[name].unit if name in FACTS else ""
    if unit == "fraction":
        return FILTERS["pct"](v)
    if unit == "MB/s":
        return FILTERS["mbytes"](v)
    if unit == "ms":
        return FILTERS["ms"](v)
    if unit == "µs":
        return f"{v:,.1f} µs"
    if isinstance(v, float):
        return format_number(round(v, 2))
    return str(v)


SUMMARY_ROWS = (
    ("TPS", "watch.tps"), ("queries/s", "watch.load.qps"), ("latency (sysbench pct)", "watch.sysbench.latency_ms"),
    ("server CPU busy", "watch.server.cpu.busy"), ("  user", "watch.server.cpu.user"),
    ("  system", "watch.server.cpu.system"), ("  iowait", "watch.server.cpu.iowait"),
    ("mysqld CPUs", "watch.server.mysqld.cores"), ("mysqld CPU µs per query", "watch.server.mysqld.cpu_us_per_query"),
    ("client command CPUs", "watch.client.command.cores"),
    ("client host CPU busy", "watch.client.cpu.busy"), ("network", "watch.net.mbytes_per_s"),
    ("  of line rate", "watch.net.utilisation"), ("datadir device busy", "watch.disk.utilisation"),
    ("buffer pool miss rate", "watch.bp.miss_rate"), ("TLS share of connections", "watch.tls.share"),
    ("threads running", "watch.lock.threads_running"),
)


def summary_lines(report: WatchReport) -> list[str]:
    v = report.values
    if report.baseline is None:
        return [f"  {label:<26} {_fmt(name, v)}" for label, name in SUMMARY_ROWS if name in v]
    b = report.baseline_values
    out = [f"  {'':<26} {'this run':>14} {'baseline':>14}"]
    out += [f"  {label:<26} {_fmt(name, v):>14} {_fmt(name, b):>14}" for label, name in SUMMARY_ROWS
            if name in v or name in b]
    return out


def render_text(report: WatchReport, color: bool = False, with_table: bool = False, width: int = 100) -> str:
    def c(name: str, text: str) -> str:
        return f"{_COL[name]}{text}{_COL['reset']}" if color else text

    # never split an identifier (innodb_buffer_pool_size, sizing.buffer-pool): long words overflow the line
    wrap = lambda s, ind: textwrap.fill(s, width=width, initial_indent=ind, subsequent_indent=ind,  # noqa: E731
                                        break_long_words=False, break_on_hyphens=False)
    run = report.run
    lines: list[str] = []
    if with_table:
        lines += [c("bold", f"advisor watch — {_where(run)}")] + setup_lines(run) + [""] + table(run) + [""]
    n = len(run.intervals)
    head = f"{n} interval{'s' if n != 1 else ''}, {run.duration_s:.1f} s; {run.end_reason or 'ended'}"
    if report.source != "live":
        head += f" (from {report.source})"
    lines.append(c("bold", "VERDICT" + (f" (partial: {report.partial_why})" if report.partial else "")) + f" — {head}")
    fired = report.fired
    for r in report.uncertain:
        lines.append(c("warning", f"  [{r.verdict.id}] ") + c("bold", "uncertain: ") +
                     wrap(r.outcome.reason[len("uncertain: "):], "").strip())
    if report.uncertain and fired:
        lines.append(c("dim", "    so none of the verdicts below is named as the run's limit"))
    if not fired:
        lines.append("  no verdict: " + "; ".join(f"{r.verdict.id}: {r.outcome.reason}" for r in report.results[:3]))
    for i, r in enumerate(fired):
        f = r.outcome.finding
        assert f is not None
        if i == 1:
            lines.append(c("bold", "ALSO"))
        lines.append(c(f.severity, f"  [{f.rule}] ") + c("bold", f.title))
        lines.append(wrap(f.message, "    "))
        if f.evidence:
            lines.append(wrap("evidence: " + "; ".join(f"{k} = {_ev(k, x)}" for k, x in f.evidence.items()), "    "))
        if f.fix:
            lines.append(wrap("fix: " + f.fix, "    "))
        for cause in r.causes:
            lines.append(wrap(f"likely configuration cause (audit [{cause.rule}]): {cause.message}", "    "))
            if cause.fix:
                lines.append(wrap(f"its fix: {cause.fix}", "      "))
        if r.verdict.spec.causes and not r.causes and report.run.setup.audit.ran:
            lines.append(c("dim", wrap("the audit at the start found none of its configuration causes: "
                                        + cause_statuses(report, r), "    ")))
        lines.append(c("dim", f"    see: advisor explain {f.rule}"))
        lines.append("")
    checked = [r for r in report.results if r.outcome.status == "passed" and r.verdict.spec.kind == "bottleneck"]
    if checked:
        lines.append(c("bold", "CHECKED") + " (within limits)")
        lines += [wrap(r.checked, "  ") for r in checked]
        lines.append("")
    unknown = [r for r in report.results if r.outcome.status == "unknown"]
    if unknown:
        lines.append(c("dim", "Not judged (facts missing):"))
        lines += [c("dim", wrap(f"{r.verdict.id}: {r.outcome.reason}", "  ")) for r in unknown]
        lines.append("")
    lines.append(c("bold", "MEASURED") + (f" (against the baseline {report.baseline_name})" if report.baseline else ""))
    lines += summary_lines(report)
    notes = [m for m in run.setup.missing if m.fact not in ("server_host", "client_host") or not with_table]
    if notes:
        lines.append("")
        lines += [c("dim", wrap(f"note: {m.reason}", "  ")) for m in notes]
    cost = watcher_cost(run)
    if cost:
        lines.append(c("dim", f"  watcher: {cost}"))
    return "\n".join(lines).rstrip() + "\n"


def cause_statuses(report: WatchReport, r: Any) -> str:
    """'network-link-saturated unknown (calibration did not run), ...' for a verdict's causes."""
    audit = report.run.setup.audit
    parts = []
    for rule in r.verdict.spec.causes:
        st = audit.statuses.get(rule)
        if st is None:
            continue
        why = audit.unknown.get(rule, "")
        parts.append(f"{rule} {st.replace('_', ' ')}" + (f" ({why.split(': ', 1)[-1][:90]})" if why else ""))
    return "; ".join(parts) or "none of them ran"


def _ev(path: str, v: Any) -> str:
    from advisor.watch.facts import FACTS

    if path in FACTS and FACTS[path].unit == "fraction" and isinstance(v, (int, float)) and not isinstance(v, bool):
        return FILTERS["pct"](v)
    if isinstance(v, float):
        return format_number(round(v, 3))
    return format_evidence(path, v)


def watcher_cost(run: WatchRun) -> str:
    if not run.intervals or run.duration_s <= 0:
        return ""
    share = run.watcher_cpu_s / run.duration_s
    stm = run.setup.statements_per_interval
    return (f"{run.watcher_cpu_s:.3f} CPU-s over {run.duration_s:.1f} s ({share * 100:.2f} % of one CPU), "
            f"{stm} statements per interval")


# ---------------------------------------------------------------------- Markdown

def render_markdown(report: WatchReport) -> str:
    run = report.run
    out = [f"# advisor watch — {_where(run)}", ""]
    out += [f"- {x}" for x in setup_lines(run)]
    out += ["", f"## Verdict{f' (partial: {report.partial_why})' if report.partial else ''}", ""]
    fired = report.fired
    for r in report.uncertain:
        out += [f"Uncertain: `{r.verdict.id}`: {r.outcome.reason[len('uncertain: '):]}", ""]
    if not fired:
        out.append("No verdict could be reached.")
    for r in fired:
        f = r.outcome.finding
        assert f is not None
        out += [f"### `{f.rule}`: {f.title}", "", f.message, ""]
        if f.evidence:
            out += ["| evidence | value |", "|---|---|"]
            out += [f"| `{k}` | {_ev(k, x)} |" for k, x in f.evidence.items()]
            out.append("")
        if f.fix:
            out += [f"**Fix.** {f.fix}", ""]
        for cause in r.causes:
            out += [f"**Likely configuration cause** (audit `{cause.rule}`): {cause.message}", ""]
    checked = [r for r in report.results if r.outcome.status == "passed" and r.verdict.spec.kind == "bottleneck"]
    if checked:
        out += ["## Checked", ""] + [f"- {r.checked}" for r in checked] + [""]
    unknown = [r for r in report.results if r.outcome.status == "unknown"]
    if unknown:
        out += ["## Not judged", ""] + [f"- `{r.verdict.id}`: {r.outcome.reason}" for r in unknown] + [""]
    out += ["## Measured", "", "```"] + summary_lines(report) + ["```", "", "## Intervals", "", "```"]
    out += table(run) + ["```", ""]
    cost = watcher_cost(run)
    if cost:
        out += [f"Watcher: {cost}.", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------- JSON

def report_dict(report: WatchReport) -> dict[str, Any]:
    primary = report.primary
    return {
        "schema": REPORT_SCHEMA,
        "verdict": {"primary": primary.verdict.id if primary else None, "partial": report.partial,
                    "fired": [r.verdict.id for r in report.fired],
                    "uncertain": [r.verdict.id for r in report.uncertain]},
        "results": [r.to_dict() for r in report.results],
        "summary": {k: (round(v, 6) if isinstance(v, float) else v) for k, v in report.values.items()},
        "unknown": dict(report.missing),
        "baseline": ({"name": report.baseline_name, "summary": {k: (round(v, 6) if isinstance(v, float) else v)
                                                                for k, v in report.baseline_values.items()}}
                     if report.baseline is not None else None),
        "run": json.loads(report.run.model_dump_json(by_alias=True)),
    }


def render_json(report: WatchReport) -> str:
    return json_out.dumps(report_dict(report), indent=1) + "\n"
