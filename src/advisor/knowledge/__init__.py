"""The variable catalogue: per flavor and version, whether a server variable exists, its default
(a literal, or a named formula over cpus / ram_bytes / buffer_pool_bytes), unit, scope, whether it
is dynamic, its limits, its lifecycle (deprecated / removed / replaced by), its risky values and its
sources.

Data (beside this module, validated by advisor.knowledge.schema):
- variables.toml: hand-curated entries, authoritative;
- generated-mariadb.json, generated-mysql.json: every server and InnoDB variable of MariaDB 10.4 / 10.11
  and MySQL 5.6 / 5.7 / 8.0 / 8.4 (and Percona Server 8.x where its captures show the variable; coverage
  per release in docs/catalogue.md), rebuilt offline
  by tools/catalogue/build.py from extracts of the servers' own lists (tools/catalogue/sources/);
- risky.toml: risky-values entries (advisor.knowledge.riskyvalues).
- symptoms.toml: status counters that show a problem (advisor.knowledge.symptoms).
Curated entries are merged over the generated ones (advisor.knowledge.merged). Outside what a
source covers (a flavor, or for generated data a version window such as MariaDB 10.11) the answer
is "not known" (None), never a guess.

The queries live in advisor.knowledge.catalogue.VariableCatalogue (pure; the rules engine is handed
one). This module is the loading edge: `default_catalogue()` reads and caches the bundled data, and
the module-level API answers from it (the names are stable):

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
    catalogue()                                      -> the merged entries (a Mapping name -> entry)
    default_catalogue()                              -> VariableCatalogue over catalogue()

The unit resolver of the renderers is the catalogue's unit: a `var.<name>` fact is formatted by the
unit the catalogue gives (bytes as KiB/MiB/GiB, the three time units as durations, counts as plain
numbers); a name the catalogue does not know has no unit (None) and must not be guessed.

`version` is an advisor.versions.Version or a string ("8.0.36", "10.11.6-MariaDB").
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from advisor.knowledge.catalogue import VariableCatalogue, VarSpec, VersionLike, parse_version

if TYPE_CHECKING:
    from advisor.knowledge.merged import Catalogue

__all__ = ["VarSpec", "VariableCatalogue", "catalogue", "default_catalogue", "load_catalogue", "names", "exists_on",
           "default_for", "info", "unit_of", "check_setting", "is_default", "risky"]


@lru_cache(maxsize=1)
def _validated() -> dict[str, Any]:
    """The validated curated entries; cached on disk across runs (advisor.cache): validating them
    costs ~40 ms, unpickling them ~1 ms."""
    from advisor.cache import cached, code_files
    from advisor.resources import files

    src = files("advisor.knowledge") / "variables.toml"
    here = Path(__file__).resolve().parent
    return cached("variables", [("variables.toml", src)] + code_files(here), lambda: _build(src),
                  lambda x: isinstance(x, dict) and len(x) > 0)


def _build(src: Any) -> dict[str, Any]:
    from advisor.knowledge.plain import plain
    from advisor.knowledge.schema import VariableFile

    if sys.version_info >= (3, 11):  # imported here: a cache hit needs no TOML parser
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    raw = tomllib.loads(src.read_text(encoding="utf-8"))
    out = {}
    for name, body in raw.items():
        try:
            out[name] = plain(VariableFile.model_validate(body))
        except Exception as e:  # a broken catalogue is a bug in the package: say which entry
            raise ValueError(f"advisor/knowledge/variables.toml: [{name}]: {e}") from None
    return out


_GENERATED = ("generated-mariadb.json", "generated-mysql.json")


def _generated_files() -> list[dict[str, Any]]:
    """The two generated catalogue files, parsed; kept in the cache with marshal (plain data), which
    reads them in ~3.9 ms where json takes ~5.6 ms (the first read of a process)."""
    import json

    from advisor.cache import cached
    from advisor.resources import files

    paths = [files("advisor.knowledge") / name for name in _GENERATED]
    return cached("generated-json", list(zip(_GENERATED, paths)),
                  lambda: [json.loads(p.read_text(encoding="utf-8")) for p in paths],
                  lambda x: isinstance(x, list) and len(x) == len(_GENERATED) and all(isinstance(d, dict) for d in x),
                  plain=True)


def load_catalogue() -> "Catalogue":
    """The merged entries, read from the package (the curated part through the on-disk cache)."""
    from advisor.knowledge.merged import Catalogue

    return Catalogue(_validated(), _generated_files())


@lru_cache(maxsize=1)
def catalogue() -> "Catalogue":
    """name -> the merged entry as plain data (VariableFile attribute names); see merged.Catalogue."""
    return load_catalogue()


def names() -> list[str]:
    return sorted(catalogue())


def default_catalogue() -> VariableCatalogue:
    """The bundled catalogue as a VariableCatalogue, loaded once per process (the value the pure core
    is handed: advisor.rules.engine.evaluate(..., catalogue=default_catalogue()))."""
    return _default()


@lru_cache(maxsize=1)
def _default() -> VariableCatalogue:
    return VariableCatalogue(catalogue(), risky=_LazyRisky(), traits=traits(), symptoms=_LazySymptoms())


@lru_cache(maxsize=1)
def traits() -> dict[str, Any]:
    """traits.toml's records (name -> plain VariableTraits data, in the file's order), validated and cached
    on disk across runs like variables.toml."""
    from advisor.cache import cached, code_files
    from advisor.resources import files

    src = files("advisor.knowledge") / "traits.toml"
    here = Path(__file__).resolve().parent
    return cached("traits", [("traits.toml", src)] + code_files(here), lambda: _build_traits(src),
                  lambda x: isinstance(x, dict) and len(x) > 0)


def _build_traits(src: Any) -> dict[str, Any]:
    from advisor.knowledge.plain import plain
    from advisor.knowledge.schema import VariableTraits

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    out = {}
    for name, body in tomllib.loads(src.read_text(encoding="utf-8")).items():
        try:
            out[name] = plain(VariableTraits.model_validate(body))
        except Exception as e:
            raise ValueError(f"advisor/knowledge/traits.toml: [{name}]: {e}") from None
    return out


class _LazyRisky(Mapping[str, Any]):
    """risky.toml's entries (advisor.knowledge.riskyvalues.entries), read on first use: an audit whose
    generated rules come from the rule cache never reads them."""

    def _data(self) -> Mapping[str, Any]:
        from advisor.knowledge.riskyvalues import entries

        return entries()

    def __getitem__(self, name: str) -> Any:
        return self._data()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())


class _LazySymptoms(_LazyRisky):
    """symptoms.toml's entries (advisor.knowledge.symptoms.entries), read on first use."""

    def _data(self) -> Mapping[str, Any]:
        from advisor.knowledge.symptoms import entries

        return entries()


# The module-level API below answers from the bundled catalogue; code that evaluates rules is handed
# a VariableCatalogue instead and calls the same methods on it.

def exists_on(name: str, flavor: str, version: VersionLike) -> Optional[bool]:
    """True/False when the catalogue knows the variable on this flavor and version; None when it
    does not (not catalogued, flavor not researched, or a version outside the data's window)."""
    return _default().exists_on(name, flavor, version)


def default_for(name: str, flavor: str, version: VersionLike, cpus: Optional[int] = None,
                ram_bytes: Optional[int] = None, buffer_pool_bytes: Optional[int] = None) -> Optional[str]:
    """The compiled-in default as SHOW VARIABLES prints it, or None."""
    return _default().default_for(name, flavor, version, cpus=cpus, ram_bytes=ram_bytes,
                                  buffer_pool_bytes=buffer_pool_bytes)


def info(name: str, flavor: str, version: VersionLike) -> Optional[VarSpec]:
    return _default().info(name, flavor, version)


def unit_of(name: str, flavor: Optional[str] = None, version: Optional[VersionLike] = None) -> Optional[str]:
    """The variable's unit, or None when the catalogue does not know the name. The unit is the
    variable's, whatever the flavor and version; flavor and version are accepted so that callers can
    pass what they have."""
    return _default().unit(name)


def check_setting(name: str, value: Any, flavor: str, version: VersionLike) -> list[str]:
    """Problems with setting `name = value` on this target ([] = fine)."""
    return _default().check_setting(name, value, flavor, version)


def is_default(name: str, value: Any, flavor: str, version: VersionLike, **ctx: Any) -> Optional[bool]:
    """Whether `value` equals the default on this target; None when not known."""
    return _default().is_default(name, value, flavor, version, **ctx)


def risky(name: str, flavor: Optional[str] = None, version: Optional[VersionLike] = None,
          purpose: Optional[str] = None) -> list[Any]:
    """The risky-values entries of a variable (advisor.knowledge.riskyvalues), limited to those that
    apply to the flavor and version (when given) and to the purpose (when given)."""
    from advisor.knowledge.riskyvalues import entries_for

    return entries_for(name.lower(), flavor, None if version is None else parse_version(version), purpose)
