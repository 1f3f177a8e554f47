"""Build a my.cnf plan from a snapshot and its audit. Pure: the report and the variable catalogue are
handed in (advisor.api.mycnf_plan runs the audit and loads the catalogue).

Pipeline (one code path for live servers, snapshots, the demo and hardware profiles):

  1. rules: each fired finding's recommendation is a proposal justified by the finding's message (one
     sentence with the numbers) and first reference;
  2. sizers: what a tuned server needs even when no rule fired (advisor.rules.sizers, stage `propose`);
  3. target: every proposal is checked against the variable catalogue for this flavor and version
     (names, existence, limits), renamed where the target calls it differently (redo), rounded as the
     server would round it, or dropped with the reason;
  4. durability guard: a proposal that weakens innodb_flush_log_at_trx_commit, sync_binlog,
     innodb_doublewrite or the flush method is dropped unless --purpose benchmark
     --allow-unsafe-durability;
  5. conflicts: one value per variable, chosen deterministically (advisor.mycnf.model.resolve), the
     losers named;
  6. memory budget (sizer sizing.memory-budget): the result, merged with the server's current values,
     is fitted into 90 % of the memory limit (advisor.rules.memory.fit_to_memory) and never exceeds it;
  7. settings equal to what the server has are not written (changes mode); full mode adds the core
     tuning settings and the server's other non-default values, marked as kept, and states durable
     values (sizer durability.full).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from advisor.errors import UsageError
from advisor.knowledge.catalogue import VariableCatalogue
from advisor.mycnf.compare import same_value, show, unit_of
from advisor.mycnf.model import (CATEGORY_ORDER, MycnfOptions, Plan, Setting,
                                 adapt_to_target, category_of, check_options, resolve)
from advisor.rules import memory
from advisor.rules.engine import fact_view
from advisor.rules.facts import FactView, Unknown
from advisor.rules.sizers import (SIZERS, Proposal, SizingContext, durable_value, full_durability_reason, pick_reference, pool_unit,
                                  sizing_context, weakens_durability)
from advisor.units import format_cnf_size, format_number, format_size, to_number, try_number
from advisor.versions import Version

def _bytes(value: Any) -> Optional[int]:
    n = to_number(value)
    return None if n is None else int(n)


@dataclass
class _Build:
    """What every step of the pipeline reads and adds to."""

    snapshot: Any
    opts: MycnfOptions
    catalogue: VariableCatalogue
    view: FactView
    sizing: SizingContext
    flavor: str
    version: Version
    variables: dict[str, str]
    inputs: dict[str, Any]                     # the catalogue's default-formula inputs: cpus, ram_bytes, buffer pool
    not_changed: list[str] = field(default_factory=list)
    settings: dict[str, Setting] = field(default_factory=dict)
    references: dict[str, tuple[str, ...]] = field(default_factory=dict)   # sizer id -> its entry's references
    skipped: list[tuple[str, str]] = field(default_factory=list)           # (variable, why no sizer sized it)
    adapt_notes: dict[tuple[str, str], str] = field(default_factory=dict)  # (variable, source) -> rename/round note

    @property
    def profile(self) -> bool:
        return self.opts.profile is not None

    def previous(self, var: str) -> str:
        return _previous(var, self.variables, self.flavor, self.version, self.profile, self.inputs, self.catalogue)

    def restart(self, var: str) -> Optional[bool]:
        spec = self.catalogue.info(var, self.flavor, self.version)
        return None if spec is None else (not spec.dynamic)


def build_plan(snapshot: Any, report: Any, opts: MycnfOptions, catalogue: VariableCatalogue,
               references: Optional[dict[str, tuple[str, ...]]] = None) -> Plan:
    """The plan for a snapshot and its audit (`report`, an advisor.report.Report for opts.purpose).
    `references` are the sizers' references by id (their catalogue entries); a line cites one."""
    workload = check_options(snapshot, opts)
    b = _start(snapshot, opts, catalogue, workload, references or {})
    proposals = _rule_proposals(b, report) + _sizer_proposals(b)
    chosen = resolve(_guarded(b, _targeted(b, proposals)), b.catalogue)
    _settings_from(b, chosen)
    budget, adjustments = _fit_budget(b)
    if opts.mode == "full":
        _add_kept(b)
    unsafe = [f"{s.variable} = {s.value}" for s in b.settings.values() if weakens_durability(s.variable, s.value)]
    order = {c: i for i, c in enumerate(CATEGORY_ORDER)}
    ordered = sorted(b.settings.values(), key=lambda s: (s.kind == "kept", order.get(s.category, 99), s.variable))
    limit, limit_label, mem_line = memory_limit(snapshot)
    ver_display = opts.profile.version if opts.profile is not None else snapshot.target.version
    return Plan(flavor=b.flavor, version=b.version, version_display=ver_display, purpose=opts.purpose,
                workload=workload, mode=opts.mode, source=opts.source, settings=ordered,
                facts=header_facts(snapshot, b.view, mem_line) + _workload_fact(b), budget=budget, budget_adjustments=adjustments,
                limit_label=limit_label, not_changed=list(dict.fromkeys(b.not_changed)), unsafe=unsafe,
                report=report, profile=opts.profile, expected_why=b.sizing.expected()[1])


def _start(snapshot: Any, opts: MycnfOptions, catalogue: VariableCatalogue, workload: str,
           references: dict[str, tuple[str, ...]]) -> _Build:
    view = fact_view(snapshot, opts.purpose, catalogue)
    variables = {k.lower(): v for k, v in snapshot.server.variables.items()}
    sizing = sizing_context(view, workload, opts.allow_unsafe_durability, opts.threads)
    bp = variables.get("innodb_buffer_pool_size")
    inputs = {"cpus": sizing.cpus, "ram_bytes": sizing.limit, "buffer_pool_bytes": _bytes(bp) if bp else None}
    return _Build(snapshot, opts, catalogue, view, sizing, snapshot.target.flavor, Version.parse(snapshot.target.version),
                  variables, inputs, references=references)


def _rule_proposals(b: _Build, report: Any) -> list[Proposal]:
    out: list[Proposal] = []
    # a finding without a setting of its own whose fix is another finding's recommended line (autoinc
    # interleaved under STATEMENT logging: "binlog_format = ROW", binlog-format-statement's) is fixed by
    # that line: "no my.cnf setting fixes it" would deny what the file writes
    # or whose fix points to another finding's recommendation by its rule id ("enlarge the redo log as the
    # redo-log-undersized finding beside this one recommends")
    lines = {f"{v} = {val}".lower() for f in report.findings for v, val in f.recommendation.items() if v not in f.experiments}
    lines |= {f.rule for f in report.findings if set(f.recommendation) - set(f.experiments)}
    for f in report.findings:
        fix = " ".join(f.fix.lower().split())
        if not f.recommendation and not any(line in fix for line in lines - {f.rule}):
            b.not_changed.append(f"{f.rule} ({f.severity}): {f.title}; no my.cnf setting fixes it here "
                                 f"(`advisor explain {f.rule}`).")
        for n in f.notes:
            if n.kind == "dropped":
                b.not_changed.append(f"{f.rule}: {n}.")
        for var, val in f.recommendation.items():
            if var in f.experiments:
                b.not_changed.append(f"{var} = {val}: {f.rule} ({f.severity}) suggests trying it; it changes how the "
                                     "server runs the workload (and what a benchmark compares), so it is left for you "
                                     f"to try and measure, not written (`advisor explain {f.rule}`).")
                continue
            spec = b.catalogue.get(var)
            ref = f.references[0] if f.references else (spec.sources[0] if spec is not None else "")
            out.append(Proposal(var.lower(), str(val), f.rule, "rule", f.severity, f.message, ref))
    return out


def _with_reference(b: _Build, p: Proposal) -> Proposal:
    if p.reference:
        return p
    refs = b.references.get(p.source, ())
    return Proposal(p.variable, p.value, p.source, p.kind, p.severity, p.reason,
                    pick_reference(refs, b.flavor, p.variable))


def _sizer_proposals(b: _Build) -> list[Proposal]:
    """The `propose` sizers' lines, in registry order; what they could not size goes to not_changed."""
    out: list[Proposal] = []
    for s in SIZERS.values():
        if s.stage != "propose":
            continue
        outcome = s.fn(b.sizing)
        out += [_with_reference(b, p) for p in outcome.proposals]
        if outcome.status == "unknown" and outcome.variable:
            b.skipped.append((outcome.variable, outcome.reason))
    return out


def _targeted(b: _Build, proposals: list[Proposal]) -> list[tuple[Proposal, str]]:
    files = int(_bytes(b.variables.get("innodb_log_files_in_group", "2")) or 2)
    out: list[tuple[Proposal, str]] = []
    for p in proposals:
        q, why = adapt_to_target(p, b.flavor, b.version, files, b.catalogue, b.variables)
        if q is None:
            b.not_changed.append(f"{p.variable} = {p.value} ({p.label}): not written, because {why}.")
            continue
        out.append((q, why))
    return out


def _guarded(b: _Build, adapted: list[tuple[Proposal, str]]) -> list[Proposal]:
    allowed_unsafe = b.opts.allow_unsafe_durability and b.opts.purpose == "benchmark"
    b.adapt_notes = {(q.variable, q.source): why for q, why in adapted if why}
    out: list[Proposal] = []
    for p, _ in adapted:
        why = weakens_durability(p.variable, p.value)
        if why and not allowed_unsafe:
            b.not_changed.append(f"{p.variable} = {p.value} ({p.label}): not written, because {why}; only "
                                 "--purpose benchmark --allow-unsafe-durability writes that.")
            continue
        out.append(p)
    return out


def _settings_from(b: _Build, chosen: dict[str, tuple[Proposal, list[str]]]) -> None:
    """Settings for the winners, except those the server (or, for a profile, the default) already has."""
    for var, (p, notes) in sorted(chosen.items()):
        unit = unit_of(var, b.flavor, b.version, b.catalogue)
        cur = b.variables.get(var)
        if cur is not None and same_value(p.value, cur, unit):
            if b.profile:
                b.not_changed.append(f"{var}: {p.label} recommends {p.value}, the default on {b.flavor} {b.version}.")
            else:
                b.not_changed.append(f"{var}: {p.label} recommends {p.value}, which the server already has.")
            continue
        extra = [b.adapt_notes[(var, p.source)]] if (var, p.source) in b.adapt_notes else []
        b.settings[var] = Setting(var, p.value, p.label, p.source, p.kind, b.previous(var), p.reason, p.reference,
                                  b.restart(var), extra + notes, category_of(var, b.catalogue))
    b.not_changed += [f"{text}." for var, text in b.skipped if var not in b.settings]


# ---------------------------------------------------------------- memory budget (sizing.memory-budget)

def _fit_budget(b: _Build) -> tuple[memory.MemoryBudget, list[str]]:
    effective = dict(b.variables)
    effective.update({k: s.value for k, s in b.settings.items()})
    values = memory.PlannedValues(b.flavor, b.version, effective, b.catalogue, b.sizing.cpus)
    limit = b.sizing.limit
    active, _ = b.sizing.expected()
    if limit is None:
        return memory.compute_budget(values, None, active), []
    mc_now = _bytes(b.variables.get("max_connections", "151")) or 151
    unit = pool_unit(b.sizing, values.size("innodb_buffer_pool_size"))
    try:
        _, adjustments, _ = memory.fit_to_memory(values, limit, unit, memory.conn_floor_for(mc_now, b.sizing.max_used),
                                                 active=active, bp_floor=b.sizing.data_floor(unit))
    except memory.BudgetError as e:
        raise UsageError(f"cannot size {b.flavor} {b.version} for a {format_size(limit)} {b.sizing.limit_label} "
                         f"limit: {e}.", "give the server more memory, or lower max_connections and the "
                         "per-connection buffers by hand.") from None
    texts = [_apply_adjustment(b, a) for a in adjustments]
    _round_buffer_pool(b)
    effective.update({k: s.value for k, s in b.settings.items()})
    budget = memory.compute_budget(memory.PlannedValues(b.flavor, b.version, effective, b.catalogue, b.sizing.cpus), limit,
                                   active)
    if budget.total > limit:  # fit_to_memory guarantees this cannot happen; never write a file that breaks it
        raise UsageError(f"internal budget check failed: {format_size(budget.total)} exceeds the "
                         f"{format_size(limit)} {b.sizing.limit_label} limit.", "report this as a bug.")
    return budget, texts


def _apply_adjustment(b: _Build, a: memory.Adjustment) -> str:
    counts = a.variable == "max_connections"
    fmt = (lambda n: str(n)) if counts else format_cnf_size
    old, new = fmt(a.old), fmt(a.new)
    if a.variable in b.settings:
        s = b.settings[a.variable]
        s.notes.append(f"memory budget: {old} -> {new}, {a.reason}.")
        s.value = new
    else:
        ref = pick_reference(b.references.get("sizing.memory-budget", ()), b.flavor, a.variable)
        b.settings[a.variable] = Setting(a.variable, new, "sizer sizing.memory-budget", "sizing.memory-budget", "sizing",
                                         b.previous(a.variable), a.reason[0].upper() + a.reason[1:] + ".", ref,
                                         b.restart(a.variable), [], category_of(a.variable, b.catalogue))
    shown = format_number if counts else format_size
    return f"{a.variable}: {shown(a.old)} -> {shown(a.new)} ({a.reason})"


def _round_buffer_pool(b: _Build) -> None:
    """The final buffer pool, rounded to the unit the server will use for it."""
    s = b.settings.get("innodb_buffer_pool_size")
    if s is None:
        return
    bp = _bytes(s.value) or 0
    unit = pool_unit(b.sizing, bp)
    if bp % unit:
        r = max(unit, bp // unit * unit)
        s.notes.append(f"rounded from {s.value} to {format_cnf_size(r)}, a multiple of chunk × instances "
                       f"({format_size(unit)}), so the server does not round it up")
        s.value = format_cnf_size(r)


# ---------------------------------------------------------------- full mode

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


def _full_names(b: _Build) -> list[str]:
    cat = b.catalogue
    names: list[str] = [n for n in cat.names_with("plan_full") if cat.exists_on(n, b.flavor, b.version)]
    if not b.profile:
        for name in sorted(b.variables):
            t = cat.traits(name)
            if name in names or t.autosized or t.not_written_why:
                continue
            if cat.exists_on(name, b.flavor, b.version) and \
                    cat.is_default(name, b.variables[name], b.flavor, b.version, **b.inputs) is False:
                names.append(name)
    return names


def _add_kept(b: _Build) -> None:
    """Full mode: the core settings and the server's other non-default values, kept as they are, with
    durable values stated (durability.full) where the server runs weaker ones."""
    cat = b.catalogue
    allowed_unsafe = b.opts.allow_unsafe_durability and b.opts.purpose == "benchmark"
    for name in _full_names(b):
        if name in b.settings or cat.traits(name).not_written_why:
            continue
        if name == "innodb_log_file_size" and cat.exists_on("innodb_redo_log_capacity", b.flavor, b.version):
            continue  # the redo log is sized by innodb_redo_log_capacity there
        spec = cat.info(name, b.flavor, b.version)
        if spec is None or spec.noop:
            continue
        if spec.deprecated and spec.renamed and cat.exists_on(spec.replaced_by[0], b.flavor, b.version):
            continue  # the old name of a renamed variable: the file writes the new name, which has the same value
        cur = b.variables.get(name)
        if cur is None:
            cur = cat.default_for(name, b.flavor, b.version, **b.inputs)
        value = None if cur is None else _cnf_value(cur, spec.unit)
        if value is None:
            continue
        if weakens_durability(name, value) and not allowed_unsafe:
            _state_durable(b, name, cur, spec)
            continue
        _keep(b, name, cur, value, spec)


def _state_durable(b: _Build, name: str, cur: str, spec: Any) -> None:
    reason = full_durability_reason(name, cur, b.variables, b.profile, b.catalogue)
    safe = durable_value(b.catalogue, name)
    if reason is None or safe is None:
        return
    b.settings[name] = Setting(name, safe, "guard durability.full", "durability.full", "guard",
                               b.previous(name), reason, spec.sources[0], not spec.dynamic, [], category_of(name, b.catalogue))


def _keep(b: _Build, name: str, cur: str, value: str, spec: Any) -> None:
    cat = b.catalogue
    if spec.deprecated and cat.is_default(name, cur, b.flavor, b.version, **b.inputs):
        repl = f" (use {', '.join(spec.replaced_by)})" if spec.replaced_by else ""
        b.not_changed.append(f"{name}: deprecated on {b.flavor} {b.version}{repl} and at its default, so the full "
                             "file does not write it.")
        return
    problems = cat.check_setting(name, value, b.flavor, b.version)
    if problems:
        b.not_changed.append(f"{name} = {value}: kept out of the full file, because {problems[0]}.")
        return
    d = cat.default_for(name, b.flavor, b.version, **b.inputs)
    is_def = cat.is_default(name, cur, b.flavor, b.version, **b.inputs)
    state = "the default" if is_def else (f"set on the server (default {show(d, spec.unit)})" if d is not None
                                          else "set on the server")
    previous = "the default for this version" if b.profile else "the server has this value now"
    b.settings[name] = Setting(
        name, value, "kept", "kept", "kept", previous,
        f"{name} = {value} is {state}; no rule or sizing step changes it, and it is written so that this "
        "file states the complete tuning configuration.", spec.sources[0], not spec.dynamic, [], category_of(name, b.catalogue))


# ---------------------------------------------------------------- previous values, header facts

def _previous(var: str, variables: dict[str, str], flavor: str, version: Version, profile: bool,
              inputs: dict[str, Any], catalogue: VariableCatalogue) -> str:
    unit = unit_of(var, flavor, version, catalogue)
    cur = variables.get(var)
    d = catalogue.default_for(var, flavor, version, **inputs)
    if profile:
        if d is None:
            return "no recorded default"
        return "default: empty (the server's built-in choice)" if str(d).strip() == "" else f"default {show(d, unit)}"
    if cur is None:
        return "not reported by the server" + (f" (default {show(d, unit)})" if d is not None else "")
    if str(cur).strip() == "":
        return "empty (the server's built-in choice" + (f", {d})" if d else ")")
    is_def = catalogue.is_default(var, cur, flavor, version, **inputs)
    return show(cur, unit) + (" (the default)" if is_def else "")


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


def _workload_fact(b: _Build) -> list[str]:
    n, why = b.sizing.expected()
    if b.sizing.workload != "benchmark" and b.opts.threads is None and n is None:
        return []
    return [f"connections at once: {format_number(n)} ({why})" if n is not None else f"connections at once: unknown ({why})"]


def header_facts(snapshot: Any, view: FactView, mem_line: str) -> list[str]:
    """The facts the plan was sized from, one line each, for the file's header."""
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
        why = _missing(snapshot, "calibration", "")
        lines.append("calibration: not run" + (f" ({why})" if why and "did not run" not in why else ""))
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
