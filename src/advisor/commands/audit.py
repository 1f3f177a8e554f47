
from typing import Annotated, Any, Optional

from advisor.commands.params import Exit, Opt
from advisor.commands.options import (OUT, AskPassword, ConnectTimeout, DefaultsExtraFile, DefaultsFile, Host,
                                      Ignore, LoginPath, NoDefaults, OutputFile, Password, Port, Protocol, Purpose,
                                      PurposeOpt, ReadTimeout, ReportFormat, RulesDirs, SampleSeconds, Severity,
                                      Socket, SslCa, SslCert, SslKey, SslMode, SslVerifyServerCert, UseSsl, User,
                                      conn_options, split_ids, write_output)
from advisor.commands.options import Calibrate, CalibrateSecondsOpt, HostFacts, Ssh, SshOption, Sysroot, WriteProbeOpt


def audit(
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, login_path: LoginPath = None, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    sample_seconds: SampleSeconds = 0.0,
    sysroot: Sysroot = None, ssh: Ssh = None, ssh_option: SshOption = None, host_facts: HostFacts = None,
    snapshot: Annotated[Optional[str], Opt("--snapshot", help="Audit a saved snapshot (from `advisor collect` or `advisor import`) or a SHOW VARIABLES dump (tab, table, \\G, JSON, CSV, or a pt-mysql-summary / pt-stalk directory) instead of a live server; '-' reads standard input.")] = None,
    input_format: Annotated[Optional[str], Opt("--input-format", help="With --snapshot: snapshot, tab, table, vertical, json or csv (default: detected).")] = None,
    demo: Annotated[bool, Opt("--demo", help="Audit the bundled demo snapshot (the seed-000 benchmark server).")] = False,
    purpose: PurposeOpt = Purpose.production,
    rules: RulesDirs = None,
    ignore: Ignore = None,
    fmt: Annotated[ReportFormat, Opt("--format", "-f", help="text (default), json, markdown, html (one self-contained file with charts), sarif (SARIF 2.1.0 for code-scanning tools) or junit (JUnit XML, one test case per rule).", rich_help_panel=OUT)] = ReportFormat.text,
    fail_on: Annotated[Optional[Severity], Opt("--fail-on", help="Exit 1 when a finding at or above this severity exists.", rich_help_panel=OUT)] = None,
    verbose: Annotated[bool, Opt("--verbose", "-v", help="Also list passed and not-applicable rules with reasons.", rich_help_panel=OUT)] = False,
    sarif_all: Annotated[bool, Opt("--sarif-all", help="With --format sarif: a result for every outcome (passed, not applicable, unknown) and a rule entry for every rule evaluated, about 1.5 MB a server; by default only the findings and their rules, which fit code-scanning upload limits (GitHub: 10 MB gzip-compressed a file, 20 runs a file, 25,000 results a run, docs/report-format.md).", rich_help_panel=OUT)] = False,
    output: OutputFile = None,
    calibrate: Calibrate = None,
    calibrate_seconds: CalibrateSecondsOpt = 10.0,
    write_probe: WriteProbeOpt = False,
) -> None:
    """Audit a server (live, or a saved snapshot) against the rule catalogue and report findings with evidence."""
    from advisor import api

    if sarif_all and fmt != ReportFormat.sarif:
        from advisor.errors import UsageError

        raise UsageError("--sarif-all goes with --format sarif.", "add --format sarif, or leave --sarif-all out.")
    snap_in, source = given_snapshot(snapshot, demo, host, port, socket, sysroot, ssh, host_facts, input_format)
    progress, collection = None, None
    if snap_in is None:
        from advisor.commands.progress import TerminalProgress

        progress = TerminalProgress.maybe()
        opts = conn_options(host, port, socket, user, password, ask_password, defaults_file, defaults_extra_file,
                            no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout, login_path=login_path,
                            use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol)
        collection = api.Collection(opts, sample_seconds=sample_seconds, sysroot=sysroot, ssh=ssh,
                                    ssh_options=tuple(ssh_option or []), host_facts=host_facts)
    # the budget counts from the calibration's own start: imports, the connection and the collection
    # are not the calibration's time (under load they used a 1 s budget up before any probe ran)
    calibration = api.Calibration(calibrate, calibrate_seconds, write_probe, progress)
    try:
        a = api.assess(purpose.value, snapshot=snap_in, collection=collection,
                       calibration=calibration, rules_dirs=rules or [], ignore=split_ids(ignore), source=source)
    finally:
        if progress is not None:
            progress.finish()
    write_output(render_report(a, fmt, output, verbose, fail_on, sarif_all=sarif_all), output)
    a.raise_failure()
    if fail_on is not None and a.report.worst_at_least(fail_on.value):
        raise Exit(1)


def given_snapshot(snapshot: Optional[str], demo: bool, host: Any, port: Any, socket: Any, sysroot: Any, ssh: Any,
                   host_facts: Any, input_format: Optional[str] = None) -> tuple[Any, str]:
    """(the snapshot of --snapshot or --demo, its source text), or (None, "live") for a live server."""
    from advisor import api
    from advisor.errors import UsageError

    if snapshot and demo:
        raise UsageError("--snapshot and --demo cannot be used together.", "give one of them.")
    if input_format and not snapshot:
        raise UsageError("--input-format applies to --snapshot FILE.", "add --snapshot FILE, or leave --input-format out.")
    if not (snapshot or demo):
        return None, "live"
    if host or port or socket:
        raise UsageError("--host/--port/--socket do not apply with --snapshot or --demo.", "give either a server (--host, --port, --socket) or --snapshot FILE / --demo.")
    if sysroot or ssh or host_facts:
        raise UsageError("--sysroot/--ssh/--host-facts apply when collecting; a snapshot already holds its host "
                         "facts.", "pass them to `advisor collect` when you write the snapshot.")
    if demo:
        return api.demo_snapshot(), "the bundled demo snapshot (seed 000)"
    return api.read_snapshot_file(snapshot, input_format), f"snapshot {snapshot}"  # type: ignore[arg-type]


def render_report(a: Any, fmt: ReportFormat, output: Optional[str], verbose: bool,
                  fail_on: Optional[Severity] = None, sarif_all: bool = False) -> str:
    report = a.report
    if fmt == ReportFormat.json:
        from advisor.render.report_json import render as render_json

        return render_json(report)
    if fmt == ReportFormat.html:
        from advisor.render.html import render_audit

        return render_audit(report, a.snapshot)
    if fmt == ReportFormat.sarif:
        from advisor.render.sarif import render as render_sarif

        return render_sarif([report], list(a.catalogue.rules), everything=sarif_all)
    if fmt == ReportFormat.junit:
        from advisor.render.junit import render as render_junit

        return render_junit([report], list(a.catalogue.rules), fail_on=fail_on.value if fail_on else "warning")
    from advisor.render.calibration import body_lines

    measured = body_lines(a.snapshot) if a.snapshot.calibration is not None else []
    if fmt == ReportFormat.markdown:
        from advisor.render.report_markdown import render as render_md

        return render_md(report, measured=measured)
    from advisor.render.terminal import render as render_text

    from advisor.commands.options import terminal_width, use_color

    return render_text(report, color=use_color(output), verbose=verbose, measured=measured,
                       width=terminal_width() if output in (None, "-") else 100)
