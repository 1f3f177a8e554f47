"""Replay a recorded MySQL-family server over the real MySQL wire protocol.

Tests use this to run the advisor's real collector (PyMySQL: handshake,
mysql_native_password authentication, or with ``auth_plugin="caching_sha2_password"``
MySQL 8's full authentication over plain TCP with a real RSA key, COM_QUERY) against flavors that cannot
be installed here: MySQL 5.7/8.0/8.4, Percona Server, other MariaDB releases
and TiDB. Each recorded set lives in ``tests/fixtures/flavors/<set>/`` (see the
PROVENANCE.md beside each set for where its values come from).

The server is deliberately small and strict: it answers the statements a
read-only collector sends and returns a real MySQL error for anything else,
never a silent empty result.

    with ReplayServer.from_set("mysql-8.0.36", overrides={"sort_buffer_size": "33554432"}) as srv:
        conn = pymysql.connect(host=srv.host, port=srv.port, user="root", password="")
        ...
        assert all(q.upper().startswith(("SET", "SHOW", "SELECT")) for q in srv.queries)

Answered without a recorded entry:
  SHOW [GLOBAL|SESSION|LOCAL] VARIABLES|STATUS [LIKE '..' | WHERE Variable_name = '..' | IN (..) | LIKE '..' [OR ..]]
  SELECT of @@x / @@global.x / @@session.x, CONNECTION_ID(), VERSION(), DATABASE(), USER(),
         CURRENT_USER(), literals (comma-separated, optional aliases and LIMIT n)
  SET NAMES / CHARACTER SET, SET [GLOBAL|SESSION|LOCAL|PERSIST] x = v, SET autocommit = 0|1,
  SET TRANSACTION .., USE db, BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SHOW WARNINGS,
  COM_PING, COM_INIT_DB, COM_QUIT.
Every statement received is appended to ``ReplayServer.queries`` (the two
statements PyMySQL sends while connecting, ``SET NAMES utf8mb4`` and
``SET AUTOCOMMIT = 0``, included). Statements that fell through to the
generic error are also kept in ``ReplayServer.unhandled``.

``SELECT @@x`` types its value the way MySQL does: integers as BIGINT,
decimals as DOUBLE, boolean ON/OFF variables as 1/0 (enum variables whose
values merely look boolean, such as gtid_mode or innodb_doublewrite on 8.0.30+,
stay strings), everything else as a string. SHOW results are always strings.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import selectors
import socket
import struct
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

FLAVORS_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "flavors"

# Capability flags (include/mysql_com.h).
CLIENT_LONG_PASSWORD = 0x1
CLIENT_FOUND_ROWS = 0x2
CLIENT_LONG_FLAG = 0x4
CLIENT_CONNECT_WITH_DB = 0x8
CLIENT_PROTOCOL_41 = 0x200
CLIENT_SSL = 0x800
CLIENT_TRANSACTIONS = 0x2000
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_MULTI_RESULTS = 0x20000
CLIENT_PLUGIN_AUTH = 0x80000
CLIENT_CONNECT_ATTRS = 0x100000
CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 0x200000

SERVER_CAPABILITIES = (
    CLIENT_LONG_PASSWORD
    | CLIENT_FOUND_ROWS
    | CLIENT_LONG_FLAG
    | CLIENT_CONNECT_WITH_DB
    | CLIENT_PROTOCOL_41
    | CLIENT_TRANSACTIONS
    | CLIENT_SECURE_CONNECTION
    | CLIENT_MULTI_RESULTS
    | CLIENT_PLUGIN_AUTH
    | CLIENT_CONNECT_ATTRS
    | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
)

SERVER_STATUS_AUTOCOMMIT = 0x0002

# Column types (include/field_types.h).
TYPE_DOUBLE = 0x05
TYPE_LONGLONG = 0x08
TYPE_VAR_STRING = 0xFD
UNSIGNED_FLAG = 0x20
BINARY_FLAG = 0x80
NUM_FLAG = 0x8000

COM_QUIT = 0x01
COM_INIT_DB = 0x02
COM_QUERY = 0x03
COM_PING = 0x0E
COM_RESET_CONNECTION = 0x1F

NATIVE_PLUGIN = "mysql_native_password"
SHA2_PLUGIN = "caching_sha2_password"  # MySQL 8's default; here always without a cached entry (full auth)

# SQLSTATE of the errors this server produces or that deny= commonly simulates.
SQLSTATE = {
    1044: "42000",
    1045: "28000",
    1046: "3D000",
    1047: "08S01",
    1064: "42000",
    1109: "42S02",
    1142: "42000",
    1143: "42000",
    1146: "42S02",
    1193: "HY000",
    1227: "42000",
    1238: "HY000",
    1305: "42000",
    1370: "42000",
}

# Collation ids for the handshake's character-set byte.
COLLATION_IDS = {
    "latin1_swedish_ci": 8,
    "utf8_general_ci": 33,
    "utf8mb3_general_ci": 33,
    "utf8mb4_general_ci": 45,
    "utf8mb4_bin": 46,
    "utf8mb4_unicode_ci": 224,
    "utf8mb4_0900_ai_ci": 255,
}

# Variables whose values include ON/OFF but are enums or strings, so
# SELECT @@x returns the word, not 1/0.
ENUM_ON_OFF = frozenset(
    {
        "binlog_transaction_compression_level_zstd",
        "concurrent_insert",
        "delay_key_write",
        "enforce_gtid_consistency",
        "event_scheduler",
        "gtid_mode",
        "innodb_doublewrite",  # enum ON/OFF/DETECT_AND_RECOVER/DETECT_ONLY on 8.0.30+
        "myisam_recover_options",
        "query_cache_type",
        "replica_skip_errors",
        "session_track_gtids",
        "session_track_transaction_info",
        "slave_skip_errors",
        "ssl_fips_mode",
        "tidb_enable_clustered_index",  # enum OFF/ON/INT_ONLY
        "transaction_write_set_extraction",
        "use_stat_tables",
    }
)


class SetNotFound(LookupError):
    """A recorded set name that has no directory under tests/fixtures/flavors."""


def set_names() -> list[str]:
    """Names of every recorded set, sorted."""
    return sorted(p.name for p in FLAVORS_DIR.iterdir() if p.is_dir() and (p / "variables.json").is_file())


def load_set(name: str | os.PathLike[str]) -> dict[str, Any]:
    """Load one recorded set: a set name (``"mysql-8.0.36"``) or a directory path.

    Returns ``{"name", "variables", "status", "session_status", "queries"}``;
    the optional files default to ``{}`` / ``[]``.
    """
    path = Path(name)
    if not path.is_dir():
        path = FLAVORS_DIR / str(name)
    if not (path / "variables.json").is_file():
        raise SetNotFound(
            f"no recorded set at {path}: expected variables.json there. Known sets: {', '.join(set_names())}"
        )

    def read(file: str, default: Any) -> Any:
        p = path / file
        if not p.is_file():
            return default
        with p.open(encoding="utf-8") as fh:
            return json.load(fh)

    return {
        "name": path.name,
        "variables": read("variables.json", {}),
        "status": read("status.json", {}),
        "session_status": read("session_status.json", {}),
        "queries": read("queries.json", []),
    }


# --------------------------------------------------------------------------- SQL helpers


_COMMENT_RE = re.compile(r"/\*(!\d*)?(.*?)\*/", re.DOTALL)


def _comment(m: re.Match[str]) -> str:
    # /*!NNNNN text */ is executed by MySQL (text kept); any other /* ... */ is a comment
    return f" {m.group(2)} " if m.group(1) is not None else " "


def normalize_sql(sql: str) -> str:
    """Collapse whitespace, resolve /* */ comments as MySQL does (executable /*! */ kept, others
    dropped; tools such as pt-variable-advisor send `SHOW /*40003 GLOBAL*/ VARIABLES`) and drop
    trailing semicolons."""
    text = _COMMENT_RE.sub(_comment, sql.strip())
    text = re.sub(r"\s+", " ", text).strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    return text


_STRING_RE = re.compile(r"""'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*\"""", re.DOTALL)


def unquote(literal: str) -> str:
    """Value of one SQL string literal ('..' or "..") with backslash escapes."""
    quote = literal[0]
    body = literal[1:-1].replace(quote * 2, quote)
    escapes = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "Z": "\x1a"}
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            # Keep \% and \_ as escapes: they matter to LIKE.
            out.append("\\" + nxt if nxt in "%_" else escapes.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def like_to_regex(pattern: str) -> re.Pattern[str]:
    """SQL LIKE pattern (% _ and backslash escapes), case-insensitive."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on sep outside quotes and parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "'\"`":
            m = _STRING_RE.match(text, i) if ch != "`" else re.compile(r"`[^`]*`").match(text, i)
            i = m.end() if m else len(text)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    parts.append(text[start:].strip())
    return parts


def _ident(name: str) -> str:
    return name[1:-1] if name.startswith("`") and name.endswith("`") else name


# --------------------------------------------------------------------------- errors


class SqlError(Exception):
    """An error the replayed server sends to the client as an ERR packet."""

    def __init__(self, errno: int, message: str, sqlstate: str | None = None) -> None:
        super().__init__(errno, message)
        self.errno = errno
        self.message = message
        self.sqlstate = sqlstate or SQLSTATE.get(errno, "HY000")


class _Abort(Exception):
    """fail_after_queries tripped: drop every connection without a reply."""


# --------------------------------------------------------------------------- packets


def lenenc_int(n: int) -> bytes:
    if n < 251:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    if n < 1 << 24:
        return b"\xfd" + struct.pack("<I", n)[:3]
    return b"\xfe" + struct.pack("<Q", n)


def lenenc_str(b: bytes) -> bytes:
    return lenenc_int(len(b)) + b


def _rsa_key() -> Any:
    """A fresh 2048-bit RSA key pair, as a MySQL 8 server generates at first start."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def native_password_token(password: str, salt: bytes) -> bytes:
    """mysql_native_password: SHA1(pw) XOR SHA1(salt + SHA1(SHA1(pw)))."""
    if not password:
        return b""
    stage1 = hashlib.sha1(password.encode("utf-8")).digest()
    stage2 = hashlib.sha1(stage1).digest()
    mix = hashlib.sha1(salt + stage2).digest()
    return bytes(a ^ b for a, b in zip(stage1, mix))


class _Result:
    """A text-protocol result set: column names, per-column types, rows."""

    def __init__(self, columns: list[str], rows: list[list[Any]], types: list[int] | None = None):
        self.columns = columns
        self.rows = rows
        self.types = types or [_infer_type(rows, i) for i in range(len(columns))]


def _infer_type(rows: list[list[Any]], col: int) -> int:
    values = [r[col] for r in rows if r[col] is not None]
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return TYPE_LONGLONG
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return TYPE_DOUBLE
    return TYPE_VAR_STRING


def _text(value: Any) -> Any:
    """A recorded value as SHOW prints it: str, or bytes kept as they are."""
    return bytes(value) if isinstance(value, (bytes, bytearray)) else str(value)


def _cell(value: Any) -> bytes:
    if value is None:
        return b"\xfb"
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (bytes, bytearray)):  # sent as is: a server value that is not UTF-8
        return lenenc_str(bytes(value))
    if isinstance(value, float):
        text = repr(value)
    else:
        text = str(value)
    return lenenc_str(text.encode("utf-8"))


# --------------------------------------------------------------------------- server


class ReplayServer:
    """A MySQL-protocol server answering from one recorded variable/status set.

    ``source`` is a set name, a set directory, or a dict shaped like
    ``load_set()``'s result (only ``variables`` is required). The server
    starts listening at once on ``host``:``port`` (0 = a free port) in a
    background thread; use it as a context manager or call ``close()``.

    ``deny`` maps regexes (searched in the whitespace-normalised statement,
    case-insensitive) to ``(errno, message)``: a matching statement gets that
    error, as when a privilege is missing. ``fail_after_queries=N`` answers N
    statements (counted over all connections, including the ones PyMySQL sends
    while connecting) and then drops every connection without a reply when the
    next arrives, and stops listening: the client sees error 2013 and a new
    connection is refused.
    """

    def __init__(
        self,
        source: str | os.PathLike[str] | Mapping[str, Any],
        *,
        user: str = "root",
        password: str = "",
        host: str = "127.0.0.1",
        port: int = 0,
        fail_after_queries: int | None = None,
        deny: Mapping[str, tuple[int, str]] | None = None,
        handshake_version: str | None = None,
        auth_plugin: str = NATIVE_PLUGIN,
    ) -> None:
        data = dict(source) if isinstance(source, Mapping) else load_set(source)
        self.name: str = data.get("name", "custom")
        # values are str, or bytes sent unchanged (a server value that is not valid UTF-8)
        self.variables: dict[str, Any] = {k: _text(v) for k, v in data["variables"].items()}
        self.status: dict[str, Any] = {k: _text(v) for k, v in data.get("status", {}).items()}
        self.session_status: dict[str, str] = {k: str(v) for k, v in data.get("session_status", {}).items()}
        self.canned: list[dict[str, Any]] = list(data.get("queries", []))
        self._canned_re = [re.compile(entry["match"], re.IGNORECASE | re.DOTALL) for entry in self.canned]
        self.user = user
        self.password = password
        self.fail_after_queries = fail_after_queries
        self.deny = [(re.compile(k, re.IGNORECASE | re.DOTALL), v) for k, v in (deny or {}).items()]
        self.version = self.variables.get("version", "8.0.36")
        self.handshake_version = handshake_version or _handshake_version(self.version)
        if auth_plugin not in (NATIVE_PLUGIN, SHA2_PLUGIN):
            raise ValueError(f"auth_plugin must be {NATIVE_PLUGIN} or {SHA2_PLUGIN}")
        self.auth_plugin = auth_plugin
        self.rsa_key: Any = _rsa_key() if auth_plugin == SHA2_PLUGIN else None
        self.full_auths = 0  # caching_sha2_password logins that sent the password RSA-encrypted

        self.queries: list[str] = []
        self.unhandled: list[str] = []
        self.connections_accepted = 0
        self.aborted = False
        self._lock = threading.Lock()
        self._conns: dict[int, socket.socket] = {}
        self._threads: list[threading.Thread] = []
        self._next_conn_id = 8
        self._closed = False

        self._listener = socket.create_server((host, port))
        self._listener.setblocking(False)
        self.host, self.port = self._listener.getsockname()[:2]
        self._wake_r, self._wake_w = socket.socketpair()
        self._accept_thread = threading.Thread(
            target=self._accept_loop, name=f"replay-accept-{self.port}", daemon=True
        )
        self._accept_thread.start()

    # ------------------------------------------------------------------ public API

    def set_canned(self, entries: Iterable[Mapping[str, Any]]) -> None:
        """Replace the canned answers (entries shaped like queries.json's) while the server runs."""
        canned = [dict(e) for e in entries]
        regexes = [re.compile(e["match"], re.IGNORECASE | re.DOTALL) for e in canned]
        with self._lock:
            self.canned, self._canned_re = canned, regexes

    @classmethod
    def from_set(
        cls,
        name: str | os.PathLike[str],
        *,
        overrides: Mapping[str, Any] | None = None,
        status_overrides: Mapping[str, Any] | None = None,
        drop: Iterable[str] = (),
        **kwargs: Any,
    ) -> ReplayServer:
        """Start a server for a recorded set with per-test changes.

        ``overrides`` replaces or adds global variables (values as SHOW prints
        them), ``status_overrides`` status counters, ``drop`` removes variables.
        """
        data = load_set(name)
        for key in drop:
            data["variables"].pop(key, None)
        data["variables"].update({k: _text(v) for k, v in (overrides or {}).items()})
        data["status"].update({k: _text(v) for k, v in (status_overrides or {}).items()})
        return cls(data, **kwargs)

    def __enter__(self) -> ReplayServer:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop listening, drop every connection and join every thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            conns = list(self._conns.values())
        self._wake()
        self._accept_thread.join(timeout=5)
        for sock in conns:
            _hard_close(sock)
        for thread in list(self._threads):
            thread.join(timeout=5)
        self._wake_r.close()
        self._wake_w.close()

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    # ------------------------------------------------------------------ accept loop

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass

    def _accept_loop(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._listener, selectors.EVENT_READ)
        sel.register(self._wake_r, selectors.EVENT_READ)
        try:
            while True:
                with self._lock:
                    if self._closed or self.aborted:
                        return
                for key, _ in sel.select():
                    if key.fileobj is self._wake_r:
                        self._wake_r.recv(64)
                        continue
                    try:
                        sock, peer = self._listener.accept()
                    except BlockingIOError:
                        continue
                    sock.setblocking(True)
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    with self._lock:
                        if self._closed or self.aborted:
                            _hard_close(sock)
                            return
                        conn_id = self._next_conn_id
                        self._next_conn_id += 1
                        self.connections_accepted += 1
                        self._conns[conn_id] = sock
                        thread = threading.Thread(
                            target=self._serve,
                            args=(sock, peer, conn_id),
                            name=f"replay-conn-{conn_id}",
                            daemon=True,
                        )
                        self._threads.append(thread)
                    thread.start()
        finally:
            sel.close()
            self._listener.close()

    def _serve(self, sock: socket.socket, peer: tuple[Any, ...], conn_id: int) -> None:
        session = _Session(self, sock, peer[0], conn_id)
        try:
            session.run()
        except (OSError, ConnectionError, _Abort, _ClientGone):
            pass
        finally:
            with self._lock:
                self._conns.pop(conn_id, None)
            _hard_close(sock)

    # ------------------------------------------------------------------ shared state

    def _record(self, sql: str) -> None:
        """Record one statement; trip fail_after_queries when due."""
        with self._lock:
            answered = len(self.queries)
            self.queries.append(sql)
            if self.fail_after_queries is None or answered < self.fail_after_queries:
                return
            self.aborted = True
            conns = list(self._conns.values())
        self._wake()
        for sock in conns:
            _hard_close(sock)
        raise _Abort()

    def _global_vars(self) -> dict[str, str]:
        with self._lock:
            return dict(self.variables)

    def _set_global(self, name: str, value: str) -> None:
        with self._lock:
            self.variables[name] = value


def _handshake_version(version: str) -> str:
    """MariaDB before 11.0 prefixes "5.5.5-" in the handshake (MDEV-28910 removed it)."""
    m = re.match(r"(\d+)\.(\d+)", version)
    if "MariaDB" in version and m and int(m.group(1)) < 11:
        return "5.5.5-" + version
    return version


def _hard_close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class _ClientGone(Exception):
    """The client closed its end."""


# --------------------------------------------------------------------------- one connection


class _Session:
    def __init__(self, server: ReplayServer, sock: socket.socket, peer_host: str, conn_id: int):
        self.srv = server
        self.sock = sock
        self.peer_host = peer_host
        self.conn_id = conn_id
        self.seq = 0
        self.db: str | None = None
        self.session_vars: dict[str, str] = {}
        self.autocommit = True
        self.user = ""

    # ------------------------------------------------------------------ packet I/O

    def _recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise _ClientGone()
            buf += chunk
        return bytes(buf)

    def read_packet(self) -> bytes:
        payload = bytearray()
        while True:
            header = self._recv_exact(4)
            length = header[0] | header[1] << 8 | header[2] << 16
            self.seq = (header[3] + 1) & 0xFF
            payload += self._recv_exact(length)
            if length < 0xFFFFFF:
                return bytes(payload)

    def write_packet(self, payload: bytes) -> None:
        out = bytearray()
        while True:
            chunk, payload = payload[:0xFFFFFF], payload[0xFFFFFF:]
            out += struct.pack("<I", len(chunk))[:3] + bytes([self.seq]) + chunk
            self.seq = (self.seq + 1) & 0xFF
            if len(chunk) < 0xFFFFFF:
                break
        self.sock.sendall(bytes(out))

    def status_flags(self) -> int:
        return SERVER_STATUS_AUTOCOMMIT if self.autocommit else 0

    def send_ok(self, affected: int = 0) -> None:
        self.write_packet(
            b"\x00" + lenenc_int(affected) + lenenc_int(0) + struct.pack("<HH", self.status_flags(), 0)
        )

    def send_err(self, errno: int, message: str, sqlstate: str | None = None) -> None:
        state = sqlstate or SQLSTATE.get(errno, "HY000")
        self.write_packet(
            b"\xff" + struct.pack("<H", errno) + b"#" + state.encode() + message.encode("utf-8")
        )

    def send_eof(self) -> None:
        self.write_packet(b"\xfe" + struct.pack("<HH", 0, self.status_flags()))

    def send_result(self, result: _Result) -> None:
        self.write_packet(lenenc_int(len(result.columns)))
        for col, (name, ctype) in enumerate(zip(result.columns, result.types)):
            numeric = ctype in (TYPE_LONGLONG, TYPE_DOUBLE)
            flags = (BINARY_FLAG | NUM_FLAG) if numeric else 0
            if ctype == TYPE_LONGLONG and any(
                isinstance(row[col], int) and row[col] >= 1 << 63 for row in result.rows
            ):
                flags |= UNSIGNED_FLAG
            self.write_packet(
                lenenc_str(b"def")
                + lenenc_str(b"")
                + lenenc_str(b"")
                + lenenc_str(b"")
                + lenenc_str(name.encode("utf-8"))
                + lenenc_str(name.encode("utf-8"))
                + b"\x0c"
                + struct.pack("<H", 63 if numeric else self.srv_collation_id())
                + struct.pack("<I", 21 if numeric else 4096)
                + bytes([ctype])
                + struct.pack("<H", flags)
                + bytes([31 if ctype == TYPE_DOUBLE else 0])
                + b"\x00\x00"
            )
        self.send_eof()
        for row in result.rows:
            self.write_packet(b"".join(_cell(v) for v in row))
        self.send_eof()

    def srv_collation_id(self) -> int:
        return COLLATION_IDS.get(self.srv.variables.get("collation_server", ""), 45)

    # ------------------------------------------------------------------ handshake

    def run(self) -> None:
        salt = bytes(secrets.choice(range(1, 128)) for _ in range(20))
        server_version = self.srv.handshake_version.encode("utf-8")
        handshake = (
            b"\x0a"
            + server_version
            + b"\x00"
            + struct.pack("<I", self.conn_id)
            + salt[:8]
            + b"\x00"
            + struct.pack("<H", SERVER_CAPABILITIES & 0xFFFF)
            + bytes([self.srv_collation_id() & 0xFF])
            + struct.pack("<H", SERVER_STATUS_AUTOCOMMIT)
            + struct.pack("<H", SERVER_CAPABILITIES >> 16)
            + bytes([21])
            + b"\x00" * 10
            + salt[8:]
            + b"\x00"
            + self.srv.auth_plugin.encode()
            + b"\x00"
        )
        self.seq = 0
        self.write_packet(handshake)
        if not self.authenticate(self.read_packet(), salt):
            return
        self.command_loop()

    def authenticate(self, packet: bytes, salt: bytes) -> bool:
        caps = struct.unpack_from("<I", packet, 0)[0]
        if len(packet) <= 32 and caps & CLIENT_SSL:
            self.send_err(1043, "Bad handshake", "08S01")
            return False
        pos = 32
        end = packet.index(b"\x00", pos)
        user = packet[pos:end].decode("utf-8", "replace")
        pos = end + 1
        if caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA:
            n, pos = _read_lenenc(packet, pos)
            auth = packet[pos : pos + n]
            pos += n
        elif caps & CLIENT_SECURE_CONNECTION:
            n = packet[pos]
            auth = packet[pos + 1 : pos + 1 + n]
            pos += 1 + n
        else:
            end = packet.index(b"\x00", pos)
            auth = packet[pos:end]
            pos = end + 1
        if caps & CLIENT_CONNECT_WITH_DB and pos < len(packet):
            end = packet.find(b"\x00", pos)
            end = len(packet) if end < 0 else end
            self.db = packet[pos:end].decode("utf-8", "replace") or None
            pos = end + 1
        plugin = NATIVE_PLUGIN
        if caps & CLIENT_PLUGIN_AUTH and pos < len(packet):
            end = packet.find(b"\x00", pos)
            end = len(packet) if end < 0 else end
            plugin = packet[pos:end].decode("utf-8", "replace") or NATIVE_PLUGIN
        want = self.srv.auth_plugin
        if plugin != want:
            # Ask the client to switch to the server's plugin with a fresh salt.
            salt = bytes(secrets.choice(range(1, 128)) for _ in range(20))
            self.write_packet(b"\xfe" + want.encode() + b"\x00" + salt + b"\x00")
            auth = self.read_packet()
        self.user = user
        if want == SHA2_PLUGIN:
            ok = user == self.srv.user and self.sha2_full_auth(auth, salt)
        else:
            ok = user == self.srv.user and auth == native_password_token(self.srv.password, salt)
        if not ok:
            used = "YES" if auth else "NO"
            self.send_err(
                1045, f"Access denied for user '{user}'@'{self.peer_host}' (using password: {used})"
            )
            return False
        self.send_ok()
        return True

    def sha2_full_auth(self, scramble: bytes, salt: bytes) -> bool:
        """caching_sha2_password without a cached entry, over a connection without TLS: tell the
        client to perform full authentication, send the RSA public key it asks for, and check the
        password it sends encrypted with it (RSA-OAEP; the password + NUL XOR-ed with the salt)."""
        if not self.srv.password:
            return scramble == b""
        self.write_packet(b"\x01\x04")  # perform_full_authentication
        request = self.read_packet()
        if request != b"\x02":  # the client must ask for the public key: no TLS, no key configured
            return False
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding

        key = self.srv.rsa_key
        pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                            serialization.PublicFormat.SubjectPublicKeyInfo)
        self.write_packet(b"\x01" + pem)
        encrypted = self.read_packet()
        try:
            plain = key.decrypt(encrypted, padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(),
                                                        label=None))
        except ValueError:
            return False
        password = bytes(b ^ salt[i % len(salt)] for i, b in enumerate(plain))
        with self.srv._lock:
            self.srv.full_auths += 1
        return password == self.srv.password.encode("utf-8") + b"\x00"

    # ------------------------------------------------------------------ commands

    def command_loop(self) -> None:
        while True:
            packet = self.read_packet()
            if not packet:
                continue
            command, body = packet[0], packet[1:]
            if command == COM_QUIT:
                return
            if command == COM_PING or command == COM_RESET_CONNECTION:
                self.send_ok()
            elif command == COM_INIT_DB:
                self.db = body.decode("utf-8", "replace")
                self.send_ok()
            elif command == COM_QUERY:
                self.handle_query(body.decode("utf-8", "replace"))
            else:
                self.send_err(1047, "Unknown command")

    def handle_query(self, sql: str) -> None:
        self.srv._record(sql)
        norm = normalize_sql(sql)
        try:
            for pattern, (errno, message) in self.srv.deny:
                if pattern.search(norm):
                    raise SqlError(errno, message)
            for pattern, entry in zip(self.srv._canned_re, self.srv.canned):
                if pattern.search(norm):
                    self.reply_canned(entry)
                    return
            result = self.builtin(norm)
        except SqlError as e:
            self.send_err(e.errno, e.message, e.sqlstate)
            return
        if result is None:
            self.send_ok()
        else:
            self.send_result(result)

    def reply_canned(self, entry: Mapping[str, Any]) -> None:
        if "error" in entry:
            errno, message = entry["error"][0], entry["error"][1]
            sqlstate = entry["error"][2] if len(entry["error"]) > 2 else None
            raise SqlError(int(errno), str(message), sqlstate)
        if "columns" not in entry:
            self.send_ok(int(entry.get("affected_rows", 0)))
            return
        types = None
        if "types" in entry:
            names = {"string": TYPE_VAR_STRING, "int": TYPE_LONGLONG, "double": TYPE_DOUBLE}
            types = [names[t] for t in entry["types"]]
        self.send_result(_Result(list(entry["columns"]), [list(r) for r in entry["rows"]], types))

    # ------------------------------------------------------------------ built-in statements

    def builtin(self, sql: str) -> _Result | None:
        """Answer a statement; None means an OK packet. Raises SqlError."""
        upper = sql.upper()
        m = re.fullmatch(
            r"SHOW\s+(?:(GLOBAL|SESSION|LOCAL)\s+)?(VARIABLES|STATUS)(?:\s+(LIKE|WHERE)\s+(.*))?",
            sql,
            re.IGNORECASE | re.DOTALL,
        )
        if m:
            return self.show(m.group(1), m.group(2).upper(), m.group(3), m.group(4), sql)
        if upper.startswith("SELECT "):
            return self.select(sql)
        if upper.startswith("SET "):
            self.set_statement(sql[4:].strip())
            return None
        if re.fullmatch(
            r"(COMMIT|ROLLBACK|BEGIN|START TRANSACTION( READ ONLY| READ WRITE| WITH CONSISTENT SNAPSHOT)?)"
            r"( WORK)?",
            upper,
        ):
            return None
        m = re.fullmatch(r"USE\s+(`[^`]+`|\w+)", sql, re.IGNORECASE)
        if m:
            self.db = _ident(m.group(1))
            return None
        if upper in ("SHOW WARNINGS", "SHOW ERRORS"):
            return _Result(["Level", "Code", "Message"], [], [TYPE_VAR_STRING] * 3)
        return self.unknown(sql)

    def unknown(self, sql: str) -> _Result:
        """A real server error for a statement this replay does not know."""
        with self.srv._lock:
            self.srv.unhandled.append(sql)
        m = re.search(
            r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+((?:`[^`]+`|[\w$]+)(?:\s*\.\s*(?:`[^`]+`|[\w$]+))?)",
            sql,
            re.IGNORECASE,
        )
        if m:
            parts = [_ident(p.strip()) for p in m.group(1).split(".")]
            schema, table = (parts[0], parts[1]) if len(parts) == 2 else (self.db, parts[0])
            if schema and schema.lower() == "information_schema":
                raise SqlError(1109, f"Unknown table '{table.upper()}' in information_schema")
            if schema is None:
                raise SqlError(1046, "No database selected")
            raise SqlError(1146, f"Table '{schema}.{table}' doesn't exist")
        raise SqlError(1064, self.syntax_error_text(sql))

    def syntax_error_text(self, sql: str) -> str:
        near = sql[:80]
        version = self.srv.version
        if "TiDB" in version:
            return (
                "You have an error in your SQL syntax; check the manual that corresponds to your "
                f'TiDB version for the right syntax to use line 1 column 0 near "{near}" '
            )
        product = "MariaDB" if "MariaDB" in version else "MySQL"
        return (
            f"You have an error in your SQL syntax; check the manual that corresponds to your "
            f"{product} server version for the right syntax to use near '{near}' at line 1"
        )

    # SHOW VARIABLES / STATUS -------------------------------------------------------

    def show(self, scope: str | None, what: str, kind: str | None, cond: str | None, sql: str) -> _Result:
        is_global = (scope or "").upper() == "GLOBAL"
        if what == "VARIABLES":
            rows = self.srv._global_vars()
            if not is_global:
                rows.update(self.session_vars)
        else:
            rows = dict(self.srv.status)
            if not is_global:
                rows.update(self.srv.session_status)
        keep = self.show_filter(kind, cond, sql)
        return _Result(
            ["Variable_name", "Value"],
            [[k, v] for k, v in rows.items() if keep(k)],
            [TYPE_VAR_STRING, TYPE_VAR_STRING],
        )

    def show_filter(self, kind: str | None, cond: str | None, sql: str):
        if kind is None:
            return lambda name: True
        cond = cond.strip()
        if kind.upper() == "LIKE":
            if not _STRING_RE.fullmatch(cond):
                raise SqlError(1064, self.syntax_error_text(sql))
            regex = like_to_regex(unquote(cond))
            return lambda name: bool(regex.fullmatch(name))
        tests = []
        for term in re.split(r"\s+OR\s+", cond, flags=re.IGNORECASE):
            term = term.strip()
            while term.startswith("(") and term.endswith(")"):
                term = term[1:-1].strip()
            m = re.fullmatch(r"`?variable_name`?\s*(=|LIKE|IN)\s*(.*)", term, re.IGNORECASE | re.DOTALL)
            if not m:
                raise SqlError(1064, self.syntax_error_text(sql))
            op, rhs = m.group(1).upper(), m.group(2).strip()
            if op == "IN":
                if not (rhs.startswith("(") and rhs.endswith(")")):
                    raise SqlError(1064, self.syntax_error_text(sql))
                items = split_top_level(rhs[1:-1])
                if not all(_STRING_RE.fullmatch(i) for i in items):
                    raise SqlError(1064, self.syntax_error_text(sql))
                wanted = {unquote(i).lower() for i in items}
                tests.append(lambda name, w=wanted: name.lower() in w)
            elif op == "=":
                if not _STRING_RE.fullmatch(rhs):
                    raise SqlError(1064, self.syntax_error_text(sql))
                value = unquote(rhs).lower()
                tests.append(lambda name, v=value: name.lower() == v)
            else:
                if not _STRING_RE.fullmatch(rhs):
                    raise SqlError(1064, self.syntax_error_text(sql))
                regex = like_to_regex(unquote(rhs))
                tests.append(lambda name, r=regex: bool(r.fullmatch(name)))
        return lambda name: any(t(name) for t in tests)

    # SELECT ------------------------------------------------------------------------

    def select(self, sql: str) -> _Result:
        body = sql[len("SELECT ") :].strip()
        limit = None
        m = re.fullmatch(r"(.*?)\s+LIMIT\s+(\d+)", body, re.IGNORECASE | re.DOTALL)
        if m and "'" not in body[m.end(1) :]:
            body, limit = m.group(1), int(m.group(2))
        if re.search(r"\bFROM\b", body, re.IGNORECASE):
            return self.unknown(sql)
        columns, values, types = [], [], []
        for item in split_top_level(body):
            expr, alias = _split_alias(item)
            value, ctype = self.evaluate(expr, sql)
            columns.append(alias or expr)
            values.append(value)
            types.append(ctype)
        rows = [values] if limit is None or limit > 0 else []
        return _Result(columns, rows, types)

    def evaluate(self, expr: str, sql: str) -> tuple[Any, int]:
        m = re.fullmatch(r"@@(?:(global|session|local)\.)?(`[^`]+`|[\w$]+)", expr, re.IGNORECASE)
        if m:
            return self.sysvar(m.group(1), _ident(m.group(2)))
        upper = expr.upper().replace(" ", "")
        if upper == "CONNECTION_ID()":
            return self.conn_id, TYPE_LONGLONG
        if upper == "VERSION()":
            return self.srv.version, TYPE_VAR_STRING
        if upper in ("DATABASE()", "SCHEMA()"):
            return self.db, TYPE_VAR_STRING
        if upper in ("USER()", "SESSION_USER()", "SYSTEM_USER()"):
            return f"{self.user}@{self.peer_host}", TYPE_VAR_STRING
        if upper in ("CURRENT_USER()", "CURRENT_USER"):
            return f"{self.srv.user}@%", TYPE_VAR_STRING
        if re.fullmatch(r"-?\d+", expr):
            return int(expr), TYPE_LONGLONG
        if re.fullmatch(r"-?\d+\.\d+", expr):
            return float(expr), TYPE_DOUBLE
        if upper == "NULL":
            return None, TYPE_VAR_STRING
        if _STRING_RE.fullmatch(expr):
            return unquote(expr), TYPE_VAR_STRING
        fn = re.fullmatch(r"(\w+)\s*\(.*\)", expr, re.DOTALL)
        if fn:
            name = fn.group(1).lower()
            if self.db is None:
                raise SqlError(1046, "No database selected")
            raise SqlError(1305, f"FUNCTION {self.db}.{name} does not exist")
        raise SqlError(1064, self.syntax_error_text(sql))

    def sysvar(self, scope: str | None, name: str) -> tuple[Any, int]:
        key = name.lower()
        globals_ = self.srv._global_vars()
        lookup = {k.lower(): k for k in globals_}
        if key not in lookup and key not in self.session_vars:
            raise SqlError(1193, f"Unknown system variable '{name}'")
        real = lookup.get(key, key)
        if (scope or "").lower() == "global":
            raw = globals_.get(real)
        else:
            raw = self.session_vars.get(real, globals_.get(real))
        return _typed(real, raw)

    # SET ---------------------------------------------------------------------------

    def set_statement(self, rest: str) -> None:
        upper = rest.upper()
        if upper.startswith(("NAMES ", "CHARACTER SET ", "CHARSET ")):
            charset = re.sub(r"^(NAMES|CHARACTER SET|CHARSET)\s+", "", rest, flags=re.IGNORECASE).split()[0]
            charset = unquote(charset) if _STRING_RE.fullmatch(charset) else charset
            for var in ("character_set_client", "character_set_connection", "character_set_results"):
                if var in self.srv.variables:
                    self.session_vars[var] = charset
            return
        if re.match(r"(GLOBAL |SESSION |LOCAL )?TRANSACTION\b", upper):
            return
        scope_default = None
        m = re.match(r"(GLOBAL|SESSION|LOCAL|PERSIST|PERSIST_ONLY)\s+", rest, re.IGNORECASE)
        if m:
            scope_default = m.group(1).upper()
            rest = rest[m.end() :]
        for assignment in split_top_level(rest):
            am = re.fullmatch(
                r"(@@(?:(global|session|local|persist)\.)?)?(@?)(`[^`]+`|[\w$]+)\s*:?=\s*(.+)",
                assignment,
                re.IGNORECASE | re.DOTALL,
            )
            if not am:
                raise SqlError(1064, self.syntax_error_text("SET " + rest))
            if am.group(3) == "@":  # user variable
                continue
            scope = (am.group(2) or scope_default or "SESSION").upper()
            name = _ident(am.group(4))
            value = self.set_value(name, am.group(5).strip())
            globals_ = self.srv._global_vars()
            real = {k.lower(): k for k in globals_}.get(name.lower())
            if real is None and name.lower() == "autocommit":
                real = "autocommit"  # every server has it, even a minimal hand-written set
            if real is None:
                raise SqlError(1193, f"Unknown system variable '{name}'")
            if real == "autocommit" and scope in ("SESSION", "LOCAL"):
                self.autocommit = value == "ON"
            if scope in ("GLOBAL", "PERSIST", "PERSIST_ONLY"):
                self.srv._set_global(real, value)
            else:
                self.session_vars[real] = value

    def set_value(self, name: str, raw: str) -> str:
        current = self.srv._global_vars().get(name, self.srv._global_vars().get(name.lower(), ""))
        if _STRING_RE.fullmatch(raw):
            value = unquote(raw)
        else:
            value = raw
        boolean = current in ("ON", "OFF") or name.lower() == "autocommit"
        if boolean and name.lower() not in ENUM_ON_OFF:
            low = value.lower()
            if low in ("1", "on", "true"):
                return "ON"
            if low in ("0", "off", "false"):
                return "OFF"
        if value.upper() == "DEFAULT":
            return current
        return value


def _read_lenenc(data: bytes, pos: int) -> tuple[int, int]:
    first = data[pos]
    if first < 0xFB:
        return first, pos + 1
    if first == 0xFC:
        return struct.unpack_from("<H", data, pos + 1)[0], pos + 3
    if first == 0xFD:
        return int.from_bytes(data[pos + 1 : pos + 4], "little"), pos + 4
    return struct.unpack_from("<Q", data, pos + 1)[0], pos + 9


def _split_alias(item: str) -> tuple[str, str | None]:
    m = re.fullmatch(
        r"(.+?)\s+(?:AS\s+)?(`[^`]+`|'[^']*'|\"[^\"]*\"|[A-Za-z_][\w$]*)", item, re.IGNORECASE | re.DOTALL
    )
    if m and not re.fullmatch(r"CURRENT_USER", item.strip(), re.IGNORECASE):
        expr = m.group(1).strip()
        alias = m.group(2)
        if alias.startswith(("`", "'", '"')):
            alias = alias[1:-1]
        return expr, alias
    return item.strip(), None


def _typed(name: str, raw: str | None) -> tuple[Any, int]:
    """A variable's value as SELECT @@x returns it (see the module docstring)."""
    if raw is None or isinstance(raw, bytes):
        return raw, TYPE_VAR_STRING
    if re.fullmatch(r"-?\d+", raw):
        return int(raw), TYPE_LONGLONG
    if re.fullmatch(r"-?\d+\.\d+", raw):
        return float(raw), TYPE_DOUBLE
    if raw in ("ON", "OFF") and name.lower() not in ENUM_ON_OFF:
        return (1 if raw == "ON" else 0), TYPE_LONGLONG
    return raw, TYPE_VAR_STRING
