"""Shared helpers for the benchmark scripts: an installed advisor, throwaway servers, timing.

Benchmarks print figures measured side by side in one run; they never fail on a slow machine.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def installed_advisor() -> str:
    """The advisor as users run it: `pip install .` (non-editable, bytecode compiled) into a clean
    venv of its own under bench/out, with its dependencies resolved from pyproject.toml."""
    venv = OUT / "venv"
    exe = venv / "bin" / "advisor"
    stamp = venv / ".source-mtime"
    newest = max(p.stat().st_mtime_ns for p in list((ROOT / "src").rglob("*.py")) + list((ROOT / "rules").rglob("*.toml")))
    if exe.exists() and stamp.exists() and stamp.read_text() == str(newest):
        return str(exe)
    log("bench: installing advisor into bench/out/venv (non-editable, compiled) ...")
    # setuptools reuses build/lib: a rule file deleted from rules/ would still be installed from there
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--force-reinstall",
                    str(ROOT)], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([str(venv / "bin" / "python"), "-m", "compileall", "-q",
                    str(Path(subprocess.check_output([str(venv / "bin" / "python"), "-c",
                        "import advisor, os; print(os.path.dirname(advisor.__file__))"], text=True).strip()))],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    stamp.write_text(str(newest))
    return str(exe)


def ensure_packages(binaries: dict[str, str]) -> None:
    """binary -> Debian package; installs the missing ones with apt-get (root)."""
    missing = sorted({pkg for b, pkg in binaries.items() if not shutil.which(b)})
    if not missing:
        return
    log(f"bench: installing {' '.join(missing)} ...")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env, stdout=subprocess.DEVNULL)


@dataclass
class Timing:
    wall: float
    cpu: float
    returncode: int
    stdout: str
    stderr: str


def timed(cmd: Sequence[str], env: Optional[dict[str, str]] = None, timeout: float = 300,
          cwd: Optional[str] = None) -> Timing:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(list(cmd), capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu, p.returncode, p.stdout, p.stderr)


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)
    mdb = subprocess.run(["mariadbd", "--version"], capture_output=True, text=True).stdout.strip()
    return f"{os.cpu_count()} × {cpu}, {mem:.0f} GiB RAM, {os.uname().sysname} {os.uname().release}; {mdb}; Python {sys.version.split()[0]}"


def quick_main(run: Callable[[bool], Any], render: Callable[[Any], str]) -> None:
    """Command line of a benchmark module that takes only --quick: run it and print what it renders."""
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    print(render(run(ap.parse_args().quick)))
