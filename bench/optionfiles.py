"""Option files that include their own directory (issue 19 "Slow paths"): N files in one directory,
each with `!includedir` of it. The advisor's reader against `my_print_defaults` (the server's
reader, which re-reads them up to 10 levels deep) and, with --base, against the two readers of an
older checkout (collect.connection.parse_option_file and mycnf.cnf.read_option_file), side by side.

    python3 -m bench.optionfiles [--files 2 3 4] [--base /tmp/advisor-base]

Prints a Markdown table of median seconds and lines read; never fails on a slow machine.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from bench.common import ROOT, median, table

sys.path.insert(0, str(ROOT / "src"))


def _tree(root: Path, n: int) -> Path:
    for i in range(n):
        (root / f"f{i}.cnf").write_text(f"[client]\nk{i}=1\n!includedir {root}\n")
    return root / "f0.cnf"


def _timed(fn: Callable[[], int], runs: int) -> tuple[float, int]:
    times, lines = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        lines = fn()
        times.append(time.perf_counter() - t0)
    return median(times), lines


def _base_readers(base: Path) -> dict[str, Callable[[Path], int]]:
    """The old readers, run in a subprocess of the base checkout's sources (their modules share
    names with this tree's)."""
    def run(code: str) -> Callable[[Path], int]:
        def f(top: Path) -> int:
            p = subprocess.run([sys.executable, "-c", code, str(top)], capture_output=True, text=True,
                               env={"PYTHONPATH": str(base / "src")}, timeout=600)
            return int(p.stdout.strip() or -1)
        return f
    return {
        "base collect.connection": run("import sys, pathlib; from advisor.collect.connection import parse_option_file as p; "
                                       "f = pathlib.Path(sys.argv[1]); g = p(f.read_text(), f.parent); "
                                       "print(sum(len(v) for v in g.values()))"),
        "base mycnf.cnf": run("import sys; from advisor.mycnf.cnf import read_option_file as r; "
                              "print(len(r(sys.argv[1]).options))"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--base", type=Path)
    args = ap.parse_args()
    from advisor.optionfile import read_option_file

    rows = []
    for n in args.files:
        with tempfile.TemporaryDirectory() as d:
            top = _tree(Path(d), n)
            readers: dict[str, Callable[[Path], int]] = {"advisor.optionfile": lambda t: len(read_option_file(t).options)}
            mpd = shutil.which("my_print_defaults")
            if mpd:
                readers["my_print_defaults"] = lambda t: len(subprocess.run(
                    [mpd, f"--defaults-file={t}", "client"], capture_output=True, text=True).stdout.splitlines())
            if args.base:
                readers.update(_base_readers(args.base))
            for name, fn in readers.items():
                runs = args.runs if not name.startswith("base") or n < 4 else 1
                secs, lines = _timed(lambda: fn(top), runs)
                rows.append([str(n), name, f"{secs:.4f}", str(lines)])
    print(table(["files", "reader", "median s", "option lines read"], rows))


if __name__ == "__main__":
    main()
