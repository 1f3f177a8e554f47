"""`advisor calibrate`: short, safe measurements of this client-server path (round trips, stream
throughput against the link's line rate, TLS on/off, sort buffer A/B, flush latency, and, when asked,
commit latency). docs/calibration.md describes every probe and JSON key."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from advisor.commands.options import (OUT, AskPassword, ConnectTimeout, DefaultsExtraFile, DefaultsFile, Host,
                                      LoginPath, NoDefaults, OutputFile, Password, Port, Protocol, ReadTimeout,
                                      Socket, SslCa, SslCert, SslKey, SslMode, SslVerifyServerCert, UseSsl, User,
                                      conn_options, write_output)
from advisor.commands.progress import TerminalProgress

CAL = "Calibration"

CalibrateSeconds = Annotated[float, typer.Option(
    "--calibrate-seconds", help="Total time budget of the calibration in seconds (every probe gets a share).",
    rich_help_panel=CAL)]
WriteProbe = Annotated[bool, typer.Option(
    "--write-probe", help="Also measure commit latency with single-row inserts into a scratch schema the advisor "
                          "creates and drops (advisor_probe_<random>). Off by default: calibration writes nothing "
                          "to the server otherwise.", rich_help_panel=CAL)]


class ProbeName(str, Enum):
    rtt = "rtt"
    stream = "stream"
    sort = "sort"
    tls = "tls"
    fsync = "fsync"
    commit = "commit"


Probe = Annotated[Optional[list[ProbeName]], typer.Option(
    "--probe", help="Run only this probe (repeatable: rtt, stream, sort, tls, fsync, commit); the selected probes "
                    "share the whole budget. commit also needs --write-probe.", rich_help_panel=CAL)]


class CalibrationFormat(str, Enum):
    text = "text"
    json = "json"
    html = "html"


def calibrate(
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, login_path: LoginPath = None, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    calibrate_seconds: CalibrateSeconds = 10.0,
    write_probe: WriteProbe = False,
    probe: Probe = None,
    fmt: Annotated[CalibrationFormat, typer.Option("--format", "-f", help="text (default), json or html (one self-contained file with the latency histograms and the stream against the line rate).", rich_help_panel=OUT)] = CalibrationFormat.text,
    save_snapshot: Annotated[Optional[str], typer.Option("--save-snapshot", help="Also write the whole snapshot (server facts + calibration) to this file, for `advisor audit --snapshot`.", rich_help_panel=OUT)] = None,
    output: OutputFile = None,
) -> None:
    """Measure this client-server path within a time budget: round trips, stream MB/s against the line rate,
    TLS on/off, sort buffer A/B, flush latency (on the server's host) and, with --write-probe, commits."""
    from advisor import api

    opts = conn_options(host, port, socket, user, password, ask_password, defaults_file, defaults_extra_file,
                        no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout, login_path=login_path,
                        use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol)
    progress = TerminalProgress.maybe()
    try:
        snap = api.calibrate(opts, budget_s=calibrate_seconds, write_probe=write_probe, progress=progress,
                             probes=[p.value for p in probe] if probe else None)
    finally:
        if progress is not None:
            progress.finish()
    if save_snapshot:
        write_output(snap.to_json(), save_snapshot, private=True)
    if fmt == CalibrationFormat.json:
        from advisor.render.calibration import render_json

        text = render_json(snap)
    elif fmt == CalibrationFormat.html:
        from advisor.render.html import render_calibration

        text = render_calibration(snap)
    else:
        from advisor.commands.options import terminal_width
        from advisor.render.calibration import render_text

        text = render_text(snap, width=terminal_width() if output in (None, "-") else 100)
    write_output(text, output)


