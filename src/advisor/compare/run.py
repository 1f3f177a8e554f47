"""`advisor compare`'s orchestration: read each input (a snapshot, any dump `advisor import` reads,
or a live server, collected and calibrated as `advisor audit` would), load the variable catalogue,
and hand everything to the pure judge (advisor.compare.judge)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Optional, Sequence
from urllib.parse import unquote

from advisor.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from advisor.collect.connection import ConnectionOptions
    from advisor.compare.model import Comparison
    from advisor.snapshot import Snapshot

_LIVE = re.compile(r"^(?:mysql://)?(?:(?P<user>[^@\s/:]+)(?::(?P<password>[^@\s]*))?@)?(?P<host>\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+)"
                   r"(?::(?P<port>\d+))?/?$")
INPUT_TIP = ("give snapshot files (`advisor collect -o FILE`), dumps that `advisor import` reads (SHOW VARIABLES "
             "output, a pt-mysql-summary directory, …), or live servers as mysql://[user[:password]@]host[:port].")


class LiveTarget(NamedTuple):
    text: str  # the spec as shown: its password masked
    host: str
    port: Optional[int]
    user: Optional[str]
    password: Optional[str] = None  # from mysql://user:PASSWORD@host (percent-decoded); never shown

    def __repr__(self) -> str:
        return f"LiveTarget({self.text!r})"


def mask_url(spec: str) -> str:
    """The spec to show: the password of a `[mysql://]user:PASSWORD@host` replaced (everything up to
    the last '@' is the user part, as in a URL)."""
    head, at, tail = spec.rpartition("@")
    if not at:
        return spec
    scheme = "mysql://" if head.startswith("mysql://") else ""
    user, colon, _ = head[len(scheme):].partition(":")
    return f"{scheme}{user}:…@{tail}" if colon else spec


class Input(NamedTuple):
    text: str
    live: Optional[LiveTarget]


def classify(spec: str) -> Input:
    """A file or directory that exists is read as a snapshot or dump; mysql://… and host:port name a
    live server; anything else is a file that does not exist."""
    if spec != "-" and Path(spec).exists():
        return Input(spec, None)
    shown = mask_url(spec)
    m = _LIVE.match(spec)
    if m and (spec.startswith("mysql://") or m.group("port")):
        port = int(m.group("port")) if m.group("port") else None
        if port is not None and not 0 < port < 65536:
            raise UsageError(f"{shown}: port {port} is out of range.", INPUT_TIP)
        pw = m.group("password")
        return Input(shown, LiveTarget(shown, m.group("host").strip("[]"), port, m.group("user"),
                                       unquote(pw) if pw is not None else None))
    if spec == "-":
        raise UsageError("compare does not read standard input (it needs two inputs or more).", INPUT_TIP)
    raise UsageError(f"{shown} is not a file, a directory or a live server.", INPUT_TIP)


def check_about(about: Sequence[str]) -> list[str]:
    from advisor.compare.model import ABOUT

    words = [w.strip().lower() for a in about for w in a.split(",") if w.strip()]
    bad = [w for w in words if w not in ABOUT]
    if bad:
        raise UsageError(f"--about {', '.join(bad)} is not something a comparison can be about.",
                         f"use one or more of {', '.join(ABOUT)} (comma-separated or repeated).")
    return list(dict.fromkeys(words))


def read_input(inp: Input, options: Optional["ConnectionOptions"], calibration: Optional[str],
               budget_s: float) -> "Snapshot":
    from advisor import api

    if inp.live is None:
        return api.read_snapshot_file(inp.text)
    if options is None:
        raise UsageError(f"{inp.text} is a live server, and no connection options were given.", INPUT_TIP)
    from advisor.collect.connection import resolve

    t = inp.live
    opts = replace(options, host=t.host, port=t.port if t.port is not None else options.port,
                   user=t.user or options.user, socket=None)
    if t.password is not None:  # the URL's password is this server's
        opts = replace(opts, password=t.password, password_source=f"the password in {t.text}")
    ep = resolve(opts)
    snap = api.collect(opts, endpoint=ep)
    if calibration is not None:
        api.attach_calibration(snap, ep, calibration, budget_s=budget_s)
    return snap


def labels_for(inputs: Sequence[Input], given: Sequence[str] = ()) -> list[str]:
    """A, B, C, … or the --label names (one per input, distinct)."""
    from advisor.compare.judge import LABELS

    if given:
        names = [g.strip() for g in given]
        if len(names) != len(inputs):
            raise UsageError(f"--label was given {len(names)} time(s) for {len(inputs)} inputs.",
                             "give one --label per input, in the same order, or none.")
        if len(set(names)) != len(names) or not all(names):
            raise UsageError(f"--label names must be distinct and not empty (got {', '.join(map(repr, names))}).",
                             "name each side once, e.g. --label pm981 --label pm983.")
        return names
    if len(inputs) > len(LABELS):
        raise UsageError(f"compare takes at most {len(LABELS)} inputs (got {len(inputs)}).",
                         "compare fewer servers at once, or use `advisor fleet` for drift across many.")
    return list(LABELS[:len(inputs)])


def compare_inputs(specs: Sequence[str], about: Sequence[str] = (), options: Optional["ConnectionOptions"] = None,
                   calibration: Optional[str] = "light", budget_s: float = 10.0,
                   labels: Sequence[str] = ()) -> "Comparison":
    """Read every input and compare them. `calibration` (live servers only): None, 'light' (round
    trips) or 'full'."""
    from advisor.compare.judge import compare
    from advisor.knowledge import default_catalogue

    if len(specs) < 2:
        raise UsageError(f"compare needs two inputs or more (got {len(specs)}).", INPUT_TIP)
    words = check_about(about)
    inputs = [classify(s) for s in specs]
    names = labels_for(inputs, labels)
    if calibration is not None and any(i.live for i in inputs):
        from advisor.api import check_calibration_budget

        check_calibration_budget(budget_s)
    snaps = [read_input(i, options, calibration, budget_s) for i in inputs]
    return compare(snaps, [i.text for i in inputs], words, default_catalogue(), names)


def compare_snapshots(snaps: Sequence["Snapshot"], sources: Sequence[str], about: Sequence[str] = ()) -> "Comparison":
    """The comparison of snapshots already in hand, with the bundled variable catalogue."""
    from advisor.compare.judge import compare
    from advisor.knowledge import default_catalogue

    if len(snaps) < 2:
        raise UsageError(f"compare needs two snapshots or more (got {len(snaps)}).", INPUT_TIP)
    return compare(list(snaps), list(sources), check_about(about), default_catalogue())
