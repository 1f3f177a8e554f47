"""Fleet offline: `advisor fleet --snapshots DIR` over 1,000 snapshots (issue 17: under 15 s on this
machine, memory bounded), as a user runs it (the installed advisor, JSON Lines to a file), beside the
same command over 100 snapshots (peak RSS should not grow with the count: the reports are streamed
out, only the roll-up is kept) and beside --jobs 1 (one process; what the worker processes buy).
Half the snapshots are plain snapshot files, half are host directories as the Ansible role fetches
them (variables.tsv, status.tsv, host-raw.json, meta.json), so the importer and the host-fact parser
run too.

    python3 -m bench.fleet_snapshots [--snapshots 1000]

Peak RSS is the largest resident set of the command and its worker processes (getrusage of the
children, read in a fresh process per run, so each figure is that run's own).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from bench.common import OUT, installed_advisor, log, median, table

RUNNER = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode)
"""


def make_fleet(n: int, out: Path) -> Path:
    """n hosts: even ones as snapshot files, odd ones as the role's per-host directories."""
    from bench.scale import make_snapshots

    if out.exists():
        shutil.rmtree(out)
    snaps = make_snapshots(n, out / "_src")
    from advisor.collect.host_gather import Gatherer

    raw = json.dumps(Gatherer("/").host(["/var/lib/mysql"]))  # this machine's host files, as the role fetches them
    for i, p in enumerate(snaps):
        if i % 2 == 0:
            p.rename(out / f"host{i:04d}.json")
            continue
        doc = json.loads(p.read_text())
        d = out / f"host{i:04d}"
        d.mkdir()
        (d / "variables.tsv").write_text("".join(f"{k}\t{v}\n" for k, v in doc["server"]["variables"].items()))
        (d / "status.tsv").write_text("".join(f"{k}\t{v}\n" for k, v in doc["server"]["status"].items()))
        (d / "meta.json").write_text(json.dumps({"inventory_hostname": d.name, "groups": [f"g{i % 5}"]}))
        (d / "host-raw.json").write_text(raw)
        p.unlink()
    shutil.rmtree(out / "_src")
    return out


def run(advisor: str, directory: Path, jobs: int | None, reps: int) -> dict:
    cmd = [advisor, "fleet", "--snapshots", str(directory), "--format", "jsonl", "-o", str(OUT / "fleet.jsonl")]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    walls, cpus, rss = [], [], []
    for _ in range(reps):
        out = subprocess.run([sys.executable, "-c", RUNNER, *cmd], capture_output=True, text=True, check=True)
        wall, cpu, maxrss, rc = out.stdout.split()
        walls.append(float(wall))
        cpus.append(float(cpu))
        rss.append(int(maxrss) / 1024)
        lines = (OUT / "fleet.jsonl").read_text().splitlines()
        rollup = json.loads(lines[-1])
        assert rollup["schema"] == "advisor.fleet-rollup/1" and int(rc) == 0, (rc, lines[-1][:300])
    return {"wall": median(walls), "cpu": median(cpus), "rss_mib": max(rss), "hosts": rollup["hosts_audited"],
            "lines": len(lines), "groups": len(rollup["drift"])}


def measure(n: int = 1000, reps: int = 3) -> dict:
    """The three runs: n snapshots, n/10 snapshots, n snapshots with --jobs 1; and the machine's load."""
    import os

    advisor = installed_advisor()
    small = max(n // 10, 10)
    big_dir, small_dir = make_fleet(n, OUT / "fleet-big"), make_fleet(small, OUT / "fleet-small")
    runs = []
    for label, d, jobs in ((f"{n} snapshots", big_dir, None), (f"{small} snapshots", small_dir, None),
                           (f"{n} snapshots --jobs 1", big_dir, 1)):
        log(f"fleet_snapshots: {label} ...")
        load = os.getloadavg()[0]
        r = run(advisor, d, jobs, reps if jobs is None else 1)
        r.update(label=label, load=load)
        runs.append(r)
        log(f"fleet_snapshots: {label}: {r['wall']:.2f} s wall, {r['cpu']:.2f} s CPU, peak RSS {r['rss_mib']:.0f} MiB")
    return {"n": n, "cpus": len(os.sched_getaffinity(0)), "runs": runs}


def render(raw: dict) -> str:
    rows = [(r["label"], f"{r['wall']:.2f}", f"{r['cpu']:.2f}", f"{r['cpu'] / r['hosts'] * 1000:.1f}",
             f"{r['rss_mib']:.0f}", f"{r['load']:.1f}", str(r["hosts"])) for r in raw["runs"]]
    big, small = raw["runs"][0], raw["runs"][1]
    note = (f"`advisor fleet --snapshots DIR --format jsonl` (half snapshot files, half host directories as the "
            f"Ansible role fetches them, five groups for drift). CPU per host is the command's and its workers' "
            f"CPU time over the hosts; with {raw['cpus']} CPUs free the wall time of {raw['n']} snapshots would be "
            f"about {big['cpu'] / raw['cpus']:.1f} s (CPU s / CPUs); the load average column says how busy the "
            f"machine was. Peak RSS at {big['hosts']} hosts vs {small['hosts']}: {big['rss_mib']:.0f} vs "
            f"{small['rss_mib']:.0f} MiB — the reports are written out and dropped; what grows is the drift table "
            "(one entry per host and variable).")
    return table(("run", "median wall s", "CPU s", "CPU ms per host", "peak RSS MiB", "load average", "hosts"),
                 rows) + "\n\n" + note


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--snapshots", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args(argv)
    print(render(measure(a.snapshots, a.reps)))


if __name__ == "__main__":
    main()
