"""Throwaway mariadbd servers for integration tests.

pytest-mysql 5.0.1 (read from its wheel, 2026-11) is not used. It can run MariaDB 10.11, but only through
mysqld_safe with a full mariadb-install-db per server and mysqladmin to stop; servers are session fixtures
whose options are one string fixed where the factory is declared, so no per-test options, and TLS only as
raw params. It has no network-namespace support, no SIGKILL for crash tests and no general-log reader, and
it brings mirakuru and port-for.

This module: one template datadir per MariaDB build (mariadb-install-db once, users and grants made by a
real server), copied for every instance, so a start costs a copy (~0.1 s) and a mariadbd start-up.
"""

from __future__ import annotations

import atexit
import ctypes
import fcntl
import functools
import getpass
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import pymysql

# Accounts created in the template datadir (every instance has them).
ROOT_USER = "root"  # root@localhost, root@127.0.0.1, root@::1 and root@'%', empty password, ALL + GRANT OPTION
RO_USER, RO_PASSWORD = "advisor_ro", "ro-pass-123"  # @'%': SELECT on DUMMY_DB only (no PROCESS, no REPLICATION)
PW_USER, PW_PASSWORD = "pwuser", "s3cret-Pa55"  # @'%': ALL on *.*, for wrong-password tests
DUMMY_DB = "advisor_dummy"

START_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0
_PORT_ATTEMPTS = 5

_TEMPLATE_SQL = (
    "CREATE USER 'root'@'%' IDENTIFIED BY ''",
    "GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION",
    f"CREATE DATABASE {DUMMY_DB}",
    f"CREATE TABLE {DUMMY_DB}.t (id INT PRIMARY KEY, note VARCHAR(64)) ENGINE=InnoDB",
    f"INSERT INTO {DUMMY_DB}.t VALUES (1, 'template row')",
    f"CREATE USER '{RO_USER}'@'%' IDENTIFIED BY '{RO_PASSWORD}'",
    f"GRANT SELECT ON {DUMMY_DB}.* TO '{RO_USER}'@'%'",
    f"CREATE USER '{PW_USER}'@'%' IDENTIFIED BY '{PW_PASSWORD}'",
    f"GRANT ALL PRIVILEGES ON *.* TO '{PW_USER}'@'%'",
)
_TEMPLATE_REVISION = "2"  # bump when _build_template changes what the template holds
_INSTALL_ARGS = ("--no-defaults", "--auth-root-authentication-method=normal", "--skip-test-db")

# Options the class sets itself; pass them as constructor arguments instead.
_RESERVED = {"datadir", "socket", "port", "bind-address", "pid-file", "log-error", "general-log-file", "user"}
_PORT_IN_USE = ("Address already in use", "Bind on TCP/IP port", "errno: 98")


class MariaDBError(RuntimeError):
    """A throwaway server could not be prepared, started or stopped."""


class MariaDBNotFound(MariaDBError):
    """mariadbd (or mariadb-install-db) is not installed."""


class GeneralLogEntry(NamedTuple):
    thread_id: int
    command: str  # Connect, Query, Quit, Init DB, Prepare, Execute, Field List, ...
    argument: str


def find_binary(name: str) -> str:
    """Path of a MariaDB server binary: PATH first, then the sbin directories Debian uses."""
    extra = os.pathsep.join(("/usr/sbin", "/usr/local/sbin", "/sbin"))
    found = shutil.which(name) or shutil.which(name, path=extra)
    if found is None:
        raise MariaDBNotFound(
            f"{name} not found on PATH (nor in /usr/sbin); integration tests start real throwaway servers. "
            "Tip: apt-get install mariadb-server (CI installs it)."
        )
    return found


def find_mariadbd() -> str:
    return find_binary("mariadbd")


@functools.cache
def server_version(mariadbd: str | None = None) -> str:
    """Full build string from ``mariadbd --version``, e.g. ``10.11.19-MariaDB-0+deb12u1``."""
    out = subprocess.run([mariadbd or find_mariadbd(), "--version"], capture_output=True, text=True).stdout
    match = re.search(r"Ver\s+(\S+)", out)
    if match is None:
        raise MariaDBError(f"cannot read the version from mariadbd --version: {out.strip()!r}")
    return match.group(1)


class MariaDB:
    """One throwaway mariadbd with its own copy of the template datadir in a fresh temp dir.

    ``options``: a mapping ``{"sort-buffer-size": "32M"}`` (``_`` and ``-`` are alike; ``True``/``None``
    give a bare ``--name``, ``False`` gives ``--skip-name``) or a list of raw arguments; they come after
    the defaults, and for mariadbd the last occurrence of an option wins.
    ``tls``: a ``Certs`` (tests/support/certs.py); adds ``--ssl-ca/--ssl-cert/--ssl-key``.
    ``netns``: a namespace name or a ``NetNS``; the server runs there via ``ip netns exec`` and binds
    the namespace's address unless ``bind_address`` says otherwise; it is reached from the host.
    ``bind_address``: default 127.0.0.1 (or the namespace's address).
    ``general_log``: log every statement to a file, read back by ``general_log_statements()``.

    Use as a context manager or call ``start()`` and ``close()``. Prints nothing.
    """

    def __init__(
        self,
        options: Mapping[str, Any] | Iterable[str] = (),
        tls: Any | None = None,
        netns: Any | None = None,
        bind_address: str | None = None,
        general_log: bool = False,
        *,
        port: int | None = None,
        start_timeout: float = START_TIMEOUT,
    ) -> None:
        self.options = _normalise_options(options)
        self.tls = tls
        self.netns = getattr(netns, "name", netns)
        self._ns_addr = getattr(netns, "ns_addr", None)
        self.bind_address = bind_address
        self.general_log = general_log
        self.start_timeout = start_timeout
        self._fixed_port = port
        self.port = port or 0
        self.dir: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.probe_thread_id: int | None = None
        self.startup_seconds: float | None = None

    # -- paths and addresses -------------------------------------------------------------
    def _path(self, name: str) -> Path:
        if self.dir is None:
            raise MariaDBError("the server has not been started")
        return self.dir / name

    @property
    def datadir(self) -> Path:
        return self._path("data")

    @property
    def socket(self) -> str:
        return str(self._path("mysqld.sock"))

    @property
    def error_log(self) -> Path:
        return self._path("error.log")

    @property
    def general_log_file(self) -> Path:
        return self._path("general.log")

    @property
    def pid_file(self) -> Path:
        return self._path("mysqld.pid")

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def host(self) -> str:
        """Address a client on the host connects to."""
        addr = self._bind()
        if addr in ("0.0.0.0", "*"):
            return self._ns_address() if self.netns else "127.0.0.1"
        if addr == "::":
            return "::1"
        return addr

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _bind(self) -> str:
        if self.bind_address:
            return self.bind_address
        return self._ns_address() if self.netns else "127.0.0.1"

    def _address(self) -> dict[str, Any]:
        """TCP host and port, or the unix socket when the options say --skip-networking."""
        if any(
            opt.replace("_", "-") in ("--skip-networking", "--networking=0", "--networking=OFF") for opt in self.options
        ):
            return {"unix_socket": self.socket}
        return {"host": self.host, "port": self.port}

    def _ns_address(self) -> str:
        if self._ns_addr is None:
            self._ns_addr = _namespace_address(self.netns)
        return self._ns_addr

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> MariaDB:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> MariaDB:
        """Copy the template datadir, start mariadbd and wait until root can log in over TCP."""
        if self.process is not None:
            raise MariaDBError("this MariaDB instance was already started; make a new one")
        mariadbd = find_mariadbd()
        template = template_datadir()
        began = time.monotonic()
        _sweep_orphans()
        self.dir = Path(tempfile.mkdtemp(prefix=_WORKDIR_PREFIX))
        (self.dir / "owner.pid").write_text(f"{os.getpid()}\n")
        _LIVE.add(self)
        try:
            for attempt in range(1, _PORT_ATTEMPTS + 1):
                if self.datadir.exists():
                    shutil.rmtree(self.datadir)
                shutil.copytree(template, self.datadir, symlinks=True)
                if self._fixed_port is None:
                    self.port = _free_port(self._bind() if not self.netns else "127.0.0.1")
                self.process = _spawn(self._command(mariadbd), self.netns, self._path("stderr.log"))
                failure = self._wait_ready(began + self.start_timeout)
                if failure is None:
                    self.startup_seconds = time.monotonic() - began
                    return self
                self.kill()
                port_clash = any(marker in failure for marker in _PORT_IN_USE)
                if not port_clash or self._fixed_port is not None or attempt == _PORT_ATTEMPTS:
                    raise MariaDBError(f"mariadbd on {self.host}:{self.port} did not start: {failure}")
                # Someone bound the port between our probe and mariadbd's bind: new port, fresh copy.
                self.error_log.rename(self._path(f"error.port-clash-{attempt}.log"))
        except BaseException:
            self.close()  # the failure message already carries the log tail
            raise
        raise AssertionError("unreachable")

    def _command(self, mariadbd: str) -> list[str]:
        cmd = [
            mariadbd,
            "--no-defaults",
            f"--datadir={self.datadir}",
            f"--socket={self.socket}",
            f"--port={self.port}",
            f"--bind-address={self._bind()}",
            f"--pid-file={self.pid_file}",
            f"--log-error={self.error_log}",
            f"--tmpdir={self.dir}",
            f"--user={getpass.getuser()}",
            "--innodb-buffer-pool-size=128M",
            "--skip-log-bin",
            "--skip-name-resolve",  # no reverse DNS for 10.x clients on a machine without DNS
        ]
        if self.tls is not None:
            cmd += [f"--ssl-ca={self.tls.ca}", f"--ssl-cert={self.tls.server_cert}", f"--ssl-key={self.tls.server_key}"]
        if self.general_log:
            cmd += ["--general-log=1", f"--general-log-file={self.general_log_file}"]
        return cmd + self.options

    def _wait_ready(self, deadline: float) -> str | None:
        """None once root logs in to *this* server, else why it failed."""
        assert self.process is not None
        last_error: Exception | None = None
        while True:
            if self.process.poll() is not None:
                return f"mariadbd exited with status {self.process.returncode}.\n{self.log_tail()}"
            if time.monotonic() > deadline:
                return f"not ready after {self.start_timeout:.0f} s (last error: {last_error}).\n{self.log_tail()}"
            if not os.path.exists(self.socket):
                # mariadbd makes its unix socket right after binding the TCP port: until then a
                # connection could only reach someone else's listener.
                time.sleep(0.01)
                continue
            try:
                conn = pymysql.connect(
                    **self._address(),
                    user=ROOT_USER,
                    password="",
                    autocommit=None,
                    connect_timeout=2,
                    read_timeout=2,  # a squatter on our port may accept and never greet
                    write_timeout=2,
                )
            except pymysql.MySQLError as exc:
                last_error = exc
            else:
                try:
                    with conn.cursor() as cur:
                        cur.execute("SELECT @@socket, CONNECTION_ID()")
                        sock, thread_id = cur.fetchone()
                finally:
                    conn.close()
                if sock == self.socket:
                    self.probe_thread_id = int(thread_id)
                    return None
                # Another server took our port between the probe and the bind; ours is dying.
                last_error = MariaDBError(f"port {self.port} answered with socket {sock}")
            time.sleep(0.02)

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Graceful shutdown (SIGTERM), SIGKILL if it takes longer than ``timeout``."""
        if not self.running:
            return
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL, as a crash would; the data directory stays for inspection until ``close()``."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def close(self) -> None:
        """Stop the server if it still runs and remove its temp dir."""
        try:
            self.stop()
        finally:
            if self.dir is not None:
                shutil.rmtree(self.dir, ignore_errors=True)
            _LIVE.discard(self)

    # -- clients and logs ------------------------------------------------------------------
    def connect(self, **kw: Any) -> pymysql.connections.Connection:
        """PyMySQL connection as root with the empty password over TCP (the unix socket with
        --skip-networking), unless ``kw`` says otherwise."""
        params: dict[str, Any] = {
            **self._address(),
            "user": ROOT_USER,
            "password": "",
            "connect_timeout": 5,
        }
        return pymysql.connect(**(params | kw))

    def query(self, sql: str, args: Any = None, **kw: Any) -> tuple[tuple[Any, ...], ...]:
        """Run one statement on a fresh root connection and return all rows."""
        conn = self.connect(**kw)
        try:
            with conn.cursor() as cur:
                cur.execute(sql, args)
                return cur.fetchall()
        finally:
            conn.close()

    def log_tail(self, lines: int = 40) -> str:
        parts = []
        for path in (self.error_log, self._path("stderr.log")):
            if path.exists() and path.stat().st_size:
                tail = path.read_text(errors="replace").splitlines()[-lines:]
                parts.append(f"--- {path} (last {len(tail)} lines) ---\n" + "\n".join(tail))
        return "\n".join(parts) or f"(no output in {self.error_log})"

    def general_log_entries(self) -> list[GeneralLogEntry]:
        if not self.general_log:
            raise MariaDBError("start the server with general_log=True to read its general log")
        return parse_general_log(self.general_log_file.read_text(errors="replace"))

    def general_log_statements(self, *, thread_id: int | None = None) -> list[tuple[str, str]]:
        """(command, argument) of every general-log entry, in order.

        The readiness probe's own connection is left out. ``thread_id`` keeps one connection only
        (``CONNECTION_ID()`` of a client). PyMySQL itself sends ``SET NAMES ...`` (and
        ``SET AUTOCOMMIT = 0`` unless ``autocommit=None``) on connect.
        """
        return [
            (entry.command, entry.argument)
            for entry in self.general_log_entries()
            if entry.thread_id != self.probe_thread_id and (thread_id is None or entry.thread_id == thread_id)
        ]


_ENTRY = re.compile(r"^(?:\d{6} [ \d]\d:\d\d:\d\d)?\t+ *(\d+) ([A-Z][A-Za-z ]*?)\t(.*)$")
_HEADER = re.compile(r"^(?:.*, Version: .* started with:|Tcp port: .*|Time\s+Id Command\s+Argument)$")


def parse_general_log(text: str) -> list[GeneralLogEntry]:
    """Entries of a MariaDB general log file; a multi-line statement is one entry."""
    entries: list[GeneralLogEntry] = []
    for line in text.splitlines():
        match = _ENTRY.match(line)
        if match:
            entries.append(GeneralLogEntry(int(match.group(1)), match.group(2), match.group(3)))
        elif _HEADER.match(line):
            continue
        elif entries:
            last = entries[-1]
            entries[-1] = last._replace(argument=f"{last.argument}\n{line}")
    return entries


# -- template datadir ----------------------------------------------------------------------
_template_cache: dict[str, Path] = {}


def template_datadir() -> Path:
    """The datadir every instance copies, built once per MariaDB build and account set.

    Lives in ``$TMPDIR/advisor-test-template-<uid>-<version>-<hash>/datadir``; an flock keeps
    parallel test processes from building it twice, and a marker file says it is complete.
    """
    mariadbd = find_mariadbd()
    version = server_version(mariadbd)
    if version in _template_cache:
        return _template_cache[version]
    digest = hashlib.sha256("\n".join((_TEMPLATE_REVISION, *_INSTALL_ARGS, *_TEMPLATE_SQL)).encode()).hexdigest()[:10]
    safe_version = re.sub(r"[^A-Za-z0-9.+_-]", "_", version)
    root = Path(tempfile.gettempdir()) / f"advisor-test-template-{os.getuid()}-{safe_version}-{digest}"
    with open(f"{root}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "complete").exists():
            _build_template(root, mariadbd)
    _template_cache[version] = root / "datadir"
    return root / "datadir"


def _build_template(root: Path, mariadbd: str) -> None:
    shutil.rmtree(root, ignore_errors=True)
    build = Path(tempfile.mkdtemp(prefix=f"{root.name}.build-", dir=root.parent))
    try:
        datadir = build / "datadir"
        install = subprocess.run(
            [find_binary("mariadb-install-db"), *_INSTALL_ARGS, f"--datadir={datadir}", f"--user={getpass.getuser()}"],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        if install.returncode != 0:
            raise MariaDBError(
                f"mariadb-install-db failed ({install.returncode}) for {datadir}:\n{install.stdout}\n{install.stderr}"
            )
        sock = build / "setup.sock"
        error_log = build / "setup-error.log"
        cmd = [
            mariadbd,
            "--no-defaults",
            f"--datadir={datadir}",
            f"--socket={sock}",
            "--skip-networking",
            f"--pid-file={build / 'setup.pid'}",
            f"--log-error={error_log}",
            f"--user={getpass.getuser()}",
            "--skip-log-bin",
        ]
        proc = _spawn(cmd, None, build / "setup-stderr.log")
        try:
            conn = _connect_socket(proc, str(sock), error_log)
            try:
                with conn.cursor() as cur:
                    for statement in _TEMPLATE_SQL:
                        cur.execute(statement)
                    # root@<hostname> is only noise ("ignored in --skip-name-resolve mode") in every error log.
                    cur.execute(
                        "SELECT host FROM mysql.user WHERE user = 'root'"
                        " AND host NOT IN ('localhost', '127.0.0.1', '::1', '%')"
                    )
                    for (host,) in cur.fetchall():
                        cur.execute("DROP USER 'root'@%s", (host,))
                    cur.execute("SHUTDOWN")
            finally:
                conn.close()
            proc.wait(STOP_TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if proc.returncode != 0:
            raise MariaDBError(f"template server exited with {proc.returncode}:\n{_tail(error_log)}")
        (build / "complete").write_text(f"{mariadbd}\n")
        os.rename(build, root)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise


def _connect_socket(proc: subprocess.Popen[bytes], sock: str, error_log: Path) -> pymysql.connections.Connection:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if proc.poll() is not None:
            raise MariaDBError(f"template server exited with {proc.returncode}:\n{_tail(error_log)}")
        try:
            return pymysql.connect(unix_socket=sock, user=ROOT_USER, password="", autocommit=True)
        except pymysql.MySQLError as exc:
            if time.monotonic() > deadline:
                raise MariaDBError(f"template server not ready: {exc}\n{_tail(error_log)}") from exc
        time.sleep(0.02)


# -- helpers -------------------------------------------------------------------------------
def _normalise_options(options: Mapping[str, Any] | Iterable[str]) -> list[str]:
    if isinstance(options, str):
        raise TypeError("options must be a mapping or a list of arguments, not one string")
    if isinstance(options, Mapping):
        args = []
        for key, value in options.items():
            name = key.removeprefix("--").replace("_", "-")
            if value is True or value is None:
                args.append(f"--{name}")
            elif value is False:
                args.append(f"--skip-{name}")
            else:
                args.append(f"--{name}={value}")
    else:
        args = [arg if arg.startswith("--") else f"--{arg}" for arg in options]
    for arg in args:
        name = arg[2:].split("=", 1)[0].replace("_", "-")
        if name in _RESERVED:
            raise ValueError(f"option {name!r} is set by MariaDB itself; use the constructor's arguments")
    return args


def _free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _namespace_address(netns: str) -> str:
    out = subprocess.run(
        ["ip", "-n", netns, "-4", "-o", "addr", "show", "scope", "global"], capture_output=True, text=True
    )
    match = re.search(r"\binet (\d+\.\d+\.\d+\.\d+)/", out.stdout)
    if out.returncode != 0 or match is None:
        raise MariaDBError(f"network namespace {netns!r} has no global IPv4 address: {out.stderr.strip()}")
    return match.group(1)


_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def _die_with_parent() -> None:
    # SIGKILL the server if the test process dies without running its finalizers.
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _spawn(cmd: list[str], netns: str | None, stderr_path: Path) -> subprocess.Popen[bytes]:
    if netns:
        cmd = ["ip", "netns", "exec", netns, *cmd]  # ip execs in place: the Popen pid is mariadbd's
    with open(stderr_path, "wb") as stderr:
        return subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=stderr,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )


def _tail(path: Path, lines: int = 40) -> str:
    if not path.exists():
        return f"(no {path})"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


_WORKDIR_PREFIX = "adv-mdb-"
_swept = False


def _sweep_orphans() -> None:
    """Remove work dirs whose test process died without cleaning up (SIGKILL, CI timeout).

    Their servers are already gone (PR_SET_PDEATHSIG); each dir holds a 100+ MB datadir.
    """
    global _swept
    if _swept:
        return
    _swept = True
    for workdir in Path(tempfile.gettempdir()).glob(f"{_WORKDIR_PREFIX}*"):
        try:
            owner = int((workdir / "owner.pid").read_text())
            if workdir.stat().st_uid != os.getuid() or _alive(owner):
                continue
        except (OSError, ValueError):
            continue
        shutil.rmtree(workdir, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs; a zombie (killed, not yet reaped) counts as dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


_LIVE: set[MariaDB] = set()


@atexit.register
def _kill_leftovers() -> None:
    for db in list(_LIVE):
        try:
            db.kill()
        finally:
            if db.dir is not None:
                shutil.rmtree(db.dir, ignore_errors=True)
