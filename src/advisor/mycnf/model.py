"""A my.cnf plan as data: the options it is built for, the settings it writes (each with its origin,
previous value, reason, source and notes), the memory budget and what it deliberately leaves alone;
and the pure decisions the plan builder (advisor.mycnf.plan) makes about single proposals: how the
target takes one (adapt_to_target), which of several wins (resolve), whether it weakens durability
(advisor.rules.sizers.weakens_durability). advisor.render.mycnf renders a plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Collection, Optional

from advisor.errors import UsageError
from advisor.knowledge.catalogue import VariableCatalogue
from advisor.mycnf.profile import Profile
from advisor.rules.memory import MemoryBudget
from advisor.rules.schema import SEVERITY_RANK
from advisor.rules.sizers import KIND_RANK, Proposal, weakens_durability
from advisor.rules.sizing import WORKLOADS, redo_settings
from advisor.units import format_cnf_size, format_size, to_number, try_number
from advisor.versions import Version

__all__ = ["MycnfOptions", "Plan", "Proposal", "Setting", "adapt_to_target", "category_of", "check_options",
           "resolve", "set_global_statement", "weakens_durability"]

MiB = 1 << 20
GiB = 1 << 30

MODES = ("changes", "full")

# What my.cnf knows of each variable (whether the larger of two proposals wins, whether it is written at
# all, whether the server sizes it, whether a full file states it, the block the server rounds it to, its
# category) is the variable catalogue's: VariableCatalogue.traits() (advisor/knowledge/traits.toml).

# The order of the sections of a plan: the variable catalogue's categories, 'uncategorised' last.
CATEGORY_ORDER = ("durability", "memory", "redo", "flushing", "storage", "concurrency", "network", "tls", "version",
                  "benchmark", "limits", "transactions", "replication", "logging", "instrumentation", "engine",
                  "optimizer", "correctness", "security", "charset", "os", "tidb", "uncategorised")


def category_of(var: str, catalogue: VariableCatalogue) -> str:
    """The variable's category in the catalogue ('uncategorised' when it has none)."""
    return str(catalogue.traits(var).category)


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
    threads: Optional[int] = None          # the benchmark's client threads (--sysbench), for max_connections and memory


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
    expected_why: str = ""     # where the connections expected at once come from (the budget's active count)

    @property
    def changes(self) -> list[Setting]:
        return [s for s in self.settings if s.changed]

    @property
    def restart_needed(self) -> bool:
        return any(s.restart is not False for s in self.changes)


# ---------------------------------------------------------------- target correctness

def _bytes(value: str) -> Optional[int]:
    n = to_number(value)
    return None if n is None else int(n)


def adapt_to_target(p: Proposal, flavor: str, version: Version, files_in_group: int,
                    catalogue: VariableCatalogue, shown: Collection[str] = ()) -> tuple[Optional[Proposal], str]:
    """The proposal as this target takes it (renamed, rounded), or (None, why it is not written).
    `shown`: the variables the snapshot shows (lower case): one the catalogue does not cover on this
    release but the server shows is an option the server knows, written with a note that its value
    was not checked against the catalogue."""
    var = p.variable.lower()
    value = p.value
    note = ""
    never = catalogue.traits(var).not_written_why
    if never:
        return None, never
    ex = catalogue.exists_on(var, flavor, version)
    if var in ("innodb_log_file_size", "innodb_log_files_in_group") and catalogue.exists_on("innodb_redo_log_capacity", flavor, version):
        if var == "innodb_log_files_in_group":
            return None, f"{flavor} {version} sizes the redo log with innodb_redo_log_capacity, which supersedes it"
        ex = False  # deprecated there and ignored once innodb_redo_log_capacity is set: translate below
    if ex is None and var in shown:
        note = (f"{var} is not in the variable catalogue for {flavor} {version}; the server shows it, so the option "
                "exists, but the value was not checked against its limits")
        return Proposal(var, value, p.source, p.kind, p.severity, p.reason, p.reference), note
    if ex is None:
        return None, (f"{var} is not in the variable catalogue for {flavor}, and an option the server does not know "
                      "stops it from starting")
    if ex is False:
        n = _bytes(value)
        if var == "innodb_log_file_size" and catalogue.exists_on("innodb_redo_log_capacity", flavor, version) and n:
            total = n * max(1, files_in_group)
            var, value = "innodb_redo_log_capacity", format_cnf_size(total)
            note = f"renamed: {flavor} {version} sizes the redo log with innodb_redo_log_capacity ({format_size(n)} × {files_in_group} files)"
        elif var == "innodb_redo_log_capacity" and catalogue.exists_on("innodb_log_file_size", flavor, version) and n:
            var, nb = next(iter(redo_settings(catalogue, flavor, version, n, files_in_group).items()))
            value = format_cnf_size(nb)
            note = f"renamed: {flavor} {version} has no innodb_redo_log_capacity; the redo log is sized with innodb_log_file_size"
        else:
            return None, catalogue.check_setting(var, value, flavor, version)[0]
    n = _bytes(value)
    spec0 = catalogue.info(var, flavor, version)
    if spec0 is not None and spec0.unit == "bytes" and n is not None and try_number(value) is not None:
        value = format_cnf_size(n)  # 262144 -> 256K, as a my.cnf writes it
    block = catalogue.traits(var).block
    if block and n is not None and n % block:
        rounded = n // block * block
        value = format_cnf_size(rounded)
        note = (note + "; " if note else "") + f"rounded down to a multiple of {block} bytes, as the server would"
    problems = catalogue.check_setting(var, value, flavor, version)
    problems = [x for x in problems if "has no effect" not in x]
    if problems:
        return None, problems[0]
    spec = catalogue.info(var, flavor, version)
    if spec is not None and spec.deprecated:
        repl = f"; its replacement {', '.join(spec.replaced_by)} is not available here" if spec.replaced_by else ""
        note = (note + "; " if note else "") + f"{var} is {spec.deprecation}{repl}"
    q = Proposal(var, value, p.source, p.kind, p.severity, p.reason, p.reference)
    return q, note


# ---------------------------------------------------------------- conflicts

def _rank(p: Proposal, larger_wins: bool) -> tuple[Any, ...]:
    size = _bytes(p.value) if larger_wins else None
    kind = KIND_RANK.get(p.kind, 9)
    if larger_wins and p.kind != "guard":
        kind = 1
    return (kind, -(size or 0), -SEVERITY_RANK.get(p.severity, 0), p.source, p.value)


def resolve(proposals: list[Proposal], catalogue: VariableCatalogue) -> dict[str, tuple[Proposal, list[str]]]:
    """One proposal per variable, deterministically: the durability guard first; for capacities
    (the catalogue's larger_wins) the larger value; otherwise a rule's evidence beats generic sizing, then the higher
    severity, then the rule id in alphabetical order. Returns var -> (winner, notes naming the losers)."""
    by_var: dict[str, list[Proposal]] = {}
    for p in proposals:
        by_var.setdefault(p.variable, []).append(p)
    out: dict[str, tuple[Proposal, list[str]]] = {}
    for var, ps in by_var.items():
        larger_wins = bool(catalogue.traits(var).larger_wins)
        ranked = sorted(ps, key=lambda p: _rank(p, larger_wins))
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
            elif larger_wins:
                why = "for a capacity the larger value wins (it costs disk space or a little memory, never data safety)"
            elif win.kind == "rule" and lose.kind == "sizing":
                why = "a rule's evidence from this server wins over generic sizing"
            else:
                why = "the higher severity wins, then the rule id in alphabetical order"
            notes.append(f"{lose.label} proposed {lose.value}; {why}.")
        out[var] = (win, notes)
    return out


# ---------------------------------------------------------------- options

def check_options(snapshot: Any, opts: MycnfOptions) -> str:
    """The workload the plan is for, or UsageError for options that do not fit the target."""
    if snapshot.target.flavor == "tidb":
        raise UsageError("TiDB is configured in tidb.toml and with SET GLOBAL, not with a my.cnf.",
                         "use `advisor audit` for TiDB findings.")
    if opts.mode not in MODES:
        raise UsageError(f"--mode {opts.mode!r} is not changes or full.", None)
    if opts.purpose not in ("production", "benchmark"):
        raise UsageError(f"--purpose {opts.purpose!r} is not production or benchmark.", None)
    workload = opts.workload or ("benchmark" if opts.purpose == "benchmark" else "oltp")
    if workload not in WORKLOADS:
        raise UsageError(f"--workload {workload!r} is not one of {', '.join(WORKLOADS)}.", None)
    if opts.allow_unsafe_durability and opts.purpose != "benchmark":
        raise UsageError("--allow-unsafe-durability is only accepted with --purpose benchmark.",
                         "a production server keeps innodb_flush_log_at_trx_commit = 1 and sync_binlog = 1.")
    return workload



def set_global_statement(var: str, value: str, unit: Optional[str]) -> str:
    """The SET GLOBAL that applies `var = value` on a running server."""
    v = str(value)
    if unit == "bytes":
        n = _bytes(v)
        if n is not None:
            v = str(n)
    elif try_number(v) is None and v.upper() not in ("ON", "OFF"):
        v = f"'{v}'"
    return f"SET GLOBAL {var} = {v}"
