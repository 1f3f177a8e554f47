"""Audit speed against a live server: `advisor audit --no-calibrate --format json` of this tree
against another checkout (a base commit), each installed non-editable into its own venv (as
bench/startup.py does), runs alternated, one warm-up run each (it fills the rule cache), medians of
wall and CPU time and their ratio, and the summary line of each one's `audit --demo`.

    python3 -m bench.audit_speed --base /tmp/advisor-base [--runs 11] [--host 127.0.0.1] [--port 3306]

Read-only on the server (an audit without calibration). Never fails on a slow machine: the figures
are side by side from one run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from pathlib import Path

from bench.common import ROOT, median, table, timed
from bench.startup import install


def command(host: str, port: int, user: str) -> list[str]:
    return ["audit", "--host", host, "--port", str(port), "--user", user, "--no-defaults", "--no-calibrate",
            "--format", "json"]


def summary_line(exe: str, env: dict[str, str]) -> str:
    """The `Summary:` line of `advisor audit --demo`."""
    out = subprocess.run([exe, "audit", "--demo"], capture_output=True, text=True, env=env).stdout
    return next((ln.strip() for ln in out.splitlines() if ln.startswith("Summary:")), "(no summary line)")


def run(base: Path, runs: int, cmd: list[str]) -> dict:
    exes = {"base": install(base, "base"), "this tree": install(ROOT, "this")}
    walls: dict[str, list[float]] = {k: [] for k in exes}
    cpus: dict[str, list[float]] = {k: [] for k in exes}
    with tempfile.TemporaryDirectory() as home:
        envs = {k: dict(os.environ, XDG_CACHE_HOME=str(Path(home) / k.replace(" ", "-"))) for k in exes}
        for k, exe in exes.items():  # warm-up: fills each one's cache
            first = timed([exe, *cmd], env=envs[k])
            if first.returncode not in (0, 1, 2):
                raise SystemExit(f"{k}: {exe} {' '.join(cmd)} exited {first.returncode}: {first.stderr}")
        for i in range(runs):
            order = list(exes) if i % 2 == 0 else list(reversed(exes))
            for k in order:
                t = timed([exes[k], *cmd], env=envs[k])
                walls[k].append(t.wall)
                cpus[k].append(t.cpu)
        demo = {k: summary_line(exes[k], envs[k]) for k in exes}
    return {"runs": runs, "base": str(base), "command": cmd, "demo": demo,
            "wall": {k: median(v) for k, v in walls.items()}, "cpu": {k: median(v) for k, v in cpus.items()}}


def render(r: dict) -> str:
    rows = [[k, f"{r['wall'][k] * 1000:.0f} ms", f"{r['cpu'][k] * 1000:.0f} ms"] for k in r["wall"]]
    rows.append(["this tree / base", f"{r['wall']['this tree'] / r['wall']['base']:.2f}",
                 f"{r['cpu']['this tree'] / r['cpu']['base']:.2f}"])
    demo = "\n".join(f"- {k}: `{line}`" for k, line in r["demo"].items())
    return (f"`advisor {' '.join(r['command'])}`, medians of {r['runs']} alternated runs each (warm cache), "
            f"base = {r['base']}\n\n" + table(["checkout", "wall", "CPU"], rows)
            + f"\n\n`advisor audit --demo` summary:\n\n{demo}\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, type=Path, help="a checkout of the commit to compare with")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=3306)
    ap.add_argument("--user", default="root")
    a = ap.parse_args()
    print(render(run(a.base, a.runs, command(a.host, a.port, a.user))))


if __name__ == "__main__":
    main()
