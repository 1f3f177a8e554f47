"""`advisor compare A B [C…]`: is this comparison fair? Every difference between the servers that
can change a benchmark result, judged and ranked (docs/compare.md)."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, List, Optional

import typer

from advisor.commands.options import (OUT, AskPassword, ConnectTimeout, DefaultsExtraFile, DefaultsFile, NoDefaults,
                                      OutputFile, Password, Port, Protocol, ReadTimeout, SslCa, SslCert, SslKey,
                                      SslMode, SslVerifyServerCert, UseSsl, User, conn_options, write_output)

CAL = "Calibration (live servers)"


class CompareFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


def compare(
    inputs: Annotated[List[str], typer.Argument(help="Two or more snapshots (`advisor collect -o FILE`), dumps that "
                                                     "`advisor import` reads, or live servers as "
                                                     "mysql://USER[:PASSWORD]@HOST:PORT (user, password and port optional; the password is "
                                                     "never shown); the first is "
                                                     "the baseline.")],
    about: Annotated[Optional[List[str]], typer.Option("--about", help="What the comparison is meant to measure: "
                     "version, flavor, config, durability, tls, binlog, memory, tidb, host, cpu, storage, network or "
                     "data (repeatable or comma-separated). Differences in it are expected; every other one that can "
                     "change a result is confounding.")] = None,
    label: Annotated[Optional[List[str]], typer.Option("--label", help="A name for each input, in order (repeat "
                     "once per input; default A, B, C, …).")] = None,
    port: Port = None, user: User = None, password: Password = None, ask_password: AskPassword = False,
    defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None, no_defaults: NoDefaults = False,
    ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None, ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None,
    connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    calibrate: Annotated[Optional[bool], typer.Option("--calibrate/--no-calibrate", help="Live servers: run the full "
                         "calibration (round trips, stream, flush latency, TLS cost) on each, or none. Default: round "
                         "trips only.", rich_help_panel=CAL)] = None,
    calibrate_seconds: Annotated[float, typer.Option("--calibrate-seconds", help="Time budget of each server's "
                                 "calibration in seconds.", rich_help_panel=CAL)] = 10.0,
    fmt: Annotated[CompareFormat, typer.Option("--format", "-f", help="text (default), json, markdown or html (one "
                   "self-contained file).", rich_help_panel=OUT)] = CompareFormat.text,
    fail_on_confounding: Annotated[bool, typer.Option("--fail-on-confounding", help="Exit 1 when a confounding "
                                   "difference exists.", rich_help_panel=OUT)] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Text: list each harmless difference with its "
                                          "reason (by default one line of names).", rich_help_panel=OUT)] = False,
    output: OutputFile = None,
) -> None:
    """Compare servers for a fair benchmark: every difference that can change the result, as expected, harmless or confounding, with the reason and the fix."""
    from advisor.compare.run import classify, compare_inputs

    options = None
    if any(classify(i).live for i in inputs):  # a password is asked for only when a server is to be read
        options = conn_options(None, port, None, user, password, ask_password, defaults_file, defaults_extra_file,
                               no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout,
                               use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol)
    mode = None if calibrate is False else "full" if calibrate else "light"
    c = compare_inputs(inputs, about or [], options=options, calibration=mode, budget_s=calibrate_seconds,
                       labels=label or [])
    write_output(render(c, fmt, output, verbose), output)
    if fail_on_confounding and c.summary.confounding:
        raise typer.Exit(1)


def render(c, fmt: CompareFormat, output: Optional[str], verbose: bool = False) -> str:
    from advisor.render import compare as r

    if fmt == CompareFormat.json:
        return r.render_json(c)
    if fmt == CompareFormat.markdown:
        return r.render_markdown(c)
    if fmt == CompareFormat.html:
        return r.render_html(c)
    return r.render_text(c, color=output in (None, "-") and sys.stdout.isatty(), verbose=verbose)
