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


def test_readme_links_work_in_the_checkout_and_on_the_package_index():
    """README.md links are relative and name a file or directory that exists; the long description
    setup.py gives the package index is the same text with each of them absolute against PROJECT_URL."""
    import re

    from advisor import PROJECT_URL

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    relative = [u for u in links if not u.startswith(("https://", "http://", "#"))]
    assert relative
    for u in relative:
        assert (ROOT / u).exists(), u
    described = runpy.run_path(str(ROOT / "setup.py"), run_name="not_main")["long_description"](str(ROOT))
    out = re.findall(r"\]\(([^)\s]+)\)", described)
    assert len(out) == len(links) and not [u for u in out if not u.startswith(("https://", "http://", "#"))]
    for u in relative:
        kind = "tree" if (ROOT / u).is_dir() else "blob"
        assert f"]({PROJECT_URL}/{kind}/main/{u})" in described, u
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert all(v.startswith(PROJECT_URL) for v in meta["project"]["urls"].values())


def test_readme_and_ci_name_every_system_package_the_tests_use():
    """tests/support/tools.py lists the tools the tests run; the README's prerequisites name each
    package and .ci/run installs it (a missing one fails under CI=true)."""
    from tests.support.tools import TOOLS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    prereq = readme.split("## Run the tests", 1)[1].split("\n## ", 1)[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for tool, package in sorted(TOOLS.items()):
        assert f"`{package}`" in prereq, f"README 'Run the tests' does not name {package} (for {tool})"
        assert f"need_apt+=({package})" in ci, f".ci/run does not install {package} (for {tool})"


def test_a_missing_tool_skips_naming_its_package_and_fails_under_ci(monkeypatch):
    import pytest

    from tests.support.tools import require_tool

    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        require_tool("advisor-test-no-such-tool", package="advisor-test-package")
    assert str(skipped.value).endswith(": apt-get install advisor-test-package") and "\n" not in str(skipped.value)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception) as failed:
        require_tool("advisor-test-no-such-tool", package="advisor-test-package")
    assert "apt-get install advisor-test-package" in str(failed.value) and "CI=true" in str(failed.value)
    assert require_tool("sh", package="dash").endswith("/sh")
