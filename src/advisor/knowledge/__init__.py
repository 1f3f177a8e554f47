"""The variable catalogue: per flavor and version, whether a server variable exists, its default
(a literal, or a named formula over cpus / ram_bytes / buffer_pool_bytes), unit, scope, whether it
is dynamic, its limits, its lifecycle (deprecated / removed / replaced by) and its sources.

Data: variables.toml beside this module, validated by advisor.knowledge.schema and queried through
advisor.knowledge.catalogue.VariableCatalogue (pure; the rules engine is handed one). This module is
the loading edge: `default_catalogue()` reads and caches the bundled data, and the module-level API
answers from it (used at the edges and by the my.cnf pipeline; the names are stable):

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
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from advisor.knowledge.catalogue import VariableCatalogue, VarSpec, VersionLike

__all__ = ["VarSpec", "VariableCatalogue", "catalogue", "default_catalogue", "names", "exists_on", "default_for",
           "info", "check_setting", "is_default"]


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


def default_catalogue() -> VariableCatalogue:
    """The bundled catalogue as a VariableCatalogue, loaded once per process (the value the pure core
    is handed: advisor.rules.engine.evaluate(..., catalogue=default_catalogue()))."""
    return _default()


@lru_cache(maxsize=1)
def _default() -> VariableCatalogue:
    return VariableCatalogue(catalogue())


# The module-level API below answers from the bundled catalogue; code that evaluates rules is handed
# a VariableCatalogue instead and calls the same methods on it.

def exists_on(name: str, flavor: str, version: VersionLike) -> Optional[bool]:
    """True/False when the catalogue knows the variable on this flavor; None when it does not."""
    return _default().exists_on(name, flavor, version)


def default_for(name: str, flavor: str, version: VersionLike, cpus: Optional[int] = None,
                ram_bytes: Optional[int] = None, buffer_pool_bytes: Optional[int] = None) -> Optional[str]:
    """The compiled-in default as SHOW VARIABLES prints it, or None."""
    return _default().default_for(name, flavor, version, cpus=cpus, ram_bytes=ram_bytes,
                                  buffer_pool_bytes=buffer_pool_bytes)


def info(name: str, flavor: str, version: VersionLike) -> Optional[VarSpec]:
    return _default().info(name, flavor, version)


def check_setting(name: str, value: Any, flavor: str, version: VersionLike) -> list[str]:
    """Problems with setting `name = value` on this target ([] = fine)."""
    return _default().check_setting(name, value, flavor, version)


def is_default(name: str, value: Any, flavor: str, version: VersionLike, **ctx: Any) -> Optional[bool]:
    """Whether `value` equals the default on this target; None when not known."""
    return _default().is_default(name, value, flavor, version, **ctx)
