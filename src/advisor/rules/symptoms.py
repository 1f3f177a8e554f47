"""The symptoms rule family: one generated rule per symptoms entry (advisor/knowledge/symptoms.toml,
handed in through `VariableCatalogue.symptom_entries()`). Pure: a RuleGenerator (advisor.rules.catalogue).

A symptom is a status counter or a ratio of two, judged against a sourced threshold once the sample is
large enough: a rule fires when the counter shows the problem, passes when it does not, and is unknown
while the sample is too small (`Rule.sample`: the events and the uptime the entry asks for; a rate
also needs the code's MIN_UPTIME_FOR_RATES unless the snapshot sampled an interval). Its fix is the
entry's text for the target's flavor (an override per flavor), its variables the ones the counter
points to. The rule id is the entry's id: an entry that took over a hand-written rule's judgement
keeps that rule's id, so ignore lists and expected findings go on naming it.

Each rule's examples come from its entry: values past the threshold fire, values on the quiet side
pass, and a sample below the entry's minimum is unknown.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Optional

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.knowledge.rulecheck import KNOWN_RELEASES
from advisor.rules.conditions import CATEGORIES, Rule, parse_condition
from advisor.severity import check as check_basis
from advisor.versions import Version, VersionRange

SOURCE = "src/advisor/knowledge/symptoms.toml"
_FIRST = {"mysql": "8.0.36", "percona": "8.0.36", "mariadb": "10.11.10"}
_ORDER = ("mariadb", "mysql", "percona")
_REL = {"gt": "more than", "ge": "at least", "lt": "less than", "le": "at most"}
EXAMPLE_UPTIME = 86400


def is_symptom(rule: Rule) -> bool:
    return rule.path.startswith(SOURCE + "#")


def _where(sid: str) -> str:
    return f"{SOURCE}: [{sid}]"


def condition(e: Any) -> dict[str, Any]:
    if e.measure == "ratio":
        return {"fact": f"status.{e.counter}", "op": e.op, "ref": f"status.{e.of}", "factor": float(e.value)}
    if e.measure == "limit":
        return {"fact": f"status.{e.counter}", "op": e.op, "ref": f"var.{e.of}", "factor": float(e.value)}
    if e.measure == "rate":
        return {"fact": f"rate.{e.counter}", "op": e.op, "value": e.value}
    return {"fact": f"status.{e.counter}", "op": e.op, "value": e.value}


def sample(e: Any) -> Optional[dict[str, Any]]:
    """The sample the judgement needs, as a condition (None when it needs none beyond the counters)."""
    leaves = []
    if e.min_events:
        leaves.append({"fact": f"status.{events_of(e)}", "op": "ge", "value": e.min_events})
    if e.min_uptime:
        leaves.append({"fact": "status.Uptime", "op": "ge", "value": e.min_uptime})
    if not leaves:
        return None
    return leaves[0] if len(leaves) == 1 else {"all": leaves}


def events_of(e: Any) -> str:
    """The counter the entry's min_events counts."""
    return e.events or (e.of if e.measure == "ratio" else e.counter)


def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:g}"


def threshold(e: Any) -> str:
    """The threshold in words: 'more than 25% of Created_tmp_tables', 'more than 0', 'at least 1 per second'."""
    rel = _REL[e.op]
    if e.measure == "ratio":
        if e.value <= 1:
            return f"{rel} {e.value * 100:g}% of {e.of}"
        return f"{rel} {_num(e.value)} per {e.of}"
    if e.measure == "limit":
        return f"{rel} {e.value * 100:g}% of {e.of}"
    if e.measure == "rate":
        return f"{rel} {_num(e.value)} per second"
    return f"{rel} {_num(e.value)}"


def sample_words(e: Any) -> str:
    parts = []
    if e.min_events:
        parts.append(f"{events_of(e)} of at least {_num(e.min_events)}")
    if e.min_uptime:
        parts.append(f"at least {_num(e.min_uptime)} s of uptime")
    if e.measure == "rate":
        parts.append("a sampled interval or 15 minutes since start")
    return " and ".join(parts) if parts else "no minimum beyond the counter itself"


def message(e: Any, of_unit: Optional[str] = None) -> str:
    c = e.counter
    if e.measure == "ratio":
        head = f"{c} is {{status.{c}|num}} against {e.of} {{status.{e.of}|num}}"
    elif e.measure == "limit":
        flt = "size" if of_unit == "bytes" else "num"
        head = f"{c} is {{status.{c}|num}} with {e.of} at {{var.{e.of}|{flt}}}"
    elif e.measure == "rate":
        head = f"{c} grows by {{rate.{c}|num}} per second ({{status.{c}|num}} since start)"
    else:
        head = f"{c} is {{status.{c}|num}}" + (" after {status.Uptime|num} s of uptime" if e.min_uptime else "")
    return f"{head}, {threshold(e)}, on {{target.flavor}} {{target.version}}. {e.why}"


def _fix_for(e: Any, flavor: str) -> Optional[str]:
    if flavor == "percona":
        return e.fix.get("percona") or e.fix.get("mysql")
    return e.fix.get(flavor)


def rationale(e: Any) -> str:
    out = [e.why, f"The check fires at {threshold(e)} and needs {sample_words(e)}; below that sample it is "
           "unknown, not passed."]
    for fl in ("mysql", "percona", "mariadb"):
        own = e.fix.get(fl)
        if own and fl in e.flavors:
            out.append(f"On {'MySQL' if fl == 'mysql' else 'Percona Server' if fl == 'percona' else 'MariaDB'}: {own}")
    return " ".join(out)


# ---------------------------------------------------------------- examples

def _target(e: Any) -> tuple[str, Version]:
    order = [f for f in _ORDER if f in e.flavors] + [f for f in e.flavors if f not in _ORDER]
    for fl in order:
        rng = VersionRange(e.flavors[fl])
        cands = [_FIRST[fl]] if fl in _FIRST else []
        cands += list(reversed(KNOWN_RELEASES.get(fl, ())))
        for v in cands:
            if rng.contains(Version.parse(v)):
                return fl, Version.parse(v)
    raise ValueError(f"{_where(e.id)}: no known release where the entry applies")


def _limit_of(e: Any, variables: VariableCatalogue, flavor: str, version: Version) -> int:
    d = variables.default_for(e.of, flavor, version)
    try:
        n = int(float(d)) if d is not None else 0
    except ValueError:
        n = 0
    return n if n >= 20 else 1000


def _values(e: Any, variables: VariableCatalogue, flavor: str, version: Version) -> dict[str, dict[str, Any]]:
    """Facts that fire, that stay quiet, and (when the entry needs a sample) that are too small a sample."""
    v, fire_up = float(e.value), e.op in ("gt", "ge")
    up = max(EXAMPLE_UPTIME, e.min_uptime)
    out: dict[str, dict[str, Any]] = {}
    if e.measure in ("ratio", "limit"):
        if e.measure == "ratio":
            den = max(e.min_events * 2, 1000)
            dkey, dval = f"status.{e.of}", den
        else:
            den = _limit_of(e, variables, flavor, version)
            dkey, dval = f"var.{e.of}", den
        hi = den * (v + (1 - v) / 2) if v < 1 else den * v * 2
        lo = den * v / 2
        hi_n, lo_n = math.ceil(hi) + (1 if math.ceil(hi) == den * v else 0), math.floor(lo)
        fire_n, quiet_n = (hi_n, lo_n) if fire_up else (lo_n, hi_n)
        base = {"status.Uptime": up}
        out["fire"] = {**base, f"status.{e.counter}": fire_n, dkey: dval}
        out["quiet"] = {**base, f"status.{e.counter}": quiet_n, dkey: dval}
        if e.measure == "ratio" and e.min_events:
            small = max(e.min_events // 2, 1)
            out["small"] = {**base, f"status.{e.counter}": min(small, math.ceil(small * v * 2)), dkey: small}
    elif e.measure == "rate":
        up = max(up, math.ceil(4 * max(e.min_events, 1) / v) + 1)
        fire_n = max(math.ceil(v * 2 * up), e.min_events)
        quiet_n = max(math.floor(v / 2 * up), e.min_events)
        if not fire_up:
            fire_n, quiet_n = quiet_n, fire_n
        out["fire"] = {"status.Uptime": up, f"status.{e.counter}": fire_n}
        out["quiet"] = {"status.Uptime": up, f"status.{e.counter}": quiet_n}
        out["just-started"] = {"status.Uptime": 600, f"status.{e.counter}": fire_n}
    else:
        fire_n = max(math.floor(v * 2), math.floor(v) + 1) if fire_up else math.floor(v / 2)
        quiet_n = math.floor(v / 2) if fire_up else math.ceil(v * 2) + 1
        if e.op == "ge" and v <= 1:
            quiet_n = 0
        out["fire"] = {"status.Uptime": up, f"status.{e.counter}": fire_n}
        out["quiet"] = {"status.Uptime": up, f"status.{e.counter}": quiet_n}
    ev = f"status.{events_of(e)}"
    if e.min_events and ev not in out["fire"]:  # a third counter carries the sample
        for key in ("fire", "quiet"):
            out[key][ev] = e.min_events * 2
        out["small"] = {**out["fire"], ev: max(e.min_events // 2, 0)}
    elif e.min_events and "small" not in out and e.measure != "rate":
        out["small"] = {**out["fire"], ev: max(e.min_events // 2, 0)}
    if e.min_uptime:
        out["small"] = {**out["fire"], "status.Uptime": max(e.min_uptime // 2, 1)}
    return out


def _only_if_facts(e: Any) -> dict[str, Any]:
    return {f"var.{k}": ("ON" if v is True else "OFF" if v is False else v) for k, v in sorted(e.only_if.items())}


def examples(e: Any, variables: VariableCatalogue) -> list[dict[str, Any]]:
    flavor, version = _target(e)
    vals = _values(e, variables, flavor, version)
    extra = _only_if_facts(e)
    target = f"{flavor} {version}"
    purpose = e.purposes[0]
    out = [{"name": "past-threshold", "expect": "fired", "purpose": purpose, "target": target,
            "facts": {**extra, **vals["fire"]}, "severity": e.severity, "message_contains": [e.counter]},
           {"name": "below-threshold" if e.op in ("gt", "ge") else "above-threshold", "expect": "passed",
            "purpose": purpose, "target": target, "facts": {**extra, **vals["quiet"]}}]
    for key in ("small", "just-started"):
        if key in vals:
            out.append({"name": "sample-too-small" if key == "small" else key, "expect": "unknown",
                        "purpose": purpose, "target": target, "facts": {**extra, **vals[key]}})
    return out


# ---------------------------------------------------------------- the rule

def rule_for(sid: str, e: Any, variables: VariableCatalogue) -> Rule:
    """The generated rule of one entry (ValueError naming the entry when it cannot be made)."""
    if e.category not in CATEGORIES:
        raise ValueError(f"{_where(sid)}: category {e.category!r} is not one of {', '.join(CATEGORIES)}")
    try:
        check_basis(e.severity, e.basis)
    except ValueError as err:
        raise ValueError(f"{_where(sid)}: {err}") from None
    when = condition(e)
    need = sample(e)
    overrides = []
    for fl in ("mysql", "percona", "mariadb"):
        own = _fix_for(e, fl)
        if own and fl in e.flavors:
            overrides.append({"when": {"fact": "target.flavor", "op": "eq", "value": fl}, "fix": own})
    only = None
    if e.only_if:
        leaves = [{"fact": f"var.{k}", "op": "eq", "value": v} for k, v in sorted(e.only_if.items())]
        only = leaves[0] if len(leaves) == 1 else {"all": leaves}
    evidence = ["status.Uptime"] if e.measure == "rate" or e.min_uptime else []
    raw: dict[str, Any] = {
        "id": sid, "title": e.title, "category": e.category, "severity": e.severity, "severity_basis": e.basis,
        "aliases": [f"status.{e.counter}.{e.measure}" + (f".{e.of}" if e.of else "")],
        "variables": list(e.variables), "evidence": evidence,
        "rationale": rationale(e), "message": message(e, variables.unit(e.of) if e.measure == "limit" else None), "fix": e.fix["*"], "references": list(e.sources),
        "applies_to": {"purpose": list(e.purposes), "flavors": dict(e.flavors)},
        "when": when, "overrides": overrides, "examples": examples(e, variables),
    }
    if only is not None:
        raw["applies_to"]["when"] = only
    try:
        from advisor.knowledge.plain import plain
        from advisor.rules.schema import RuleFile  # generating validates: a cache hit imports no pydantic

        spec = plain(RuleFile.model_validate(raw))
    except Exception as err:
        raise ValueError(f"{_where(sid)}: {err}") from None
    return Rule(spec=spec, path=f"{SOURCE}#{sid}", when=parse_condition(when),
                applies_when=None if only is None else parse_condition(only, "applies_to.when"),
                override_whens=tuple(parse_condition(o["when"], "overrides.when") for o in overrides),
                recommend_whens=(), ranges={fl: VersionRange(r) for fl, r in e.flavors.items()},
                sample=None if need is None else parse_condition(need, "sample"))


def symptom_rules(variables: VariableCatalogue) -> Iterable[Rule]:
    """The RuleGenerator: one rule per symptoms entry, in file order."""
    table = variables.symptom_entries()
    return [rule_for(sid, _with_id(sid, e), variables) for sid, e in table.items()]


def _with_id(sid: str, e: Any) -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(**{**vars(e), "id": sid})
