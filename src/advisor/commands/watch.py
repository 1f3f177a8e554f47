"""`advisor watch`: sample the server, its host and the benchmark client while a benchmark runs, and say
what limits it (docs/watch.md)."""

from __future__ import annotations

import sys
import threading
from enum import Enum
from typing import Annotated, Any, List, Optional, TextIO

import typer

from advisor.commands.options import (MACHINE, OUT, AskPassword, ConnectTimeout, DefaultsExtraFile, DefaultsFile,
                                      Host, LoginPath, NoDefaults, OutputFile, Password, Port, Protocol, ReadTimeout,
                                      ReportFormat, Socket, Ssh, SshOption, SslCa, SslCert, SslKey, SslMode,
                                      SslVerifyServerCert, UseSsl, User, conn_options, write_output)

WATCH = "Watch"


class WatchFormat(str, Enum):
    """The formats watch writes (sarif and junit are for audit findings)."""

    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"

MIN_INTERVAL, MAX_INTERVAL = 0.2, 60.0
DEFAULT_SECONDS = 10.0


class LiveOutput:
    """The live view: the setup, one table row per interval, and the command's output, line by line."""

    def __init__(self, stream: TextIO, table: bool):
        self.stream = stream
        self.table = table
        self.lock = threading.Lock()
        self.latest_tps: Optional[float] = None
        self.latest_at: Optional[float] = None
        self.pending: Optional[tuple[Any, Any]] = None  # a row waiting for the report line that covers it
        self.rows = threading.RLock()

    def _write(self, text: str) -> None:
        with self.lock:
            try:
                self.stream.write(text)
                self.stream.flush()
            except (BrokenPipeError, ValueError):
                pass

    def started(self, run: Any) -> None:
        from advisor.render.watch import setup_lines, table_header

        if self.table:
            self._write("\n".join(setup_lines(run) + [""] + table_header(run)) + "\n")

    def interval(self, run: Any, iv: Any) -> None:
        """A row per interval. sysbench reports on its own clock: when its line for this interval has not
        arrived yet (the last one came more than half a step before the interval closed), the row waits
        for it (or for the next interval), so that TPS and QPS on one row describe the same second."""
        import time

        if not self.table:
            return
        with self.rows:
            self._flush_pending()
            sb = run.setup.command.sysbench if run.setup.command is not None else None
            step = float(((sb or {}).get("options") or {}).get("report-interval") or 0)
            if sb and step and self.latest_at is not None and time.monotonic() - self.latest_at > step / 2:
                self.pending = (run, iv)
                return
            self._write(self._row(run, iv) + "\n")

    def _row(self, run: Any, iv: Any) -> str:
        from advisor.render.watch import table_row

        return table_row(run, iv, self.latest_tps)

    def _flush_pending(self) -> None:
        if self.pending is not None:
            run, iv = self.pending
            self.pending = None
            self._write(self._row(run, iv) + "\n")

    def flush(self) -> None:
        with self.rows:
            self._flush_pending()

    def output(self, line: str) -> None:
        import time

        from advisor.watch.sysbench_out import parse_report_line

        rep = parse_report_line(line)
        with self.rows:
            if rep is not None:
                self.latest_tps = rep.tps if rep.tps is not None else rep.eps
                self.latest_at = time.monotonic()
                self._flush_pending()
            self._write(line if line.endswith("\n") else line + "\n")


def watch(
    command: Annotated[Optional[List[str]], typer.Argument(help="The benchmark to run and watch, after `--` (e.g. -- sysbench oltp_read_only ... run); the watch ends with it and exits with its status.", show_default=False)] = None,
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, login_path: LoginPath = None, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    seconds: Annotated[Optional[float], typer.Option("--seconds", help=f"Watch this long when no command is given (default {DEFAULT_SECONDS:g}).", rich_help_panel=WATCH)] = None,
    interval: Annotated[float, typer.Option("--interval", help="Seconds between samples.", rich_help_panel=WATCH)] = 1.0,
    ssh: Ssh = None, ssh_option: SshOption = None,
    host_stream: Annotated[Optional[str], typer.Option("--host-stream", help="Read the server host's samples from this file or FIFO, written on the server by `advisor watch --host-only`.", rich_help_panel=MACHINE)] = None,
    host_only: Annotated[bool, typer.Option("--host-only", help="Only sample this machine and print the samples as JSON lines (for --host-stream on the client); no server connection.", rich_help_panel=MACHINE)] = False,
    pid_file: Annotated[Optional[str], typer.Option("--pid-file", help="With --host-only: the server's pid file, when more than one mysqld or mariadbd runs here.", rich_help_panel=MACHINE)] = None,
    save: Annotated[Optional[str], typer.Option("--save", help="Also write the series (every interval, with timestamps) to this file, to judge it again with --load.", rich_help_panel=OUT)] = None,
    load: Annotated[Optional[str], typer.Option("--load", help="Judge a saved series (from --save) instead of watching.", rich_help_panel=WATCH)] = None,
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="A saved series of the same benchmark to compare with (e.g. the run without TLS).", rich_help_panel=WATCH)] = None,
    fmt_: Annotated[WatchFormat, typer.Option("--format", "-f", help="text (default), json, markdown or html.", rich_help_panel=OUT)] = WatchFormat.text,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live table (the command's output still passes through).", rich_help_panel=OUT)] = False,
    output: OutputFile = None,
) -> None:
    """Watch a benchmark: sample the server's counters, its host's CPUs, disks and NICs and the client's
    CPU every interval, for --seconds or while COMMAND runs, and say what limits it.

    Exit status with a COMMAND: the command's own; 7 when the benchmark failed (sysbench printed FATAL, e.g. it could not connect); 5 when the watched server went away mid-run; 130 on Ctrl-C."""
    from advisor.errors import UsageError

    if not (MIN_INTERVAL <= interval <= MAX_INTERVAL):
        raise UsageError(f"--interval {interval:g} is out of range.",
                         f"give between {MIN_INTERVAL:g} and {MAX_INTERVAL:g} seconds (default 1).")
    if seconds is not None and seconds <= 0:
        raise UsageError(f"--seconds {seconds:g} must be positive.", "pass e.g. --seconds 60, or a command to watch.")
    fmt = ReportFormat(fmt_.value)
    if host_only:
        return _host_only(interval, seconds, output, pid_file, bool(command or load or host or port or socket))
    if pid_file:
        raise UsageError("--pid-file goes with --host-only; a watch finds the server's process from its pid_file "
                         "variable.", "leave --pid-file out, or add --host-only.")
    if load:
        if command or host or port or socket or ssh or host_stream or seconds or save:
            raise UsageError("--load judges a saved series; it takes no command, connection, --ssh, --host-stream, "
                             "--seconds or --save.", "drop those options, or drop --load to watch a live server.")
        return _judge_saved(load, baseline, fmt, output)
    if command and seconds is not None:
        raise UsageError("--seconds and a command cannot be combined: the watch lasts as long as the command.",
                         "drop --seconds, or run the command separately and watch it with --seconds.")
    if ssh and host_stream:
        raise UsageError("--ssh and --host-stream both supply the server host's samples; give one.", "use --ssh USER@HOST, or --host-stream for samples piped from `advisor watch --host-only` on the server.")
    from advisor.collect.connection import resolve
    from advisor.watch.session import WatchOptions, watch as run_watch

    opts = conn_options(host, port, socket, user, password, ask_password, defaults_file, defaults_extra_file,
                        no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout, login_path=login_path,
                        use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol)
    base, base_name = _baseline(baseline)
    to_stdout = output in (None, "-")
    live_stream = sys.stdout if fmt == ReportFormat.text and to_stdout else sys.stderr
    live = LiveOutput(live_stream, table=not quiet)
    wopts = WatchOptions(conn_options=opts, endpoint=resolve(opts), interval=interval,
                         seconds=None if command else (seconds or DEFAULT_SECONDS), command=list(command or []) or None,
                         ssh=ssh, ssh_options=list(ssh_option or []), host_stream=host_stream)
    try:
        run, signum = run_watch(wopts, live)
    finally:
        live.flush()
    if save:
        write_output(run.to_json(), save, private=True)
    from advisor.watch.report import judge
    from advisor.watch.verdicts import load_verdicts

    report = judge(run, load_verdicts(), base, base_name)
    _emit(report, fmt, output, with_table=not to_stdout)  # on standard output the live table came first
    code = _exit_code(report, signum)
    if code is not None:
        raise typer.Exit(code)


def _exit_code(report: Any, signum: Optional[int]) -> Optional[int]:
    """130 (128 + signal) when interrupted; 5 when the server went away (the benchmark fails too then: the
    cause first); 7 when the benchmark failed; else the command's own status."""
    import signal

    from advisor.errors import EXIT_BENCHMARK_FAILED, EXIT_COLLECTION, EXIT_INTERRUPTED

    cmd = report.run.setup.command
    if signum is not None:
        return EXIT_INTERRUPTED if signum == signal.SIGINT else 128 + signum
    if report.server_lost:
        return EXIT_COLLECTION
    if report.benchmark_failed:
        return EXIT_BENCHMARK_FAILED
    return cmd.exit_status if cmd is not None else None


def _baseline(path: Optional[str]) -> tuple[Any, str]:
    if not path:
        return None, ""
    from advisor.watch.model import load_run

    return load_run(_read(path, "baseline series"), path), path


def _read(path: str, what: str) -> str:
    from pathlib import Path

    from advisor.errors import InvalidInputError

    if path == "-":
        return sys.stdin.read()
    p = Path(path)
    if not p.is_file():
        raise InvalidInputError(f"{what} {p} does not exist.", "pass a file written by `advisor watch --save FILE`.")
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInputError(f"cannot read {what} {p}: {e}.", "check the file and its permissions.") from None


def _judge_saved(path: str, baseline: Optional[str], fmt: ReportFormat, output: Optional[str]) -> None:
    from advisor.watch.model import load_run
    from advisor.watch.report import judge
    from advisor.watch.verdicts import load_verdicts

    run = load_run(_read(path, "series"), path)
    base, base_name = _baseline(baseline)
    report = judge(run, load_verdicts(), base, base_name, source=f"the saved series {path}")
    _emit(report, fmt, output, with_table=True)


def _emit(report: Any, fmt: ReportFormat, output: Optional[str], with_table: bool) -> None:
    from advisor.render import watch as render

    if fmt == ReportFormat.json:
        text = render.render_json(report)
    elif fmt == ReportFormat.markdown:
        text = render.render_markdown(report)
    elif fmt == ReportFormat.html:
        from advisor.render.html import render_watch

        data = render.report_dict(report)
        text = render_watch(data["run"], [r["finding"] for r in data["results"] if "finding" in r])
    else:
        from advisor.commands.options import terminal_width, use_color

        text = ("\n" if not with_table else "") + render.render_text(report, color=use_color(output), with_table=with_table,
                                                                   width=terminal_width())
    write_output(text, output)


def _host_only(interval: float, seconds: Optional[float], output: Optional[str], pid_file: Optional[str],
               extra: bool) -> None:
    """Print this machine's samples as JSON lines until --seconds pass or the stream is closed."""
    import json
    import signal
    import time

    from advisor.errors import UsageError
    from advisor.watch.sampler import HostSampler

    if extra:
        raise UsageError("--host-only samples this machine only; it takes no command, connection or --load.", "run `advisor watch --host-only` alone on the server host.")
    out = open(output, "w", encoding="utf-8") if output and output != "-" else sys.stdout
    s = HostSampler(pid_file=pid_file)
    stop: list[int] = []
    old = signal.signal(signal.SIGTERM, lambda n, f: stop.append(n))
    try:
        out.write(json.dumps({"setup": s.setup()}) + "\n")
        out.flush()
        t0 = nxt = time.monotonic()
        while not stop and (seconds is None or time.monotonic() - t0 < seconds):
            out.write(json.dumps({"sample": s.sample()}) + "\n")
            out.flush()
            nxt += interval
            time.sleep(max(0.0, nxt - time.monotonic()))
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        signal.signal(signal.SIGTERM, old)
        if out is not sys.stdout:
            out.close()
