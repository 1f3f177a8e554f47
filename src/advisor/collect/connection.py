"""Connection options as the mysql client has them, and opening a PyMySQL connection.

Precedence, highest first: command-line options (a Percona DSN given as --host counts as
command-line options); the option files and the login-path file, read as the mysql client reads
them (advisor.collect.clientopts); the environment: MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_UNIX_PORT,
MYSQL_PWD. The password is held in a field that is excluded from repr, from snapshots and from
every message; it is sent as UTF-8 bytes, as the mysql client on a UTF-8 terminal sends it.
"""

from __future__ import annotations

import os
import socket as _socket
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional, Sequence

from advisor.collect.clientopts import ClientFiles, is_dsn, parse_dsn, read_client_files
from advisor.errors import ConnectError, UsageError

SSL_MODES = ("DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")
TLS_MODES = ("REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")  # the modes that refuse a connection without TLS
DEFAULT_SOCKETS = ("/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock",
                   "/var/lib/mysql/mysql.sock")
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
    ssl: Optional[bool] = None            # --ssl (True) / --skip-ssl (False); None: not given
    ssl_verify_server_cert: bool = False  # --ssl-verify-server-cert
    protocol: Optional[str] = None        # --protocol TCP or SOCKET
    connect_timeout: float = 5.0
    read_timeout: float = 30.0
    defaults_file: Optional[str] = None
    defaults_extra_file: Optional[str] = None
    no_defaults: bool = False
    login_path: Optional[str] = None
    password_source: Optional[str] = None   # where a given password came from ("prompt"; default "command line")
    search: Optional[tuple[str, ...]] = None  # the option files to look for (default: the client's list)
    files: Optional[ClientFiles] = field(default=None, repr=False, compare=False)  # read once, by option_files()


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
    ssl_mode_why: str = "the default"  # what chose ssl_mode: "--ssl-ca without --ssl-mode", "ssl-verify-server-cert (file:line)", ...

    @property
    def transport(self) -> str:
        return "socket" if self.socket else "tcp"

    def describe(self) -> str:
        where = f"socket {self.socket}" if self.socket else f"{self.host}:{self.port}"
        return f"{where} as '{self.user}'"


# ---------------------------------------------------------------- resolving


def _apply_dsn(opts: ConnectionOptions) -> ConnectionOptions:
    """A Percona DSN given as the host (`--host h=db1,P=3307,u=app`): its parts count as the
    command-line options they name; an option also given on its own wins."""
    if not opts.host or not is_dsn(opts.host):
        return opts
    d = parse_dsn(opts.host)
    port: Any = d.get("port")
    if port is not None:
        try:
            port = int(port)
        except ValueError:
            raise UsageError(f"P={port!r} in the DSN is not a port number.", "write P=3306.") from None
    return replace(opts, host=d.get("host"), port=opts.port if opts.port is not None else port,
                   user=opts.user or d.get("user"), password=opts.password if opts.password is not None else d.get("password"),
                   socket=opts.socket or d.get("socket"), defaults_file=opts.defaults_file or d.get("defaults_file"),
                   files=None)


def option_files(opts: ConnectionOptions, env: Optional[dict[str, str]] = None) -> ClientFiles:
    """The option files' settings for these options (read once; kept on `opts.files`)."""
    if opts.files is None:
        opts.files = read_client_files(defaults_file=opts.defaults_file, defaults_extra_file=opts.defaults_extra_file,
                                       no_defaults=opts.no_defaults, login_path=opts.login_path, env=env,
                                       search=opts.search)
    return opts.files


PROTOCOLS = ("TCP", "SOCKET")


def _on(value: Optional[str]) -> bool:
    """A boolean option file value as the clients read it: a bare `ssl` is on; 0/off/false are off."""
    return str(value if value is not None else "1").lower() not in ("0", "off", "false", "no")


def _ssl_mode(opts: ConnectionOptions, files: ClientFiles, ssl_ca: Optional[str]) -> tuple[str, str]:
    """The TLS mode and what chose it, as the mysql and mariadb clients decide.

    In this order: --ssl-mode, --skip-ssl, --ssl-verify-server-cert (the command line), ssl-mode in
    an option file, --ssl-ca (command line), then the option files' ssl=0 / skip-ssl and
    ssl-verify-server-cert, a CA from them, and --ssl / ssl (TLS required); else PREFERRED.
    - MySQL 8.0 (https://dev.mysql.com/doc/refman/8.0/en/connection-options.html#option_general_ssl-mode,
      and client/include/sslopt-case.h): --ssl-ca or --ssl-capath without an explicit ssl-mode
      (command line or option file) sets VERIFY_CA; an explicit mode below VERIFY_CA with a CA does
      not verify, and the client warns "no verification of server certificate will be done" (so
      does the advisor: options.conn_options). VERIFY_CA and VERIFY_IDENTITY refuse a server
      without TLS.
    - MariaDB (https://mariadb.com/kb/en/mariadb-command-line-client/: --ssl-ca implies --ssl;
      https://mariadb.com/kb/en/securing-connections-for-client-and-server/): Connector/C checks the
      certificate chain against --ssl-ca (10.11's `mariadb --ssl-ca` refuses a server that CA did
      not sign, ERROR 2026) and the host name with --ssl-verify-server-cert. The 10.11 client
      falls back to plain text when the server has no TLS at all; the advisor follows MySQL there
      and refuses (a named CA asks for a verified server). MariaDB 11.4+ clients verify by default
      and accept a self-signed certificate through the password's fingerprint; the advisor has no
      such check (a CA or nothing), so its default stays PREFERRED, as MySQL's and MariaDB's
      clients up to 11.3.
    """
    if opts.ssl_mode:
        return opts.ssl_mode.upper(), "--ssl-mode"
    if opts.ssl is False:
        return "DISABLED", "--skip-ssl"
    if opts.ssl_verify_server_cert:
        return "VERIFY_IDENTITY", "--ssl-verify-server-cert"
    v = files.values
    if opts.ssl is not True and v.get("ssl-mode") is not None and v["ssl-mode"].value:
        return str(v["ssl-mode"].value).upper(), f"ssl-mode ({v['ssl-mode'].where})"
    if opts.ssl_ca:  # the command line comes after the option files, as the clients read it
        return "VERIFY_CA", "--ssl-ca without ssl-mode"
    if opts.ssl is not True:
        if "ssl" in v and not _on(v["ssl"].value):
            return "DISABLED", f"ssl={v['ssl'].value} ({v['ssl'].where})"
        if "ssl-verify-server-cert" in v and _on(v["ssl-verify-server-cert"].value):
            return "VERIFY_IDENTITY", f"ssl-verify-server-cert ({v['ssl-verify-server-cert'].where})"
    if ssl_ca:
        return "VERIFY_CA", f"ssl-ca ({v['ssl-ca'].where}) without ssl-mode"
    if opts.ssl:
        return "REQUIRED", "--ssl"
    if "ssl" in v and _on(v["ssl"].value):
        return "REQUIRED", f"ssl ({v['ssl'].where})"
    return "PREFERRED", "the default"


def unverified_ca(opts: ConnectionOptions, env: Optional[dict[str, str]] = None) -> Optional[str]:
    """MySQL's warning, as a sentence: an explicit ssl-mode below VERIFY_CA beside a CA does not
    verify the server (None when that is not the case)."""
    files = option_files(opts, env)
    ssl_ca = opts.ssl_ca or (files.values["ssl-ca"].value if "ssl-ca" in files.values else None)
    mode, why = _ssl_mode(opts, files, ssl_ca)
    if ssl_ca and mode in ("PREFERRED", "REQUIRED") and why.split(" (")[0] in ("--ssl-mode", "ssl-mode"):
        return (f"ssl-mode {mode} ({why}) with a CA: no verification of the server's certificate will be done "
                "(as in the mysql client); use --ssl-mode VERIFY_CA or VERIFY_IDENTITY to check it.")
    return None


def _protocol(opts: ConnectionOptions, files: ClientFiles) -> Optional[str]:
    """--protocol (or protocol= in an option file): TCP or SOCKET; PIPE and MEMORY are Windows' only."""
    s = files.values.get("protocol")
    raw, label = (opts.protocol, "--protocol") if opts.protocol else ((s.value, f"protocol ({s.where})") if s else (None, ""))
    if raw is None:
        return None
    p = str(raw).strip().upper()
    if p in ("PIPE", "MEMORY"):
        raise UsageError(f"{label} {p} is a Windows transport (named pipe, shared memory) the advisor does not have.",
                         "use --protocol TCP (with --host and --port) or --protocol SOCKET (with --socket).")
    if p not in PROTOCOLS:
        raise UsageError(f"{label} {str(raw)[:40]!r} is not TCP or SOCKET.",
                         "use --protocol TCP (with --host and --port) or --protocol SOCKET (with --socket).")
    return p


def resolve(opts: ConnectionOptions, env: Optional[dict[str, str]] = None) -> Endpoint:
    env = dict(os.environ) if env is None else env
    opts = _apply_dsn(opts)
    files = option_files(opts, env)
    cnf = {k: s.value for k, s in files.values.items()}

    host = opts.host or cnf.get("host") or env.get("MYSQL_HOST")
    port_s: Any = opts.port if opts.port is not None else (cnf.get("port") or env.get("MYSQL_TCP_PORT") or None)
    user = opts.user or cnf.get("user") or env.get("USER") or "root"
    if opts.password is not None:
        password, src = opts.password, opts.password_source or "command line"
    elif cnf.get("password") is not None:
        password, src = str(cnf["password"]), f"option file ({files.values['password'].where})"
    elif "MYSQL_PWD" in env:
        password, src = env["MYSQL_PWD"], "MYSQL_PWD"
    else:
        password, src = "", "none"

    try:
        port = int(port_s) if port_s is not None else 3306
    except (TypeError, ValueError):
        raise UsageError(f"port {str(port_s)[:40]!r} is not a number.", "pass --port with a TCP port such as 3306.") from None
    if not 0 < port < 65536:
        raise UsageError(f"port {port} is out of range.", "pass --port between 1 and 65535.")

    # Like the mysql client, 'localhost' (or no host) means the unix socket, unless a port was given
    # on the command line (MariaDB's client) or the protocol is TCP; --protocol SOCKET means the
    # socket whatever the host and port say.
    protocol = _protocol(opts, files)
    sock = opts.socket if protocol != "TCP" else None
    if protocol == "SOCKET" and not sock:
        sock = cnf.get("socket") or env.get("MYSQL_UNIX_PORT") or next((s for s in DEFAULT_SOCKETS if Path(s).exists()), None)
        if not sock:
            raise UsageError("--protocol SOCKET but no socket is known (no --socket, no socket in the option files, "
                             "no MYSQL_UNIX_PORT, none of the usual paths exists).",
                             "pass --socket with the server's socket path, or --protocol TCP.")
    if not sock and protocol is None and host in (None, "localhost") and opts.port is None:
        sock = cnf.get("socket") or env.get("MYSQL_UNIX_PORT")
        if not sock and port_s is None:
            sock = next((s for s in DEFAULT_SOCKETS if Path(s).exists()), None)
    if protocol == "TCP" and host in (None, "localhost"):
        host = "127.0.0.1"  # TCP to this machine, as `mysql --protocol=tcp` connects
    if sock and not Path(sock).exists():
        raise ConnectError(f"cannot connect to socket {sock}: no such file.",
                           "check the server's `socket` variable, or connect over TCP with --host and --port.")

    ssl_ca = opts.ssl_ca or cnf.get("ssl-ca")
    mode, why = _ssl_mode(opts, files, ssl_ca)
    if mode not in SSL_MODES:
        raise UsageError(f"{why.split(' (')[0]} {mode[:40]!r} is not one of {', '.join(SSL_MODES)}.",
                         "pass --ssl-mode PREFERRED (the default), or REQUIRED to insist on TLS.")
    if mode in ("VERIFY_CA", "VERIFY_IDENTITY") and not ssl_ca:
        raise UsageError(f"{mode} ({why}) needs --ssl-ca (the CA that signed the server's certificate).",
                         "pass --ssl-ca FILE, or --ssl-mode REQUIRED for TLS without verifying the server.")
    ssl_cert, ssl_key = opts.ssl_cert or cnf.get("ssl-cert"), opts.ssl_key or cnf.get("ssl-key")
    for label, path in (("--ssl-ca", ssl_ca), ("--ssl-cert", ssl_cert), ("--ssl-key", ssl_key)):
        if path and not Path(path).is_file():
            raise UsageError(f"{label} {path} does not exist.", f"pass {label} with the path of a PEM file.")
    for label, t in (("--connect-timeout", opts.connect_timeout), ("--read-timeout", opts.read_timeout)):
        if not 0 < t <= MAX_TIMEOUT:  # also false for NaN
            raise UsageError(f"{label} {t:g} is not a number of seconds between 0 and {MAX_TIMEOUT:,}.",
                             f"pass a positive number of seconds, e.g. {label} 5.")
    return Endpoint(
        host=host or "localhost", port=port, socket=sock, user=user, password=password, ssl_mode=mode,
        ssl_ca=ssl_ca, ssl_cert=ssl_cert, ssl_key=ssl_key,
        connect_timeout=opts.connect_timeout, read_timeout=opts.read_timeout, password_source=src, ssl_mode_why=why,
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


_IMPORT_LOCK = __import__("threading").Lock()


def _pymysql() -> Any:
    """PyMySQL, imported without the cryptography package (~11 ms of every audit), which PyMySQL
    imports up front but needs only to RSA-encrypt a password (sha256_password, or caching_sha2_password's
    full authentication without TLS): its sha2_rsa_encrypt then imports cryptography first. Where
    PyMySQL's auth module does not have the shape this relies on, or cryptography is loaded already,
    PyMySQL is imported as it is."""
    import sys

    with _IMPORT_LOCK:
        mod = sys.modules.get("pymysql")
        if mod is not None:
            return mod
        if "cryptography" in sys.modules:
            import pymysql

            return pymysql
        sys.modules["cryptography"] = None  # type: ignore[assignment]  # `from cryptography... import` raises ImportError
        try:
            import pymysql
            import pymysql._auth as auth
        finally:
            if "cryptography" in sys.modules and sys.modules["cryptography"] is None:
                del sys.modules["cryptography"]
        eager = getattr(auth, "sha2_rsa_encrypt", None)
        if getattr(auth, "_have_cryptography", True) or not callable(eager):
            return pymysql

        def sha2_rsa_encrypt(password: bytes, salt: bytes, public_key: bytes) -> bytes:
            with _IMPORT_LOCK:
                if not auth._have_cryptography:
                    try:
                        from cryptography.hazmat.backends import default_backend
                        from cryptography.hazmat.primitives import hashes, serialization
                        from cryptography.hazmat.primitives.asymmetric import padding
                    except ImportError:
                        pass  # PyMySQL's own function says the package is needed
                    else:
                        auth.default_backend, auth.hashes = default_backend, hashes
                        auth.serialization, auth.padding = serialization, padding
                        auth._have_cryptography = True
            return eager(password, salt, public_key)

        auth.sha2_rsa_encrypt = sha2_rsa_encrypt
        return pymysql


def _connection_class(ep: Endpoint, reached: list[str]) -> Any:
    """PyMySQL's Connection, noting how far the attempt got in `reached` ("transport", "greeting")
    and refusing, before the login, a server without TLS when the mode needs it."""
    pymysql = _pymysql()

    class _Connection(pymysql.connections.Connection):  # type: ignore[misc]
        def _create_ssl_ctx(self, sslp: Any) -> Any:
            # PREFERRED mode (no ssl options): PyMySQL would build a verifying default context and
            # then not verify; build the unverified context directly.
            if isinstance(sslp, dict) and not sslp:
                return _client_context(False, None, False)
            return super()._create_ssl_ctx(sslp)

        def _get_server_information(self) -> Any:
            reached.append("transport")
            out = super()._get_server_information()
            reached.append("greeting")
            return out

        def _request_authentication(self) -> Any:
            # A mode that needs TLS stops before the login when the greeting offers none (as the
            # clients do, ERROR 2026): no credentials go to a server that cannot be verified.
            from pymysql.constants import CLIENT

            if ep.ssl_mode in TLS_MODES and not (self.server_capabilities & CLIENT.SSL):
                raise pymysql.err.OperationalError(2026, "SSL connection error: SSL is required but the server "
                                                         "doesn't support it")
            return super()._request_authentication()

    return _Connection


def connect(ep: Endpoint) -> Any:
    """Open a PyMySQL connection or raise ConnectError with one clear paragraph."""
    pymysql = _pymysql()

    kwargs: dict[str, Any] = dict(
        # The handshake (greeting, TLS, authentication) is bounded by the connect timeout: PyMySQL
        # applies connect_timeout to the TCP connect only, so the read timeout starts out equal to it
        # and is raised to --read-timeout once connected.
        # PyMySQL encodes a str password as latin-1 (a UTF-8 one like pass€word fails); the mysql
        # client sends the bytes the terminal gave it, UTF-8 today.
        user=ep.user, password=ep.password.encode("utf-8", errors="surrogateescape"), connect_timeout=ep.connect_timeout,
        read_timeout=min(ep.connect_timeout, ep.read_timeout), write_timeout=min(ep.connect_timeout, ep.read_timeout), autocommit=True, charset="utf8mb4", program_name="advisor",
    )
    if ep.socket:
        kwargs["unix_socket"] = ep.socket
    else:
        kwargs.update(host=ep.host, port=ep.port)
    kwargs.update(_tls_args(ep))
    reached: list[str] = []  # how far the attempt got: "transport" (TCP or socket up), "greeting"
    _Connection = _connection_class(ep, reached)
    started = time.monotonic()
    try:
        try:
            conn = _Connection(**kwargs)
        except TypeError:  # older PyMySQL without program_name
            kwargs.pop("program_name", None)
            conn = _Connection(**kwargs)
    except pymysql.err.OperationalError as e:
        code = e.args[0] if e.args else 0
        msg = scrub(str(e.args[1]) if len(e.args) > 1 else str(e), ep)
        raise ConnectError(f"cannot connect to {ep.describe()}: ({code}) {_cut(msg)}.",
                           _connect_tip(code, ep, msg, time.monotonic() - started, reached)) from None
    except pymysql.err.MySQLError as e:
        msg = scrub(str(e), ep)
        raise ConnectError(f"cannot connect to {ep.describe()}: {_cut(msg)}.",
                           _connect_tip(0, ep, msg, time.monotonic() - started, reached)) from None
    except (OSError, _socket.timeout) as e:
        msg = scrub(str(e), ep)
        raise ConnectError(f"cannot connect to {ep.describe()}: {_cut(msg)}.",
                           _connect_tip(2003, ep, msg, time.monotonic() - started, reached)) from None
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
    if ep.ssl_mode in TLS_MODES:
        import ssl

        if not isinstance(getattr(conn, "_sock", None), ssl.SSLSocket):
            conn.close()
            raise ConnectError(f"connected to {ep.describe()} but the server does not offer TLS, and "
                               f"--ssl-mode is {ep.ssl_mode}.",
                               "configure ssl_cert/ssl_key on the server, or use --ssl-mode=PREFERRED.")
    return conn


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


_TLS_WORDS = ("[SSL", "SSL:", "certificate", "tlsv1", "sslv3", "wrong version number")


def _took(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _connect_tip(code: int, ep: Endpoint, msg: str = "", elapsed: float = 0.0, reached: Sequence[str] = ()) -> str:
    """What to do, from what happened: the error code, the server's words, how long it took and how
    far the attempt got (`reached`: "transport", "greeting")."""
    low = msg.lower()
    if code == 1045:
        where = {"command line": "--password", "MYSQL_PWD": "MYSQL_PWD", "prompt": "the password you typed",
                 "none": "no password (none was given)"}.get(ep.password_source, ep.password_source)
        return (f"the password came from {where}; put the right credentials under [client] in ~/.my.cnf "
                "(or --defaults-file), use --ask-password, or audit a saved snapshot with --snapshot.")
    mode = f"{ep.ssl_mode}, from {ep.ssl_mode_why}"
    if code == 2026 or "ssl is required" in low:
        if "doesn't support" in low or "does not support" in low:
            return (f"the server offers no TLS, so no handshake took place and nothing was sent (not even the user "
                    f"name); the TLS mode is {mode}: configure ssl_cert and ssl_key on the server, or use "
                    "--skip-ssl (--ssl-mode DISABLED) to connect without TLS.")
        return f"the TLS handshake failed ({mode}): check --ssl-ca and --ssl-mode, or use --ssl-mode=PREFERRED."
    if any(w.lower() in low for w in _TLS_WORDS):
        if "hostname mismatch" in low or "ip address mismatch" in low or "doesn't match" in low:
            return (f"the server's certificate does not name the host '{ep.host}' ({mode}: the CA and the host "
                    "name are checked): connect with a --host the certificate names, or use --ssl-mode VERIFY_CA "
                    "to check the CA only.")
        what = "the server's certificate was not accepted" if "certificate" in low else "the TLS handshake failed"
        return (f"{what} ({mode}): check --ssl-ca (the CA that signed it) and, for VERIFY_IDENTITY, that "
                "the host name is in the certificate; or use --ssl-mode REQUIRED to encrypt without verifying.")
    if code in (2003, 2002, 2005, 2013):
        timed_out = "timed out" in low or elapsed >= ep.connect_timeout * 0.9
        where = "the socket" if ep.socket else "TCP"
        if "transport" in reached and "greeting" not in reached:
            return (f"{where} connected, but no MySQL greeting came "
                    + (f"within --connect-timeout {ep.connect_timeout:g} s" if timed_out else f"(closed after {_took(elapsed)})")
                    + ": is this a MySQL server's port (not a proxy, a TLS terminator or another service), and is the "
                    "server stuck (max_connections, a full disk)?")
        if "greeting" in reached and timed_out:
            return (f"the server greeted but did not finish the login within --connect-timeout {ep.connect_timeout:g} s: "
                    "check the server (an authentication plugin waiting, a slow DNS reverse lookup without "
                    "skip_name_resolve), or raise --connect-timeout.")
        if timed_out:
            when = f"no answer within --connect-timeout {ep.connect_timeout:g} s"
            hint = "a firewall dropping packets, a wrong address, or a server too busy to answer"
        elif "refused" in low:
            when = f"the connection was refused after {_took(elapsed)}"
            hint = "nothing listens there: check the port, bind_address and that the server is running"
        elif code == 2005 or "name or service" in low or "nodename" in low:
            when = f"the host name did not resolve ({_took(elapsed)})"
            hint = "check the spelling of --host, or give an IP address"
        else:
            when = f"it failed after {_took(elapsed)}"
            hint = "check that the server is running and listening there (host, --port, bind_address, firewall)"
        return f"{when}; {hint}."
    if code == 1044 or code == 1227:
        return "the user lacks a privilege the connection needs; see docs/privileges.md."
    return "check the connection options (advisor audit --help lists them)."
