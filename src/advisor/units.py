"""Sizes, booleans and durations as MySQL-family servers write them. Pure functions."""

from __future__ import annotations

import math
import re

_SIZE_RE = re.compile(r"^\s*(\d{1,40}(?:\.\d{1,40})?)\s*([KMGTPE]?)(?:I?B)?\s*$", re.IGNORECASE)
_MAX_DIGITS = 40  # 2**64 has 20 digits: a longer number is not a setting or a counter
_MULT = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}

_TRUE = {"ON", "YES", "TRUE", "1", "ENABLED"}
_FALSE = {"OFF", "NO", "FALSE", "0", "DISABLED"}


def parse_size(value: str | int | float) -> int:
    """'32M' -> 33554432; '1.5G' -> 1610612736; 4096 -> 4096. Suffixes are powers of 1024,
    as in my.cnf. Raises ValueError for anything else."""
    if isinstance(value, bool):
        raise ValueError(f"not a size: {_shown(value)}")
    if isinstance(value, (int, float)):
        if value < 0 or (isinstance(value, float) and not math.isfinite(value)):
            raise ValueError(f"not a size: {_shown(value)}")
        return int(value)
    m = _SIZE_RE.match(value)
    if not m:
        raise ValueError(f"not a size: {_shown(value)}")
    number, suffix = m.groups()
    if "." not in number:
        return int(number) * _MULT[suffix.upper()]
    return int(float(number) * _MULT[suffix.upper()])


_DIGITS_RE = re.compile(r"[0-9]{1,40}")


def whole(text: object) -> int | None:
    """'33554432' -> 33554432; anything but 1 to 40 ASCII digits (so not '²', not 5,000 digits,
    not '-1', not ' 1') -> None. For values read from a server, a file or a snapshot."""
    return int(text) if isinstance(text, str) and _DIGITS_RE.fullmatch(text) else None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}… ({len(text):,} characters)"


_INT_RE = re.compile(r"-?\d+")
_FLOAT_RE = re.compile(r"-?\d+\.\d*(?:[eE][-+]?\d+)?|-?\d*\.\d+(?:[eE][-+]?\d+)?")


def try_number(value: object) -> int | float | None:
    """A server value as a number if it is one ('33554432' -> 33554432, '0.5' -> 0.5), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str):
        return None
    s = value.strip()
    if len(s) > _MAX_DIGITS + 8:
        return None
    if _INT_RE.fullmatch(s):
        return int(s)
    if _FLOAT_RE.fullmatch(s):
        f = float(s)
        return f if math.isfinite(f) else None
    return None


def to_number(value: object) -> int | float | None:
    """A setting as SHOW VARIABLES or a my.cnf writes it, as a number: '33554432' -> 33554432,
    '0.5' -> 0.5, '32M' -> 33554432; None, booleans and text -> None."""
    if value is None or isinstance(value, bool):
        return None
    n = try_number(value)
    if n is not None:
        return n
    try:
        return parse_size(str(value))
    except ValueError:
        return None


def parse_bool(value: object) -> bool | None:
    """ON/OFF, YES/NO, 1/0, TRUE/FALSE -> bool; anything else -> None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0 if value in (0, 1) else None
    if isinstance(value, str):
        u = value.strip().upper()
        if u in _TRUE:
            return True
        if u in _FALSE:
            return False
    return None


def format_size(n: float | int | None) -> str:
    """33554432 -> '32 MiB'; 1610612736 -> '1.5 GiB'; 1000 -> '1000 B'."""
    if n is None:
        return "unknown"
    n = float(n)
    for unit, mult in (("EiB", 1 << 60), ("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30),
                       ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= mult:
            v = n / mult
            return f"{v:.0f} {unit}" if abs(v - round(v)) < 0.05 else f"{v:.1f} {unit}"
    return f"{n:.0f} B"


def format_cnf_size(n: int) -> str:
    """A byte count as my.cnf writes it, exact: 33554432 -> '32M', 1610612736 -> '1536M'."""
    for suffix, mult in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{suffix}"
    return str(n)


def format_number(n: float | int | None) -> str:
    if n is None:
        return "unknown"
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.2f}" if abs(n) < 100 else f"{n:,.0f}"
    return f"{int(n):,}"


def format_evidence(path: str, v: object, unit: str | None = None) -> str:
    """One evidence value for a human reader, in its unit (advisor.rules.facts.FactView.unit): bytes in
    binary units with the exact count, counters with thousands separators, an empty string shown as
    such (MySQL 5.7's innodb_flush_method default). A value without a unit is shown as written."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    sized = unit == "bytes"
    if path.startswith("rate.") and isinstance(v, (int, float, str)) and try_number(v) is not None:
        return f"{format_number(try_number(v))}/s"  # a rate is per second (advisor.rules.facts: rate.<counter>)
    if isinstance(v, (int, float)):
        return f"{format_size(v)} ({format_number(v)})" if sized and abs(v) >= 1024 else format_number(v)
    if isinstance(v, str):
        if v == "":
            return "'' (empty)"
        n = whole(v)
        if n is not None:
            if sized and n >= 1024:
                return f"{format_size(n)} ({format_number(n)})"
            if path.startswith(("status.", "rate.")):
                return format_number(n)
        return v
    if isinstance(v, dict):
        return ", ".join(f"{k}={x}" for k, x in v.items() if x is not None) or "(none)"
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v) or "(none)"
    return str(v)
