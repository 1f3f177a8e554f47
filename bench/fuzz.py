"""The long fuzz run: the suite's surfaces (tests/fuzz/surfaces.py) with more inputs each, through the
real CLI entry point in this process; prints inputs and exit codes per surface and every input that
broke a property (exit 70, a hang, a traceback, an error without a Tip or over 2,000 characters).

    python3 -m bench.fuzz                       # 10x the CI counts (~100,000 inputs)
    python3 -m bench.fuzz --factor 2            # 2x
    python3 -m bench.fuzz --surface sysbench --start 4711 --count 1   # replay one input

Inputs are numbered per surface; the CI suite runs indices [0, CI count), this run continues from
there, so it never repeats them. Exit status 1 when any input broke a property.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fuzz.harness import Tally, report, run_surface  # noqa: E402
from tests.fuzz.surfaces import CI_COUNTS, LIVE, OFFLINE  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--factor", type=float, default=10.0, help="inputs per surface = CI count x this")
    ap.add_argument("--surface", action="append", help="only this surface (repeatable)")
    ap.add_argument("--start", type=int, help="first input index (default: after the CI inputs)")
    ap.add_argument("--count", type=int, help="inputs per surface (default: CI count x --factor)")
    ap.add_argument("--locate", action="store_true", help="ADVISOR_DEBUG=1: name the crash site of each exit 70")
    args = ap.parse_args(argv)
    if args.locate:
        os.environ["ADVISOR_DEBUG"] = "1"
    os.environ.setdefault("XDG_CACHE_HOME", tempfile.mkdtemp(prefix="advisor-fuzz-cache-"))
    names = args.surface or [*OFFLINE, *LIVE]
    tally = Tally()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="advisor-fuzz-") as tmp:
        srv = None
        try:
            for name in names:
                work = Path(tmp) / name
                work.mkdir()
                if name in LIVE:
                    if srv is None:
                        from tests.support.wire_server import ReplayServer

                        srv = ReplayServer.from_set("mysql-8.0.36")
                    make = LIVE[name](work, srv)
                else:
                    make = OFFLINE[name](work)
                start = CI_COUNTS[name] if args.start is None else args.start
                count = args.count if args.count is not None else int(CI_COUNTS[name] * args.factor)
                s0 = time.monotonic()
                run_surface(name, make, start, count, tally)
                print(f"{name}: {count} inputs in {time.monotonic() - s0:.0f} s", file=sys.stderr, flush=True)
        finally:
            if srv is not None:
                srv.close()
    print(report(tally, limit=50))
    print(f"wall {time.monotonic() - t0:.0f} s")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
