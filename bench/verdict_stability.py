"""Do measured verdicts hold under load? (issue 25's acceptance bench)

One throwaway mariadbd with real TLS certificates and a 32M sort buffer (so the TLS, stream, flush and
sort probes all have something to judge). Then:

  - N audits with calibration (`advisor audit --purpose benchmark --calibrate`) on the idle machine and N
    beside two CPU hogs (`python3 -c 'while True: pass'`, one per core), alternated in blocks;
  - for every rule that reads a calibration fact (found from the rule files), the statuses it took over
    all 2N audits: a verdict *flips* when one rule is fired in some runs and passed in others; "unknown"
    (including "uncertain": the measurement's spread spans the threshold) is the allowed third answer;
  - N `advisor compare` runs of the server with itself with `--calibrate`, beside the hogs: how many came
    out confounded (the goal: none).

    python3 -m bench.verdict_stability [--runs N] [--calibrate-seconds S]

Prints Markdown for docs/benchmarks.md. Run it on an otherwise idle machine: the idle half must be idle.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from bench.common import OUT, ROOT, log, machine, table
from tests.support.certs import make_certs
from tests.support.mariadb import MariaDB


# this checkout's advisor, run as `python -m advisor` (the interpreter's install of it)
ADVISOR = [sys.executable, "-m", "advisor"]


def measured_rules() -> set[str]:
    """Ids of rules whose TOML reads a calibration fact."""
    out = set()
    for p in (ROOT / "rules").rglob("*.toml"):
        text = p.read_text()
        if re.search(r'"calibration\.', text):
            m = re.search(r'^id\s*=\s*"([^"]+)"', text, re.M)
            if m:
                out.add(m.group(1))
    return out


class Hogs:
    def __init__(self, n: int = 2):
        self.n = n
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "Hogs":
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.n)]
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            p.kill()
            p.wait()


def audit(advisor: list[str], db: MariaDB, budget: float, ca: str) -> dict:
    p = subprocess.run([*advisor, "audit", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root",
                        "--no-defaults", "--ssl-ca", ca, "--purpose", "benchmark", "--calibrate",
                        "--calibrate-seconds", f"{budget:g}", "--format", "json"],
                       capture_output=True, text=True, timeout=budget * 10 + 120)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"advisor audit exited {p.returncode}: {p.stderr[-800:]}")
    return json.loads(p.stdout)


def compare_self(advisor: list[str], db: MariaDB, budget: float) -> dict:
    url = f"mysql://root@127.0.0.1:{db.port}"
    p = subprocess.run([*advisor, "compare", url, url, "--no-defaults", "--calibrate", "--calibrate-seconds",
                        f"{budget:g}", "--format", "json"], capture_output=True, text=True, timeout=budget * 20 + 120)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"advisor compare exited {p.returncode}: {p.stderr[-800:]}")
    return json.loads(p.stdout)


def run(runs: int, budget: float) -> dict:
    advisor = ADVISOR
    rules = measured_rules()
    certs = make_certs(OUT / "verdict-stability-certs")
    statuses: dict[str, dict[str, list[str]]] = defaultdict(lambda: {"idle": [], "hogs": []})
    reasons: dict[str, set[str]] = defaultdict(set)
    compares = []
    with MariaDB(options={"sort-buffer-size": "32M"}, tls=certs) as db:
        db.query("CREATE DATABASE IF NOT EXISTS sbtest")
        for block in range(2):
            for cond in ("idle", "hogs"):
                for i in range(runs // 2 + (runs % 2 if block == 0 else 0)):
                    if cond == "hogs":
                        with Hogs():
                            doc = audit(advisor, db, budget, str(certs.ca))
                    else:
                        doc = audit(advisor, db, budget, str(certs.ca))
                    for o in doc["outcomes"]:
                        if o["rule"] in rules:
                            statuses[o["rule"]][cond].append(o["status"])
                            if o["status"] == "unknown":
                                reasons[o["rule"]].add(o.get("reason", "")[:160])
                    log(f"verdict_stability: audit {cond} block {block + 1} run {i + 1}")
        with Hogs():
            for i in range(runs):
                doc = compare_self(advisor, db, budget)
                conf = [d["id"] for d in doc["differences"] if d["verdict"] == "confounding"]
                compares.append({"verdict": doc.get("verdict") or (doc.get("summary") or {}).get("verdict"),
                                 "confounding": conf, "headline": doc.get("headline", "")})
                log(f"verdict_stability: compare {i + 1}: {compares[-1]['verdict']} {conf}")
    return {"statuses": {k: dict(v) for k, v in statuses.items()}, "reasons": {k: sorted(v) for k, v in reasons.items()},
            "compares": compares, "runs": runs, "budget": budget, "machine": machine()}


def render(r: dict) -> str:
    rows, flips = [], []
    for rule, by in sorted(r["statuses"].items()):
        allst = by["idle"] + by["hogs"]
        flip = "fired" in allst and "passed" in allst
        if flip:
            flips.append(rule)
        cnt = lambda xs: ", ".join(f"{s} {xs.count(s)}" for s in ("fired", "passed", "unknown", "not_applicable") if xs.count(s))
        rows.append((f"`{rule}`", cnt(by["idle"]), cnt(by["hogs"]), "**flips**" if flip else "holds"))
    conf = [c for c in r["compares"] if c["confounding"]]
    out = [f"Machine: {r['machine']}.", "",
           f"Command: `python3 -m bench.verdict_stability --runs {r['runs']} --calibrate-seconds {r['budget']:g}`: "
           f"{r['runs']} audits with calibration on the idle machine and {r['runs']} beside two CPU hogs, "
           "alternated in blocks, of one throwaway mariadbd with TLS and sort_buffer_size=32M.", "",
           table(["rule (reads a calibration fact)", "idle", "beside two hogs", "verdict"], rows), "",
           (f"Verdicts that flipped between fired and passed: {', '.join(flips)}." if flips else
            "No measured verdict flipped between fired and passed; unknown (not measured, or uncertain) is the "
            "only other answer given."), "",
           f"`advisor compare` of the server with itself with `--calibrate`, beside two hogs: "
           f"{len(r['compares']) - len(conf)} of {len(r['compares'])} not confounded" +
           (": confounded by " + "; ".join(", ".join(c["confounding"]) for c in conf) if conf else "") + "."]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--calibrate-seconds", type=float, default=3.0)
    a = ap.parse_args()
    res = run(a.runs, a.calibrate_seconds)
    (OUT / "verdict_stability.json").write_text(json.dumps(res, indent=1))
    print(render(res))


if __name__ == "__main__":
    main()
