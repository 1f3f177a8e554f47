"""Detection matrix: which pitfalls each tool reports, scenario by scenario.

Real throwaway mariadbd instances seeded with pitfalls, a shaped network link, recorded host trees
and recorded variable sets of other flavors. advisor, pt-variable-advisor and mysqltuner all run
against the same server of each scenario. A peer "reports" a pitfall when one of its warning or
note lines (pt-variable-advisor: `# WARN`/`# NOTE`; mysqltuner: `[!!]` lines and its
recommendations) names the pitfall's variable or subject; the advisor reports it when one of the
pitfall's rules fires. Recall counts seeded pitfalls found; false positives count pitfall reports
on a baseline server where none of them is present.

    python3 -m bench.detection
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from bench.common import OUT, ROOT, ensure_packages, installed_advisor, log, quick_main, table, timed
from tests.support.certs import make_certs
from tests.support.mariadb import MariaDB
from tests.support.netns import NetNS
from tests.support.wire_server import ReplayServer

HOSTS = ROOT / "tests" / "fixtures" / "hosts"


def mysqltuner_redo_direction(line: str, text: str) -> str:
    """MySQLTuner's only redo advice is the 25 %-of-the-buffer-pool rule: above that ratio it
    advises a smaller log ("innodb_log_file_size should be (=32M)"), which makes a small-redo
    pitfall worse; below it, a larger one."""
    m = re.search(r"Buffer pool size \(([\d.]+)%\)", text)
    if m and float(m.group(1)) > 25:
        return "wrong"
    return "yes"


@dataclass(frozen=True)
class Pitfall:
    id: str
    title: str
    rules: tuple[str, ...]           # advisor rule ids that report it
    peer_pattern: str                # what a peer's warning line must mention
    seed: bool = False               # one of the five seed pitfalls
    judge: Optional[Callable[[str, str], str]] = None  # (matching peer line, whole output) -> "yes" | "wrong"


PITFALLS = {p.id: p for p in [
    Pitfall("tls", "TLS on for client connections", ("tls-in-use", "tls-measured-cost"), r"\b(ssl|tls)\b", seed=True),
    Pitfall("sort", "sort_buffer_size 32M", ("sort-buffer-oversized", "sort-buffer-measured-slower"), r"sort_buffer", seed=True),
    Pitfall("redo", "redo log 48M", ("redo-log-undersized", "redo-log-small-for-bulk-load"),
            r"innodb_log_file_size|log file size|redo", seed=True, judge=mysqltuner_redo_direction),
    Pitfall("nic", "client route on 1 Gb/s, 10 Gb/s idle", ("network-route-slow-link",),
            r"network|bandwidth|\bnic\b|ethernet|interface|link speed", seed=True),
    Pitfall("nvme", "client-grade NVMe without PLP", ("nvme-client-no-plp", "redo-small-on-slow-flush-device"),
            r"nvme|power.loss|write.cache|\bplp\b|fsync", seed=True),
    Pitfall("bp", "buffer pool far below the data", ("buffer-pool-below-data-size",),
            r"innodb_buffer_pool_size|buffer pool / data"),
    Pitfall("maxconn", "max_connections reached by clients", ("max-connections-near-limit",),
            r"max_connections|connection usage|connections"),
    Pitfall("durability", "durability relaxed (flush_log_at_trx_commit=2)", ("durability-relaxed",),
            r"innodb_flush_log_at_trx_commit|sync_binlog|durab|acid"),
    Pitfall("link", "shaped 100 Mb/s path", ("network-path-bottleneck", "network-link-saturated"),
            r"network|bandwidth|\bnic\b|link"),
    Pitfall("qcache", "query cache on (MySQL 5.7)", ("query-cache-enabled",), r"query.cache"),
    Pitfall("tidb", "TiDB async commit / 1PC off (upgraded 5.1)", ("tidb-async-commit-off", "tidb-1pc-off"),
            r"async.commit|1pc|tidb_enable"),
]}


@dataclass
class Scenario:
    name: str
    pitfalls: tuple[str, ...]
    purpose: str = "benchmark"
    note: str = ""
    results: dict = field(default_factory=dict)
    exit_codes: dict = field(default_factory=dict)


def peer_lines(tool: str, out: str) -> list[str]:
    lines = []
    in_recs = False
    for line in out.splitlines():
        s = line.strip()
        if tool == "pt-variable-advisor":
            if s.startswith("# WARN") or s.startswith("# NOTE"):
                lines.append(s)
        else:
            if s.startswith("[!!]"):
                lines.append(s)
            if "General recommendations:" in s or "Variables to adjust:" in s:
                in_recs = True
                continue
            if in_recs and s:
                lines.append(s)
    return lines


def peer_reports(tool: str, out: str, pitfall: Pitfall) -> list[str]:
    rx = re.compile(pitfall.peer_pattern, re.IGNORECASE)
    return [line for line in peer_lines(tool, out) if rx.search(line)]


def peer_verdict(lines: list[str], pitfall: Pitfall, text: str) -> str:
    if not lines:
        return "no"
    verdicts = {pitfall.judge(line, text) if pitfall.judge else "yes" for line in lines}
    return "yes" if "yes" in verdicts else "wrong"


def run_peers(port: int, host: str = "127.0.0.1") -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        cnf = Path(tmp) / "c.cnf"
        cnf.write_text(f"[client]\nuser=root\npassword=\nhost={host}\nport={port}\n")
        pt = timed(["pt-variable-advisor", f"h={host},P={port},u=root"], timeout=120)
        mt = timed(["mysqltuner", "--defaults-file", str(cnf), "--host", host, "--port", str(port), "--nocolor",
                    "--forcemem", "24000"], timeout=300)
    return {"pt-variable-advisor": (pt.stdout + pt.stderr, pt.returncode),
            "mysqltuner": (mt.stdout + mt.stderr, mt.returncode)}


def advisor_report(args: list[str]) -> dict:
    t = timed([installed_advisor(), "audit", *args, "--format", "json"], timeout=300)
    if t.returncode not in (0, 1):
        raise RuntimeError(f"advisor audit failed ({t.returncode}): {t.stderr}")
    return json.loads(t.stdout)


def fired(report: dict) -> set[str]:
    return {f["rule"] for f in report["findings"]}


def conn(port: int, host: str = "127.0.0.1") -> list[str]:
    return ["--host", host, "--port", str(port), "--user", "root", "--no-defaults"]


def evaluate(sc: Scenario, report: dict, peers: dict[str, tuple[str, int]]) -> None:
    out = OUT / "detection"
    out.mkdir(parents=True, exist_ok=True)
    for tool, (text, _) in peers.items():
        (out / f"{sc.name}.{tool}.txt").write_text(text)
    (out / f"{sc.name}.advisor.json").write_text(json.dumps(report, indent=1))
    rules = fired(report)
    sc.exit_codes = {tool: rc for tool, (_, rc) in peers.items()}
    for pid in list(PITFALLS):
        p = PITFALLS[pid]
        hits = sorted(rules & set(p.rules))
        row = {"advisor": ("yes" if hits else "no", hits)}
        for tool, (text, _) in peers.items():
            lines = peer_reports(tool, text, p)
            row[tool] = (peer_verdict(lines, p, text), lines)
        sc.results[pid] = row


# ---------------------------------------------------------------- scenarios

# MariaDB 10.11 autosizes innodb_buffer_pool_chunk_size (0), and MySQLTuner 1.9.9 divides by it
# ("Illegal division by zero at /usr/bin/mysqltuner line 6024") before it prints any InnoDB
# finding or recommendation. Every server here sets the chunk size so that MySQLTuner can finish.
COMMON = {"innodb-buffer-pool-chunk-size": "16M"}

def some_writes(db: MariaDB) -> None:
    """A little write traffic, as any used server has: MySQLTuner 1.9.9 also divides by
    Innodb_log_writes (line 6099), which is 0 on a server that never wrote."""
    db.query("CREATE DATABASE IF NOT EXISTS bench_warm")
    db.query("CREATE TABLE IF NOT EXISTS bench_warm.t (id INT PRIMARY KEY, v CHAR(100)) ENGINE=InnoDB")
    db.query("REPLACE INTO bench_warm.t SELECT seq, REPEAT('v', 100) FROM bench_warm.seq_1_to_2000", autocommit=True)


def s_mariadb(name: str, pitfalls: tuple[str, ...], options: dict, purpose: str = "benchmark",
              prepare: Optional[Callable[[MariaDB], None]] = None, tls: bool = False, note: str = "") -> Scenario:
    sc = Scenario(name, pitfalls, purpose, note)
    with tempfile.TemporaryDirectory() as tmp:
        certs = make_certs(Path(tmp)) if tls else None
        with MariaDB(options={**COMMON, **options}, tls=certs) as db:
            some_writes(db)
            if prepare:
                prepare(db)
            report = advisor_report([*conn(db.port), "--purpose", purpose, "--no-calibrate"])
            evaluate(sc, report, run_peers(db.port))
    return sc


def load_data(db: MariaDB, mib: int = 200) -> None:
    db.query("CREATE DATABASE app")
    db.query("CREATE TABLE app.t (id INT PRIMARY KEY, c CHAR(200), pad CHAR(50)) ENGINE=InnoDB")
    rows = mib * (1 << 20) // 300
    db.query(f"INSERT INTO app.t SELECT seq, REPEAT('c', 200), REPEAT('p', 50) FROM app.seq_1_to_{rows}",
             autocommit=True)
    db.query("ANALYZE TABLE app.t")


def fill_connections(db: MariaDB) -> None:
    conns = []
    try:
        while True:
            conns.append(db.connect())
    except Exception:
        pass
    finally:
        for c in conns:
            c.close()


def s_tree(name: str, pitfall: str, tree: str, address: str, note: str) -> Scenario:
    """A default server, audited with a recorded host/client tree (the peers cannot read trees)."""
    from advisor import api
    from advisor.collect.connection import ConnectionOptions

    sc = Scenario(name, (pitfall,), "benchmark", note)
    with MariaDB(options=COMMON) as db:
        some_writes(db)
        snap = api.collect(ConnectionOptions(host="127.0.0.1", port=db.port, user="root", no_defaults=True),
                           machine=False)
        api.collect_machine(snap, address, "tcp", sysroot=str(HOSTS / tree))
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            fh.write(snap.to_json())
        report = advisor_report(["--snapshot", fh.name, "--purpose", "benchmark"])
        Path(fh.name).unlink()
        evaluate(sc, report, run_peers(db.port))
    return sc


# pt-variable-advisor asks SHOW ENGINES before anything else; the recorded sets carry no engine
# list, so the replayed servers answer it with the engines every such server has (constructed
# here, not recorded).
SHOW_ENGINES = {"match": r"^SHOW ENGINES$", "columns": ["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"],
                "rows": [["InnoDB", "DEFAULT", "Supports transactions, row-level locking, and foreign keys", "YES", "YES", "YES"],
                         ["MyISAM", "YES", "MyISAM storage engine", "NO", "NO", "NO"],
                         ["MEMORY", "YES", "Hash based, stored in memory", "NO", "NO", "NO"]]}


def s_replay(name: str, pitfall: str, set_name: str, overrides: dict, purpose: str, note: str) -> Scenario:
    from tests.support.wire_server import load_set

    sc = Scenario(name, (pitfall,), purpose, note)
    data = load_set(set_name)
    data["variables"].update({k: str(v) for k, v in overrides.items()})
    data["queries"] = [SHOW_ENGINES] + list(data.get("queries", []))
    with ReplayServer(data) as srv:
        report = advisor_report([*conn(srv.port), "--purpose", purpose, "--no-calibrate"])
        evaluate(sc, report, run_peers(srv.port))
    return sc


def s_shaped() -> Scenario:
    sc = Scenario("shaped-link", ("link",), "benchmark", "server in a network namespace behind a 100 Mbit/s tbf shaper")
    with NetNS(rate="100mbit") as ns, MariaDB(options=COMMON, netns=ns) as db:
        some_writes(db)
        report = advisor_report([*conn(db.port, ns.ns_addr), "--purpose", "benchmark", "--calibrate-seconds", "6"])
        evaluate(sc, report, run_peers(db.port, ns.ns_addr))
    return sc


def scenarios(quick: bool) -> list[Callable[[], Scenario]]:
    out = [
        lambda: s_mariadb("baseline", (), {"innodb-buffer-pool-size": "1G", "innodb-log-file-size": "2G",
                                            "max-connections": "500"}, purpose="benchmark",
                          note="tuned for this machine; no seeded pitfall (false-positive check)"),
        lambda: s_mariadb("tls-on", ("tls",), {}, tls=True, note="server certificates; clients negotiate TLS"),
        lambda: s_mariadb("sort-32m", ("sort",), {"sort-buffer-size": "32M"}),
        lambda: s_mariadb("redo-48m", ("redo",), {"innodb-log-file-size": "48M"}),
        lambda: s_mariadb("bp-tiny", ("bp",), {"innodb-buffer-pool-size": "32M"}, prepare=lambda db: load_data(db, 120 if quick else 300),
                          note="32M buffer pool, 120-300 MB of InnoDB data"),
        lambda: s_mariadb("maxconn-20", ("maxconn",), {"max-connections": "20"}, prepare=fill_connections,
                          note="max_connections 20, all taken once by clients"),
        lambda: s_mariadb("durability-relaxed", ("durability",), {"innodb-flush-log-at-trx-commit": "2"},
                          purpose="production", note="innodb_flush_log_at_trx_commit=2 (judged for production)"),
        lambda: s_tree("seed-000-route", "nic", "seed-000-client", "10.186.60.104",
                       "recorded client tree: em3 1 Gb/s route, vlan2 10 Gb/s idle"),
        lambda: s_tree("seed-003-pm981", "nvme", "seed-003-pm981", "127.0.0.1",
                       "recorded server tree: datadir on a Samsung PM981 (MZVLB1T0HBLR)"),
        lambda: s_replay("mysql57-query-cache", "qcache", "mysql-5.7",
                         {"query_cache_type": "ON", "query_cache_size": "67108864"}, "production",
                         "recorded MySQL 5.7 set replayed over the wire, query cache on"),
        lambda: s_replay("tidb51-upgraded", "tidb", "tidb-5.1", {}, "benchmark",
                         "recorded TiDB 5.1 set (cluster upgraded from 4.0) replayed over the wire"),
        s_shaped,
    ]
    return out


def run(quick: bool = False) -> dict:
    ensure_packages({"pt-variable-advisor": "percona-toolkit", "mysqltuner": "mysqltuner"})
    installed_advisor()
    done = []
    for make in scenarios(quick):
        sc = make()
        log(f"detection: {sc.name}: " + ", ".join(f"{p}={sc.results[p]['advisor']}" for p in sc.pitfalls))
        done.append(sc)
    return {"scenarios": done}


TOOLS = ("advisor", "pt-variable-advisor", "mysqltuner")


def summarise(scs: list[Scenario]) -> dict:
    rows, fps, misses = [], {t: [] for t in TOOLS}, []
    recall = {t: {"all": [0, 0], "seed": [0, 0]} for t in TOOLS}
    for sc in scs:
        for pid in sc.pitfalls:
            cells = []
            for t in TOOLS:
                verdict, what = sc.results[pid][t]
                hit = verdict == "yes"
                for k in ("all", "seed") if PITFALLS[pid].seed else ("all",):
                    recall[t][k][0] += hit
                    recall[t][k][1] += 1
                crashed = t != "advisor" and sc.exit_codes.get(t, 0) != 0
                cells.append(verdict + (f" (exit {sc.exit_codes[t]})" if crashed else ""))
                if not hit:
                    misses.append((t, sc.name, pid, verdict, what))
            rows.append((sc.name, PITFALLS[pid].title, *cells))
        if not sc.pitfalls:  # the baseline: any pitfall reported there is a false positive
            for pid, row in sc.results.items():
                for t in TOOLS:
                    verdict, what = row[t]
                    if verdict != "no":
                        fps[t].append((pid, what))
    return {"rows": rows, "recall": recall, "fps": fps, "misses": misses}


def render(r: dict) -> str:
    s = summarise(r["scenarios"])
    out = ["Scenarios:", ""]
    out += [f"- `{sc.name}`: {sc.note or ', '.join(PITFALLS[p].title for p in sc.pitfalls)} (purpose {sc.purpose})"
            for sc in r["scenarios"]]
    out += ["", table(["scenario", "pitfall", *TOOLS], s["rows"]), ""]
    out.append(table(["tool", "recall (all pitfalls)", "recall (seed pitfalls)", "false positives on the baseline"],
                     [(t, "{}/{}".format(*s["recall"][t]["all"]), "{}/{}".format(*s["recall"][t]["seed"]),
                       len(s["fps"][t])) for t in TOOLS]))
    out += ["", "`wrong`: the tool reported the subject but its advice makes the pitfall worse. "
            "`(exit N)`: the tool exited with status N in that scenario.", ""]
    out.append("False positives on the baseline:")
    out.append("")
    for t in TOOLS:
        for pid, what in s["fps"][t]:
            shown = what[0] if isinstance(what, list) and what else str(what)
            out.append(f"- {t}, {PITFALLS[pid].title}: `{shown}`")
    if not any(s["fps"].values()):
        out.append("- none")
    out += ["", "What each miss was (the tool's matching lines, if any):", ""]
    for t, scn, pid, verdict, what in s["misses"]:
        shown = f"`{what[0]}`" + (f" (and {len(what) - 1} more lines)" if len(what) > 1 else "") if what else "no line mentions it"
        out.append(f"- {t} in `{scn}` ({PITFALLS[pid].title}): {verdict}: {shown}")
    return "\n".join(out)


def main() -> None:
    quick_main(run, render)


if __name__ == "__main__":
    main()
