"""`advisor verify --cnf FILE`: after a restart, is every setting of the file in effect on the server?"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from advisor.commands.options import (OUT, AskPassword, ConnectTimeout, DefaultsExtraFile, DefaultsFile, Host,
                                      LoginPath, NoDefaults, OutputFile, Password, Port, Protocol, ReadTimeout,
                                      Socket, SslCa, SslCert, SslKey, SslMode, SslVerifyServerCert, UseSsl, User,
                                      conn_options, write_output)


class VerifyFormat(str, Enum):
    text = "text"
    json = "json"


def verify(
    cnf: Annotated[str, typer.Option("--cnf", help="The my.cnf to compare with the server (e.g. the file from `advisor mycnf -o`).")],
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, login_path: LoginPath = None, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    snapshot: Annotated[Optional[str], typer.Option("--snapshot", help="Compare with a saved snapshot instead of a live server.")] = None,
    fmt: Annotated[VerifyFormat, typer.Option("--format", "-f", help="text (default) or json.", rich_help_panel=OUT)] = VerifyFormat.text,
    output: OutputFile = None,
) -> None:
    """Compare the running server with a my.cnf: applied / differs (both values) / not applicable; exit 1 when anything differs."""
    import time
    from pathlib import Path

    from advisor import api
    from advisor.errors import InvalidInputError, UsageError
    from advisor.mycnf.cnf import read_option_file
    from advisor.knowledge import default_catalogue
    from advisor.mycnf.verify import VerifyResult, compare
    from advisor.render.verify import render_json, render_text
    from advisor.units import try_number
    from advisor.versions import Version

    p = Path(cnf)
    if not p.is_file():
        raise InvalidInputError(f"my.cnf file {cnf} does not exist.", "pass the file written by `advisor mycnf -o FILE`.")
    try:
        parsed = read_option_file(p)
    except OSError as e:
        raise InvalidInputError(f"cannot read {cnf}: {e.strerror}.", "check the file and its permissions.") from None
    if snapshot is not None:
        if host or port or socket:
            raise UsageError("--host/--port/--socket do not apply with --snapshot.", "give either a server (--host, --port, --socket) or --snapshot FILE.")
        snap = api.read_snapshot_file(snapshot)
        where = f"snapshot {snapshot}"
    else:
        opts = conn_options(host, port, socket, user, password, ask_password, defaults_file, defaults_extra_file,
                            no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout, login_path=login_path,
                            use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol)
        snap = api.collect(opts, machine=False)  # only the server's variables are compared
        t = snap.target
        where = f"{t.host}:{t.port}" if t.transport == "tcp" else (t.socket or "localhost")
    if snap.target.flavor == "tidb":
        raise UsageError("TiDB is configured in tidb.toml, not with a my.cnf.", "audit a TiDB server with `advisor audit`; its findings name the tidb.toml items.")
    version = Version.parse(snap.target.version)
    uptime = try_number(snap.server.status.get("Uptime", ""))
    age = time.time() - p.stat().st_mtime if snapshot is None else None
    items = compare(parsed.options, snap.server.variables, snap.target.flavor, version,
                    uptime_s=float(uptime) if uptime is not None else None, file_age_s=age,
                    catalogue=default_catalogue())
    if not items:
        raise InvalidInputError(f"{cnf} sets no option in a group the server reads ([mysqld], [server], "
                                f"[mariadb] ...).", "check the file's group headers.")
    res = VerifyResult(path=cnf, flavor=snap.target.flavor, version=snap.target.version, server=where, items=items,
                       notes=list(parsed.errors))
    write_output(render_json(res) if fmt == VerifyFormat.json else render_text(res), output)
    if res.exit_code:
        raise typer.Exit(res.exit_code)
