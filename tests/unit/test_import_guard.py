"""What a run imports, checked by name rather than by time (issue 26): a new heavy import on the
fast paths is a deliberate change made here, not an accident found in a benchmark.

- `advisor --help`, once its text is saved, imports nothing outside the standard library but
  advisor's own small modules (advisor.__main__, advisor.cache);
- an offline `advisor audit` from the rule cache imports no driver, template engine or TOML/YAML
  parser: the server driver (PyMySQL) is for collecting, Jinja2 for HTML, and the rule files are read
  from the cache, not parsed again; it imports no third-party package at all and only an allowlist
  of advisor modules: no typer, as its command line is a plain one (advisor.commands.params; typer
  still parses help, completion and anything unusual, tests/unit/test_cli_fast.py), and no
  pydantic, as the snapshot file's values all have their declared types
  (advisor.plainmodel.fast_validate; a file that needs pydantic's conversions or errors still gets
  them, tests/unit/test_plainmodel_fast.py);
- `import advisor.cli` imports no typer, pydantic, driver, template engine or rule code;
- a live audit imports no pydantic (the collector builds the snapshot itself: nothing untrusted to
  validate) and no typer: only the driver; that one needs a server:
  tests/integration/test_audit_live.py, with LIVE_AUDIT_ALLOWED.
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


# every third-party package an offline audit (a snapshot file, or the demo) may import: none
OFFLINE_AUDIT_ALLOWED: set[str] = set()
# every third-party package a live audit may import: the driver (cryptography only for an RSA login)
LIVE_AUDIT_ALLOWED = {"pymysql", "cryptography", "cffi", "_cffi_backend"}
# advisor modules an offline audit may import: these names, and any module under these packages
OFFLINE_ADVISOR_MODULES = {
    "advisor", "advisor.api", "advisor.cache", "advisor.cli", "advisor.codecache", "advisor.collect", "advisor.collect.clientopts",
    "advisor.collect.clock", "advisor.commands", "advisor.commands.options", "advisor.commands.params", "advisor.errors", "advisor.inputs",
    "advisor.measure", "advisor.optionfile", "advisor.plainmodel", "advisor.resources", "advisor.render", "advisor.render.json_out",
    "advisor.render.report_json", "advisor.render.terminal", "advisor.render.calibration", "advisor.report",
    "advisor.rules", "advisor.rules.calibration", "advisor.rules.catalogue", "advisor.rules.conditions",
    "advisor.rules.engine", "advisor.rules.facts", "advisor.rules.formulas", "advisor.rules.groups", "advisor.rules.loader",
    "advisor.rules.memory", "advisor.rules.ops", "advisor.rules.risky", "advisor.rules.symptoms", "advisor.rules.sizing", "advisor.severity",
    "advisor.snapshot", "advisor.units", "advisor.versions",
}
OFFLINE_ADVISOR_PACKAGES = ("advisor.rules.derived", "advisor.knowledge")
# never on an offline audit: the rule files' pydantic models (validating rule files) and the other kinds' code
NOT_OFFLINE_ADVISOR = ("advisor.rules.schema", "advisor.rules.groups_schema", "advisor.knowledge.schema", "advisor.rules.entries",
                       "advisor.rules.sizers", "advisor.rules.checks", "advisor.collect.mysql")


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


def test_offline_audit_imports_only_allowed_packages_and_modules(tmp_path):
    snap = tmp_path / "snap.json"
    demo = imported(tmp_path, "audit", "--demo", "--format", "json") - startup(tmp_path)
    assert third_party(demo) <= OFFLINE_AUDIT_ALLOWED, sorted(third_party(demo) - OFFLINE_AUDIT_ALLOWED)
    ours = {m for m in demo if m.split(".")[0] == "advisor"}
    extra = {m for m in ours if m not in OFFLINE_ADVISOR_MODULES
             and not any(m == p or m.startswith(p + ".") for p in OFFLINE_ADVISOR_PACKAGES)}
    assert not extra, sorted(extra)
    refused = {m for m in ours if any(m == p or m.startswith(p + ".") for p in NOT_OFFLINE_ADVISOR)}
    assert not refused, sorted(refused)
    # a snapshot file given by the user: the same sets
    from importlib.resources import files

    snap.write_text((files("advisor.data") / "demo-seed-000.json").read_text(encoding="utf-8"), encoding="utf-8")
    mods = imported(tmp_path, "audit", "--snapshot", str(snap), "--format", "text") - startup(tmp_path)
    assert third_party(mods) <= OFFLINE_AUDIT_ALLOWED, sorted(third_party(mods) - OFFLINE_AUDIT_ALLOWED)


def test_importing_the_cli_imports_no_pydantic_driver_templates_or_rules(tmp_path):
    p = subprocess.run([sys.executable, "-X", "importtime", "-c", "import advisor.cli"], capture_output=True,
                       text=True, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)}, timeout=60)
    mods = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    mods -= startup(tmp_path)
    tops = {m.split(".")[0] for m in mods}
    assert not tops & {"typer", "click", "pydantic", "pydantic_core", "pymysql", "jinja2"}, sorted(tops)
    assert not {m for m in mods if m.startswith("advisor.rules")}, sorted(m for m in mods if m.startswith("advisor.rules"))
