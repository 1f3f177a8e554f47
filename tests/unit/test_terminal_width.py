"""One width for everything laid out on a terminal (advisor.render.layout, the width from
advisor.commands.options.terminal_width): the real CLI on a real pty, once with COLUMNS=60 and once
with no COLUMNS and a 60-column window (TIOCSWINSZ), prints no line wider than the terminal in the
audit (findings and MEASURED), `rules list` (with and without --all) and the fleet table. The one
exception the wrapper documents: a single token (a path, a URL, an identifier) longer than the line,
alone on its line. `advisor calibrate` itself: tests/integration/test_terminal_width_live.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import run_on_sized_pty
from tests.support.fleet import make_fetched

ROOT = Path(__file__).resolve().parents[2]
CALIBRATED = ROOT / "tests" / "fixtures" / "calibration" / "mariadb-10.11-tls-calibrated.snapshot.json"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def too_wide(text: str, width: int) -> list[str]:
    """The lines wider than `width` that are not one unbreakable token (a progress line redrawn with
    \r counts as one line each time it is drawn)."""
    lines = [seg for line in ANSI.sub("", text).splitlines() for seg in line.split("\r")]
    # "advisor: error: ..." is one paragraph on one line by design (scripts grep it; the terminal wraps it)
    return [line for line in lines if len(line) > width and len(line.split()) > 1 and not line.startswith("advisor: ")]


@pytest.fixture(scope="module")
def fetched(tmp_path_factory):
    return make_fetched(tmp_path_factory.mktemp("fetched"))


def _commands(fetched: Path) -> dict[str, tuple[str, ...]]:
    return {"audit-demo": ("audit", "--demo"), "audit-measured": ("audit", "--snapshot", str(CALIBRATED)),
            "rules-list": ("rules", "list"), "rules-list-all": ("rules", "list", "--all"),
            "fleet": ("fleet", "--snapshots", str(fetched), "--jobs", "1")}


@pytest.mark.parametrize("how", ["COLUMNS", "TIOCSWINSZ"])
@pytest.mark.parametrize("name", ["audit-demo", "audit-measured", "rules-list", "rules-list-all", "fleet"])
def test_no_line_wider_than_the_terminal(fetched, name, how):
    width = 60
    env = {"COLUMNS": str(width)} if how == "COLUMNS" else {}
    code, out = run_on_sized_pty(*_commands(fetched)[name], columns=width if how == "TIOCSWINSZ" else 165, env=env)
    assert code in (0, 1, 6), out[-2000:]
    assert len(out.splitlines()) > 5
    assert too_wide(out, width) == []
    if name == "audit-measured":
        assert "MEASURED" in out and "round trips" in out
    # the same command on a 165-column window uses the room: some line is wider than 60
    if how == "TIOCSWINSZ":
        _, wide = run_on_sized_pty(*_commands(fetched)[name], columns=165)
        assert too_wide(wide, 165) == [] and max(len(x) for x in ANSI.sub("", wide).replace("\r", "\n").splitlines()) > width
