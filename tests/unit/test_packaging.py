"""Every Python package under src/advisor is listed in pyproject.toml, so a wheel has all of it."""

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_all_packages_are_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    src = ROOT / "src"
    found = {".".join(p.parent.relative_to(src).parts) for p in src.rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
