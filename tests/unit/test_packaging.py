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
