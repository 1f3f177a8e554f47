"""The Python API behind the CLI. No printing, no exiting.

One orchestration, `assess`: collect a snapshot (or take one), calibrate as the purpose says, audit.
`advisor audit`, `fleet`, `mycnf` and `checklist` all go through it, so the same server is judged the
same way by each; mycnf (mycnf_plan) and the checklist (checklist_of) then work from its report. The
loading of the catalogue (advisor.rules.loader) and every collector run here, at the edge; the core
they hand the results to reads no file.

Public entry points other code calls: collect, audit, assess, mycnf, mycnf_plan, mycnf_profile,
checklist, calibrate, attach_calibration, read_snapshot_file, demo_snapshot (and load_snapshot,
re-exported from advisor.snapshot).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple, Optional, Sequence

from advisor import __version__
from advisor.collect.clock import now_iso
from advisor.errors import AdvisorError, CollectionError, ConnectError, SnapshotError, UsageError
from advisor.report import Report
from advisor.snapshot import Missing, Snapshot, load_snapshot

if TYPE_CHECKING:  # pragma: no cover
    from advisor.checklist import Checklist
    from advisor.collect.connection import ConnectionOptions, Endpoint
    from advisor.mycnf.model import MycnfOptions, Plan
    from advisor.rules.catalogue import Catalogue
    from advisor.sysbench import LocalSysbench

__all__ = ["Assessment", "Calibration", "Collection", "assess", "prepare", "attach_calibration", "audit", "calibrate",
           "calibration_mode", "checklist", "checklist_of", "collect", "demo_snapshot", "load_snapshot", "mycnf",
           "mycnf_plan", "mycnf_profile", "read_snapshot_file"]

DEMO_SNAPSHOT = "demo-seed-000.json"


def collect(opts: ConnectionOptions, sample_seconds: float = 0.0, endpoint: Optional[Endpoint] = None, *,
            machine: bool = True, sysroot: Optional[str] = None, ssh: Optional[str] = None,
            ssh_options: Iterable[str] = (), host_facts: Optional[str] = None, conn: object = None,
            progress: Optional[Callable[[str, float, float], None]] = None) -> Snapshot:
    """Connect, read the server (read-only) and return a snapshot. With `machine` (the default) the
    snapshot also gets the client's network path and, when they can be had, the server host's
    facts (see collect_machine). `conn`: an open connection to read through (left open). `progress`:
    told how the --sample-seconds wait goes (read_server)."""
    from advisor.collect.connection import connect, resolve

    from advisor.collect.mysql import read_server
    from advisor.collect.parse import parse_server, parse_target

    if sample_seconds < 0:
        raise UsageError("--sample-seconds must be 0 or more.", "pass e.g. --sample-seconds 10, or 0 for rates since the server started.")
    ep = endpoint or resolve(opts)
    own = conn is None
    conn = connect(ep) if own else conn
    try:
        raw = read_server(conn, ep, sample_seconds=sample_seconds, progress=progress)
    finally:
        try:
            if own:
                conn.close()  # type: ignore[attr-defined]
        except Exception:  # the server may already be gone; nothing to clean up then
            pass
    target = parse_target(raw, ep.host, ep.port, ep.socket)
    server = parse_server(raw, ep.user, ep.ssl_mode, ep.transport)
    snap = Snapshot.model_construct(advisor_version=__version__, collected_at=now_iso(), target=target,
                                    server=server, missing=[])
    for key, why in raw.cuts.items():  # advisor.collect.limits: a statement's answer read in part
        snap.missing.append(Missing.model_construct(fact=f"server.{key}", reason=why))
    if machine:
        collect_machine(snap, ep.host, ep.transport, sysroot=sysroot, ssh=ssh, ssh_options=ssh_options,
                        host_facts=host_facts)
    else:
        snap.missing.append(Missing.model_construct(fact="host", reason="host facts were not collected by this command"))
        snap.missing.append(Missing.model_construct(fact="client", reason="the client's network path was not collected by this command"))
    snap.missing.append(Missing.model_construct(fact="calibration", reason="calibration did not run"))
    return snap


def collect_machine(snap: Snapshot, host: Optional[str], transport: str, *, sysroot: Optional[str] = None,
                    ssh: Optional[str] = None, ssh_options: Iterable[str] = (), host_facts: Optional[str] = None) -> None:
    """Add the client's network path (this machine, or --sysroot) and the server host's facts:
    from a host-facts file, over ssh, from --sysroot, or read here when the server is local.
    Without any of them the snapshot says which facts are missing and how to supply them."""
    from advisor.collect.host import (NO_HOST_TIP, decide_locality, gather_local, load_host_facts_file, pid_file,
                                      server_dirs)
    from advisor.collect.host_parse import parse_host
    from advisor.collect.network import read_client

    if ssh and host_facts:
        raise UsageError("--ssh and --host-facts both supply the server's host facts; give one.", "use --ssh USER@HOST to read them now, or --host-facts FILE for facts written earlier on the server.")
    if sysroot is not None and not Path(sysroot).is_dir():
        raise UsageError(f"--sysroot {sysroot} is not a directory.", "give the root of a tree that holds proc/ and sys/.")
    snap.client = read_client(host, transport, sysroot or "/", source="recorded" if sysroot else "local")
    variables = snap.server.variables
    dirs = server_dirs(variables)
    pf = pid_file(variables)
    if host_facts:
        raw, source, origin = load_host_facts_file(host_facts), "file", f"read from the host-facts file {host_facts}"
    elif ssh:
        from advisor.collect.ssh import gather_remote

        raw, source, origin = gather_remote(ssh, dirs, pf, ssh_options), "ssh", f"gathered on {ssh} over ssh"
    elif sysroot:
        raw, source, origin = gather_local(sysroot, dirs, pf), "recorded", f"read from the tree under --sysroot {sysroot}"
    else:
        loc = decide_locality(host, transport, variables)
        if not loc.local:
            snap.missing.append(Missing(fact="host", reason=(
                f"{loc.reason}, so the server host's facts (CPU, memory and cgroup limit, swap, THP, the storage "
                f"behind the datadir) were not read and the rules that need them report unknown. Tip: {NO_HOST_TIP}")))
            return
        raw, source, origin = gather_local("/", dirs, pf), "local", f"read on this machine, where the server runs: {loc.reason}"
    facts = parse_host(raw, dirs or None, source)
    server_name = {k.lower(): v for k, v in variables.items()}.get("hostname")
    if source in ("file", "ssh") and server_name and facts.hostname and server_name.split(".")[0] != facts.hostname.split(".")[0]:
        origin += f"; note: they describe host {facts.hostname!r} but the server reports @@hostname {server_name!r}"
    facts.origin = origin
    snap.host = facts


def host_facts_only(sysroot: Optional[str] = None) -> str:
    """`advisor collect --host-facts-only`: this machine's host facts as a host-facts document
    (raw files plus the parsed facts), without connecting to a server."""
    from advisor.collect.host import host_facts_document, host_facts_only as gather

    if sysroot is not None and not Path(sysroot).is_dir():
        raise UsageError(f"--sysroot {sysroot} is not a directory.", "give the root of a tree that holds proc/ and sys/.")
    raw, facts = gather(sysroot or "/")
    return host_facts_document(raw, facts)


def read_snapshot_file(path: str, input_format: Optional[str] = None) -> Snapshot:
    """A snapshot file, or a dump that advisor.dumps imports (detected, or named by input_format:
    'snapshot' or one of advisor.dumps.FORMATS). A pt-mysql-summary / pt-stalk directory works too, and a
    host's directory as the Ansible role fetches it (advisor.dumps.fetched)."""
    import sys

    p = Path(path)
    if input_format not in (None, "snapshot"):
        return _import_dump(path, input_format, None if path != "-" else sys.stdin.read())
    if path == "-":
        text = sys.stdin.read()
        if input_format == "snapshot" or _looks_like_snapshot(text):
            return load_snapshot(text, "snapshot on stdin")
        return _import_dump(path, None, text)
    if p.is_dir():
        from advisor.dumps.fetched import is_fetched_dir, load_fetched

        if is_fetched_dir(path):  # a host's results as the Ansible role fetches them (ansible/)
            return load_fetched(path)
        return _import_dump(path, None, None)
    if not p.is_file():
        raise SnapshotError(f"snapshot file {p} does not exist.", "pass the path written by `advisor collect -o FILE`.")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return _import_dump(path, None, None)  # the importer reports binary and non-UTF-8 files
    except OSError as e:
        raise SnapshotError(f"cannot read snapshot {p}: {e}.", "check the file and its permissions.") from None
    if input_format == "snapshot" or _looks_like_snapshot(text):
        return load_snapshot(text, str(p))
    return _import_dump(path, None, text)


def _looks_like_snapshot(text: str) -> bool:
    """A JSON object that names schema_version or target near its start: an advisor snapshot
    (possibly a broken one, which load_snapshot then reports)."""
    head = text.lstrip()[:4096]
    return head.startswith("{") and ('"schema_version"' in head or '"advisor_version"' in head)


def _import_dump(path: str, input_format: Optional[str], text: Optional[str]) -> Snapshot:
    """`audit --snapshot` on something that is not a snapshot: import it as a dump; when no parser
    reads it either, say both."""
    from advisor.dumps import import_snapshot
    from advisor.dumps.formats import formats_sentence
    from advisor.dumps.read import UnreadableDump

    name = "standard input" if path == "-" else path
    try:
        return import_snapshot(name, input_format=input_format, variables_text=text)
    except UnreadableDump as e:
        raise SnapshotError(
            f"{name} is neither an advisor snapshot (JSON from `advisor collect` or `advisor import`) nor a dump "
            f"advisor can read ({e.detail}). advisor reads snapshots and {formats_sentence()}.",
            "collect a snapshot with `advisor collect -o snap.json`, or save a dump with "
            "`mysql -NBe 'SHOW GLOBAL VARIABLES' > variables.txt` (`advisor import` also takes --status FILE and "
            "--flavor/--version).") from None


def demo_snapshot() -> Snapshot:
    from advisor.resources import files

    return load_snapshot((files("advisor.data") / DEMO_SNAPSHOT).read_text(encoding="utf-8"), "the bundled demo snapshot")


# ---------------------------------------------------------------- the one orchestration
# (NamedTuples, not dataclasses: every command imports this module, and a dataclass costs about a
# millisecond of start-up to create; bench/startup.py)

class Collection(NamedTuple):
    """How to get the facts of a live server: connection options and what else to read."""

    options: ConnectionOptions
    endpoint: Optional[Endpoint] = None
    sample_seconds: float = 0.0
    machine: bool = True
    sysroot: Optional[str] = None
    ssh: Optional[str] = None
    ssh_options: tuple[str, ...] = ()
    host_facts: Optional[str] = None


class Calibration(NamedTuple):
    """Whether to calibrate a live server: `enabled` None means as the purpose says (full for benchmark,
    round trips only for production); the budget counts from `started` (time.monotonic())."""

    enabled: Optional[bool] = None
    budget_s: float = 10.0
    write_probe: bool = False
    progress: Any = None
    started: Optional[float] = None


class Assessment(NamedTuple):
    """What assess() found: the snapshot (with its calibration), the audit, the catalogue it used, and
    how long collecting, calibrating and auditing took (seconds)."""

    snapshot: Snapshot
    report: Report
    catalogue: "Catalogue"
    timings: dict[str, float]
    failure: Optional[AdvisorError] = None  # calibration failed after the audit's facts were collected

    def raise_failure(self) -> None:
        """After the report is written: a calibration that failed ends the run with its exit code (5)."""
        if self.failure is not None:
            raise self.failure


def assess(purpose: str, *, snapshot: Optional[Snapshot] = None, collection: Optional[Collection] = None,
           calibration: Calibration = Calibration(), rules_dirs: Iterable[str] = (), ignore: Iterable[str] = (),
           source: str = "live", adjust: Optional[Callable[[Snapshot], Snapshot]] = None,
           catalogue: Optional["Catalogue"] = None) -> Assessment:
    """Collect (from `collection`) or take `snapshot`, let `adjust` state what the user knows (mycnf's
    --ram/--cores/--disk), calibrate a live server as the purpose says, and audit. `catalogue`: the one
    load_entries(rules_dirs) returned, when the caller assesses many snapshots with it (fleet)."""
    from advisor.rules.loader import load_entries

    _check_purpose(purpose)
    if catalogue is None:
        catalogue = load_entries(rules_dirs)  # a bad rule directory fails before any connection is made
    ignore = _check_ignore(catalogue, ignore)
    timings: dict[str, float] = {}
    t0 = time.monotonic()
    if snapshot is None:
        if collection is None:
            raise UsageError("assess needs a snapshot or connection options.", "pass snapshot= or collection=api.Collection(options).")
        snapshot, endpoint, mode = _collect_for(purpose, collection, calibration)
    else:
        if calibration.enabled or calibration.write_probe:
            raise UsageError("--calibrate and --write-probe measure a live server; they do not apply with "
                             "--snapshot or --demo.", "the snapshot's own calibration section is used.")
        endpoint, mode = None, None
    t1 = time.monotonic()
    if adjust is not None:
        snapshot = adjust(snapshot)
    failure = None
    if mode is not None:
        try:
            attach_calibration(snapshot, endpoint, mode, budget_s=calibration.budget_s,  # type: ignore[arg-type]
                               write_probe=calibration.write_probe, progress=calibration.progress,
                               started=calibration.started)
        except CollectionError as e:  # the facts are in: audit them, say calibration failed and why
            failure = e
            snapshot.calibration = None
            snapshot.missing = [m for m in snapshot.missing if m.fact != "calibration"] + [
                Missing(fact="calibration", reason=f"calibration failed: {e.message.rstrip('.')}")]
    t2 = time.monotonic()
    report = _judge(snapshot, purpose, catalogue, ignore, source)
    if failure is not None:
        report.notes.append(f"calibration failed ({failure.message.rstrip('.')}); the findings come from the "
                            "facts collected before it, and the run exits 5.")
    timings.update({"collect": t1 - t0, "calibrate": t2 - t1, "audit": time.monotonic() - t2})
    return Assessment(snapshot, report, catalogue, timings, failure)


def prepare(purpose: str, rules_dirs: Iterable[str] = (), ignore: Iterable[str] = ()) -> "Catalogue":
    """Check the purpose and --ignore and load the catalogue once, for a caller that then assesses
    many servers with it (`assess(..., catalogue=)`; fleet). Raises UsageError / RuleLoadError."""
    from advisor.rules.loader import load_entries

    _check_purpose(purpose)
    catalogue = load_entries(rules_dirs)
    _check_ignore(catalogue, ignore)
    return catalogue


def _check_purpose(purpose: str) -> None:
    if purpose not in ("production", "benchmark"):
        raise UsageError(f"--purpose {purpose!r} is not production or benchmark.", "pass --purpose production (the default) or --purpose benchmark.")


def _check_ignore(catalogue: "Catalogue", ignore: Iterable[str]) -> list[str]:
    ids = [i.strip() for i in ignore if i.strip()]
    known = {r.id for r in catalogue.rules} | {a for r in catalogue.rules for a in r.spec.aliases}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise UsageError(f"--ignore names unknown rule id(s): {', '.join(unknown)}.", "`advisor rules list` shows the ids.")
    return ids


def _collect_for(purpose: str, c: Collection, cal: Calibration) -> tuple[Snapshot, Endpoint, Optional[str]]:
    from advisor.collect.connection import resolve

    mode = calibration_mode(purpose, cal.enabled, cal.write_probe)
    if mode is not None:
        check_calibration_budget(cal.budget_s)
    ep = c.endpoint or resolve(c.options)
    snap = collect(c.options, sample_seconds=c.sample_seconds, endpoint=ep, machine=c.machine, sysroot=c.sysroot,
                   ssh=c.ssh, ssh_options=c.ssh_options, host_facts=c.host_facts)
    return snap, ep, mode


def _judge(snapshot: Snapshot, purpose: str, catalogue: "Catalogue", ignore: list[str], source: str) -> Report:
    from advisor.rules.calibration import report_calibration
    from advisor.rules.engine import evaluate

    outcomes = evaluate(snapshot, catalogue.rules, purpose, ignore, catalogue=catalogue.variables)
    report = Report(target=snapshot.target, purpose=purpose, outcomes=outcomes, missing=list(snapshot.missing),
                    source=source, collected_at=snapshot.collected_at, groups=catalogue.cause_groups())
    conn = snapshot.server.connection
    if source == "live" and conn.ssl_mode:
        report.connection = (f"{conn.transport}, TLS mode {conn.ssl_mode}"
                             + (f" ({conn.tls_version})" if conn.tls_version else " (not encrypted)"))
    cal = snapshot.calibration
    if cal is not None:
        report.calibration = report_calibration(snapshot)
        if source == "live":
            report.notes.append(calibration_note(cal))
    return report


def calibration_note(cal: Any) -> str:
    """What a live calibration did: its time against its budget (counted from its own start) and which
    probes measured something; those that did not are in `missing` with the reason."""
    from advisor.collect.calibrate import FACT, LABEL

    measured = [LABEL[n] for n, fact in FACT.items() if getattr(cal, fact.split(".", 1)[1], None) is not None]
    missing = {m.fact for m in getattr(cal, "missing", []) or []}
    unmeasured = [LABEL[n] for n, fact in FACT.items() if fact in missing]
    took = f"{cal.duration_s:.1f}" if cal.duration_s >= 0.1 else f"{cal.duration_s:.2f}"
    text = f"calibration ({cal.mode}) ran {took} s of a {cal.budget_s:g} s budget"
    text += f"; measured: {', '.join(measured)}" if measured else "; it measured nothing"
    if unmeasured:
        text += f"; not measured: {', '.join(unmeasured)} (the reasons are under Not collected)"
    return text + "; the measurements are under MEASURED (`calibration` in JSON)"


def audit(snapshot: Snapshot, purpose: str = "production", rules_dirs: Iterable[str] = (),
          ignore: Iterable[str] = (), source: str = "live") -> Report:
    """The audit of a snapshot already in hand (assess without collecting)."""
    return assess(purpose, snapshot=snapshot, rules_dirs=rules_dirs, ignore=ignore, source=source).report


def sysbench_threads(sysbench_text: str, cwd: Optional[str] = None) -> Optional[int]:
    """The client threads of a sysbench command line (its --config-file read relative to `cwd`), or None
    when it leaves them to a shell variable or an unread file. A malformed command is a UsageError."""
    from advisor.collect.sysbench import read_config_file
    from advisor.sysbench import Unresolved, parse_command

    cmd = parse_command(sysbench_text)
    if cmd.config_file is not None:
        text, problem = read_config_file(cmd.config_file, cwd)
        cmd = parse_command(sysbench_text, config_text=text, config_problem=problem)
    t = cmd.get("threads")
    return None if isinstance(t, Unresolved) or not isinstance(t, int) else t


def mycnf(snapshot: Snapshot, purpose: str = "production", mode: str = "changes", workload: Optional[str] = None,
          allow_unsafe_durability: bool = False, rules_dirs: Iterable[str] = (), ignore: Iterable[str] = (),
          source: str = "live", profile: Optional[object] = None, threads: Optional[int] = None) -> "Plan":
    """A my.cnf plan for this snapshot (advisor.mycnf.model): settings with their justification, the
    memory budget, what was deliberately not changed. Render it with advisor.render.mycnf.render.
    `threads`: the benchmark's client threads (sysbench_threads), which size max_connections and the
    connections the memory budget counts."""
    from advisor.mycnf.model import MycnfOptions

    opts = MycnfOptions(purpose=purpose, mode=mode, workload=workload, allow_unsafe_durability=allow_unsafe_durability,
                        rules_dirs=tuple(rules_dirs), ignore=tuple(ignore), source=source, profile=profile,  # type: ignore[arg-type]
                        threads=threads)
    return mycnf_plan(snapshot, opts)


def mycnf_plan(snapshot: Snapshot, opts: "MycnfOptions") -> "Plan":
    """The my.cnf plan for a snapshot: its assessment for opts.purpose, then the plan (mycnf_of)."""
    from advisor.mycnf.model import check_options

    check_options(snapshot, opts)
    a = assess(opts.purpose, snapshot=snapshot, rules_dirs=opts.rules_dirs, ignore=opts.ignore, source=opts.source)
    return mycnf_of(a, opts)


def mycnf_of(assessment: Assessment, opts: "MycnfOptions") -> "Plan":
    """The my.cnf plan from an assessment made for opts.purpose (advisor.mycnf.plan.build_plan)."""
    from advisor.mycnf.plan import build_plan

    cat = assessment.catalogue
    refs = {s.id: s.references for s in cat.sizers}
    return build_plan(assessment.snapshot, assessment.report, opts, cat.variables, refs)


def mycnf_profile(profile: object, purpose: str = "production", mode: str = "changes",
                  allow_unsafe_durability: bool = False, rules_dirs: Iterable[str] = (), ignore: Iterable[str] = (),
                  threads: Optional[int] = None) -> "Plan":
    """A my.cnf plan for a hardware profile (advisor.mycnf.profile.Profile), through the same pipeline."""
    from advisor.knowledge import default_catalogue
    from advisor.mycnf.profile import profile_snapshot

    return mycnf(profile_snapshot(profile, default_catalogue()), purpose=purpose, mode=mode, workload=profile.workload,  # type: ignore[attr-defined]
                 allow_unsafe_durability=allow_unsafe_durability, rules_dirs=rules_dirs, ignore=ignore,
                 source=f"the hardware profile {profile.describe()}", profile=profile, threads=threads)  # type: ignore[attr-defined]


def checklist(snapshot: Snapshot, sysbench_text: Optional[str] = None, rules_dirs: Iterable[str] = (),
              source: str = "live", local: "Optional[LocalSysbench]" = None, detect_local: bool = True,
              cwd: Optional[str] = None) -> "Checklist":
    """The pre-benchmark checklist for a snapshot already in hand (see checklist_of)."""
    a = assess("benchmark", snapshot=snapshot, rules_dirs=rules_dirs, source=source)
    return checklist_of(a, sysbench_text, local=local, detect_local=detect_local, cwd=cwd)


def checklist_of(assessment: Assessment, sysbench_text: Optional[str] = None, *,
                 local: "Optional[LocalSysbench]" = None, detect_local: bool = True,
                 cwd: Optional[str] = None) -> "Checklist":
    """The checklist from a benchmark-purpose assessment: parse the sysbench command (reading its
    --config-file relative to `cwd`), find sysbench on this machine (unless `local` is given or
    detect_local is False), and build it (advisor.checklist.build)."""
    from advisor.checklist import build
    from advisor.collect.sysbench import read_config_file, read_local_sysbench
    from advisor.sysbench import parse_command

    cmd = None
    if sysbench_text is not None:
        cmd = parse_command(sysbench_text)
        if cmd.config_file is not None:
            text, problem = read_config_file(cmd.config_file, cwd)
            cmd = parse_command(sysbench_text, config_text=text, config_problem=problem)
        if local is None and detect_local:
            local = read_local_sysbench(cmd.program)
    a = assessment
    return build(a.snapshot, a.report, a.catalogue, cmd, local, a.report.source)


# ---------------------------------------------------------------- calibration

CALIBRATE_DEFAULT_SECONDS = 10.0
CALIBRATE_MAX_SECONDS = 300.0


def calibration_mode(purpose: str, calibrate: Optional[bool], write_probe: bool = False) -> Optional[str]:
    """Which calibration an audit runs: None (skipped), 'light' (round trips only) or 'full'.
    Default: full for --purpose benchmark, light for production; --calibrate / --no-calibrate decide
    explicitly; --write-probe implies --calibrate."""
    if calibrate is False:
        if write_probe:
            raise UsageError("--write-probe runs a calibration probe, and --no-calibrate skips calibration.",
                             "drop one of the two options.")
        return None
    if calibrate or write_probe:
        return "full"
    return "full" if purpose == "benchmark" else "light"


def check_calibration_budget(budget_s: float) -> None:
    if not (1.0 <= budget_s <= CALIBRATE_MAX_SECONDS):
        raise UsageError(f"--calibrate-seconds {budget_s:g} is out of range.",
                         f"give between 1 and {CALIBRATE_MAX_SECONDS:g} seconds (default {CALIBRATE_DEFAULT_SECONDS:g}).")


def attach_calibration(snapshot: Snapshot, endpoint: Endpoint, mode: str = "full",
                       budget_s: float = CALIBRATE_DEFAULT_SECONDS, write_probe: bool = False,
                       progress=None, started: Optional[float] = None,
                       probes: Optional[Sequence[str]] = None) -> Snapshot:
    """Run the calibration probes (all, or only `probes`) against the server the snapshot was collected
    from and put the results into snapshot.calibration (the hook the audit flow uses after collect())."""
    from advisor.collect.calibrate import run_calibration

    check_calibration_budget(budget_s)
    try:
        snapshot.calibration = run_calibration(snapshot, endpoint, mode=mode, budget_s=budget_s,
                                               write_probe=write_probe, progress=progress, started=started,
                                               probes=probes)
    except ConnectError as e:  # the facts were collected over a first connection: the server went away since
        raise CollectionError(f"the server at {endpoint.describe()} refused a new connection during calibration, "
                              f"after the audit's connection had worked ({e.message.rstrip('.')}).",
                              "check the server's error log (did it restart or stop?), then run again; "
                              "--no-calibrate audits without a second connection.") from None
    snapshot.missing = [m for m in snapshot.missing if m.fact != "calibration"]
    return snapshot


def calibrate(opts: ConnectionOptions, budget_s: float = CALIBRATE_DEFAULT_SECONDS, write_probe: bool = False,
              progress=None, started: Optional[float] = None, endpoint: Optional[Endpoint] = None,
              probes: Optional[Sequence[str]] = None) -> Snapshot:
    """Collect the server facts and run a full calibration (or only `probes`, e.g. ["sort"]) within
    `budget_s` seconds counted from `started` (time.monotonic(); default: now). Returns the snapshot
    with its calibration section."""
    from advisor.collect.connection import resolve

    import time

    started = time.monotonic() if started is None else started
    check_calibration_budget(budget_s)
    if probes and "commit" in probes and not write_probe:
        raise UsageError("--probe commit measures commits with single-row inserts, which only --write-probe allows.",
                         "add --write-probe.")
    ep = endpoint or resolve(opts)
    snap = collect(opts, endpoint=ep)
    return attach_calibration(snap, ep, "full", budget_s=budget_s, write_probe=write_probe, progress=progress,
                              started=started, probes=probes)
