"""The distribution as a user and a packager get it: `python -m build` prints no warning; the sdist
holds exactly the source tree (git's files, symlinks of the recorded /proc and /sys trees kept as
symlinks); the wheel built from it has every package, rule, template and py.typed; and part of the
test suite passes when run from the unpacked sdist against that wheel.

Builds without isolation (no download): the test environment has setuptools>=77 and build (the
test extras). PYTHONDONTWRITEBYTECODE is removed from the build's environment, since with it set
setuptools itself warns that byte-compiling is disabled.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WARNING = re.compile(r"(?i)\bwarning\b")
SUBSET = ["tests/unit/test_rule_catalogue.py", "tests/unit/test_rule_examples.py", "tests/unit/test_host_trees_audit.py",
          "tests/unit/test_schemas.py", "tests/unit/test_sarif_junit.py", "tests/unit/test_html_report.py",
          "tests/unit/test_histogram.py", "tests/unit/test_packaging.py"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPATH", None)
    return env


def git_files() -> set[str] | None:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        return None
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    files = {f for f in out.split("\0") if f and os.path.lexists(ROOT / f)}
    # absolute symlinks cannot be extracted with tarfile's data filter (build, pip): setup.py leaves them out
    return {f for f in files if not ((ROOT / f).is_symlink() and os.path.isabs(os.readlink(ROOT / f)))}


def clean_tree(dest: Path) -> Path:
    """The source tree as a fresh checkout has it: the files git knows (symlinks kept as symlinks),
    without what earlier tests and processes left in the working tree (__pycache__, build/)."""
    files = git_files()
    if files is None:
        return ROOT
    for f in sorted(files):
        src, dst = ROOT / f, dest / f
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        elif src.is_file():
            shutil.copy2(src, dst)
    return dest


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    p = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out),
                        str(clean_tree(tmp_path_factory.mktemp("tree")))],
                       capture_output=True, text=True, env=_env(), timeout=600)
    log = p.stdout + p.stderr
    assert p.returncode == 0, log[-4000:]
    warnings = [line for line in log.splitlines()
                if WARNING.search(line) and not line.startswith(("copying ", "hard linking ", "adding '"))]
    assert warnings == [], "\n".join(warnings)
    return out


def test_sdist_is_the_source_tree(dist):
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        members = tar.getmembers()
    prefix = members[0].name.split("/")[0]
    names = {m.name[len(prefix) + 1:]: m for m in members if m.name != prefix}
    files = {n for n, m in names.items() if m.isfile() or m.issym()}
    files -= {"PKG-INFO", "setup.cfg"}
    files = {f for f in files if ".egg-info/" not in f}
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc")]
    want = git_files()
    if want is not None:
        assert sorted(want - files) == [] and sorted(files - want) == []
    links = [n for n, m in names.items() if m.issym()]
    assert any(n.startswith("tests/fixtures/hosts/") for n in links)  # /sys symlinks stay symlinks
    for required in ("LICENSE", "README.md", "CHANGELOG.md", "CONTRIBUTING.md", "MANIFEST.in", "setup.py",
                     "docs/schemas/report.schema.json", "tests/fixtures/sarif/sarif-schema-2.1.0.json"):
        assert required in files, required


def test_wheel_has_every_package_rule_and_template(dist):
    (wheel,) = dist.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    src = ROOT / "src"
    for init in src.rglob("__init__.py"):
        assert str(init.relative_to(src)) in names, init
    for toml in (ROOT / "rules").rglob("*.toml"):
        assert f"advisor/catalog/{toml.relative_to(ROOT / 'rules')}" in names, toml
    for tpl in (ROOT / "templates").glob("*.j2"):
        assert f"advisor/templates/{tpl.name}" in names, tpl
    assert "advisor/py.typed" in names and "advisor/data/demo-seed-000.json" in names
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert "License-Expression: Apache-2.0" in text
    assert re.search(r"Requires-Dist: PyMySQL\[(ed25519,rsa|rsa,ed25519)\]>=1\.1", text)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def test_tests_run_from_the_unpacked_sdist(dist, tmp_path):
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path / "src", filter="tar")
    tree = next((tmp_path / "src").iterdir())
    lib = tmp_path / "lib"
    zipfile.ZipFile(wheel).extractall(lib)
    env = _env() | {"PYTHONPATH": str(lib), "PYTHONDONTWRITEBYTECODE": "1"}
    where = subprocess.run([sys.executable, "-c", "import advisor; print(advisor.__file__)"], cwd=tree, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where.startswith(str(lib)), where  # the wheel's package, not this checkout's
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *SUBSET],
                       cwd=tree, env=env, capture_output=True, text=True, timeout=900)
    tail = p.stdout[-3000:] + p.stderr[-2000:]
    assert p.returncode == 0, tail
    m = re.search(r"(\d+) passed", p.stdout)
    print(f"\nfrom the unpacked sdist: {p.stdout.strip().splitlines()[-1]}")
    assert m and int(m.group(1)) >= 100 and " failed" not in p.stdout, tail
