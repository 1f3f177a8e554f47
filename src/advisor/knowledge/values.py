"""Values of server variables in their unit: parse and compare. Pure functions.

A value arrives as SHOW VARIABLES prints it ("33554432", "ON", "REPEATABLE-READ") or as a my.cnf
or a catalogue entry writes it ("32M", true, "repeatable-read"). `normalise` turns either into a
comparable form for the variable's unit; `compare` applies one of the risky-value operators.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

NUMERIC = ("bytes", "count", "seconds", "milliseconds", "microseconds", "float")


def normalise(value: Any, unit: Optional[str]) -> Any:
    """A comparable form of `value` for `unit`, or None when it does not parse: a float for the
    numeric units (sizes accept K/M/G suffixes), True/False for bool, a frozenset of lower-case
    members for set, a lower-case string for enum and string."""
    from advisor.units import parse_bool, to_number

    if value is None:
        return None
    if unit in NUMERIC:
        if isinstance(value, bool):
            return None
        n = to_number(value)
        return None if n is None else float(n)
    if unit == "bool":
        if isinstance(value, bool):
            return value
        return parse_bool(str(value))
    if unit == "set":
        return frozenset(p.strip().lower() for p in str(value).split(",") if p.strip())
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value).strip().lower()


def compare(op: str, value: Any, operands: Iterable[Any], unit: str) -> Optional[bool]:
    """Whether `value op operands` holds in `unit` (eq/ne/lt/le/gt/ge take one operand, in/not_in
    a list, between [low, high] inclusive, has / lacks set members); None when the value or an operand does not parse."""
    a = normalise(value, unit)
    bs = [normalise(x, unit) for x in operands]
    if a is None or any(b is None for b in bs):
        return None
    if op in ("has", "lacks"):  # set members: any operand present / none present
        if not isinstance(a, frozenset):
            return None
        hit = any(b <= a for b in bs)
        return hit if op == "has" else not hit
    if op in ("in", "not_in"):
        hit = any(a == b for b in bs)
        return hit if op == "in" else not hit
    if op == "between":
        lo, hi = bs
        return lo <= a <= hi
    b = bs[0]
    if op == "eq":
        return a == b
    if op == "ne":
        return a != b
    if unit not in NUMERIC:
        return None
    return {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op]
