"""`advisor --help` from the text an earlier run printed (advisor.__main__): the same bytes as a
fresh render, for the same terminal only, and without importing typer or any command."""

import os
import subprocess
import sys


def run(tmp_path, *args, **env):
    e = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "COLUMNS": "100", **env}
    if "ADVISOR_NO_CACHE" not in env:
        e.pop("ADVISOR_NO_CACHE", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=e, timeout=120)


def test_saved_help_is_what_a_fresh_render_prints_and_imports_no_typer(tmp_path):
    first = run(tmp_path, "-m", "advisor", "--help")
    assert first.returncode == 0, first.stderr
    saved = list((tmp_path / "advisor").glob("help-*.txt"))
    assert len(saved) == 1 and saved[0].read_text() == first.stdout
    second = run(tmp_path, "-X", "importtime", "-m", "advisor", "--help")
    assert second.returncode == 0 and second.stdout == first.stdout
    imported = {line.split("|")[-1].strip() for line in second.stderr.splitlines() if line.startswith("import time:")}
    assert "advisor.__main__" in imported or "advisor.cache" in imported
    assert not {m for m in imported if m.split(".")[0] in ("typer", "click", "rich", "pydantic", "pymysql", "jinja2")}
    assert not {m for m in imported if m.startswith(("advisor.cli", "advisor.commands", "advisor.rules"))}
    fresh = run(tmp_path, "-m", "advisor", "--help", ADVISOR_NO_CACHE="1")
    assert fresh.stdout == first.stdout


def test_another_width_is_rendered_afresh(tmp_path):
    wide = run(tmp_path, "-m", "advisor", "--help")
    narrow = run(tmp_path, "-m", "advisor", "--help", COLUMNS="60")
    assert narrow.returncode == 0 and narrow.stdout != wide.stdout
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 60
    again = run(tmp_path, "-m", "advisor", "--help", COLUMNS="60")
    assert again.stdout == narrow.stdout


def test_other_commands_are_not_served_from_the_saved_help(tmp_path):
    run(tmp_path, "-m", "advisor", "--help")
    version = run(tmp_path, "-m", "advisor", "--version")
    assert version.returncode == 0 and version.stdout.startswith("advisor ")
    sub = run(tmp_path, "-m", "advisor", "audit", "--help")
    assert sub.returncode == 0 and "Usage: advisor audit" in sub.stdout
