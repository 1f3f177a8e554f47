"""Risky values of server variables (risky.toml beside this module; schema RiskyValue).

An entry names the settings of one variable that are a problem for a purpose, with a severity,
one sentence why, the fix and sources (see risky.toml's header for the fields). This module loads
and validates the file (cached on disk like variables.toml), answers which entries apply to a
flavor, version and purpose, compares a value with an entry in the variable's unit, and derives
the entry's own examples: a value that must fire and, unless `default_is_risky`, the default that
must stay quiet. It evaluates nothing by itself: the generic rule family does.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from advisor.versions import Version, VersionRange


def _load(text: str) -> dict[str, list[Any]]:
    from advisor.knowledge.schema import RiskyValue

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    raw = tomllib.loads(text)
    out: dict[str, list[Any]] = {}
    for name, entries in raw.items():
        if not isinstance(entries, list):
            raise ValueError(f"advisor/knowledge/risky.toml: [{name}]: write each entry as [[{name}]]")
        for i, body in enumerate(entries):
            try:
                out.setdefault(name, []).append(RiskyValue.model_validate(body))
            except Exception as e:
                raise ValueError(f"advisor/knowledge/risky.toml: [[{name}]] #{i + 1}: {e}") from None
    return out


def validate(text: str, catalogue: Any) -> dict[str, list[Any]]:
    """The entries of a risky.toml text, validated against the schema and the catalogue: the
    variable exists there, values are in its unit, flavors are ones it covers. Raises ValueError."""
    from advisor.knowledge.values import normalise

    out = _load(text)
    for name, entries in out.items():
        var = catalogue.get(name)
        if var is None:
            raise ValueError(f"advisor/knowledge/risky.toml: [[{name}]]: not in the variable catalogue")
        enum = var.enum or next((e.enum for e in var.versions if e.enum), None)
        for r in entries:
            try:
                r.check_unit(var.unit, enum)
            except ValueError as e:
                raise ValueError(f"advisor/knowledge/risky.toml: [[{name}]] {r.id}: {e}") from None
            for other, want in r.only_if.items():
                ovar = catalogue.get(other)
                if ovar is None:
                    raise ValueError(f"advisor/knowledge/risky.toml: [[{name}]] {r.id}: only_if names {other}, "
                                     "which is not in the variable catalogue")
                if normalise(want, ovar.unit) is None:
                    raise ValueError(f"advisor/knowledge/risky.toml: [[{name}]] {r.id}: only_if {other} = {want!r} "
                                     f"is not a {ovar.unit} value")
            stray = set(r.flavors) - set(var.covered)
            if stray:
                raise ValueError(f"advisor/knowledge/risky.toml: [[{name}]] {r.id}: the catalogue does not cover "
                                 f"{', '.join(sorted(stray))} for {name}")
    return out


@lru_cache(maxsize=1)
def entries() -> dict[str, list[Any]]:
    """name -> validated entries as plain data (cached on disk across runs)."""
    from advisor.cache import cached, code_files
    from advisor.knowledge.plain import plain
    from advisor.resources import files

    src = files("advisor.knowledge") / "risky.toml"
    here = Path(__file__).resolve().parent

    def build() -> dict[str, list[Any]]:
        return {k: [plain(r) for r in v] for k, v in _load(src.read_text(encoding="utf-8")).items()}

    return cached("risky", [("risky.toml", src)] + code_files(here), build, lambda x: isinstance(x, dict))


def applies(entry: Any, flavor: Optional[str], version: Optional[Version], purpose: Optional[str]) -> bool:
    if purpose is not None and purpose not in entry.purposes:
        return False
    if flavor is None or not entry.flavors:
        return True
    rng = entry.flavors.get(flavor)
    if rng is None:
        return False
    return version is None or VersionRange(rng).contains(version)


def entries_for(name: str, flavor: Optional[str], version: Optional[Version], purpose: Optional[str]) -> list[Any]:
    return [e for e in entries().get(name, []) if applies(e, flavor, version, purpose)]


def operands(entry: Any) -> list[Any]:
    return list(entry.values) if entry.values is not None else [entry.value]


def matches(entry: Any, value: Any, unit: str) -> Optional[bool]:
    """Whether a setting is in the entry's risky set, in the variable's unit; None when the value
    does not parse in that unit."""
    from advisor.knowledge.values import compare

    return compare(entry.op, value, operands(entry), unit)


def firing_example(entry: Any, unit: str, enum: Optional[list[str]] = None) -> Optional[Any]:
    """A value the entry must report, derived from the entry itself (None when it cannot say); the
    generated rules' firing examples use the same derivation (advisor.rules.risky.firing_value)."""
    from advisor.rules.risky import firing_value

    return firing_value(entry, unit, enum)
