from __future__ import annotations

import time
from typing import Annotated

import typer

from advisor.commands.options import (OUT, AskPassword, Calibrate, CalibrateSecondsOpt, ConnectTimeout,
                                      DefaultsExtraFile, DefaultsFile, LoginPath, NoDefaults, OutputFile, Password, Port, Purpose,
                                      PurposeOpt, ReadTimeout, ReportFormat, SampleSeconds, Severity, SslCa, SslCert,
                                      SslKey, SslMode, User, conn_options, write_output)


def fleet(
    targets: Annotated[str, typer.Argument(help="File with one [user@]host[:port] per line ('#' comments).")],
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Audit this many servers at once.")] = 4,
    port: Port = None, user: User = None, password: Password = None, ask_password: AskPassword = False,
    defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None, no_defaults: NoDefaults = False, login_path: LoginPath = None,
    ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None, ssl_key: SslKey = None,
    connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0, sample_seconds: SampleSeconds = 0.0,
    purpose: PurposeOpt = Purpose.production,
    calibrate: Calibrate = None,
    calibrate_seconds: CalibrateSecondsOpt = 10.0,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help="text (default), json or html.", rich_help_panel=OUT)] = ReportFormat.text,
    fail_on: Annotated[Severity | None, typer.Option("--fail-on", help="Exit 1 when any server has a finding at or above this severity, or could not be audited.", rich_help_panel=OUT)] = None,
    output: OutputFile = None,
) -> None:
    """Audit many servers in parallel, each as `advisor audit` does (calibrated as the purpose says), and summarise them."""
    from advisor.api import Calibration
    from advisor.errors import UsageError
    from advisor.fleet import audit_fleet, read_targets
    from advisor.render.fleet import render_json, render_text

    if fmt in (ReportFormat.markdown, ReportFormat.sarif, ReportFormat.junit):
        raise UsageError(f"fleet prints text, json or html, not {fmt.value}.",
                         f"audit one server with `advisor audit --format {fmt.value}`.")
    from advisor.api import calibration_mode, check_calibration_budget

    if calibration_mode(purpose.value, calibrate) is not None:
        check_calibration_budget(calibrate_seconds)
    tlist = read_targets(targets)
    base = conn_options(None, port, None, user, password, ask_password, defaults_file, defaults_extra_file,
                        no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout, login_path=login_path)
    t0 = time.monotonic()
    results = audit_fleet(tlist, base, purpose=purpose.value, jobs=jobs, sample_seconds=sample_seconds,
                          calibration=Calibration(calibrate, calibrate_seconds))
    wall = time.monotonic() - t0
    if fmt == ReportFormat.json:
        write_output(render_json(results, purpose.value, wall, jobs), output)
    elif fmt == ReportFormat.html:
        from advisor.render.html import render_fleet

        write_output(render_fleet(results, wall, jobs), output)
    else:
        write_output(render_text(results, wall, jobs), output)
    if fail_on is not None and any(r.report is None or r.report.worst_at_least(fail_on.value) for r in results):
        raise typer.Exit(1)
