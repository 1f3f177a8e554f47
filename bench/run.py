"""Run every benchmark and regenerate docs/benchmarks.md from their output.

    python3 -m bench.run --size quick    # ~10 min on 2 cores
    python3 -m bench.run --size full     # ~35 min

Benchmarks print figures measured side by side in one run; they never fail on a slow machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import time
from pathlib import Path

from bench import collect_speed, detection, fleet_snapshots, latency, outcome, scale, shaping
from bench.common import ROOT, log, machine, table

SECTIONS = ("latency", "detection", "outcome", "scale", "fleet", "collect", "shaping")
SIZES = {
    "quick": {"latency_runs": 7, "snapshots": 200, "instances": 5, "quick": True},
    "full": {"latency_runs": 11, "snapshots": 1000, "instances": 10, "quick": False},
}

PEER_NOTES = """\
Why the peers miss what they miss (read from their sources and outputs of this run, in bench/out/detection/):

- **pt-variable-advisor 3.2.1** reads `SHOW VARIABLES` only and compares single values with fixed
  thresholds. It has no rule about TLS; its `innodb_log_file_size` rule fires only at the old 5 MiB
  default; it reads no status counters (so nothing about connections actually used) and no data
  sizes (so nothing about the buffer pool against the data); its query-cache rules start at 128 MiB
  (`query_cache_size-1`), above this scenario's 64 MiB; it reads nothing about the host, the disk
  or the network. Its `sort_buffer_size-1` note ("should generally be left at its default") fires
  on any non-default value, including MariaDB's own 2 MiB default, hence the false positive on the
  baseline. Against the replayed TiDB 5.1 set it stopped at session setup (`SET
  @@SQL_QUOTE_SHOW_CREATE`: the recorded TiDB variables have no such variable; what a real TiDB 5.1
  answers was not checked).
- **MySQLTuner 1.9.9** (Debian 12's package) judges status ratios and a few variables. It says
  nothing about TLS; about sort_buffer_size it only ever suggests raising it; its redo advice is
  the fixed rule "log files = 25 % of the buffer pool", which for a 48 MiB log against a 128 MiB
  buffer pool asks for a *smaller* log (32 MiB), and for the baseline's 2 GiB log against a 1 GiB
  pool asks to shrink a log that is right for a benchmark; it has no durability check; it reads no
  NIC, route or disk model. On an unmodified MariaDB 10.11 it dies with "Illegal division by
  zero" (line 6024, `innodb_buffer_pool_chunk_size` is 0 = autosized there; line 6099,
  `Innodb_log_writes` is 0 on a server that never wrote) before printing any InnoDB finding or
  recommendation, so every server here sets the chunk size and gets a little write traffic to let
  it finish. Against the replayed TiDB 5.1 set it stopped with "Your server has not answered any
  queries" (TiDB's status has no `Questions` counter).
- Accounts and the data dictionary (the `canon-empty-password` … `canon-test-database` scenarios):
  pt-variable-advisor reads no accounts or tables. MySQLTuner 1.9.9 reports anonymous accounts and
  accounts with host `%` (so it finds the remote root), but printed "All database users have
  passwords assigned" on every server here, including the one with an application account whose
  password is empty and the unhardened ones with root@'%' without a password (its checks are near
  line 1977 of /usr/bin/mysqltuner; why its query returned no rows on MariaDB 10.11 was not traced);
  it says nothing about primary keys, AUTO_INCREMENT headroom or a test schema.
- Accounts in the bench: every throwaway server starts from the test template (root@'%' and
  root@127.0.0.1 without a password, pwuser@'%' with ALL). The baseline, the clean configurations
  and the account scenarios first harden them (root@localhost through unix_socket only, the rest
  dropped; every tool then connects over the socket); the other scenarios keep them, so there the
  advisor also reports those accounts, which is not counted against any seeded pitfall.
- The **advisor** misses nothing seeded here. The recorded host trees (seed-000 client, seed-003
  PM981) are read by the advisor's real readers through `collect_machine(..., sysroot=TREE)`; the
  peers cannot read host facts at all, so for them those scenarios are the default server.
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", choices=SIZES, default="quick")
    ap.add_argument("--only", choices=SECTIONS, action="append")
    ap.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    ap.add_argument("--peers-from", default="",
                    help="detection: take pt-variable-advisor's and mysqltuner's outputs from an earlier run's copy of "
                         "bench/out/detection (same scenarios and servers) instead of running them again")
    ap.add_argument("--render", action="store_true",
                    help="re-render the document from the results of the last run (bench/out/results.pickle)")
    a = ap.parse_args()
    import pickle

    saved = ROOT / "bench" / "out" / "results.pickle"
    if a.render:
        data = pickle.loads(saved.read_bytes())
        partial = set(data["raw"]) != set(SECTIONS)  # the run had --only: keep the document's header
        write_doc(Path(a.out), data["size"], render_sections(data["raw"], data["size"]), data["seconds"], data["commit"],
                  partial=partial)
        return
    k = SIZES[a.size]
    want = set(a.only or SECTIONS)
    t0 = time.monotonic()
    raw: dict = {}
    if "latency" in want:
        log("== latency")
        raw["latency"] = latency.run(k["latency_runs"])
    if "detection" in want:
        log("== detection")
        raw["detection"] = detection.run(k["quick"], peers_from=a.peers_from)
        raw["detection"]["peers_from"] = a.peers_from
    if "outcome" in want:
        log("== outcome")
        raw["outcome"] = outcome.run(k["quick"])
    if "scale" in want:
        log("== scale")
        raw["scale"] = scale.run(k["snapshots"], k["instances"])
    if "fleet" in want:
        log("== fleet")
        raw["fleet"] = fleet_snapshots.measure(1000, 1 if k["quick"] else 3)
    if "collect" in want:
        log("== collect")
        raw["collect"] = collect_speed.run(k["quick"])
    if "shaping" in want:
        log("== shaping")
        raw["shaping"] = shaping.run(k["quick"])
    seconds = time.monotonic() - t0
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip() or "unknown"
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_bytes(pickle.dumps({"raw": raw, "size": a.size, "seconds": seconds, "commit": commit}))
    write_doc(Path(a.out), a.size, render_sections(raw, a.size), seconds, commit, partial=bool(a.only))


def render_sections(raw: dict, size: str) -> dict[str, str]:
    k = SIZES[size]
    sections: dict[str, str] = {}
    if "latency" in raw:
        r = raw["latency"]
        imports = table(["module (imported at top level)", "cumulative import ms"],
                        [(n, f"{ms:.1f}") for n, ms in r["imports"]])
        m = r["medians"]
        sections["latency"] = (
            f"{k['latency_runs']} rounds, the three tools alternated (order rotated every round), against one "
            "throwaway mariadbd with 4 small tables; `advisor audit --no-calibrate --format json` from a "
            "non-editable install in a clean venv (bytecode compiled), `pt-variable-advisor h=…`, "
            "`mysqltuner --defaults-file … --forcemem`.\n\n" + r["table"] +
            f"\n\nThe advisor's median is {m['advisor'][0] * 1000:.0f} ms, "
            f"{m['advisor'][0] / m['pt-variable-advisor'][0]:.2f}× pt-variable-advisor's and "
            f"{m['mysqltuner'][0] / m['advisor'][0]:.1f}× faster than mysqltuner (whose exit status 255 is its "
            "crash, see the detection notes). Import profile of `advisor audit --demo` (`python -X importtime`):\n\n"
            + imports)
    if "detection" in raw:
        reused = raw["detection"].get("peers_from")
        note = (f"pt-variable-advisor's and mysqltuner's outputs were taken from an earlier run of the same scenarios "
                f"(`--peers-from {reused}`: same server options, the peers' outputs do not depend on the advisor); "
                "the peers ran live for the scenarios that run did not have.\n\n") if reused else ""
        sections["detection"] = note + detection.render(raw["detection"]) + "\n\n" + PEER_NOTES
    if "outcome" in raw:
        sections["outcome"] = outcome.render(raw["outcome"])
    if "scale" in raw:
        sections["scale"] = scale.render(raw["scale"])
    if "fleet" in raw:
        sections["fleet"] = fleet_snapshots.render(raw["fleet"])
    if "collect" in raw:
        sections["collect"] = collect_speed.render(raw["collect"])
    if "shaping" in raw:
        sections["shaping"] = shaping.render(raw["shaping"])
    return sections


def write_doc(path: Path, size: str, sections: dict[str, str], seconds: float, commit: str,
              partial: bool = False) -> None:
    """partial (--only): the sections rerun say when and at which commit; the document's own
    "Produced by" line stays the one of the last full run."""
    old = path.read_text() if path.exists() else ""
    produced = (f"Produced by `python3 -m bench.run --size {size}` on {dt.date.today().isoformat()} at commit "
                f"{commit}, in {seconds / 60:.1f} min.")
    header = [line for line in old.splitlines() if line.startswith("Produced by ")]
    if partial:
        only = " ".join(f"--only {k}" for k in SECTIONS if k in sections)
        stamp = (f"Rerun alone by `python3 -m bench.run --size {size} {only}` on {dt.date.today().isoformat()} at "
                 f"commit {commit}, in {seconds / 60:.1f} min.")
        sections = {k: stamp + "\n\n" + v for k, v in sections.items()}
        if header:
            produced = header[0]
    parts = [
        "<!-- generated by `python3 -m bench.run`; edit bench/run.py, not this file -->",
        "# Benchmarks",
        "",
        produced,
        "",
        f"Machine: {machine()}.",
        "",
        "Every figure below was measured side by side in that one run; the machine is a shared 2-core VM, "
        "so absolute numbers move between runs while the ratios hold. Raw outputs of every tool are kept "
        "in bench/out/ (not committed).",
        "",
    ]
    titles = {"latency": "Audit latency", "detection": "Detection matrix",
              "outcome": "Outcome: sysbench before and after the advisor's my.cnf", "scale": "Scale",
              "fleet": "Fleet offline: 1,000 snapshots",
              "collect": "Collection speed: host facts and light calibration", "shaping": "Shaping: the stream probe against tc"}
    for key in SECTIONS:
        if key in sections:
            parts += [f"## {titles[key]}", "", sections[key], ""]
        elif f"## {titles[key]}" in old:  # keep a section that was not rerun
            seg = old.split(f"## {titles[key]}", 1)[1]
            nxt = [seg.find(f"\n## {t}") for t in titles.values() if seg.find(f"\n## {t}") > 0]
            kept = (seg[: min(nxt)] if nxt else seg).rstrip().removesuffix("(section kept from an earlier run)")
            parts += [f"## {titles[key]}" + kept.rstrip(), "", "(section kept from an earlier run)", ""]
    path.write_text("\n".join(parts).rstrip() + "\n")
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
