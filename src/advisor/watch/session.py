"""One watch: audit the server once, then sample the server, its host and the client's host every
interval while the command runs (or for --seconds), and return the series. The I/O orchestration;
the pieces it drives are advisor.watch.server, .hosts and .command.

Ctrl-C (SIGINT) and SIGTERM set a flag the loop checks every 0.1 s: the command's process group
is stopped, one last partial interval is sampled, and the series says it was interrupted.
"""

from __future__ import annotations

import collections
import os
import shlex
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol

from advisor import __version__
from advisor.collect.connection import ConnectionOptions, Endpoint
from advisor.watch.counters import host_interval, server_interval
from advisor.watch.model import (UNITS, AuditFinding, AuditInfo, CommandInfo, Interval, Missing, NicSetup, ServerSyncs, SyncProbe,
                                 SysbenchReport, Target, WatchRun, WatchSetup)
from advisor.watch.sysbench_out import parse_report_line, parse_summary

SLICE_S = 0.1
MIN_FINAL_S = 0.2  # a last interval shorter than this is noise, not a measurement
OUTPUT_TAIL = 400  # lines of the command's output kept for its final summary
STALE_INTERVALS, STALE_MIN_S = 3, 5.0  # a host sample older than this (a stream that stopped) is not used
SYNC_PROBE_S, SYNC_PROBE_SAMPLES = 0.25, 100  # the commit-flush probe at the start: at most this long, this many
SYNC_PER_INTERVAL, SYNC_MIN_DURING = 2, 6  # flushes of each kind timed per interval; enough to use those alone


class Live(Protocol):
    def started(self, run: WatchRun) -> None: ...
    def interval(self, run: WatchRun, iv: Interval) -> None: ...
    def output(self, line: str) -> None: ...


@dataclass
class WatchOptions:
    conn_options: ConnectionOptions
    endpoint: Endpoint
    interval: float = 1.0
    seconds: Optional[float] = None
    command: Optional[list[str]] = None
    ssh: Optional[str] = None
    ssh_options: list[str] = field(default_factory=list)
    host_stream: Optional[str] = None


def now_iso(t: Optional[float] = None) -> str:
    import datetime as dt

    d = dt.datetime.fromtimestamp(time.time() if t is None else t, dt.timezone.utc)
    return d.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def mask_command(argv: list[str]) -> tuple[str, Optional[dict[str, Any]]]:
    """(the command line with passwords masked, the parsed sysbench command when it is one)."""
    from advisor.sysbench import mask_words, parse_command

    if any(os.path.basename(a).startswith("sysbench") for a in argv):
        try:
            cmd = parse_command(shlex.join(argv))
            return cmd.display, cmd.to_dict()
        except Exception:  # noqa: BLE001 - a command sysbench would reject still runs; mask it by hand
            pass
    return shlex.join(mask_words(argv)), None


class _Stop:
    """SIGINT / SIGTERM handlers that only record the signal."""

    def __init__(self) -> None:
        self.signum: Optional[int] = None
        self._old: dict[int, Any] = {}

    def __enter__(self) -> "_Stop":
        if threading.current_thread() is threading.main_thread():
            for s in (signal.SIGINT, signal.SIGTERM):
                self._old[s] = signal.signal(s, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        self.signum = signum

    def __exit__(self, *exc: object) -> None:
        for s, h in self._old.items():
            signal.signal(s, h)


class Session:
    def __init__(self, opts: WatchOptions, live: Optional[Live] = None):
        self.opts = opts
        self.live = live
        self.conn: Any = None
        self.server_src: Any = None
        self.client_src: Any = None
        self.command: Any = None
        self._pending: list[SysbenchReport] = []
        self._tail: collections.deque[str] = collections.deque(maxlen=OUTPUT_TAIL)
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._flush_timer: Any = None
        self._flush_fstype: Optional[str] = None
        self._flush_parent = ""
        self._sync_over: list[float] = []
        self._sync_grow: list[float] = []
        self._sync_start = 0
        self._file_waits: Any = None

    # ------------------------------------------------------------------ setup
    def _audit(self) -> tuple[Any, AuditInfo]:
        from advisor import api
        from advisor.collect.connection import connect

        ep = self.opts.endpoint
        self.conn = connect(ep)
        snap = api.collect(self.opts.conn_options, endpoint=ep, conn=self.conn, ssh=self.opts.ssh,
                           ssh_options=self.opts.ssh_options)
        report = api.audit(snap, purpose="benchmark", source="live")
        findings = [AuditFinding(rule=f.rule, severity=f.severity, title=f.title, message=f.message, fix=f.fix)
                    for f in report.findings]
        info = AuditInfo(ran=True, reason="audited with --purpose benchmark at the start of the watch (no calibration)",
                         snapshot=snap.model_dump(mode="json"), findings=findings,
                         statuses={o.rule: o.status for o in report.outcomes},
                         unknown={o.rule: o.reason for o in report.outcomes if o.status == "unknown"})
        return snap, info

    def _hosts(self, snap: Any, setup: WatchSetup) -> None:
        from advisor.collect.host import NO_HOST_TIP, decide_locality, pid_file, server_dirs
        from advisor.watch.hosts import LocalHost, SshHost, StreamHost, read_shapers
        from advisor.watch.hostsetup import build_host_setup, client_nics, server_nic

        o, ep = self.opts, self.opts.endpoint
        variables = snap.server.variables
        dirs, pf = server_dirs(variables), pid_file(variables)
        if o.ssh:
            self.server_src = SshHost(o.ssh, o.ssh_options, o.interval, pf, dirs)
        elif o.host_stream:
            self.server_src = StreamHost(o.host_stream)
        else:
            loc = decide_locality(ep.host, ep.transport, variables)
            if loc.local:
                self.server_src = LocalHost(pf, dirs)
                self.server_src.origin = f"read on this machine: {loc.reason}"
            else:
                setup.missing.append(Missing(fact="server_host", reason=(
                    f"{loc.reason}, so its CPUs, disks and NICs were not sampled; {NO_HOST_TIP.split(', or run')[0]}, "
                    "or stream them with --host-stream")))
        if o.command:
            if isinstance(self.server_src, LocalHost):
                self.client_src, setup.same_host = self.server_src, True
            else:
                self.client_src = LocalHost(None, {}, server=False)
        else:
            setup.missing.append(Missing(fact="client_host", reason="no command ran under the watch, so the "
                                         "benchmark client is not known (run it as `advisor watch ... -- COMMAND`)"))
        client = snap.client
        nics: list[NicSetup] = []
        if self.client_src is not None or isinstance(self.server_src, LocalHost):
            route_if = [client.route.interface] if client and client.route and client.route.interface else []
            shapers, notes = read_shapers(route_if)
            nics, why = client_nics(client, ep.transport, shapers)
            setup.missing += [Missing(fact="shapers", reason=n) for n in notes]
            if why:
                setup.missing.append(Missing(fact="client_nic", reason=why))
        src_addr = client.route.source_address if client and client.route else None
        server_nics: list[NicSetup] = []
        nic_why = None
        if self.server_src is not None:
            doc = self.server_src.doc
            local_other_ns = isinstance(self.server_src, LocalHost) and doc.get("other_netns")
            if not isinstance(self.server_src, LocalHost) or local_other_ns:
                pid = ((doc.get("host") or {}).get("mysqld") or {}).get("pid")
                first, _ = server_nic(doc, src_addr, {})
                shapers = {}
                if local_other_ns and first is not None:
                    shapers, notes = read_shapers([first.interface], netns_pid=pid)
                    setup.missing += [Missing(fact="shapers", reason=n) for n in notes]
                nic, nic_why = server_nic(doc, src_addr, shapers)
                server_nics = [nic] if nic else []
            role = "server+client" if setup.same_host else "server"
            own = nics + server_nics if setup.same_host or isinstance(self.server_src, LocalHost) else server_nics
            setup.server_host = build_host_setup(doc, role, self.server_src.source, self.server_src.origin, dirs,
                                                 own, nic_why)
        if self.client_src is not None and not setup.same_host:
            setup.client_host = build_host_setup(self.client_src.doc, "client", "local", "read on this machine", {},
                                                 nics)

    def _commit_sync(self, snap: Any, setup: WatchSetup) -> None:
        """Time what a durable commit's flushes cost the thread that waits for them, when the server's
        host is this machine: two temp files beside the datadir (advisor.collect.calibrate_probes.FlushTimer,
        removed in close()), flushed for at most SYNC_PROBE_S now, then SYNC_PER_INTERVAL overwrites and
        appends each interval while the benchmark runs (_sample); _sync_summary records them."""
        from advisor.collect.calibrate_base import ProbeSkipped
        from advisor.collect.calibrate_probes import FlushTimer, _fstype, flush_dir
        from advisor.collect.host import server_dirs
        from advisor.watch.hosts import LocalHost

        if not isinstance(self.server_src, LocalHost):
            setup.missing.append(Missing(fact="commit_sync", reason=(
                "the server's host is not this machine, so the flush a commit waits for was not timed")))
            return
        datadir = server_dirs(snap.server.variables).get("datadir")
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
        end = read_file_waits(self.server.conn)
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

    def _setup(self) -> tuple[WatchRun, Any]:
        o = self.opts
        snap, audit = self._audit()
        t = snap.target
        conn_info = snap.server.connection
        target = Target(flavor=t.flavor, version=t.version, host=t.host, port=t.port, socket=t.socket,
                        transport=t.transport, endpoint=o.endpoint.describe(), tls=conn_info.tls_version)
        setup = WatchSetup(target=target, interval_s=o.interval, seconds=o.seconds, audit=audit,
                           statements_per_interval=2)
        if o.command:
            display, sb = mask_command(o.command)
            setup.command = CommandInfo(display=display, sysbench=sb)
        self._hosts(snap, setup)
        self._commit_sync(snap, setup)
        from advisor.watch.server import read_file_waits
        self._file_waits = read_file_waits(self.conn)
        run = WatchRun(advisor_version=__version__, started_at=now_iso(), setup=setup, units=dict(UNITS))
        return run, snap

    # ------------------------------------------------------------------ the command's output
    def _on_line(self, line: str) -> None:
        rep = parse_report_line(line)
        if rep is not None:
            rep.received_s = round(time.monotonic() - self._t0, 3)
        with self._lock:
            self._tail.append(line)
            if rep is not None:
                self._pending.append(rep)
        if self.live is not None:
            self.live.output(line)

    # ------------------------------------------------------------------ sampling
    def _sample(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mono": time.monotonic(), "wall": time.time()}
        status, states, ms, err = self.server.sample()
        out["server"] = (status, states, ms, err)
        if self.server_src is not None:
            out["server_host"] = self.server_src.sample()
        if self.client_src is not None and self.client_src is not self.server_src:
            out["client_host"] = self.client_src.sample()
        out["cpu"] = time.process_time()
        if self.command is not None and self.command.poll() is None:
            self._time_flushes()  # after the counters: its own CPU time is the watcher's, not the interval's
        return out

    def _interval(self, run: WatchRun, index: int, prev: dict[str, Any], cur: dict[str, Any],
                  t0: float, hosts_prev: dict[str, Any]) -> Interval:
        seconds = cur["mono"] - prev["mono"]
        iv = Interval.model_construct(index=index, start_s=round(prev["mono"] - t0, 3), end_s=round(cur["mono"] - t0, 3),
                                      at=now_iso(cur["wall"]), seconds=round(seconds, 4), server=None,
                                      server_host=None, client_host=None, sysbench=[], notes=[],
                                      watcher_cpu_s=round(cur["cpu"] - prev["cpu"], 5))
        p_status, c_status = prev["server"][0], cur["server"]
        if c_status[3]:
            iv.notes.append(c_status[3])
        if p_status is not None and c_status[0] is not None:
            iv.server = server_interval(p_status, c_status[0], seconds, c_status[1], round(c_status[2], 2))
            if iv.server.restarted:
                iv.notes.append("the server restarted (Uptime went down): no server rates for this interval")
        setup = run.setup
        for key, hs in (("server_host", setup.server_host), ("client_host", setup.client_host)):
            new = cur.get(key)
            if hs is None:
                continue
            age = cur["wall"] - new.get("wall", cur["wall"]) if new is not None else 0.0
            if new is not None and age > max(STALE_INTERVALS * run.setup.interval_s, STALE_MIN_S):
                iv.notes.append(f"the {key.replace('_', ' ')}'s newest sample is {age:.0f} s old ({hs.origin}); not used")
                new = None
            if new is None:
                iv.notes.append(f"no new sample from the {key.replace('_', ' ')} ({hs.origin})")
                continue
            old = hosts_prev.get(key)
            if old is not None:
                h = host_interval(old, new, hs)
                if h is not None:
                    h.lag_s = round(max(0.0, cur["wall"] - new.get("wall", cur["wall"])), 3)
                    setattr(iv, key, h)
            hosts_prev[key] = new
        with self._lock:
            pending, self._pending = self._pending, []
        self._place_reports(run, iv, pending)
        return iv

    def _place_reports(self, run: WatchRun, iv: Interval, reports: list[SysbenchReport]) -> None:
        """A report line covers the `step` seconds before it arrived: it belongs to the interval that
        holds the middle of that span, which may be the previous one when the line came just after
        the watch sampled."""
        sb = run.setup.command.sysbench if run.setup.command else None
        step = float(((sb or {}).get("options") or {}).get("report-interval") or 1)
        for r in reports:
            mid = (r.received_s if r.received_s is not None else iv.end_s) - step / 2
            target = iv  # run.intervals does not hold iv yet
            if mid < iv.start_s:
                for prev in reversed(run.intervals):
                    target = prev
                    if prev.start_s <= mid:
                        break
            target.sysbench.append(r)

    def run(self) -> WatchRun:
        from advisor.watch.command import Command, check_command
        from advisor.watch.server import ServerSampler

        o = self.opts
        if o.command:
            check_command(o.command)
        try:
            run, _ = self._setup()
            self.server = ServerSampler(o.endpoint, self.conn)
            if self.live is not None:
                self.live.started(run)
            with _Stop() as stop:
                self._loop(run, stop, Command, o)
            return run
        finally:
            self.close()

    def _loop(self, run: WatchRun, stop: _Stop, Command: Callable[..., Any], o: WatchOptions) -> None:
        t0 = self._t0 = time.monotonic()
        prev = self._sample()
        hosts_prev = {k: prev[k] for k in ("server_host", "client_host") if prev.get(k) is not None}
        if o.command:
            self.command = Command(o.command, self._on_line)
            pid = self.command.start()
            run.setup.command.pid = pid  # type: ignore[union-attr]
            if self.client_src is not None:
                self.client_src.set_command(pid)
        k, index, reason = 1, 0, ""
        while not reason:
            deadline = t0 + k * o.interval
            ended = False
            while time.monotonic() < deadline and stop.signum is None:
                if self.command is not None:
                    if self.command.wait(min(SLICE_S, deadline - time.monotonic())) is not None:
                        ended = True
                        break
                else:
                    time.sleep(max(0.0, min(SLICE_S, deadline - time.monotonic())))
            if stop.signum is not None:
                reason = f"interrupted ({signal.Signals(stop.signum).name})"
                if self.command is not None:
                    self.command.stop()
            elif ended or (self.command is not None and self.command.poll() is not None):
                self.command.finish_output()  # type: ignore[union-attr]
                reason = f"the command exited with status {self.command.exit_status}"  # type: ignore[union-attr]
            elif o.seconds is not None and time.monotonic() - t0 >= o.seconds - 1e-3:
                reason = f"{o.seconds:g} s elapsed"
            cur = self._sample()
            if cur["mono"] - prev["mono"] >= (MIN_FINAL_S if reason else 0.0) or not run.intervals:
                iv = self._interval(run, index, prev, cur, t0, hosts_prev)
                run.intervals.append(iv)
                index += 1
                if self.live is not None:
                    self.live.interval(run, iv)
                prev = cur
            k = max(k + 1, int((time.monotonic() - t0) / o.interval) + 1)
        run.end_reason = reason
        run.ended_at = now_iso()
        run.duration_s = round(prev["mono"] - t0, 3)
        run.watcher_cpu_s = round(sum(iv.watcher_cpu_s for iv in run.intervals), 4)
        self._sync_summary(run.setup)
        self._stop_flush_timer()
        self._server_syncs(run.setup)
        self._finish_command(run, stop)

    def _finish_command(self, run: WatchRun, stop: _Stop) -> None:
        info = run.setup.command
        if self.command is None or info is None:
            return
        if stop.signum is not None:
            self.command.stop()
        info.exit_status, info.signal = self.command.exit_status, self.command.signal
        info.interrupted, info.output_lines = self.command.interrupted, self.command.lines
        with self._lock:
            tail = list(self._tail)
        info.summary = parse_summary(tail) if info.sysbench else None
        run.setup.missing += [Missing(fact="processlist", reason=n) for n in self.server.notes]
        self.interrupt_signal = stop.signum

    def close(self) -> None:
        self._stop_flush_timer()
        if self.command is not None and self.command.proc is not None and self.command.poll() is None:
            self.command.stop()
        for src in {id(s): s for s in (self.server_src, self.client_src) if s is not None}.values():
            try:
                src.close()
            except Exception:  # noqa: BLE001 - closing what is already broken
                pass
        srv = getattr(self, "server", None)
        if srv is not None:
            srv.close()
        elif self.conn is not None:
            try:
                self.conn.close()
            except Exception:  # noqa: BLE001
                pass


def watch(opts: WatchOptions, live: Optional[Live] = None) -> tuple[WatchRun, Optional[int]]:
    """Run a watch; (the series, the signal that interrupted it or None)."""
    s = Session(opts, live)
    run = s.run()
    return run, getattr(s, "interrupt_signal", None)
