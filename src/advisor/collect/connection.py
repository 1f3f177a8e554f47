"""Connection options as the mysql client has them, and opening a PyMySQL connection.

Precedence, highest first: command-line options; option files ([client] and [advisor] groups of
--defaults-file, or else ~/.my.cnf, plus --defaults-extra-file); the MYSQL_PWD environment
variable (password only). The password is held in a field that is excluded from repr, from
snapshots and from every message.
"""

from __future__ import annotations

import os
import re
import socket as _socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from advisor.errors import ConnectError, UsageError

SSL_MODES = ("DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")
DEFAULT_SOCKETS = ("/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock",
                   "/var/lib/mysql/mysql.sock")
OPTION_GROUPS = ("client", "advisor")
MAX_TIMEOUT = 86400  # seconds; a socket timeout must fit the C timeval, and a day is plenty


@dataclass
class ConnectionOptions:
    """What the user asked for (any field may be None = not given)."""

    host: Optional[str] = None
    port: Optional[int] = None
    socket: Optional[str] = None
    user: Optional[str] = None
    password: Optional[str] = field(default=None, repr=False)
    ssl_mode: Optional[str] = None
    ssl_ca: Optional[str] = None
    ssl_cert: Optional[str] = None
    ssl_key: Optional[str] = None
    connect_timeout: float = 5.0
    read_timeout: float = 30.0
    defaults_file: Optional[str] = None
    defaults_extra_file: Optional[str] = None
    no_defaults: bool = False


@dataclass(frozen=True)
class Endpoint:
    """Resolved connection parameters."""

    host: str
    port: int
    socket: Optional[str]
    user: str
    password: str = field(repr=False)
    ssl_mode: str
    ssl_ca: Optional[str]
    ssl_cert: Optional[str]
    ssl_key: Optional[str]
    connect_timeout: float
    read_timeout: float
    password_source: str = "none"

    @property
    def transport(self) -> str:
        return "socket" if self.socket else "tcp"

    def describe(self) -> str:
        where = f"socket {self.socket}" if self.socket else f"{self.host}:{self.port}"
        return f"{where} as '{self.user}'"


# ---------------------------------------------------------------- option files

_INCLUDE = re.compile(r"^!(include|includedir)\s+(.+)$")


def parse_option_file(text: str, base: Optional[Path] = None, _depth: int = 0) -> dict[str, dict[str, str]]:
    """MySQL option-file syntax: [group], key=value, bare key (= 'true'), # and ; comments,
    quoted values, !include FILE and !includedir DIR. Keys are normalised to use '-'."""
    groups: dict[str, dict[str, str]] = {}
    cur: Optional[dict[str, str]] = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        m = _INCLUDE.match(line)
        if m:
            if _depth > 8:
                continue
            target = Path(m.group(2).strip())
            if base is not None and not target.is_absolute():
                target = base / target
            files = sorted(target.glob("*.cnf")) if m.group(1) == "includedir" and target.is_dir() else [target]
            for f in files:
                try:
                    sub = parse_option_file(f.read_text(encoding="utf-8", errors="replace"), f.parent, _depth + 1)
                except OSError:
                    continue
                for g, kv in sub.items():
                    groups.setdefault(g, {}).update(kv)
            continue
        if line.startswith("[") and line.endswith("]"):
            cur = groups.setdefault(line[1:-1].strip().lower(), {})
            continue
        if cur is None:
            continue
        key, sep, value = line.partition("=")
        key = key.strip().lower().replace("_", "-")
        value = value.strip()
        if not sep:
            value = "true"
        elif value[:1] in ("'", '"'):
            q = value[0]
            end = value.find(q, 1)
            value = value[1:end] if end > 0 else value[1:]
        else:
            value = re.split(r"\s+#", value, maxsplit=1)[0].strip()
        cur[key] = value
    return groups


def _read_option_files(opts: ConnectionOptions) -> dict[str, str]:
    if opts.no_defaults:
        return {}
    files: list[Path] = []
    if opts.defaults_file:
        p = Path(opts.defaults_file)
        if not p.is_file():
            raise UsageError(f"--defaults-file {p} does not exist or is not a file.",
                             "give the path of an option file with a [client] section.")
        files.append(p)
    else:
        home = Path(os.path.expanduser("~")) / ".my.cnf"
        if home.is_file():
            files.append(home)
    if opts.defaults_extra_file:
        p = Path(opts.defaults_extra_file)
        if not p.is_file():
            raise UsageError(f"--defaults-extra-file {p} does not exist or is not a file.",
                             "give the path of an option file with a [client] section.")
        files.append(p)
    merged: dict[str, str] = {}
    for f in files:
        try:
            groups = parse_option_file(f.read_text(encoding="utf-8", errors="replace"), f.parent)
        except OSError as e:
            raise UsageError(f"cannot read option file {f}: {e.strerror}.", "check its permissions.") from None
        for g in OPTION_GROUPS:
            merged.update(groups.get(g, {}))
    return merged


def resolve(opts: ConnectionOptions, env: Optional[dict[str, str]] = None) -> Endpoint:
    env = dict(os.environ) if env is None else env
    cnf = _read_option_files(opts)

    host = opts.host or cnf.get("host")
    port_s: Any = opts.port if opts.port is not None else cnf.get("port")
    sock = opts.socket or (cnf.get("socket") if not opts.host and opts.port is None else None)
    user = opts.user or cnf.get("user") or env.get("USER") or "root"
    if opts.password is not None:
        password, src = opts.password, "command line"
    elif "password" in cnf and cnf["password"] != "true":
        password, src = cnf["password"], "option file"
    elif "MYSQL_PWD" in env:
        password, src = env["MYSQL_PWD"], "MYSQL_PWD"
    else:
        password, src = "", "none"

    try:
        port = int(port_s) if port_s is not None else 3306
    except (TypeError, ValueError):
        raise UsageError(f"port {port_s!r} is not a number.", "pass --port with a TCP port such as 3306.") from None
    if not 0 < port < 65536:
        raise UsageError(f"port {port} is out of range.", "pass --port between 1 and 65535.")

    # Like the mysql client, 'localhost' (or no host) without a port means the unix socket.
    if not sock and (host in (None, "localhost")) and port_s is None:
        sock = next((s for s in DEFAULT_SOCKETS if Path(s).exists()), None)
    if sock and not Path(sock).exists():
        raise ConnectError(f"cannot connect to socket {sock}: no such file.",
                           "check the server's `socket` variable, or connect over TCP with --host and --port.")

    mode = (opts.ssl_mode or cnf.get("ssl-mode") or "PREFERRED").upper()
    if mode not in SSL_MODES:
        raise UsageError(f"--ssl-mode {mode!r} is not one of {', '.join(SSL_MODES)}.",
                         "pass one of them on the command line or as ssl-mode under [client].")
    ssl_ca = opts.ssl_ca or cnf.get("ssl-ca")
    if mode in ("VERIFY_CA", "VERIFY_IDENTITY") and not ssl_ca:
        raise UsageError(f"--ssl-mode {mode} needs --ssl-ca (the CA that signed the server's certificate).",
                         "pass --ssl-ca FILE, or use --ssl-mode REQUIRED to encrypt without verifying.")
    for label, path in (("--ssl-ca", ssl_ca), ("--ssl-cert", opts.ssl_cert), ("--ssl-key", opts.ssl_key)):
        if path and not Path(path).is_file():
            raise UsageError(f"{label} {path} does not exist.", "give the path of a PEM file.")
    for label, t in (("--connect-timeout", opts.connect_timeout), ("--read-timeout", opts.read_timeout)):
        if not 0 < t <= MAX_TIMEOUT:  # also false for NaN
            raise UsageError(f"{label} {t:g} is not a number of seconds between 0 and {MAX_TIMEOUT:,}.",
                             f"pass a positive number of seconds, e.g. {label} 5.")
    return Endpoint(
        host=host or "localhost", port=port, socket=sock, user=user, password=password, ssl_mode=mode,
        ssl_ca=ssl_ca, ssl_cert=opts.ssl_cert or cnf.get("ssl-cert"), ssl_key=opts.ssl_key or cnf.get("ssl-key"),
        connect_timeout=opts.connect_timeout, read_timeout=opts.read_timeout, password_source=src,
    )


def _client_context(verify: bool, ca: Optional[str], check_hostname: bool) -> Any:
    """A TLS client context that loads only what it needs: no CA store for unverified modes
    (loading the system store costs ~15 ms per run), only --ssl-ca for verified ones."""
    import ssl

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = check_hostname
    if verify:
        ctx.verify_mode = ssl.CERT_REQUIRED
        if ca:
            ctx.load_verify_locations(cafile=ca)
        else:
            ctx.load_default_certs()
    else:
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def _ssl_args(ep: Endpoint) -> dict[str, Any]:
    if ep.ssl_mode == "DISABLED":
        return {"ssl_disabled": True}
    if ep.ssl_mode == "PREFERRED":
        return {}  # PyMySQL negotiates TLS when the server offers it (see _Connection)
    if ep.ssl_mode == "REQUIRED":
        ctx = _client_context(False, None, False)
    elif ep.ssl_mode == "VERIFY_CA":
        ctx = _client_context(True, ep.ssl_ca, False)
    else:
        ctx = _client_context(True, ep.ssl_ca, True)
    if ep.ssl_cert:
        ctx.load_cert_chain(ep.ssl_cert, ep.ssl_key)
    return {"ssl": ctx}


def _tls_args(ep: Endpoint) -> dict[str, Any]:
    """_ssl_args, with a certificate file that cannot be loaded as a usage error."""
    import ssl

    try:
        return _ssl_args(ep)
    except (ssl.SSLError, OSError, ValueError) as e:
        files = ", ".join(f"{k} {v}" for k, v in (("--ssl-ca", ep.ssl_ca), ("--ssl-cert", ep.ssl_cert),
                                                  ("--ssl-key", ep.ssl_key)) if v)
        raise UsageError(f"cannot load the TLS files ({files}): {getattr(e, 'reason', None) or e}.",
                         "give PEM files: --ssl-ca the CA certificate, --ssl-cert/--ssl-key the client "
                         "certificate and its key.") from None


def scrub(text: str, ep: Optional[Endpoint]) -> str:
    """Remove the password from any text that might echo it."""
    if ep is not None and ep.password and len(ep.password) >= 1:
        text = text.replace(ep.password, "********")
    return text


def connect(ep: Endpoint) -> Any:
    """Open a PyMySQL connection or raise ConnectError with one clear paragraph."""
    import pymysql

    kwargs: dict[str, Any] = dict(
        # The handshake (greeting, TLS, authentication) is bounded by the connect timeout: PyMySQL
        # applies connect_timeout to the TCP connect only, so the read timeout starts out equal to it
        # and is raised to --read-timeout once connected.
        user=ep.user, password=ep.password, connect_timeout=ep.connect_timeout,
        read_timeout=min(ep.connect_timeout, ep.read_timeout), write_timeout=min(ep.connect_timeout, ep.read_timeout), autocommit=True, charset="utf8mb4", program_name="advisor",
    )
    if ep.socket:
        kwargs["unix_socket"] = ep.socket
    else:
        kwargs.update(host=ep.host, port=ep.port)
    kwargs.update(_tls_args(ep))
    class _Connection(pymysql.connections.Connection):  # type: ignore[misc]
        def _create_ssl_ctx(self, sslp: Any) -> Any:
            # PREFERRED mode (no ssl options): PyMySQL would build a verifying default context and
            # then not verify; build the unverified context directly.
            if isinstance(sslp, dict) and not sslp:
                return _client_context(False, None, False)
            return super()._create_ssl_ctx(sslp)

    try:
        try:
            conn = _Connection(**kwargs)
        except TypeError:  # older PyMySQL without program_name
            kwargs.pop("program_name", None)
            conn = _Connection(**kwargs)
    except pymysql.err.OperationalError as e:
        code = e.args[0] if e.args else 0
        msg = scrub(str(e.args[1]) if len(e.args) > 1 else str(e), ep)
        raise ConnectError(f"cannot connect to {ep.describe()}: ({code}) {msg}.", _connect_tip(code, ep)) from None
    except pymysql.err.MySQLError as e:
        raise ConnectError(f"cannot connect to {ep.describe()}: {scrub(str(e), ep)}.", _connect_tip(0, ep)) from None
    except (OSError, _socket.timeout) as e:
        raise ConnectError(f"cannot connect to {ep.describe()}: {scrub(str(e), ep)}.", _connect_tip(2003, ep)) from None
    except UnicodeError as e:  # a host name the IDNA codec refuses (a label over 63 characters)
        if isinstance(e, UnicodeEncodeError) and e.encoding == "latin-1" and ep.password:
            # a stopgap until the password is sent as UTF-8 (issue 19): an error, not exit 70
            raise ConnectError(f"cannot connect to {ep.describe()}: the password has characters the driver "
                               "cannot send (it encodes mysql_native_password passwords as latin-1).",
                               "use a password of latin-1 characters for this account, or connect with an "
                               "account whose password is.") from None
        if "idna" not in str(e):
            raise
        raise ConnectError(f"cannot connect to {ep.describe()}: the host name is not valid ({e}).",
                           "check --host: each dot-separated part has at most 63 characters.") from None
    conn._read_timeout = ep.read_timeout  # PyMySQL re-applies these before each read/write
    conn._write_timeout = ep.read_timeout
    if ep.ssl_mode in ("REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"):
        import ssl

        if not isinstance(getattr(conn, "_sock", None), ssl.SSLSocket):
            conn.close()
            raise ConnectError(f"connected to {ep.describe()} but the server does not offer TLS, and "
                               f"--ssl-mode is {ep.ssl_mode}.",
                               "configure ssl_cert/ssl_key on the server, or use --ssl-mode=PREFERRED.")
    return conn


def _connect_tip(code: int, ep: Endpoint) -> str:
    if code == 1045:
        where = {"command line": "--password", "option file": "the option file", "MYSQL_PWD": "MYSQL_PWD",
                 "none": "no password (none was given)"}[ep.password_source]
        return (f"the password came from {where}; put the right credentials under [client] in ~/.my.cnf "
                "(or --defaults-file), use --ask-password, or audit a saved snapshot with --snapshot.")
    if code in (2003, 2002, 2005):
        return ("check that the server is running and listening there (host, --port, bind_address, firewall); "
                f"the attempt gave up after --connect-timeout {ep.connect_timeout:g} s.")
    if code == 2026:
        return "the TLS handshake failed: check --ssl-ca and --ssl-mode, or use --ssl-mode=PREFERRED."
    if code == 1044 or code == 1227:
        return "the user lacks a privilege the connection needs; see docs/privileges.md."
    return "check the connection options (advisor audit --help lists them)."
