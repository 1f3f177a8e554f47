"""Compare speed: `advisor compare` of two snapshots against `advisor audit` of one, in this process,
alternated, as ratios (the judge reads every variable of both sides through the catalogue).

    python3 -m bench.compare_speed [--quick]

The inputs are the Percona Server set (tests/fixtures/flavors/percona-8.0) with host facts read from
the seed-003 PM981 and PM983 trees, as tests/unit/test_compare.py builds them.
"""

from __future__ import annotations

import time

from bench.common import log, median, quick_main, table


def _snapshots():
    from pathlib import Path

    from advisor import api
    from advisor.snapshot import ServerFacts, Snapshot, Target
    from tests.support.wire_server import load_set

    hosts = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "hosts"
    out = []
    for tree, host in (("seed-003-pm981", "10.0.3.10"), ("seed-003-pm983", "10.0.3.11")):
        s = load_set("percona-8.0")
        v = {k: str(x) for k, x in s["variables"].items()} | {"datadir": "/var/lib/mysql/"}
        snap = Snapshot(advisor_version="bench", collected_at="2026-12-01T00:00:00Z",
                        target=Target(host=host, port=3306, flavor="percona", version="8.0.32",
                                      version_string=v["version"]),
                        server=ServerFacts(variables=v, status={k: str(x) for k, x in s["status"].items()}))
        api.collect_machine(snap, host, "tcp", sysroot=str(hosts / tree))
        out.append(snap)
    return out


def run(quick: bool = False) -> dict:
    from advisor import api
    from advisor.compare.run import compare_snapshots

    rounds = 7 if quick else 31
    a, b = _snapshots()
    api.audit(a, "benchmark")  # warm-up: imports, the rule cache
    compare_snapshots([a, b], ["a", "b"])
    times: dict[str, list[float]] = {"audit one snapshot": [], "compare two snapshots": []}
    for i in range(rounds):
        names = list(times) if i % 2 == 0 else list(reversed(times))
        for name in names:
            t = time.perf_counter()
            if name == "audit one snapshot":
                api.audit(a, "benchmark")
            else:
                compare_snapshots([a, b], ["a", "b"])
            times[name].append(time.perf_counter() - t)
        log(f"compare_speed: round {i + 1}/{rounds}")
    return {"rounds": rounds, "times": times}


def render(r: dict) -> str:
    m = {k: median(v) for k, v in r["times"].items()}
    base = m["audit one snapshot"]
    rows = [(k, f"{v * 1000:.1f}", f"{v / base:.2f}") for k, v in m.items()]
    return (f"{r['rounds']} rounds each, alternated, in one process (Percona 8.0 set, PM981 vs PM983 trees).\n\n"
            + table(["what", "median ms", "× the audit"], rows))


if __name__ == "__main__":
    quick_main(run, render)
