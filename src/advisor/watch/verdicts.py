"""Watch verdicts: catalogue entries under rules/watch/, one TOML per verdict, judged over a series.

A verdict file has the shape of an audit rule (id, title, severity, rationale, message and fix
templates with real numbers, references, a `when` condition in the same closed condition language,
examples that must fire and stay quiet) plus what only a verdict has:
  kind      "no-load" | "bottleneck" | "none-found"
  rank      order among fired verdicts: the more specific cause first (TLS before CPU)
  checks    a template saying what was checked, with the numbers, for "no bottleneck found"
  causes    audit rule ids that name a configuration cause; the ones the audit fired at the start
            of the watch are shown under the verdict with their message and fix
Facts: `watch.*` (advisor.watch.facts; `watch.verdict.*` set by the evaluator between its two
passes) and every audit fact (`var.*`, `status.*`, `host.*`, ...) of the snapshot the watch
audited at its start. The engine's condition evaluator and template renderer are reused as they
are; this module adds the `watch.` namespace through its own fact view.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from advisor.errors import RuleLoadError
from advisor import severity as policy
from advisor.rules.derived import DERIVED
from advisor.rules.engine import Finding, Outcome, eval_condition
from advisor.rules.schema import basis_fits_severity
from advisor.rules.facts import FILTERS, FactView, Unknown, render_template, template_paths, validate_path
from advisor.rules.schema import ID_RE, Condition, ConditionError, Severity, Status, parse_condition
from advisor.watch.model import AuditFinding
from advisor.watch.facts import FACTS

Kind = Literal["no-load", "bottleneck", "none-found"]
EVALUATOR_FACTS = {
    "watch.verdict.bottlenecks": "bottleneck verdicts that fired (set after the first pass)",
    "watch.verdict.checked": "what the bottleneck verdicts checked, with their numbers (set after the first pass)",
    "watch.verdict.uncertain": "bottleneck verdicts whose measurement spans their threshold (set after the first pass)",
}
WATCH_DIR = "watch"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class VerdictOverride(_M):
    when: dict[str, Any]
    severity: Optional[Severity] = None
    title: Optional[str] = None
    message: Optional[str] = None
    fix: Optional[str] = None


class VerdictExample(_M):
    name: str
    expect: Status
    facts: dict[str, Any] = Field(default_factory=dict, description="watch.* facts; audit.fired lists audit rule ids")
    severity: Optional[Severity] = None
    message_contains: list[str] = Field(default_factory=list)
    causes: Optional[list[str]] = Field(None, description="audit rule ids expected under the verdict")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        import re

        if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", v):
            raise ValueError("example names are lower-case words joined by - . _")
        return v


class VerdictFile(_M):
    id: str
    title: str
    kind: Kind
    rank: int = Field(ge=0, le=1000)
    severity: Severity
    severity_basis: Optional[policy.Basis] = Field(None, description="why the verdict has its severity (docs/severity.md)")
    rationale: str
    checks: str = Field(description="what this verdict looked at, with the numbers (a template)")
    message: str
    fix: str = ""
    causes: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    references: list[str] = Field(min_length=1)
    applies_when: Optional[dict[str, Any]] = None
    when: dict[str, Any]
    overrides: list[VerdictOverride] = Field(default_factory=list)
    examples: list[VerdictExample] = Field(min_length=2)

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ID_RE.match(v):
            raise ValueError("ids are lower-case words joined by '-', naming the problem (e.g. 'network-bound')")
        return v

    @field_validator("references")
    @classmethod
    def _refs(cls, v: list[str]) -> list[str]:
        for r in v:
            if not r.startswith(("https://", "http://")):
                raise ValueError(f"references are URLs (got {r!r})")
        return v

    _basis = field_validator("severity_basis")(basis_fits_severity)


@dataclass(frozen=True)
class Verdict:
    spec: VerdictFile
    path: str
    when: Condition
    applies_when: Optional[Condition]
    override_whens: tuple[Condition, ...]

    @property
    def id(self) -> str:
        return self.spec.id


# ---------------------------------------------------------------------- loading

def _err(source: str, loc: str, msg: str) -> RuleLoadError:
    return RuleLoadError(f"{source}: {loc}: {msg}.", "fix the field named above; docs/watch.md lists every key "
                         "of a verdict file.")


def check_path(path: str) -> Optional[str]:
    if path.startswith("watch."):
        return None if path in FACTS or path in EVALUATOR_FACTS else f"no watch fact named {path!r} (see docs/watch/_reference.md)"
    if path == "audit.fired":
        return None
    return validate_path(path, DERIVED)


def parse_verdict(text: str, source: str) -> Verdict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RuleLoadError(f"{source}: not valid TOML: {e}.", "check quoting and brackets near that line.") from None
    try:
        spec = VerdictFile.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        msg = "unknown key (the verdict schema is closed)" if first["type"] == "extra_forbidden" else first["msg"]
        loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".") or "(top level)"
        raise _err(source, loc, msg) from None

    def cond(obj: Any, loc: str) -> Condition:
        try:
            c = parse_condition(obj, loc)
        except ConditionError as ce:
            raise _err(source, ce.loc, ce.msg) from None
        for path in c.facts():
            problem = check_path(path)
            if problem:
                raise _err(source, loc, problem)
        return c

    when = cond(spec.when, "when")
    applies = cond(spec.applies_when, "applies_when") if spec.applies_when is not None else None
    overrides = tuple(cond(o.when, f"overrides[{i}].when") for i, o in enumerate(spec.overrides))
    templates = [("message", spec.message), ("fix", spec.fix), ("checks", spec.checks)]
    templates += [(f"overrides[{i}].{k}", getattr(o, k) or "") for i, o in enumerate(spec.overrides)
                  for k in ("message", "fix", "title")]
    for loc, text_ in templates:
        for path, flt in template_paths(text_):
            if flt is not None and flt not in FILTERS:
                raise _err(source, loc, f"unknown filter |{flt} (known: {', '.join(FILTERS)})")
            problem = check_path(path)
            if problem:
                raise _err(source, loc, f"placeholder {{{path}}}: {problem}")
    for i, ev in enumerate(spec.evidence):
        problem = check_path(ev)
        if problem:
            raise _err(source, f"evidence[{i}]", problem)
    for i, ex in enumerate(spec.examples):
        for key in ex.facts:
            if not (key.startswith("watch.") or key == "audit.fired"):
                raise _err(source, f"examples[{i}].facts.{key}", "examples set watch.* facts and audit.fired")
            problem = check_path(key)
            if problem:
                raise _err(source, f"examples[{i}].facts", problem)
    return Verdict(spec, source, when, applies, overrides)


def builtin_root() -> Any:
    from importlib.resources import files

    return files("advisor.catalog") / WATCH_DIR


def load_verdicts(extra_dirs: Iterable[Any] = (), builtin: bool = True) -> list[Verdict]:
    from pathlib import Path

    files: list[tuple[str, Any]] = []
    if builtin:
        root = builtin_root()
        files += [(f"rules/{WATCH_DIR}/{p.name}", p) for p in sorted(root.iterdir(), key=lambda p: p.name)
                  if p.name.endswith(".toml")]
    for d in extra_dirs:
        p = Path(d)
        if not p.is_dir():
            raise RuleLoadError(f"verdict directory {p} does not exist.", "pass a directory of verdict .toml files.")
        files += [(str(f), f) for f in sorted(p.glob("*.toml"))]
    out: list[Verdict] = []
    seen: dict[str, str] = {}
    for source, f in files:
        v = parse_verdict(f.read_text(encoding="utf-8"), source)
        if v.id in seen:
            raise RuleLoadError(f"{source}: id: {v.id!r} is already used by {seen[v.id]}.", "give the verdict a new id.")
        seen[v.id] = source
        out.append(v)
    return sorted(out, key=lambda v: (v.spec.rank, v.id))


# ---------------------------------------------------------------------- evaluation

class WatchView:
    """Facts for verdicts: the series summary under `watch.`, the audit snapshot for the rest."""

    purpose = "benchmark"

    def __init__(self, values: dict[str, Any], missing: Optional[dict[str, str]] = None,
                 audit: Optional[FactView] = None, fired: Iterable[str] = ()):
        self.values = dict(values)
        self.missing = dict(missing or {})
        self.audit = audit
        self.fired = list(fired)

    def get(self, path: str) -> Any:
        if path.startswith("watch."):
            if path in self.values:
                return self.values[path]
            return Unknown(self.missing.get(path, f"{path} was not measured"))
        if path == "audit.fired":
            return self.fired
        if self.audit is None:
            return Unknown(f"{path}: no audit ran at the start of this watch")
        return self.audit.get(path)

    def num(self, path: str) -> Any:
        v = self.get(path)
        if isinstance(v, Unknown) or isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
        if self.audit is not None and not path.startswith("watch."):
            return self.audit.num(path)
        return Unknown(f"{path} is {v!r}, not a number")

    def has(self, path: str) -> bool:
        return not isinstance(self.get(path), Unknown)

    def spread(self, path: str) -> Optional[tuple[float, float]]:
        """A watch fact computed from a measurement with a spread publishes its ends as `<path>_low` and
        `<path>_high` (watch.commit.busy: at the flush probe's 25th and 75th percentiles); audit facts
        have the audit's spreads."""
        if path.startswith("watch."):
            lo, hi = self.values.get(path + "_low"), self.values.get(path + "_high")
            if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and not isinstance(lo, bool):
                return float(lo), float(hi)
            return None
        if self.audit is not None and path != "audit.fired":
            return self.audit.spread(path)
        return None

    def unit(self, path: str) -> Optional[str]:
        """The unit of a fact (the engine's one resolver): a watch fact's declared unit, else the audit's."""
        if path.startswith("watch."):
            f = FACTS.get(path)
            return f.unit if f is not None else None
        return self.audit.unit(path) if self.audit is not None and path != "audit.fired" else None


@dataclass
class VerdictResult:
    verdict: Verdict
    outcome: Outcome
    checked: str = ""
    causes: list[AuditFinding] = field(default_factory=list)

    @property
    def fired(self) -> bool:
        return self.outcome.status == "fired"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"verdict": self.verdict.id, "kind": self.verdict.spec.kind, "rank": self.verdict.spec.rank,
                             "status": self.outcome.status, "reason": self.outcome.reason, "checked": self.checked}
        if self.outcome.finding is not None:
            d["finding"] = self.outcome.finding.to_dict()
            d["causes"] = [c.model_dump() for c in self.causes]
        return d


def _render(template: str, view: WatchView) -> str:
    return " ".join(render_template(template, view).split())  # type: ignore[arg-type]


def evaluate_one(v: Verdict, view: WatchView, audit_findings: Iterable[AuditFinding] = ()) -> VerdictResult:
    spec = v.spec
    checked = _checked(v, view)
    if v.applies_when is not None:
        r, why = eval_condition(v.applies_when, view)  # type: ignore[arg-type]
        if r is False:
            return VerdictResult(v, Outcome(spec.id, "not_applicable", f"does not apply: {why}"), checked)
        if r is None:
            return VerdictResult(v, Outcome(spec.id, "unknown", f"cannot tell whether it applies: {why}"), checked)
    r, why = eval_condition(v.when, view)  # type: ignore[arg-type]
    if r is not True:
        return VerdictResult(v, Outcome(spec.id, "passed" if r is False else "unknown", why), checked)
    severity, title, message, fix = spec.severity, spec.title, spec.message, spec.fix
    for ov, c in zip(spec.overrides, v.override_whens):
        if eval_condition(c, view)[0] is True:  # type: ignore[arg-type]
            severity, title = ov.severity or severity, ov.title or title
            message, fix = ov.message or message, ov.fix or fix
    evidence: dict[str, Any] = {}
    for path in dict.fromkeys(list(v.when.facts()) + list(spec.evidence)):
        val = view.get(path)
        if not isinstance(val, Unknown) and path != "audit.fired":
            evidence[path] = round(val, 4) if isinstance(val, float) else val
    finding = Finding(rule=spec.id, severity=severity, category="watch", title=_render(title, view),
                      message=_render(message, view), variables=[], evidence=evidence, recommendation={},
                      references=list(spec.references), fix=_render(fix, view))
    by_rule = {f.rule: f for f in audit_findings}
    causes = [by_rule[c] for c in spec.causes if c in by_rule]
    return VerdictResult(v, Outcome(spec.id, "fired", why, finding), checked, causes)


def _checked(v: Verdict, view: WatchView) -> str:
    unknown = [p for p, _ in template_paths(v.spec.checks) if isinstance(view.get(p), Unknown)]
    if unknown:
        val = view.get(unknown[0])
        return f"{v.spec.title.split(':')[0]}: not judged ({val.reason})"
    return _render(v.spec.checks, view)


def evaluate(verdicts: list[Verdict], view: WatchView, audit_findings: Iterable[AuditFinding] = ()) -> list[VerdictResult]:
    """Two passes: no-load and bottleneck verdicts, then none-found with what the first pass checked."""
    audit_findings = list(audit_findings)
    first = [evaluate_one(v, view, audit_findings) for v in verdicts if v.spec.kind != "none-found"]
    bottlenecks = [r for r in first if r.verdict.spec.kind == "bottleneck"]
    view.values["watch.verdict.bottlenecks"] = sum(1 for r in bottlenecks if r.fired)
    from advisor.rules.engine import UNCERTAIN

    view.values["watch.verdict.uncertain"] = sum(1 for r in bottlenecks if r.outcome.status == "unknown"
                                                 and r.outcome.reason.startswith(UNCERTAIN))
    view.values["watch.verdict.checked"] = "; ".join(r.checked for r in bottlenecks if r.outcome.status != "not_applicable")
    second = [evaluate_one(v, view, audit_findings) for v in verdicts if v.spec.kind == "none-found"]
    results = first + second
    order = {"fired": 0, "unknown": 1, "passed": 2, "not_applicable": 3}
    return sorted(results, key=lambda r: (order[r.outcome.status], r.verdict.spec.rank, r.verdict.id))


# ---------------------------------------------------------------------- examples

@dataclass(frozen=True)
class ExampleResult:
    verdict: str
    example: str
    ok: bool
    problems: list[str]
    result: VerdictResult


def run_example(v: Verdict, ex: VerdictExample) -> ExampleResult:
    facts = dict(ex.facts)
    fired_rules = facts.pop("audit.fired", [])
    view = WatchView(facts, {}, None, fired_rules)
    view.values.setdefault("watch.verdict.bottlenecks", 0)
    view.values.setdefault("watch.verdict.uncertain", 0)
    view.values.setdefault("watch.verdict.checked", "network: the client's interface advh0 sends 5.0 MB/s, "
                           "advh0 at 4% of 1,000 Mb/s")
    audit = [AuditFinding(rule=r, severity="warning", title=f"audit rule {r}", message=f"{r} fired in the audit.")
             for r in fired_rules]
    res = evaluate_one(v, view, audit)
    problems: list[str] = []
    if res.outcome.status != ex.expect:
        problems.append(f"expected {ex.expect}, got {res.outcome.status} ({res.outcome.reason})")
    f = res.outcome.finding
    if f is not None:
        if ex.severity and f.severity != ex.severity:
            problems.append(f"expected severity {ex.severity}, got {f.severity}")
        for s in ex.message_contains:
            if s not in f.message:
                problems.append(f"message lacks {s!r}: {f.message}")
        for text in (f.message, f.fix, f.title):
            if "unknown" in text.split() or "None" in text.split():
                problems.append(f"a placeholder did not resolve: {text}")
        if ex.causes is not None and [c.rule for c in res.causes] != ex.causes:
            problems.append(f"expected causes {ex.causes}, got {[c.rule for c in res.causes]}")
    elif ex.message_contains or ex.severity:
        problems.append("severity/message_contains only make sense with expect = 'fired'")
    return ExampleResult(v.id, ex.name, not problems, problems, res)
