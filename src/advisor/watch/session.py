"""One watch: sample the server, its host and the client's host every interval while the command runs
(or for --seconds), audit the server once beside the sampling, and return the series. The I/O
orchestration; the pieces it drives are advisor.watch.server, .hosts and .command.

Start-up is ordered for an early first sample: connect, read the few variables the host sampling
needs (one SHOW GLOBAL VARIABLES ... WHERE), take the first sample, start the command; only then the
audit (advisor.api collect + audit, the rule loading: most of the start-up's CPU) runs in a thread
at a lower priority, reading through the sampler's connection one statement at a time. Its CPU is
not the watcher's: each interval's watcher_cpu_s is the process's CPU less the audit thread's.

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
from advisor.watch.model import (UNITS, AuditFinding, AuditInfo, CommandInfo, Interval, Missing, NicSetup,
                                 Startup, SysbenchReport, Target, WatchRun, WatchSetup)
from advisor.watch.sysbench_out import parse_report_line, parse_summary
from advisor.watch.syncs import CommitSyncs

SLICE_S = 0.1
MIN_FINAL_S = 0.2  # a last interval shorter than this is noise, not a measurement
OUTPUT_TAIL = 400  # lines of the command's output kept for its final summary
STALE_INTERVALS, STALE_MIN_S = 3, 5.0  # a host sample older than this (a stream that stopped) is not used
AUDIT_WAIT_S = 120.0  # after the sampling ends, wait this long for an audit still running
# what the host sampling and the live header need before the first sample
START_VARIABLES = ("version", "version_comment", "pid_file", "datadir", "port", "socket", "hostname",
                   "innodb_log_group_home_dir", "innodb_data_home_dir")
Q_START = ("SHOW GLOBAL VARIABLES WHERE Variable_name IN ("
           + ", ".join(f"'{n}'" for n in START_VARIABLES) + ")")
AUDIT_NOTE = "the start-of-watch audit read the server during this interval (its statements are in the server's counters)"


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


def process_age() -> Optional[float]:
    """Seconds since this process started: its start time in /proc/self/stat (clock ticks since boot)
    against CLOCK_BOOTTIME; None where that cannot be read."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return None


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


class Session(CommitSyncs):
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
        self.server: Any = None
        self._audit_thread: Optional[threading.Thread] = None
        self._audit_result: Optional[tuple[Any, AuditInfo]] = None
        self._audit_error: Optional[BaseException] = None
        self._audit_span: list[Optional[float]] = [None, None]  # monotonic start and end of the audit
        self._reads_end: Optional[float] = None  # when the audit's collect (its statements) ended
        self._audit_cpu: Optional[float] = None  # the audit thread's CPU, once it finished
        self._cpu_lock = threading.Lock()
        self._flush_timer: Any = None
        self._flush_fstype: Optional[str] = None
        self._flush_parent = ""
        self._sync_over: list[float] = []
        self._sync_grow: list[float] = []
        self._sync_start = 0
        self._file_waits: Any = None

    # ------------------------------------------------------------------ setup, before the first sample
    def _connect(self) -> dict[str, str]:
        """Open the watch's connection and read START_VARIABLES ({} when the server refuses)."""
        import pymysql

        from advisor.collect.connection import connect
        from advisor.watch.server import ServerSampler

        ep = self.opts.endpoint
        self.conn = connect(ep)
        self.server = ServerSampler(ep, self.conn)
        try:
            with self.conn.cursor() as cur:
                cur.execute(Q_START)
                return {str(k).lower(): "" if v is None else str(v) for k, v in cur.fetchall()}
        except pymysql.err.MySQLError:
            return {}

    def _target(self, variables: dict[str, str]) -> Target:
        """The target as the audit's snapshot names it (advisor.collect.parse.parse_target), from the
        start variables; the audit's own replaces it when the audit ran."""
        from advisor.versions import Version, detect_flavor

        ep = self.opts.endpoint
        vs, vc = variables.get("version", ""), variables.get("version_comment", "")
        try:
            version: Optional[str] = str(Version.parse(vs))
        except ValueError:
            version = "0.0.0" if vs else None
        sock = getattr(self.conn, "_sock", None)
        tls = sock.version() if hasattr(sock, "version") else None
        return Target(flavor=detect_flavor(vs, vc) if vs else None, version=version,
                      host=None if ep.socket else ep.host, port=None if ep.socket else ep.port, socket=ep.socket,
                      transport="socket" if ep.socket else "tcp", endpoint=ep.describe(), tls=tls)

    def _sources(self, variables: dict[str, str], setup: WatchSetup) -> None:
        """The host sources: what the first sample reads besides the server."""
        from advisor.collect.host import NO_HOST_TIP, decide_locality, pid_file, server_dirs
        from advisor.watch.hosts import LocalHost, SshHost, StreamHost

        o, ep = self.opts, self.opts.endpoint
        self._dirs, pf = server_dirs(variables), pid_file(variables)
        if o.ssh:
            self.server_src = SshHost(o.ssh, o.ssh_options, o.interval, pf, self._dirs)
        elif o.host_stream:
            self.server_src = StreamHost(o.host_stream)
        else:
            loc = decide_locality(ep.host, ep.transport, variables)
            if loc.local:
                self.server_src = LocalHost(pf, self._dirs)
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

    def _setup(self) -> WatchRun:
        o = self.opts
        variables = self._connect()
        setup = WatchSetup(target=self._target(variables), interval_s=o.interval, seconds=o.seconds,
                           audit=AuditInfo(ran=False, reason="the audit had not finished"),
                           statements_per_interval=2)
        if o.command:
            display, sb = mask_command(o.command)
            setup.command = CommandInfo(display=display, sysbench=sb)
        self._sources(variables, setup)
        return WatchRun(advisor_version=__version__, started_at=now_iso(), setup=setup, units=dict(UNITS))

    # ------------------------------------------------------------------ setup, after the first sample
    def _hosts(self, setup: WatchSetup) -> None:
        """The hosts' setup (CPUs, NICs with the client's route and shapers), before the first interval ends."""
        from advisor.collect.network import read_client
        from advisor.watch.hosts import LocalHost, read_shapers
        from advisor.watch.hostsetup import build_host_setup, client_nics, server_nic

        ep, dirs = self.opts.endpoint, self._dirs
        client = None
        nics: list[NicSetup] = []
        if self.client_src is not None or self.server_src is not None:
            client = read_client(ep.host, ep.transport, "/", source="local")
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

    # ------------------------------------------------------------------ the audit, beside the sampling
    def _audit(self) -> tuple[Any, AuditInfo]:
        from advisor import api

        ep = self.opts.endpoint
        snap = api.collect(self.opts.conn_options, endpoint=ep, conn=self.server.shared(), ssh=self.opts.ssh,
                           ssh_options=self.opts.ssh_options)
        self._reads_end = time.monotonic()
        report = api.audit(snap, purpose="benchmark", source="live")
        findings = [AuditFinding(rule=f.rule, severity=f.severity, title=f.title, message=f.message, fix=f.fix)
                    for f in report.findings]
        info = AuditInfo(ran=True, reason="audited with --purpose benchmark at the start of the watch, beside the "
                         "first samples (no calibration)",
                         snapshot=snap.model_dump(mode="json"), findings=findings,
                         statuses={o.rule: o.status for o in report.outcomes},
                         unknown={o.rule: o.reason for o in report.outcomes if o.status == "unknown"})
        return snap, info

    def _audit_main(self) -> None:
        try:  # Linux: a thread's nice value is its own
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass
        try:
            self._audit_result = self._audit()
        except Exception as e:  # noqa: BLE001 - reported in the series: the watch itself goes on
            self._audit_error = e
        finally:
            with self._cpu_lock:
                self._audit_cpu = time.thread_time()
                self._audit_span[1] = time.monotonic()

    def _start_audit(self) -> None:
        self._audit_span[0] = time.monotonic()
        self._audit_thread = threading.Thread(target=self._audit_main, name="watch-audit", daemon=True)
        self._audit_thread.start()

    def _audit_cpu_now(self) -> float:
        """CPU time the audit thread used so far (its CPU clock, read while the lock keeps it alive)."""
        t = self._audit_thread
        if t is None:
            return 0.0
        with self._cpu_lock:
            if self._audit_cpu is not None:
                return self._audit_cpu
            try:
                return time.clock_gettime(time.pthread_getcpuclockid(t.ident))  # type: ignore[arg-type]
            except (AttributeError, OSError, TypeError):
                return 0.0

    def _finish_audit(self, run: WatchRun) -> None:
        t = self._audit_thread
        if t is None:
            return
        t.join(AUDIT_WAIT_S)
        if t.is_alive():
            run.setup.audit = AuditInfo(ran=False, reason=f"the audit did not finish within {AUDIT_WAIT_S:g} s "
                                        "of the sampling's end")
            return
        if self._audit_result is None:
            e = self._audit_error
            why = getattr(e, "message", None) or str(e) or type(e).__name__
            run.setup.audit = AuditInfo(ran=False, reason=f"the audit at the start of the watch failed: {why}")
        else:
            snap, run.setup.audit = self._audit_result
            t_ = snap.target
            run.setup.target = Target(flavor=t_.flavor, version=t_.version, host=t_.host, port=t_.port,
                                      socket=t_.socket, transport=t_.transport, endpoint=self.opts.endpoint.describe(),
                                      tls=snap.server.connection.tls_version)
        st, a1 = run.startup, self._audit_span[1]
        if st is not None and st.first_sample_s is not None and a1 is not None:
            st.audit_done_s = round(st.first_sample_s + (a1 - self._first_mono), 3)
        if st is not None and self._audit_cpu is not None:
            st.audit_cpu_s = round(self._audit_cpu, 3)

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
        out["shared"] = dict(self.server.seen)
        if self.server_src is not None:
            out["server_host"] = self.server_src.sample()
        if self.client_src is not None and self.client_src is not self.server_src:
            out["client_host"] = self.client_src.sample()
        out["cpu"] = time.process_time() - self._audit_cpu_now()
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
        a0, a1 = self._audit_span[0], self._reads_end or self._audit_span[1]
        if a0 is not None and a0 < cur["mono"] and (a1 is None or a1 > prev["mono"]):
            iv.notes.append(AUDIT_NOTE)
        p_status, c_status = prev["server"][0], cur["server"]
        if c_status[3]:
            iv.notes.append(c_status[3])
        if p_status is not None and c_status[0] is not None:
            iv.server = server_interval(p_status, c_status[0], seconds, c_status[1], round(c_status[2], 2))
            self._less_audit(iv, prev.get("shared") or {}, cur.get("shared") or {}, seconds)
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

    @staticmethod
    def _less_audit(iv: Interval, before: dict[str, int], after: dict[str, int], seconds: float) -> None:
        """Remove the audit's statements (read through the watch's connection) from the interval's rates,
        as counters.server_interval removes the sampling's own."""
        rates = iv.server.rates  # type: ignore[union-attr]
        for name, n in after.items():
            d = n - before.get(name, 0)
            if d <= 0 or name not in rates or seconds <= 0:
                continue
            v = round(max(0.0, rates[name] - d / seconds), 4)
            if name.startswith("Com_") and v <= 0:
                del rates[name]
            else:
                rates[name] = v

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

        o = self.opts
        if o.command:
            check_command(o.command)
        try:
            run = self._setup()
            with _Stop() as stop:
                self._loop(run, stop, Command, o)
            self._finish_audit(run)
            return run
        finally:
            self.close()

    def _loop(self, run: WatchRun, stop: _Stop, Command: Callable[..., Any], o: WatchOptions) -> None:
        t0 = self._t0 = time.monotonic()
        prev = self._sample()
        age = process_age()
        self._first_mono = prev["mono"]
        run.startup = Startup(first_sample_s=None if age is None else round(age - (time.monotonic() - prev["mono"]), 3),
                              cpu_before_first_sample_s=round(prev["cpu"], 3), first_sample_at=now_iso(prev["wall"]))
        hosts_prev = {k: prev[k] for k in ("server_host", "client_host") if prev.get(k) is not None}
        from advisor.watch.server import read_file_waits

        # the server's own flush waits as the command starts (one SELECT, counted and taken out of the
        # first interval's rates like the audit's statements)
        self._file_waits = read_file_waits(self.server.shared())
        if o.command:
            self.command = Command(o.command, self._on_line)
            pid = self.command.start()
            run.setup.command.pid = pid  # type: ignore[union-attr]
            if self.client_src is not None:
                self.client_src.set_command(pid)
        self._start_audit()
        self._hosts(run.setup)
        if self.live is not None:
            self.live.started(run)
        self._commit_sync(run.setup)  # SYNC_PROBE_S of the first interval, beside the audit's thread
        prev["cpu"] = time.process_time() - self._audit_cpu_now()  # the hosts' setup and the probe are not sampling
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
