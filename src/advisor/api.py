"""The Python API behind the CLI: collect a snapshot, audit it. No printing, no exiting."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from advisor import __version__
from advisor.collect.connection import ConnectionOptions, Endpoint, connect, resolve
from advisor.errors import SnapshotError, UsageError
from advisor.report import Report
from advisor.snapshot import Missing, Snapshot, load_snapshot

if TYPE_CHECKING:  # pragma: no cover
    from advisor.mycnf.model import Plan

DEMO_SNAPSHOT = "demo-seed-000.json"


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def collect(opts: ConnectionOptions, sample_seconds: float = 0.0, endpoint: Optional[Endpoint] = None) -> Snapshot:
    """Connect, read the server (read-only) and return a snapshot."""
    from advisor.collect.mysql import read_server
    from advisor.collect.parse import parse_server, parse_target

    if sample_seconds < 0:
        raise UsageError("--sample-seconds must be 0 or more.", None)
    ep = endpoint or resolve(opts)
    conn = connect(ep)
    try:
        raw = read_server(conn, ep, sample_seconds=sample_seconds)
    finally:
        try:
            conn.close()
        except Exception:  # the server may already be gone; nothing to clean up then
            pass
    target = parse_target(raw, ep.host, ep.port, ep.socket)
    server = parse_server(raw, ep.user, ep.ssl_mode, ep.transport)
    snap = Snapshot.model_construct(advisor_version=__version__, collected_at=now_iso(), target=target,
                                    server=server, missing=[])
    snap.missing.append(Missing.model_construct(fact="host", reason="host facts were not collected by this command"))
    snap.missing.append(Missing.model_construct(fact="client", reason="the client's network path was not collected by this command"))
    snap.missing.append(Missing.model_construct(fact="calibration", reason="calibration did not run"))
    return snap


def read_snapshot_file(path: str) -> Snapshot:
    p = Path(path)
    if path == "-":
        import sys

        return load_snapshot(sys.stdin.read(), "snapshot on stdin")
    if not p.is_file():
        raise SnapshotError(f"snapshot file {p} does not exist.", "pass the path written by `advisor collect -o FILE`.")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SnapshotError(f"cannot read snapshot {p}: {e}.", "check the file and its permissions.") from None
    return load_snapshot(text, str(p))


def demo_snapshot() -> Snapshot:
    from importlib.resources import files

    return load_snapshot((files("advisor.data") / DEMO_SNAPSHOT).read_text(encoding="utf-8"), "the bundled demo snapshot")


def audit(snapshot: Snapshot, purpose: str = "production", rules_dirs: Iterable[str] = (),
          ignore: Iterable[str] = (), source: str = "live") -> Report:
    from advisor.rules.engine import evaluate
    from advisor.rules.loader import load_rules

    if purpose not in ("production", "benchmark"):
        raise UsageError(f"--purpose {purpose!r} is not production or benchmark.", None)
    rules = load_rules(rules_dirs)
    ignore = [i.strip() for i in ignore if i.strip()]
    known = {r.id for r in rules} | {a for r in rules for a in r.spec.aliases}
    unknown = [i for i in ignore if i not in known]
    if unknown:
        raise UsageError(f"--ignore names unknown rule id(s): {', '.join(unknown)}.", "`advisor rules list` shows the ids.")
    outcomes = evaluate(snapshot, rules, purpose, ignore)
    missing = list(snapshot.missing)
    return Report(target=snapshot.target, purpose=purpose, outcomes=outcomes, missing=missing, source=source,
                  collected_at=snapshot.collected_at)


def mycnf(snapshot: Snapshot, purpose: str = "production", mode: str = "changes", workload: Optional[str] = None,
          allow_unsafe_durability: bool = False, rules_dirs: Iterable[str] = (), ignore: Iterable[str] = (),
          source: str = "live", profile: Optional[object] = None) -> "Plan":
    """A my.cnf plan for this snapshot (advisor.mycnf.model): settings with their justification, the
    memory budget, what was deliberately not changed. Render it with advisor.mycnf.render.render."""
    from advisor.mycnf.model import MycnfOptions, build_plan

    opts = MycnfOptions(purpose=purpose, mode=mode, workload=workload, allow_unsafe_durability=allow_unsafe_durability,
                        rules_dirs=tuple(rules_dirs), ignore=tuple(ignore), source=source, profile=profile)  # type: ignore[arg-type]
    return build_plan(snapshot, opts)


def mycnf_profile(profile: object, purpose: str = "production", mode: str = "changes",
                  allow_unsafe_durability: bool = False, rules_dirs: Iterable[str] = (), ignore: Iterable[str] = ()) -> "Plan":
    """A my.cnf plan for a hardware profile (advisor.mycnf.profile.Profile), through the same pipeline."""
    from advisor.mycnf.profile import profile_snapshot

    return mycnf(profile_snapshot(profile), purpose=purpose, mode=mode, workload=profile.workload,  # type: ignore[attr-defined]
                 allow_unsafe_durability=allow_unsafe_durability, rules_dirs=rules_dirs, ignore=ignore,
                 source=f"the hardware profile {profile.describe()}", profile=profile)  # type: ignore[attr-defined]
