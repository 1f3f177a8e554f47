"""Golden files: committed outputs the tests compare with what the code makes now.

Every golden file, expected-findings file and generated page (tests/golden/, the version matrix's
tests/fixtures/flavors/*/expected-findings.toml, docs/rules/, the bundled demo snapshot) is checked
through the ``golden`` fixture (tests/conftest.py). ``python3 -m pytest --update-golden`` (any
selection of tests) rewrites the ones those tests check instead of comparing them, and removes
the stale ones; review the diff like code before committing it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UPDATE_HINT = "if the change is intended, run `python3 -m pytest --update-golden` and review the diff"


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


class Golden:
    """``check(path, text)`` compares, or with --update-golden writes; ``stale(found, wanted)`` likewise."""

    def __init__(self, update: bool) -> None:
        self.update = update

    def check(self, path: Path, text: str) -> None:
        if self.update:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            return
        assert path.is_file(), f"{_rel(path)} is missing; create it with `python3 -m pytest --update-golden` and review it"
        old = path.read_text(encoding="utf-8")
        if old != text:
            diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), f"{_rel(path)} (committed)",
                                             "what the code makes now", lineterm="", n=2))
            shown = "\n".join(diff[:60]) + ("\n..." if len(diff) > 60 else "")
            raise AssertionError(f"{_rel(path)} is out of date; {UPDATE_HINT}\n{shown}")

    def stale(self, found: Iterable[Path], wanted: Iterable[Path]) -> None:
        """Files in a golden directory that no test makes any more: removed with --update-golden."""
        extra = sorted(set(found) - set(wanted))
        if self.update:
            for p in extra:
                p.unlink()
            return
        assert not extra, f"stale golden files {[_rel(p) for p in extra]}; {UPDATE_HINT}"
