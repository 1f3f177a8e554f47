"""Checklist checks on what a sysbench run measures: the dataset against the buffer pool, the data
being prepared, the key distribution, the duration, the warm-up and intermediate reports."""

from __future__ import annotations

from typing import Any, Optional

from advisor.rules.checks.base import CheckContext, CheckResult, CheckSet, data_cache
from advisor.rules.checks.manual import with_command
from advisor.rules.facts import Unknown
from advisor.sysbench import LUA_SCRIPTS, SBTEST_K_INDEX_BYTES, SBTEST_ROW_BYTES, Unresolved, dataset_bytes
from advisor.units import format_size

CHECKS = CheckSet()
MIN_RUN_SECONDS = 60


def _measured_run(ctx: CheckContext) -> bool:
    """The command is the measured run (`run`, or a command word that is a shell expression)."""
    return ctx.queries_the_server and ctx.cmd.effective_command in (None, "run")  # type: ignore[union-attr]


def _fmt_int(n: int) -> str:
    return f"{n:,}"


def _size(n: float) -> str:
    return format_size(n)


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


@CHECKS.define("sysbench-dataset")
def dataset(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, view, era = ctx.cmd, ctx.view, ctx.era
    if not ctx.queries_the_server or not (cmd.uses_sbtest or cmd.test_kind == "custom"):  # type: ignore[union-attr]
        return None
    if cmd.migration is not None:
        raw = {n: o.raw for n, o in cmd.options.items()}
        try:
            tables, size = int(raw.get("oltp-tables-count") or 1), int(raw.get("oltp-table-size") or 10000)
        except ValueError:
            tables = size = 0
        est = dataset_bytes(tables, size, True) if tables and size else 0
        shape = (f" with {tables} table{'s' if tables != 1 else ''} × {_fmt_int(size)} rows (≈ {_size(est)}) once "
                 "rewritten for sysbench 1.0" if est else "")
        return CheckResult(status="unknown",
                           evidence=f"--test={cmd.test} is sysbench 0.4's test, which sysbench 1.0 does not run (see "
                                    f"the command-line item), so nothing is loaded{shape}; the rewritten command "
                                    "decides the dataset.",
                           fix="Rewrite the command as the command-line item says and check it again.")
    if cmd.test_kind == "custom":
        return CheckResult(status="unknown",
                           evidence=f"{cmd.test} is a custom script; its tables and row sizes are not known.",
                           fix="Compare the data size after prepare (information_schema.TABLES data_length + index_length) "
                               "with innodb_buffer_pool_size.")
    tables, size = cmd.get("tables"), cmd.get("table-size")
    bad = next((x for x in (tables, size) if isinstance(x, Unresolved)), None)
    if bad is not None:
        return CheckResult(status="unknown",
                           evidence=f"the dataset size is unknown: {bad.why}.")  # type: ignore[union-attr]
    engine = cmd.get("mysql-storage-engine")
    if isinstance(engine, str) and engine.lower() != "innodb":
        return CheckResult(status="unknown",
                           evidence=f"--mysql-storage-engine={engine}: the per-row estimate is for InnoDB.")
    secondary = cmd.get("create-secondary")
    est = dataset_bytes(int(tables), int(size), secondary is not False)  # type: ignore[arg-type]
    per_row = SBTEST_ROW_BYTES if secondary is not False else SBTEST_ROW_BYTES - SBTEST_K_INDEX_BYTES
    shape = f"{tables} table{'s' if tables != 1 else ''} × {_fmt_int(int(size))} rows × ~{per_row} B/row ≈ {_size(est)} ({_gb(est)})"  # type: ignore[arg-type]
    facts: dict[str, Any] = {"tables": tables, "table_size": size, "bytes_per_row": per_row, "dataset_bytes": est}
    if view.snapshot.target.flavor == "tidb":
        return CheckResult(status="unknown", title="The dataset fits TiKV's block cache (or the I/O-bound test is deliberate)",
                           evidence=f"{shape} of InnoDB-format data; TiDB stores it in TiKV (compressed RocksDB), whose "
                                    "block cache (storage.block-cache.capacity) the advisor does not read.", facts=facts)
    bp = view.num("var.innodb_buffer_pool_size")
    if isinstance(bp, Unknown):
        return CheckResult(status="unknown",
                           evidence=f"{shape}; innodb_buffer_pool_size is unknown: {bp.reason}.", facts=facts)
    bp = int(bp)
    facts["innodb_buffer_pool_size"] = bp
    rand = cmd.get("rand-type", era)
    hot = ""
    if rand == "special":
        hot = (" With --rand-type=special" + ("" if cmd.given("rand-type") else " (the 1.0.x default)") +
               " 75% of the accesses go to 1% of the rows, so the hit rate is higher than the sizes suggest, but "
               "every miss is still a disk read.")
    elif rand == "uniform":
        hot = " With --rand-type=uniform every row is equally likely, so the hit rate is about the cached share."
    mem = view.get("derived.memory_limit_bytes")
    if est > bp:
        ratio = est / bp
        fit_rows = int(bp * 0.8 / (int(tables) * per_row))  # type: ignore[arg-type]
        target_bp = -(-int(est * 1.1) // (1 << 30)) * (1 << 30)
        mem_txt = (f" (this host has {_size(mem)} of memory for the server; keep the buffer pool within about 75–80% "
                   "of it)" if not isinstance(mem, Unknown) else "")
        size_txt = (f", or use --table-size={_fmt_int(fit_rows).replace(',', '')} or less to stay in memory with "
                    f"{_size(bp)}" if fit_rows >= 1 else "")
        cmd_word = cmd.effective_command or "run"
        verb = "the prepared data will be" if cmd_word == "prepare" else "the data is"
        return CheckResult(status="fail",
                           evidence=f"{shape} against innodb_buffer_pool_size {_size(bp)}: {verb} {ratio:,.0f}× the buffer "
                                    f"pool, so the run is I/O-bound (reads come from disk or the OS page cache, not the "
                                    f"buffer pool).{hot}",
                           fix=f"For an in-memory test set innodb_buffer_pool_size to at least {_size(target_bp)}{mem_txt}"
                               f"{size_txt}. If I/O-bound is the point, say so in the report and keep dataset and buffer "
                               "pool the same for every run.", facts=facts)
    return CheckResult(status="pass",
                       evidence=f"{shape} fits in innodb_buffer_pool_size {_size(bp)} ({est / bp:.0%} of it): the run is "
                                "in-memory once the buffer pool is warm.", facts=facts)


@CHECKS.define("sysbench-data-prepared")
def data_prepared(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, view = ctx.cmd, ctx.view
    if not ctx.queries_the_server or cmd.effective_command not in (None, "run", "prewarm") or not cmd.uses_sbtest:  # type: ignore[union-attr]
        return None
    tables, size = cmd.get("tables"), cmd.get("table-size")
    bad = next((x for x in (tables, size) if isinstance(x, Unresolved)), None)
    if bad is not None:
        return CheckResult(status="unknown",
                           evidence=f"the expected size is unknown: {bad.why}.")  # type: ignore[union-attr]
    est = dataset_bytes(int(tables), int(size), cmd.get("create-secondary") is not False)  # type: ignore[arg-type]
    have = view.get("derived.innodb_data_bytes")
    prep = with_command(cmd, "prepare")
    if isinstance(have, Unknown):
        return CheckResult(status="unknown",
                           evidence=f"the server's data size is unknown: {have.reason}.", command=prep)
    facts = {"innodb_user_data_bytes": have, "expected_bytes": est}
    if have < est / 2:
        return CheckResult(status="fail",
                           evidence=f"the server holds {_size(have)} of InnoDB data in user schemas, less than half the "
                                    f"≈ {_size(est)} that --tables={tables} --table-size={_fmt_int(int(size))} implies; the "  # type: ignore[arg-type]
                                    "tables are missing or smaller than the run expects (sysbench would query rows that are not there).",
                           fix=f"Prepare the data with the same --tables and --table-size first: `{prep}`, then ANALYZE.",
                           facts=facts)
    return CheckResult(status="pass",
                       evidence=f"the server holds {_size(have)} of InnoDB data in user schemas; the run expects ≈ {_size(est)}.",
                       facts=facts)


@CHECKS.define("sysbench-rand-type")
def rand_type(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, era, era_why = ctx.cmd, ctx.era, ctx.era_why
    if not _measured_run(ctx):
        return None
    opt = cmd.options.get("rand-type")
    v = cmd.get("rand-type", era)
    if opt is None and isinstance(v, Unresolved):
        return CheckResult(status="unknown", evidence=f"{v.why}.")
    if opt is not None:
        if isinstance(opt.value, Unresolved):
            return CheckResult(status="unknown",
                               evidence=f"{opt.value.why}.")
        note = (" special sends 75% of the accesses to 1% of the rows (--rand-spec-pct=1, --rand-spec-res=75): a "
                "small, hot, cache-friendly working set." if opt.value == "special" else "")
        return CheckResult(status="pass",
                           evidence=f"--rand-type={opt.value} is set explicitly, so the result does not depend on the sysbench "
                                    f"version's default (special in 1.0.x, uniform in 1.1).{note}",
                           facts={"rand_type": opt.value})
    if era == "1.0":
        dflt = f"defaults to special ({era_why})"
    elif era == "1.1":
        dflt = f"defaults to uniform ({era_why})"
    else:
        dflt = "defaults to special in sysbench 1.0.x and to uniform in 1.1"
    return CheckResult(status="fail",
                       evidence=f"--rand-type is not set, so it {dflt}. special sends 75% of the accesses to 1% of the "
                                "rows, uniform spreads them over all rows: the same command measures a different workload "
                                "depending on the sysbench build, and results from the two are not comparable.",
                       fix="Add --rand-type=uniform (as PingCAP's reports do), or --rand-type=special to keep 1.0's hot set "
                           "deliberately; either way write it in the report.",
                       facts={"rand_type": None, "default": v if not isinstance(v, Unresolved) else None})


@CHECKS.define("sysbench-duration")
def duration(ctx: CheckContext) -> Optional[CheckResult]:
    cmd = ctx.cmd
    if not _measured_run(ctx):
        return None
    t, ev = cmd.get("time"), cmd.get("events")
    if isinstance(t, Unresolved):
        return CheckResult(status="unknown", evidence=f"{t.why}.")
    given = cmd.given("time") or cmd.given("max-time")
    fix = (f"Use --time={max(300, MIN_RUN_SECONDS)} or more (PingCAP runs 300–600 s) and look at the "
           "--report-interval lines to see when throughput settles.")
    if t == 0:
        if isinstance(ev, int) and ev > 0:
            return CheckResult(status="unknown",
                               evidence=f"--time=0 with --events={ev}: the run ends after {ev:,} events, so its length "
                                        "depends on the throughput.", fix=fix)
        if isinstance(ev, Unresolved):
            return CheckResult(status="unknown", evidence=f"--time=0, and {ev.why}.", fix=fix)
        events = "--events=0 (no limit either)" if cmd.given("events") or cmd.given("max-requests") else "no --events"
        return CheckResult(status="fail",
                           evidence=f"--time=0 and {events}: the run has no end and must be interrupted, so its length "
                                    "differs from run to run.", fix=fix)
    if t < MIN_RUN_SECONDS:  # type: ignore[operator]
        src = f"--time={t}" if given else f"--time is not set (default {t} s)"
        return CheckResult(status="fail",
                           evidence=f"{src}: a run that short is dominated by its start (cold caches, the first "
                                    "checkpoints); the reported average is not a steady state.", fix=fix,
                           facts={"time": t})
    return CheckResult(status="pass",
                       evidence=f"--time={t} s.", facts={"time": t})


@CHECKS.define("sysbench-warmup")
def warmup(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, era = ctx.cmd, ctx.era
    if ctx.queries_the_server and cmd.effective_command == "prewarm":  # type: ignore[union-attr]
        return CheckResult(status="pass",
                           evidence=f"this command is the warm-up: `{cmd.command}` runs ANALYZE TABLE and reads the "  # type: ignore[union-attr]
                                    "primary key and the k index of every table (sysbench 1.0.20 oltp_common.lua).",
                           fix="Run it the same way before every measured run.")
    if not _measured_run(ctx):
        return None
    w = cmd.options.get("warmup-time")
    if w is not None and isinstance(w.value, int) and w.value > 0 and era != "1.1":
        where = (f"sysbench {ctx.local.version} on this machine" if ctx.local is not None and ctx.local.version
                 else f"sysbench 1.0 ({ctx.era_why})")
        if era == "1.0":
            return CheckResult(status="fail",
                               evidence=f"{w.written}: {where} has no --warmup-time (only 1.1 has it) and stops with "
                                        "\"invalid option\" before any warm-up or measurement.",
                               fix=f"Drop {w.written} and warm up with `{with_command(cmd, 'prewarm').replace(' ' + w.written, '')}` before the "
                                   "measured run (sysbench 1.0's prewarm reads every table's primary key and k index), "
                                   "or run sysbench 1.1.",
                               facts={"warmup_time": w.value})
        return CheckResult(status="unknown",
                           evidence=f"{w.written}: sysbench 1.1 runs the load for {w.value} s with statistics off before "
                                    f"measuring, sysbench 1.0 stops with \"invalid option\"; which one runs is unknown "
                                    f"({ctx.era_why}).", fix="Check `sysbench --version` on the client.",
                           facts={"warmup_time": w.value})
    if w is not None and isinstance(w.value, int) and w.value > 0:
        return CheckResult(status="pass",
                           evidence=f"--warmup-time={w.value}: sysbench 1.1 runs the load for {w.value} s with statistics "
                                    "off before measuring.", facts={"warmup_time": w.value})
    word = "warmup" if era == "1.1" else "prewarm"
    prewarm = with_command(cmd, word) if cmd.test_kind == "lua" and LUA_SCRIPTS.get(cmd.test or "", (False,))[0] else ""
    how = (f"`{word}` runs ANALYZE TABLE and reads the primary key and the k index of every table"
           if prewarm else "run the workload once unmeasured")
    return CheckResult(status="manual",
                       evidence=f"The command has no --warmup-time; whether the {data_cache(ctx.view)} is warm when it starts depends on "
                                "what ran before, which no snapshot shows.",
                       fix=f"Before every measured run warm up the same way: {how}"
                           + ("; sysbench 1.1 also has --warmup-time=N." if era != "1.1" else "; or add --warmup-time=N.")
                           + " Start measuring only when the --report-interval lines level off.",
                       command=prewarm or "the same sysbench command with --time=120, unmeasured")


@CHECKS.define("sysbench-report-interval")
def report_interval(ctx: CheckContext) -> Optional[CheckResult]:
    cmd = ctx.cmd
    if not _measured_run(ctx):
        return None
    r = cmd.get("report-interval")
    if isinstance(r, Unresolved):
        return CheckResult(status="unknown", evidence=f"{r.why}.")
    if not r:
        return CheckResult(status="fail",
                           evidence="--report-interval is not set (0 = off): only the run's average is printed, so warm-up, "
                                    "stalls and checkpoint dips are invisible.",
                           fix="Add --report-interval=10 (PingCAP's guide) or =1 for fine detail, and keep the output.",
                           facts={"report_interval": 0})
    return CheckResult(status="pass",
                       evidence=f"--report-interval={r}: sysbench prints throughput and latency every {r} s, so warm-up "
                                "and stalls are visible.", facts={"report_interval": r})


@CHECKS.define("sysbench-rate-limit")
def rate_limit(ctx: CheckContext) -> Optional[CheckResult]:
    cmd = ctx.cmd
    if not _measured_run(ctx):
        return None
    r = cmd.get("rate")
    if isinstance(r, Unresolved):
        return CheckResult(status="unknown", evidence=f"{r.why}.")
    if not r:
        return CheckResult(status="pass", evidence="--rate is not set (0): every thread starts its next transaction as "
                                                   "soon as the last one ends, so the reported TPS is the throughput.",
                           facts={"rate": 0})
    threads = cmd.get("threads")
    per = f" across {threads} thread{'' if threads == 1 else 's'}" if isinstance(threads, int) else ""
    return CheckResult(status="note",
                       evidence=f"--rate={r}: sysbench starts about {r:,} transaction{'' if r == 1 else 's'} per second{per} whatever the server "
                                f"could do, so the reported TPS is {r:,} by construction while the server keeps up; the "
                                "result is the latency at that rate (it includes queueing once the server falls behind).",
                       fix="Report the run as latency at a fixed rate, not as throughput; for throughput, leave --rate "
                           "out and sweep --threads instead.", facts={"rate": r})


@CHECKS.define("sysbench-ignore-errors")
def ignore_errors(ctx: CheckContext) -> Optional[CheckResult]:
    cmd = ctx.cmd
    if not _measured_run(ctx):
        return None
    v = cmd.get("mysql-ignore-errors")
    if isinstance(v, Unresolved):
        return CheckResult(status="unknown", evidence=f"{v.why}.")
    codes = [str(x) for x in (v if isinstance(v, tuple) else str(v or "").split(",")) if str(x)]
    given = cmd.given("mysql-ignore-errors")
    if any(c.lower() == "all" for c in codes):
        return CheckResult(status="fail",
                           evidence="--mysql-ignore-errors=all: sysbench counts every failed query as an ignored error and "
                                    "goes on (lost connections, full disks, SQL errors of a broken schema included), so a "
                                    "run that mostly failed still reports TPS and latency.",
                           fix="Leave the default (1213,1020,1205: deadlocks, record changed, lock wait timeout, which "
                               "sysbench retries) or list the error codes the test expects; keep the \"ignored errors\" "
                               "line of the output with the results.", facts={"ignore_errors": "all"})
    src = f"--mysql-ignore-errors={','.join(codes)}" if given else "the default --mysql-ignore-errors"
    return CheckResult(status="pass",
                       evidence=f"{src}: only the listed error codes ({', '.join(codes) or 'none'}) are retried; any other "
                                "error stops the run, so a failing run does not report numbers.",
                       facts={"ignore_errors": codes})
