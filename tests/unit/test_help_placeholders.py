"""Every option in every command's --help names what it takes (<host>, <seconds>, <file>), not the
Python type typer would print (<str>, <int>, <float>, <path>, <text>); positional arguments too
(<command>…, <id>, <dir>), in their panel and on the usage line (advisor.cli.ARG_METAVARS)."""

import re

import pytest

from advisor.cli import ARG_METAVARS, COMMANDS, METAVARS
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


def _arguments_panel(text: str) -> list[str]:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "─ Arguments ─" in line), None)
    if start is None:
        return []
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("╰"))
    return lines[start + 1:end]


@pytest.mark.parametrize("command, placeholder", [("watch", "<command>…"), ("compare", "<snapshot|dump|server>…"),
                                                  ("fleet", "<inventory>"), ("explain", "<id>"), ("rules lint", "<dir>")])
def test_positional_arguments_name_what_they_take(command, placeholder):
    assert placeholder in ARG_METAVARS.values()
    p = run_cli(*command.split(), "--help", env={"COLUMNS": "250", "ADVISOR_NO_CACHE": "1"})
    assert p.returncode == 0, p.stderr
    usage = next(line for line in p.stdout.splitlines() if "Usage:" in line)
    assert placeholder in usage, usage
    panel = _arguments_panel(p.stdout)
    assert panel and placeholder in panel[0], panel
    assert not any(GENERIC.search(line) for line in panel), panel


def test_every_command_with_a_text_argument_names_it():
    """No Arguments panel of any command shows a Python type."""
    for command in sorted(COMMANDS) + ["rules list", "rules lint"]:
        p = run_cli(*command.split(), "--help", env={"COLUMNS": "250", "ADVISOR_NO_CACHE": "1"})
        panel = _arguments_panel(p.stdout)
        assert not any(GENERIC.search(line) for line in panel), (command, panel)
