"""The rules engine: a pure function from (snapshot, rules, purpose) to outcomes.

No driver, no filesystem, no clock. Conditions evaluate in three-valued (Kleene) logic: a
missing fact makes a leaf unknown; `all` is false if any item is false, `any` is true if any
item is true, otherwise unknown propagates. Every outcome carries a reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, NamedTuple, Optional

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules import ops
from advisor.rules.derived import DERIVED
from advisor.rules.facts import FactMissing, FactView, Unknown, json_value, render_template
from advisor.rules.formulas import FORMULAS
from advisor.rules.conditions import AllOf, AnyOf, Condition, Leaf, NotOf, Rule
from advisor.snapshot import Snapshot
from advisor.units import format_number, format_size, whole
from advisor.versions import Version, flavor_name


NoteKind = Literal["dropped", "unchecked", "no_value"]


class Note(NamedTuple):  # not a dataclass: start-up (bench/startup.py)
    """Something the engine did to a finding's recommendation: dropped a setting the target would not
    take (kind dropped, with the variable and value), kept one the catalogue does not know (unchecked),
    or found no computed value (no_value). Other modules read the fields, never the text."""

    kind: NoteKind
    text: str
    variable: Optional[str] = None
    value: Optional[str] = None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Finding:
    """What a fired rule reports: its texts, severity, evidence and recommendation."""

    rule: str
    severity: str
    category: str
    title: str
    message: str
    variables: list[str]
    evidence: dict[str, Any]
    recommendation: dict[str, str]
    references: list[str]
    fix: str = ""
    notes: list[Note] = field(default_factory=list)
    units: dict[str, str] = field(default_factory=dict)  # evidence path -> unit (FactView.unit), for renderers
    experiments: tuple[str, ...] = ()  # recommended variables that are an experiment to try, not a fix

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule, "severity": self.severity, "category": self.category, "title": self.title,
            "message": self.message, "variables": list(self.variables), "evidence": dict(self.evidence),
            "recommendation": dict(self.recommendation), "references": list(self.references),
            "fix": self.fix, "notes": [str(n) for n in self.notes],
        }


@dataclass(frozen=True)
class Outcome:
    """One rule's outcome on one snapshot, with the reason, and its finding when fired."""

    rule: str
    status: str  # fired | passed | not_applicable | unknown
    reason: str
    finding: Optional[Finding] = None

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "status": self.status, "reason": self.reason}


# ---------------------------------------------------------------- condition evaluation

def _show(path: str, value: Any, unit: Optional[str]) -> str:
    """'var.sort_buffer_size is 32 MiB': a fact in a reason, in its unit (sizes from 1 MiB in binary units)."""
    if isinstance(value, Unknown):
        return f"{path} unknown"
    if isinstance(value, Version):
        return f"{path} is {value}"
    if isinstance(value, bool):
        return f"{path} is {'true' if value else 'false'}"
    n = None
    if isinstance(value, (int, float)):
        n = value
    elif isinstance(value, str) and whole(value.strip()) is not None:
        n = whole(value.strip())
    if n is not None:
        if unit == "bytes" and abs(n) >= 1 << 20:
            return f"{path} is {format_size(n)}"
        return f"{path} is {format_number(n)}"
    if isinstance(value, str) and value.strip() == "":
        return f"{path} is '' (empty)"
    return f"{path} is {value!r}"


def eval_condition(cond: Condition, view: FactView) -> tuple[Optional[bool], str]:
    """(True | False | None for unknown, reason)."""
    if isinstance(cond, Leaf):
        return _eval_leaf(cond, view)
    if isinstance(cond, NotOf):
        r, why = eval_condition(cond.item, view)
        # the inner reason states what the snapshot shows, which is why the negation holds or fails
        return (None if r is None else not r), why
    if isinstance(cond, AllOf):
        results = [eval_condition(c, view) for c in cond.items]
        falses = [w for r, w in results if r is False]
        if falses:
            return False, falses[0]
        unknowns = [w for r, w in results if r is None]
        if unknowns:
            return None, unknowns[0]
        return True, "; ".join(w for _, w in results)
    if isinstance(cond, AnyOf):
        results = [eval_condition(c, view) for c in cond.items]
        trues = [w for r, w in results if r is True]
        if trues:
            return True, trues[0]
        unknowns = [w for r, w in results if r is None]
        if unknowns:
            return None, unknowns[0]
        return False, "; ".join(w for _, w in results)
    raise TypeError(cond)


ORDERED_OPS = ("lt", "le", "gt", "ge")
UNCERTAIN = "uncertain: "  # the start of an unknown outcome's reason when a measurement spans the threshold


def _uncertain(leaf: Leaf, view: FactView, literals: list[ops.LiteralValue], shown: str) -> Optional[str]:
    """A comparison of a measured fact with a threshold the measurement's spread reaches across (its
    middle half is on both sides): the reason, starting 'uncertain: ', with the numbers; else None."""
    if leaf.op not in ORDERED_OPS or leaf.ref or len(literals) != 1:
        return None
    spread_of = getattr(view, "spread", None)
    sp = spread_of(leaf.fact) if spread_of is not None else None
    if sp is None:
        return None
    lo, hi = sp
    try:
        at_lo = ops.apply(leaf.op, lo, literals, leaf.pattern)
        at_hi = ops.apply(leaf.op, hi, literals, leaf.pattern)
    except ops.CoercionError:
        return None
    if at_lo == at_hi:
        return None
    unit = view.unit(leaf.fact)
    suffix = f" {unit}" if unit in ("ms", "MB/s", "Mb/s", "1/s", "s per s") else ""
    low, high = (f"{format_number(x) if abs(x) >= 0.01 else f'{x:.3g}'}{suffix}" for x in (lo, hi))
    return (f"{UNCERTAIN}{shown}, but the middle half of the measurement runs from {low} to {high}, across the "
            f"threshold {literals[0].show()}: the measurement does not decide")


def _eval_leaf(leaf: Leaf, view: FactView) -> tuple[Optional[bool], str]:
    val = view.get(leaf.fact)
    if leaf.op == "exists":
        ok = not isinstance(val, Unknown)
        return ok, (f"{leaf.fact} is present" if ok else f"{leaf.fact} is absent ({val.reason})")
    if isinstance(val, Unknown):
        return None, f"{leaf.fact} is unknown: {val.reason}"
    literals = list(leaf.literals)
    shown_ref = ""
    if leaf.ref:
        rv = view.get(leaf.ref)
        if isinstance(rv, Unknown):
            return None, f"{leaf.ref} is unknown: {rv.reason}"
        rn = view.num(leaf.ref) if not isinstance(rv, Version) else rv
        if isinstance(rn, Unknown):
            return None, rn.reason
        target = rn * leaf.factor if not isinstance(rn, Version) else rn
        literals = [ops.LiteralValue(target, "number", target)] if not isinstance(rn, Version) else [ops.LiteralValue(str(rn), "version", rn)]
        scale = f"{leaf.factor:g} × " if leaf.factor != 1 else ""
        shown_ref = f"{scale}{_show(leaf.ref, rv, view.unit(leaf.ref)).replace(' is ', ' (')})"
    try:
        ok = ops.apply(leaf.op, val, literals, leaf.pattern)
    except ops.CoercionError as e:
        return None, f"{leaf.fact} cannot be compared: {e}"
    shown = _show(leaf.fact, val, view.unit(leaf.fact))
    uncertain = _uncertain(leaf, view, literals, shown)
    if uncertain is not None:
        return None, uncertain
    if shown_ref:
        rel = (ops.SYMBOL if ok else ops.NEGATED)[leaf.op]
        return ok, f"{shown}, {rel} {shown_ref}"
    return ok, ops.sentence(leaf.op, shown, literals, leaf.pattern.pattern if leaf.pattern else "", negated=not ok)


# ---------------------------------------------------------------- rule evaluation

def _applicability(rule: Rule, view: FactView) -> Optional[Outcome]:
    spec = rule.spec
    if view.purpose not in spec.applies_to.purpose:
        return Outcome(spec.id, "not_applicable", f"applies to {' and '.join(spec.applies_to.purpose)} purpose only; "
                       f"this audit's purpose is {view.purpose}")
    t = view.snapshot.target
    rng = rule.ranges.get(t.flavor)
    if rng is None:
        return Outcome(spec.id, "not_applicable",
                       f"applies to {', '.join(flavor_name(f) for f in spec.applies_to.flavors)}; the target is "
                       f"{flavor_name(t.flavor)} {t.version}")
    if not rng.contains(view.version):
        return Outcome(spec.id, "not_applicable", f"applies to {flavor_name(t.flavor)} {rng.describe()}; the target "
                       f"is {flavor_name(t.flavor)} {t.version}")
    if rule.variable is not None:
        absent = _variable_absent(rule.variable, view)
        if absent:
            return Outcome(spec.id, "not_applicable", absent)
    if rule.applies_when is not None:
        r, why = eval_condition(rule.applies_when, view)
        if r is False:
            return Outcome(spec.id, "not_applicable", f"does not apply: {why}")
        if r is None:
            return Outcome(spec.id, "unknown", f"cannot tell whether it applies: {why}")
    return None


def _shown_variables(view: FactView) -> frozenset[str]:
    """The lower-case names of the variables the snapshot shows, computed once per view."""
    got: Optional[frozenset[str]] = getattr(view, "_shown_variables", None)
    if got is None:
        got = frozenset(k.lower() for k in view.snapshot.server.variables)
        setattr(view, "_shown_variables", got)
    return got


def _variable_absent(name: str, view: FactView) -> str:
    """Why a generated rule's variable is not there to judge: the catalogue says it does not exist on the
    target, or the catalogue does not know it there and the server shows no such variable ('' otherwise)."""
    if name in _shown_variables(view):
        return ""  # the server shows it: it exists, whatever the catalogue says
    cat = view.catalogue
    exists = None if cat is None else cat.exists_on(name, view.flavor, view.version)
    if exists is False and cat is not None:
        return cat.check_setting(name, "", view.flavor, view.version)[0]
    if exists is None:
        return (f"the server shows no variable {name} and the variable catalogue does not know it on "
                f"{view.flavor} {view.version}")
    return ""


def evaluate_rule(rule: Rule, view: FactView) -> Outcome:
    spec = rule.spec
    na = _applicability(rule, view)
    if na is not None:
        return na
    if rule.sample is not None:
        r, why = eval_condition(rule.sample, view)
        if r is not True:
            return Outcome(spec.id, "unknown", f"too small a sample to judge: {why}")
    r, why = eval_condition(rule.when, view)
    if r is False:
        return Outcome(spec.id, "passed", why)
    if r is None:
        return Outcome(spec.id, "unknown", why)

    severity, message, fix = spec.severity, spec.message, spec.fix
    for ov, cond in zip(spec.overrides, rule.override_whens):
        orr, _ = eval_condition(cond, view)
        if orr is True:  # every override that holds applies, in file order; later ones win
            severity = ov.severity or severity
            message = ov.message or message
            fix = ov.fix or fix

    recommendation: dict[str, str] = {}
    notes: list[Note] = []
    experiments: list[str] = []
    for rec, cond in zip(spec.recommend, rule.recommend_whens):
        if cond is not None:
            rr, _ = eval_condition(cond, view)
            if rr is not True:
                continue
        if rec.formula:
            try:
                out = FORMULAS[rec.formula].fn(view, **rec.args)
            except FactMissing as e:
                out = e.unknown
            if isinstance(out, Unknown):
                notes.append(Note("no_value", f"no computed recommendation: {out.reason}"))
                continue
            recommendation.update({k: str(v) for k, v in out.items()})
        elif rec.variable is not None and rec.value is not None:
            val = rec.value
            recommendation[rec.variable] = ("ON" if val else "OFF") if isinstance(val, bool) else str(val)
            if rec.experiment:
                experiments.append(rec.variable)

    recommendation, dropped = check_recommendation(recommendation, view.flavor, view.version, view.catalogue)
    notes += dropped

    extra = {f"rec.{k}": v for k, v in recommendation.items()}
    evidence: dict[str, Any] = {}
    paths = list(dict.fromkeys(rule.fact_paths() + list(spec.evidence)))
    for path in paths:
        if path == "purpose" or path.startswith("target."):
            continue  # the report's target section states these
        if any(p.startswith(path + ".") for p in paths):
            continue  # a section tested with `exists` whose fields are cited one by one: the fields say it
        val = view.get(path)
        if not isinstance(val, Unknown):
            evidence[path] = json_value(val)
    if any(p.startswith("rate.") for p in evidence):
        evidence["rate_basis"] = view.rate_basis()

    present = _shown_variables(view)
    variables = [x for x in spec.variables if x.lower() in present or x in recommendation]
    variables += [k for k in recommendation if k not in variables]

    finding = Finding(
        rule=spec.id, severity=severity, category=spec.category, title=spec.title,
        message=" ".join(render_template(message, view, extra).split()),
        variables=variables, evidence=evidence, recommendation=recommendation,
        references=list(spec.references), fix=" ".join(render_template(fix, view, extra).split()), notes=notes,
        units={p: u for p in evidence if (u := view.unit(p))},
        experiments=tuple(x for x in experiments if x in recommendation),
    )
    return Outcome(spec.id, "fired", why, finding)


def check_recommendation(recommendation: dict[str, str], flavor: str, version: Version,
                         catalogue: VariableCatalogue) -> tuple[dict[str, str], list[Note]]:
    """Keep the recommended settings the target can take; drop, with a note, one that names a variable
    that does not exist on the target (e.g. query_cache_size on MySQL 8.0) or a value it would refuse.
    A variable the catalogue does not know is kept, with a note that it was not checked."""
    kept: dict[str, str] = {}
    notes: list[Note] = []
    for var, value in recommendation.items():
        known = catalogue.exists_on(var, flavor, version)
        if known is None:
            kept[var] = value
            notes.append(Note("unchecked", f"{var} is not in the variable catalogue for {flavor}; the recommended "
                              "value was not checked", var, value))
            continue
        problems = catalogue.check_setting(var, value, flavor, version)
        if problems:
            notes.append(Note("dropped", f"dropped recommendation {var} = {value}: {problems[0]}", var, value))
            continue
        kept[var] = value
    return kept, notes


def fact_view(snapshot: Snapshot, purpose: str, catalogue: VariableCatalogue) -> FactView:
    """The view rules, sizers and checks read a snapshot through: every derived fact, and the variable
    catalogue they consult."""
    return FactView(snapshot, purpose, catalogue=catalogue, derived=DERIVED)


def evaluate(snapshot: Snapshot, rules: Iterable[Rule], purpose: str = "production", ignore: Iterable[str] = (), *,
             catalogue: VariableCatalogue) -> list[Outcome]:
    """Every rule's outcome for this snapshot and purpose. Pure: the rules and the variable catalogue
    are handed in (advisor.api loads them)."""
    view = fact_view(snapshot, purpose, catalogue)
    skip = set(ignore)
    out: list[Outcome] = []
    fired: set[str] = set()  # rules with a finding, for the generated rules that defer to them
    for rule in rules:
        if rule.id in skip or skip.intersection(rule.spec.aliases):
            out.append(Outcome(rule.id, "not_applicable", "ignored (--ignore)"))
            continue
        o = evaluate_rule(rule, view)
        # a generated rule also stays quiet when it would pass: "the value is fine" beside the
        # hand-written rule's finding on the same variable would be a second, opposite opinion
        if rule.defers_to and (o.finding is not None or o.status == "passed"):
            first = next((d for d in rule.defers_to if d in fired), None)
            if first is not None:
                o = Outcome(rule.id, "not_applicable", f"{rule.variable} = {view.get('var.' + str(rule.variable))} "
                            f"is already reported by rule {first}")
        elif o.finding is not None:
            fired.add(rule.id)
        out.append(o)
    return out
