"""Run the benchmark command under the watch: start it, pass its output through line by line, and
stop it (and every process it started) when asked.

The command runs in its own process group, so stopping it reaches a wrapper script's children
too: SIGINT first (what Ctrl-C would have sent it), SIGTERM after 5 s, SIGKILL after 2 more; the
watch ends only when no process of the group is left. Its standard output and error are merged
into one pipe read by a thread (sysbench flushes every line), standard input is inherited unless
it is a terminal (a background process group reading the terminal would be stopped).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Optional

from advisor.errors import UsageError

STOP_GRACE_S = (5.0, 2.0)


def check_command(argv: list[str]) -> str:
    """The program's path, or UsageError when it cannot be run."""
    if not argv:
        raise UsageError("no command after `--`.", "e.g. advisor watch -- sysbench oltp_read_only --threads=8 run.")
    prog = argv[0]
    path = shutil.which(prog) if os.sep not in prog else (prog if os.access(prog, os.X_OK) else None)
    if path is None:
        raise UsageError(f"cannot run the command {prog!r}: not found or not executable.",
                         "give the program's path, or check PATH.")
    return path


class Command:
    def __init__(self, argv: list[str], on_line: Callable[[str], None]):
        self.argv = argv
        self.on_line = on_line
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.pgid: Optional[int] = None
        self.lines = 0
        self.interrupted = False
        self._reader: Optional[threading.Thread] = None

    def start(self) -> int:
        stdin = subprocess.DEVNULL if _isatty(sys.stdin) else None
        self.proc = subprocess.Popen(self.argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     process_group=0, bufsize=0)
        self.pgid = self.proc.pid
        self._reader = threading.Thread(target=self._pump, name="watch-command-output", daemon=True)
        self._reader.start()
        self._exited = threading.Event()
        threading.Thread(target=self._wait_exit, name="watch-command-wait", daemon=True).start()
        return self.proc.pid

    def _wait_exit(self) -> None:
        # Popen.wait(timeout) polls with growing sleeps; a thread blocked in waitpid costs nothing
        assert self.proc is not None
        self.proc.wait()
        self._exited.set()

    def _pump(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines += 1
            self.on_line(raw.decode("utf-8", "replace"))
        self.proc.stdout.close()

    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc else None

    def poll(self) -> Optional[int]:
        return self.proc.poll() if self.proc else None

    def wait(self, timeout: float) -> Optional[int]:
        """The exit code when the command ends within `timeout` seconds, else None."""
        if self.proc is None:
            return None
        if self._exited.wait(max(0.0, timeout)):
            return self.proc.returncode
        return None

    def finish_output(self, timeout: float = 5.0) -> None:
        if self._reader is not None:
            self._reader.join(timeout)

    def stop(self) -> None:
        """Stop the command's whole process group and wait until it is gone."""
        if self.proc is None or self.pgid is None:
            return
        if self.proc.poll() is None:
            self.interrupted = True
        for sig, grace in ((signal.SIGINT, STOP_GRACE_S[0]), (signal.SIGTERM, STOP_GRACE_S[1]), (signal.SIGKILL, 5.0)):
            if not self._group_alive():
                break
            try:
                os.killpg(self.pgid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and self._group_alive():
                self.proc.poll()
                time.sleep(0.05)
        self.proc.wait()
        self.finish_output()

    def _group_alive(self) -> bool:
        """Whether any process of the command's group still runs (the leader reaped or not)."""
        assert self.pgid is not None
        if self.proc is not None:
            self.proc.poll()
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        # killpg(0) also succeeds for a zombie leader that was not reaped yet
        if self.proc is not None and self.proc.returncode is not None:
            return _group_has_live_member(self.pgid)
        return True

    @property
    def exit_status(self) -> Optional[int]:
        """As a shell reports it: the exit code, or 128 + the signal that ended it."""
        if self.proc is None or self.proc.returncode is None:
            return None
        rc = self.proc.returncode
        return 128 - rc if rc < 0 else rc

    @property
    def signal(self) -> Optional[int]:
        rc = self.proc.returncode if self.proc else None
        return -rc if rc is not None and rc < 0 else None


def _group_has_live_member(pgid: int) -> bool:
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                rest = f.read().rsplit(b")", 1)[-1].split()
        except OSError:
            continue
        if len(rest) > 3 and int(rest[3]) == pgid and rest[0] not in (b"Z", b"X"):
            return True
    return False


def _isatty(f: object) -> bool:
    try:
        return bool(f.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False
