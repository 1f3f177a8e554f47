"""Options shared by commands, declared with advisor.commands.params.Opt (typer reads them through
advisor.cli; this module does not import it), and the helpers the commands share."""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import Annotated, Any, List, Optional

from advisor.commands.params import Opt

CONN = "Connection (as the mysql client)"
MACHINE = "Host and network facts"
OUT = "Output"
RULES = "Rules"

Host = Annotated[Optional[str], Opt("--host", "-h", help="Server host name or IP address, or a Percona DSN such as h=db1,P=3306,u=app (keys h, P, u, p, S, F).", rich_help_panel=CONN)]
Port = Annotated[Optional[int], Opt("--port", "-P", help="TCP port (default 3306).", rich_help_panel=CONN)]
Socket = Annotated[Optional[str], Opt("--socket", "-S", help="Unix socket path (default for localhost without --port).", rich_help_panel=CONN)]
User = Annotated[Optional[str], Opt("--user", "-u", help="User name (default: option file, then $USER).", rich_help_panel=CONN)]
Password = Annotated[Optional[str], Opt("--password", "-p", help="Password; -p or --password without a value asks for it, as mysql -p does. A password on the command line is visible to other users: prefer -p, --ask-password or an option file.", rich_help_panel=CONN)]
AskPassword = Annotated[bool, Opt("--ask-password", help="Prompt for the password.", rich_help_panel=CONN)]
DefaultsFile = Annotated[Optional[str], Opt("--defaults-file", help="Read the client and advisor option groups from this file only (instead of /etc/my.cnf, /etc/mysql/my.cnf, ~/.my.cnf).", rich_help_panel=CONN)]
DefaultsExtraFile = Annotated[Optional[str], Opt("--defaults-extra-file", help="Also read this option file, before ~/.my.cnf (as the mysql client does).", rich_help_panel=CONN)]
NoDefaults = Annotated[bool, Opt("--no-defaults", help="Read no option files (the login-path file ~/.mylogin.cnf is still read, as by the mysql client).", rich_help_panel=CONN)]
LoginPath = Annotated[Optional[str], Opt("--login-path", help="Also read this group of the option files and of ~/.mylogin.cnf (written by mysql_config_editor).", rich_help_panel=CONN)]
SslMode = Annotated[Optional[str], Opt("--ssl-mode", help="DISABLED, PREFERRED (default), REQUIRED, VERIFY_CA or VERIFY_IDENTITY.", rich_help_panel=CONN)]
SslCa = Annotated[Optional[str], Opt("--ssl-ca", help="CA certificate file; without --ssl-mode it means VERIFY_CA (the server's certificate must be signed by it), as in the mysql and mariadb clients.", rich_help_panel=CONN)]
SslCert = Annotated[Optional[str], Opt("--ssl-cert", help="Client certificate file.", rich_help_panel=CONN)]
SslKey = Annotated[Optional[str], Opt("--ssl-key", help="Client key file.", rich_help_panel=CONN)]
UseSsl = Annotated[Optional[bool], Opt("--ssl/--skip-ssl", help="--ssl: insist on TLS (REQUIRED; VERIFY_CA with --ssl-ca), as the mariadb client's --ssl; --skip-ssl: no TLS (DISABLED). --ssl-mode wins over both.", rich_help_panel=CONN)]
SslVerifyServerCert = Annotated[bool, Opt("--ssl-verify-server-cert", help="Verify the server's certificate against --ssl-ca and its host name (VERIFY_IDENTITY), as the mariadb client does; also read from ssl-verify-server-cert in an option file.", rich_help_panel=CONN)]
Protocol = Annotated[Optional[str], Opt("--protocol", help="TCP or SOCKET (as the mysql client's --protocol; PIPE and MEMORY are Windows-only and refused). TCP with localhost connects to 127.0.0.1.", rich_help_panel=CONN)]
ConnectTimeout = Annotated[float, Opt("--connect-timeout", help="Seconds to wait for the connection.", rich_help_panel=CONN)]
ReadTimeout = Annotated[float, Opt("--read-timeout", help="Seconds to wait for each query result.", rich_help_panel=CONN)]


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


PurposeOpt = Annotated[Purpose, Opt("--purpose", help="How to judge: production (default) or benchmark (comparability and throughput first).", rich_help_panel=RULES)]
RulesDirs = Annotated[Optional[List[str]], Opt("--rules", help="Extra rule directory (repeatable).", rich_help_panel=RULES)]
Ignore = Annotated[Optional[str], Opt("--ignore", help="Comma-separated rule ids to skip.", rich_help_panel=RULES)]
OutputFile = Annotated[Optional[str], Opt("--output", "-o", help="Write to this file instead of standard output.", rich_help_panel=OUT)]
Sysroot = Annotated[Optional[str], Opt("--sysroot", help="Read /proc and /sys from this directory (a recorded tree, e.g. for a support case) instead of this machine; used for the server host's facts and the client's network path.", rich_help_panel=MACHINE)]
Ssh = Annotated[Optional[str], Opt("--ssh", help="Read the server host's facts over ssh: USER@HOST (host keys are verified; needs python3 on the server; reads /proc and /sys only).", rich_help_panel=MACHINE)]
SshOption = Annotated[Optional[List[str]], Opt("--ssh-option", help="Extra ssh option KEY=VALUE (repeatable), e.g. Port=2222, IdentityFile=PATH, UserKnownHostsFile=PATH.", rich_help_panel=MACHINE)]
HostFacts = Annotated[Optional[str], Opt("--host-facts", help="Host facts written on the server with `advisor collect --host-facts-only -o FILE`.", rich_help_panel=MACHINE)]
CAL = "Calibration"
Calibrate = Annotated[Optional[bool], Opt("--calibrate/--no-calibrate", help="Run the full calibration (default with --purpose benchmark), or none at all. With --purpose production only round trips are measured unless --calibrate is given.", rich_help_panel=CAL)]
CalibrateSecondsOpt = Annotated[float, Opt("--calibrate-seconds", help="Time budget of the calibration in seconds.", rich_help_panel=CAL)]
WriteProbeOpt = Annotated[bool, Opt("--write-probe", help="Also measure commit latency in a scratch schema the advisor creates and drops (implies --calibrate).", rich_help_panel=CAL)]
SampleSeconds = Annotated[float, Opt("--sample-seconds", help="Sample status counters over this many seconds for current rates (0: rates since server start).", rich_help_panel=CONN)]


QUIET = False  # --quiet: no warnings, no progress (errors are always printed)
ASK = "--ask-password"


def warn(text: str) -> None:
    """One line on stderr, as the mysql client warns; not with --quiet."""
    if not QUIET:
        sys.stderr.write(f"advisor: warning: {' '.join(text.split())}\n")
        sys.stderr.flush()


def _has_terminal() -> bool:
    """Whether getpass can read without echo: /dev/tty opens (getpass's first choice)."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return False
    os.close(fd)
    return True


def ask_for_password(user: Optional[str], why: str = "") -> str:
    """Read a password without echo from the terminal (getpass: /dev/tty, else standard input)."""
    import getpass
    import warnings

    from advisor.errors import UsageError

    prompt = f"Enter password for {user or os.environ.get('USER', 'root')}{why}: "
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # getpass.GetPassWarning: echo cannot be turned off (no terminal)
        try:
            if _has_terminal():
                return getpass.getpass(prompt)
            # no terminal: getpass would print its own "Warning: Password input may be echoed." line;
            # say it as the advisor's one-line warning and read standard input as getpass does
            warn("no terminal to read the password from without echo: it is read from standard input.")
            sys.stderr.write(prompt)
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")
        except EOFError:
            sys.stderr.write("\n")  # end the prompt's line: the error is a paragraph of its own
            raise UsageError("the password was asked for but none was typed (end of input).",
                             "run on a terminal, or put the password in an option file ([client] password=...) "
                             "or MYSQL_PWD.") from None


def expand_bare_password(args: list[str]) -> list[str]:
    """`-p` or `--password` without a value asks for the password, as `mysql -p` does: the value is
    attached (`-pSECRET`, `--password=SECRET`) or a following word that is not an option."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            return out + args[i:]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a in ("-p", "--password") and (nxt is None or nxt.startswith("-")):
            out.append(ASK)
        else:
            out.append(a)
    return out


def _prescan(args: list[str]) -> dict[str, Any]:
    """The option-file options of a command line, before it is parsed."""
    found: dict[str, Any] = {"defaults_file": None, "defaults_extra_file": None, "no_defaults": False, "login_path": None}
    for i, a in enumerate(args):
        if a == "--no-defaults":
            found["no_defaults"] = True
        for opt in ("--defaults-file", "--defaults-extra-file", "--login-path"):
            key = opt[2:].replace("-", "_")
            if a.startswith(opt + "="):
                found[key] = a.split("=", 1)[1]
            elif a == opt and i + 1 < len(args):
                found[key] = args[i + 1]
    return found


_READ: dict[tuple[Any, ...], Any] = {}  # this run's option files, by the options that chose them


def client_files(defaults_file: Any, defaults_extra_file: Any, no_defaults: bool, login_path: Any) -> Any:
    """Read the option files once per run (the [advisor] defaults and the connection both need
    them); print their warnings once."""
    from advisor.collect.clientopts import read_client_files

    key = (defaults_file, defaults_extra_file, bool(no_defaults), login_path)
    if key not in _READ:
        files = read_client_files(defaults_file=defaults_file, defaults_extra_file=defaults_extra_file,
                                  no_defaults=no_defaults, login_path=login_path)
        for w in files.warnings:
            warn(w)
        if login_path and not files.login_path_found:
            warn(f"--login-path {login_path}: no [{login_path}] group in the option files or the login-path file; "
                 "nothing was read for it.")
        _READ[key] = files
    return _READ[key]


def advisor_defaults(args: list[str], command: Any) -> dict[str, Any]:
    """Defaults for `command`'s options from the [advisor] group (purpose, ignore, fail-on, format):
    the command line still wins. A value the command's option does not take is a warning."""
    table = {o: (p.name, list(getattr(p.type, "choices", None) or [])) for p in getattr(command, "params", [])
             for o in getattr(p, "opts", [])}
    return defaults_from_files(args, command.name, table)


def defaults_from_files(args: list[str], name: str, table: dict[str, tuple[str, list[Any]]]) -> dict[str, Any]:
    """advisor_defaults for a command named `name` whose options are `table`: option name
    (--purpose) -> (parameter name, the values it takes, [] for any)."""
    _READ.clear()
    if "--defaults-file" not in table:
        return {}
    found = _prescan(args)
    files = client_files(found["defaults_file"], found["defaults_extra_file"], found["no_defaults"], found["login_path"])
    out: dict[str, Any] = {}
    for key, setting in files.advisor.items():
        param = table.get(f"--{key}")
        if param is None:
            continue
        pname, choices = param
        value = setting.value
        if value is None or (choices and value not in choices):
            allowed = f"one of {', '.join(map(str, choices))}" if choices else "a value"
            warn(f"{setting.where}: [advisor] {key} = {str(value)[:40]} is ignored: {name}'s --{key} takes {allowed}.")
            continue
        out[pname] = value
    return out


def conn_options(host: Any, port: Any, socket: Any, user: Any, password: Any, ask_password: bool, defaults_file: Any,
                 defaults_extra_file: Any, no_defaults: bool, ssl_mode: Any, ssl_ca: Any, ssl_cert: Any, ssl_key: Any,
                 connect_timeout: float, read_timeout: float, login_path: Any = None, use_ssl: Optional[bool] = None,
                 ssl_verify_server_cert: bool = False, protocol: Optional[str] = None) -> Any:
    from advisor.collect.clientopts import is_dsn, parse_dsn
    from advisor.collect.connection import ConnectionOptions, unverified_ca

    dsn = bool(host and is_dsn(host))
    files = None if dsn else client_files(defaults_file, defaults_extra_file, no_defaults, login_path)
    named = files.values.get("user") if files is not None else None
    who = user or (named.value if named is not None else None)  # the user the prompt names
    source = None
    if ask_password:
        password, source = ask_for_password(who), "prompt"
    elif password is not None or (dsn and "password" in parse_dsn(host)):
        warn("a password given on the command line can be seen by other users of this machine (ps, "
             "/proc/PID/cmdline); use -p or --ask-password to be asked for it, or put it in an option file "
             "([client] password=... in ~/.my.cnf, or mysql_config_editor's --login-path).")
    opts = ConnectionOptions(host=host, port=port, socket=socket, user=user, password=password, ssl_mode=ssl_mode,
                             ssl_ca=ssl_ca, ssl_cert=ssl_cert, ssl_key=ssl_key, ssl=use_ssl,
                             ssl_verify_server_cert=bool(ssl_verify_server_cert), protocol=protocol,
                             connect_timeout=connect_timeout,
                             read_timeout=read_timeout, defaults_file=defaults_file,
                             defaults_extra_file=defaults_extra_file, no_defaults=no_defaults, login_path=login_path,
                             password_source=source)
    if files is not None:
        opts.files = files
        note = unverified_ca(opts)
        if note:
            warn(note)
        pw = files.values.get("password")
        if password is None and pw is not None and pw.value is None:  # a bare `password` line: ask, as mysql does
            opts.password, opts.password_source = ask_for_password(who, f" ({pw.where} asks for it)"), "prompt"
    return opts


def dumb_terminal() -> bool:
    return os.environ.get("TERM") == "dumb"


def use_color(output: Optional[str] = None) -> bool:
    """Colour on a terminal only: not into a file, not with NO_COLOR set (no-color.org: any
    non-empty value), not on TERM=dumb."""
    if output not in (None, "-") or os.environ.get("NO_COLOR") or dumb_terminal():
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def terminal_width(default: int = 100) -> int:
    """COLUMNS when set (as shells and `COLUMNS=60 advisor ...` set it), else the terminal's width
    when standard output is one, else `default`; kept within 40..200."""
    cols = os.environ.get("COLUMNS", "")
    width = int(cols) if cols.isdigit() and int(cols) > 0 else None
    if width is None:
        try:
            if sys.stdout.isatty():
                width = os.get_terminal_size(sys.stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            width = None
    return max(40, min(200, width or default))


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
