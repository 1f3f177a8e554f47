"""Variable-catalogue load time, before and after a change, side by side.

    python3 -m bench.catalogue [--base REF] [--runs N]

Checks REF (default: main) out into a temporary git worktree and runs, alternately in fresh
processes, for the base tree and this one (each with its own warm on-disk cache):
  load     import advisor.knowledge, load the catalogue, one info() lookup
  lookups  info() + is_default() for every variable of two recorded SHOW VARIABLES sets
           (MySQL 8.0.36, MariaDB 10.11), as the derived facts of an audit do
  audit    advisor audit --demo --format json (end to end, no server)
Prints medians (ms) and the ratio this/base. Never fails on a slow machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, log

LOAD = ("import time; t = time.perf_counter(); from advisor import knowledge as K; K.catalogue(); "
        "K.info('sort_buffer_size', 'mysql', '8.0.36'); print((time.perf_counter() - t) * 1000)")

LOOKUPS = """
import json, time
t = time.perf_counter()
from advisor import knowledge as K
for path, flavor, version in %r:
    for name, value in json.load(open(path)).items():
        K.info(name.lower(), flavor, version)
        K.is_default(name.lower(), value, flavor, version)
print((time.perf_counter() - t) * 1000)
"""

SETS = [(str(ROOT / "tests/fixtures/flavors/mysql-8.0.36/variables.json"), "mysql", "8.0.36"),
        (str(ROOT / "tests/fixtures/flavors/mariadb-10.11/variables.json"), "mariadb", "10.11.19")]


def run(tree: Path, cache: Path, code: str | None = None, argv: list[str] | None = None) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), XDG_CACHE_HOME=str(cache))
    env.pop("ADVISOR_NO_CACHE", None)
    if code is not None:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return float(out.stdout.strip().splitlines()[-1])
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "advisor", *argv], env=env, capture_output=True, check=True, cwd=tree)
    return (time.perf_counter() - t) * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m bench.catalogue")
    ap.add_argument("--base", default="main")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-catalogue-"))
    base = work / "base"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
                   check=True, capture_output=True)
    try:
        trees = {"base": base, "this": ROOT}
        caches = {k: work / f"cache-{k}" for k in trees}
        tasks = {
            "load": lambda tr, c: run(tr, c, code=LOAD),
            "lookups": lambda tr, c: run(tr, c, code=LOOKUPS % (SETS,)),
            "audit --demo": lambda tr, c: run(tr, c, argv=["audit", "--demo", "--format", "json"]),
        }
        for k in trees:  # warm the caches
            for task in tasks.values():
                task(trees[k], caches[k])
        got: dict[str, dict[str, list[float]]] = {t: {k: [] for k in trees} for t in tasks}
        for i in range(args.runs):
            for t, task in tasks.items():
                for k in (("base", "this") if i % 2 == 0 else ("this", "base")):
                    got[t][k].append(task(trees[k], caches[k]))
        rev = subprocess.run(["git", "-C", str(base), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        print(f"catalogue load time, {args.runs} alternating runs, base {args.base} ({rev}) vs this tree")
        print(f"{'task':14} {'base ms':>9} {'this ms':>9} {'ratio':>7}")
        result = {}
        for t in tasks:
            b, n = statistics.median(got[t]["base"]), statistics.median(got[t]["this"])
            result[t] = {"base_ms": round(b, 1), "this_ms": round(n, 1), "ratio": round(n / b, 2)}
            print(f"{t:14} {b:9.1f} {n:9.1f} {n / b:7.2f}")
        (ROOT / "bench" / "out").mkdir(parents=True, exist_ok=True)
        (ROOT / "bench" / "out" / "catalogue.json").write_text(json.dumps(result, indent=1) + "\n")
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], capture_output=True)
        log(f"bench: removed {base}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
