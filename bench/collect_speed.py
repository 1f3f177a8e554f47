"""Collection speed: what the host and client facts add to a collection, and what the production
audit's light calibration adds to an audit, against one throwaway mariadbd, alternated, as ratios.

    python3 -m bench.collect_speed [--quick]

1. In this process, `api.collect()` with and without the machine facts (`machine=True/False`:
   /proc, /sys, the datadir's devices, `ip route get`), rounds alternated: their medians and ratio.
2. The installed CLI (`advisor audit`, non-editable venv) with `--no-calibrate` and with the default
   production purpose (light calibration: round trips within a 1 s budget counted from the
   command's start), alternated: medians, the ratio and the light calibration's own duration.

These were test assertions once (a collection "well under a second", an audit under 3 s); on a busy
shared machine they failed for no fault of the code. Here they are measured side by side.
"""

from __future__ import annotations

import json
import time

from bench.common import installed_advisor, log, median, quick_main, table, timed
from tests.support.mariadb import MariaDB


def run(quick: bool = False) -> dict:
    from advisor import api
    from advisor.collect.connection import ConnectionOptions

    rounds = 7 if quick else 21
    advisor = installed_advisor()
    with MariaDB() as db:
        opts = ConnectionOptions(host="127.0.0.1", port=db.port, user="root", no_defaults=True)
        api.collect(opts)  # warm-up: imports, page cache
        inproc: dict[str, list[float]] = {"with machine facts": [], "server only": []}
        for i in range(rounds):
            order = [True, False] if i % 2 == 0 else [False, True]
            for machine in order:
                t = time.perf_counter()
                api.collect(opts, machine=machine)
                inproc["with machine facts" if machine else "server only"].append(time.perf_counter() - t)
        base = ["audit", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults",
                "--format", "json"]
        cmds = {"audit --no-calibrate": [advisor, *base, "--no-calibrate"], "audit (light calibration)": [advisor, *base]}
        for cmd in cmds.values():
            timed(cmd)
        cli: dict[str, list[float]] = {n: [] for n in cmds}
        light: list[float] = []
        for i in range(rounds):
            names = list(cmds) if i % 2 == 0 else list(reversed(cmds))
            for name in names:
                t = timed(cmds[name])
                if t.returncode != 0:
                    raise SystemExit(f"{name} failed ({t.returncode}): {t.stderr.strip()}")
                cli[name].append(t.wall)
                if name == "audit (light calibration)":
                    light.append(json.loads(t.stdout)["calibration"]["duration_s"])
            log(f"collect_speed: round {i + 1}/{rounds}")
    return {"rounds": rounds, "inproc": inproc, "cli": cli, "light": light}


def render(r: dict) -> str:
    ip = {k: median(v) for k, v in r["inproc"].items()}
    cl = {k: median(v) for k, v in r["cli"].items()}
    rows = [("api.collect, server only", f"{ip['server only'] * 1000:.1f}", "1.00"),
            ("api.collect, with host and client facts", f"{ip['with machine facts'] * 1000:.1f}",
             f"{ip['with machine facts'] / ip['server only']:.2f}"),
            ("advisor audit --no-calibrate (CLI)", f"{cl['audit --no-calibrate'] * 1000:.0f}", "1.00"),
            ("advisor audit, production: light calibration (CLI)", f"{cl['audit (light calibration)'] * 1000:.0f}",
             f"{cl['audit (light calibration)'] / cl['audit --no-calibrate']:.2f}")]
    return (f"{r['rounds']} rounds each, alternated, against one throwaway mariadbd on loopback.\n\n"
            + table(["what", "median ms", "× its baseline (rows 1 and 3)"], rows)
            + f"\n\nThe host and client facts add {1000 * (ip['with machine facts'] - ip['server only']):.1f} ms "
              f"({100 * (ip['with machine facts'] / ip['server only'] - 1):.0f} %) to a collection; the light "
              f"calibration's own duration was {median(r['light']):.2f} s (median) of its 1 s budget, which counts "
              "from the command's start.")


if __name__ == "__main__":
    quick_main(run, render)
