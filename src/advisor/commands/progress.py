"""The one-line progress bar of the commands that wait (calibrate, audit, collect --sample-seconds)."""

from __future__ import annotations

import sys
from typing import Optional, TextIO


class TerminalProgress:
    """A one-line progress bar on stderr, only when stderr is a terminal: `calibrating` (calibrate,
    audit --calibrate) or `collecting` (collect --sample-seconds waiting for its second status read)."""

    def __init__(self, stream: TextIO, width: int = 24, label: str = "calibrating"):
        self.stream = stream
        self.width = width
        self.label = label
        self.shown = False

    @classmethod
    def maybe(cls, stream: Optional[TextIO] = None, label: str = "calibrating") -> Optional["TerminalProgress"]:
        from advisor.commands.options import QUIET, dumb_terminal

        stream = stream or sys.stderr
        if QUIET or dumb_terminal():  # a dumb terminal cannot redraw the line
            return None
        try:
            return cls(stream, label=label) if stream.isatty() else None
        except (AttributeError, ValueError):
            return None

    def __call__(self, probe: str, elapsed: float, budget: float) -> None:
        frac = min(1.0, max(0.0, elapsed / budget)) if budget > 0 else 1.0
        done = int(frac * self.width)
        bar = "█" * done + "░" * (self.width - done)
        self.stream.write(f"\r\033[2K{self.label} {bar} {elapsed:4.1f}/{budget:g} s  {probe}")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r\033[2K")
            self.stream.flush()
            self.shown = False
