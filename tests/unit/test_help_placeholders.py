"""Every option in every command's --help names what it takes (<host>, <seconds>, <file>), not the
Python type typer would print (<str>, <int>, <float>, <path>, <text>). Positional arguments keep
typer's own form (issue 24 §4 leaves those open)."""

import re

import pytest

from advisor.cli import COMMANDS, METAVARS
from tests.support.cli import run_cli

GENERIC = re.compile(r"<(str|int|float|path|text)>")
OPTION_ROW = re.compile(r"^│\s+\*?\s*--[a-z]")


@pytest.mark.parametrize("command", sorted(COMMANDS) + ["rules list", "rules lint"])
def test_no_option_shows_a_python_type(command):
    p = run_cli(*command.split(), "--help", env={"COLUMNS": "250", "ADVISOR_NO_CACHE": "1"})
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if OPTION_ROW.match(line)]
    assert rows, p.stdout[:500]
    generic = [line.strip()[:100] for line in rows if GENERIC.search(line)]
    assert generic == [], generic


def test_the_placeholders_are_shown():
    p = run_cli("audit", "--help", env={"COLUMNS": "250", "ADVISOR_NO_CACHE": "1"})
    for option in ("--host", "--port", "--connect-timeout", "--ssl-ca", "--snapshot"):
        row = next(line for line in p.stdout.splitlines() if re.search(rf"\s{option}\s", line))
        assert METAVARS[option] in row, row
