from __future__ import annotations

import sys
import time
from enum import Enum
from typing import IO, Annotated, Any, Optional

import typer

from advisor.commands.options import (OUT, AskPassword, Calibrate, CalibrateSecondsOpt, ConnectTimeout,
                                      DefaultsExtraFile, DefaultsFile, Ignore, LoginPath, NoDefaults, OutputFile,
                                      Password, Port, Protocol, Purpose, PurposeOpt, ReadTimeout, RulesDirs,
                                      SampleSeconds, Severity, SslCa, SslCert, SslKey, SslMode, SslVerifyServerCert,
                                      UseSsl, User, conn_options, split_ids, write_output)

INVENTORY = "Targets"


class FleetFormat(str, Enum):
    text = "text"
    json = "json"
    jsonl = "jsonl"
    html = "html"


class InventoryFormat(str, Enum):
    list = "list"
    dsn = "dsn"
    ini = "ini"
    yaml = "yaml"
    json = "json"


def fleet(
    targets: Annotated[Optional[str], typer.Argument(help="The servers: an Ansible inventory (INI, YAML, or the JSON of `ansible-inventory --list`; host vars ansible_host, mysql_port, mysql_user, mysql_socket), Percona DSNs (h=,P=,u=,S=,F=) or lines of host, user@host or host:port.", show_default=False)] = None,
    snapshots: Annotated[Optional[str], typer.Option("--snapshots", help="Audit offline the snapshots in this directory: the per-host results the Ansible playbook fetched (ansible/), or snapshot files (*.json).", rich_help_panel=INVENTORY)] = None,
    inventory_format: Annotated[Optional[InventoryFormat], typer.Option("--inventory-format", help="list, dsn, ini, yaml or json (default: detected).", rich_help_panel=INVENTORY)] = None,
    ssh_host_facts: Annotated[bool, typer.Option("--ssh-host-facts", help="Read each server host's facts over ssh at its inventory address (ansible_user, ansible_host, ansible_port, ansible_ssh_private_key_file, -o options of ansible_ssh_common_args), as `audit --ssh` does; host keys are verified.", rich_help_panel=INVENTORY)] = False,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Audit this many servers at once (default 4 live; one worker process per CPU with --snapshots).")] = None,
    port: Port = None, user: User = None, password: Password = None, ask_password: AskPassword = False,
    defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None, no_defaults: NoDefaults = False, login_path: LoginPath = None,
    ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None, ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None,
    connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0, sample_seconds: SampleSeconds = 0.0,
    purpose: PurposeOpt = Purpose.production,
    calibrate: Calibrate = None,
    calibrate_seconds: CalibrateSecondsOpt = 10.0,
    rules: RulesDirs = None, ignore: Ignore = None,
    fmt: Annotated[FleetFormat, typer.Option("--format", "-f", help="text (default), json (one document), jsonl (one line per host as it finishes, then the roll-up) or html.", rich_help_panel=OUT)] = FleetFormat.text,
    fail_on: Annotated[Severity | None, typer.Option("--fail-on", help="Exit 1 when any server has a finding at or above this severity. A server that could not be audited always makes the exit 6.", rich_help_panel=OUT)] = None,
    output: OutputFile = None,
) -> None:
    """Audit many servers, each as `advisor audit` does (calibrated as the purpose says), stream the results and roll them up: rules across hosts, hosts not audited, configuration drift per group."""
    from advisor.errors import UsageError

    if (targets is None) == (snapshots is None):
        raise UsageError("fleet needs a target file or --snapshots DIR (one of the two).",
                         "e.g. `advisor fleet inventory.ini` or `advisor fleet --snapshots fetched/`.")
    t0 = time.monotonic()
    if snapshots is not None:
        from advisor.fleet import audit_snapshots, snapshot_entries

        if calibrate or ssh_host_facts:
            raise UsageError(f"{'--calibrate' if calibrate else '--ssh-host-facts'} reads a live server or host; it "
                             "does not apply with --snapshots.", "the snapshots carry their own host facts and calibration.")
        entries = snapshot_entries(snapshots)
        import os

        jobs = jobs or len(os.sched_getaffinity(0))
        total = len(entries)
        from advisor.render.fleet import host_line

        stream = audit_snapshots(entries, purpose.value, jobs, split_ids(ignore), rules or [],
                                 record=host_line if fmt == FleetFormat.jsonl else None)
    else:
        from advisor.api import Calibration, calibration_mode, check_calibration_budget
        from advisor.fleet import stream_fleet
        from advisor.inventory import read

        if calibration_mode(purpose.value, calibrate) is not None:
            check_calibration_budget(calibrate_seconds)
        tlist = read(targets, inventory_format.value if inventory_format else None)  # type: ignore[arg-type]
        base = conn_options(None, port, None, user, password, ask_password, defaults_file, defaults_extra_file,
                            no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout,
                            login_path=login_path,
                            use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol)
        jobs = 4 if jobs is None else jobs
        total = len(tlist)
        stream = stream_fleet(tlist, base, purpose.value, jobs, sample_seconds, Calibration(calibrate, calibrate_seconds),
                              split_ids(ignore), rules or [], ssh_host_facts)
    results, rollup, worst = _consume(stream, total, fmt, output)
    _finish(results, rollup, fmt, output, purpose.value, time.monotonic() - t0, jobs, worst.get(fail_on.value) if fail_on else False)


def _consume(stream: Any, total: int, fmt: FleetFormat, output: Optional[str]) -> tuple[list[Any], Any, dict[str, bool]]:
    """Read results as they arrive: a progress line on a terminal, a JSON line per host with --format
    jsonl, each host into the roll-up; keep what the format needs at the end (nothing of the reports
    for jsonl, so memory stays bounded however many hosts)."""
    from advisor.fleet import outcome_of
    from advisor.knowledge import default_catalogue
    from advisor.render.fleet import host_line
    from advisor.rollup import Rollup

    rollup = Rollup(frozenset(default_catalogue().names_with("role", "identity")))
    progress = Progress(sys.stderr, total) if sys.stderr.isatty() else None
    sink = _open(output) if fmt == FleetFormat.jsonl else None
    kept: list[Any] = []
    worst = {s: False for s in ("critical", "warning", "info")}
    try:
        for r in stream:
            rollup.add(outcome_of(r))
            if r.report is not None:
                worst = {s: worst[s] or r.report.worst_at_least(s) for s in worst}
            if sink is not None:
                if progress is not None and sink is sys.stdout and sys.stdout.isatty():
                    progress.clear()
                sink.write(r.line or host_line(r))
                sink.flush()
            elif fmt == FleetFormat.text and r.report is not None:
                r.report = _Light(r.report)
            r.variables = None
            if sink is None:
                kept.append(r)
            if progress is not None:
                progress.step(r)
    finally:
        if progress is not None:
            progress.done()
        if sink is not None and sink is not sys.stdout:
            sink.close()
    kept.sort(key=lambda r: r.target.line)
    return kept, rollup, worst


class _Light:
    """What the text table still needs of a report once its host is rolled up."""

    def __init__(self, report: Any) -> None:
        self._counts = report.severity_counts()
        self.target = report.target
        self.findings = report.findings[:1]

    def severity_counts(self) -> dict[str, int]:
        return self._counts


def _open(output: Optional[str]) -> IO[str]:
    if not output or output == "-":
        return sys.stdout
    from advisor.errors import UsageError

    try:
        return open(output, "w", encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {output}: {e.strerror}.", "check the directory exists and is writable.") from None


def _finish(results: list[Any], rollup: Any, fmt: FleetFormat, output: Optional[str], purpose: str, wall: float,
            jobs: int, findings_fail: bool) -> None:
    """Write the roll-up (jsonl) or the whole report; exit 6 when a host was not audited, else 1 when a
    finding reached --fail-on (`findings_fail`)."""
    from advisor.errors import EXIT_FINDINGS, EXIT_FLEET_INCOMPLETE

    doc = rollup.to_dict()
    if fmt == FleetFormat.jsonl:
        from advisor.render.fleet import rollup_line

        sink = sys.stdout if not output or output == "-" else open(output, "a", encoding="utf-8")
        sink.write(rollup_line(doc, purpose, wall, jobs))
        sink.flush()
        if sink is not sys.stdout:
            sink.close()
    elif fmt == FleetFormat.json:
        from advisor.render.fleet import render_json

        write_output(render_json(results, purpose, wall, jobs, doc), output)
    elif fmt == FleetFormat.html:
        from advisor.render.html import render_fleet

        write_output(render_fleet(results, wall, jobs, doc), output)
    else:
        from advisor.commands.options import terminal_width
        from advisor.render.fleet import render_text

        write_output(render_text(results, wall, jobs, doc, width=terminal_width() if output in (None, "-") else 100),
                     output)
    failed = [u["host"] for u in doc["unreachable"]]
    if failed:
        from advisor.inputs import clip_words

        shown = clip_words(", ".join(failed[:20]) + (f" and {len(failed) - 20:,} more" if len(failed) > 20 else ""))
        sys.stderr.write(f"advisor: error: {len(failed)} of {doc['hosts_total']} host(s) could not be audited: "
                         f"{shown} (exit {EXIT_FLEET_INCOMPLETE}). Tip: each host's error is in the report "
                         "(`unreachable` in the roll-up); fix it, or take the host out of the inventory.\n")
        raise typer.Exit(EXIT_FLEET_INCOMPLETE)
    if findings_fail:
        raise typer.Exit(EXIT_FINDINGS)


class Progress:
    """`[#####.....] 12/40 hosts, 1 not audited, last db07` on one terminal line (standard error)."""

    WIDTH = 24

    def __init__(self, stream: IO[str], total: int) -> None:
        from advisor.commands.options import terminal_width

        self.stream, self.total, self.n, self.failed = stream, max(total, 1), 0, 0
        self.columns = terminal_width() - 1  # a line as wide as the terminal would wrap, and \r redraw only its end

    def step(self, r: Any) -> None:
        self.n += 1
        self.failed += r.report is None
        fill = self.WIDTH * self.n // self.total
        bad = f", {self.failed} not audited" if self.failed else ""
        line = f"[{'#' * fill}{'.' * (self.WIDTH - fill)}] {self.n}/{self.total} hosts{bad}, last {r.target.label[:30]}"
        self.stream.write(f"\r{line[:self.columns]}\033[K")
        self.stream.flush()

    def done(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Take the line away (before a JSON line goes to the same terminal; it comes back at the next host)."""
        self.stream.write("\r\033[K")
        self.stream.flush()
