"""`advisor checklist`: the pre-benchmark checklist to paste into a runbook."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from advisor.commands.options import (OUT, AskPassword, Calibrate, CalibrateSecondsOpt, ConnectTimeout,
                                      DefaultsExtraFile, DefaultsFile, Host, LoginPath, NoDefaults, OutputFile,
                                      Password, Port, Protocol, ReadTimeout, RulesDirs, Socket, SslCa, SslCert,
                                      SslKey, SslMode, SslVerifyServerCert, UseSsl, User, conn_options, write_output)


BENCH = "Benchmark"


class ChecklistFormat(str, Enum):
    markdown = "markdown"
    json = "json"


def checklist(
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, login_path: LoginPath = None, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    snapshot: Annotated[Optional[str], typer.Option("--snapshot", help="Use a saved snapshot (from `advisor collect`) instead of a live server; '-' reads standard input.")] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Use the bundled demo snapshot.")] = False,
    sysbench: Annotated[Optional[str], typer.Option("--sysbench", help="The sysbench command line of the run, in quotes; it is parsed and checked against the server (passwords are masked in every output).", rich_help_panel=BENCH)] = None,
    detect_sysbench: Annotated[bool, typer.Option("--detect-sysbench/--no-detect-sysbench", help="Inspect the sysbench on this machine (version, MySQL client library) to judge TLS and option support.", rich_help_panel=BENCH)] = True,
    rules: RulesDirs = None,
    calibrate: Calibrate = None, calibrate_seconds: CalibrateSecondsOpt = 10.0,
    fmt: Annotated[ChecklistFormat, typer.Option("--format", "-f", help="markdown (default) or json.", rich_help_panel=OUT)] = ChecklistFormat.markdown,
    fail_on_fail: Annotated[bool, typer.Option("--fail-on-fail", help="Exit 1 when any item fails.", rich_help_panel=OUT)] = False,
    output: OutputFile = None,
) -> None:
    """Pre-benchmark checklist (Markdown or JSON): environment, server, data and run items with evidence and fixes."""
    from advisor import api
    from advisor.errors import SnapshotError, UsageError
    from advisor.sysbench import parse_command

    if snapshot and demo:
        raise UsageError("--snapshot and --demo cannot be used together.", "give one of them.")
    if sysbench is not None:
        parse_command(sysbench)  # a malformed command is a usage error before any connection is made
    snap, collection, source = None, None, "live"
    if snapshot or demo:
        if host or port or socket:
            raise UsageError("--host/--port/--socket do not apply with --snapshot or --demo.", "give either a server (--host, --port, --socket) or --snapshot FILE / --demo.")
        if demo:
            try:
                snap = api.demo_snapshot()
            except (OSError, FileNotFoundError):
                raise SnapshotError("the bundled demo snapshot is not part of this build.",
                                    "use --snapshot FILE or connect to a server.") from None
            source = "the bundled demo snapshot"
        else:
            snap = api.read_snapshot_file(snapshot)  # type: ignore[arg-type]
            source = f"snapshot {snapshot}"
    else:
        collection = api.Collection(conn_options(host, port, socket, user, password, ask_password, defaults_file,
                                                 defaults_extra_file, no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key,
                                                 connect_timeout, read_timeout, login_path=login_path,
                                                 use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol))
    a = api.assess("benchmark", snapshot=snap, collection=collection,
                   calibration=api.Calibration(calibrate, calibrate_seconds), rules_dirs=rules or [], source=source)
    cl = api.checklist_of(a, sysbench, detect_local=detect_sysbench)
    if fmt == ChecklistFormat.json:
        from advisor.render.checklist import render_json

        text = render_json(cl)
    else:
        from advisor.render.checklist import render_markdown

        text = render_markdown(cl)
    write_output(text, output)
    a.raise_failure()
    if fail_on_fail and cl.failed:
        raise typer.Exit(1)
