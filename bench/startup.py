"""Start-up: `advisor audit --demo --format json` of this tree against another checkout (a base
commit), each installed non-editable and compiled into its own venv, runs alternated, one warm-up
run each (it fills the catalogue cache), medians of wall and CPU time and their ratio.

    python3 -m bench.startup --base /tmp/advisor-base [--runs 21] [--live]

With --live the command is a live audit instead (`advisor audit --host 127.0.0.1 --port P --user root
--no-defaults --no-calibrate --format json`) against one throwaway mariadbd seeded as bench.latency
seeds it.

The base checkout is any directory with a pyproject.toml, e.g. `git worktree add /tmp/advisor-base
<commit>`. Both venvs live under bench/out/startup/. Prints a Markdown table; never fails on a slow
machine (the figures are side by side from one run).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import OUT, ROOT, log, median, table, timed

COMMAND = ("audit", "--demo", "--format", "json")


def install(source: Path, name: str) -> str:
    """`pip install SOURCE` (non-editable) into bench/out/startup/NAME, bytecode compiled; the
    advisor executable. Reinstalls when the source's newest .py or .toml changed."""
    venv = OUT / "startup" / name
    exe = venv / "bin" / "advisor"
    stamp = venv / ".source-mtime"
    newest = max(p.stat().st_mtime_ns for p in [*(source / "src").rglob("*.py"), *(source / "rules").rglob("*.toml")])
    if exe.exists() and stamp.exists() and stamp.read_text() == str(newest):
        return str(exe)
    log(f"bench: installing {source} into {venv} ...")
    if not (venv / "bin" / "python").exists():
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "--force-reinstall", str(source)], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pkg = subprocess.check_output([py, "-c", "import advisor, os; print(os.path.dirname(advisor.__file__))"],
                                  text=True).strip()
    subprocess.run([py, "-m", "compileall", "-q", pkg], check=True, env=env, stdout=subprocess.DEVNULL)
    stamp.write_text(str(newest))
    return str(exe)


def run(base: Path, runs: int = 21, command: tuple[str, ...] = COMMAND) -> dict:
    exes = {"base": install(base, "base"), "this tree": install(ROOT, "this")}
    walls: dict[str, list[float]] = {k: [] for k in exes}
    cpus: dict[str, list[float]] = {k: [] for k in exes}
    with tempfile.TemporaryDirectory() as home:
        envs = {k: dict(os.environ, XDG_CACHE_HOME=str(Path(home) / k.replace(" ", "-"))) for k in exes}
        for k, exe in exes.items():  # warm-up: fills each one's cache, as every run but the first finds it
            first = timed([exe, *command], env=envs[k])
            if first.returncode not in (0, 1, 2):
                raise SystemExit(f"{k}: {exe} {' '.join(command)} exited {first.returncode}: {first.stderr}")
        for i in range(runs):
            order = list(exes) if i % 2 == 0 else list(reversed(exes))
            for k in order:
                t = timed([exes[k], *command], env=envs[k])
                walls[k].append(t.wall)
                cpus[k].append(t.cpu)
    return {"runs": runs, "base": str(base), "command": list(command),
            "wall": {k: median(v) for k, v in walls.items()}, "cpu": {k: median(v) for k, v in cpus.items()}}


def render(r: dict) -> str:
    rows = [[k, f"{r['wall'][k] * 1000:.0f} ms", f"{r['cpu'][k] * 1000:.0f} ms"] for k in r["wall"]]
    ratio_wall = r["wall"]["this tree"] / r["wall"]["base"]
    ratio_cpu = r["cpu"]["this tree"] / r["cpu"]["base"]
    rows.append(["this tree / base", f"{ratio_wall:.2f}", f"{ratio_cpu:.2f}"])
    return (f"`advisor {' '.join(r.get('command', COMMAND))}`, medians of {r['runs']} alternated runs each (warm cache), "
            f"base = {r['base']}\n\n" + table(["checkout", "wall", "CPU"], rows))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, type=Path, help="a checkout of the commit to compare with")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--live", action="store_true", help="a live audit of a throwaway mariadbd instead of the demo")
    a = ap.parse_args()
    if not a.live:
        print(render(run(a.base, a.runs)))
        return
    from bench.latency import seed_data
    from tests.support.mariadb import MariaDB

    with MariaDB() as db:
        seed_data(db)
        live = ("audit", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults",
                "--no-calibrate", "--format", "json")
        print(render(run(a.base, a.runs, live)))


if __name__ == "__main__":
    main()
