from __future__ import annotations

from advisor.commands.options import (AskPassword, ConnectTimeout, DefaultsExtraFile, DefaultsFile, Host, NoDefaults,
                                      OutputFile, Password, Port, ReadTimeout, SampleSeconds, Socket, SslCa, SslCert,
                                      SslKey, SslMode, User, conn_options, write_output)


def collect(
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    sample_seconds: SampleSeconds = 0.0,
    output: OutputFile = None,
) -> None:
    """Collect a snapshot (JSON) of a server for a later offline `advisor audit --snapshot FILE`."""
    from advisor import api

    opts = conn_options(host, port, socket, user, password, ask_password, defaults_file, defaults_extra_file,
                        no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout, read_timeout)
    snap = api.collect(opts, sample_seconds=sample_seconds)
    write_output(snap.to_json(), output)
