"""The terminal (issue 18 §1): NO_COLOR and TERM=dumb on a real pty, the width from COLUMNS, no
identifier split when wrapping, `advisor explain` without raw Markdown, a header on `rules list`,
--quiet, -V, shell completion."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from advisor import __version__
from advisor.render.page_terminal import to_terminal
from tests.support.cli import invoke, run_cli, run_on_pty

ANSI = re.compile(r"\033\[[0-9;]*m")
MARKDOWN = re.compile(r"<!--|-->|`|\*\*|\]\(|^#+ |^\|.*\|$|^```", re.M)


def _overflow_is_one_word(line: str, width: int) -> bool:
    """A line longer than the width is allowed only when it could not be broken: it holds a word
    that alone does not fit after the indent (an identifier or a URL is never split)."""
    indent = len(line) - len(line.lstrip()) + 2  # + a bullet
    return len(line) <= width or any(len(w) > width - indent for w in line.split())


def test_colour_on_a_terminal_and_not_with_no_color_or_a_dumb_terminal():
    code, text = run_on_pty("audit", "--demo", env={"TERM": "xterm"})
    assert code == 0 and ANSI.search(text), text[:300]
    for env in ({"TERM": "xterm", "NO_COLOR": "1"}, {"TERM": "dumb"}):
        code, plain = run_on_pty("audit", "--demo", env=env)
        assert code == 0 and not ANSI.search(plain) and "advisor audit" in plain, env
    code, text = run_on_pty("explain", "sort-buffer-oversized", env={"TERM": "xterm", "COLUMNS": "80"})
    assert code == 0 and ANSI.search(text)
    code, text = run_on_pty("explain", "sort-buffer-oversized", env={"TERM": "xterm", "NO_COLOR": "1"})
    assert code == 0 and not ANSI.search(text)


def test_no_colour_into_a_pipe():
    p = run_cli("audit", "--demo", env={"TERM": "xterm"})
    assert p.returncode == 0 and not ANSI.search(p.stdout)


@pytest.mark.parametrize("width", [48, 72, 140])
def test_the_report_fits_columns_and_keeps_identifiers_whole(width):
    p = invoke("audit", "--demo", env={"COLUMNS": str(width)})
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert all(_overflow_is_one_word(ln, width) for ln in lines), [ln for ln in lines if len(ln) > width]
    assert max(len(ln) for ln in lines) > width * 0.8  # the width is used, not a fixed 100
    # wrapping changes only white space: no identifier or hyphenated id is cut in two (a long
    # comma-separated value such as sql_mode may break after a comma: advisor.render.layout)
    unwrapped = invoke("audit", "--demo", env={"COLUMNS": "200"}).stdout
    assert "".join(p.stdout.split()) == "".join(unwrapped.split())
    whole = set(unwrapped.split())
    assert all(w in whole or any(w in u and "," in u for u in whole) for w in p.stdout.split())
    report = json.loads(invoke("audit", "--demo", "-f", "json").stdout)
    words = set(p.stdout.split())
    assert all(f"[{f['rule']}]" in words for f in report["findings"])


def test_explain_renders_for_a_terminal():
    p = invoke("explain", "sort-buffer-oversized", env={"COLUMNS": "60"})
    assert p.returncode == 0
    assert not MARKDOWN.search(p.stdout), MARKDOWN.search(p.stdout)
    assert "generated" not in p.stdout.splitlines()[0] and "sort_buffer_size" in p.stdout
    assert all(_overflow_is_one_word(ln, 60) for ln in p.stdout.splitlines())
    md = invoke("explain", "sort-buffer-oversized", "--format", "markdown").stdout
    from pathlib import Path

    assert md == (Path(__file__).resolve().parents[2] / "docs" / "rules" / "sort-buffer-oversized.md").read_text()


def test_every_page_renders_without_markdown():
    from advisor.render.pages import entry_page
    from advisor.rules.loader import load_entries
    from advisor.render.watch_pages import render_verdict_doc
    from advisor.watch.verdicts import load_verdicts

    catalogue = load_entries([])
    pages = [(e.id, entry_page(e, catalogue.variables)) for e in catalogue.entries()]
    pages += [(v.id, render_verdict_doc(v)) for v in load_verdicts()]
    assert len(pages) > 50
    for ident, md in pages:
        text = to_terminal(md, width=70)
        assert not MARKDOWN.search(text), (ident, MARKDOWN.search(text))
        assert ident in text.split("\n", 1)[0], ident
        code = {"    " + ln for block in re.findall(r"```[^\n]*\n(.*?)```", md, re.S) for ln in block.splitlines()}
        assert all(_overflow_is_one_word(ln, 70) or ln in code for ln in text.splitlines()), ident  # code is not wrapped


def test_markdown_pieces():
    text = to_terminal("<!-- generated -->\n\n# T `x`\n\nSee [the manual](https://m.example/a) and <https://b.example>.\n\n"
                       "| a | b |\n|---|---|\n| `k` | v\\|w |\n\n```ini\nk = 1\n```\n\n- one **two**\n  three\n", width=60)
    assert text == ("T x\n===\n\nSee the manual (https://m.example/a) and https://b.example.\n\n"
                    "  a  b\n  -  ---\n  k  v|w\n\n    k = 1\n\n- one two three\n")
    wide = to_terminal("| name | what |\n|---|---|\n| `innodb_buffer_pool_size` | " + "long words " * 12 + "|\n", width=40)
    assert "innodb_buffer_pool_size —" in wide and all(len(ln) <= 40 for ln in wide.splitlines())


def test_rules_list_has_a_header():
    lines = invoke("rules", "list", env={"COLUMNS": "200"}).stdout.splitlines()
    assert lines[0].split() == ["ID", "SEVERITY", "CATEGORY", "TITLE"]
    assert invoke("rules", "list", "--all", env={"COLUMNS": "200"}).stdout.splitlines()[0].split() == ["KIND", "ID", "TITLE"]
    # too narrow for the columns (long ids): one block per rule, under a header of the same form
    narrow = invoke("rules", "list", env={"COLUMNS": "80"}).stdout.splitlines()
    assert narrow[:2] == ["ID", "    SEVERITY, CATEGORY: TITLE"] and narrow[3].startswith("    info, benchmark: ")


def test_version_short_and_long():
    for flag in ("-V", "--version"):
        p = invoke(flag)
        assert p.returncode == 0 and p.stdout == f"advisor {__version__}\n"


def test_quiet_silences_the_command_line_password_warning():
    p = invoke("audit", "-h", "127.0.0.1", "-P", "1", "--no-defaults", "--password", "x", "--quiet")
    assert p.returncode == 3 and "warning" not in p.stderr and p.stderr.startswith("advisor: error:")


def test_shell_completion():
    env = {"_ADVISOR_COMPLETE": "complete_bash", "COMP_WORDS": "advisor au", "COMP_CWORD": "1"}
    p = run_cli(env=env)
    assert p.returncode == 0 and p.stdout.split() == ["audit"]
    p = run_cli(env={**env, "COMP_WORDS": "advisor audit --purp", "COMP_CWORD": "2"})
    assert "--purpose" in p.stdout.split()
    p = subprocess.run([sys.executable, "-m", "advisor", "--show-completion", "bash"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and "_ADVISOR_COMPLETE" in p.stdout
