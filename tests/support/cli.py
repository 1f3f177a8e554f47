"""Run the real CLI in a subprocess, as a user would (python -m advisor ...)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Optional


def run_cli(*args: str, env: Optional[dict[str, str]] = None, timeout: float = 60.0,
            input: Optional[str] = None) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.pop("MYSQL_PWD", None)
    full_env["HOME"] = full_env.get("ADVISOR_TEST_HOME", "/nonexistent-advisor-home")  # no ~/.my.cnf surprises
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, input=input)


def run_json(*args: str, **kw: Any) -> tuple[int, Any, str]:
    p = run_cli(*args, **kw)
    try:
        data = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        data = None
    return p.returncode, data, p.stderr


def assert_one_paragraph_error(stderr: str) -> None:
    """Errors are one paragraph on stderr, never a traceback."""
    text = stderr.strip()
    assert text.startswith("advisor: error: "), stderr
    assert "Traceback" not in stderr, stderr
    assert "\n" not in text, f"expected one paragraph, got:\n{stderr}"


def default_interrupts() -> None:
    """preexec_fn for a CLI process a test will interrupt: a shell without job control starts
    background jobs with SIGINT ignored, and Python then keeps ignoring Ctrl-C; the advisor under
    test must see SIGINT and SIGTERM as a terminal user's process would."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
