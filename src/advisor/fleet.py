"""Audit many servers: assess each target (advisor.api.assess: collect, calibrate as the purpose says,
audit; the same path as `advisor audit`) in parallel threads, or assess a directory of snapshots (the
Ansible role's per-host results, or snapshot files) in worker processes. Results are yielded as each
host finishes; a host's failure is recorded, never fatal to the others. The targets come from
advisor.inventory, the roll-up from advisor.rollup; advisor.render.fleet renders them."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional

from advisor.collect.connection import ConnectionOptions
from advisor.errors import AdvisorError, UsageError
from advisor.inventory import FleetTarget
from advisor.inventory import parse_list as _parse_list
from advisor.inventory import read as read_targets
from advisor.report import Report
from advisor.rollup import HostOutcome

if TYPE_CHECKING:  # pragma: no cover
    from advisor.api import Calibration
    from advisor.rules.catalogue import Catalogue

__all__ = ["FleetResult", "FleetTarget", "SnapshotEntry", "audit_fleet", "audit_one", "audit_snapshots",
           "outcome_of", "parse_targets", "read_targets", "snapshot_entries", "stream_fleet"]



@dataclass
class FleetResult:
    target: FleetTarget
    seconds: float
    report: Optional[Report] = None
    error: Optional[str] = None
    exit_code: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    variables: Optional[dict[str, str]] = None
    host_facts: Optional[str] = None  # where the server host's facts came from: local, ssh, file, recorded
    line: Optional[str] = None  # its JSON Lines record, written by the worker process that audited it (slim)


def parse_targets(text: str, source: str = "targets") -> list[FleetTarget]:
    """[user@]host[:port] lines (advisor.inventory.parse_list; advisor.inventory.parse detects the others)."""
    targets = _parse_list(text, source)
    if not targets:
        raise UsageError(f"{source} lists no targets.", "write one [user@]host[:port] per line.")
    return targets


def _facts_source(snap: Any) -> Optional[str]:
    return snap.host.source if snap.host is not None else None


def outcome_of(r: FleetResult) -> HostOutcome:
    """What the roll-up keeps of a result."""
    if r.report is None:
        return HostOutcome(r.target.label, r.target.groups, error=r.error or "not audited", exit_code=r.exit_code)
    return HostOutcome(r.target.label, r.target.groups, findings=[(f.rule, f.severity, f.title) for f in r.report.findings],
                       flavor=r.report.target.flavor, version=r.report.target.version, variables=r.variables)


# ---------------------------------------------------------------------- live servers

def audit_one(t: FleetTarget, base: ConnectionOptions, purpose: str, sample_seconds: float,
              calibration: Optional[Calibration] = None, ignore: Iterable[str] = (),
              rules_dirs: Iterable[str] = (), ssh_host_facts: bool = False,
              catalogue: "Optional[Catalogue]" = None) -> FleetResult:
    """Assess one live target; with `ssh_host_facts` the host facts are read over ssh at the target's
    inventory ssh address (ansible_user, ansible_host, ansible_port, the key), as `audit --ssh` does."""
    from advisor import api

    opts = replace(base, host=t.host, port=t.port if t.port is not None else (base.port or 3306),
                   user=t.user or base.user, socket=t.socket,
                   password=t.password if t.password is not None else base.password,
                   password_source=t.password_source if t.password is not None else base.password_source,
                   defaults_file=t.defaults_file or base.defaults_file,
                   no_defaults=base.no_defaults and not t.defaults_file,
                   files=None if t.defaults_file else base.files)  # a DSN's F= file is read for this target
    t0 = time.monotonic()
    try:
        ssh = t.ssh if ssh_host_facts else None
        a = api.assess(purpose, collection=api.Collection(opts, sample_seconds=sample_seconds, ssh=ssh,
                                                          ssh_options=t.ssh_options if ssh else ()),
                       calibration=(calibration or api.Calibration())._replace(started=None),
                       ignore=ignore, rules_dirs=rules_dirs, catalogue=catalogue)
        failed = {"error": str(a.failure), "exit_code": a.failure.exit_code} if a.failure is not None else {}
        # audited, but calibration failed: both are reported
        return FleetResult(t, time.monotonic() - t0, report=a.report, timings=dict(a.timings),
                           variables=dict(a.snapshot.server.variables), host_facts=_facts_source(a.snapshot), **failed)
    except AdvisorError as e:
        return FleetResult(t, time.monotonic() - t0, error=str(e), exit_code=e.exit_code)


def stream_fleet(targets: list[FleetTarget], base: ConnectionOptions, purpose: str = "production", jobs: int = 4,
                 sample_seconds: float = 0.0, calibration: Optional[Calibration] = None, ignore: Iterable[str] = (),
                 rules_dirs: Iterable[str] = (), ssh_host_facts: bool = False) -> Iterator[FleetResult]:
    """Audit the targets in `jobs` threads; yield each result as its host finishes."""
    _check_jobs(jobs)
    from advisor import api

    ignore, rules_dirs = tuple(ignore), tuple(rules_dirs)
    catalogue = api.prepare(purpose, rules_dirs, ignore)  # a bad catalogue or --ignore fails before any connection
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        yield from _as_completed(pool, [lambda t=t: audit_one(t, base, purpose, sample_seconds, calibration, ignore,
                                                               rules_dirs, ssh_host_facts, catalogue)
                                        for t in targets])


def audit_fleet(targets: list[FleetTarget], base: ConnectionOptions, purpose: str = "production", jobs: int = 4,
                sample_seconds: float = 0.0, calibration: Optional[Calibration] = None) -> list[FleetResult]:
    """All results, in the order of the targets."""
    results = list(stream_fleet(targets, base, purpose, jobs, sample_seconds, calibration))
    return sorted(results, key=lambda r: r.target.line)


def _as_completed(pool: Any, calls: list[Callable[[], FleetResult]], window: int = 0) -> Iterator[FleetResult]:
    """Submit at most `window` calls at a time (all when 0) and yield results as they finish."""
    todo = iter(calls)
    running: set[Future[FleetResult]] = set()
    limit = window or len(calls)
    for c in todo:
        running.add(pool.submit(c))
        if len(running) >= limit:
            break
    while running:
        done, running = wait(running, return_when=FIRST_COMPLETED)
        for f in done:
            yield f.result()
        for c in todo:
            running.add(pool.submit(c))
            if len(running) >= limit:
                break


def _check_jobs(jobs: int) -> None:
    if jobs < 1:
        raise UsageError("--jobs must be at least 1.", "leave --jobs out for the default (4 live, one per CPU with --snapshots).")


# ---------------------------------------------------------------------- snapshots (offline)

@dataclass(frozen=True)
class SnapshotEntry:
    """One host's results in a snapshot directory: a snapshot file, or a directory the Ansible role
    fetched (variables, status, host-raw.json, meta.json; or error.json when it could not collect)."""

    name: str
    path: str
    groups: tuple[str, ...] = ()
    error: Optional[str] = None
    address: str = ""


def snapshot_entries(directory: str) -> list[SnapshotEntry]:
    d = Path(directory)
    if not d.is_dir():
        raise UsageError(f"--snapshots {d} is not a directory.", "give the directory the Ansible playbook fetched "
                         "the results into (advisor_fetch_dir), or one that holds snapshot files (*.json).")
    out = []
    for p in sorted(d.iterdir()):
        if p.is_file() and p.suffix == ".json":
            out.append(SnapshotEntry(p.stem, str(p)))
        elif p.is_dir():
            out.append(_host_dir(p))
    if not out:
        raise UsageError(f"--snapshots {d} holds no snapshots (no *.json file and no host directory).",
                         "run the playbook in ansible/ to fetch them, or write snapshots with `advisor collect -o`.")
    return out


def _host_dir(p: Path) -> SnapshotEntry:
    from advisor.dumps.fetched import META, read_text, recorded_error

    meta: dict[str, Any] = {}
    if (p / META).is_file():
        try:
            meta = json.loads(read_text(p / META))
        except ValueError:
            meta = {}
    name = str(meta.get("inventory_hostname") or p.name)
    groups = tuple(str(g) for g in meta.get("groups") or () if g not in ("all", "ungrouped"))
    return SnapshotEntry(name, str(p), groups, recorded_error(str(p)), str(meta.get("address") or ""))


def load_entry(e: SnapshotEntry):
    """The entry's snapshot: the snapshot file, or the role's directory (advisor.dumps.fetched)."""
    from advisor.api import read_snapshot_file
    from advisor.dumps.fetched import load_fetched

    return read_snapshot_file(e.path) if Path(e.path).is_file() else load_fetched(e.path)


_WORKER: dict[str, Any] = {}


def _worker_init(rules_dirs: tuple[str, ...]) -> None:
    from advisor.rules.loader import load_entries

    _WORKER["catalogue"] = load_entries(rules_dirs)


def audit_entry(e: SnapshotEntry, line: int, purpose: str, ignore: tuple[str, ...], rules_dirs: tuple[str, ...] = (),
                catalogue: "Optional[Catalogue]" = None) -> FleetResult:
    from advisor import api

    t = FleetTarget(line, e.name, e.address or e.name, None, None, name=e.name, groups=e.groups)
    t0 = time.monotonic()
    if e.error is not None:
        return FleetResult(t, 0.0, error=f"the playbook could not collect {e.name}: {e.error}", exit_code=3)
    try:
        snap = load_entry(e)
        a = api.assess(purpose, snapshot=snap, ignore=ignore, rules_dirs=rules_dirs, source=f"snapshot {e.path}",
                       catalogue=catalogue or _WORKER.get("catalogue"))
    except AdvisorError as err:
        return FleetResult(t, time.monotonic() - t0, error=str(err), exit_code=err.exit_code)
    return FleetResult(t, time.monotonic() - t0, report=a.report, timings=dict(a.timings),
                       variables=dict(snap.server.variables), host_facts=_facts_source(snap))


def _slim_entry(e: SnapshotEntry, line: int, purpose: str, ignore: tuple[str, ...],
                rules_dirs: tuple[str, ...], record: Callable[[FleetResult], str]) -> FleetResult:
    """audit_entry in a worker process, for JSON Lines: the host's record is written here (`record`:
    the renderer, a module-level function) and the report keeps only its fired outcomes (what the
    roll-up and --fail-on read), so the parent neither unpickles nor renders some 460 outcomes per
    host while the workers wait for the CPU."""
    from dataclasses import replace as _replace

    r = audit_entry(e, line, purpose, ignore, rules_dirs)
    r.line = record(r)
    if r.report is not None:
        r.report = _replace(r.report, outcomes=[o for o in r.report.outcomes if o.status == "fired"])
    return r


def audit_snapshots(entries: list[SnapshotEntry], purpose: str = "production", jobs: int = 0,
                    ignore: Iterable[str] = (), rules_dirs: Iterable[str] = (),
                    record: Optional[Callable[[FleetResult], str]] = None) -> Iterator[FleetResult]:
    """Assess each entry as `advisor audit --snapshot` does, in `jobs` worker processes (0: one per
    CPU; 1: in this process); yield results as they finish, at most a few per worker in flight.
    `record` (JSON Lines: the renderer of a host's record): each result from a worker comes with its
    record (`line`) and only the fired outcomes (_slim_entry)."""
    from advisor import api

    jobs = jobs or len(os.sched_getaffinity(0))
    _check_jobs(jobs)
    ignore, rules_dirs = tuple(ignore), tuple(rules_dirs)
    catalogue = api.prepare(purpose, rules_dirs, ignore)  # a bad catalogue or --ignore fails before any work
    if jobs == 1 or len(entries) < 8:
        for n, e in enumerate(entries, 1):
            yield audit_entry(e, n, purpose, ignore, rules_dirs, catalogue)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init,
                             initargs=(rules_dirs,)) as pool:
        work = [partial(_slim_entry, e, n, purpose, ignore, rules_dirs, record) if record is not None
                else partial(audit_entry, e, n, purpose, ignore, rules_dirs) for n, e in enumerate(entries, 1)]
        yield from _as_completed(pool, work, window=jobs * 4)
