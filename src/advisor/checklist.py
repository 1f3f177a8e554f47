"""The pre-benchmark checklist: items grouped by phase, each with a status, its evidence and the fix.

Structured data only; advisor.render.checklist turns it into Markdown (templates/checklist.md.j2) or
JSON. Three sources of items:

1. The audit (purpose benchmark): every rule's outcome becomes an item, mapped generically so that
   new rules appear without touching this file (see `rule_item`):
     fired, severity critical or warning -> fail   (the rule names a problem for a benchmark)
     fired, severity info                -> pass   (advisory; the message is kept as evidence)
     passed                              -> pass   (evidence: the engine's reason)
     unknown                             -> unknown (evidence: which fact is missing and why)
     not_applicable                      -> omitted (listed under `omitted` in JSON with the reason)
   The phase comes from the rule's category (PHASE_BY_CATEGORY, then keyword fallbacks).
2. The sysbench command line, when given (advisor.sysbench.sysbench_items).
3. Items no snapshot can decide (restore the data, ANALYZE after prepare, same client host, warm-up,
   record versions and configuration): status `manual`, with the command that does it.

JSON contract `advisor.checklist/1` (docs/checklist.md): later versions add keys, never remove them.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Literal, Optional

from advisor import __version__
from advisor.snapshot import Snapshot, Target

if TYPE_CHECKING:  # imported lazily at run time (the CLI must stay fast)
    from advisor.report import Report
    from advisor.rules.facts import FactView
    from advisor.rules.schema import Rule
    from advisor.sysbench import LocalSysbench, SysbenchCommand

CHECKLIST_SCHEMA = "advisor.checklist/1"

Phase = Literal["environment", "server", "data", "run"]
Status = Literal["pass", "fail", "unknown", "manual"]
PHASES: tuple[Phase, ...] = ("environment", "server", "data", "run")
PHASE_TITLES = {"environment": "Environment (hosts, OS, network)", "server": "Server configuration",
                "data": "Data", "run": "The run"}
STATUSES: tuple[Status, ...] = ("pass", "fail", "unknown", "manual")

# Rule category (advisor.rules.schema.CATEGORIES) -> phase. A category added later falls back on
# keywords, then on "server" (see phase_for_category), so its rules still appear.
PHASE_BY_CATEGORY: dict[str, Phase] = {
    "network": "environment", "storage": "environment", "os": "environment",
    "tls": "server", "memory": "server", "redo": "server", "flushing": "server", "durability": "server",
    "concurrency": "server", "version": "server", "tidb": "server",
    "benchmark": "run",
    "logging": "server", "instrumentation": "server", "transactions": "server", "replication": "server",
    "limits": "server", "engine": "server", "optimizer": "server", "correctness": "server",
    "security": "server", "charset": "server",
}
_ENV_WORDS = ("net", "nic", "os", "kernel", "host", "disk", "stor", "cpu", "numa", "thp", "swap", "governor", "fs")
_DATA_WORDS = ("data", "stat", "schema", "table")
_RUN_WORDS = ("bench", "run", "client", "workload", "sysbench")


def phase_for_category(category: str) -> Phase:
    c = category.lower()
    if c in PHASE_BY_CATEGORY:
        return PHASE_BY_CATEGORY[c]
    if any(w in c for w in _ENV_WORDS):
        return "environment"
    if any(w in c for w in _DATA_WORDS):
        return "data"
    if any(w in c for w in _RUN_WORDS):
        return "run"
    return "server"


@dataclass
class Item:
    id: str
    phase: Phase
    status: Status
    title: str
    evidence: str
    fix: str = ""
    command: str = ""                       # for manual items: what to run
    rule: Optional[str] = None              # the rule id when the item comes from the audit
    severity: Optional[str] = None
    facts: dict[str, Any] = field(default_factory=dict)
    references: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        assert self.phase in PHASES, self.phase
        assert self.status in STATUSES, self.status

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "phase": self.phase, "status": self.status, "title": self.title,
                             "evidence": self.evidence, "fix": self.fix}
        if self.command:
            d["command"] = self.command
        if self.rule:
            d["rule"] = self.rule
            d["severity"] = self.severity
        if self.facts:
            d["facts"] = self.facts
        if self.references:
            d["references"] = list(self.references)
        return d


@dataclass
class Checklist:
    target: Target
    source: str
    collected_at: str
    items: list[Item]
    sysbench: Optional["SysbenchCommand"] = None
    local: Optional["LocalSysbench"] = None
    omitted: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in STATUSES}
        for it in self.items:
            out[it.status] += 1
        return out

    @property
    def failed(self) -> bool:
        return any(it.status == "fail" for it in self.items)

    def by_phase(self) -> list[tuple[Phase, list[Item]]]:
        return [(p, [it for it in self.items if it.phase == p]) for p in PHASES]

    def to_dict(self) -> dict[str, Any]:
        from advisor.report import target_dict

        return {
            "schema": CHECKLIST_SCHEMA,
            "advisor_version": __version__,
            "target": target_dict(self.target),
            "purpose": "benchmark",
            "source": self.source,
            "collected_at": self.collected_at,
            "sysbench": self.sysbench.to_dict() if self.sysbench else None,
            "sysbench_here": self.local.to_dict() if self.local else None,
            "summary": self.counts(),
            "items": [it.to_dict() for it in self.items],
            "omitted": list(self.omitted),
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------- rule outcomes -> items

def rule_item(outcome: Any, rule: Optional["Rule"]) -> Optional[Item]:
    """One audit outcome as a checklist item (None for not_applicable). Generic over rules: uses only the
    rule's id, title, category, severity and references, and the outcome."""
    spec = rule.spec if rule is not None else None
    category = outcome.finding.category if outcome.finding else (spec.category if spec else "")
    title = outcome.finding.title if outcome.finding else (spec.title if spec else outcome.rule)
    refs = list(spec.references) if spec else []
    phase = phase_for_category(category)
    base = dict(id=f"rule:{outcome.rule}", phase=phase, title=f"Avoid: {title}", rule=outcome.rule,
                severity=spec.severity if spec else None, references=refs)
    if outcome.status == "not_applicable":
        return None
    if outcome.status == "fired":
        f = outcome.finding
        status: Status = "fail" if f.severity in ("critical", "warning") else "pass"
        evidence = f.message if status == "fail" else f"info: {f.message}"
        fix = f.fix
        if f.recommendation and not all(f"{k} = {v}" in fix for k, v in f.recommendation.items()):
            fix = (fix + " " if fix else "") + "Recommended: " + ", ".join(f"{k} = {v}" for k, v in f.recommendation.items()) + "."
        base.update(severity=f.severity)
        return Item(status=status, evidence=evidence, fix=fix, facts=dict(f.evidence), **base)  # type: ignore[arg-type]
    if outcome.status == "passed":
        return Item(status="pass", evidence=f"not the case: {outcome.reason}.", **base)  # type: ignore[arg-type]
    return Item(status="unknown", evidence=f"could not be checked: {outcome.reason}.",
                fix=f"Collect the missing fact and run the checklist again; `advisor explain {outcome.rule}` says "
                    "what the rule needs.", **base)  # type: ignore[arg-type]


def rule_items(report: "Report", rules: Iterable["Rule"]) -> tuple[list[Item], list[dict[str, str]]]:
    by_id = {r.id: r for r in rules}
    items: list[Item] = []
    omitted: list[dict[str, str]] = []
    for o in sorted(report.outcomes, key=lambda o: o.rule):
        it = rule_item(o, by_id.get(o.rule))
        if it is None:
            omitted.append({"rule": o.rule, "reason": o.reason})
        else:
            items.append(it)
    return items, omitted


# ---------------------------------------------------------------- items no snapshot can decide

def _client_args(view: "FactView", cmd: Optional["SysbenchCommand"]) -> str:
    """`-h HOST -P PORT -u USER` for the mysql client: sysbench's address and user when a command is given
    (ANALYZE runs as the benchmark user), else the snapshot's target and the advisor's own user."""
    from advisor.sysbench import Unresolved

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
    return f"-h {t.host} -P {t.port}{who}"


def _client_binary(view: "FactView") -> str:
    return "mariadb" if view.snapshot.target.flavor == "mariadb" else "mysql"


def _schema(cmd: Optional["SysbenchCommand"]) -> str:
    from advisor.sysbench import Unresolved

    if cmd is None:
        return "sbtest"
    db = cmd.get("mysql-db")
    return "sbtest" if isinstance(db, Unresolved) or not db else str(db)


def _with_command(cmd: "SysbenchCommand", new: str) -> str:
    """The sysbench command with its command word replaced (run -> prewarm, ...)."""
    from advisor.sysbench import _quote

    words = shlex.split(cmd.display)
    old = cmd.command or cmd.command_unresolved
    for i in range(len(words) - 1, -1, -1):
        if words[i] == old:
            words[i] = new
            break
    return " ".join(_quote(w) for w in words)


def manual_items(view: "FactView", cmd: Optional["SysbenchCommand"], local: Optional["LocalSysbench"]) -> list[Item]:
    from advisor.sysbench import Unresolved

    items: list[Item] = []
    t = view.snapshot.target
    client = _client_binary(view)
    args = _client_args(view, cmd)
    schema = _schema(cmd)
    command = (cmd.effective_command or "run") if cmd is not None else None

    # environment: same client host, record versions and configuration
    server_addr = t.host if t.transport == "tcp" else "localhost"
    if cmd is not None and cmd.hosts() and not isinstance(cmd.hosts()[0], Unresolved):
        server_addr = str(cmd.hosts()[0])
    items.append(Item(
        id="same-client-host", phase="environment", status="manual",
        title="Run every run from the same client host, over the same route",
        evidence="A snapshot cannot tell where the next run will start from; a different client host, NIC or "
                 "route changes latency and the bandwidth ceiling.",
        fix="Start every run from the same machine and record its name and route with each result.",
        command=f"hostname; ip route get {server_addr}"))
    rec = _recorded_config(view)
    sysbench_version = (local.version if local is not None and local.version else None)
    items.append(Item(
        id="record-versions-config", phase="environment", status="manual",
        title="Record the exact versions and configuration with the results",
        evidence="Current values: " + "; ".join(rec) + (f"; sysbench {sysbench_version} on this machine"
                                                          if sysbench_version else "") + ".",
        fix="Keep a snapshot of the server's variables, the sysbench version and the exact command line next to "
            "every result, so that a later run can be compared like for like.",
        command=f"advisor collect {_client_args(view, None)} -o before-run.json; sysbench --version"))

    if cmd is not None and not cmd.is_database_test:
        return items

    # data: ANALYZE after prepare; restore between runs
    n_tables = cmd.get("tables") if cmd is not None else None
    if cmd is not None and cmd.uses_sbtest and isinstance(n_tables, int):
        if n_tables <= 4:
            sql = "ANALYZE TABLE " + ", ".join(f"{schema}.sbtest{i}" for i in range(1, n_tables + 1))
            analyze = f"{client} {args} -e \"{sql}\""
        else:
            analyze = (f"for i in $(seq 1 {n_tables}); do {client} {args} -e \"ANALYZE TABLE {schema}.sbtest$i\"; done")
        prewarm_word = "warmup" if _era(cmd, local)[0] == "1.1" else "prewarm"
        alt = (f" `sysbench ... {prewarm_word}` also runs ANALYZE TABLE on every table before reading it."
               if cmd.test_kind == "lua" else "")
    else:
        analyze = f"{client} {args} -e \"ANALYZE TABLE {schema}.<table>\"  # for every table of the benchmark"
        alt = ""
    items.append(Item(
        id="analyze-after-prepare", phase="data", status="manual",
        title="Run ANALYZE TABLE on every table after loading the data",
        evidence="Index statistics after a bulk load can be stale until InnoDB samples them again; the optimizer "
                 "plans the range queries from them (PingCAP's sysbench report runs ANALYZE on every table "
                 "after prepare). A snapshot does not show when statistics were last taken.",
        fix="Analyze every table once after prepare and before the first measured run." + alt,
        command=analyze))

    writes = cmd.writes if cmd is not None else None
    backup, restore = _backup_restore(view)
    if cmd is not None and command == "prepare":
        items.append(Item(
            id="restore-data-between-runs", phase="data", status="manual",
            title="Back up the data right after this prepare and restore it before every run",
            evidence="Runs that write (read_write, write_only, update, insert, delete) change the data and "
                     "fragment the indexes, so the second run starts from a different state than the first.",
            fix="Take a copy right after prepare (and ANALYZE); before every run stop the server, copy it back and "
                f"start the server again, as PingCAP's v5.2.0 report does after each workload: `{restore}`.",
            command=backup))
    elif writes is False:
        items.append(Item(
            id="restore-data-between-runs", phase="data", status="pass",
            title="Same data for every run",
            evidence=f"{cmd.test} only reads, so the data stays the same from run to run.",  # type: ignore[union-attr]
            fix="Warm the buffer pool the same way before each run (see the warm-up item)."))
    else:
        if cmd is not None and cmd.test_kind == "lua":
            redo = (f"{_with_command(cmd, 'cleanup')} && {_with_command(cmd, 'prepare')}")
            what = f"the workload ({cmd.test}) updates, deletes or inserts rows"
        else:
            redo = restore
            what = ("the workload may write" if cmd is None or cmd.test is None else f"the workload ({cmd.test}) may write")
        items.append(Item(
            id="restore-data-between-runs", phase="data", status="manual",
            title="Restore the same data before every run",
            evidence=f"{what[0].upper() + what[1:]}, so each run would start from data the previous run changed; "
                     "a snapshot cannot tell whether the data was restored.",
            fix="Before every run restore the data taken right after prepare (stop the server, copy the datadir "
                f"back, start it: `{restore}`; PingCAP restores after each workload), or drop and prepare again, "
                "then ANALYZE and warm up the same way.",
            command=redo))

    # run: warm-up (when sysbench does not do it itself)
    if cmd is None:
        items.append(Item(
            id="warm-up", phase="run", status="manual",
            title="Warm up the server before the measured run",
            evidence="After a restart or a restore the buffer pool is cold; the first minutes measure disk reads.",
            fix="Run the workload (or `sysbench <test> ... prewarm`) for a while before the measured run, the same "
                "way every time; sysbench 1.1 has --warmup-time=N.",
            command=f"{client} {args} -e \"SELECT COUNT(pad) FROM {schema}.sbtest1 USE INDEX (k_1)\"  # per table"))
    return items


def _backup_restore(view: "FactView") -> tuple[str, str]:
    """Shell commands that copy the datadir aside after prepare, and back before a run."""
    from advisor.rules.facts import Unknown

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


def _recorded_config(view: "FactView") -> list[str]:
    from advisor.rules.facts import Unknown
    from advisor.units import format_size

    t = view.snapshot.target
    out = [f"{t.flavor} {t.version_string or t.version}"]
    for name in ("innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin",
                 "innodb_doublewrite", "innodb_flush_method", "max_connections", "have_ssl", "thread_handling"):
        v = view.get(f"var.{name}")
        if isinstance(v, Unknown):
            continue
        if str(v) == "":
            out.append(f"{name}=(empty)")
        elif name.endswith("_size") and str(v).isdigit():
            out.append(f"{name}={format_size(int(v))}")
        else:
            out.append(f"{name}={v}")
    redo = view.get("derived.redo_capacity_bytes")
    if not isinstance(redo, Unknown):
        out.append(f"redo log {format_size(redo)}")
    return out


def _era(cmd: Optional["SysbenchCommand"], local: Optional["LocalSysbench"]) -> tuple[Optional[str], str]:
    """Which sysbench (1.0 or 1.1) the run will use, and how we know."""
    if local is not None and local.era:
        return local.era, f"sysbench {local.version} on this machine"
    if cmd is not None:
        era, why = cmd.era_hint()
        if era:
            return era, why
        return None, ("sysbench is not installed here and " + why) if local is not None and not local.path else why
    return None, "no sysbench command was given"


# ---------------------------------------------------------------- the whole checklist

def build(snapshot: Snapshot, report: "Report", rules: Iterable["Rule"], cmd: Optional["SysbenchCommand"] = None,
          local: Optional["LocalSysbench"] = None, source: str = "live") -> Checklist:
    """Pure: the checklist for a snapshot, its benchmark-purpose audit, and optionally a sysbench command
    and what sysbench on this machine is."""
    import advisor.rules.derived  # noqa: F401  (registers the derived facts the items read)
    from advisor.rules.facts import FactView
    from advisor.sysbench import sysbench_items

    view = FactView(snapshot, "benchmark")
    own: list[Item] = []
    notes: list[str] = []
    if cmd is not None:
        own += sysbench_items(cmd, view, local)
        if not cmd.is_database_test:
            notes.append(f"{cmd.test} is a built-in sysbench test that does not use the database; only the "
                         "command line itself was checked against the server.")
    own += manual_items(view, cmd, local)
    ruled, omitted = rule_items(report, rules)
    items: list[Item] = []
    for phase in PHASES:
        items += [it for it in own if it.phase == phase]
        items += [it for it in ruled if it.phase == phase]
    ids = [it.id for it in items]
    assert len(ids) == len(set(ids)), f"duplicate checklist item ids: {ids}"
    if report.missing:
        notes += [f"not collected: {m.fact}: {m.reason}" for m in report.missing]
    return Checklist(target=snapshot.target, source=source, collected_at=snapshot.collected_at, items=items,
                     sysbench=cmd, local=local, omitted=omitted, notes=notes)


def make_checklist(snapshot: Snapshot, sysbench_text: Optional[str] = None, rules_dirs: Iterable[str] = (),
                   source: str = "live", local: Optional["LocalSysbench"] = None, detect_local: bool = True,
                   cwd: Optional[str] = None) -> Checklist:
    """Parse the sysbench command (reading its --config-file relative to `cwd`), find sysbench on this
    machine (unless `local` is given or detect_local is False), run the benchmark audit, build."""
    from advisor import api
    from advisor.rules.loader import load_rules
    from advisor.sysbench import parse_command, read_config_file, read_local_sysbench

    cmd = None
    if sysbench_text is not None:
        cmd = parse_command(sysbench_text)
        if cmd.config_file is not None:
            text, problem = read_config_file(cmd.config_file, cwd)
            cmd = parse_command(sysbench_text, config_text=text, config_problem=problem)
        if local is None and detect_local:
            local = read_local_sysbench(cmd.program)
    dirs = list(rules_dirs)
    report = api.audit(snapshot, purpose="benchmark", rules_dirs=dirs, source=source)
    return build(snapshot, report, load_rules(dirs), cmd, local, source)
