"""The variable catalogue: per flavor and version, whether a variable exists, its default,
unit, scope, whether it is dynamic, and the source. Data in variables.toml; this module reads it.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any, Optional

from advisor.versions import Version, VersionRange

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@lru_cache(maxsize=1)
def catalogue() -> dict[str, Any]:
    from importlib.resources import files

    return tomllib.loads((files("advisor.knowledge") / "variables.toml").read_text(encoding="utf-8"))["variables"]


def _entry(name: str, flavor: str, version: Version) -> Optional[dict[str, Any]]:
    var = catalogue().get(name)
    if var is None:
        return None
    for spec in var.get("versions", []):
        if flavor in spec["flavors"] and VersionRange(spec.get("range", "*")).contains(version):
            return spec
    return None


def exists_on(name: str, flavor: str, version: Version) -> Optional[bool]:
    """True/False when the catalogue knows the variable; None when it does not."""
    if name not in catalogue():
        return None
    return _entry(name, flavor, version) is not None


def default_for(name: str, flavor: str, version: Version) -> Optional[str]:
    e = _entry(name, flavor, version)
    if e is None or "default" not in e:
        return None
    d = e["default"]
    if isinstance(d, bool):
        return "ON" if d else "OFF"
    return str(d)
