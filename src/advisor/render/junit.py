"""JUnit XML output, the format most CI systems show as test results: one test suite per audited
server, one test case per rule (classname advisor.<category>). A finding at or above the failure
threshold (--fail-on, default warning) is a <failure>; a finding below it passes and carries its
text in <system-out>; not applicable and unknown (a fact was missing) are <skipped> with the reason.
Pure: reports and rules in, a string out.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence
from xml.etree import ElementTree as ET

from advisor.rules.schema import SEVERITY_RANK
from advisor.units import format_evidence


def _server(report: Any) -> str:
    t = report.target
    if t.transport != "tcp":
        return t.socket or "localhost"
    return t.where or f"{t.flavor}-{t.version} (address not known)"


def _finding_text(f: Any) -> str:
    lines = [f.message]
    lines += [f"evidence: {k} = {format_evidence(k, v)}" for k, v in f.evidence.items()]
    if f.recommendation:
        lines.append("recommend: " + ", ".join(f"{k} = {v}" for k, v in f.recommendation.items()))
    if f.fix:
        lines.append(f"fix: {f.fix}")
    lines += [f"note: {n}" for n in f.notes]
    lines.append(f"see: advisor explain {f.rule}")
    return "\n".join(lines)


def suite(report: Any, rules: Sequence[Any], fail_on: str = "warning") -> ET.Element:
    category = {r.id: r.spec.category for r in rules}
    findings = {f.rule: f for f in report.findings}
    t = report.target
    el = ET.Element("testsuite", name=f"advisor audit {_server(report)} ({t.flavor} {t.version}, {report.purpose})",
                    timestamp=report.collected_at or "", hostname=_server(report), time="0")
    props = ET.SubElement(el, "properties")
    for k, v in (("flavor", t.flavor), ("version", t.version), ("purpose", report.purpose), ("source", report.source),
                 ("fail_on", fail_on)):
        ET.SubElement(props, "property", name=k, value=str(v))
    failures = skipped = 0
    for o in report.outcomes:
        tc = ET.SubElement(el, "testcase", classname=f"advisor.{category.get(o.rule, 'rules')}", name=o.rule, time="0")
        f = findings.get(o.rule) if o.status == "fired" else None
        if f is not None and SEVERITY_RANK[f.severity] >= SEVERITY_RANK[fail_on]:
            fail = ET.SubElement(tc, "failure", type=f.severity, message=f"{f.severity}: {f.title}")
            fail.text = _finding_text(f)
            failures += 1
        elif f is not None:
            out = ET.SubElement(tc, "system-out")
            out.text = f"{f.severity} (below --fail-on {fail_on}): {f.title}\n{_finding_text(f)}"
        elif o.status in ("not_applicable", "unknown"):
            ET.SubElement(tc, "skipped", message=f"{o.status.replace('_', ' ')}: {o.reason}")
            skipped += 1
    el.set("tests", str(len(report.outcomes)))
    el.set("failures", str(failures))
    el.set("errors", "0")
    el.set("skipped", str(skipped))
    return el


def render(reports: Sequence[Any], rules: Optional[Sequence[Any]] = None, fail_on: str = "warning") -> str:
    if rules is None:
        from advisor.rules.loader import load_rules

        rules = load_rules()
    root = ET.Element("testsuites", name="advisor")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for r in reports:
        s = suite(r, rules, fail_on)
        root.append(s)
        for k in totals:
            totals[k] += int(s.get(k, "0"))
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
