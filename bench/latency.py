"""Audit latency: advisor audit (no calibration) vs pt-variable-advisor vs mysqltuner against the
same throwaway mariadbd, runs alternated, medians and ratios; plus the advisor's import profile.

    python3 -m bench.latency [--runs N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from pathlib import Path

from bench.common import ensure_packages, installed_advisor, log, median, table, timed
from tests.support.mariadb import MariaDB


def seed_data(db: MariaDB) -> None:
    db.query("CREATE DATABASE IF NOT EXISTS app")
    for i in range(4):
        db.query(f"CREATE TABLE IF NOT EXISTS app.t{i} (id INT PRIMARY KEY, k INT, c CHAR(120), KEY(k)) ENGINE=InnoDB")
        db.query(f"INSERT IGNORE INTO app.t{i} SELECT seq, seq % 100, REPEAT('x', 120) FROM app.seq_1_to_5000",
                 autocommit=True)


def commands(advisor: str, port: int, cnf: str, snapshot: str = "") -> dict[str, list[str]]:
    out = {
        "advisor": [advisor, "audit", "--host", "127.0.0.1", "--port", str(port), "--user", "root",
                    "--no-defaults", "--format", "json", "--no-calibrate"],
        "pt-variable-advisor": ["pt-variable-advisor", f"h=127.0.0.1,P={port},u=root"],
        "mysqltuner": ["mysqltuner", "--defaults-file", cnf, "--host", "127.0.0.1", "--port", str(port),
                       "--nocolor", "--forcemem", str(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20)],
    }
    if snapshot:  # the same server's snapshot audited offline, and the help page (issue 26's other figures)
        out["advisor --snapshot"] = [advisor, "audit", "--snapshot", snapshot, "--format", "json"]
        out["advisor --help"] = [advisor, "--help"]
    return out


def import_profile(advisor: str, top: int = 12) -> list[tuple[str, float]]:
    py = str(Path(advisor).parent / "python")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    p = subprocess.run([py, "-X", "importtime", "-m", "advisor", "audit", "--demo", "--format", "json"],
                       capture_output=True, text=True, env=env)
    rows = []
    for line in p.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cum, name = line.split("|")
            try:
                rows.append((name.rstrip(), int(cum.strip()) / 1000))
            except ValueError:
                continue
    top_level = [(n.strip(), ms) for n, ms in rows if not n.startswith("  ")]
    return sorted(top_level, key=lambda r: -r[1])[:top]


def run(runs: int = 9) -> dict:
    ensure_packages({"pt-variable-advisor": "percona-toolkit", "mysqltuner": "mysqltuner"})
    advisor = installed_advisor()
    with MariaDB() as db, tempfile.TemporaryDirectory() as tmp:
        seed_data(db)
        cnf = Path(tmp) / "client.cnf"
        cnf.write_text(f"[client]\nuser=root\npassword=\nhost=127.0.0.1\nport={db.port}\n")
        snap = Path(tmp) / "snap.json"
        subprocess.run([advisor, "collect", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root",
                        "--no-defaults", "-o", str(snap)], check=True, capture_output=True)
        cmds = commands(advisor, db.port, str(cnf), str(snap))
        for name, cmd in cmds.items():  # warm-up: caches, rule cache, page cache
            timed(cmd)
        results: dict[str, list] = {n: [] for n in cmds}
        order = list(cmds)
        for i in range(runs):
            for name in order[i % len(order):] + order[: i % len(order)]:  # rotate the order every round
                t = timed(cmds[name])
                results[name].append(t)
            log(f"latency: round {i + 1}/{runs}")
        status = {n: sorted({t.returncode for t in ts}) for n, ts in results.items()}
    med = {n: (median([t.wall for t in ts]), median([t.cpu for t in ts])) for n, ts in results.items()}
    # the advisor's live audit against pt-variable-advisor, pair by pair (same round, same server)
    pairs = [(a.wall / p.wall, a.cpu / p.cpu) for a, p in zip(results["advisor"], results["pt-variable-advisor"])]
    base = med["advisor"][0]
    rows = [(n, f"{w:.3f}", f"{c:.3f}", f"{w / base:.2f}", f"{base / w:.2f}", ",".join(map(str, status[n])))
            for n, (w, c) in med.items()]
    return {"runs": runs, "medians": med, "table": table(
        ["tool", "median wall s", "median CPU s", "wall / advisor", "advisor / tool", "exit codes"], rows),
        "pairs": {"wall": median([w for w, _ in pairs]), "cpu": median([c for _, c in pairs]),
                  "wall_range": (min(w for w, _ in pairs), max(w for w, _ in pairs)),
                  "cpu_range": (min(c for _, c in pairs), max(c for _, c in pairs))},
        "imports": import_profile(advisor)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args(argv)
    r = run(a.runs)
    print(r["table"])
    pr = r["pairs"]
    print(f"\nadvisor / pt-variable-advisor, pairwise medians: wall {pr['wall']:.2f} "
          f"({pr['wall_range'][0]:.2f}-{pr['wall_range'][1]:.2f}), CPU {pr['cpu']:.2f} "
          f"({pr['cpu_range'][0]:.2f}-{pr['cpu_range'][1]:.2f})")
    print()
    print(table(["module (top level)", "cumulative import ms"], [(n, f"{ms:.1f}") for n, ms in r["imports"]]))


if __name__ == "__main__":
    main()
