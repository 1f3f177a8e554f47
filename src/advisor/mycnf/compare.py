"""Compare a value as a my.cnf writes it with the value SHOW GLOBAL VARIABLES prints: "2G" and
2147483648, ON and 1, "TLSv1.3,TLSv1.2" and "TLSv1.2,TLSv1.3", 90 and 90.000000. Pure.

The unit comes from the variable catalogue when it knows the variable; otherwise from the values
themselves (a server value that is an integer makes the file value a size).
"""

from __future__ import annotations

from typing import Any, Optional

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.units import format_cnf_size, parse_bool, to_number, try_number


def unit_of(name: str, flavor: str, version: Any, catalogue: VariableCatalogue) -> Optional[str]:
    """The variable's unit from the catalogue (its entry on this target, else on any flavor)."""
    spec = catalogue.info(name, flavor, version)
    if spec is not None:
        return spec.unit
    return catalogue.unit(name)


def _number(value: Any) -> Optional[float]:
    n = to_number(value)
    return None if n is None else float(n)

def normalise(value: Any, unit: Optional[str]) -> Any:
    """A comparable form, or None when the value does not parse for that unit."""
    s = "" if value is None else str(value).strip()
    if unit in ("bytes", "count", "seconds", "milliseconds", "microseconds", "float"):
        return _number(s)
    if unit == "bool":
        return parse_bool(s)
    if unit == "set":
        return frozenset(p.strip().lower() for p in s.split(",") if p.strip())
    if unit in ("enum", "string"):
        b = parse_bool(s)
        if unit == "enum" and b is not None and s.upper() in ("ON", "OFF", "TRUE", "FALSE", "YES", "NO"):
            return b  # innodb_doublewrite ON vs 1
        return s.lower()
    return s


def same_value(file_value: Any, server_value: Any, unit: Optional[str] = None) -> bool:
    """Whether the server shows what the file sets."""
    if unit is None:
        unit = guess_unit(file_value, server_value)
    a, b = normalise(file_value, unit), normalise(server_value, unit)
    if a is None or b is None:
        return str(file_value).strip().lower() == str(server_value).strip().lower()
    if isinstance(a, float) and isinstance(b, float):
        if unit == "float":
            return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
        return a == b
    if unit == "enum" and isinstance(a, bool) != isinstance(b, bool):
        ab, bb = parse_bool(file_value), parse_bool(server_value)
        return ab is not None and ab == bb
    return a == b


def guess_unit(file_value: Any, server_value: Any) -> str:
    fv, sv = str(file_value).strip(), str(server_value).strip()
    if parse_bool(fv) is not None and parse_bool(sv) is not None:
        return "bool"
    if try_number(sv) is not None and _number(fv) is not None:
        return "float" if "." in sv else "bytes"
    if "," in fv or "," in sv:
        return "set"
    return "string"


def show(value: Any, unit: Optional[str]) -> str:
    """A value for a human: bytes with their my.cnf size ('2147483648 (2G)')."""
    s = str(value)
    if unit == "bytes":
        n = _number(s)
        if n is not None and n.is_integer():
            if try_number(s) is None:
                return f"{s} ({int(n)})"
            short = format_cnf_size(int(n))
            if short != s:
                return f"{s} ({short})"
    return s if s != "" else "''"
