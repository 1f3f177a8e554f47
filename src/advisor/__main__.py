"""`advisor` and `python -m advisor`: the console script's first step.

`advisor --help` and a bare `advisor` print the text an earlier run printed for the same code, the
same typer and the same terminal (width, colour, tty or not) when it is saved in the cache
(advisor.cache), without importing typer or any command: building the command tree costs ~0.25 s of
a ~0.3 s help. Anything else, and a miss, goes to advisor.cli, which saves the help it printed.
ADVISOR_NO_CACHE=1 bypasses the saved text.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

HELP_ARGS = ((), ("--help",))
# what changes how rich renders the help (colour, width, terminal kind)
RENDER_ENV = ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TERM", "COLORTERM", "TTY_COMPATIBLE",
              "TTY_INTERACTIVE", "TYPER_USE_RICH", "_TYPER_FORCE_DISABLE_TERMINAL", "JUPYTER_COLUMNS")


def _help_key() -> Optional[tuple[str, str]]:
    """(cache file name, key) of the help for this argv and terminal, or None when it cannot be saved."""
    if os.environ.get("ADVISOR_NO_CACHE") or os.environ.get("_ADVISOR_COMPLETE") or "_TYPER_COMPLETE_ARGS" in os.environ:
        return None
    import importlib.util
    from pathlib import Path

    from advisor import cache

    here = Path(__file__).resolve().parent
    typer_spec = importlib.util.find_spec("typer")
    if typer_spec is None or not typer_spec.origin:
        return None
    tty = sys.stdout.isatty()
    try:
        width = os.get_terminal_size(sys.stdout.fileno()).columns if tty else 0
    except (OSError, ValueError):
        width = 0
    terminal = "|".join([f"tty={tty}", f"width={width}"] + [f"{k}={os.environ.get(k)}" for k in RENDER_ENV])
    inputs = [("argv", Path(__file__)), ("cli", here / "cli.py"), ("typer", Path(typer_spec.origin))]
    inputs += [(f"command:{p.name}", p) for p in sorted((here / "commands").glob("*.py"))]
    key = cache._key(inputs + [])
    if key is None:
        return None
    import hashlib

    key = hashlib.sha256(f"{key}|{' '.join(sys.argv[1:])}|{terminal}".encode()).hexdigest()[:32]
    return "help", key


def _saved(name: str, key: str) -> Optional[str]:
    from advisor import cache

    path = cache.cache_dir() / f"{name}-{key}.txt"
    if not cache.trusted_dir(path.parent) or not cache._trusted_file(path):
        return None
    try:
        text = path.read_text(encoding="utf-8")
        cache._touch(path)
        return text
    except (OSError, UnicodeDecodeError):
        return None


def _save(name: str, key: str, text: str) -> None:
    import tempfile

    from advisor import cache

    folder = cache.cache_dir()
    if not text or not cache.trusted_dir(folder, create=True):
        return
    try:
        cache._prune(folder, name, keep=folder / f"{name}-{key}.txt", pattern="txt")
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, folder / f"{name}-{key}.txt")
    except OSError:
        pass


class _Tee:
    """stdout as rich sees it (isatty, fileno, encoding), keeping a copy of what is written."""

    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        self._stream = stream
        self.parts: list[str] = []

    def write(self, s: "str | bytes") -> int:
        self.parts.append(s if isinstance(s, str) else s.decode("utf-8", "replace"))
        return self._stream.write(s)

    @property
    def buffer(self) -> "_Tee":
        """click writes bytes to stdout's buffer: those are kept too."""
        out = _Tee(self._stream.buffer)
        out.parts = self.parts
        return out

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._stream, name)


def script() -> None:
    """Console-script entry point."""
    import gc

    # A run allocates a few hundred thousand objects while importing and then little garbage;
    # collecting generation 0 every 700 allocations cost ~3 ms of a ~110 ms audit (16 collections
    # against 7). A larger threshold keeps the collector on, just less busy; set before the first import.
    gc.set_threshold(100_000, 50, 50)
    key = _help_key() if tuple(sys.argv[1:]) in HELP_ARGS else None
    if key is not None:
        text = _saved(*key)
        if text is not None:
            try:
                sys.stdout.write(text)
                sys.stdout.flush()
            except BrokenPipeError:
                pass
            os._exit(0)
    from advisor import codecache

    codecache.install()  # before the first dataclass is defined (advisor.codecache)
    from advisor import cli

    if key is not None:
        tee = _Tee(sys.stdout)
        sys.stdout = tee  # type: ignore[assignment]

        def on_exit(code: int) -> None:
            if code == 0:
                try:
                    _save(*key, "".join(tee.parts))
                except Exception:  # saving is only for speed: never a reason to fail
                    pass

        cli.ON_EXIT = on_exit
    cli.script()


if __name__ == "__main__":
    script()
