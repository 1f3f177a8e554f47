"""The variable catalogue against the installed MariaDB, live: every option `mariadbd --verbose
--help` prints is a catalogued variable of that release (or an option listed with the reason it
has none), and every variable a freshly started throwaway server shows is catalogued there, with
the unit its information_schema type implies."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from advisor import knowledge as K
from advisor.versions import Version
from tests.support.mariadb import find_mariadbd

pytestmark = pytest.mark.requires_mariadbd

OPTIONS = Path(__file__).resolve().parents[1] / "fixtures" / "knowledge" / "mariadb-options.tsv"


def _options_map() -> dict[str, dict[str, str]]:
    rows = [ln.split("\t") for ln in OPTIONS.read_text(encoding="utf-8").splitlines()
            if ln and not ln.startswith("#")]
    header = rows[0]
    return {r[0]: dict(zip(header, r)) for r in rows[1:]}


def _help_options(*args: str) -> list[str]:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tools.catalogue.parse import parse_help_variables

    out = subprocess.run([find_mariadbd(), *args, "--verbose", "--help"], capture_output=True, text=True, check=True)
    return list(parse_help_variables(out.stdout))


def test_every_help_option_is_a_catalogued_variable_or_listed(mariadb_factory):
    db = mariadb_factory()
    version = Version.parse(db.query("SELECT VERSION()")[0][0])
    plugins = {r[0].lower() for r in db.query("SELECT PLUGIN_NAME FROM information_schema.ALL_PLUGINS")}
    listed = _options_map()
    unexplained = []
    options = _help_options("--no-defaults")
    assert len(options) >= 600
    for opt in options:
        name = opt.replace("-", "_").lower()
        row = listed.get(name)
        if row is not None and row["kind"] == "option":
            assert K.exists_on(name, "mariadb", version) is not True, f"{name} is listed as an option without a variable"
            continue
        if row is None and name in plugins:
            continue  # a plugin switch (--innodb-trx, --feedback): ON/OFF/FORCE, no variable
        target = row["target"] if row is not None else name
        if K.exists_on(target, "mariadb", version) is not True:
            unexplained.append(f"--{opt} ({target})")
    assert not unexplained, "options that are neither catalogued variables nor listed: " + ", ".join(unexplained)
    stale = sorted(n for n in listed if n not in {o.replace("-", "_").lower() for o in options})
    assert not stale, f"mariadb-options.tsv lists options this mariadbd does not print: {stale}"


def test_every_live_variable_is_catalogued_with_its_unit(mariadb_factory):
    db = mariadb_factory()
    version = Version.parse(db.query("SELECT VERSION()")[0][0])
    shown = {r[0].lower() for r in db.query("SHOW GLOBAL VARIABLES")} | \
        {r[0].lower() for r in db.query("SHOW SESSION VARIABLES")}
    types = {r[0].lower(): r[1] for r in db.query(
        "SELECT VARIABLE_NAME, VARIABLE_TYPE FROM information_schema.SYSTEM_VARIABLES")}
    assert len(shown) >= 600
    missing = sorted(n for n in shown if K.exists_on(n, "mariadb", version) is not True)
    assert not missing, f"variables the live {version} server shows that the catalogue lacks: {missing}"
    expect = {"BOOLEAN": {"bool", "enum"}, "ENUM": {"enum", "string", "count", "bool"}, "SET": {"set"},
              "VARCHAR": {"string", "enum", "set"}, "FLAGSET": {"string"}, "DOUBLE": {"float", "seconds"}}
    numeric = {"bytes", "count", "seconds", "milliseconds", "microseconds", "enum"}  # enum: 0/1/2 modes (curated)
    for name, vtype in types.items():
        unit = K.unit_of(name, "mariadb", version)
        allowed = expect.get(vtype, numeric)
        assert unit in allowed, f"{name}: information_schema type {vtype}, catalogue unit {unit}"


def test_catalogue_does_not_claim_variables_the_server_lacks(mariadb_factory):
    db = mariadb_factory()
    version = Version.parse(db.query("SELECT VERSION()")[0][0])
    shown = {r[0].lower() for r in db.query("SELECT VARIABLE_NAME FROM information_schema.SYSTEM_VARIABLES")}
    claimed = [n for n in K.names() if K.exists_on(n, "mariadb", version)]
    assert len(claimed) >= 600
    extra = sorted(n for n in claimed if n not in shown)
    assert not extra, f"the catalogue says {version} has these, the server does not: {extra}"
