"""The command line without typer (advisor.commands.params, advisor.cli._run_fast) against typer
itself: over generated command lines of every FAST_COMMANDS command, whatever the fast parser takes
it turns into the same keyword arguments (values and types) that typer's wrapper passes, and every
line typer refuses the fast parser leaves to typer; the [advisor] option group's defaults, `-p`
and `--quiet` go the same way on both paths."""

from __future__ import annotations

import random
from typing import Any

import pytest

from advisor import cli
from advisor.commands.params import command_params, parse
from tests.support.cli import invoke

FAST = sorted(cli.FAST_COMMANDS)


def _function(name: str) -> Any:
    import importlib

    module, attr = cli.COMMANDS[name]
    return getattr(importlib.import_module(module), attr)


def _typer_kwargs(name: str, words: list[str]) -> Any:
    """What typer's wrapper calls the command with for `advisor NAME WORDS` (or the exception typer
    raises), through the same signature conversion cli.register uses."""
    import functools

    import typer
    from typer.main import get_command

    fn = _function(name)
    seen: list[dict[str, Any]] = []

    @functools.wraps(fn)
    def record(**kwargs: Any) -> None:
        seen.append(kwargs)

    app = typer.Typer()
    app.callback()(lambda: None)
    app.command(name)(cli.typer_function(record))
    import contextlib
    import io

    try:
        with contextlib.redirect_stdout(io.StringIO()):  # --help prints the page and calls nothing
            get_command(app).main(args=[name, *words], standalone_mode=False, prog_name="advisor")
    except Exception as e:  # click's usage errors, BadParameter, ...
        return e
    return seen[0] if seen else "not called"


def _typed(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: (type(v).__name__, repr(v)) for k, v in kwargs.items()}


def _values(p: Any) -> list[str]:
    """Values for an option: ones typer takes, and ones it converts or refuses."""
    tricky = ["", "-5", "--x", " 5", "1_000", "1e3", "nan", "0x10", "5.", ".5", "+3", "é"]
    if p.enum is not None:
        return [m.value for m in p.enum] + [m.value.upper() for m in p.enum] + tricky
    if p.kind is int:
        return ["0", "3306", "-1", "007"] + tricky
    if p.kind is float:
        return ["0", "2.5", "10", "-1.5", "3"] + tricky
    return ["db1", "h=db1,P=3307", "/tmp/x y", "a=b", "ON", "3306"] + tricky


def _command_lines(name: str, count: int, seed: int) -> list[list[str]]:
    params = command_params(_function(name))
    assert params is not None
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        words: list[str] = []
        for p in rng.sample(params, rng.randint(0, 7)):
            for _ in range(rng.choice([1, 1, 1, 2])):  # a repeated option: the last wins, or a list
                decl = rng.choice(p.decls + p.negative)
                if p.is_flag:
                    words += [decl] if rng.random() < 0.95 else [f"{decl}=true"]
                    continue
                value = rng.choice(_values(p))
                if decl.startswith("--") and rng.random() < 0.3:
                    words.append(f"{decl}={value}")
                elif not decl.startswith("--") and rng.random() < 0.15:
                    words.append(decl + value)  # -P3306: attached, typer's
                else:
                    words += [decl, value]
        if rng.random() < 0.05:
            words.insert(rng.randrange(len(words) + 1), rng.choice(["--help", "--", "extra", "-qv", "--nope"]))
        lines.append(words)
    return lines


@pytest.mark.parametrize("name", FAST)
def test_the_fast_parser_gives_what_typer_gives_or_leaves_the_line_to_typer(name):
    params = command_params(_function(name))
    taken = left = refused = 0
    for words in _command_lines(name, 600, seed=26):
        fast = parse(params, words)
        typed = _typer_kwargs(name, words)
        if fast is None:
            left += 1
            continue
        assert isinstance(typed, dict), f"typer refuses {words}: {typed!r}, the fast parser took it"
        assert _typed(fast) == _typed(typed), words
        taken += 1
    for words in _command_lines(name, 300, seed=27):
        if not isinstance(_typer_kwargs(name, words), dict):
            refused += 1
            assert parse(params, words) is None, words
    assert taken > 100 and left > 50 and refused > 10, (taken, left, refused)


@pytest.mark.parametrize("name", FAST)
def test_a_fast_command_declares_every_option_for_the_fast_parser(name):
    params = command_params(_function(name))
    assert params is not None  # a parameter it cannot read would send every run to typer, silently
    import inspect

    assert [p.name for p in params] == list(inspect.signature(_function(name)).parameters)


def test_the_advisor_option_group_gives_the_same_defaults_on_both_paths(tmp_path):
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[advisor]\npurpose = benchmark\nformat = json\nfail-on = sideways\n")
    fast = invoke("audit", "--demo", "--defaults-file", str(cnf))
    typed = invoke("audit", "--demo", "--defaults-file", str(cnf), "--")  # `--`: typer parses this one
    assert fast.returncode == 0, fast.stderr
    import json

    assert json.loads(fast.stdout)["purpose"] == "benchmark"
    assert "[advisor] fail-on = sideways is ignored: audit's --fail-on takes one of critical, warning, info" in fast.stderr
    assert fast.stderr.count("is ignored") == 1
    assert (typed.returncode, typed.stdout, typed.stderr) == (fast.returncode, fast.stdout, fast.stderr)
    # the command line still wins over the option group, on the fast path
    over = invoke("audit", "--demo", "--defaults-file", str(cnf), "--purpose", "production")
    assert json.loads(over.stdout)["purpose"] == "production"


def test_quiet_and_a_bare_password_are_read_as_before_the_fast_path(tmp_path):
    quiet = invoke("-q", "audit", "--demo", "--format", "json")
    after = invoke("audit", "--demo", "--format", "json", "--quiet")
    assert quiet.returncode == after.returncode == 0 and quiet.stdout == after.stdout and quiet.stderr == after.stderr == ""
    # -p without a value asks for the password; with no terminal the prompt reads standard input
    asked = invoke("audit", "-h", "127.0.0.1", "-P", "1", "-u", "nobody", "-p", "--no-defaults",
                   "--connect-timeout", "0.5", "--no-calibrate", input="secret\n")
    assert "Enter password for nobody" in asked.stderr and "secret" not in asked.stderr + asked.stdout
    assert asked.returncode == 3, asked.stderr
