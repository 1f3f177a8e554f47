"""The watch's commit-flush probe (the `commit-bound` verdict's evidence): what a durable commit's
flushes cost the thread that waits for them, timed on this machine beside the datadir, and the server's
own flush waits from performance_schema. A part of advisor.watch.session.Session, kept here by topic."""

from __future__ import annotations

import os
import time
from typing import Any, Optional

from advisor.watch.model import Missing, ServerSyncs, SyncProbe, WatchSetup

SYNC_PROBE_S, SYNC_PROBE_SAMPLES = 0.25, 100  # the commit-flush probe at the start: at most this long, this many
SYNC_PER_INTERVAL, SYNC_MIN_DURING = 2, 6  # flushes of each kind timed per interval; enough to use those alone


class CommitSyncs:
    """Session's commit-flush probe; the session sets the attributes used here in its __init__."""

    server_src: Any
    server: Any
    _dirs: dict[str, str]
    _flush_timer: Any
    _flush_fstype: Optional[str]
    _flush_parent: str
    _sync_over: list[float]
    _sync_grow: list[float]
    _sync_start: int
    _file_waits: Any

    def _commit_sync(self, setup: WatchSetup) -> None:
        """Time what a durable commit's flushes cost the thread that waits for them, when the server's
        host is this machine: two temp files beside the datadir (advisor.collect.calibrate_probes.FlushTimer,
        removed in close()), flushed for at most SYNC_PROBE_S now (after the first sample and the
        command's start, so neither waits for it), then SYNC_PER_INTERVAL overwrites and appends each
        interval while the benchmark runs (_sample); _sync_summary records them."""
        from advisor.collect.calibrate_base import ProbeSkipped
        from advisor.collect.calibrate_probes import FlushTimer, _fstype, flush_dir
        from advisor.watch.hosts import LocalHost

        if not isinstance(self.server_src, LocalHost):
            setup.missing.append(Missing(fact="commit_sync", reason=(
                "the server's host is not this machine, so the flush a commit waits for was not timed")))
            return
        datadir = self._dirs.get("datadir")  # from the start variables (the audit may still be running)
        if not datadir:
            setup.missing.append(Missing(fact="commit_sync", reason="the server reports no datadir"))
            return
        t0 = time.monotonic()
        try:
            parent = flush_dir(os.path.realpath(datadir))
            self._flush_timer = FlushTimer(parent)
            self._flush_parent, self._flush_fstype = parent, _fstype(datadir)
            while time.monotonic() < t0 + SYNC_PROBE_S and len(self._sync_over) < SYNC_PROBE_SAMPLES:
                self._sync_over.append(self._flush_timer.overwrite())
                self._sync_grow.append(self._flush_timer.append())
        except ProbeSkipped as e:
            setup.missing.append(Missing(fact="commit_sync", reason=f"the flush a commit waits for was not timed: {e.reason}"))
        except OSError as e:
            self._stop_flush_timer()
            setup.missing.append(Missing(fact="commit_sync", reason=(
                f"the flush a commit waits for was not timed: a temp file beside {datadir} failed ({e.strerror})")))
        self._sync_start = len(self._sync_over)
        self._sync_summary(setup)

    def _time_flushes(self) -> None:
        """SYNC_PER_INTERVAL timed flushes of each kind while the benchmark runs (under its load)."""
        if self._flush_timer is None:
            return
        try:
            for _ in range(SYNC_PER_INTERVAL):
                self._sync_over.append(self._flush_timer.overwrite())
                self._sync_grow.append(self._flush_timer.append())
        except OSError:
            self._stop_flush_timer()

    def _server_syncs(self, setup: WatchSetup) -> None:
        """setup.server_syncs: the server's own flush waits between the start and the end of the watch."""
        from advisor.watch.server import read_file_waits

        if not self._file_waits or self.server.conn is None:
            return
        end = read_file_waits(self.server.shared())  # counted as the audit's statements are
        if not end:
            return
        out = {}
        for k, (n1, t1) in end.items():
            n0, t0 = self._file_waits.get(k, (0, 0))
            if n1 > n0:
                out[k] = ServerSyncs(count=n1 - n0, ms_each=round((t1 - t0) / (n1 - n0) / 1e9, 4))
        setup.server_syncs = out or None

    def _stop_flush_timer(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.close()
            self._flush_timer = None

    def _sync_summary(self, setup: WatchSetup) -> None:
        """setup.commit_sync from the flushes timed during the run, or from the start's when fewer than
        SYNC_MIN_DURING were (a short watch)."""
        from advisor.measure import percentile

        if not self._sync_over:
            return
        during = len(self._sync_over) - self._sync_start
        lo = self._sync_start if during >= SYNC_MIN_DURING else 0
        over, grow = self._sync_over[lo:], self._sync_grow[lo:]

        def r(xs: list[float], q: float) -> Optional[float]:
            v = percentile(xs, q)
            return None if v is None else round(v, 4)
        setup.commit_sync = SyncProbe(path=self._flush_parent, fstype=self._flush_fstype,
                                      samples=len(over), p50=r(over, 50), p25=r(over, 25), p75=r(over, 75),
                                      p99=r(over, 99), append_samples=len(grow), append_p50=r(grow, 50),
                                      append_p25=r(grow, 25), append_p75=r(grow, 75),
                                      during_run=lo > 0)

