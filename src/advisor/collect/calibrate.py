"""Calibration: short, safe measurements that give findings measured evidence (the I/O half).

Probes, each within its share of one total budget (advisor.collect.calibrate_stats.WEIGHTS); this
module runs them (run_calibration), calibrate_probes and calibrate_tls hold them, calibrate_base what
they share:
  rtt     latency of a trivial query (SELECT 1)
  stream  MB/s of a large result the server generates (no user data), read unbuffered; client CPU
  sort    the same sort with the server's sort_buffer_size and a 256 KiB session value, alternated
  tls     handshake time, small-query latency and stream MB/s with and without TLS
  fsync   fdatasync of 16 KiB writes in a temp file beside the datadir (only on the server's host)
  commit  autocommit single-row inserts in a scratch schema (only with write_probe=True)

Safety: at most two connections open at once (the main one plus one probe connection); statements
are SELECT, WITH ... SELECT and `SET SESSION sort_buffer_size` unless the write probe was asked for;
the temp file and the scratch schema are removed on errors, Ctrl-C and SIGTERM (try/finally, with
SIGTERM turned into KeyboardInterrupt while calibrating and both signals deferred during cleanup).
"""

from __future__ import annotations

import time
from typing import Callable, Optional, Sequence

from advisor.collect import calibrate_stats
from advisor.collect.calibrate_base import (ProbeContext, ProbeSkipped, ProgressFn, check_statement, close_conn,
                                            deferred_signals, error_text, interrupts_on_sigterm, is_gone, time_left)
from advisor.collect.calibrate_probes import (probe_commit, probe_fsync, probe_rtt, probe_sort, probe_stream,
                                              read_locality)
from advisor.collect.calibrate_tls import probe_tls
from advisor.collect.connection import Endpoint, connect
from advisor.errors import CollectionError
from advisor.snapshot import Calibration, Snapshot

# the probes' shared names, for callers of this module
__all__ = ["PROBES", "ProbeContext", "ProbeSkipped", "check_statement", "deferred_signals", "interrupts_on_sigterm",
           "plan", "read_locality", "run_calibration", "time_left"]


# ---------------------------------------------------------------- orchestration

PROBES: dict[str, Callable[[ProbeContext, float], None]] = {
    "rtt": probe_rtt, "stream": probe_stream, "sort": probe_sort, "tls": probe_tls, "fsync": probe_fsync,
    "commit": probe_commit,
}
LABEL = {"rtt": "round trips", "stream": "stream", "sort": "sort buffer", "tls": "TLS", "fsync": "flush",
         "commit": "commit"}
FACT = {"rtt": "calibration.rtt_ms", "stream": "calibration.stream", "sort": "calibration.sort_probe",
        "tls": "calibration.tls", "fsync": "calibration.fsync_ms", "commit": "calibration.commit_ms"}


def plan(mode: str, write_probe: bool, only: Optional[Sequence[str]] = None) -> list[str]:
    """The probes a calibration runs, in order; `only` keeps just those (`advisor calibrate --probe`)."""
    if mode == "light":
        return ["rtt"]
    names = ["rtt", "stream", "sort", "tls", "fsync"] + (["commit"] if write_probe else [])
    return [n for n in names if n in only] if only else names


def _note_not_run(cal: Calibration, mode: str, write_probe: bool, names: list[str]) -> None:
    if mode == "light":
        cal.note_missing("calibration", "light calibration (production purpose): only round trips were measured; "
                         "pass --calibrate for the full set")
        return
    if not write_probe:
        cal.note_missing("calibration.commit_ms", "the commit probe writes, so it runs only with --write-probe")
    for n in plan(mode, write_probe):
        if n not in names:
            cal.note_missing(FACT[n], "not run: the calibration was limited to "
                                      + " ".join(f"--probe {x}" for x in names))


def run_calibration(snap: Snapshot, ep: Endpoint, mode: str = "full", budget_s: float = 10.0,
                    write_probe: bool = False, progress: Optional[ProgressFn] = None,
                    started: Optional[float] = None, probes: Optional[Sequence[str]] = None) -> Calibration:
    """Run the probes against `ep` within `budget_s` seconds counted from `started` (monotonic; default
    now) and return the calibration section. `snap` supplies the server facts (variables, flavor) and,
    when collected, the client's route. `probes` (names in PROBES) runs only those, with the whole
    budget shared among them; the others are reported as not selected."""
    unknown = sorted(set(probes or ()) - set(PROBES))
    if unknown:
        raise ValueError(f"unknown calibration probe(s) {', '.join(unknown)}; expected some of {', '.join(PROBES)}")
    started = time.monotonic() if started is None else started
    budget = min(budget_s, calibrate_stats.LIGHT_BUDGET_S) if mode == "light" else budget_s
    cal = Calibration(budget_s=budget, mode=mode)  # type: ignore[arg-type]
    ctx = ProbeContext(ep=ep, snap=snap, cal=cal, progress=progress, started=started, budget=budget)
    end = started + budget - (calibrate_stats.END_RESERVE_S if mode == "full" else 0.05)
    names = plan(mode, write_probe, probes)
    _note_not_run(cal, mode, write_probe, names)
    with interrupts_on_sigterm():
        try:
            ctx.conn = connect(ep)
            ctx.opened()
            for i, name in enumerate(names):
                now = time.monotonic()
                share = calibrate_stats.probe_share(end - now, calibrate_stats.WEIGHTS[name], [calibrate_stats.WEIGHTS[n] for n in names[i:]])
                if progress:
                    progress(LABEL[name], now - started, budget)
                try:  # every probe runs its not-applicable checks, then stops if its share is too small
                    PROBES[name](ctx, now + share)
                except ProbeSkipped as e:
                    cal.note_missing(FACT[name], e.reason)
                except CollectionError:
                    raise
                except Exception as e:
                    if is_gone(e):
                        raise CollectionError(
                            f"the connection to {ep.describe()} broke during the {name} probe "
                            f"({error_text(e, ep)}); calibration stopped.",
                            "check the server's error log and the network, then run again.") from None
                    import pymysql

                    if isinstance(e, pymysql.MySQLError):
                        cal.note_missing(FACT[name], f"the server refused a probe statement: {error_text(e, ep)}")
                    else:
                        raise
        finally:
            if ctx.conn is not None:
                close_conn(ctx, ctx.conn)
                ctx.conn = None
    cal.duration_s = round(time.monotonic() - started, 3)
    cal.connections_max = ctx.open_max
    return cal

