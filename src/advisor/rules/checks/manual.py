"""Checklist items no snapshot can decide: the same client host for every run, the versions and
configuration recorded with the results, ANALYZE after loading, the same data before every run, and
the warm-up. Each is `manual` (with the command that does it) unless the sysbench command settles it."""

from __future__ import annotations

import shlex
from typing import Optional

from advisor.rules.checks.base import CheckContext, CheckResult, CheckSet, data_cache, stats_sampler
from advisor.rules.facts import FactView, Unknown
from advisor.sysbench import SysbenchCommand, Unresolved, quote_word
from advisor.units import format_size, whole

CHECKS = CheckSet()
RECORDED_VARIABLES = ("innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin",
                      "innodb_doublewrite", "innodb_flush_method", "max_connections", "have_ssl", "thread_handling")


def client_args(view: FactView, cmd: Optional[SysbenchCommand]) -> str:
    """`-h HOST -P PORT -u USER` for the mysql client: sysbench's address and user when a command is given
    (ANALYZE runs as the benchmark user), else the snapshot's target and the advisor's own user."""
    t = view.snapshot.target
    user = view.snapshot.server.connection.user
    if cmd is not None:
        parts: list[str] = []
        sock = cmd.socket()
        hosts, ports = cmd.hosts(), cmd.ports()
        if sock:
            parts += ["-S", str(sock)]
        else:
            parts += ["-h", str(hosts[0]), "-P", str(ports[0])]
        user = cmd.get("mysql-user")
        parts += ["-u", str(user) if not isinstance(user, Unresolved) else "USER"]
        return " ".join(p if p.startswith("$") else shlex.quote(p) for p in parts)
    who = f" -u {shlex.quote(user)}" if user else ""
    if t.transport == "socket":
        return f"-S {shlex.quote(t.socket or '/path/to/mysqld.sock')}{who}"
    if not t.host:  # imported from a dump: the address is not in it
        return f"-h HOST -P PORT{who}"
    return f"-h {shlex.quote(t.host)} -P {t.port or 3306}{who}"


def client_binary(view: FactView) -> str:
    return "mariadb" if view.snapshot.target.flavor == "mariadb" else "mysql"


def benchmark_schema(cmd: Optional[SysbenchCommand]) -> str:
    if cmd is None:
        return "sbtest"
    db = cmd.get("mysql-db")
    return "sbtest" if isinstance(db, Unresolved) or not db else str(db)


def with_command(cmd: SysbenchCommand, new: str) -> str:
    """The sysbench command with its command word replaced (run -> prewarm, ...)."""
    words = shlex.split(cmd.display)
    old = cmd.command or cmd.command_unresolved
    for i in range(len(words) - 1, -1, -1):
        if words[i] == old:
            words[i] = new
            break
    return " ".join(quote_word(w) for w in words)


def backup_restore(view: FactView) -> tuple[str, str]:
    """Shell commands that copy the datadir aside after prepare, and back before a run."""
    t = view.snapshot.target
    if t.flavor == "tidb":
        return ("tiup cluster stop CLUSTER && cp -a <each TiKV data dir> /backup/after-prepare/ && tiup cluster start CLUSTER",
                "tiup cluster stop CLUSTER && cp -a /backup/after-prepare/. <each TiKV data dir> && tiup cluster start CLUSTER")
    d = view.get("var.datadir")
    datadir = "/var/lib/mysql" if isinstance(d, Unknown) else str(d).rstrip("/")
    svc = "mariadb" if t.flavor == "mariadb" else "mysql"
    q = shlex.quote(datadir + "/")
    return (f"systemctl stop {svc} && rsync -a --delete {q} /backup/after-prepare/ && systemctl start {svc}",
            f"systemctl stop {svc} && rsync -a --delete /backup/after-prepare/ {q} && systemctl start {svc}")


def recorded_config(view: FactView) -> list[str]:
    t = view.snapshot.target
    out = [f"{t.flavor} {t.version_string or t.version}"]
    for name in RECORDED_VARIABLES:
        v = view.get(f"var.{name}")
        if isinstance(v, Unknown):
            continue
        if str(v) == "":
            out.append(f"{name}=(empty)")
        elif view.catalogue.unit(name) == "bytes" and whole(str(v)) is not None:
            out.append(f"{name}={format_size(whole(str(v)))}")
        else:
            out.append(f"{name}={v}")
    redo = view.get("derived.redo_capacity_bytes")
    if not isinstance(redo, Unknown):
        out.append(f"redo log {format_size(redo)}")
    return out


def _touches_the_database(ctx: CheckContext) -> bool:
    return ctx.cmd is None or ctx.cmd.is_database_test


# ---------------------------------------------------------------- environment

@CHECKS.define("same-client-host")
def same_client_host(ctx: CheckContext) -> Optional[CheckResult]:
    t, cmd = ctx.view.snapshot.target, ctx.cmd
    server_addr = (t.host or "SERVER_ADDRESS") if t.transport == "tcp" else "localhost"
    if cmd is not None and cmd.hosts() and not isinstance(cmd.hosts()[0], Unresolved):
        server_addr = str(cmd.hosts()[0])
    return CheckResult(
        status="manual",
        evidence="A snapshot cannot tell where the next run will start from; a different client host, NIC or "
                 "route changes latency and the bandwidth ceiling.",
        fix="Start every run from the same machine and record its name and route with each result.",
        command=f"hostname; ip route get {server_addr}")


@CHECKS.define("record-versions-config")
def record_versions_config(ctx: CheckContext) -> Optional[CheckResult]:
    rec = recorded_config(ctx.view)
    local = ctx.local
    sysbench_version = (local.version if local is not None and local.version else None)
    return CheckResult(
        status="manual",
        evidence="Current values: " + "; ".join(rec) + (f"; sysbench {sysbench_version} on this machine"
                                                          if sysbench_version else "") + ".",
        fix="Keep a snapshot of the server's variables, the sysbench version and the exact command line next to "
            "every result, so that a later run can be compared like for like.",
        command=f"advisor collect {client_args(ctx.view, None)} -o before-run.json; sysbench --version")


# ---------------------------------------------------------------- data

@CHECKS.define("analyze-after-prepare")
def analyze_after_prepare(ctx: CheckContext) -> Optional[CheckResult]:
    if not _touches_the_database(ctx):
        return None
    view, cmd = ctx.view, ctx.cmd
    client, args, schema = client_binary(view), client_args(view, cmd), benchmark_schema(cmd)
    n_tables = cmd.get("tables") if cmd is not None else None
    if cmd is not None and cmd.uses_sbtest and isinstance(n_tables, int):
        if n_tables <= 4:
            sql = "ANALYZE TABLE " + ", ".join(f"{schema}.sbtest{i}" for i in range(1, n_tables + 1))
            analyze = f"{client} {args} -e \"{sql}\""
        else:
            analyze = (f"for i in $(seq 1 {n_tables}); do {client} {args} -e \"ANALYZE TABLE {schema}.sbtest$i\"; done")
        prewarm_word = "warmup" if ctx.era == "1.1" else "prewarm"
        alt = (f" `sysbench ... {prewarm_word}` also runs ANALYZE TABLE on every table before reading it."
               if cmd.test_kind == "lua" else "")
    else:
        analyze = f"{client} {args} -e \"ANALYZE TABLE {schema}.<table>\"  # for every table of the benchmark"
        alt = ""
    return CheckResult(
        status="manual",
        evidence=f"Index statistics after a bulk load can be stale until {stats_sampler(ctx.view)}; the optimizer "
                 "plans the range queries from them (PingCAP's sysbench report runs ANALYZE on every table "
                 "after prepare). A snapshot does not show when statistics were last taken.",
        fix="Analyze every table once after prepare and before the first measured run." + alt,
        command=analyze)


@CHECKS.define("restore-data-between-runs")
def restore_data_between_runs(ctx: CheckContext) -> Optional[CheckResult]:
    if not _touches_the_database(ctx):
        return None
    cmd = ctx.cmd
    backup, restore = backup_restore(ctx.view)
    if cmd is not None and (cmd.effective_command or "run") == "prepare":
        return CheckResult(
            status="manual", title="Back up the data right after this prepare and restore it before every run",
            evidence="Runs that write (read_write, write_only, update, insert, delete) change the data and "
                     "fragment the indexes, so the second run starts from a different state than the first.",
            fix="Take a copy right after prepare (and ANALYZE); before every run stop the server, copy it back and "
                f"start the server again, as PingCAP's v5.2.0 report does after each workload: `{restore}`.",
            command=backup)
    if cmd is not None and cmd.writes is False:
        return CheckResult(
            status="pass", title="Same data for every run",
            evidence=f"{cmd.test} only reads, so the data stays the same from run to run.",
            fix=f"Warm the {data_cache(ctx.view)} the same way before each run (see the warm-up item).")
    if cmd is not None and cmd.test_kind == "lua":
        redo = f"{with_command(cmd, 'cleanup')} && {with_command(cmd, 'prepare')}"
        what = f"the workload ({cmd.test}) updates, deletes or inserts rows"
    else:
        redo = restore
        what = ("the workload may write" if cmd is None or cmd.test is None else f"the workload ({cmd.test}) may write")
    return CheckResult(
        status="manual",
        evidence=f"{what[0].upper() + what[1:]}, so each run would start from data the previous run changed; "
                 "a snapshot cannot tell whether the data was restored.",
        fix="Before every run restore the data taken right after prepare (stop the server, copy the datadir "
            f"back, start it: `{restore}`; PingCAP restores after each workload), or drop and prepare again, "
            "then ANALYZE and warm up the same way.",
        command=redo)


# ---------------------------------------------------------------- run

@CHECKS.define("warm-up")
def warm_up(ctx: CheckContext) -> Optional[CheckResult]:
    if ctx.cmd is not None:
        return None  # the command's own sysbench-warmup item says how
    view = ctx.view
    return CheckResult(
        status="manual",
        evidence=f"After a restart or a restore the {data_cache(view)} is cold; the first minutes measure disk reads.",
        fix="Run the workload (or `sysbench <test> ... prewarm`) for a while before the measured run, the same "
            "way every time; sysbench 1.1 has --warmup-time=N.",
        command=f"{client_binary(view)} {client_args(view, None)} -e \"SELECT COUNT(pad) FROM "
                f"{benchmark_schema(None)}.sbtest1 USE INDEX (k_1)\"  # per table")
