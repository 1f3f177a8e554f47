"""Where the mysql client finds its options, and so the advisor: option files in the client's order,
the login-path file, the environment, Percona DSNs.

Order (refman "Using Option Files"; `my_print_defaults --help` prints the same list), later wins:
/etc/my.cnf, /etc/mysql/my.cnf, $MYSQL_HOME/my.cnf (MariaDB: $MARIADB_HOME first; when set),
--defaults-extra-file, ~/.my.cnf,
then the login-path file ~/.mylogin.cnf ($MYSQL_TEST_LOGIN_FILE when set; MySQL's
`mysql_config_editor` writes it). `--defaults-file` reads that one file instead of the list (the
login-path file is still read, as MySQL does); `--no-defaults` reads none but the login-path file.
Lines of every group in GROUPS (plus the --login-path group) are taken in file order, last wins,
as the client takes them; the [advisor] group also holds advisor's own options (ADVISOR_KEYS).
Values below the option files: MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_UNIX_PORT, MYSQL_PWD.

The search list is an argument (`search`), so tests point it at files of their own.
"""

from __future__ import annotations

import os
import re
import stat
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from advisor.errors import UsageError
from advisor.optionfile import OptionFile, parse_option_text, read_option_files, shorten

DEFAULT_SEARCH = ("/etc/my.cnf", "/etc/mysql/my.cnf", "$MYSQL_HOME/my.cnf", "", "~/.my.cnf")  # "" = --defaults-extra-file
# [client] and the mysql client's own groups, MySQL's and MariaDB's, then advisor's.
GROUPS = ("client", "client-server", "client-mariadb", "mysql", "mariadb-client", "advisor")
CONNECTION_KEYS = frozenset({"host", "port", "socket", "user", "password", "ssl-mode", "ssl-ca", "ssl-cert", "ssl-key",
                             "ssl", "skip-ssl", "ssl-verify-server-cert", "protocol"})
BOOLEAN_KEYS = frozenset({"ssl", "ssl-verify-server-cert"})
ADVISOR_KEYS = frozenset({"purpose", "ignore", "fail-on", "format"})
LOGIN_KEY_LEN = 20
MAX_LOGIN_FILE = 1 << 20


@dataclass(frozen=True)
class Setting:
    """One client option's value (None for a bare option) and the file:line it came from."""

    value: Optional[str] = field(repr=False)  # None: a bare option (`password` alone: ask for it); may be a secret
    where: str = ""                           # file:line


@dataclass
class ClientFiles:
    """What the option files say: connection settings (every client group and [advisor]) and
    advisor's own [advisor] settings, each with where it was read."""

    values: dict[str, Setting] = field(default_factory=dict)
    advisor: dict[str, Setting] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    login_path_found: bool = False


def search_list(defaults_extra_file: Optional[str], env: dict[str, str], home: str,
                search: Optional[Sequence[str]] = None) -> list[str]:
    """The files to read, in order: `search` (default DEFAULT_SEARCH) with ~ as `home`,
    $MYSQL_HOME from `env` (entries naming an unset variable are dropped) and "" as the
    --defaults-extra-file (dropped when none is given)."""
    out: list[str] = []
    for entry in DEFAULT_SEARCH if search is None else search:
        if entry == "":
            if defaults_extra_file:
                out.append(defaults_extra_file)
            continue
        if entry.startswith("$"):
            var, _, rest = entry[1:].partition("/")
            # MariaDB's clients look in $MARIADB_HOME first, then $MYSQL_HOME
            value = (env.get("MARIADB_HOME") if var == "MYSQL_HOME" else None) or env.get(var)
            if not value:
                continue
            entry = os.path.join(value, rest)
        if entry.startswith("~/"):
            entry = os.path.join(home, entry[2:])
        out.append(entry)
    return out


def login_file_path(env: dict[str, str], home: str) -> str:
    return env.get("MYSQL_TEST_LOGIN_FILE") or os.path.join(home, ".mylogin.cnf")


def read_client_files(*, defaults_file: Optional[str] = None, defaults_extra_file: Optional[str] = None,
                      no_defaults: bool = False, login_path: Optional[str] = None,
                      env: Optional[dict[str, str]] = None, search: Optional[Sequence[str]] = None) -> ClientFiles:
    """Read the option files as the mysql client does. A problem the client stops at (a malformed
    line, an include cycle, an unreadable --defaults-file) raises UsageError naming the file."""
    env = dict(os.environ) if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    for label, p in (("--defaults-file", defaults_file), ("--defaults-extra-file", defaults_extra_file)):
        if p and not no_defaults and not Path(p).is_file():
            raise UsageError(f"{label} {p} does not exist or is not a file.",
                             "give the path of an option file with a [client] or [advisor] group, or leave the option out.")
    out = ClientFiles()
    if not no_defaults:
        paths = [defaults_file] if defaults_file else search_list(defaults_extra_file, env, home, search)
        for p in paths:
            _take(out, _read_one(Path(p)), login_path)
    login = Path(login_file_path(env, home))
    if login.exists():
        _take(out, _read_login(login, out), login_path)
    return out


def _read_one(p: Path) -> OptionFile:
    f = read_option_files([p])
    if f.fatal:
        more = f" (and {len(f.fatal) - 1} more problem(s))" if len(f.fatal) > 1 else ""
        raise UsageError(f"cannot use option file {p}: {f.fatal[0]}{more}.",
                         "fix the file (the mysql client stops at it too), or skip the option files with "
                         "--no-defaults or --defaults-file=FILE.")
    return f


def _take(out: ClientFiles, f: OptionFile, login_path: Optional[str]) -> None:
    out.files += f.files
    out.warnings += f.warnings
    groups = set(GROUPS) | ({login_path.lower()} if login_path else set())
    for o in f.options:
        if o.group not in groups:
            continue
        if login_path and o.group == login_path.lower():
            out.login_path_found = True
        key, s = o.option, Setting(o.value, o.where())
        for prefix, value in (("skip-", "0"), ("disable-", "0"), ("enable-", "1")):
            # the clients' boolean prefixes (skip-ssl = ssl=0): the last line wins, whichever form it has
            if key.startswith(prefix) and key[len(prefix):] in BOOLEAN_KEYS:
                key, s = key[len(prefix):], Setting(value, o.where())
        if o.group == "advisor":
            if key in ADVISOR_KEYS:
                out.advisor[key] = s
                continue
            if key not in CONNECTION_KEYS:
                out.warnings.append(f"{o.where()}: [advisor] {shorten(o.name)} is not an advisor option, ignored "
                                    f"(known: {', '.join(sorted(ADVISOR_KEYS | CONNECTION_KEYS))})")
                continue
        out.values[key] = s


# ---------------------------------------------------------------- the login-path file

def _read_login(p: Path, out: ClientFiles) -> OptionFile:
    try:
        mode = p.stat().st_mode
        if mode & (stat.S_IXUSR | stat.S_IRWXG | stat.S_IRWXO):
            out.warnings.append(f"login-path file {p} is ignored: it should be readable and writable only by "
                                "its owner (chmod 600), as the mysql client requires")
            return OptionFile(path=str(p))
        data = p.read_bytes()[:MAX_LOGIN_FILE]
    except OSError as e:
        raise UsageError(f"cannot read the login-path file {p}: {e.strerror}.",
                         "check its permissions, or set MYSQL_TEST_LOGIN_FILE to another file.") from None
    try:
        text = decrypt_login_file(data)
    except ValueError as e:
        raise UsageError(f"the login-path file {p} is not one mysql_config_editor wrote: {e}.",
                         "recreate it with `mysql_config_editor set --login-path=NAME ...`, or move it away.") from None
    f = parse_option_text(text, str(p))
    f.files.append(str(p))
    if f.fatal:
        raise UsageError(f"cannot use the login-path file {p}: {f.fatal[0]}.",
                         "recreate it with mysql_config_editor.")
    return f


def _aes_key(key: bytes) -> bytes:
    """MySQL's my_aes_create_key for AES-128: the key bytes XOR-folded into 16 bytes."""
    rkey = bytearray(16)
    for i, b in enumerate(key):
        rkey[i % 16] ^= b
    return bytes(rkey)


def decrypt_login_file(data: bytes) -> str:
    """The text of a .mylogin.cnf: 4 unused bytes, a 20-byte key, then for each line a 4-byte
    little-endian length and the line encrypted with AES-128-ECB (PKCS#7 padding) under the key
    folded to 16 bytes (MySQL mysys/my_default.cc, my_aes_openssl.cc)."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    if len(data) < 4 + LOGIN_KEY_LEN:
        raise ValueError(f"{len(data)} bytes, shorter than its 24-byte header")
    key = _aes_key(data[4:4 + LOGIN_KEY_LEN])
    pos, lines = 4 + LOGIN_KEY_LEN, []
    while pos + 4 <= len(data):
        (n,) = struct.unpack_from("<i", data, pos)
        pos += 4
        if n <= 0 or n % 16 or pos + n > len(data):
            raise ValueError(f"a line of {n} encrypted bytes at offset {pos - 4}")
        dec = Cipher(algorithms.AES(key), modes.ECB()).decryptor()
        raw = dec.update(data[pos:pos + n]) + dec.finalize()
        unpad = padding.PKCS7(128).unpadder()
        try:
            plain = unpad.update(raw) + unpad.finalize()
        except ValueError:
            raise ValueError(f"a line at offset {pos - 4} does not decrypt") from None
        lines.append(plain.decode("utf-8", errors="replace"))
        pos += n
    return "".join(lines)


def encrypt_login_file(text: str, key: bytes) -> bytes:
    """The inverse of decrypt_login_file (what mysql_config_editor writes), for tests and tools."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    if len(key) != LOGIN_KEY_LEN:
        raise ValueError(f"the key is {LOGIN_KEY_LEN} bytes")
    out = [b"\0\0\0\0", key]
    for line in text.splitlines(keepends=True):
        pad = padding.PKCS7(128).padder()
        plain = pad.update(line.encode("utf-8")) + pad.finalize()
        enc = Cipher(algorithms.AES(_aes_key(key)), modes.ECB()).encryptor()
        cipher = enc.update(plain) + enc.finalize()
        out += [struct.pack("<i", len(cipher)), cipher]
    return b"".join(out)


# ---------------------------------------------------------------- Percona DSNs

DSN_KEYS = {"h": "host", "P": "port", "u": "user", "p": "password", "S": "socket", "F": "defaults_file"}
DSN_IGNORED = {"D", "t", "A", "L"}  # database, table, charset, local-infile: nothing advisor uses


def _dsn_parts(text: str) -> list[str]:
    """The DSN's KEY=VALUE parts, split at each ',' that is not written `\\,`."""
    parts, cur, i = [], "", 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] == ",":
            cur, i = cur + ",", i + 2
            continue
        if text[i] == ",":
            parts.append(cur)
            cur = ""
        else:
            cur += text[i]
        i += 1
    parts.append(cur)
    return parts


def mask_dsn(text: str) -> str:
    """The DSN to show: its p= value (a password) replaced."""
    return ",".join("p=…" if part.strip().startswith("p=") else part.replace(",", "\\,")
                    for part in _dsn_parts(text))


def is_dsn(text: str) -> bool:
    """Whether the text is written as a DSN: comma-separated parts, each a one-letter KEY=."""
    parts = [p for p in _dsn_parts(text) if p]
    return bool(parts) and all(re.match(r"\s*[A-Za-z]=", p) for p in parts)


def parse_dsn(text: str) -> dict[str, str]:
    """A Percona Toolkit DSN, `h=db1,P=3307,u=app,S=/tmp/s.sock,F=/etc/app.cnf`: keys are
    case-sensitive single letters; a comma inside a value is written `\\,`. The one DSN parser:
    `--host DSN` and the DSN lines of a fleet's target file both read through it."""
    out: dict[str, str] = {}
    for part in (p for p in _dsn_parts(text) if p.strip()):
        k, sep, v = part.partition("=")
        k = k.strip()
        if not sep or (k not in DSN_KEYS and k not in DSN_IGNORED):
            raise UsageError(f"{shorten(k)!r} in the DSN {shorten(mask_dsn(text))!r} is not a DSN part advisor knows.",
                             "write a Percona DSN such as h=db1,P=3306,u=app,S=/run/mysqld/mysqld.sock,F=/etc/app.cnf "
                             "(keys h, P, u, p, S, F; D, t, A and L are accepted and ignored).")
        if k in DSN_KEYS:
            out[DSN_KEYS[k]] = v
    return out


__all__ = ["ClientFiles", "Setting", "read_client_files", "search_list", "login_file_path", "parse_dsn", "is_dsn",
           "mask_dsn", "decrypt_login_file", "encrypt_login_file"]
