"""The variable catalogue: per flavor and version, whether a server variable exists, its default
(a literal, or a named formula over cpus / ram_bytes / buffer_pool_bytes), unit, scope, whether it
is dynamic, its limits, its lifecycle (deprecated / removed / replaced by) and its sources.

Data: variables.toml beside this module, validated by advisor.knowledge.schema. API (used by the
rules engine and the my.cnf generator; the names are stable):

    exists_on(name, flavor, version)                 -> True | False | None (not known)
    default_for(name, flavor, version, cpus=None, ram_bytes=None, buffer_pool_bytes=None)
                                                     -> the default as SHOW VARIABLES prints it, or None
    info(name, flavor, version)                      -> VarSpec | None
    check_setting(name, value, flavor, version)      -> list of problems ([] = fine)
    is_default(name, value, flavor, version, **ctx)  -> True | False | None (not known)

`version` is an advisor.versions.Version or a string ("8.0.36", "10.11.6-MariaDB").
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, Union

from advisor.versions import FLAVORS, Version, VersionRange


VersionLike = Union[Version, str]


@dataclass(frozen=True)
class VarSpec:
    """What the catalogue knows about one variable on one flavor and version."""

    name: str
    flavor: str
    version: str
    unit: str
    scope: str
    dynamic: bool
    min: Optional[float]
    max: Optional[float]
    default: Optional[str]          # as SHOW VARIABLES prints it; None when computed or not recorded
    default_formula: Optional[str]  # name in advisor.knowledge.defaults.DEFAULT_FORMULAS
    enum: Optional[tuple[str, ...]]
    deprecated: bool
    deprecated_since: Optional[str]
    removed_in: Optional[str]
    replaced_by: tuple[str, ...]
    noop: bool
    note: str
    sources: tuple[str, ...]

    @property
    def enum_values(self) -> Optional[tuple[str, ...]]:
        return self.enum


@lru_cache(maxsize=1)
def _validated() -> dict[str, Any]:
    """The validated catalogue; cached on disk across runs (advisor.cache): validating ~100
    entries costs ~40 ms, unpickling them ~1 ms."""
    from importlib.resources import files

    from advisor.cache import cached, code_files

    src = files("advisor.knowledge") / "variables.toml"
    here = Path(__file__).resolve().parent
    return cached("variables", [("variables.toml", src)] + code_files(here), lambda: _build(src),
                  lambda x: isinstance(x, dict) and len(x) > 0)


def _plain(obj: Any) -> Any:
    """A validated entry as plain data (SimpleNamespace with the same attribute names): it
    unpickles without importing the pydantic schema module, ~10 ms less per audit."""
    from types import SimpleNamespace

    from pydantic import BaseModel

    if isinstance(obj, BaseModel):
        return SimpleNamespace(**{k: _plain(getattr(obj, k)) for k in type(obj).model_fields})
    if isinstance(obj, list):
        return [_plain(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


def _build(src: Any) -> dict[str, Any]:
    from advisor.knowledge.schema import VariableFile

    if sys.version_info >= (3, 11):  # imported here: a cache hit needs no TOML parser
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    raw = tomllib.loads(src.read_text(encoding="utf-8"))
    out = {}
    for name, body in raw.items():
        try:
            out[name] = _plain(VariableFile.model_validate(body))
        except Exception as e:  # a broken catalogue is a bug in the package: say which entry
            raise ValueError(f"advisor/knowledge/variables.toml: [{name}]: {e}") from None
    return out


def catalogue() -> dict[str, Any]:
    """name -> the validated VariableFile as plain data (same attribute names)."""
    return _validated()


def names() -> list[str]:
    return sorted(catalogue())


def _v(version: VersionLike) -> Version:
    return version if isinstance(version, Version) else Version.parse(str(version))


@lru_cache(maxsize=None)
def _range(text: str) -> VersionRange:
    return VersionRange(text)


def _entry(name: str, flavor: str, version: VersionLike) -> Any:
    return _entry_cached(name.lower(), flavor, _v(version))


@lru_cache(maxsize=4096)
def _entry_cached(name: str, flavor: str, v: Version) -> Any:
    var = catalogue().get(name)
    if var is None:
        return None
    for e in var.versions:
        if flavor in e.flavors and _range(e.range).contains(v):
            return e
    return None


def exists_on(name: str, flavor: str, version: VersionLike) -> Optional[bool]:
    """True/False when the catalogue knows the variable on this flavor; None when it does not."""
    var = catalogue().get(name.lower())
    if var is None or flavor not in var.covered:
        return None
    return _entry(name, flavor, version) is not None


def _show(value: Any, unit: str) -> str:
    """A default as SHOW GLOBAL VARIABLES prints it."""
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, float) and value.is_integer() and unit in ("bytes", "count", "seconds"):
        return str(int(value))
    return str(value)


def default_for(name: str, flavor: str, version: VersionLike, cpus: Optional[int] = None,
                ram_bytes: Optional[int] = None, buffer_pool_bytes: Optional[int] = None) -> Optional[str]:
    """The compiled-in default as SHOW VARIABLES prints it, or None (not recorded, autosized, or a
    formula whose inputs were not given)."""
    var = catalogue().get(name.lower())
    e = _entry(name, flavor, version)
    if var is None or e is None:
        return None
    if e.default_formula is not None:
        from advisor.knowledge.defaults import Inputs, compute

        val = compute(e.default_formula, Inputs(cpus=cpus, ram_bytes=ram_bytes, buffer_pool_bytes=buffer_pool_bytes))
        return None if val is None else str(val)
    if e.default is None:
        return None
    return _show(e.default, var.unit)


def info(name: str, flavor: str, version: VersionLike) -> Optional[VarSpec]:
    var = catalogue().get(name.lower())
    e = _entry(name, flavor, version)
    if var is None or e is None:
        return None
    enum = e.enum if e.enum is not None else var.enum
    return VarSpec(
        name=name.lower(), flavor=flavor, version=str(_v(version)), unit=var.unit,
        scope=e.scope or var.scope, dynamic=var.dynamic if e.dynamic is None else e.dynamic,
        min=_int_if_whole(e.min if e.min is not None else var.min),
        max=_int_if_whole(e.max if e.max is not None else var.max),
        default=None if e.default is None else _show(e.default, var.unit), default_formula=e.default_formula,
        enum=tuple(enum) if enum is not None else None,
        deprecated=e.deprecated, deprecated_since=var.deprecated.get(flavor) if e.deprecated else None,
        removed_in=var.removed.get(flavor), replaced_by=tuple(var.replaced_by), noop=e.noop,
        note=" ".join(x for x in (var.note, e.note) if x), sources=tuple(var.sources),
    )


def _int_if_whole(x: Optional[float]) -> Optional[float]:
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _ranges_on(var: Any, flavor: str) -> list[str]:
    return [e.range for e in var.versions if flavor in e.flavors]


def _absent_reason(name: str, flavor: str, version: Version) -> str:
    var = catalogue()[name.lower()]
    where = f"{flavor} {version}"
    removed = var.removed.get(flavor)
    if removed and version >= Version.parse(removed):
        text = f"{name} does not exist on {where}: removed in {flavor} {removed}"
    else:
        ranges = _ranges_on(var, flavor)
        text = (f"{name} does not exist on {where} (it exists on {flavor} {' or '.join(ranges)})" if ranges
                else f"{name} does not exist on {flavor}")
    repl = [r for r in var.replaced_by if exists_on(r, flavor, version)]
    if repl:
        text += f"; use {' and '.join(repl)} instead"
    return text


def _number(value: Any) -> Optional[float]:
    from advisor.units import to_number

    n = to_number(value)
    return None if n is None else float(n)

def _normal(unit: str, value: Any) -> Any:
    """A value in a comparable form for its unit, or None when it does not parse."""
    from advisor.units import parse_bool

    if unit in ("bytes", "count", "seconds", "float"):
        return _number(value)
    if unit == "bool":
        return parse_bool(value)
    if unit == "set":
        return frozenset(p.strip().lower() for p in str(value).split(",") if p.strip())
    return str(value).strip().lower()


def check_setting(name: str, value: Any, flavor: str, version: VersionLike) -> list[str]:
    """Problems with setting `name = value` on this target: not known, does not exist there (with
    the version that removed it and its replacement), out of range, not a valid enum/boolean value.
    An empty list means the catalogue sees nothing wrong."""
    v = _v(version)
    where = f"{flavor} {v}"
    if flavor not in FLAVORS:
        return [f"{flavor!r} is not a flavor (use one of {', '.join(FLAVORS)})"]
    ex = exists_on(name, flavor, v)
    if ex is None:
        return [f"{name} is not in the variable catalogue for {flavor}, so whether it exists on {where} is not known"]
    if ex is False:
        return [_absent_reason(name, flavor, v)]
    spec = info(name, flavor, v)
    assert spec is not None
    problems: list[str] = []
    if spec.noop:
        problems.append(f"{name} is accepted on {where} for compatibility but has no effect")
    n = _normal(spec.unit, value)
    if spec.unit in ("bytes", "count", "seconds", "float"):
        if n is None:
            return problems + [f"{name} takes a number on {where} (got {value!r})"]
        if spec.min is not None and n < spec.min:
            problems.append(f"{name} = {value} is below the minimum {_show(spec.min, spec.unit)} on {where}")
        if spec.max is not None and n > spec.max:
            problems.append(f"{name} = {value} is above the maximum {_show(spec.max, spec.unit)} on {where}")
    elif spec.unit == "bool":
        if n is None:
            problems.append(f"{name} takes ON or OFF on {where} (got {value!r})")
    elif spec.enum:
        allowed = {x.lower() for x in spec.enum}
        got = n if spec.unit == "set" else {n}
        bad = sorted(x for x in got if x not in allowed)
        if bad:
            problems.append(f"{name} = {value!r} on {where}: {', '.join(bad)} is not one of {', '.join(spec.enum)}")
    return problems


def is_default(name: str, value: Any, flavor: str, version: VersionLike, **ctx: Any) -> Optional[bool]:
    """Whether `value` equals the default on this target; None when the default is not known
    (not catalogued, autosized, or a formula whose inputs (cpus, ram_bytes, buffer_pool_bytes)
    were not given) or the value does not parse."""
    spec = info(name, flavor, version)
    if spec is None:
        return None
    d = default_for(name, flavor, version, **{k: ctx.get(k) for k in ("cpus", "ram_bytes", "buffer_pool_bytes")})
    if d is None:
        return None
    a, b = _normal(spec.unit, value), _normal(spec.unit, d)
    if a is None or b is None:
        return None
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) < 1e-9
    return a == b
