"""SARIF 2.1.0 output (OASIS Static Analysis Results Interchange Format), so CI systems and
SARIF viewers show findings natively. One run per audited server, located logically at the server
and the variables a finding is about. By default a result per finding (kind "fail" with the level
its severity maps to) and a reportingDescriptor per rule that has one (help text from the rule file,
helpUri to its generated page); the unknown outcomes (a fact was missing: no recommendation, so no
alert) are listed in the run's properties. That keeps a server's log to tens of kilobytes, inside
code-scanning upload limits. `everything` (audit --sarif-all): a result for every outcome (passed:
"pass", not applicable: "notApplicable", unknown: "open") and a descriptor for every rule evaluated,
about 1.5 MB a server. Pure: reports and rules in, a string out.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Optional, Sequence

from advisor import PROJECT_URL, __version__, docs_url
from advisor.units import format_evidence

SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {"critical": "error", "warning": "warning", "info": "note"}
KIND = {"fired": "fail", "passed": "pass", "not_applicable": "notApplicable", "unknown": "open"}


def _server_name(report: Any) -> str:
    t = report.target
    if t.transport != "tcp":
        return t.socket or "localhost"
    return t.where or f"{t.flavor}-{t.version} (address not known)"


def _descriptor(rule: Any) -> dict[str, Any]:
    s = rule.spec
    generated = getattr(rule, "variable", None) is not None  # a risky-values entry's rule (advisor.rules.risky)
    builtin = generated or getattr(rule, "sample", None) is not None or str(rule.path).startswith(
        ("rules/", "src/advisor/knowledge/symptoms.toml"))
    rationale = " ".join(s.rationale.split())
    fix = " ".join(s.fix.split())
    md = [f"**{s.title}**", "", rationale]
    if fix:
        md += ["", f"Fix: {fix}"]
    md += ["", "References:", *[f"- <{r}>" for r in s.references]]
    d: dict[str, Any] = {
        "id": s.id,
        "name": "".join(w.capitalize() for w in s.id.split("-")),
        "shortDescription": {"text": s.title},
        "fullDescription": {"text": rationale},
        "help": {"text": rationale + (f" Fix: {fix}" if fix else "") + " References: " + ", ".join(s.references),
                 "markdown": "\n".join(md)},
        "defaultConfiguration": {"level": LEVEL[s.severity]},
        "properties": {"category": s.category, "severity": s.severity, "tags": [s.category, s.severity],
                       "references": list(s.references)},
    }
    if s.aliases and not generated:  # a generated rule's alias (variable.entry) is another name, not an old one
        d["deprecatedIds"] = list(s.aliases)
    if builtin:
        d["helpUri"] = docs_url(f"rules/{s.id}.md")
    return d


def _fingerprint(server: str, rule: str) -> str:
    return hashlib.sha256(f"{server}\0{rule}".encode()).hexdigest()[:32]


def run_dict(report: Any, rules: Sequence[Any], everything: bool = False) -> dict[str, Any]:
    server = _server_name(report)
    by_id = {r.id: r for r in rules}
    shown = [o for o in report.outcomes if o.rule in by_id and (everything or o.status == "fired")]
    evaluated = [o.rule for o in shown]
    index = {rid: i for i, rid in enumerate(evaluated)}
    t = report.target
    logical: list[dict[str, Any]] = [{"name": server, "fullyQualifiedName": server, "kind": "resource",
                                      "properties": {"flavor": t.flavor, "version": t.version,
                                                     "transport": t.transport}}]
    var_index: dict[str, int] = {}

    def var_loc(name: str) -> dict[str, Any]:
        if name not in var_index:
            var_index[name] = len(logical)
            logical.append({"name": name, "fullyQualifiedName": f"{server}/{name}", "kind": "variable", "parentIndex": 0})
        i = var_index[name]
        return {"logicalLocations": [{"index": i, "name": name, "fullyQualifiedName": f"{server}/{name}", "kind": "variable"}]}

    server_loc = {"logicalLocations": [{"index": 0, "name": server, "fullyQualifiedName": server, "kind": "resource"}]}
    findings = {f.rule: f for f in report.findings}
    groups = report.finding_groups
    led = {g.lead.rule: g for g in groups}  # rule -> the finding it leads
    under = {f.rule: g for g in groups for f in g.members[1:]}  # rule -> the finding it is a consequence of
    results = []
    for o in shown:
        f = findings.get(o.rule) if o.status == "fired" else None
        res: dict[str, Any] = {"ruleId": o.rule, "ruleIndex": index[o.rule], "kind": KIND[o.status]}
        if f is not None and o.rule in under:  # one result fails per cause: the others are informational
            g = under[o.rule]
            res["kind"] = "informational"
            res["level"] = "none"
            res["message"] = {"text": f"{f.message} (Same cause as {g.lead.rule}, cause group {g.id}: reported there.)"}
            res["locations"] = [var_loc(v) for v in f.variables] or [server_loc]
            res["properties"] = {"title": f.title, "category": f.category, "severity": f.severity,
                                 "group": g.id, "lead": g.lead.rule,
                                 "evidence": {k: format_evidence(k, v) for k, v in f.evidence.items()},
                                 "recommendation": dict(f.recommendation), "notes": list(f.notes)}
        elif f is not None:
            g = led.get(o.rule)
            rec = g.recommendation if g is not None else f.recommendation
            also = g.consequences if g is not None else ()
            res["level"] = LEVEL[g.severity if g is not None else f.severity]
            text = f.message + "".join(f" Same cause: [{q.rule}] {q.message}" for q in also) \
                + (f" Recommended: {', '.join(f'{k} = {v}' for k, v in rec.items())}." if rec else "") \
                + (f" Fix: {f.fix}" if f.fix else "")
            res["message"] = {"text": text}
            res["locations"] = [var_loc(v) for v in f.variables] or [server_loc]
            res["properties"] = {"title": g.title if g is not None else f.title, "category": f.category,
                                 "severity": f.severity,
                                 "evidence": {k: format_evidence(k, v) for k, v in f.evidence.items()},
                                 "recommendation": dict(rec), "notes": list(f.notes)}
            if also:
                res["properties"]["group"] = g.id
                res["properties"]["consequences"] = [{"rule": q.rule, "severity": q.severity, "message": q.message}
                                                     for q in also]
        else:
            res["level"] = "none"
            res["message"] = {"text": o.reason or o.status}
            res["locations"] = [server_loc]
        res["partialFingerprints"] = {"advisorServerRule/v1": _fingerprint(server, o.rule)}
        results.append(res)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "advisor", "fullName": "advisor — configuration advisor for MySQL-family servers",
                            "version": __version__, "semanticVersion": __version__, "informationUri": PROJECT_URL,
                            "rules": [_descriptor(by_id[rid]) for rid in evaluated]}},
        "automationDetails": {"id": f"advisor/audit/{server}/"},
        "invocations": [{"executionSuccessful": True}],
        "logicalLocations": logical,
        "results": results,
        "properties": {"target": {"server": server, "flavor": t.flavor, "version": t.version,
                                  "version_string": t.version_string},
                       "purpose": report.purpose, "source": report.source, "collected_at": report.collected_at,
                       "missing": [{"fact": m.fact, "reason": m.reason} for m in report.missing],
                       "outcomes": report.counts(), "all_outcomes": everything},
    }
    if not everything:
        run["properties"]["unknown"] = [{"rule": o.rule, "reason": o.reason} for o in report.outcomes
                                        if o.status == "unknown"]
    return run


def to_dict(reports: Sequence[Any], rules: Sequence[Any], everything: bool = False) -> dict[str, Any]:
    return {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0",
            "runs": [run_dict(r, rules, everything) for r in reports]}


def render(reports: Sequence[Any], rules: Optional[Sequence[Any]] = None, everything: bool = False) -> str:
    """SARIF for the reports (only the findings unless `everything`); `rules` default to the built-in
    catalogue."""
    if rules is None:
        from advisor.rules.loader import load_rules

        rules = load_rules()
    return json.dumps(to_dict(reports, rules, everything), indent=2, ensure_ascii=False) + "\n"

