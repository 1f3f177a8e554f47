"""Packages are discovered (setup.py), not listed: every package under src/, and the rule catalogue
and templates with their subdirectories, so a wheel has all of it without setuptools warnings.
tests/integration/test_packaging_sdist.py builds the sdist and wheel and checks their contents."""

import runpy
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_and_catalogue_directory_is_discovered():
    discover = runpy.run_path(str(ROOT / "setup.py"), run_name="setup")["discover"]
    found = set(discover(str(ROOT)))
    src = ROOT / "src"
    packages = {".".join(p.parent.relative_to(src).parts) for p in src.rglob("__init__.py")}
    assert packages <= found, sorted(packages - found)
    for name, where in (("advisor.catalog", "rules"), ("advisor.templates", "templates")):
        subdirs = {".".join((name, *d.relative_to(ROOT / where).parts)) for d in (ROOT / where).rglob("*")
                   if d.is_dir() and d.name != "__pycache__"}
        assert {name} | subdirs <= found, sorted(({name} | subdirs) - found)
    assert not [p for p in found if "__pycache__" in p]


def test_metadata():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = meta["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text() and "Version 2.0, January 2004" in (ROOT / "LICENSE").read_text()
    assert "packages" not in meta["tool"]["setuptools"]  # found by setup.py
    assert any(d.startswith("PyMySQL[rsa,ed25519]") for d in project["dependencies"])
    assert set(project["urls"]) >= {"Homepage", "Source", "Issues", "Changelog", "Documentation"}
    assert (ROOT / "src/advisor/py.typed").exists()
    assert meta["tool"]["setuptools"]["package-data"]["advisor"] == ["py.typed"]


def test_readme_links_work_on_the_package_index():
    """The package index shows README.md without the repository around it: every link is absolute,
    and those into this repository name a file or directory that exists."""
    import re

    from advisor import PROJECT_URL

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    relative = [u for u in links if not u.startswith(("https://", "http://"))]
    assert relative == [], relative
    for u in links:
        m = re.match(re.escape(PROJECT_URL) + r"/(?:blob|tree)/main/(.+)$", u)
        if m:
            assert (ROOT / m.group(1)).exists(), u
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert all(v.startswith(PROJECT_URL) for v in meta["project"]["urls"].values())
