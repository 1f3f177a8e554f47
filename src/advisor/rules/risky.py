"""The risky-values rule family: one generated rule per risky-values entry (advisor/knowledge/risky.toml,
handed in through `VariableCatalogue.risky_entries()`). Pure: a RuleGenerator (advisor.rules.catalogue).

A generated rule fires when the variable is set to a value in the entry's risky set, for the entry's
purposes, at its severity, with its sentence why, its fix and its sources. It applies where the entry
says (its `flavors`) and, within that, only where the variable exists: the engine reports
not_applicable, with the catalogue's reason, on a target where the catalogue says the variable does not
exist (`Rule.variable`). A hand-written rule that supersedes the entry (`supersedes` names the
variable or the entry's alias) takes precedence: when it fired, the engine reports the generated rule as
not_applicable, 'already reported by' that rule (`Rule.defers_to`, filled in by build_catalogue), so one
setting does not give two findings.

Each rule's examples come from its entry: the risky value fires, the target's default stays quiet (or,
when the entry says the default itself is risky, the recommended value), and a release where the
variable does not exist is not_applicable when the catalogue knows one.

    rule id  risky-<variable with - for _>-<entry id>     risky-sort-buffer-size-oversized
    alias    <variable>.<entry id>                        sort_buffer_size.oversized
             and the ids of hand-written rules it replaced (the entry's `aliases`)
    category the entry's own, else the variable's in the catalogue (traits.toml)
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from advisor.knowledge.catalogue import CATALOGUE_VERSIONS, VariableCatalogue
from advisor.knowledge.rulecheck import KNOWN_RELEASES
from advisor.knowledge.values import NUMERIC, compare, normalise
from advisor.rules.conditions import CATEGORIES, Rule, parse_condition
from advisor.severity import basis_for
from advisor.versions import Version, VersionRange

SOURCE = "src/advisor/knowledge/risky.toml"
JUDGED_ALONE = ("The setting alone decides this: no workload counter is needed, so it is reported from the "
                "configuration whatever the server is doing.")

_PREFERRED = ("mysql", "mariadb", "percona")  # TiDB accepts most of these variables without effect: by `flavors` only
# The releases an example is set on first (the ones most servers run), then the other known releases.
_FIRST = {"mysql": ("8.0.36", "8.4.3", "5.7.44"), "mariadb": ("10.11.10",), "percona": ("8.0.36",), "tidb": ("7.5.1",)}


def _releases(flavor: str) -> list[Version]:
    first = _FIRST.get(flavor, ())
    rest = [v for v in reversed(KNOWN_RELEASES.get(flavor, ())) if v not in first]
    return [Version.parse(v) for v in (*first, *rest)]


def rule_id(name: str, entry_id: str) -> str:
    return f"risky-{name.replace('_', '-')}-{entry_id}"


def category_of(name: str, entry: Any, variables: VariableCatalogue) -> str:
    """The entry's own `category`, else the variable's in the catalogue (traits.toml); never guessed."""
    given = getattr(entry, "category", None) or variables.traits(name).category
    if given not in CATEGORIES:
        t = variables.traits(name)
        why = t.category_reason or f"category {given!r} is not one of {', '.join(CATEGORIES)}"
        raise ValueError(f"{SOURCE}: [[{name}]] {entry.id}: {why}; give the variable a category in "
                         "src/advisor/knowledge/traits.toml")
    return str(given)


def _operands(entry: Any) -> list[Any]:
    return list(entry.values) if entry.values is not None else [entry.value]


_TIME = {"seconds": "s", "milliseconds": "ms", "microseconds": "µs"}


def _shown(x: Any, unit: str) -> str:
    """An operand in words: ON/OFF, sizes from 1 KiB in binary units, 'empty' for ''."""
    if unit == "bool":
        return "ON" if normalise(x, "bool") else "OFF"
    if unit == "bytes":
        n = normalise(x, "bytes")
        if n is not None and n >= 1024:
            from advisor.units import format_size

            return format_size(n)
    if unit in _TIME:
        return f"{x} {_TIME[unit]}"
    return "empty" if str(x) == "" else str(x)


def phrase(entry: Any, unit: str) -> str:
    """The risky set in words: 'at 32M or more', 'set to 0', 'other than ON'."""
    ops = [_shown(x, unit) for x in _operands(entry)]
    return {"eq": f"set to {ops[0]}", "ne": f"other than {ops[0]}", "lt": f"below {ops[0]}",
            "le": f"at {ops[0]} or less", "gt": f"above {ops[0]}", "ge": f"at {ops[0]} or more",
            "in": "set to " + " or ".join(ops), "not_in": "other than " + " and ".join(ops),
            "between": f"from {ops[0]} to {ops[-1]}", "has": "including " + " or ".join(ops),
            "lacks": "without " + " or ".join(ops)}[entry.op]


def _literal(x: Any, unit: str) -> Any:
    """The operand as a rule literal: booleans as booleans, sizes and numbers as written."""
    if unit == "bool":
        return bool(normalise(x, "bool"))
    if unit in NUMERIC and isinstance(x, str) and x.strip().lstrip("-").replace(".", "", 1).isdigit():
        return float(x) if "." in x else int(x)
    return x


def condition(name: str, entry: Any, unit: str) -> dict[str, Any]:
    if entry.op in ("has", "lacks"):  # members of a comma-separated set, as SHOW VARIABLES prints it
        import re

        members = "|".join(re.escape(str(x)) for x in _operands(entry))
        leaf = {"fact": f"var.{name}", "op": "matches", "value": rf"(^|,)\s*({members})\s*(,|$)"}
        return leaf if entry.op == "has" else {"not": leaf}
    ops = [_literal(x, unit) for x in _operands(entry)]
    leaf: dict[str, Any] = {"fact": f"var.{name}", "op": entry.op}
    if entry.op in ("in", "not_in", "between"):
        leaf["values"] = ops
    else:
        leaf["value"] = ops[0]
    return leaf


def firing_value(entry: Any, unit: str, enum: Optional[list[str]]) -> Optional[Any]:
    """A value in the risky set (the entry's first operand, or one step past a strict bound, or for
    ne / not_in the recommended value or another member of the domain)."""
    ops = _operands(entry)
    if getattr(entry, "example", None) is not None:
        return entry.example if compare(entry.op, entry.example, ops, unit) else None
    if entry.op in ("eq", "ge", "le", "in", "between", "has"):
        return ops[0]
    if entry.op == "lacks":
        return ""
    if entry.op in ("gt", "lt"):
        n = normalise(ops[0], unit)
        if n is None:
            return None
        step = 0.5 if unit == "float" or not float(n).is_integer() else 1
        if unit == "bytes" and n >= 2048:  # a size that reads as past the bound: half or twice it
            x = n * 2 if entry.op == "gt" else n // 2
        else:
            x = n + step if entry.op == "gt" else n - step
        return int(x) if float(x).is_integer() else x
    domain: list[Any] = ["ON", "OFF"] if unit == "bool" else list(enum or [])
    for cand in domain:
        if compare(entry.op, cand, ops, unit):
            return cand
    return None


def _applies(entry: Any, flavor: str, version: Version) -> bool:
    if not entry.flavors:
        return True
    rng = entry.flavors.get(flavor)
    return rng is not None and VersionRange(rng).contains(version)


def _targets(name: str, entry: Any, variables: VariableCatalogue, var: Any) -> list[tuple[str, Version]]:
    """Known releases where the entry applies and the variable exists, preferred flavors first."""
    order = list(entry.flavors) if entry.flavors else [f for f in _PREFERRED if f in var.covered]
    out = []
    for fl in order:
        for ver in _releases(fl):
            if _applies(entry, fl, ver) and variables.exists_on(name, fl, ver):
                out.append((fl, ver))
    return out


def _absent_target(name: str, entry: Any, variables: VariableCatalogue, var: Any) -> Optional[tuple[str, Version]]:
    for fl in (f for f in _PREFERRED if f in var.covered):
        for ver in _releases(fl):
            if _applies(entry, fl, ver) and variables.exists_on(name, fl, ver) is False:
                return fl, ver
    return None


def examples(name: str, entry: Any, variables: VariableCatalogue) -> list[dict[str, Any]]:
    """The entry's own examples: the risky value fires, a value outside the risky set (the default,
    else the recommended value) stays quiet, and a release without the variable is not_applicable."""
    var = variables.get(name)
    unit = var.unit
    enum = var.enum or next((e.enum for e in var.versions if e.enum), None)
    targets = _targets(name, entry, variables, var)
    if not targets:
        raise ValueError(f"{SOURCE}: [[{name}]] {entry.id}: no known release where the entry applies has the variable")
    fire = firing_value(entry, unit, enum)
    if fire is None:
        raise ValueError(f"{SOURCE}: [[{name}]] {entry.id}: no firing value follows from the entry")
    purpose = entry.purposes[0]
    quiet = None
    for fl, ver in targets:
        d = variables.default_for(name, fl, ver)
        if d is not None and compare(entry.op, d, _operands(entry), unit) is False:
            quiet = (f"default-{fl}", fl, ver, d)
            break
    if quiet is None and entry.recommend is not None and compare(entry.op, entry.recommend, _operands(entry), unit) is False:
        fl, ver = targets[0]
        quiet = ("recommended", fl, ver, entry.recommend)
    if quiet is None:
        raise ValueError(f"{SOURCE}: [[{name}]] {entry.id}: neither a known default nor `recommend` is outside the "
                         "risky set, so no example can stay quiet")
    fl, ver = targets[0]
    extra = _only_if_facts(entry, variables)
    out = [{"name": "risky-value", "expect": "fired", "purpose": purpose, "target": f"{fl} {ver}",
            "facts": {**extra, f"var.{name}": _example_value(fire, unit)}, "severity": entry.severity},
           {"name": quiet[0], "expect": "passed", "purpose": purpose, "target": f"{quiet[1]} {quiet[2]}",
            "facts": {**extra, f"var.{name}": _example_value(quiet[3], unit)}}]
    absent = _absent_target(name, entry, variables, var)
    if absent is not None:
        out.append({"name": "variable-absent", "expect": "not_applicable", "purpose": purpose,
                    "target": f"{absent[0]} {absent[1]}", "facts": dict(extra)})  # that server shows no such variable
    return out


def _example_value(x: Any, unit: str) -> Any:
    if unit == "bool":
        return "ON" if normalise(x, "bool") else "OFF"
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def _risky_set(entry: Any, unit: str) -> str:
    """' (at 32M or more)' after the value, where the value alone does not say which set it is in."""
    return "" if entry.op in ("eq", "in") else f" ({phrase(entry, unit)})"


def _value_text(name: str, unit: str) -> str:
    if unit == "bytes":
        return f"{{var.{name}|size}}"
    if unit in _TIME:
        return f"{{var.{name}}} {_TIME[unit]}"
    return f"{{var.{name}|quoted}}" if unit in ("string", "set") else f"{{var.{name}}}"


def rule_for(name: str, entry: Any, variables: VariableCatalogue) -> Rule:
    """The generated rule of one entry (ValueError naming the entry when it cannot be made)."""
    var = variables.get(name)
    if var is None:
        raise ValueError(f"{SOURCE}: [[{name}]]: not in the variable catalogue")
    unit = var.unit
    when = condition(name, entry, unit)
    flavors = dict(entry.flavors) if entry.flavors else {fl: "*" for fl in _PREFERRED if fl in var.covered}
    flavors = {fl: _within_catalogue(fl, rng) for fl, rng in flavors.items()}
    recommend = []
    if entry.recommend is not None:
        rec = entry.recommend
        recommend.append({"variable": name, "value": _shown(rec, unit) if unit == "bool" else
                          (rec if isinstance(rec, (str, int)) else str(rec))})
    category = category_of(name, entry, variables)
    raw = {
        "id": rule_id(name, entry.id), "title": f"{name} {phrase(entry, unit)}", "category": category,
        "severity": entry.severity,
        "severity_basis": basis_for(entry.severity, category, entry.basis, f"{SOURCE}: [[{name}]] {entry.id}"),
        "aliases": [f"{name}.{entry.id}", *getattr(entry, "aliases", ())], "variables": [name],
        "rationale": f"{entry.why} {JUDGED_ALONE}",
        "message": f"{name} is {_value_text(name, unit)}{_risky_set(entry, unit)}. {entry.why} Judged from the "
                   "configuration alone: no workload evidence was needed.",
        "fix": entry.fix, "references": list(entry.sources),
        "applies_to": {"purpose": list(entry.purposes), "flavors": flavors},
        "when": when, "recommend": recommend, "examples": examples(name, entry, variables),
    }
    only = _only_if(entry, variables)
    if only is not None:
        raw["applies_to"]["when"] = only
    from advisor.knowledge.plain import plain
    from advisor.rules.schema import RuleFile  # generating validates: a cache hit imports no pydantic

    spec = plain(RuleFile.model_validate(raw))
    return Rule(spec=spec, path=f"{SOURCE}#{name}.{entry.id}", when=parse_condition(when),
                applies_when=None if only is None else parse_condition(only, "applies_to.when"),
                override_whens=(), recommend_whens=tuple(None for _ in recommend),
                ranges={fl: VersionRange(r) for fl, r in flavors.items()}, variable=name)


def _within_catalogue(flavor: str, rng: str) -> str:
    """The entry's range cut to the releases the catalogue covers (CATALOGUE_VERSIONS): outside them the
    catalogue knows no default, and a risky value may be that release's own default (issue 14 §2.9:
    MySQL 5.1's innodb_thread_concurrency = 8), so the entry is not applicable there."""
    window = CATALOGUE_VERSIONS.get(flavor)
    if window is None:
        return rng
    return window if rng.strip() == "*" else f"{rng},{window}"


def _only_if(entry: Any, variables: VariableCatalogue) -> Optional[dict[str, Any]]:
    """The entry's `only_if` as an applies_to condition (None when it has none)."""
    leaves = [{"fact": f"var.{k}", "op": "eq", "value": _literal(v, variables.unit(k) or "string")}
              for k, v in sorted(entry.only_if.items())]
    if not leaves:
        return None
    return leaves[0] if len(leaves) == 1 else {"all": leaves}


def _only_if_facts(entry: Any, variables: VariableCatalogue) -> dict[str, Any]:
    return {f"var.{k}": _example_value(v, variables.unit(k) or "string") for k, v in sorted(entry.only_if.items())}


def risky_rules(variables: VariableCatalogue) -> Iterable[Rule]:
    """The RuleGenerator: one rule per risky-values entry, variables in name order."""
    table = variables.risky_entries()
    return [rule_for(name, e, variables) for name in sorted(table) for e in table[name]]
