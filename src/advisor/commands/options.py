"""Options shared by commands. Typer annotations only; nothing heavy is imported here."""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import Annotated, Any, List, Optional

import typer

CONN = "Connection (as the mysql client)"
MACHINE = "Host and network facts"
OUT = "Output"
RULES = "Rules"

Host = Annotated[Optional[str], typer.Option("--host", "-h", help="Server host name or IP address.", rich_help_panel=CONN)]
Port = Annotated[Optional[int], typer.Option("--port", "-P", help="TCP port (default 3306).", rich_help_panel=CONN)]
Socket = Annotated[Optional[str], typer.Option("--socket", "-S", help="Unix socket path (default for localhost without --port).", rich_help_panel=CONN)]
User = Annotated[Optional[str], typer.Option("--user", "-u", help="User name (default: option file, then $USER).", rich_help_panel=CONN)]
Password = Annotated[Optional[str], typer.Option("--password", "-p", help="Password. Prefer ~/.my.cnf, --ask-password or MYSQL_PWD: a command-line password is visible to other users.", rich_help_panel=CONN)]
AskPassword = Annotated[bool, typer.Option("--ask-password", help="Prompt for the password.", rich_help_panel=CONN)]
DefaultsFile = Annotated[Optional[str], typer.Option("--defaults-file", help="Read the client and advisor option groups from this file only (instead of ~/.my.cnf).", rich_help_panel=CONN)]
DefaultsExtraFile = Annotated[Optional[str], typer.Option("--defaults-extra-file", help="Read this option file after the others.", rich_help_panel=CONN)]
NoDefaults = Annotated[bool, typer.Option("--no-defaults", help="Read no option files.", rich_help_panel=CONN)]
SslMode = Annotated[Optional[str], typer.Option("--ssl-mode", help="DISABLED, PREFERRED (default), REQUIRED, VERIFY_CA or VERIFY_IDENTITY.", rich_help_panel=CONN)]
SslCa = Annotated[Optional[str], typer.Option("--ssl-ca", help="CA certificate file (for VERIFY_CA / VERIFY_IDENTITY).", rich_help_panel=CONN)]
SslCert = Annotated[Optional[str], typer.Option("--ssl-cert", help="Client certificate file.", rich_help_panel=CONN)]
SslKey = Annotated[Optional[str], typer.Option("--ssl-key", help="Client key file.", rich_help_panel=CONN)]
ConnectTimeout = Annotated[float, typer.Option("--connect-timeout", help="Seconds to wait for the connection.", rich_help_panel=CONN)]
ReadTimeout = Annotated[float, typer.Option("--read-timeout", help="Seconds to wait for each query result.", rich_help_panel=CONN)]


class Purpose(str, Enum):
    production = "production"
    benchmark = "benchmark"


class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"
    sarif = "sarif"
    junit = "junit"


class Severity(str, Enum):
    critical = "critical"
    warning = "warning"
    info = "info"


PurposeOpt = Annotated[Purpose, typer.Option("--purpose", help="How to judge: production (default) or benchmark (comparability and throughput first).", rich_help_panel=RULES)]
RulesDirs = Annotated[Optional[List[str]], typer.Option("--rules", help="Extra rule directory (repeatable).", rich_help_panel=RULES)]
Ignore = Annotated[Optional[str], typer.Option("--ignore", help="Comma-separated rule ids to skip.", rich_help_panel=RULES)]
OutputFile = Annotated[Optional[str], typer.Option("--output", "-o", help="Write to this file instead of standard output.", rich_help_panel=OUT)]
Sysroot = Annotated[Optional[str], typer.Option("--sysroot", help="Read /proc and /sys from this directory (a recorded tree, e.g. for a support case) instead of this machine; used for the server host's facts and the client's network path.", rich_help_panel=MACHINE)]
Ssh = Annotated[Optional[str], typer.Option("--ssh", help="Read the server host's facts over ssh: USER@HOST (host keys are verified; needs python3 on the server; reads /proc and /sys only).", rich_help_panel=MACHINE)]
SshOption = Annotated[Optional[List[str]], typer.Option("--ssh-option", help="Extra ssh option KEY=VALUE (repeatable), e.g. Port=2222, IdentityFile=PATH, UserKnownHostsFile=PATH.", rich_help_panel=MACHINE)]
HostFacts = Annotated[Optional[str], typer.Option("--host-facts", help="Host facts written on the server with `advisor collect --host-facts-only -o FILE`.", rich_help_panel=MACHINE)]
CAL = "Calibration"
Calibrate = Annotated[Optional[bool], typer.Option("--calibrate/--no-calibrate", help="Run the full calibration (default with --purpose benchmark), or none at all. With --purpose production only round trips are measured unless --calibrate is given.", rich_help_panel=CAL)]
CalibrateSecondsOpt = Annotated[float, typer.Option("--calibrate-seconds", help="Time budget of the calibration in seconds.", rich_help_panel=CAL)]
WriteProbeOpt = Annotated[bool, typer.Option("--write-probe", help="Also measure commit latency in a scratch schema the advisor creates and drops (implies --calibrate).", rich_help_panel=CAL)]
SampleSeconds = Annotated[float, typer.Option("--sample-seconds", help="Sample status counters over this many seconds for current rates (0: rates since server start).", rich_help_panel=CONN)]


def conn_options(host: Any, port: Any, socket: Any, user: Any, password: Any, ask_password: bool, defaults_file: Any,
                 defaults_extra_file: Any, no_defaults: bool, ssl_mode: Any, ssl_ca: Any, ssl_cert: Any, ssl_key: Any,
                 connect_timeout: float, read_timeout: float) -> Any:
    from advisor.collect.connection import ConnectionOptions

    if ask_password:
        import getpass

        password = getpass.getpass(f"Enter password for {user or os.environ.get('USER', 'root')}: ")
    return ConnectionOptions(host=host, port=port, socket=socket, user=user, password=password, ssl_mode=ssl_mode,
                             ssl_ca=ssl_ca, ssl_cert=ssl_cert, ssl_key=ssl_key, connect_timeout=connect_timeout,
                             read_timeout=read_timeout, defaults_file=defaults_file,
                             defaults_extra_file=defaults_extra_file, no_defaults=no_defaults)


def write_output(text: str, output: Optional[str], private: bool = False) -> None:
    """Write to a file (or standard output for None / '-'). `private`: a snapshot or host-facts file,
    written mode 0600 (also when the file existed with a wider mode): it describes the server, its
    users and its host."""
    if output and output != "-":
        from advisor.errors import UsageError

        try:
            if private:
                fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    os.fchmod(fh.fileno(), 0o600)
                    fh.write(text)
            else:
                from pathlib import Path

                Path(output).write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"cannot write {output}: {e.strerror}.", "check the directory exists and is writable.") from None
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def split_ids(s: Optional[str]) -> list[str]:
    return [x.strip() for x in (s or "").split(",") if x.strip()]
