"""Build a my.cnf plan from a snapshot, and the view model the template renders.

Pipeline (one code path for live servers, snapshots, the demo and hardware profiles):

  1. audit: run the rules (advisor.api.audit); each fired finding's recommendation is a proposal
     justified by the finding's message (one sentence with the numbers) and first reference;
  2. sizing: what a tuned server needs even when no rule fired (advisor.mycnf.sizing);
  3. target: every proposal is checked against the variable catalogue for this flavor and version
     (names, existence, limits), renamed where the target calls it differently (redo), rounded as
     the server would round it, or dropped with the reason;
  4. durability guard: a proposal that weakens innodb_flush_log_at_trx_commit, sync_binlog,
     innodb_doublewrite or the flush method is dropped unless --purpose benchmark
     --allow-unsafe-durability;
  5. conflicts: one value per variable, chosen deterministically (`resolve`), the losers named;
  6. memory budget: the result, merged with the server's current values, is fitted into 90 % of the
     memory limit (advisor.mycnf.budget.fit) and never exceeds the limit;
  7. settings equal to what the server has are not written (changes mode); full mode adds the
     core tuning settings and the server's other non-default values, marked as kept.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any, Optional

from advisor.mycnf.budget import BudgetError, MemoryBudget, Values, compute_budget, conn_floor_for, fit
from advisor.mycnf.compare import same_value, show, unit_of
from advisor.mycnf.profile import Profile
from advisor.mycnf.proposals import KIND_RANK, Proposal
from advisor.units import format_cnf_size, format_number, format_size, to_number, try_number
from advisor.versions import Version

MiB = 1 << 20
GiB = 1 << 30
WRAP = 96

MODES = ("changes", "full")

# For these, the larger proposal wins whoever proposes it: they cost disk space, file descriptors or a
# little memory (which the budget checks), never data safety.
MAX_WINS = frozenset({"innodb_redo_log_capacity", "innodb_log_file_size", "innodb_log_buffer_size",
                      "max_allowed_packet", "table_open_cache", "open_files_limit", "thread_cache_size"})

# Never written: in an option file these mean something else than the variable (log_bin = ON names
# the binary log file "ON"), or they are facts of the build, not settings.
NEVER_WRITE = {
    "log_bin": "in an option file log_bin takes the binary log's file name, so `log_bin = ON` would name it 'ON'",
    "have_ssl": "it reports how the server was built and started; it is not a setting",
    "version": "it is not a setting", "version_comment": "it is not a setting",
}

# The server sizes these at startup from other settings; full mode does not freeze them.
AUTOSIZED = frozenset({"open_files_limit", "back_log", "table_definition_cache", "innodb_open_files", "thread_cache_size",
                       "innodb_buffer_pool_instances", "innodb_page_cleaners", "innodb_purge_threads",
                       "table_open_cache_instances", "innodb_read_io_threads", "innodb_parallel_read_threads",
                       "thread_pool_size", "innodb_buffer_pool_chunk_size", "temptable_max_ram", "innodb_numa_interleave",
                       "innodb_log_files_in_group", "innodb_dedicated_server"})

CORE_FULL = ("innodb_buffer_pool_size", "innodb_redo_log_capacity", "innodb_log_file_size", "innodb_log_buffer_size",
             "innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_doublewrite", "innodb_flush_method",
             "innodb_io_capacity", "innodb_io_capacity_max", "innodb_flush_neighbors", "max_connections",
             "table_open_cache", "tmp_table_size", "max_heap_table_size", "sort_buffer_size", "join_buffer_size",
             "max_allowed_packet", "innodb_file_per_table")

# Values the server rounds down to a block (refman: read_buffer_size "should be a multiple of 4KB",
# max_allowed_packet "a multiple of 1024", binlog_cache_size 4096, thread_stack 1024, join_buffer_size 128).
BLOCK_BYTES = {"read_buffer_size": 4096, "max_allowed_packet": 1024, "binlog_cache_size": 4096, "thread_stack": 1024,
               "join_buffer_size": 128, "query_cache_size": 1024, "net_buffer_length": 1024}

CATEGORY_ORDER = ("durability", "memory", "redo", "flushing", "storage", "concurrency", "network", "tls", "version",
                  "benchmark", "other")
_VAR_CATEGORY = {
    "innodb_flush_log_at_trx_commit": "durability", "sync_binlog": "durability", "innodb_doublewrite": "durability",
    "innodb_redo_log_capacity": "redo", "innodb_log_file_size": "redo", "innodb_log_buffer_size": "redo",
    "innodb_log_files_in_group": "redo", "innodb_flush_method": "flushing", "innodb_io_capacity": "flushing",
    "innodb_io_capacity_max": "flushing", "innodb_flush_neighbors": "flushing", "max_connections": "concurrency",
    "table_open_cache": "concurrency", "open_files_limit": "concurrency", "thread_cache_size": "concurrency",
    "thread_handling": "concurrency", "max_allowed_packet": "network", "skip_name_resolve": "network",
}


def category_of(var: str) -> str:
    if var in _VAR_CATEGORY:
        return _VAR_CATEGORY[var]
    if any(x in var for x in ("buffer", "cache_size", "tmp_table", "heap_table", "temptable", "key_buffer", "thread_stack")):
        return "memory"
    return "other"


@dataclass(frozen=True)
class MycnfOptions:
    purpose: str = "production"
    mode: str = "changes"
    workload: Optional[str] = None
    allow_unsafe_durability: bool = False
    rules_dirs: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    source: str = "live"
    profile: Optional[Profile] = None


@dataclass
class Setting:
    variable: str
    value: str
    origin: str
    source_id: str
    kind: str                 # rule | sizing | guard | kept
    previous: str
    reason: str
    reference: str
    restart: Optional[bool]
    notes: list[str] = field(default_factory=list)
    category: str = "other"

    @property
    def changed(self) -> bool:
        return self.kind != "kept"


@dataclass
class Plan:
    flavor: str
    version: Version
    version_display: str
    purpose: str
    workload: str
    mode: str
    source: str
    settings: list[Setting]
    facts: list[str]
    budget: MemoryBudget
    budget_adjustments: list[str]
    limit_label: str
    not_changed: list[str]
    unsafe: list[str]          # relaxed durability settings written (empty = none)
    report: Any                # advisor.report.Report
    profile: Optional[Profile] = None

    @property
    def changes(self) -> list[Setting]:
        return [s for s in self.settings if s.changed]

    @property
    def restart_needed(self) -> bool:
        return any(s.restart is not False for s in self.changes)


# ---------------------------------------------------------------- durability guard

def weakens_durability(var: str, value: str) -> Optional[str]:
    """Why `var = value` weakens durability, or None."""
    v = str(value).strip().upper()
    if var == "innodb_flush_log_at_trx_commit" and v != "1":
        return "commits would no longer wait for the redo log to reach the disk"
    if var == "sync_binlog" and v != "1":
        return "the binary log would no longer be flushed with each commit group"
    if var == "innodb_doublewrite" and v in ("OFF", "0", "FALSE", "DETECT_ONLY"):
        return "pages torn by a crash could no longer be repaired"
    if var == "innodb_flush_method" and v in ("NOSYNC", "LITTLESYNC"):
        return "InnoDB would stop flushing its files"
    return None


# ---------------------------------------------------------------- target correctness

def _bytes(value: str) -> Optional[int]:
    n = to_number(value)
    return None if n is None else int(n)


def adapt_to_target(p: Proposal, flavor: str, version: Version, files_in_group: int) -> tuple[Optional[Proposal], str]:
    """The proposal as this target takes it (renamed, rounded), or (None, why it is not written)."""
    from advisor import knowledge

    var = p.variable.lower()
    value = p.value
    note = ""
    if var in NEVER_WRITE:
        return None, NEVER_WRITE[var]
    ex = knowledge.exists_on(var, flavor, version)
    if var in ("innodb_log_file_size", "innodb_log_files_in_group") and knowledge.exists_on("innodb_redo_log_capacity", flavor, version):
        if var == "innodb_log_files_in_group":
            return None, f"{flavor} {version} sizes the redo log with innodb_redo_log_capacity, which supersedes it"
        ex = False  # deprecated there and ignored once innodb_redo_log_capacity is set: translate below
    if ex is None:
        return None, (f"{var} is not in the variable catalogue for {flavor}, and an option the server does not know "
                      "stops it from starting")
    if ex is False:
        n = _bytes(value)
        if var == "innodb_log_file_size" and knowledge.exists_on("innodb_redo_log_capacity", flavor, version) and n:
            total = n * max(1, files_in_group)
            var, value = "innodb_redo_log_capacity", format_cnf_size(total)
            note = f"renamed: {flavor} {version} sizes the redo log with innodb_redo_log_capacity ({format_size(n)} × {files_in_group} files)"
        elif var == "innodb_redo_log_capacity" and knowledge.exists_on("innodb_log_file_size", flavor, version) and n:
            from advisor.mycnf.sizing import redo_settings

            var, nb = next(iter(redo_settings(flavor, version, n, files_in_group).items()))
            value = format_cnf_size(nb)
            note = f"renamed: {flavor} {version} has no innodb_redo_log_capacity; the redo log is sized with innodb_log_file_size"
        else:
            return None, knowledge.check_setting(var, value, flavor, version)[0]
    n = _bytes(value)
    spec0 = knowledge.info(var, flavor, version)
    if spec0 is not None and spec0.unit == "bytes" and n is not None and try_number(value) is not None:
        value = format_cnf_size(n)  # 262144 -> 256K, as a my.cnf writes it
    if var in BLOCK_BYTES and n is not None and n % BLOCK_BYTES[var]:
        rounded = n // BLOCK_BYTES[var] * BLOCK_BYTES[var]
        value = format_cnf_size(rounded)
        note = (note + "; " if note else "") + f"rounded down to a multiple of {BLOCK_BYTES[var]} bytes, as the server would"
    problems = knowledge.check_setting(var, value, flavor, version)
    problems = [x for x in problems if "has no effect" not in x]
    if problems:
        return None, problems[0]
    spec = knowledge.info(var, flavor, version)
    if spec is not None and spec.deprecated:
        repl = f"; its replacement {', '.join(spec.replaced_by)} is not available here" if spec.replaced_by else ""
        note = (note + "; " if note else "") + f"{var} is {spec.deprecation}{repl}"
    q = Proposal(var, value, p.source, p.kind, p.severity, p.reason, p.reference)
    return q, note


# ---------------------------------------------------------------- conflicts

def _rank(p: Proposal) -> tuple[Any, ...]:
    from advisor.rules.schema import SEVERITY_RANK

    size = _bytes(p.value) if p.variable in MAX_WINS else None
    kind = KIND_RANK.get(p.kind, 9)
    if p.variable in MAX_WINS and p.kind != "guard":
        kind = 1
    return (kind, -(size or 0), -SEVERITY_RANK.get(p.severity, 0), p.source, p.value)


def resolve(proposals: list[Proposal]) -> dict[str, tuple[Proposal, list[str]]]:
    """One proposal per variable, deterministically: the durability guard first; for capacities
    (MAX_WINS) the larger value; otherwise a rule's evidence beats generic sizing, then the higher
    severity, then the rule id in alphabetical order. Returns var -> (winner, notes naming the losers)."""
    by_var: dict[str, list[Proposal]] = {}
    for p in proposals:
        by_var.setdefault(p.variable, []).append(p)
    out: dict[str, tuple[Proposal, list[str]]] = {}
    for var, ps in by_var.items():
        ranked = sorted(ps, key=_rank)
        win = ranked[0]
        notes = []
        seen = {(win.source, win.value)}
        for lose in ranked[1:]:
            if (lose.source, lose.value) in seen:
                continue
            seen.add((lose.source, lose.value))
            if lose.value == win.value:
                notes.append(f"{lose.label} recommends the same value.")
                continue
            if win.kind == "guard":
                why = "the durability setting asked for with --allow-unsafe-durability wins" if win.severity == "unsafe" \
                    else "the durability guard wins over every other proposal"
            elif var in MAX_WINS:
                why = "for a capacity the larger value wins (it costs disk space or a little memory, never data safety)"
            elif win.kind == "rule" and lose.kind == "sizing":
                why = "a rule's evidence from this server wins over generic sizing"
            else:
                why = "the higher severity wins, then the rule id in alphabetical order"
            notes.append(f"{lose.label} proposed {lose.value}; {why}.")
        out[var] = (win, notes)
    return out


# ---------------------------------------------------------------- facts for the header

def memory_limit(snapshot: Any) -> tuple[Optional[int], str, str]:
    """(limit bytes, label, the header line)."""
    h = snapshot.host
    if h is None or h.memory.total_bytes is None and h.memory.effective_limit_bytes is None:
        reason = _missing(snapshot, "host", "host facts were not collected")
        return None, "memory", (f"memory: unknown ({reason}); the buffer pool and other memory settings were not "
                                "sized from memory and the budget is not checked against a limit (pass --ram)")
    m = h.memory
    total, cg = m.total_bytes, m.cgroup_limit_bytes
    if cg is not None and (total is None or cg < total):
        return cg, "cgroup", (f"memory: cgroup limit {format_size(cg)} (RAM {format_size(total)}); sized from "
                                    "the cgroup limit, which the OOM killer enforces")
    limit = m.effective_limit_bytes or total
    extra = "" if cg is None else f", cgroup limit {format_size(cg)}"
    src = h.origin or {"file": "given on the command line", "recorded": "host facts recorded in the snapshot",
                       "local": "read on this machine", "ssh": "read over ssh"}.get(h.source, h.source)
    return limit, "RAM", f"memory: {format_size(limit)} RAM{extra} ({src})"


def _missing(snapshot: Any, prefix: str, default: str) -> str:
    entries = list(snapshot.missing)
    for sec in (snapshot.server, snapshot.host, snapshot.client, snapshot.calibration):
        if sec is not None:
            entries += sec.missing
    for m in entries:
        if m.fact == prefix or m.fact.startswith(prefix + "."):
            return m.reason
    return default


def header_facts(snapshot: Any, view: Any, mem_line: str) -> list[str]:
    from advisor.rules.facts import Unknown

    lines = [mem_line]
    h = snapshot.host
    if h is not None and h.cpu.logical_count:
        model = f" ({h.cpu.model})" if h.cpu.model else ""
        lines.append(f"CPUs: {h.cpu.logical_count} logical{model}")
    else:
        lines.append(f"CPUs: unknown ({_missing(snapshot, 'host', 'host facts were not collected')}); redo was not "
                     "sized from the CPU count")
    if h is not None and h.datadir is not None and h.datadir.device_class not in ("unknown",):
        d = h.datadir
        lines.append(f"datadir device: {d.device_class} ({d.class_reason or d.path})")
    else:
        reason = (h.datadir.class_reason if h is not None and h.datadir is not None and h.datadir.class_reason
                  else _missing(snapshot, "host", "host facts were not collected"))
        lines.append(f"datadir device: unknown ({reason}); innodb_io_capacity was not sized")
    rate = view.get("derived.redo_bytes_per_hour")
    if isinstance(rate, Unknown):
        lines.append(f"redo write rate: unknown ({rate.reason}); the redo log is sized from its floor")
    else:
        lines.append(f"redo write rate: {format_size(rate)} per hour ({view.rate_basis()})")
    data = view.get("derived.innodb_data_bytes")
    lines.append(f"InnoDB data: {format_size(data)}" if not isinstance(data, Unknown) else f"InnoDB data: unknown ({data.reason})")
    c = snapshot.calibration
    if c is None:
        lines.append(f"calibration: not run ({_missing(snapshot, 'calibration', 'not collected')})")
    else:
        parts = []
        if c.fsync_ms and c.fsync_ms.p50 is not None:
            parts.append(f"fsync p50 {c.fsync_ms.p50:.2f} ms")
        if c.commit_ms and c.commit_ms.p50 is not None:
            parts.append(f"commit p50 {c.commit_ms.p50:.2f} ms")
        if c.rtt_ms and c.rtt_ms.p50 is not None:
            parts.append(f"RTT p50 {c.rtt_ms.p50:.2f} ms")
        lines.append("calibration: " + (", ".join(parts) if parts else "ran, but measured nothing the sizing uses"))
    return lines


# ---------------------------------------------------------------- the plan

def _check_options(snapshot: Any, opts: MycnfOptions) -> str:
    from advisor.errors import UsageError

    if snapshot.target.flavor == "tidb":
        raise UsageError("TiDB is configured in tidb.toml and with SET GLOBAL, not with a my.cnf.",
                         "use `advisor audit` for TiDB findings.")
    if opts.mode not in MODES:
        raise UsageError(f"--mode {opts.mode!r} is not changes or full.", None)
    if opts.purpose not in ("production", "benchmark"):
        raise UsageError(f"--purpose {opts.purpose!r} is not production or benchmark.", None)
    from advisor.mycnf.sizing import WORKLOADS

    workload = opts.workload or ("benchmark" if opts.purpose == "benchmark" else "oltp")
    if workload not in WORKLOADS:
        raise UsageError(f"--workload {workload!r} is not one of {', '.join(WORKLOADS)}.", None)
    if opts.allow_unsafe_durability and opts.purpose != "benchmark":
        raise UsageError("--allow-unsafe-durability is only accepted with --purpose benchmark.",
                         "a production server keeps innodb_flush_log_at_trx_commit = 1 and sync_binlog = 1.")
    return workload


def _previous(var: str, variables: dict[str, str], flavor: str, version: Version, profile: bool, ctx: dict[str, Any]) -> str:
    from advisor import knowledge

    unit = unit_of(var, flavor, version)
    cur = variables.get(var)
    d = knowledge.default_for(var, flavor, version, **ctx)
    if profile:
        if d is None:
            return "no recorded default"
        return "default: empty (the server's built-in choice)" if str(d).strip() == "" else f"default {show(d, unit)}"
    if cur is None:
        return "not reported by the server" + (f" (default {show(d, unit)})" if d is not None else "")
    if str(cur).strip() == "":
        return "empty (the server's built-in choice" + (f", {d})" if d else ")")
    is_def = knowledge.is_default(var, cur, flavor, version, **ctx)
    return show(cur, unit) + (" (the default)" if is_def else "")


def _restart(var: str, flavor: str, version: Version) -> Optional[bool]:
    from advisor import knowledge

    spec = knowledge.info(var, flavor, version)
    return None if spec is None else (not spec.dynamic)


def build_plan(snapshot: Any, opts: MycnfOptions) -> Plan:
    from advisor import api, knowledge
    from advisor.errors import UsageError
    from advisor.mycnf.sizing import SizingInputs, buffer_pool_instances, buffer_pool_unit, sizing_proposals
    from advisor.rules.facts import FactView, Unknown

    workload = _check_options(snapshot, opts)
    flavor = snapshot.target.flavor
    version = Version.parse(snapshot.target.version)
    report = api.audit(snapshot, purpose=opts.purpose, rules_dirs=opts.rules_dirs, ignore=opts.ignore, source=opts.source)
    view = FactView(snapshot, opts.purpose)
    variables = {k.lower(): v for k, v in snapshot.server.variables.items()}
    limit, limit_label, mem_line = memory_limit(snapshot)
    cpus = snapshot.host.cpu.logical_count if snapshot.host is not None else None
    dev = snapshot.host.datadir.device_class if snapshot.host is not None and snapshot.host.datadir is not None else None
    ctx = {"cpus": cpus, "ram_bytes": limit, "buffer_pool_bytes": _bytes(variables.get("innodb_buffer_pool_size", "")) if variables.get("innodb_buffer_pool_size") else None}

    def known(path: str) -> Any:
        x = view.get(path)
        return None if isinstance(x, Unknown) else x

    not_changed: list[str] = []
    proposals: list[Proposal] = []
    for f in report.findings:
        if not f.recommendation:
            not_changed.append(f"{f.rule} ({f.severity}): {f.title}; no my.cnf setting fixes it here "
                               f"(`advisor explain {f.rule}`).")
        for n in f.notes:
            if n.startswith("dropped recommendation"):
                not_changed.append(f"{f.rule}: {n}.")
        for var, val in f.recommendation.items():
            spec = knowledge.catalogue().get(var.lower())
            ref = f.references[0] if f.references else (spec.sources[0] if spec is not None else "")
            proposals.append(Proposal(var.lower(), str(val), f.rule, "rule", f.severity, f.message, ref))

    inputs = SizingInputs(
        flavor=flavor, version=version, purpose=opts.purpose, workload=workload, variables=variables,
        limit_bytes=limit, limit_label=limit_label, cpus=cpus, device_class=dev,
        redo_bytes_per_hour=known("derived.redo_bytes_per_hour"), redo_basis=view.rate_basis(),
        redo_capacity_bytes=known("derived.redo_capacity_bytes"), allow_unsafe_durability=opts.allow_unsafe_durability)
    sized = sizing_proposals(inputs)
    proposals += sized.proposals
    skipped = sized.skipped

    # target correctness
    files = int(_bytes(variables.get("innodb_log_files_in_group", "2")) or 2)
    adapted: list[Proposal] = []
    adapt_notes: dict[tuple[str, str], str] = {}
    for p in proposals:
        q, why = adapt_to_target(p, flavor, version, files)
        if q is None:
            not_changed.append(f"{p.variable} = {p.value} ({p.label}): not written, because {why}.")
            continue
        if why:
            adapt_notes[(q.variable, q.source)] = why
        adapted.append(q)

    # durability guard
    allowed_unsafe = opts.allow_unsafe_durability and opts.purpose == "benchmark"
    guarded: list[Proposal] = []
    for p in adapted:
        why = weakens_durability(p.variable, p.value)
        if why and not allowed_unsafe:
            not_changed.append(f"{p.variable} = {p.value} ({p.label}): not written, because {why}; only "
                               "--purpose benchmark --allow-unsafe-durability writes that.")
            continue
        guarded.append(p)

    chosen = resolve(guarded)

    # settings equal to the server's value are not changes
    settings: dict[str, Setting] = {}
    for var, (p, notes) in sorted(chosen.items()):
        unit = unit_of(var, flavor, version)
        cur = variables.get(var)
        if cur is not None and same_value(p.value, cur, unit) and opts.profile is None:
            not_changed.append(f"{var}: {p.label} recommends {p.value}, which the server already has.")
            continue
        if opts.profile is not None and cur is not None and same_value(p.value, cur, unit):
            not_changed.append(f"{var}: {p.label} recommends {p.value}, the default on {flavor} {version}.")
            continue
        extra = [adapt_notes[(var, p.source)]] if (var, p.source) in adapt_notes else []
        settings[var] = Setting(var, p.value, p.label, p.source, p.kind, _previous(var, variables, flavor, version,
                                opts.profile is not None, ctx), p.reason, p.reference, _restart(var, flavor, version),
                                extra + notes, category_of(var))

    not_changed += [f"{text}." for var, text in skipped if var not in settings]

    # memory budget
    effective = dict(variables)
    effective.update({k: s.value for k, s in settings.items()})
    vals = Values(flavor, version, effective, cpus)
    adjustments_text: list[str] = []

    def bp_unit_for(bp: int) -> int:
        inst_now = _bytes(variables["innodb_buffer_pool_instances"]) if "innodb_buffer_pool_instances" in variables else None
        inst_def = (knowledge.is_default("innodb_buffer_pool_instances", variables["innodb_buffer_pool_instances"], flavor,
                                         version, **ctx) if "innodb_buffer_pool_instances" in variables else None)
        inst = buffer_pool_instances(flavor, version, bp, cpus, inst_now, inst_def)
        chunk = _bytes(variables.get("innodb_buffer_pool_chunk_size", "")) if variables.get("innodb_buffer_pool_chunk_size") else None
        return buffer_pool_unit(chunk, inst)

    mem_ref = ("https://mariadb.com/kb/en/mariadb-memory-allocation/" if flavor == "mariadb"
               else "https://dev.mysql.com/doc/refman/8.0/en/memory-use.html")

    def apply(var: str, old: str, new_value: str, reason: str, source: str) -> None:
        if var in settings:
            s = settings[var]
            s.notes.append(f"memory budget: {old} -> {new_value}, {reason}.")
            s.value = new_value
        else:
            settings[var] = Setting(var, new_value, f"sizing {source}", source, "sizing",
                                    _previous(var, variables, flavor, version, opts.profile is not None, ctx),
                                    reason[0].upper() + reason[1:] + ".", mem_ref,
                                    _restart(var, flavor, version), [], category_of(var))

    if limit is not None:
        bp_now = vals.get_bytes("innodb_buffer_pool_size")
        mc_now = _bytes(variables.get("max_connections", "151")) or 151
        max_used = known("status.Max_used_connections")
        floor = conn_floor_for(mc_now, int(try_number(max_used)) if max_used is not None and try_number(max_used) is not None else None)
        try:
            new_explicit, adjustments, budget = fit(vals, limit, bp_unit_for(bp_now), floor)
        except BudgetError as e:
            raise UsageError(f"cannot size {flavor} {version} for a {format_size(limit)} {limit_label} limit: {e}.",
                             "give the server more memory, or lower max_connections and the per-connection buffers "
                             "by hand.") from None
        for a in adjustments:
            fmt = (lambda n: str(n)) if a.variable == "max_connections" else format_cnf_size
            apply(a.variable, fmt(a.old), fmt(a.new), a.reason, "sizing.memory-budget")
            adjustments_text.append(f"{a.variable}: {format_size(a.old) if a.variable != 'max_connections' else format_number(a.old)}"
                                    f" -> {format_size(a.new) if a.variable != 'max_connections' else format_number(a.new)} ({a.reason})")
        # the final buffer pool, rounded to the unit the server will use for it
        if "innodb_buffer_pool_size" in settings:
            s = settings["innodb_buffer_pool_size"]
            bp = _bytes(s.value) or 0
            unit = bp_unit_for(bp)
            if bp % unit:
                r = max(unit, bp // unit * unit)
                s.notes.append(f"rounded from {s.value} to {format_cnf_size(r)}, a multiple of chunk × instances "
                               f"({format_size(unit)}), so the server does not round it up")
                s.value = format_cnf_size(r)
        effective.update({k: s.value for k, s in settings.items()})
        budget = compute_budget(Values(flavor, version, effective, cpus), limit)
        if budget.total > limit:  # fit() guarantees this cannot happen; never write a file that breaks it
            raise UsageError(f"internal budget check failed: {format_size(budget.total)} exceeds the "
                             f"{format_size(limit)} {limit_label} limit.", "report this as a bug.")
    else:
        budget = compute_budget(vals, None)

    # full mode: the core settings and the server's other non-default values, kept
    if opts.mode == "full":
        _add_kept(settings, variables, flavor, version, ctx, opts, not_changed)

    unsafe = [f"{s.variable} = {s.value}" for s in settings.values() if weakens_durability(s.variable, s.value)]
    order = {c: i for i, c in enumerate(CATEGORY_ORDER)}
    ordered = sorted(settings.values(), key=lambda s: (s.kind == "kept", order.get(s.category, 99), s.variable))

    facts = header_facts(snapshot, view, mem_line)
    ver_display = opts.profile.version if opts.profile is not None else snapshot.target.version
    return Plan(flavor=flavor, version=version, version_display=ver_display, purpose=opts.purpose, workload=workload,
                mode=opts.mode, source=opts.source, settings=ordered, facts=facts, budget=budget,
                budget_adjustments=adjustments_text, limit_label=limit_label, not_changed=_dedupe(not_changed),
                unsafe=unsafe, report=report, profile=opts.profile)


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _cnf_value(value: str, unit: Optional[str]) -> Optional[str]:
    """A SHOW VARIABLES value as my.cnf writes it, or None when it cannot be written."""
    s = str(value).strip()
    if s == "":
        return None
    if unit == "bytes":
        n = try_number(s)
        if n is not None and float(n).is_integer():
            return format_cnf_size(int(n))
    return s


def _add_kept(settings: dict[str, Setting], variables: dict[str, str], flavor: str, version: Version, ctx: dict[str, Any],
              opts: MycnfOptions, not_changed: list[str]) -> None:
    from advisor import knowledge

    names: list[str] = [n for n in CORE_FULL if knowledge.exists_on(n, flavor, version)]
    if opts.profile is None:
        for name in sorted(variables):
            if name in names or name in AUTOSIZED or name in NEVER_WRITE:
                continue
            if knowledge.exists_on(name, flavor, version) and knowledge.is_default(name, variables[name], flavor, version, **ctx) is False:
                names.append(name)
    allowed_unsafe = opts.allow_unsafe_durability and opts.purpose == "benchmark"
    for name in names:
        if name in settings or name in NEVER_WRITE:
            continue
        if name == "innodb_log_file_size" and knowledge.exists_on("innodb_redo_log_capacity", flavor, version):
            continue  # the redo log is sized by innodb_redo_log_capacity there
        spec = knowledge.info(name, flavor, version)
        if spec is None or spec.noop:
            continue
        if spec.deprecated and spec.renamed and knowledge.exists_on(spec.replaced_by[0], flavor, version):
            continue  # the old name of a renamed variable: the file writes the new name, which has the same value
        cur = variables.get(name)
        if cur is None:
            cur = knowledge.default_for(name, flavor, version, **ctx)
        if cur is None:
            continue
        value = _cnf_value(cur, spec.unit)
        if value is None:
            continue
        why = weakens_durability(name, value)
        if why and not allowed_unsafe:
            safe = {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1", "innodb_doublewrite": "ON"}.get(name)
            if safe is None:
                continue
            who = "This version defaults to" if opts.profile is not None else "The server runs with"
            reason = f"{who} {name} = {cur}, so {why}"
            if name == "sync_binlog" and str(variables.get("log_bin", "ON")).upper() in ("OFF", "0"):
                reason = (f"{who} {name} = {cur} and the binary log is off, so nothing depends on it now; stating "
                          "sync_binlog = 1 keeps the binary log durable when it is turned on")
            settings[name] = Setting(
                name, safe, "guard durability.full", "durability.full", "guard",
                _previous(name, variables, flavor, version, opts.profile is not None, ctx),
                reason + "; a complete file states full durability, and only --purpose benchmark "
                "--allow-unsafe-durability writes a weaker value.", spec.sources[0], not spec.dynamic, [],
                category_of(name))
            continue
        if spec.deprecated and knowledge.is_default(name, cur, flavor, version, **ctx):
            repl = f" (use {', '.join(spec.replaced_by)})" if spec.replaced_by else ""
            not_changed.append(f"{name}: deprecated on {flavor} {version}{repl} and at its default, so the full file "
                               "does not write it.")
            continue
        if knowledge.check_setting(name, value, flavor, version):
            not_changed.append(f"{name} = {value}: kept out of the full file, because "
                               f"{knowledge.check_setting(name, value, flavor, version)[0]}.")
            continue
        d = knowledge.default_for(name, flavor, version, **ctx)
        is_def = knowledge.is_default(name, cur, flavor, version, **ctx)
        state = "the default" if is_def else (f"set on the server (default {show(d, spec.unit)})" if d is not None else "set on the server")
        settings[name] = Setting(
            name, value, "kept", "kept", "kept", "the default for this version" if opts.profile is not None else "the server has this value now",
            f"{name} = {value} is {state}; no rule or sizing step changes it, and it is written so that this "
            "file states the complete tuning configuration.", spec.sources[0], not spec.dynamic, [], category_of(name))


# ---------------------------------------------------------------- view model

def _wrap(text: str, first: str = "", rest: str = "  ") -> list[str]:
    return textwrap.wrap(" ".join(str(text).split()), width=WRAP, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


def _cnf_line_value(value: str) -> str:
    s = str(value)
    if any(c in s for c in " #;\t'\"") or s == "":
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return s


def _set_global(var: str, value: str, unit: Optional[str]) -> str:
    v = str(value)
    if unit == "bytes":
        n = _bytes(v)
        if n is not None:
            v = str(n)
    elif try_number(v) is None and v.upper() not in ("ON", "OFF"):
        v = f"'{v}'"
    return f"SET GLOBAL {var} = {v}"


def view_model(plan: Plan) -> dict[str, Any]:
    """Everything the template prints, as strings and lists of strings (no logic left for the template)."""
    from advisor import __version__
    from advisor.mycnf.budget import TARGET_FRACTION

    fl_name = {"mysql": "MySQL", "percona": "Percona Server", "mariadb": "MariaDB"}[plan.flavor]
    changes = plan.changes
    kept = [s for s in plan.settings if not s.changed]
    n_restart = sum(1 for s in changes if s.restart is not False)
    title = ("99-advisor.cnf: a drop-in holding only what the advisor changes" if plan.mode == "changes"
             else "my.cnf [mysqld]: the complete tuning configuration (changes and kept values)")
    banner: list[str] = []
    if plan.unsafe:
        bar = "!" * WRAP
        banner = [bar, "!! UNSAFE DURABILITY: FOR A THROWAWAY BENCHMARK SERVER ONLY",
                  "!! Generated with --purpose benchmark --allow-unsafe-durability. This file sets:"]
        banner += [f"!!   {u}" for u in plan.unsafe]
        banner += ["!! A crash or power loss can lose committed transactions and corrupt pages.",
                   "!! Never use this file on a server whose data matters.", bar]

    target = f"{fl_name} {plan.version_display}"
    if plan.profile is not None and plan.version_display != str(plan.version):
        target += f" (version ranges read as {plan.version})"
    header = {
        "title": title,
        "generated": _wrap(f"Generated by advisor {__version__} from {plan.source}.", "", "  "),
        "target": target,
        "purpose": f"{plan.purpose}; workload: {plan.workload}",
        "summary": (f"{len(changes)} setting{'' if len(changes) == 1 else 's'} changed, "
                    + ("none needs a restart" if n_restart == 0 else f"{n_restart} of {'it' if len(changes) == 1 else 'them'} "
                       f"need{'s' if n_restart == 1 else ''} a restart")
                    + (f"; {len(kept)} kept as they are" if kept else "")),
    }
    facts = [line for f in plan.facts for line in _wrap(f, "", "    ")]

    b = plan.budget
    width = 34
    budget_lines = ["total = buffer pool + log buffer + other global caches + max_connections × per-connection",
                    "        buffers + server overhead (worst case: every connection uses all its buffers at once)"]
    parts = " + ".join(f"{p.name} {format_size(p.bytes)}" for p in b.per_connection_parts)
    for line in b.lines:
        detail = line.detail if line.name == "connections" else ""
        budget_lines.append(f"{line.name:<{width}} {format_size(line.bytes):>10}   {detail}".rstrip())
        if line.name == "connections":
            budget_lines += _wrap(f"per connection: {parts}", "  ", "    ")
        if line.name.startswith("server overhead"):
            budget_lines += _wrap("assumed: 1/16 of the memory limit, at least 128 MiB, at most 1 GiB (512 MiB when "
                                  "the limit is unknown); it is not measured", "  ", "    ")
    if b.limit is not None:
        verdict = "fits" if b.total <= b.limit * TARGET_FRACTION + 1 else "within the limit, above the 90 % target"
        budget_lines.append(f"{'total':<{width}} {format_size(b.total):>10}   = {b.total / b.limit * 100:.1f} % of the "
                            f"{format_size(b.limit)} {plan.limit_label} limit: {verdict} (target ≤ {int(TARGET_FRACTION * 100)} %)")
    else:
        budget_lines.append(f"{'total':<{width}} {format_size(b.total):>10}   memory limit unknown: not checked (pass --ram)")
    for a in b.assumptions:
        budget_lines += _wrap(f"assumed: {a}", "  ", "    ")
    for a in plan.budget_adjustments:
        budget_lines += _wrap(f"adjusted to fit: {a}", "  ", "    ")

    not_changed = [line for item in (plan.not_changed + _standing_not_changed(plan)) for line in _wrap(item, "- ", "  ")]
    install = [line for item in _install(plan, n_restart) for line in _wrap(item, "- ", "  ")]

    settings = []
    for s in plan.settings:
        unit = unit_of(s.variable, plan.flavor, plan.version)
        if s.restart is None:
            restart = "restart: unknown"
        elif s.restart:
            restart = "needs a restart"
        else:
            restart = f"dynamic: {_set_global(s.variable, s.value, unit)} applies it without a restart"
        if s.kind == "kept":
            head = f"{s.variable}: kept; unchanged ({s.previous})"
        else:
            head = f"{s.variable}: {s.origin}; was {s.previous}; {restart}"
        comments = _wrap(head, "", "    ")
        comments += _wrap(f"Why: {s.reason}", "  ", "    ")
        comments += [f"  Source: {s.reference}"]
        for n in s.notes:
            comments += _wrap(f"Note: {n}", "  ", "    ")
        settings.append({"comments": comments, "name": s.variable, "value": _cnf_line_value(s.value)})
    empty = ["(none)"]
    return {"banner": banner, "header": header, "facts": facts or empty, "budget": budget_lines,
            "not_changed": not_changed or ["- (nothing)"], "install": install, "settings": settings,
            "section": "mysqld"}


def _standing_not_changed(plan: Plan) -> list[str]:
    from advisor import knowledge

    out = ["Paths, ports and identity (datadir, socket, port, server_id, log_error, log_bin, tmpdir): never written; "
           "keep them in your existing configuration."]
    if knowledge.exists_on("innodb_dedicated_server", plan.flavor, plan.version):
        out.append("innodb_dedicated_server: not enabled, because it would override the explicit sizes in this file "
                   "(the buffer pool and redo sizing above start from its formulas instead).")
    out.append("TLS settings: not changed; whether connections are encrypted is a security decision "
               "(`advisor audit` reports what TLS costs).")
    if not plan.unsafe:
        out.append("Durability (innodb_flush_log_at_trx_commit, sync_binlog, innodb_doublewrite): never weakened; "
                   "only --purpose benchmark --allow-unsafe-durability writes relaxed values.")
    return out


def _install(plan: Plan, n_restart: int) -> list[str]:
    out = []
    if plan.mode == "changes":
        if plan.flavor == "mariadb":
            out.append("Install: copy to /etc/mysql/mariadb.conf.d/99-advisor.cnf (Debian, Ubuntu) or "
                       "/etc/my.cnf.d/99-advisor.cnf (RHEL); MariaDB reads the files of an !includedir in name order, "
                       "so this one is read last and wins.")
        else:
            out.append("Install: copy to /etc/mysql/mysql.conf.d/99-advisor.cnf (Debian, Ubuntu) or /etc/my.cnf.d/ "
                       "(RHEL). MySQL makes no guarantee about the order in which an !includedir's files are read: check "
                       "that no other file sets these options (mysqld --print-defaults lists them in order), or "
                       "!include this file at the end of my.cnf.")
        out.append("Roll back: delete this file and restart; the dynamic settings can also be put back with SET GLOBAL.")
    else:
        out.append("Install: merge this [mysqld] section into my.cnf in place of its tuning lines; keep the paths, "
                   "ports and identity settings from the existing file.")
        out.append("Roll back: restore the previous my.cnf and restart.")
    out.append(f"Restart: {n_restart} of the changed settings take effect only after a restart; the others are "
               "marked dynamic with the SET GLOBAL that applies them now.")
    out.append("Before the restart: advisor mycnf --validate FILE (checks names and values against the variable "
               "catalogue and, when a matching server binary is installed, against the server itself).")
    out.append("After the restart: advisor verify --cnf FILE (compares the running server with this file).")
    return out
