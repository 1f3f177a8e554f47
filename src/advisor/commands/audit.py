
import sys
import time
from typing import Annotated, Optional

import typer

from advisor.commands.options import (OUT, AskPassword, ConnectTimeout, DefaultsExtraFile, DefaultsFile, Host, Ignore,
                                      NoDefaults, OutputFile, Password, Port, PurposeOpt, Purpose, ReadTimeout,
                                      ReportFormat, RulesDirs, SampleSeconds, Severity, Socket, SslCa, SslCert, SslKey,
                                      SslMode, User, conn_options, split_ids, write_output)
from advisor.commands.options import HostFacts, Ssh, SshOption, Sysroot


def audit(
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    sample_seconds: SampleSeconds = 0.0,
    sysroot: Sysroot = None, ssh: Ssh = None, ssh_option: SshOption = None, host_facts: HostFacts = None,
    snapshot: Annotated[Optional[str], typer.Option("--snapshot", help="Audit a saved snapshot (from `advisor collect` or `advisor import`) or a SHOW VARIABLES dump (tab, table, \\G, JSON, CSV, or a pt-mysql-summary / pt-stalk directory) instead of a live server; '-' reads standard input.")] = None,
    input_format: Annotated[Optional[str], typer.Option("--input-format", help="With --snapshot: snapshot, tab, table, vertical, json or csv (default: detected).")] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Audit the bundled demo snapshot (the seed-000 benchmark server).")] = False,
    purpose: PurposeOpt = Purpose.production,
    rules: RulesDirs = None,
    ignore: Ignore = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help="text (default), json, markdown, html (one self-contained file with charts), sarif (SARIF 2.1.0 for code-scanning tools) or junit (JUnit XML, one test case per rule).", rich_help_panel=OUT)] = ReportFormat.text,
    fail_on: Annotated[Optional[Severity], typer.Option("--fail-on", help="Exit 1 when a finding at or above this severity exists.", rich_help_panel=OUT)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also list passed and not-applicable rules with reasons.", rich_help_panel=OUT)] = False,
    output: OutputFile = None,
    calibrate: Annotated[Optional[bool], typer.Option("--calibrate/--no-calibrate", help="Run the full calibration (default with --purpose benchmark), or none at all. With --purpose production only round trips are measured unless --calibrate is given.", rich_help_panel="Calibration")] = None,
    calibrate_seconds: Annotated[float, typer.Option("--calibrate-seconds", help="Time budget of the calibration in seconds.", rich_help_panel="Calibration")] = 10.0,
    write_probe: Annotated[bool, typer.Option("--write-probe", help="Also measure commit latency in a scratch schema the advisor creates and drops (implies --calibrate).", rich_help_panel="Calibration")] = False,
) -> None:
    """Audit a server (live, or a saved snapshot) against the rule catalogue and report findings with evidence."""
    started = time.monotonic()
    from advisor import api
    from advisor.errors import UsageError

    if snapshot and demo:
        raise UsageError("--snapshot and --demo cannot be used together.", None)
    if input_format and not snapshot:
        raise UsageError("--input-format applies to --snapshot FILE.", None)
    if snapshot or demo:
        if host or port or socket:
            raise UsageError("--host/--port/--socket do not apply with --snapshot or --demo.", None)
        if sysroot or ssh or host_facts:
            raise UsageError("--sysroot/--ssh/--host-facts apply when collecting; a snapshot already holds its host "
                             "facts.", "pass them to `advisor collect` when you write the snapshot.")
        if calibrate or write_probe:
            raise UsageError("--calibrate and --write-probe measure a live server; they do not apply with "
                             "--snapshot or --demo.", "the snapshot's own calibration section is used.")
        snap = api.demo_snapshot() if demo else api.read_snapshot_file(snapshot, input_format)  # type: ignore[arg-type]
        source = "the bundled demo snapshot (seed 000)" if demo else f"snapshot {snapshot}"
    else:
        opts = conn_options(host, port, socket, user, password, ask_password, defaults_file, defaults_extra_file,
                            no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout)
        mode = api.calibration_mode(purpose.value, calibrate, write_probe)
        if mode is not None:
            api.check_calibration_budget(calibrate_seconds)
        from advisor.collect.connection import resolve

        ep = resolve(opts)
        snap = api.collect(opts, sample_seconds=sample_seconds, endpoint=ep, sysroot=sysroot, ssh=ssh,
                           ssh_options=ssh_option or [], host_facts=host_facts)
        if mode is not None:
            from advisor.commands.calibrate import run_progress

            progress = run_progress()
            try:
                api.attach_calibration(snap, ep, mode, budget_s=calibrate_seconds, write_probe=write_probe,
                                       progress=progress, started=None if sample_seconds else started)
            finally:
                if progress is not None:
                    progress.finish()
        source = "live"
    report = api.audit(snap, purpose=purpose.value, rules_dirs=rules or [], ignore=split_ids(ignore), source=source)
    measured: list[str] = []
    if snap.calibration is not None:
        from advisor.render import calibration as cal_render

        cal = snap.calibration
        report.calibration = cal_render.report_dict(snap)
        measured = cal_render.body_lines(snap)
        if source == "live":
            report.notes.append(f"calibration ({cal.mode}) ran {cal.duration_s:.1f} s of a {cal.budget_s:g} s budget; "
                                "its measurements are under MEASURED (`calibration` in JSON)")
    if fmt == ReportFormat.json:
        from advisor.render.report_json import render as render_json

        text = render_json(report)
    elif fmt == ReportFormat.html:
        from advisor.render.html import render_audit

        text = render_audit(report, snap)
    elif fmt == ReportFormat.sarif:
        from advisor.render.sarif import render as render_sarif
        from advisor.rules.loader import load_rules

        text = render_sarif([report], load_rules(rules or []))
    elif fmt == ReportFormat.junit:
        from advisor.render.junit import render as render_junit
        from advisor.rules.loader import load_rules

        text = render_junit([report], load_rules(rules or []), fail_on=fail_on.value if fail_on else "warning")
    elif fmt == ReportFormat.markdown:
        from advisor.render.report_markdown import render as render_md

        text = render_md(report, measured=measured)
    else:
        from advisor.render.terminal import render as render_text

        tty = output in (None, "-") and sys.stdout.isatty()
        text = render_text(report, color=tty, verbose=verbose, measured=measured)
    write_output(text, output)
    if fail_on is not None and report.worst_at_least(fail_on.value):
        raise typer.Exit(1)
