"""Issue 23 §3: a fix or message that tells the reader to run `advisor …` names a command (and
sub-command or option) that exists: "check with `advisor rules` after changing my.cnf" sent readers
to a command that lists rules and checks no my.cnf."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer.main

from advisor.cli import register

ROOT = Path(__file__).resolve().parents[2]
TEXT_FILES = sorted(ROOT.glob("rules/**/*.toml")) + sorted((ROOT / "src/advisor/knowledge").glob("*.toml"))
SPAN = re.compile(r"`advisor ([^`]+)`")


def _command_tree() -> object:
    return typer.main.get_command(register())


def _is_group(cmd: object) -> bool:  # typer may vendor its own click: go by the shape, not the class
    return isinstance(getattr(cmd, "commands", None), dict)


def _resolve(words: list[str]) -> tuple[bool, str]:
    """Whether `advisor WORDS…` names an existing command and options; why not."""
    cmd: Any = _command_tree()
    rest = list(words)
    while rest and _is_group(cmd) and not rest[0].startswith("-"):
        sub = cmd.commands.get(rest[0])
        if sub is None:
            return False, f"no command {rest[0]!r} under {cmd.name!r}"
        cmd, rest = sub, rest[1:]
    if _is_group(cmd):
        return False, f"{cmd.name!r} is a group: it needs one of {', '.join(sorted(cmd.commands))}"
    opts = {o for p in cmd.params for o in getattr(p, "opts", []) + getattr(p, "secondary_opts", [])}
    for w in rest:
        if w == "--":  # what follows is the command run under the watch
            break
        if w.startswith("--"):
            name = w.split("=", 1)[0]
            if name not in opts:
                return False, f"{cmd.name!r} has no option {name}"
    return True, ""


def test_every_advisor_command_named_in_rule_texts_exists():
    bad = []
    for path in TEXT_FILES:
        for m in SPAN.finditer(path.read_text(encoding="utf-8")):
            words = [w for w in m.group(1).split() if w not in ("...", "…")]
            # placeholders (ID, FILE, <id>) are arguments, not command words
            words = [w for w in re.sub(r"\[[^\]]*\]", " ", " ".join(words)).split()
                     if not re.fullmatch(r"[A-Z_]+|<[^>]+>|\{[^}]+\}", w)]  # [optional parts] and placeholders
            ok, why = _resolve(words)
            if not ok:
                bad.append(f"{path.relative_to(ROOT)}: `advisor {m.group(1)}`: {why}")
    assert not bad, "\n".join(bad)


def test_the_check_catches_a_group_named_without_its_sub_command():
    assert _resolve(["rules"]) == (False, "'rules' is a group: it needs one of lint, list")
    assert _resolve(["mycnf", "--validate"])[0] and not _resolve(["mycnf", "--nope"])[0]
