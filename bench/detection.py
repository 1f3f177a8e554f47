"""Detection matrix: which pitfalls each tool reports, scenario by scenario.

Real throwaway mariadbd instances seeded with pitfalls, a shaped network link, recorded host trees
and recorded variable sets of other flavors. advisor, pt-variable-advisor and mysqltuner all run
against the same server of each scenario. A peer "reports" a pitfall when one of its warning or
note lines (pt-variable-advisor: `# WARN`/`# NOTE`; mysqltuner: `[!!]` lines and its
recommendations) names the pitfall's variable or subject; the advisor reports it when one of the
pitfall's rules fires at the severity a DBA expects for it (Pitfall.severity; "info" means any
finding counts). Recall counts seeded pitfalls found; false positives count pitfall reports on a
baseline server where none of them is present, and the clean configurations (a careful production
and a careful benchmark server for this 2-core, 24 GB host) list every warning each tool prints.

The canon scenarios (issue 15) are data: CANON below, one row per pitfall with the server options
that seed it, the rule expected and the severity a DBA expects.

    python3 -m bench.detection                  # all scenarios, three tools
    python3 -m bench.detection --advisor-only   # the advisor alone (the peers take ~25 s a server)
    python3 -m bench.detection --only canon-    # scenarios whose name starts with canon-
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from bench.common import OUT, ROOT, ensure_packages, installed_advisor, log, table, timed
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
    severity: str = "info"           # the least severity a DBA expects for it ("info": any finding counts)


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
    clean: bool = False              # a clean configuration: every warning is listed
    loud: dict = field(default_factory=dict)  # tool -> its warnings (clean configurations only)


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


def run_peers(port: int, host: str = "127.0.0.1", socket: str = "") -> dict[str, tuple[str, int]]:
    with tempfile.TemporaryDirectory() as tmp:
        cnf = Path(tmp) / "c.cnf"
        if socket:  # a clean configuration: root authenticates through unix_socket only
            cnf.write_text(f"[client]\nuser=root\nsocket={socket}\n")
            pt = timed(["pt-variable-advisor", f"S={socket},u=root"], timeout=120)
            where = ["--socket", socket]
        else:
            cnf.write_text(f"[client]\nuser=root\npassword=\nhost={host}\nport={port}\n")
            pt = timed(["pt-variable-advisor", f"h={host},P={port},u=root"], timeout=120)
            where = ["--host", host, "--port", str(port)]
        mt = timed(["mysqltuner", "--defaults-file", str(cnf), *where, "--nocolor", "--forcemem", "24000"], timeout=300)
    return {"pt-variable-advisor": (pt.stdout + pt.stderr, pt.returncode),
            "mysqltuner": (mt.stdout + mt.stderr, mt.returncode)}


# run() sets these: "on" False for --advisor-only; "from" a directory of an earlier run's peer
# outputs (--peers-from) to take instead of running the peers again on the same scenario.
WITH_PEERS: dict = {"on": True, "from": None}


def maybe_peers(name: str, port: int, host: str = "127.0.0.1", socket: str = "") -> dict:
    if not WITH_PEERS["on"]:
        return {}
    src = Path(WITH_PEERS["from"]) if WITH_PEERS["from"] else None
    if src is not None and (src / f"{name}.peers.json").exists():  # a scenario new since that run: run them
        codes = json.loads((src / f"{name}.peers.json").read_text())
        return {t: ((src / f"{name}.{t}.txt").read_text(), rc) for t, rc in codes.items()}
    return run_peers(port, host, socket)


def advisor_report(args: list[str]) -> dict:
    t = timed([installed_advisor(), "audit", *args, "--format", "json"], timeout=300)
    if t.returncode not in (0, 1):
        raise RuntimeError(f"advisor audit failed ({t.returncode}): {t.stderr}")
    return json.loads(t.stdout)


def fired(report: dict) -> set[str]:
    return {f["rule"] for f in report["findings"]}


RANK = {"info": 1, "warning": 2, "critical": 3}


def advisor_verdict(report: dict, pitfall: Pitfall) -> tuple[str, list[str]]:
    """("yes", hits) when one of the pitfall's rules fired at the expected severity or above; ("low",
    hits) when it fired below it; ("no", [])."""
    sev = {f["rule"]: f["severity"] for f in report["findings"]}
    hits = sorted(r for r in pitfall.rules if r in sev)
    if not hits:
        return "no", []
    shown = [f"{r} ({sev[r]})" for r in hits]
    best = max(RANK[sev[r]] for r in hits)
    return ("yes" if best >= RANK[pitfall.severity] else "low"), shown


def conn(port: int, host: str = "127.0.0.1", socket: str = "") -> list[str]:
    if socket:
        return ["--socket", socket, "--user", "root", "--no-defaults"]
    return ["--host", host, "--port", str(port), "--user", "root", "--no-defaults"]


# The template datadir's accounts (tests/support/mariadb.py) are a test fixture, not a careful
# server: root@'%' and root@127.0.0.1 without a password, pwuser@'%' with ALL. A clean
# configuration keeps root@localhost through unix_socket (MariaDB's own default since 10.4; the
# bench runs as the OS user root) and drops the rest, and every tool connects over the socket.
HARDEN_ACCOUNTS = (
    "ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket",
    "DROP USER IF EXISTS 'root'@'%', 'root'@'127.0.0.1', 'root'@'::1', 'pwuser'@'%', 'advisor_ro'@'%'",
)


def evaluate(sc: Scenario, report: dict, peers: dict[str, tuple[str, int]]) -> None:
    out = OUT / "detection"
    out.mkdir(parents=True, exist_ok=True)
    for tool, (text, _) in peers.items():
        (out / f"{sc.name}.{tool}.txt").write_text(text)
    if peers:
        (out / f"{sc.name}.peers.json").write_text(json.dumps({t: rc for t, (_, rc) in peers.items()}))
    (out / f"{sc.name}.advisor.json").write_text(json.dumps(report, indent=1))
    sc.exit_codes = {tool: rc for tool, (_, rc) in peers.items()}
    for pid in list(PITFALLS):
        p = PITFALLS[pid]
        row = {"advisor": advisor_verdict(report, p)}
        for tool, (text, _) in peers.items():
            lines = peer_reports(tool, text, p)
            row[tool] = (peer_verdict(lines, p, text), lines)
        sc.results[pid] = row
    if sc.clean:  # every warning or worse, whatever rule or line it comes from
        sc.loud = {"advisor": [f"{f['rule']} ({f['severity']}): {f['message']}" for f in report["findings"]
                               if RANK[f["severity"]] >= RANK["warning"]]}
        for tool, (text, _) in peers.items():
            sc.loud[tool] = [line for line in peer_lines(tool, text)
                             if line.startswith("# WARN") or line.startswith("[!!]") or tool == "mysqltuner"]


# ---------------------------------------------------------------- scenarios

# MariaDB 10.11 autosizes innodb_buffer_pool_chunk_size (0), and MySQLTuner 1.9.9 divides by it
# ("Illegal division by zero at /usr/bin/mysqltuner line 6024") before it prints any InnoDB
# finding or recommendation. Every server here sets the chunk size so that MySQLTuner can finish.
COMMON = {"innodb-buffer-pool-chunk-size": "16M"}

def some_writes(db: MariaDB) -> None:
    """A little write traffic, as any used server has: MySQLTuner 1.9.9 also divides by
    Innodb_log_writes (line 6099), which is 0 on a server that never wrote."""
    import pymysql

    db.query("CREATE DATABASE IF NOT EXISTS bench_warm")
    db.query("CREATE TABLE IF NOT EXISTS bench_warm.t (id INT PRIMARY KEY, v CHAR(100)) ENGINE=InnoDB")
    try:
        db.query("REPLACE INTO bench_warm.t SELECT seq, REPEAT('v', 100) FROM bench_warm.seq_1_to_2000", autocommit=True)
    except pymysql.err.MySQLError as e:  # a seeded pitfall can make writes fail (rc-statement-binlog: 1665)
        log(f"detection: warm-up write refused by the seeded configuration: {e}")


def s_mariadb(name: str, pitfalls: tuple[str, ...], options: dict, purpose: str = "benchmark",
              prepare: Optional[Callable[[MariaDB], None]] = None, tls: bool = False, note: str = "",
              server: Optional[dict] = None, clean: bool = False, harden: bool = False) -> Scenario:
    sc = Scenario(name, pitfalls, purpose, note, clean=clean)
    with tempfile.TemporaryDirectory() as tmp:
        certs = make_certs(Path(tmp)) if tls else None
        files = Path(tmp) / "files"  # an option value "{files}" names a directory made for this server
        files.mkdir()
        options = {k: str(v).replace("{files}", str(files)) for k, v in options.items()}
        with MariaDB(options={**COMMON, **options}, tls=certs, **(server or {})) as db:
            some_writes(db)
            socket = ""
            if clean or harden:  # accounts as a careful DBA leaves them; then only the seeded pitfall
                sql(*HARDEN_ACCOUNTS)(db)
                socket = db.socket
                db.hardened = True  # type: ignore[attr-defined]  # sql() connects over the socket from now on
            if prepare:
                prepare(db)
            report = advisor_report([*conn(db.port, socket=socket), "--purpose", purpose, "--no-calibrate"])
            evaluate(sc, report, maybe_peers(sc.name, db.port, socket=socket))
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
        evaluate(sc, report, maybe_peers(sc.name, db.port))
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
        evaluate(sc, report, maybe_peers(sc.name, srv.port))
    return sc


def s_shaped() -> Scenario:
    sc = Scenario("shaped-link", ("link",), "benchmark", "server in a network namespace behind a 100 Mbit/s tbf shaper")
    with NetNS(rate="100mbit") as ns, MariaDB(options=COMMON, netns=ns) as db:
        some_writes(db)
        report = advisor_report([*conn(db.port, ns.ns_addr), "--purpose", "benchmark", "--calibrate-seconds", "6"])
        evaluate(sc, report, maybe_peers(sc.name, db.port, ns.ns_addr))
    return sc


# ---------------------------------------------------------------- the canon scenarios (issue 15)

def sql(*statements: str) -> Callable[[MariaDB], None]:
    """A prepare step that runs statements on one root connection (autocommit)."""
    def run_them(db: MariaDB) -> None:
        via = {"unix_socket": db.socket} if getattr(db, "hardened", False) else {}
        c = db.connect(autocommit=True, **via)
        try:
            with c.cursor() as cur:
                for st in statements:
                    cur.execute(st)
        finally:
            c.close()
    return run_them


def repeat(setup: tuple[str, ...], statement: str, times: int) -> Callable[[MariaDB], None]:
    """Run setup once, then one statement many times on one connection, so a counter's average rate
    since start-up (the audit runs seconds after it) is well above the rule's threshold."""
    def run_it(db: MariaDB) -> None:
        c = db.connect(autocommit=True)
        try:
            with c.cursor() as cur:
                for st in setup:
                    cur.execute(st)
                for _ in range(times):
                    cur.execute(statement)
                    cur.fetchall()
        finally:
            c.close()
    return run_it


def binlog_cache_traffic(db: MariaDB, small: int, large: int) -> None:
    """`small` one-row transactions and `large` three-statement ones of ~18 KB: on MariaDB 10.11 a
    multi-statement transaction larger than binlog_cache_size spills to a temporary file (counted in
    Binlog_cache_disk_use), while a single large statement here did not."""
    c = db.connect(autocommit=True)
    try:
        with c.cursor() as cur:
            cur.execute("CREATE DATABASE canon")
            cur.execute("CREATE TABLE canon.b (id INT AUTO_INCREMENT PRIMARY KEY, c TEXT)")
            for _ in range(small):
                cur.execute("INSERT INTO canon.b (c) VALUES ('x')")
            row = "INSERT INTO canon.b (c) VALUES ('" + "x" * 6000 + "')"
            for _ in range(large):
                cur.execute("BEGIN")
                for _ in range(3):
                    cur.execute(row)
                cur.execute("COMMIT")
    finally:
        c.close()


MYISAM = ("CREATE DATABASE IF NOT EXISTS legacy",
          "CREATE TABLE legacy.t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM",
          "INSERT INTO legacy.t VALUES (1, 'a'), (2, 'b')")
SEQ_TABLE = ("CREATE DATABASE IF NOT EXISTS canon",
             "CREATE TABLE canon.t (id INT PRIMARY KEY, v INT, c CHAR(200)) ENGINE=InnoDB",
             "INSERT INTO canon.t SELECT seq, seq % 2000, REPEAT('c', 200) FROM canon.seq_1_to_20000")
BIN = {"log-bin": "mysql-bin", "server-id": "1"}


@dataclass(frozen=True)
class Canon:
    """One live MariaDB scenario seeded with one pitfall: the options that seed it, what a DBA
    expects (rules, least severity), and what the peers' lines must mention to count."""

    name: str
    title: str
    rules: tuple[str, ...]
    severity: str
    options: dict
    purpose: str = "production"
    peer_pattern: str = ""
    prepare: Optional[Callable[[MariaDB], None]] = None
    server: Optional[dict] = None
    tls: bool = False
    harden: bool = False             # accounts hardened first (HARDEN_ACCOUNTS), tools connect over the socket


CANON = [
    # logging and instrumentation
    Canon("general-log", "general query log on", ("general-log-enabled",), "warning", {}, server={"general_log": True},
          peer_pattern=r"general.log"),
    Canon("log-output-table", "slow log written to a table", ("log-output-table",), "warning",
          {"log-output": "TABLE", "slow-query-log": "ON"}, peer_pattern=r"log_output|log output"),
    Canon("slow-log-zero", "slow log with long_query_time 0", ("slow-log-captures-everything",), "warning",
          {"slow-query-log": "ON", "long-query-time": "0"}, purpose="benchmark", peer_pattern=r"long_query_time|slow"),
    Canon("unindexed-logged", "every unindexed query logged", ("unindexed-queries-logged-unthrottled",), "warning",
          {"slow-query-log": "ON", "log-queries-not-using-indexes": "ON"}, purpose="benchmark",
          peer_pattern=r"log_queries_not_using_indexes"),
    Canon("innodb-monitor", "InnoDB monitor output every 15 s", ("innodb-monitor-output-periodic",), "info",
          {"innodb-status-output": "ON"}, peer_pattern=r"innodb_status_output"),
    Canon("log-warnings-0", "error log without warnings", ("error-log-warnings-suppressed",), "info",
          {"log-warnings": "0"}, peer_pattern=r"log_warnings"),
    Canon("userstat", "user statistics on during a benchmark", ("risky-userstat-on",), "info",
          {"userstat": "ON"}, purpose="benchmark", peer_pattern=r"userstat"),
    # transactions
    Canon("serializable", "SERIALIZABLE as the default isolation", ("isolation-level-unusual",), "warning",
          {"transaction-isolation": "SERIALIZABLE"}, peer_pattern=r"isolation"),
    Canon("rc-statement-binlog", "READ-COMMITTED with statement binlog", ("read-committed-with-statement-binlog",),
          "critical", {**BIN, "binlog-format": "STATEMENT", "transaction-isolation": "READ-COMMITTED"},
          peer_pattern=r"isolation|binlog_format"),
    Canon("autocommit-off", "autocommit off for every session", ("autocommit-off-globally",), "warning",
          {"autocommit": "0"}, peer_pattern=r"autocommit"),
    Canon("lock-wait-1h", "innodb_lock_wait_timeout one hour", ("lock-wait-timeout-long",), "info",
          {"innodb-lock-wait-timeout": "3600"}, peer_pattern=r"innodb_lock_wait_timeout"),
    Canon("deadlock-detect-off", "deadlock detection off", ("deadlock-detection-off",), "warning",
          {"innodb-deadlock-detect": "OFF"}, peer_pattern=r"deadlock"),
    Canon("autoinc-statement", "interleaved auto-increment with statement binlog",
          ("autoinc-interleaved-with-statement-binlog",), "warning",
          {**BIN, "binlog-format": "STATEMENT", "innodb-autoinc-lock-mode": "2"}, peer_pattern=r"autoinc|binlog_format"),
    # binary log and replication
    Canon("binlog-statement", "statement-based binary log", ("binlog-format-statement",), "warning",
          {**BIN, "binlog-format": "STATEMENT"}, peer_pattern=r"binlog_format|statement"),
    Canon("binlog-row-minimal", "binlog_row_image MINIMAL", ("binlog-row-image-not-full",), "info",
          {**BIN, "binlog-format": "ROW", "binlog-row-image": "MINIMAL"}, peer_pattern=r"binlog_row_image"),
    Canon("binlog-checksum-none", "binlog events without checksums", ("binlog-checksum-off",), "warning",
          {**BIN, "binlog-checksum": "NONE"}, peer_pattern=r"binlog_checksum|checksum"),
    Canon("binlog-never-purged", "binary logs never expire", ("binlog-never-purged",), "warning", {**BIN},
          peer_pattern=r"expire_logs|binlog_expire|purg"),
    Canon("binlog-retention-1d", "binary logs kept one day", ("binlog-retention-short",), "info",
          {**BIN, "binlog-expire-logs-seconds": "86400"}, peer_pattern=r"expire_logs|binlog_expire"),
    Canon("binlog-cache-spill", "transactions spill out of a 4 KiB binlog cache", ("binlog-cache-spills-to-disk",),
          "info", {**BIN, "binlog-cache-size": "4096"}, peer_pattern=r"binlog.cache",
          prepare=lambda db: binlog_cache_traffic(db, small=1000, large=200)),
    Canon("skip-errors", "replica skips duplicate-key errors", ("replica-skips-errors",), "critical",
          {"slave-skip-errors": "1062"}, peer_pattern=r"skip.errors"),
    Canon("idempotent", "replica in IDEMPOTENT mode", ("replica-exec-mode-idempotent",), "warning",
          {"slave-exec-mode": "IDEMPOTENT"}, peer_pattern=r"exec_mode|idempotent"),
    Canon("relay-purge-off", "relay logs never purged", ("risky-relay-log-purge-off",), "info",
          {"relay-log-purge": "OFF"}, peer_pattern=r"relay_log_purge"),
    Canon("replica-checksum-off", "replica does not verify event checksums", ("replica-checksum-verification-off",),
          "info", {"slave-sql-verify-checksum": "OFF"}, peer_pattern=r"verify_checksum"),
    Canon("net-timeout-1h", "replica waits an hour for a dead source", ("replica-net-timeout-long",), "info",
          {"slave-net-timeout": "3600"}, peer_pattern=r"net_timeout"),
    # safety and recovery
    Canon("force-recovery", "InnoDB forced recovery mode", ("risky-innodb-force-recovery-recovery-mode",), "critical",
          {"innodb-force-recovery": "1"}, peer_pattern=r"force_recovery|forced recovery"),
    Canon("trx-commit-0", "innodb_flush_log_at_trx_commit 0", ("durability-relaxed", "flush-log-at-commit-zero"),
          "warning", {"innodb-flush-log-at-trx-commit": "0"}, peer_pattern=r"innodb_flush_log_at_trx_commit|acid"),
    Canon("flush-timeout-10", "relaxed commits flushed every 10 s", ("flush-log-timeout-long",), "warning",
          {"innodb-flush-log-at-trx-commit": "2", "innodb-flush-log-at-timeout": "10"},
          peer_pattern=r"flush_log_at_timeout"),
    Canon("fast-shutdown-2", "innodb_fast_shutdown 2", ("fast-shutdown-skips-flush",), "warning",
          {"innodb-fast-shutdown": "2"}, peer_pattern=r"fast_shutdown"),
    Canon("ibdata-max", "system tablespace capped at 512M", ("system-tablespace-size-capped",), "warning",
          {"innodb-data-file-path": "ibdata1:12M:autoextend:max:512M"}, peer_pattern=r"innodb_data_file_path"),
    Canon("file-per-table-off", "innodb_file_per_table off", ("file-per-table-off",), "warning",
          {"innodb-file-per-table": "OFF"}, peer_pattern=r"file_per_table|file per table"),
    Canon("native-aio-off", "native asynchronous I/O off", ("risky-innodb-use-native-aio-off",), "warning",
          {"innodb-use-native-aio": "OFF"}, purpose="benchmark", peer_pattern=r"native_aio"),
    Canon("warmup-off", "buffer pool not reloaded at start-up", ("buffer-pool-warmup-disabled",), "info",
          {"innodb-buffer-pool-load-at-startup": "OFF"}, peer_pattern=r"load_at_startup|dump_at_shutdown"),
    Canon("risky-innodb-adaptive-flushing-off", "adaptive flushing off", ("risky-innodb-adaptive-flushing-off",), "warning",
          {"innodb-adaptive-flushing": "OFF"}, purpose="benchmark", peer_pattern=r"adaptive_flushing"),
    Canon("dirty-pct-10", "innodb_max_dirty_pages_pct 10", ("max-dirty-pages-low",), "info",
          {"innodb-max-dirty-pages-pct": "10"}, purpose="benchmark", peer_pattern=r"max_dirty_pages"),
    Canon("change-buffering-all", "change buffering all on MariaDB 10.11", ("change-buffering-enabled",), "warning",
          {"innodb-change-buffering": "all"}, purpose="benchmark", peer_pattern=r"change_buffering"),
    # optimizer
    Canon("stats-on-metadata", "statistics re-sampled on metadata reads", ("stats-on-metadata-enabled",), "warning",
          {"innodb-stats-on-metadata": "ON"}, peer_pattern=r"stats_on_metadata"),
    Canon("stats-persistent-off", "statistics not persistent", ("stats-not-persistent",), "info",
          {"innodb-stats-persistent": "OFF"}, peer_pattern=r"stats_persistent"),
    Canon("prune-level-0", "exhaustive join-order search", ("risky-optimizer-prune-level-exhaustive",), "warning",
          {"optimizer-prune-level": "0"}, peer_pattern=r"optimizer_prune_level|exhaustive"),
    Canon("full-joins", "frequent joins without indexes", ("full-joins-frequent",), "info", {},
          peer_pattern=r"join.*index|joins performed",
          prepare=repeat(("CREATE DATABASE canon", "CREATE TABLE canon.a (v INT) ENGINE=InnoDB",
                          "CREATE TABLE canon.b (v INT) ENGINE=InnoDB",
                          "INSERT INTO canon.a SELECT seq FROM canon.seq_1_to_200", "INSERT INTO canon.b SELECT seq FROM canon.seq_1_to_200"),
                         "SELECT COUNT(*) FROM canon.a JOIN canon.b ON a.v = b.v", 300)),
    # MyISAM and engines
    Canon("key-buffer-1g", "1 GiB key buffer without MyISAM tables", ("key-buffer-without-myisam",), "warning",
          {"key-buffer-size": "1G"}, peer_pattern=r"key_buffer|key buffer"),
    Canon("myisam-tables", "user tables in MyISAM", ("myisam-tables-present",), "warning", {},
          prepare=sql(*MYISAM), peer_pattern=r"myisam"),
    Canon("myisam-recover-off", "MyISAM tables without automatic repair", ("myisam-recovery-off",), "warning",
          {"myisam-recover-options": "OFF"}, prepare=sql(*MYISAM), peer_pattern=r"myisam_recover"),
    Canon("delay-key-write-all", "delay_key_write ALL", ("delay-key-write-all",), "warning",
          {"delay-key-write": "ALL"}, prepare=sql(*MYISAM), peer_pattern=r"delay_key_write"),
    Canon("flush-on", "tables synced after every statement", ("risky-flush-on",), "warning",
          {"flush": "ON"}, purpose="benchmark", peer_pattern=r"\bflush\b"),
    Canon("flush-time-60", "all tables closed every 60 s", ("risky-flush-time-periodic",), "warning", {"flush-time": "60"},
          purpose="benchmark", peer_pattern=r"flush_time"),
    Canon("default-engine-myisam", "MyISAM as the default engine", ("default-engine-not-innodb",), "warning",
          {"default-storage-engine": "MyISAM"}, peer_pattern=r"storage.engine|default engine"),
    Canon("low-priority", "low_priority_updates on", ("low-priority-updates-on",), "info",
          {"low-priority-updates": "ON"}, peer_pattern=r"low_priority"),
    # per-session buffers
    Canon("read-buffer-16m", "read_buffer_size 16M", ("read-buffer-oversized",), "warning",
          {"read-buffer-size": "16M"}, purpose="benchmark", peer_pattern=r"read_buffer_size"),
    Canon("read-rnd-32m", "read_rnd_buffer_size 32M", ("read-rnd-buffer-oversized",), "warning",
          {"read-rnd-buffer-size": "32M"}, purpose="benchmark", peer_pattern=r"read_rnd_buffer"),
    Canon("binlog-cache-64m", "binlog_cache_size 64M", ("binlog-cache-oversized",), "warning",
          {**BIN, "binlog-cache-size": "64M"}, peer_pattern=r"binlog_cache"),
    Canon("bulk-insert-1g", "bulk_insert_buffer_size 1G", ("bulk-insert-buffer-oversized",), "info",
          {"bulk-insert-buffer-size": "1G"}, peer_pattern=r"bulk_insert"),
    Canon("mrr-64m", "mrr_buffer_size 64M", ("mrr-buffer-oversized",), "info", {"mrr-buffer-size": "64M"},
          purpose="benchmark", peer_pattern=r"mrr_buffer"),
    Canon("tmp-table-2g", "2 GiB in-memory temporary tables", ("tmp-table-size-oversized",), "warning",
          {"tmp-table-size": "2G", "max-heap-table-size": "2G"}, peer_pattern=r"tmp_table_size|max_heap"),
    Canon("per-conn-96m", "about 100 MiB of buffers per connection", ("per-connection-buffers-large",), "warning",
          {"tmp-table-size": "96M", "max-heap-table-size": "96M"}, peer_pattern=r"per.thread|per thread"),
    Canon("big-tables", "every temporary table on disk", ("risky-big-tables-on",), "warning",
          {"big-tables": "ON"}, purpose="benchmark", peer_pattern=r"big_tables"),
    Canon("sort-merges", "sorts spilling into merge passes", ("sort-merge-passes-frequent",), "info",
          {"sort-buffer-size": "32K"}, purpose="benchmark", peer_pattern=r"sort.*temporary|sort_buffer|merge",
          prepare=repeat(SEQ_TABLE, "SELECT id FROM canon.t ORDER BY c DESC, id", 10)),  # no LIMIT: no priority queue
    Canon("tmp-disk", "temporary tables going to disk", ("tmp-tables-spill-to-disk",), "info",
          {"tmp-table-size": "16K", "max-heap-table-size": "16K"}, peer_pattern=r"temporary tables created on disk|tmp_table",
          prepare=repeat(("CREATE DATABASE canon", "CREATE TABLE canon.s (c CHAR(100)) ENGINE=InnoDB",
                          "INSERT INTO canon.s SELECT CONCAT('v', seq) FROM canon.seq_1_to_300"),
                         "SELECT c, COUNT(*) FROM canon.s GROUP BY c ORDER BY NULL", 1100)),  # ~30 KB each: over 16K
    # threads and limits
    Canon("thread-cache-0", "thread cache off", ("thread-cache-disabled",), "warning", {"thread-cache-size": "0"},
          purpose="benchmark", peer_pattern=r"thread.cache"),
    Canon("pool-size-16", "16 thread-pool groups on 2 CPUs", ("thread-pool-size-mismatch",), "info",
          {"thread-handling": "pool-of-threads", "thread-pool-size": "16"}, purpose="benchmark",
          peer_pattern=r"thread_pool_size"),
    Canon("wait-timeout-10", "idle connections closed after 10 s", ("wait-timeout-short",), "info",
          {"wait-timeout": "10"}, peer_pattern=r"wait_timeout"),
    Canon("connect-timeout-300", "connect_timeout 300", ("connect-timeout-long",), "info",
          {"connect-timeout": "300"}, peer_pattern=r"connect_timeout"),
    Canon("prepared-0", "prepared statements disabled", ("prepared-statements-near-limit",), "warning",
          {"max-prepared-stmt-count": "0"}, purpose="benchmark", peer_pattern=r"prepared"),
    Canon("connections-refused", "clients refused at max_connections", ("connections-refused-at-limit",), "warning",
          {"max-connections": "10"}, purpose="benchmark", peer_pattern=r"max_connections|connections",
          prepare=fill_connections),
    # correctness
    Canon("sql-mode-empty", "sql_mode empty (not strict)", ("sql-mode-not-strict",), "warning", {"sql-mode": ""},
          peer_pattern=r"sql_mode|\bstrict"),  # not "restrictions"
    Canon("no-engine-subst", "engine substitution allowed", ("engine-substitution-allowed",), "info",
          {"sql-mode": "STRICT_TRANS_TABLES"}, peer_pattern=r"sql_mode|substitution"),
    Canon("fk-checks-off", "foreign_key_checks off globally", ("foreign-key-checks-off",), "critical", {},
          prepare=sql("SET GLOBAL foreign_key_checks = 0"), peer_pattern=r"foreign_key_checks"),
    Canon("unique-checks-off", "unique_checks off globally", ("unique-checks-off",), "warning", {},
          prepare=sql("SET GLOBAL unique_checks = 0"), peer_pattern=r"unique_checks"),
    Canon("select-limit", "sql_select_limit 1000 globally", ("select-limit-truncates-results",), "critical", {},
          prepare=sql("SET GLOBAL sql_select_limit = 1000"), peer_pattern=r"sql_select_limit"),
    Canon("join-size", "max_join_size 1,000,000 globally", ("max-join-size-refuses-queries",), "warning", {},
          prepare=sql("SET GLOBAL max_join_size = 1000000"), peer_pattern=r"max_join_size"),
    Canon("strict-mode-off", "innodb_strict_mode off", ("innodb-strict-mode-off",), "info",
          {"innodb-strict-mode": "OFF"}, peer_pattern=r"innodb_strict_mode|strict mode"),
    Canon("auto-inc-step", "auto-increment stepped by 2", ("auto-increment-stepped",), "info",
          {"auto-increment-increment": "2"}, peer_pattern=r"auto_increment"),
    Canon("init-connect", "init_connect runs on every connect", ("init-connect-set",), "info",
          {"init-connect": "SET NAMES utf8mb4"}, peer_pattern=r"init_connect"),
    # security
    Canon("tls-legacy", "TLS 1.1 still accepted", ("tls-legacy-protocols-enabled",), "warning",
          {"tls-version": "TLSv1.1,TLSv1.2,TLSv1.3"}, tls=True, peer_pattern=r"tls ?v?1\.[01]|tls_version|protocol"),
    Canon("skip-grant", "privilege checks skipped", ("grant-tables-skipped",), "critical", {"skip-grant-tables": "ON"},
          peer_pattern=r"skip.grant|grant tables"),
    # accounts and the data dictionary (issue 15); the account scenarios start from hardened accounts
    Canon("empty-password", "an application account without a password", ("account-without-password",), "critical",
          {}, harden=True, prepare=sql("CREATE USER 'app'@'10.0.1.%' IDENTIFIED BY ''"),
          peer_pattern=r"without password|no password|empty password|blank password"),
    Canon("anonymous-account", "an anonymous account", ("anonymous-account-present",), "warning", {}, harden=True,
          prepare=sql("CREATE USER ''@'localhost' IDENTIFIED BY 'Anon-pass-1'"), peer_pattern=r"anonymous"),
    Canon("remote-root", "root reachable from any host", ("root-reachable-remotely",), "warning", {}, harden=True,
          prepare=sql("CREATE USER 'root'@'%' IDENTIFIED BY 'Remote-root-pass-1'",
                      "GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION"),
          peer_pattern=r"root.*(remote|host|%)|(remote|host|%).*root"),
    Canon("no-primary-key", "InnoDB tables without a primary key", ("tables-without-primary-key",), "warning", {},
          prepare=sql("CREATE DATABASE app", "CREATE TABLE app.events (at DATETIME, what VARCHAR(64)) ENGINE=InnoDB",
                      "INSERT INTO app.events VALUES (NOW(), 'x')"),
          peer_pattern=r"primary key|without pk|no pk"),
    Canon("auto-increment-full", "AUTO_INCREMENT at 93 % of INT", ("auto-increment-near-limit",), "warning", {},
          prepare=sql("CREATE DATABASE app", "CREATE TABLE app.orders (id INT AUTO_INCREMENT PRIMARY KEY, v INT) "
                      "ENGINE=InnoDB AUTO_INCREMENT=2000000000", "INSERT INTO app.orders (v) VALUES (1)"),
          peer_pattern=r"auto.increment|autoinc"),
    Canon("test-database", "a test schema", ("test-database-present",), "info", {},
          prepare=sql("CREATE DATABASE test"), peer_pattern=r"\btest\b.*(database|schema)|(database|schema).*\btest\b"),
]


STOCK = [  # pitfalls that are MariaDB 10.11's own defaults: one stock production server shows them all
    Pitfall("binlog-off", "binary log off in production", ("binary-log-off",), r"log_bin|binary log", severity="warning"),
    Pitfall("local-infile", "LOAD DATA LOCAL enabled", ("local-infile-enabled",), r"local.infile"),
    Pitfall("secure-file-priv", "secure_file_priv empty", ("secure-file-priv-unrestricted",), r"secure_file_priv"),
    Pitfall("latin1", "server character set latin1", ("server-charset-not-utf8mb4",), r"charset|character.set|latin1"),
    Pitfall("pfs-off", "performance_schema off in production", ("risky-performance-schema-off",), r"performance.schema"),
    Pitfall("slow-log-off", "slow query log off in production", ("slow-query-log-off",), r"slow.query"),
]

for c in CANON:
    PITFALLS[c.name] = Pitfall(c.name, c.title, c.rules, c.peer_pattern or c.name, severity=c.severity)
for p in STOCK:
    PITFALLS[p.id] = p


# The two clean configurations for this 2-core, 24 GB host. Every value is what a careful DBA
# would set for the purpose; any warning the advisor prints on them is a false alarm.
CLEAN_PRODUCTION = {
    "innodb-buffer-pool-size": "12G",            # half the RAM on a shared 2-core VM; the data fits many times
    "innodb-log-file-size": "2G",                # hours of this machine's redo; recovery stays short
    "innodb-flush-log-at-trx-commit": "1",       # durable commits
    **BIN, "sync-binlog": "1",                   # point-in-time recovery, durable binlog
    "binlog-format": "ROW", "binlog-expire-logs-seconds": "604800",  # safe format, one week kept
    "slow-query-log": "ON", "long-query-time": "1",  # slow statements recorded
    "performance-schema": "ON",                  # diagnostics available without a restart
    "local-infile": "OFF", "secure-file-priv": "{files}",  # no client-side or arbitrary file access
    "character-set-server": "utf8mb4", "collation-server": "utf8mb4_unicode_520_ci",
    "skip-name-resolve": "ON",                   # no DNS on connect
    "max-connections": "200",                    # 12G + 200 x ~19M stays within the 24 GB
}
CLEAN_BENCHMARK = {
    "innodb-buffer-pool-size": "12G",            # the working set fits in memory
    "innodb-log-file-size": "4G",                # write bursts never wait for a checkpoint
    "innodb-log-buffer-size": "64M",             # large transactions do not wait (8.4's default)
    "innodb-flush-log-at-trx-commit": "1",       # durable commits, as production would run
    "skip-name-resolve": "ON",                   # no DNS on connect
    "max-connections": "500",                    # more than any sysbench thread count used here
    "character-set-server": "utf8mb4",
}


def named(name: str, make: Callable[[], Scenario]) -> Callable[[], Scenario]:
    make.scenario_name = name  # type: ignore[attr-defined]
    return make


def canon_scenarios() -> list[Callable[[], Scenario]]:
    out: list[Callable[[], Scenario]] = []
    for c in CANON:
        out.append(named(f"canon-{c.name}", lambda c=c: s_mariadb(
            f"canon-{c.name}", (c.name,), c.options, purpose=c.purpose, prepare=c.prepare, tls=c.tls,
            server=c.server, harden=c.harden, note=f"{c.title} (expects {', '.join(c.rules)} at {c.severity} or above)")))
    out.append(named("canon-stock-production", lambda: s_mariadb(
        "canon-stock-production", tuple(p.id for p in STOCK), {}, purpose="production",
        note="MariaDB 10.11's defaults judged for production")))
    out.append(named("canon-tls-network", s_tls_on_network))
    out.append(named("clean-production", lambda: s_mariadb(
        "clean-production", (), CLEAN_PRODUCTION, purpose="production", clean=True,
        note="careful production configuration for this host (no seeded pitfall)")))
    out.append(named("clean-benchmark", lambda: s_mariadb(
        "clean-benchmark", (), CLEAN_BENCHMARK, purpose="benchmark", clean=True,
        note="careful benchmark configuration for this host (no seeded pitfall)")))
    return out


PITFALLS["tls-network"] = Pitfall("tls-network", "no TLS on a server reachable over the network",
                                  ("tls-not-offered-on-network",), r"\b(ssl|tls)\b", severity="warning")


def s_tls_on_network() -> Scenario:
    """A production server without certificates, listening on a network namespace's address
    (never on the host's own interfaces), reached over the veth link."""
    sc = Scenario("canon-tls-network", ("tls-network",), "production",
                  "no TLS, listening on a network address (a namespace created for the run)")
    with NetNS() as ns, MariaDB(options=COMMON, netns=ns) as db:
        some_writes(db)
        report = advisor_report([*conn(db.port, ns.ns_addr), "--purpose", "production", "--no-calibrate"])
        evaluate(sc, report, maybe_peers(sc.name, db.port, ns.ns_addr))
    return sc


def scenarios(quick: bool) -> list[Callable[[], Scenario]]:
    out = [
        lambda: s_mariadb("baseline", (), {"innodb-buffer-pool-size": "1G", "innodb-log-file-size": "2G",
                                            "max-connections": "500"}, purpose="benchmark", harden=True,
                          note="tuned for this machine, accounts hardened; no seeded pitfall (false-positive check)"),
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
    return out + canon_scenarios()


def run(quick: bool = False, peers: bool = True, only: str = "", peers_from: str = "") -> dict:
    WITH_PEERS["on"] = peers
    WITH_PEERS["from"] = peers_from or None
    if peers:
        ensure_packages({"pt-variable-advisor": "percona-toolkit", "mysqltuner": "mysqltuner"})
    installed_advisor()
    done = []
    for make in scenarios(quick):
        if only and not getattr(make, "scenario_name", "").startswith(only):
            continue  # --only: the canon scenarios carry their names (named())
        sc = make()
        log(f"detection: {sc.name}: " + ", ".join(f"{p}={sc.results[p]['advisor'][0]}" for p in sc.pitfalls)
            + (f"; warnings: {len(sc.loud.get('advisor', []))}" if sc.clean else ""))
        done.append(sc)
    return {"scenarios": done, "tools": TOOLS if peers else ("advisor",)}


TOOLS = ("advisor", "pt-variable-advisor", "mysqltuner")


def summarise(scs: list[Scenario], tools: tuple[str, ...] = TOOLS) -> dict:
    rows, fps, misses = [], {t: [] for t in tools}, []
    recall = {t: {"all": [0, 0], "seed": [0, 0], "canon": [0, 0]} for t in tools}
    loud: dict[str, list[tuple[str, str]]] = {t: [] for t in tools}
    for sc in scs:
        for pid in sc.pitfalls:
            cells = []
            for t in tools:
                verdict, what = sc.results[pid][t]
                hit = verdict == "yes"
                kinds = ["all"] + (["seed"] if PITFALLS[pid].seed else []) + (["canon"] if sc.name.startswith("canon-") else [])
                for k in kinds:
                    recall[t][k][0] += hit
                    recall[t][k][1] += 1
                crashed = t != "advisor" and sc.exit_codes.get(t, 0) != 0
                shown = verdict + (f": {', '.join(what)}" if t == "advisor" and what else "")
                cells.append(shown + (f" (exit {sc.exit_codes[t]})" if crashed else ""))
                if not hit:
                    misses.append((t, sc.name, pid, verdict, what))
            rows.append((sc.name, PITFALLS[pid].title, PITFALLS[pid].severity, *cells))
        if not sc.pitfalls and not sc.clean:  # the baseline: any pitfall reported there is a false positive
            for pid, row in sc.results.items():
                for t in tools:
                    verdict, what = row[t]
                    if verdict != "no":
                        fps[t].append((pid, what))
        if sc.clean:
            for t in tools:
                loud[t] += [(sc.name, line) for line in sc.loud.get(t, [])]
    return {"rows": rows, "recall": recall, "fps": fps, "misses": misses, "loud": loud}


def render(r: dict) -> str:
    tools = tuple(r.get("tools", TOOLS))
    s = summarise(r["scenarios"], tools)
    out = ["Scenarios:", ""]
    out += [f"- `{sc.name}`: {sc.note or ', '.join(PITFALLS[p].title for p in sc.pitfalls)} (purpose {sc.purpose})"
            for sc in r["scenarios"]]
    out += ["", table(["scenario", "pitfall", "a DBA expects", *tools], s["rows"]), ""]
    out.append(table(["tool", "recall (all pitfalls)", "recall (seed pitfalls)", "recall (canon pitfalls)",
                      "false positives on the baseline", "warnings on the clean configurations"],
                     [(t, "{}/{}".format(*s["recall"][t]["all"]), "{}/{}".format(*s["recall"][t]["seed"]),
                       "{}/{}".format(*s["recall"][t]["canon"]), len(s["fps"][t]), len(s["loud"][t])) for t in tools]))
    out += ["", "`yes`: found at the severity a DBA expects or above (for the advisor: a rule of the pitfall "
            "fired at that severity; `low`: it fired below it). `wrong`: the tool reported the subject but its "
            "advice makes the pitfall worse. `(exit N)`: the tool exited with status N in that scenario.", ""]
    out.append("False positives on the baseline:")
    out.append("")
    for t in tools:
        for pid, what in s["fps"][t]:
            shown = what[0] if isinstance(what, list) and what else str(what)
            out.append(f"- {t}, {PITFALLS[pid].title}: `{shown}`")
    if not any(s["fps"].values()):
        out.append("- none")
    out += ["", "Every warning on the clean configurations:", ""]
    for t in tools:
        for scn, line in s["loud"][t]:
            out.append(f"- {t} on `{scn}`: `{line}`")
    if not any(s["loud"].values()):
        out.append("- none")
    out += ["", "What each miss was (the tool's matching lines, if any):", ""]
    for t, scn, pid, verdict, what in s["misses"]:
        shown = f"`{what[0]}`" + (f" (and {len(what) - 1} more lines)" if len(what) > 1 else "") if what else "no line mentions it"
        out.append(f"- {t} in `{scn}` ({PITFALLS[pid].title}): {verdict}: {shown}")
    return "\n".join(out)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description="Detection matrix (see the module docstring).")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--advisor-only", action="store_true", help="do not run pt-variable-advisor and mysqltuner")
    ap.add_argument("--only", default="", help="run only scenarios whose name starts with this (canon ones)")
    ap.add_argument("--peers-from", default="", help="take the peers' outputs from an earlier run's "
                    "bench/out/detection copy instead of running them again (same scenarios, same servers)")
    a = ap.parse_args()
    print(render(run(a.quick, peers=not a.advisor_only, only=a.only, peers_from=a.peers_from)))


if __name__ == "__main__":
    main()
