"""The terminal against a real throwaway mariadbd: `advisor calibrate`'s text fits the terminal's
width (COLUMNS, or the pty's window set with TIOCSWINSZ; advisor.render.layout), and
`advisor collect --sample-seconds N` shows a progress line on standard error while it waits for its
second status read, only when standard error is a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.cli import NO_HOME, run_cli, run_on_sized_pty
from tests.unit.test_terminal_width import ANSI, too_wide

pytestmark = pytest.mark.requires_mariadbd


def _conn(db) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults"]


@pytest.mark.parametrize("how", ["COLUMNS", "TIOCSWINSZ"])
def test_calibrate_text_fits_the_terminal(mariadb, how):
    width = 60
    env = {"COLUMNS": str(width)} if how == "COLUMNS" else {}
    code, out = run_on_sized_pty("calibrate", *_conn(mariadb), "--calibrate-seconds", "2",
                                 columns=width if how == "TIOCSWINSZ" else 165, env=env)
    assert code == 0, out[-2000:]
    text = ANSI.sub("", out)
    assert "advisor calibrate" in text and "round trips" in text
    assert too_wide(out, width) == []


def _collect_on_pty_stderr(db, tmp_path, seconds: str) -> tuple[int, str, str]:
    """collect with standard error on a pty, the snapshot into a file; (status, terminal, snapshot)."""
    master, slave = os.openpty()
    out = tmp_path / "snap.json"
    p = subprocess.Popen([sys.executable, "-m", "advisor", "collect", *_conn(db), "--sample-seconds", seconds,
                          "-o", str(out)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                         env={**os.environ, "HOME": NO_HOME, "TERM": "xterm"})  # a terminal that redraws lines
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = p.wait(timeout=120)
    return code, b"".join(chunks).decode("utf-8", "replace"), out.read_text() if out.exists() else ""


def test_collect_sample_seconds_shows_progress_on_a_terminal(mariadb, tmp_path):
    code, tty, snap = _collect_on_pty_stderr(mariadb, tmp_path, "2")
    assert code == 0, tty
    assert "collecting" in tty and "sampling status" in tty and "2.0/2 s" in tty
    assert tty.endswith("\r\033[2K")  # the line is taken away at the end
    doc = json.loads(snap)
    assert doc["server"]["interval"] is not None  # the sample was taken
    # standard error on a pipe: no progress line at all
    p = run_cli("collect", *_conn(mariadb), "--sample-seconds", "1", "-o", str(tmp_path / "b.json"))
    assert p.returncode == 0 and p.stderr == ""
