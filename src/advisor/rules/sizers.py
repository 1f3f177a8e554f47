"""Sizers: what a tuned server needs even when no rule fired, as my.cnf lines with their reasons.

Each sizer is one small named function registered with its id; its title, rationale, references and
examples are a catalogue entry (rules/sizing/<name>.toml, advisor.rules.entries) with a generated page
(`advisor explain sizing.buffer-pool`). A sizer reads a SizingContext (the snapshot's facts for one
purpose and workload) and returns a SizerOutcome: fired (proposals, each a my.cnf line with one
sentence of reasons and numbers), passed (the server already has it), not_applicable, or unknown
(the fact it needs is missing; the reason says which, and nothing is guessed).

Stages: `propose` sizers run in registry order on every plan (advisor.mycnf.plan.build_plan); the
`whole-plan` sizer sizing.memory-budget then fits the result into the memory limit
(advisor.rules.memory), and the `full-mode` sizer durability.full states durable values in a complete
file (--mode full).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping, Optional

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules import memory
from advisor.rules.facts import FactView, Unknown
from advisor.rules.sizing import (buffer_pool_instances, buffer_pool_unit, connections_for_workload, data_pool_floor,
                                  datadir_device_bytes, dedicated_buffer_pool_bytes, expected_connections,
                                  io_capacity_for, log_buffer_for_workload, memory_limit, redo_floor, redo_settings,
                                  redo_target, round_down)
from advisor.units import format_cnf_size, format_number, format_size, to_number

GiB = 1 << 30

Status = Literal["fired", "passed", "not_applicable", "unknown"]
Stage = Literal["propose", "whole-plan", "full-mode"]
KIND_RANK = {"guard": 0, "rule": 1, "sizing": 2}  # lower wins (see advisor.mycnf.model.resolve)


@dataclass(frozen=True)
class Proposal:
    variable: str
    value: str          # as my.cnf writes it
    source: str         # a rule id, or a sizer id (sizing.<name>, durability.<name>)
    kind: str           # rule | sizing | guard
    severity: str       # the rule's severity; "sizing", "guard" or "unsafe" otherwise
    reason: str         # one sentence with the numbers
    reference: str = "" # URL of the source; empty: the sizer's reference for the target (pick_reference)

    @property
    def label(self) -> str:
        if self.kind == "rule":
            return f"rule {self.source} ({self.severity})"
        return f"sizer {self.source}" if self.kind == "sizing" else f"{self.kind} {self.source}"


@dataclass(frozen=True)
class SizerOutcome:
    status: Status
    reason: str
    proposals: tuple[Proposal, ...] = ()
    variable: Optional[str] = None      # for unknown: the variable that could not be sized


@dataclass
class SizingContext:
    """What a sizer reads: the facts (a FactView for the plan's purpose), the workload, whether relaxed
    durability was asked for, and the memory limit (bytes and what bounds it)."""

    view: FactView
    workload: str
    allow_unsafe_durability: bool = False
    limit: Optional[int] = None
    limit_label: str = "memory"
    variables: Mapping[str, str] = field(default_factory=dict)
    threads: Optional[int] = None      # the benchmark's client threads (mycnf --sysbench), when given

    @property
    def max_used(self) -> Optional[int]:
        n = to_number(self.view.known("status.Max_used_connections"))
        return None if n is None else int(n)

    def expected(self) -> tuple[Optional[int], str]:
        """The connections the workload runs at once (advisor.rules.sizing.expected_connections)."""
        return expected_connections(self.workload, self.threads, self.max_used, self.cpus)

    def data_floor(self, unit: int) -> Optional[int]:
        data = self.view.known("derived.innodb_data_bytes")
        return data_pool_floor(float(data), unit) if data is not None else None

    @property
    def cpus(self) -> Optional[int]:
        h = self.view.snapshot.host
        return h.cpu.logical_count if h is not None else None

    @property
    def device_class(self) -> Optional[str]:
        h = self.view.snapshot.host
        return h.datadir.device_class if h is not None and h.datadir is not None else None

    def number(self, name: str) -> Optional[int]:
        n = to_number(self.variables.get(name))
        return None if n is None else int(n)


def sizing_context(view: FactView, workload: str, allow_unsafe_durability: bool = False,
                   threads: Optional[int] = None) -> SizingContext:
    limit, label = memory_limit(view.snapshot.host)
    return SizingContext(view, workload, allow_unsafe_durability, limit, label, dict(view.variables()), threads)


SizerFn = Callable[[SizingContext], SizerOutcome]


@dataclass(frozen=True)
class SizerLogic:
    id: str
    stage: Stage
    fn: SizerFn


SIZERS: dict[str, SizerLogic] = {}


def sizer(sizer_id: str, stage: Stage = "propose") -> Callable[[SizerFn], SizerFn]:
    def deco(fn: SizerFn) -> SizerFn:
        if sizer_id in SIZERS:
            raise ValueError(f"sizer {sizer_id} defined twice")
        SIZERS[sizer_id] = SizerLogic(sizer_id, stage, fn)
        return fn
    return deco


def pick_reference(references: tuple[str, ...], flavor: str, variable: str) -> str:
    """The reference a line cites: among the references on the target's documentation site (all of them
    when none is), the one that names the variable, else the first."""
    site = "mariadb.com" if flavor == "mariadb" else "dev.mysql.com"
    pool = [r for r in references if site in r] or list(references)
    names = (variable, variable.replace("_", "-"))
    return next((r for r in pool if any(n in r for n in names)), pool[0] if pool else "")


def pool_unit(ctx: SizingContext, bp_bytes: int) -> int:
    """The step the server will round a buffer pool of `bp_bytes` to on this target: chunk × the instance
    count it will use (the explicit one when the server has a non-default count, else the default)."""
    cat, fl, ver = ctx.view.catalogue, ctx.view.flavor, ctx.view.version
    inst_now = ctx.number("innodb_buffer_pool_instances")
    inst_default = (cat.is_default("innodb_buffer_pool_instances", ctx.variables["innodb_buffer_pool_instances"], fl,
                                   ver, cpus=ctx.cpus, buffer_pool_bytes=ctx.number("innodb_buffer_pool_size"))
                    if "innodb_buffer_pool_instances" in ctx.variables else None)
    inst = buffer_pool_instances(cat, fl, ver, bp_bytes, ctx.cpus, inst_now, inst_default)
    return buffer_pool_unit(ctx.number("innodb_buffer_pool_chunk_size"), inst)


def _dedicated_baseline(ctx: SizingContext) -> str:
    """Where the 50 / 75 % share comes from, in the target's terms: MariaDB has no innodb_dedicated_server."""
    if ctx.view.catalogue.exists_on("innodb_dedicated_server", ctx.view.flavor, ctx.view.version):
        return "innodb_dedicated_server's baseline"
    if ctx.view.flavor == "mariadb":
        return ("MariaDB's guidance for an InnoDB-only server (50-75 % of the memory; MariaDB has no "
                "innodb_dedicated_server, whose shares the advisor takes)")
    return "the dedicated-server baseline (the share innodb_dedicated_server takes on MySQL 8.0.3 and later)"


def _unknown(variable: str, why: str) -> SizerOutcome:
    return SizerOutcome("unknown", f"{variable}: {why}", variable=variable)


# ---------------------------------------------------------------- buffer pool

@sizer("sizing.buffer-pool")
def buffer_pool(ctx: SizingContext) -> SizerOutcome:
    if ctx.limit is None:
        return _unknown("innodb_buffer_pool_size", "not sized, because the memory limit is unknown")
    cur = ctx.number("innodb_buffer_pool_size")
    want = dedicated_buffer_pool_bytes(float(ctx.limit))
    unit = pool_unit(ctx, want)
    target = max(unit, round_down(want, unit))
    share = "50 %" if ctx.limit <= 4 * GiB else "75 %"
    baseline = _dedicated_baseline(ctx)
    if cur is not None and cur >= target * 0.9:
        return SizerOutcome("passed", f"innodb_buffer_pool_size is {format_size(cur)}, within 10 % of or above "
                            f"{baseline} of {share} for the {format_size(ctx.limit)} "
                            f"{ctx.limit_label} limit ({format_size(target)})")
    reason = (f"The buffer pool is {format_size(cur) if cur is not None else 'unknown'} with a {format_size(ctx.limit)} "
              f"{ctx.limit_label} limit; {baseline} for that memory is {share} "
              f"({format_size(want)}), rounded down to {format_cnf_size(target)} (a multiple of chunk × instances, "
              f"{format_size(unit)}), within the memory budget below.")
    return SizerOutcome("fired", reason, (Proposal("innodb_buffer_pool_size", format_cnf_size(target),
                                                   "sizing.buffer-pool", "sizing", "sizing", reason),))


# ---------------------------------------------------------------- redo

@sizer("sizing.redo-capacity")
def redo_capacity(ctx: SizingContext) -> SizerOutcome:
    v = ctx.view
    if v.flavor not in ("mysql", "percona", "mariadb"):
        return SizerOutcome("not_applicable", f"{v.flavor} has no InnoDB redo log to size")
    per_hour = v.known("derived.redo_bytes_per_hour")
    floor = redo_floor(v.purpose, ctx.workload, ctx.cpus)
    target, why = redo_target(per_hour, floor, pool_bytes=ctx.number("innodb_buffer_pool_size"), memory_bytes=ctx.limit,
                              disk_bytes=datadir_device_bytes(v.snapshot.host))
    cur_cap = v.known("derived.redo_capacity_bytes")
    if cur_cap is not None and cur_cap >= target:
        return SizerOutcome("passed", f"the redo log holds {format_size(cur_cap)}, at least the target "
                            f"{format_size(target)} ({why})")
    basis = f" ({v.rate_basis()})" if per_hour is not None else ""
    if per_hour is None:
        rate = v.get("rate.Innodb_os_log_written")
        if isinstance(rate, Unknown):
            why += f" ({rate.reason})"
    proposals = []
    for var, n in redo_settings(v.catalogue, v.flavor, v.version, target, ctx.number("innodb_log_files_in_group")).items():
        per = "" if n == target else f" ({format_size(n)} per file)"
        now = v.known("derived.redo_sized_by")
        reason = (f"The redo log holds {format_size(cur_cap) if cur_cap is not None else 'an unknown amount'}"
                  f"{f' ({now})' if now else ''}; the target is {format_size(target)}{per}: {why}{basis}.")
        proposals.append(Proposal(var, format_cnf_size(n), "sizing.redo-capacity", "sizing", "sizing", reason))
    return SizerOutcome("fired", proposals[0].reason, tuple(proposals))


# ---------------------------------------------------------------- I/O capacity

@sizer("sizing.io-capacity")
def io_capacity(ctx: SizingContext) -> SizerOutcome:
    cls = ctx.device_class
    if cls in (None, "unknown", "virtual"):
        what = "unknown" if cls in (None, "unknown") else "virtual (backing storage not visible)"
        return _unknown("innodb_io_capacity", f"not sized, because the datadir's device class is {what}")
    pair = io_capacity_for(cls)
    cur, cur_max = ctx.number("innodb_io_capacity"), ctx.number("innodb_io_capacity_max")
    if pair is None:
        return SizerOutcome("not_applicable", f"no I/O capacity is recommended for device class {cls!r}")
    if cur is None:
        return _unknown("innodb_io_capacity", "not sized, because the server reports no innodb_io_capacity")
    cap, mx = pair
    if not (cur < cap or (cls == "rotational" and cur > cap)):
        return SizerOutcome("passed", f"innodb_io_capacity is {format_number(cur)}, enough for {cls} storage "
                            f"({format_number(cap)})")
    why = (f"innodb_io_capacity is {format_number(cur)} with the datadir on {cls} storage; the manual's guidance "
           f"for that class gives {format_number(cap)} (max {format_number(mx)}).")
    out = [Proposal("innodb_io_capacity", str(cap), "sizing.io-capacity", "sizing", "sizing", why)]
    if cur_max is None or cur_max != mx:
        out.append(Proposal("innodb_io_capacity_max", str(max(mx, cap)), "sizing.io-capacity", "sizing", "sizing", why))
    return SizerOutcome("fired", why, tuple(out))


# ---------------------------------------------------------------- connections, log buffer

@sizer("sizing.benchmark-connections")
def benchmark_connections(ctx: SizingContext) -> SizerOutcome:
    if ctx.workload != "benchmark":
        return SizerOutcome("not_applicable", f"sizes max_connections for a benchmark's client threads; the workload is "
                            f"{ctx.workload}")
    mc = ctx.number("max_connections")
    if mc is None:
        return _unknown("max_connections", "not sized, because the server reports no max_connections")
    want, why = connections_for_workload(ctx.workload, mc, ctx.threads, ctx.max_used, ctx.cpus)
    if want is None:
        return _unknown("max_connections", f"not sized: {why}")
    if want <= mc:
        return SizerOutcome("passed", f"max_connections is {format_number(mc)}, enough for {why}")
    if ctx.limit is None:
        return _unknown("max_connections", f"not raised to {format_number(want)} for {why}, because "
                        "the memory limit is unknown and the budget could not be checked")
    reason = (f"max_connections is {format_number(mc)}; the benchmark opens one connection per client thread and a "
              f"client beyond max_connections fails with 'Too many connections', so {format_number(want)} is sized from "
              f"{why}.")
    return SizerOutcome("fired", reason, (Proposal("max_connections", str(want), "sizing.benchmark-connections",
                                                   "sizing", "sizing", reason),))


@sizer("sizing.log-buffer")
def log_buffer(ctx: SizingContext) -> SizerOutcome:
    if ctx.workload not in ("bulk-load", "benchmark"):
        return SizerOutcome("not_applicable", f"sizes innodb_log_buffer_size for loads and benchmarks; the workload is "
                            f"{ctx.workload}")
    lb = ctx.number("innodb_log_buffer_size")
    if lb is None:
        return _unknown("innodb_log_buffer_size", "not sized, because the server reports no innodb_log_buffer_size")
    want = log_buffer_for_workload(ctx.workload, lb)
    if want <= lb:
        return SizerOutcome("passed", f"innodb_log_buffer_size is {format_size(lb)}, at least {format_size(want)}")
    if ctx.limit is None:
        return _unknown("innodb_log_buffer_size", "not raised by sizing, because the memory limit is unknown")
    reason = (f"innodb_log_buffer_size is {format_size(lb)}; a {ctx.workload} workload writes large or many "
              f"concurrent transactions, and {format_size(want)} is MySQL 8.4's default.")
    return SizerOutcome("fired", reason, (Proposal("innodb_log_buffer_size", format_cnf_size(want), "sizing.log-buffer",
                                                   "sizing", "sizing", reason),))


# ---------------------------------------------------------------- durability

# The durable value of each variable a full file guards, and the relaxed value a throwaway benchmark may
# run with (and what it can lose), are the catalogue's (traits durable / relaxed / relaxed_loses).


def weakens_durability(var: str, value: str) -> Optional[str]:
    """Why `var = value` weakens durability, or None (the durability guard of advisor.mycnf.model)."""
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


@sizer("durability.relaxed-for-benchmark")
def relaxed_for_benchmark(ctx: SizingContext) -> SizerOutcome:
    v = ctx.view
    if not ctx.allow_unsafe_durability:
        return SizerOutcome("not_applicable", "writes relaxed durability only when asked for with --purpose benchmark "
                            "--allow-unsafe-durability")
    out = []
    for var in _relaxed(v.catalogue):
        t = v.catalogue.traits(var)
        val, risk = t.relaxed, t.relaxed_loses
        if v.catalogue.exists_on(var, v.flavor, v.version) is not True:
            continue
        out.append(Proposal(var, val, "durability.relaxed-for-benchmark", "guard", "unsafe",
                            f"UNSAFE, asked for with --purpose benchmark --allow-unsafe-durability: with {var} = {val} "
                            f"{risk}; use it only on a server whose data can be thrown away."))
    return SizerOutcome("fired", "relaxed durability for a throwaway benchmark server", tuple(out))


def _relaxed(cat: VariableCatalogue) -> list[str]:
    """The variables with a relaxed value for a throwaway benchmark, in the catalogue's order."""
    return [n for n in cat.traits_names() if cat.traits(n).relaxed]


def durable_value(cat: VariableCatalogue, name: str) -> Optional[str]:
    """The durable value a complete file states for `name` (the catalogue's), or None."""
    d = cat.traits(name).durable
    return None if d is None else str(d)


def full_durability_reason(name: str, current: str, variables: Mapping[str, str], profile: bool,
                           cat: VariableCatalogue) -> Optional[str]:
    """Why a complete file states the durable value of `name` (durability.full), or None when the current
    value is durable already or `name` has no durable value to state."""
    why = weakens_durability(name, current)
    if why is None or durable_value(cat, name) is None:
        return None
    who = "This version defaults to" if profile else "The server runs with"
    reason = f"{who} {name} = {current}, so {why}"
    if name == "sync_binlog" and str(variables.get("log_bin", "ON")).upper() in ("OFF", "0"):
        reason = (f"{who} {name} = {current} and the binary log is off, so nothing depends on it now; stating "
                  "sync_binlog = 1 keeps the binary log durable when it is turned on")
    return (reason + "; a complete file states full durability, and only --purpose benchmark "
            "--allow-unsafe-durability writes a weaker value.")


@sizer("durability.full", stage="full-mode")
def full_durability(ctx: SizingContext) -> SizerOutcome:
    out = []
    cat = ctx.view.catalogue
    for name in cat.traits_names():
        safe = durable_value(cat, name)
        if safe is None:
            continue
        cur = ctx.variables.get(name)
        reason = None if cur is None else full_durability_reason(name, cur, ctx.variables, False, cat)
        if reason is not None:
            out.append(Proposal(name, safe, "durability.full", "guard", "guard", reason))
    if not out:
        return SizerOutcome("passed", "innodb_flush_log_at_trx_commit, sync_binlog and innodb_doublewrite are durable")
    return SizerOutcome("fired", out[0].reason, tuple(out))


# ---------------------------------------------------------------- memory budget

@sizer("sizing.memory-budget", stage="whole-plan")
def memory_budget(ctx: SizingContext) -> SizerOutcome:
    """The server's own configuration fitted into its memory limit (the plan fits its proposals the same way)."""
    v = ctx.view
    if ctx.limit is None:
        return _unknown("max_connections", "the memory budget is not checked, because the memory limit is unknown")
    values = memory.PlannedValues(v.flavor, v.version, ctx.variables, v.catalogue, ctx.cpus)
    unit = pool_unit(ctx, values.size("innodb_buffer_pool_size"))
    floor = memory.conn_floor_for(ctx.number("max_connections") or 151, ctx.max_used)
    active, _ = ctx.expected()
    try:
        _, adjustments, budget = memory.fit_to_memory(values, ctx.limit, unit, floor, active=active,
                                                      bp_floor=ctx.data_floor(unit))
    except memory.BudgetError as e:
        return SizerOutcome("unknown", f"the configuration cannot fit: {e}", variable="max_connections")
    if not adjustments:
        what = ("worst-case memory" if budget.active is None
                else f"memory with the {format_number(budget.active)} connections expected at once")
        return SizerOutcome("passed", f"{what} {format_size(budget.total)} fits in {int(memory.TARGET_FRACTION * 100)} % "
                            f"of the {format_size(ctx.limit)} {ctx.limit_label} limit")
    out = tuple(Proposal(a.variable, str(a.new) if a.variable == "max_connections" else format_cnf_size(a.new),
                         "sizing.memory-budget", "sizing", "sizing", a.reason[0].upper() + a.reason[1:] + ".")
                for a in adjustments)
    return SizerOutcome("fired", out[0].reason, out)
