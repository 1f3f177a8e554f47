"""What a run imports, checked by name rather than by time (issue 26): a new heavy import on the
fast paths is a deliberate change made here, not an accident found in a benchmark.

- `advisor --help`, once its text is saved, imports nothing outside the standard library but
  advisor's own small modules (advisor.__main__, advisor.cache);
- an offline `advisor audit` from the rule cache imports no driver, template engine or TOML/YAML
  parser: the server driver (PyMySQL) is for collecting, Jinja2 for HTML, and the rule files are read
  from the cache, not parsed again.
"""

import os
import subprocess
import sys

import pytest

# third-party top-level packages an offline audit must not import, with the reason
NOT_IN_OFFLINE_AUDIT = {
    "pymysql": "the driver is only for collecting from a server",
    "jinja2": "templates are only for --format html",
    "markupsafe": "Jinja2's escaping, only for --format html",
    "tomli": "rule files come from the cache, not parsed again",
    "tomllib": "rule files come from the cache, not parsed again",
    "yaml": "YAML is only for fleet inventories",
    "ansible": "Ansible is only for the fleet playbook",
}


def imported(tmp_path, *args: str) -> set[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "COLUMNS": "100"}
    env.pop("ADVISOR_NO_CACHE", None)
    for _ in range(2):  # the first run fills the caches; the second is the one measured
        p = subprocess.run([sys.executable, "-X", "importtime", "-m", "advisor", *args], capture_output=True,
                           text=True, env=env, timeout=300)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}


def startup(tmp_path) -> set[str]:
    p = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True,
                       env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)}, timeout=60)
    return {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}


def third_party(mods: set[str]) -> set[str]:
    """Installed top-level packages outside the standard library (importtime also lists a failed
    optional import, such as copy's `org.python.core`: those are not packages)."""
    import importlib.util

    tops = {m.split(".")[0] for m in mods}
    return {t for t in tops if t not in sys.stdlib_module_names and not t.startswith("_") and t != "advisor"
            and importlib.util.find_spec(t) is not None}


def test_saved_help_imports_only_the_standard_library_and_advisors_entry(tmp_path):
    mods = imported(tmp_path, "--help") - startup(tmp_path)
    assert third_party(mods) == set(), sorted(third_party(mods))
    ours = sorted(m for m in mods if m.split(".")[0] == "advisor")
    assert set(ours) <= {"advisor", "advisor.cache"}, ours


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_offline_audit_imports_no_driver_template_or_parser(tmp_path, fmt):
    mods = imported(tmp_path, "audit", "--demo", "--format", fmt) - startup(tmp_path)
    found = {m.split(".")[0] for m in mods} & set(NOT_IN_OFFLINE_AUDIT)
    assert not found, {m: NOT_IN_OFFLINE_AUDIT[m] for m in found}
