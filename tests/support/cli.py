"""Run the real CLI: in a subprocess, as a user would (python -m advisor ...), or in this process.

`run_cli` / `run_json` start `python -m advisor`: the integration tests and a few unit tests use
them, so the console entry point, real exit statuses and pipes stay covered. `invoke` /
`invoke_json` call the same entry point (advisor.cli.main) in this process with their own argv,
stdin, stdout, stderr and environment, and return the same CompletedProcess: the unit tests use
them, which saves the interpreter start-up (~0.25 s) per call.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from typing import Any, Optional

NO_HOME = "/nonexistent-advisor-home"  # no ~/.my.cnf surprises, no rule cache


def run_cli(*args: str, env: Optional[dict[str, str]] = None, timeout: float = 60.0,
            input: Optional[str] = None) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.pop("MYSQL_PWD", None)
    full_env["HOME"] = full_env.get("ADVISOR_TEST_HOME", NO_HOME)
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


def invoke(*args: str, env: Optional[dict[str, str]] = None, timeout: float = 60.0,
           input: Optional[str] = None) -> subprocess.CompletedProcess[str]:
    """advisor.cli.main(args) in this process, as run_cli runs it in a subprocess (same environment
    rules, stdin from `input`); the exit status comes from the SystemExit main() raises. `timeout`
    is accepted for the same signature and not enforced."""
    from advisor import cli

    saved_env = dict(os.environ)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    commands, groups = list(cli.app.registered_commands), list(cli.app.registered_groups)
    out, err = io.StringIO(), io.StringIO()
    code: int = 0
    os.environ.pop("MYSQL_PWD", None)
    os.environ["HOME"] = saved_env.get("ADVISOR_TEST_HOME", NO_HOME)
    os.environ.update(env or {})
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(input or ""), out, err
    try:
        cli.main(list(args))
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        cli.app.registered_commands[:] = commands  # main() registers the command it runs, every time
        cli.app.registered_groups[:] = groups
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["advisor", *args], code, out.getvalue(), err.getvalue())


def invoke_json(*args: str, **kw: Any) -> tuple[int, Any, str]:
    p = invoke(*args, **kw)
    try:
        data = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        data = None
    return p.returncode, data, p.stderr


def assert_one_paragraph_error(stderr: str) -> None:
    """Errors are one paragraph on stderr, never a traceback. Warnings before it (`advisor: warning:`
    lines, e.g. for a password on the command line) are lines of their own."""
    text = "\n".join(ln for ln in stderr.strip().splitlines() if not ln.startswith("advisor: warning: "))
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


def run_on_pty(*args: str, env: Optional[dict[str, str]] = None, answer: Optional[str] = None,
               timeout: float = 90.0) -> tuple[int, str]:
    """`python -m advisor ARGS` with a real pty as its controlling terminal (stdin, stdout and
    stderr are the pty, so isatty() holds and getpass reads /dev/tty), in run_cli's environment.
    With `answer`: typed, then Enter, once it asks "Enter password ...:". Returns (exit status,
    everything written to the terminal)."""
    import pty
    import select
    import signal
    import time

    full_env = dict(os.environ)
    full_env.pop("MYSQL_PWD", None)
    full_env["HOME"] = full_env.get("ADVISOR_TEST_HOME", NO_HOME)
    full_env.update(env or {})
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        try:
            os.execve(sys.executable, [sys.executable, "-m", "advisor", *args], full_env)
        finally:
            os._exit(127)
    out, sent, deadline = b"", False, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
            if answer is not None and not sent and b"Enter password" in out and out.rstrip().endswith(b":"):
                os.write(fd, answer.encode("utf-8") + b"\n")
                sent = True
        else:
            os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"advisor did not finish within {timeout:g} s on the pty; it wrote: {out[-2000:]!r}")
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    if answer is not None and not sent:
        raise AssertionError(f"advisor never asked for a password: {out[-2000:]!r}")
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", errors="replace").replace("\r\n", "\n")


def run_on_sized_pty(*args: str, columns: int, rows: int = 40, env: Optional[dict[str, str]] = None,
                     timeout: float = 120.0) -> tuple[int, str]:
    """`python -m advisor ARGS` with standard output and standard error on a real pty whose window is
    `columns` wide (set with TIOCSWINSZ before the child starts, as a terminal emulator sets it), in
    run_cli's environment without COLUMNS unless `env` sets it. Returns (exit status, what the
    terminal received, CRLF turned back into newlines)."""
    import fcntl
    import struct
    import termios
    import threading

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    full_env = dict(os.environ)
    for k in ("MYSQL_PWD", "COLUMNS", "LINES"):
        full_env.pop(k, None)
    full_env["HOME"] = full_env.get("ADVISOR_TEST_HOME", NO_HOME)
    full_env.update(env or {})
    p = subprocess.Popen([sys.executable, "-m", "advisor", *args], stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=slave, env=full_env, start_new_session=True)
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the pty
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        code = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        raise
    reader.join(timeout=10)
    os.close(master)
    return code, b"".join(chunks).decode("utf-8", errors="replace").replace("\r\n", "\n")
