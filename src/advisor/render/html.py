"""HTML reports: one self-contained file (inline CSS and SVG, no script, no font or image to fetch)
that reads on screen and on paper. Any command renders through `render_page(Page)`; the builders
here make the page of an audit, a calibration, a fleet run and a watch series. The view model holds
every string and every number already formatted; templates/report.html.j2 only loops
(StrictUndefined: a missing key is an error, never an empty cell).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from advisor import __version__
from advisor.render.terminal import group_by_reason
from advisor.render import charts as ch
from advisor.render import svg
from advisor.units import format_evidence

if TYPE_CHECKING:
    from advisor.report import Report
    from advisor.snapshot import Snapshot

TEMPLATE = "report.html.j2"
SEVERITIES = (("critical", "Critical"), ("warning", "Warning"), ("info", "Info"))


# ---------------------------------------------------------------- the view model

@dataclass(frozen=True)
class Stat:
    label: str
    value: str
    cls: str = ""


@dataclass(frozen=True)
class ChartView:
    id: str
    title: str
    caption: str
    svg: Any  # markupsafe.Markup
    points: int
    legend: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Row:
    key: str
    value: str


@dataclass(frozen=True)
class FindingView:
    rule: str
    severity: str
    title: str
    message: str
    category: str
    evidence: tuple[Row, ...]
    recommendation: tuple[Row, ...]
    fix: tuple[str, ...]       # zero or one paragraph
    notes: tuple[str, ...]
    references: tuple[str, ...]
    explain: str
    consequences: tuple[Row, ...] = ()  # a cause group's other fired rules: "[rule] (severity)" -> message


@dataclass(frozen=True)
class Group:
    severity: str
    label: str
    findings: tuple[FindingView, ...]


@dataclass(frozen=True)
class TableRow:
    cells: tuple[str, ...]
    cls: str = ""


@dataclass(frozen=True)
class Table:
    caption: str
    headers: tuple[str, ...]
    rows: tuple[TableRow, ...]


def table(caption: str, headers: Sequence[str], rows: Sequence[Sequence[str]], classes: Sequence[str] = ()) -> Table:
    cls = list(classes) + [""] * (len(rows) - len(classes))
    return Table(caption, tuple(headers), tuple(TableRow(tuple(r), c) for r, c in zip(rows, cls)))


@dataclass
class Section:
    id: str
    heading: str
    paragraphs: list[str] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    charts: list[ChartView] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    items: list[str] = field(default_factory=list)


@dataclass
class Page:
    title: str
    subtitle: str
    kind: str
    stats: list[Stat] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    footer: str = ""

    @property
    def chart_count(self) -> int:
        return sum(len(s.charts) for s in self.sections)


def chart_view(chart: svg.Chart, caption: str) -> ChartView:
    from markupsafe import Markup

    return ChartView(chart.id, chart.title, caption, Markup(chart.svg), chart.points, chart.legend)  # noqa: S704 (built and escaped by advisor.render.svg)


def charts_section(id_: str, heading: str, captioned: Sequence[ch.Captioned], paragraphs: Sequence[str] = ()) -> Optional[Section]:
    if not captioned:
        return None
    return Section(id_, heading, list(paragraphs), charts=[chart_view(c, cap) for c, cap in captioned])


# ---------------------------------------------------------------- rendering

def render_page(page: Page) -> str:
    """The page as one HTML document."""
    from advisor.render.templates import environment

    return environment().get_template(TEMPLATE).render(page=page, version=__version__)


# ---------------------------------------------------------------- audit

def finding_view(item: Any) -> FindingView:
    """A Finding (or a watch verdict read like one), or a FindingGroup: its lead with the group's title,
    recommendation and consequences (advisor.rules.groups)."""
    f = getattr(item, "lead", item)
    grouped = f is not item
    rec = item.recommendation if grouped else f.recommendation
    return FindingView(
        rule=f.rule, severity=f.severity, title=item.title, message=f.message, category=f.category,
        evidence=tuple(Row(k, format_evidence(k, v)) for k, v in f.evidence.items()),
        recommendation=tuple(Row(k, str(v)) for k, v in rec.items()),
        fix=(f.fix,) if f.fix else (), notes=tuple(f.notes), references=tuple(f.references),
        explain="advisor explain " + (" / ".join(item.rules) if grouped else f.rule),
        consequences=tuple(Row(f"[{q.rule}] ({q.severity})", q.message) for q in item.consequences) if grouped else ())


def findings_groups(findings: Sequence[Any]) -> list[Group]:
    """Findings, or a report's finding_groups (one per cause), under their severities."""
    groups = []
    for sev, label in SEVERITIES:
        fs = tuple(finding_view(f) for f in findings if f.severity == sev)
        if fs:
            groups.append(Group(sev, f"{label} ({len(fs)})", fs))
    return groups


_STATUS_LABEL = {"fired": "fired", "passed": "passed", "not_applicable": "not applicable", "unknown": "unknown"}


def audit_page(report: "Report", snap: Optional["Snapshot"] = None) -> Page:
    t = report.target
    counts, sev = report.counts(), report.finding_severity_counts()
    source = "live" if report.source == "live" else f"from {report.source}"
    page = Page(title=f"advisor audit — {t.title}",
                subtitle=f"purpose: {report.purpose} · {source}"
                         + (f" · collected {report.collected_at}" if report.collected_at else ""),
                kind="audit",
                stats=[Stat("critical", str(sev["critical"]), "critical"), Stat("warning", str(sev["warning"]), "warning"),
                       Stat("info", str(sev["info"]), "info"), Stat("passed", str(counts["passed"])),
                       Stat("not applicable", str(counts["not_applicable"])), Stat("unknown", str(counts["unknown"]))],
                footer=f"advisor {__version__} · report contract advisor.report/1 (JSON: --format json)")
    findings = Section("findings", "Findings", groups=findings_groups(report.finding_groups))
    if not report.findings:
        findings.paragraphs.append("No rule fired.")
    page.sections.append(findings)
    if snap is not None:
        mem = charts_section("memory", "Memory budget", ch.memory_chart(snap))
        if mem is not None:
            page.sections.append(mem)
        if snap.calibration is not None:
            page.sections += calibration_sections(snap)
    unknown = [o for o in report.outcomes if o.status == "unknown"]
    if unknown:
        page.sections.append(Section("unknown", "Not evaluated (facts missing)",
                                     items=group_by_reason(unknown, tuple(f"{m.fact}: {m.reason}" for m in report.missing))))
    page.sections.append(Section("outcomes", "Every rule", tables=[table(
        f"{len(report.outcomes)} rules: {counts['fired']} fired, {counts['passed']} passed, "
        f"{counts['not_applicable']} not applicable, {counts['unknown']} unknown",
        ("rule", "outcome", "reason"),
        tuple((o.rule, _STATUS_LABEL.get(o.status, o.status), o.reason) for o in report.outcomes),
        tuple(f"st-{o.status}" for o in report.outcomes))]))
    notes = [f"{m.fact}: {m.reason}" for m in report.missing] + list(report.notes)
    if notes:
        page.sections.append(Section("notes", "Not collected and notes", items=notes))
    return page


def render_audit(report: "Report", snap: Optional["Snapshot"] = None) -> str:
    return render_page(audit_page(report, snap))


# ---------------------------------------------------------------- calibration

def calibration_sections(snap: "Snapshot") -> list[Section]:
    from advisor.render import calibration as cal_render
    from advisor.rules.calibration import route_of, verdicts_of

    cal = snap.calibration
    if cal is None:
        return [Section("calibration", "Calibration", ["Calibration did not run."])]
    v = verdicts_of(snap)
    head = (f"{cal.duration_s:.1f} s of a {cal.budget_s or 0:g} s budget ({cal.mode or 'full'}), at most "
            f"{cal.connections_max or 0} connection{'' if cal.connections_max == 1 else 's'} open.")
    verdicts = table("Verdicts", ("probe", "verdict", "why"),
                     tuple((k, cal_render.verdict_label(x.code), x.why) for k, x in v.items()))
    sec = Section("calibration", "Calibration", [head], tables=[verdicts] if v else [],
                  items=[f"{m.fact}: {m.reason}" for m in cal.missing])
    sec.charts = [chart_view(c, cap) for c, cap in ch.calibration_charts(cal, route_of(snap))]
    measured = cal_render.body_lines(snap)
    if measured:
        sec.tables.append(table("Measurements", ("probe", "measured"),
                                tuple(_split_measured(measured))))
    return [sec]


def _split_measured(lines: Sequence[str]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for line in lines:
        if not line.strip() or line.startswith("not measured") or line.startswith("  "):
            continue
        label, text = line[:14].strip(), line[14:].strip()
        if label or not rows:
            rows.append((label, text))
        else:
            rows[-1] = (rows[-1][0], rows[-1][1] + " " + text)
    return rows


def calibration_page(snap: "Snapshot") -> Page:
    t = snap.target
    cal = snap.calibration
    stats = []
    if cal is not None:
        if cal.rtt_ms is not None and cal.rtt_ms.p50 is not None:
            stats.append(Stat("round trip p50", ch.ms_text(cal.rtt_ms.p50)))
        if cal.stream is not None and cal.stream.mbytes_per_s is not None:
            stats.append(Stat("stream", f"{cal.stream.mbytes_per_s:,.1f} MB/s"))
        if cal.fsync_ms is not None and cal.fsync_ms.p50 is not None:
            stats.append(Stat("flush p50", ch.ms_text(cal.fsync_ms.p50)))
        if cal.tls is not None and cal.tls.throughput_ratio is not None:
            stats.append(Stat("TLS ÷ plain stream", f"{cal.tls.throughput_ratio:.2f}"))
    page = Page(title=f"advisor calibrate — {t.title}",
                subtitle=f"collected {snap.collected_at}", kind="calibration", stats=stats,
                footer=f"advisor {__version__} · calibration contract advisor.calibration/1 (JSON: --format json)")
    page.sections += calibration_sections(snap)
    return page


def render_calibration(snap: "Snapshot") -> str:
    return render_page(calibration_page(snap))


# ---------------------------------------------------------------- fleet

def fleet_page(results: Sequence[Any], wall_seconds: float, jobs: int,
               rollup: Optional[Mapping[str, Any]] = None) -> Page:
    ok = [r for r in results if r.report is not None]
    totals = {s: sum(r.report.severity_counts()[s] for r in ok) for s, _ in SEVERITIES}
    page = Page(title=f"advisor fleet — {len(results)} targets",
                subtitle=f"{len(ok)} audited, {len(results) - len(ok)} failed, {wall_seconds:.2f} s wall with --jobs {jobs}",
                kind="fleet",
                stats=[Stat(s, str(totals[s]), s) for s, _ in SEVERITIES] + [Stat("failed", str(len(results) - len(ok)))],
                footer=f"advisor {__version__} · fleet contract advisor.fleet/1 (JSON: --format json)")
    rows, classes = [], []
    for r in results:
        if r.report is None:
            rows.append((r.target.text, "–", "–", "–", "–", f"{r.seconds:.3f}", f"error: {r.error}"))
            classes.append("st-unknown")
            continue
        sev = r.report.severity_counts()
        top = r.report.findings[0] if r.report.findings else None
        rows.append((r.target.text, f"{r.report.target.flavor} {r.report.target.version}", str(sev["critical"]),
                     str(sev["warning"]), str(sev["info"]), f"{r.seconds:.3f}",
                     f"{top.rule}: {top.title}" if top else "no findings"))
        classes.append("st-fired" if top else "st-passed")
    page.sections.append(Section("targets", "Targets", tables=[table(
        "One row per target", ("target", "server", "critical", "warning", "info", "seconds", "top finding"),
        tuple(rows), tuple(classes))]))
    if rollup is not None:
        page.sections += rollup_sections(rollup)
    for r in ok:
        groups = findings_groups(r.report.finding_groups)
        sec = Section(f"t{r.target.line}", f"{r.target.text} — {r.report.target.flavor} {r.report.target.version}",
                      groups=groups)
        if not groups:
            sec.paragraphs.append("No rule fired.")
        page.sections.append(sec)
    return page


def rollup_sections(rollup: Mapping[str, Any]) -> list[Section]:
    """The fleet roll-up (advisor.rollup): rules across hosts, hosts not audited, drift per group."""
    rules = Section("rollup-rules", f"Rules across {rollup['hosts_audited']} audited hosts", tables=[table(
        "Each rule that fired, with the hosts it fired on", ("severity", "rule", "hosts", "which"),
        tuple((r["severity"], f"{r['rule']}: {r['title']}", str(r["count"]), ", ".join(r["hosts"]))
              for r in rollup["rules"]), tuple("st-fired" for _ in rollup["rules"]))])
    if not rollup["rules"]:
        rules.paragraphs.append("No rule fired on any host.")
    out = [rules]
    if rollup["unreachable"]:
        out.append(Section("rollup-unreachable", f"Not audited ({len(rollup['unreachable'])})", tables=[table(
            "Hosts that could not be audited", ("host", "exit", "error"),
            tuple((u["host"], str(u["exit_code"]), u["error"]) for u in rollup["unreachable"]),
            tuple("st-unknown" for _ in rollup["unreachable"]))]))
    for group, rows in rollup["drift"].items():
        sec = Section(f"drift-{group}", f"Configuration drift in group {group}")
        if rows:
            sec.tables.append(table(f"Variables whose values differ between the hosts of {group}",
                                    ("variable", "value", "hosts"),
                                    tuple((row["variable"], v["value"], ", ".join(v["hosts"]))
                                          for row in rows for v in row["values"])))
        else:
            sec.paragraphs.append("Every variable has the same value on every host of the group.")
        out.append(sec)
    return out


def render_fleet(results: Sequence[Any], wall_seconds: float, jobs: int,
                 rollup: Optional[Mapping[str, Any]] = None) -> str:
    return render_page(fleet_page(results, wall_seconds, jobs, rollup))


# ---------------------------------------------------------------- watch

def watch_page(run: Mapping[str, Any], verdicts: Sequence[Mapping[str, Any]] = ()) -> Page:
    """The page of an `advisor.watch/1` series (a dict as the JSON holds it); `verdicts` are the
    watch report's findings ({rule, severity, title, message, fix, evidence?}) when there are any."""
    setup = run.get("setup") or {}
    target = setup.get("target") or {}
    cmd = (setup.get("command") or {}).get("display") or "no command"
    ivs = run.get("intervals") or []
    where = target.get("endpoint") or (f"{target.get('host')}:{target.get('port')}" if target.get("host") else "the server")
    flavor = " ".join(x for x in (target.get("flavor"), target.get("version")) if x)
    page = Page(title=f"advisor watch — {flavor + ' at ' if flavor else ''}{where}",
                subtitle=f"{run.get('started_at', '')} · {float(run.get('duration_s') or 0):.0f} s, "
                         f"{len(ivs)} intervals · {cmd}",
                kind="watch", footer=f"advisor {__version__} · series contract advisor.watch/1 (--save FILE)")
    summary = (setup.get("command") or {}).get("summary") or {}
    if summary.get("tps") is not None:
        page.stats.append(Stat("sysbench tps", svg.fmt_number(float(summary["tps"]))))
    if summary.get("latency_pct_ms") is not None:
        page.stats.append(Stat(f"p{summary.get('percentile') or 95} latency", ch.ms_text(float(summary["latency_pct_ms"]))))
    page.stats.append(Stat("intervals", str(len(ivs))))
    if verdicts:
        page.sections.append(Section("verdicts", "What limits the run", groups=findings_groups([_Obj(v) for v in verdicts])))
    sec = charts_section("series", "Time series", ch.watch_charts(run))
    if sec is not None:
        page.sections.append(sec)
    missing = [f"{m.get('fact')}: {m.get('reason')}" for m in (setup.get("missing") or [])]
    if missing or run.get("end_reason"):
        page.sections.append(Section("notes", "Notes", items=missing + ([f"ended: {run['end_reason']}"]
                                                                          if run.get("end_reason") else [])))
    return page


class _Obj:
    """A verdict dict read like a Finding."""

    def __init__(self, d: Mapping[str, Any]):
        self.rule = str(d.get("rule", ""))
        self.severity = str(d.get("severity", "info"))
        self.title = str(d.get("title", ""))
        self.message = str(d.get("message", ""))
        self.category = str(d.get("category", "watch"))
        self.evidence = dict(d.get("evidence") or {})
        self.recommendation = dict(d.get("recommendation") or {})
        self.fix = str(d.get("fix") or "")
        self.notes = list(d.get("notes") or [])
        self.references = list(d.get("references") or [])


def render_watch(run: Mapping[str, Any], verdicts: Sequence[Mapping[str, Any]] = ()) -> str:
    return render_page(watch_page(run, verdicts))
