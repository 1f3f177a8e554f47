"""The pydantic-free half of the rule schema (advisor.rules.schema re-exports all of it): the closed
sets (severities, purposes, categories), conditions and their parser, and the loaded Rule. The
engine and the rule cache need only this module, so an audit whose rules come from the cache
imports no pydantic; the rule file's pydantic models are in advisor.rules.schema.
"""



import re
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union, get_args


from advisor import severity as policy
from advisor.rules import ops
from advisor.versions import FLAVORS, VersionRange


def basis_fits_severity(cls: type, v: Optional[str], info: Any) -> Optional[str]:
    """The field validator of `severity_basis` for rule and watch-verdict files (advisor.severity.check)."""
    if v is not None and "severity" in info.data:
        policy.check(info.data["severity"], v)
    return v

Severity = Literal["critical", "warning", "info"]
SEVERITIES: tuple[str, ...] = ("critical", "warning", "info")
SEVERITY_RANK = {"info": 1, "warning": 2, "critical": 3}
Purpose = Literal["production", "benchmark"]
PURPOSES: tuple[str, ...] = ("production", "benchmark")
Status = Literal["fired", "passed", "not_applicable", "unknown"]
# checklist checks: the phase an item belongs to and its outcome
Phase = Literal["environment", "server", "data", "run"]
ItemStatus = Literal["pass", "fail", "unknown", "manual", "note"]
PHASES: tuple[Phase, ...] = ("environment", "server", "data", "run")
ITEM_STATUSES: tuple[ItemStatus, ...] = ("pass", "fail", "unknown", "manual", "note")
STATUSES: tuple[str, ...] = ("fired", "passed", "not_applicable", "unknown")

# The closed, documented set of categories (docs/report-format.md).
Category = Literal["tls", "network", "memory", "redo", "flushing", "durability", "storage",
                   "concurrency", "os", "benchmark", "version", "tidb",
                   "logging", "instrumentation", "transactions", "replication", "limits", "engine",
                   "optimizer", "correctness", "security", "charset"]
CATEGORIES: tuple[str, ...] = get_args(Category)

ID_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")


class ConditionError(ValueError):
    """A malformed condition; `loc` is the path inside the condition."""

    def __init__(self, loc: str, msg: str):
        super().__init__(msg)
        self.loc = loc
        self.msg = msg


# ---------------------------------------------------------------- conditions (parsed form)

@dataclass(frozen=True)
class Leaf:
    """One comparison of a fact with literals or another fact (times a factor)."""

    fact: str
    op: str
    literals: tuple[ops.LiteralValue, ...] = ()
    ref: Optional[str] = None
    factor: float = 1.0
    pattern: Optional[re.Pattern[str]] = None

    def facts(self) -> list[str]:
        return [self.fact] + ([self.ref] if self.ref else [])


@dataclass(frozen=True)
class AllOf:
    """A condition that holds when every item holds."""

    items: tuple["Condition", ...]

    def facts(self) -> list[str]:
        return [f for i in self.items for f in i.facts()]


@dataclass(frozen=True)
class AnyOf:
    """A condition that holds when any item holds."""

    items: tuple["Condition", ...]

    def facts(self) -> list[str]:
        return [f for i in self.items for f in i.facts()]


@dataclass(frozen=True)
class NotOf:
    """A condition that holds when its item does not."""

    item: "Condition"

    def facts(self) -> list[str]:
        return self.item.facts()


Condition = Union[Leaf, AllOf, AnyOf, NotOf]

_LEAF_KEYS = {"fact", "op", "value", "values", "ref", "factor"}


def parse_condition(obj: Any, loc: str = "when") -> Condition:
    if not isinstance(obj, dict):
        raise ConditionError(loc, f"expected a table with all, any, not or fact (got {type(obj).__name__})")
    tree_keys = {"all", "any", "not"} & obj.keys()
    if tree_keys:
        if len(obj) != 1:
            raise ConditionError(loc, f"a condition node has exactly one of all, any, not (got {', '.join(sorted(obj))})")
        key = next(iter(tree_keys))
        val = obj[key]
        if key == "not":
            return NotOf(parse_condition(val, f"{loc}.not"))
        if not isinstance(val, list) or not val:
            raise ConditionError(f"{loc}.{key}", "expected a non-empty list of conditions")
        items = tuple(parse_condition(v, f"{loc}.{key}[{i}]") for i, v in enumerate(val))
        return AllOf(items) if key == "all" else AnyOf(items)
    unknown = set(obj) - _LEAF_KEYS
    if unknown:
        raise ConditionError(loc, f"unknown key {sorted(unknown)[0]!r}; a leaf has fact, op and one of value, values, ref (and optional factor)")
    if "fact" not in obj:
        raise ConditionError(loc, "missing 'fact' (or all / any / not)")
    fact = obj["fact"]
    if not isinstance(fact, str):
        raise ConditionError(f"{loc}.fact", "expected a dotted fact path string")
    op = obj.get("op")
    if op not in ops.OPS:
        raise ConditionError(f"{loc}.op", f"expected one of {', '.join(ops.OPS)} (got {op!r})")
    has = [k for k in ("value", "values", "ref") if k in obj]
    if op == "exists":
        if has:
            raise ConditionError(loc, "op 'exists' takes no value")
        return Leaf(fact, op)
    if len(has) != 1:
        raise ConditionError(loc, f"op {op!r} needs exactly one of value, values, ref")
    factor = obj.get("factor", 1.0)
    if not isinstance(factor, (int, float)) or isinstance(factor, bool):
        raise ConditionError(f"{loc}.factor", "expected a number")
    if "ref" in obj:
        if op not in ("eq", "ne", "lt", "le", "gt", "ge"):
            raise ConditionError(f"{loc}.ref", f"ref compares with another fact and works with eq, ne, lt, le, gt, ge (got op {op!r})")
        if not isinstance(obj["ref"], str):
            raise ConditionError(f"{loc}.ref", "expected a dotted fact path string")
        return Leaf(fact, op, ref=obj["ref"], factor=float(factor))
    if "factor" in obj:
        raise ConditionError(f"{loc}.factor", "factor only applies with ref")
    raw = obj["values"] if "values" in obj else [obj["value"]]
    key = "values" if "values" in obj else "value"
    if not isinstance(raw, list):
        raise ConditionError(f"{loc}.{key}", "expected a list")
    want = {"in": None, "not_in": None, "between": 2}.get(op, 1)
    if op in ("in", "not_in") and key != "values":
        raise ConditionError(f"{loc}.value", f"op {op!r} takes 'values' (a list)")
    if want is not None and len(raw) != want:
        raise ConditionError(f"{loc}.{key}", f"op {op!r} takes {want} value{'s' if want > 1 else ''} (got {len(raw)})")
    try:
        lits = tuple(ops.make_literal(v) for v in raw)
    except ValueError as e:
        raise ConditionError(f"{loc}.{key}", str(e)) from None
    pattern = None
    if op == "matches":
        try:
            pattern = re.compile(str(raw[0]), re.IGNORECASE)
        except re.error as e:
            raise ConditionError(f"{loc}.value", f"invalid regular expression: {e}") from None
    return Leaf(fact, op, lits, pattern=pattern)


@dataclass(frozen=True)
class Rule:
    """A loaded rule: the validated file (plain data with RuleFile's attribute names, advisor.knowledge.plain)
    plus parsed conditions."""

    spec: Any
    path: str
    when: Condition
    applies_when: Optional[Condition]
    override_whens: tuple[Condition, ...]
    recommend_whens: tuple[Optional[Condition], ...]
    ranges: dict[str, VersionRange] = field(default_factory=dict)
    # generated rules (advisor.rules.risky): the variable they judge (not_applicable where the variable
    # catalogue says it does not exist) and the hand-written rules that judge it first (defers_to)
    variable: Optional[str] = None
    defers_to: tuple[str, ...] = ()
    # generated symptom rules (advisor.rules.symptoms): the sample the judgement needs (uptime, events);
    # while it does not hold the outcome is unknown, never passed
    sample: Optional[Condition] = None

    kind: str = "rule"

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def aliases(self) -> list[str]:
        return list(self.spec.aliases)

    @property
    def references(self) -> tuple[str, ...]:
        return tuple(self.spec.references)

    def fact_paths(self) -> list[str]:
        out: list[str] = list(self.when.facts())
        if self.sample:
            out += self.sample.facts()
        if self.applies_when:
            out += self.applies_when.facts()
        for c in self.override_whens:
            out += c.facts()
        for c in self.recommend_whens:
            if c:
                out += c.facts()
        return out
