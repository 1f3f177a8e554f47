"""The variable catalogue: per flavor and version, whether a server variable exists, its default
(a literal, or a named formula over cpus / ram_bytes / buffer_pool_bytes), unit, scope, whether it
is dynamic, its limits, its lifecycle (deprecated / removed / replaced by), its risky values and its
sources.

Data (beside this module, validated by advisor.knowledge.schema):
- variables.toml: hand-curated entries, authoritative;
- generated-mariadb.json, generated-mysql.json: every server and InnoDB variable of MariaDB 10.11
  and MySQL 8.0 / 8.4 (and Percona Server where its captures show the variable), rebuilt offline
  by tools/catalogue/build.py from extracts of the servers' own lists (tools/catalogue/sources/);
- risky.toml: risky-values entries (advisor.knowledge.riskyvalues).
Curated entries are merged over the generated ones (advisor.knowledge.merged). Outside what a
source covers (a flavor, or for generated data a version window such as MariaDB 10.11) the answer
is "not known" (None), never a guess.

API (used by the rules engine, the my.cnf generator and the renderers; the names are stable):

    exists_on(name, flavor, version)                 -> True | False | None (not known)
    default_for(name, flavor, version, cpus=None, ram_bytes=None, buffer_pool_bytes=None)
                                                     -> the default as SHOW VARIABLES prints it, or None
    info(name, flavor, version)                      -> VarSpec | None
    unit_of(name, flavor=None, version=None)         -> 'bytes' | 'count' | 'seconds' | 'milliseconds'
                                                        | 'microseconds' | 'float' | 'bool' | 'enum'
                                                        | 'set' | 'string' | None (not catalogued)
    check_setting(name, value, flavor, version)      -> list of problems ([] = fine)
    is_default(name, value, flavor, version, **ctx)  -> True | False | None (not known)
    risky(name, flavor=None, version=None, purpose=None) -> [RiskyValue-shaped entries that apply]
    catalogue()                                      -> Catalogue (a Mapping name -> merged entry)

The unit resolver of the renderers is `unit_of`: a `var.<name>` fact is formatted by the unit the
catalogue gives (bytes as KiB/MiB/GiB, the three time units as durations, counts as plain
numbers); a name the catalogue does not know has no unit (None) and must not be guessed.
`catalogue()` loads from the package (and the on-disk cache) on first use; code that must not
touch files takes a `Catalogue` built by `load_catalogue()` at the edge.

`version` is an advisor.versions.Version or a string ("8.0.36", "10.11.6-MariaDB").
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from advisor.versions import FLAVORS, Version, VersionRange

if TYPE_CHECKING:
    from advisor.knowledge.merged import Catalogue

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
    renamed: bool                   # replaced_by[0] is this variable's new name (both names print, one value)
    noop: bool
    note: str
    sources: tuple[str, ...]

    @property
    def enum_values(self) -> Optional[tuple[str, ...]]:
        return self.enum

    @property
    def deprecation(self) -> str:
        """'deprecated since mysql 8.0.30', or 'deprecated' when the first release is not
        recorded (the server says so but the data gives no version); '' when not deprecated."""
        if not self.deprecated:
            return ""
        return f"deprecated since {self.flavor} {self.deprecated_since}" if self.deprecated_since else "deprecated"


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


_GENERATED = ("generated-mariadb.json", "generated-mysql.json")


def _generated_files() -> list[dict[str, Any]]:
    import json
    from importlib.resources import files

    return [json.loads((files("advisor.knowledge") / name).read_text(encoding="utf-8")) for name in _GENERATED]


def load_catalogue() -> "Catalogue":
    """The merged catalogue, read from the package (the curated part through the on-disk cache)."""
    from advisor.knowledge.merged import Catalogue

    return Catalogue(_validated(), _generated_files())


@lru_cache(maxsize=1)
def catalogue() -> "Catalogue":
    """name -> the merged entry as plain data (VariableFile attribute names); see Catalogue."""
    return load_catalogue()


def names() -> list[str]:
    return sorted(catalogue())


def _v(version: VersionLike) -> Version:
    return version if isinstance(version, Version) else _parse_version(str(version))


@lru_cache(maxsize=256)
def _parse_version(text: str) -> Version:
    return Version.parse(text)


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


def _covers(var: Any, flavor: str, version: VersionLike) -> bool:
    if flavor not in var.covered:
        return False
    window = (getattr(var, "coverage", None) or {}).get(flavor)
    return window is None or _range(window).contains(_v(version))


def exists_on(name: str, flavor: str, version: VersionLike) -> Optional[bool]:
    """True/False when the catalogue knows the variable on this flavor and version; None when it
    does not (not catalogued, flavor not researched, or a version outside the data's window)."""
    var = catalogue().get(name.lower())
    if var is None or not _covers(var, flavor, version):
        return None
    return _entry(name, flavor, version) is not None


def unit_of(name: str, flavor: Optional[str] = None, version: Optional[VersionLike] = None) -> Optional[str]:
    """The variable's unit (see the module docstring), or None when the catalogue does not know the
    name. The unit is the variable's, whatever the flavor and version; flavor and version are
    accepted so that callers can pass what they have."""
    var = catalogue().get(name.lower())
    return None if var is None else var.unit


def risky(name: str, flavor: Optional[str] = None, version: Optional[VersionLike] = None,
          purpose: Optional[str] = None) -> list[Any]:
    """The risky-values entries of a variable (advisor.knowledge.riskyvalues), limited to those that
    apply to the flavor and version (when given) and to the purpose (when given)."""
    from advisor.knowledge.riskyvalues import entries_for

    return entries_for(name.lower(), flavor, None if version is None else _v(version), purpose)


def _show(value: Any, unit: str) -> str:
    """A default as SHOW GLOBAL VARIABLES prints it."""
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, float) and value.is_integer() and unit in ("bytes", "count", "seconds", "milliseconds",
                                                                   "microseconds"):
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
    return _info_cached(name.lower(), flavor, _v(version))


@lru_cache(maxsize=4096)
def _info_cached(name: str, flavor: str, version: Version) -> Optional[VarSpec]:
    var = catalogue().get(name)
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
        removed_in=var.removed.get(flavor), replaced_by=tuple(var.replaced_by),
        renamed=bool(getattr(var, "renamed", False)), noop=e.noop,
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


def _unknown_reason(name: str, flavor: str, version: Version) -> str:
    var = catalogue().get(name.lower())
    window = None if var is None else (getattr(var, "coverage", None) or {}).get(flavor)
    if var is not None and flavor in var.covered and window:
        return (f"{name} is catalogued for {flavor} {window} only, so whether it exists on {flavor} {version} "
                "is not known")
    return f"{name} is not in the variable catalogue for {flavor}, so whether it exists on {flavor} {version} is not known"


def _normal(unit: str, value: Any) -> Any:
    """A value in a comparable form for its unit, or None when it does not parse."""
    from advisor.knowledge.values import normalise

    return normalise(value, unit)


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
        return [_unknown_reason(name, flavor, v)]
    if ex is False:
        return [_absent_reason(name, flavor, v)]
    spec = info(name, flavor, v)
    assert spec is not None
    problems: list[str] = []
    if spec.noop:
        problems.append(f"{name} is accepted on {where} for compatibility but has no effect")
    n = _normal(spec.unit, value)
    if spec.unit in ("bytes", "count", "seconds", "milliseconds", "microseconds", "float"):
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
