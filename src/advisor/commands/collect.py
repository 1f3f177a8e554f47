from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from advisor.commands.options import (MACHINE, OUT, AskPassword, ConnectTimeout, DefaultsExtraFile, DefaultsFile,
                                      Host, HostFacts, LoginPath, NoDefaults, OutputFile, Password, Port, Protocol,
                                      ReadTimeout, SampleSeconds, Socket, Ssh, SshOption, SslCa, SslCert, SslKey,
                                      SslMode, SslVerifyServerCert, Sysroot, UseSsl, User, conn_options,
                                      write_output)


class CollectFormat(str, Enum):
    json = "json"


def collect(
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, login_path: LoginPath = None, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    sample_seconds: SampleSeconds = 0.0,
    host_facts_only: Annotated[bool, typer.Option("--host-facts-only", help="Collect only this machine's host facts (no server connection), for `advisor audit --host-facts FILE` on another machine.", rich_help_panel=MACHINE)] = False,
    sysroot: Sysroot = None, ssh: Ssh = None, ssh_option: SshOption = None, host_facts: HostFacts = None,
    fmt: Annotated[CollectFormat, typer.Option("--format", "-f", help="json (the only format; snapshots and host-facts files are JSON).", rich_help_panel=OUT)] = CollectFormat.json,
    output: OutputFile = None,
) -> None:
    """Collect a snapshot (JSON) of a server for a later offline `advisor audit --snapshot FILE`."""
    from advisor import api
    from advisor.errors import UsageError

    if host_facts_only:
        given = [n for n, v in (("--host", host), ("--port", port), ("--socket", socket), ("--ssh", ssh),
                                ("--host-facts", host_facts)) if v]
        if given:
            raise UsageError(f"--host-facts-only reads this machine only and takes no {', '.join(given)}.",
                             "run it on the server host itself.")
        write_output(api.host_facts_only(sysroot), output, private=True)
        return
    opts = conn_options(host, port, socket, user, password, ask_password, defaults_file, defaults_extra_file,
                        no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout, login_path=login_path,
                        use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol)
    from advisor.commands.progress import TerminalProgress

    progress = TerminalProgress.maybe(label="collecting") if sample_seconds > 0 else None
    try:
        snap = api.collect(opts, sample_seconds=sample_seconds, sysroot=sysroot, ssh=ssh, ssh_options=ssh_option or [],
                           host_facts=host_facts, progress=progress)
    finally:
        if progress is not None:
            progress.finish()
    write_output(snap.to_json(), output, private=True)
