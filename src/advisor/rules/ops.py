"""The closed set of condition operators. Each operator compares a fact with a literal (or
another fact) and renders a sentence for the outcome's reason, as kube-bench's tests do.

Coercion follows the literal: a size or number literal ("32M", 4096) compares numerically
(the fact must parse as a number); a boolean literal compares with ON/OFF/YES/NO/1/0 facts;
a string compares case-insensitively; a fact of type Version compares as a version.
A fact that cannot be coerced makes the condition unknown, never silently false.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from advisor.units import format_size, parse_bool, parse_size, try_number
from advisor.versions import Version

OpName = Literal["eq", "ne", "lt", "le", "gt", "ge", "in", "not_in", "between", "matches", "exists", "contains"]
OPS: tuple[str, ...] = ("eq", "ne", "lt", "le", "gt", "ge", "in", "not_in", "between", "matches", "exists", "contains")

_SYMBOL = {"eq": "=", "ne": "≠", "lt": "<", "le": "≤", "gt": ">", "ge": "≥"}
# The relation that holds when the operator's does not: a reason says "is 96 MiB, ≤ 128M", never
# "not > 128M" or the double negation "not ≠".
SYMBOL = _SYMBOL
NEGATED = {"eq": "≠", "ne": "=", "lt": "≥", "le": ">", "gt": "≤", "ge": "<"}
_SIZE_LITERAL = re.compile(r"^\s*\d+(\.\d+)?\s*[KMGTPE]i?B?\s*$", re.IGNORECASE)


class CoercionError(Exception):
    """The fact's value cannot be compared with the literal."""


@dataclass(frozen=True)
class LiteralValue:
    """A literal as written in a rule, with the comparable value derived from it."""

    written: Any
    kind: Literal["number", "size", "bool", "string", "version"]
    value: Any

    def show(self) -> str:
        if self.kind == "size":
            return f"{self.written} ({format_size(self.value)})" if isinstance(self.written, str) else format_size(self.value)
        if self.kind == "bool":
            return "ON" if self.value else "OFF"
        if isinstance(self.written, str) and self.written.strip() == "":
            return "'' (empty)"
        return str(self.written)


def make_literal(v: Any) -> LiteralValue:
    if isinstance(v, bool):
        return LiteralValue(v, "bool", v)
    if isinstance(v, (int, float)):
        return LiteralValue(v, "number", v)
    if isinstance(v, str):
        if _SIZE_LITERAL.match(v):
            return LiteralValue(v, "size", parse_size(v))
        n = try_number(v)
        if n is not None:
            return LiteralValue(v, "number", n)
        return LiteralValue(v, "string", v)
    raise ValueError(f"unsupported literal {v!r} (use a string, number or boolean)")


def coerce(fact_value: Any, lit: LiteralValue) -> Any:
    """The fact value converted to the literal's kind, or CoercionError."""
    if isinstance(fact_value, Version):
        if lit.kind in ("number", "size", "string"):
            try:
                return fact_value, Version.parse(str(lit.written))
            except ValueError:
                raise CoercionError(f"{lit.written!r} is not a version") from None
    if lit.kind in ("number", "size"):
        n = try_number(fact_value)
        if n is None and isinstance(fact_value, str):
            try:
                n = parse_size(fact_value)
            except ValueError:
                n = None
        if n is None:
            raise CoercionError(f"value {fact_value!r} is not a number")
        return n, lit.value
    if lit.kind == "bool":
        b = parse_bool(fact_value)
        if b is None:
            raise CoercionError(f"value {fact_value!r} is not a boolean (ON/OFF)")
        return b, lit.value
    if isinstance(fact_value, (list, tuple, dict)):
        raise CoercionError(f"value {fact_value!r} is not a scalar")
    return str(fact_value).strip().lower(), str(lit.value).strip().lower()


def compare(op: str, fact_value: Any, lit: LiteralValue) -> bool:
    a, b = coerce(fact_value, lit)
    if op == "eq":
        return a == b
    if op == "ne":
        return a != b
    if op == "lt":
        return a < b
    if op == "le":
        return a <= b
    if op == "gt":
        return a > b
    if op == "ge":
        return a >= b
    raise ValueError(op)


def apply(op: str, fact_value: Any, literals: list[LiteralValue], pattern: re.Pattern[str] | None = None) -> bool:
    """Evaluate a non-`exists` operator. literals holds one item, the list for in/not_in, or
    [low, high] for between."""
    if op in _SYMBOL:
        return compare(op, fact_value, literals[0])
    if op == "in":
        return any(compare("eq", fact_value, lit) for lit in literals)
    if op == "not_in":
        return not any(compare("eq", fact_value, lit) for lit in literals)
    if op == "between":
        return compare("ge", fact_value, literals[0]) and compare("le", fact_value, literals[1])
    if op == "matches":
        assert pattern is not None
        return pattern.search(str(fact_value)) is not None
    if op == "contains":
        if isinstance(fact_value, (list, tuple)):
            want = str(literals[0].written).lower()
            return any(str(x).lower() == want for x in fact_value)
        return str(literals[0].written).lower() in str(fact_value).lower()
    raise ValueError(f"unknown operator {op}")


def sentence(op: str, shown_fact: str, literals: list[LiteralValue], pattern_text: str = "", negated: bool = False) -> str:
    """'var.sort_buffer_size is 32 MiB, ≥ 32M (32 MiB)' style text for reasons."""
    if op in _SYMBOL:
        rel = NEGATED[op] if negated else _SYMBOL[op]
        return f"{shown_fact}, {rel} {literals[0].show()}"
    if op in ("in", "not_in"):
        one = (op == "in") != negated
        return f"{shown_fact}, {'one' if one else 'none'} of " + ", ".join(lit.show() for lit in literals)
    if op == "between":
        text = f"between {literals[0].show()} and {literals[1].show()}"
    elif op == "matches":
        text = f"matching /{pattern_text}/"
    elif op == "contains":
        text = f"containing {literals[0].show()}"
    else:
        text = "present"
    return f"{shown_fact}, {'not ' if negated else ''}{text}"
