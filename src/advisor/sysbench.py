"""sysbench command lines as a typed model, and what the sysbench on this machine is.

Two halves, as elsewhere in advisor:
  parse_command(text, config_text=...)  pure: a command line -> SysbenchCommand, or UsageError (exit 2)
  read_local_sysbench(path)             I/O: `sysbench --version`, `ldd`, the client library's version

What sysbench itself accepts was read from its sources and checked against the installed build:
  - sysbench 1.0.20 (Debian 1.0.20+ds-5, linked against libmariadb 3.3.20): `sysbench --help`,
    `sysbench oltp_read_write help`, /usr/share/sysbench/*.lua, and by running it with bad options.
  - akopytov/sysbench master ("1.1"): src/sysbench.c, src/sb_rand.c, src/drivers/mysql/drv_mysql.c,
    src/lua/oltp_common.lua (warmup command, `prewarm` kept as an alias).
Behaviour this module reproduces (each verified with sysbench 1.0.20 here):
  - options are `--name=value`; `--name value` is NOT understood: sysbench takes `value` as the test
    name or the command and stops with "Unrecognized command line argument". We read the intended
    value anyway and report the form as a problem.
  - `-` and `_` are interchangeable in option names; names are case-sensitive; an unknown option
    stops sysbench with "invalid option".
  - boolean options take on, off, true, false, 1, 0 (lower case) or no value (= on).
  - integer options of the C core (--threads, --time, --report-interval, ...) must be plain decimal
    integers ("10K" and "1e3" are rejected).
  - numeric options of the Lua scripts (--tables, --table-size, ...) are read leniently by sysbench:
    `--table-size=10M` inserts 10 rows and `--table-size=abc` inserts none. We reject both.
  - `--config-file=F` holds `name=value` lines; the command line wins over the file; lines with
    spaces around `=` or a leading `--`, and unknown names, are silently ignored by sysbench.
  - a Lua test needs a command ("Command is required"); an unknown command stops it.

Passwords: the model never keeps the value of an option whose name mentions a password; every
rendering of the command shows `***` instead.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

from advisor.errors import UsageError

MASK = "***"

# ---------------------------------------------------------------- option catalogue

OptType = Literal["int", "number", "bool", "string", "list", "size", "double", "ssl", "file"]
Era = Literal["1.0", "1.1"]
BOTH: tuple[Era, ...] = ("1.0", "1.1")
ONLY_10: tuple[Era, ...] = ("1.0",)
ONLY_11: tuple[Era, ...] = ("1.1",)


@dataclass(frozen=True)
class OptSpec:
    name: str
    type: OptType
    default: Any = None
    eras: tuple[Era, ...] = BOTH
    scope: str = "general"  # general | rand | log | db | mysql | pgsql | oltp | <script name>
    alias_of: Optional[str] = None
    choices: tuple[str, ...] = ()

    @property
    def secret(self) -> bool:
        return is_secret_name(self.name)


_SECRET_NAME = re.compile(r"pass|pa?s+w|pwd|secret|token|credential", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """Names whose value is never shown: passwords and their misspellings (--mysql-pasword), tokens."""
    return bool(_SECRET_NAME.search(name))


def _o(name: str, type_: OptType, default: Any = None, eras: tuple[Era, ...] = BOTH, scope: str = "general",
       alias_of: Optional[str] = None, choices: tuple[str, ...] = ()) -> OptSpec:
    return OptSpec(name, type_, default, eras, scope, alias_of, choices)


# Defaults are those of sysbench 1.0.20; where 1.1 differs, DEFAULTS_11 says so.
_CORE: list[OptSpec] = [
    # general (src/sysbench.c general_args)
    _o("threads", "int", 1), _o("events", "int", 0), _o("time", "int", 10),
    _o("warmup-time", "int", 0, ONLY_11), _o("forced-shutdown", "string", "off"),
    _o("thread-stack-size", "size", "64K"), _o("thread-init-timeout", "int", 30, ONLY_11),
    _o("rate", "int", 0), _o("report-interval", "int", 0), _o("report-checkpoints", "list", ""),
    _o("debug", "bool", False), _o("validate", "bool", False), _o("help", "bool", False),
    _o("version", "bool", False), _o("config-file", "file"), _o("luajit-cmd", "string", None, ONLY_11),
    _o("tx-rate", "int", 0, ONLY_10, alias_of="rate"), _o("max-requests", "int", 0, ONLY_10, alias_of="events"),
    _o("max-time", "int", 0, ONLY_10, alias_of="time"), _o("num-threads", "int", 1, ONLY_10, alias_of="threads"),
    # random numbers (src/sb_rand.c rand_args)
    _o("rand-type", "string", "special", scope="rand",
       choices=("uniform", "gaussian", "special", "pareto", "zipfian")),
    _o("rand-spec-iter", "int", 12, scope="rand"), _o("rand-spec-pct", "int", 1, scope="rand"),
    _o("rand-spec-res", "int", 75, scope="rand"), _o("rand-seed", "int", 0, scope="rand"),
    _o("rand-pareto-h", "double", 0.2, scope="rand"), _o("rand-zipfian-exp", "double", 0.8, ONLY_11, scope="rand"),
    # log
    _o("verbosity", "int", 3, scope="log"), _o("percentile", "int", 95, scope="log"),
    _o("histogram", "bool", False, scope="log"),
    # database (src/db_driver.c)
    _o("db-driver", "string", "mysql", scope="db"), _o("db-ps-mode", "string", "auto", scope="db",
                                                       choices=("auto", "disable")),
    _o("db-debug", "bool", False, scope="db"),
    # MySQL driver (src/drivers/mysql/drv_mysql.c)
    _o("mysql-host", "list", "localhost", scope="mysql"), _o("mysql-port", "list", "3306", scope="mysql"),
    _o("mysql-socket", "list", None, scope="mysql"), _o("mysql-user", "string", "sbtest", scope="mysql"),
    _o("mysql-password", "string", "", scope="mysql"), _o("mysql-db", "string", "sbtest", scope="mysql"),
    _o("mysql-ssl", "ssl", "off", scope="mysql"), _o("mysql-ssl-cipher", "string", "", scope="mysql"),
    _o("mysql-ssl-key", "string", None, ONLY_11, scope="mysql"),
    _o("mysql-ssl-ca", "string", None, ONLY_11, scope="mysql"),
    _o("mysql-ssl-cert", "string", None, ONLY_11, scope="mysql"),
    _o("mysql-compression", "bool", False, scope="mysql"),
    _o("mysql-compression-algorithms", "string", "zlib", ONLY_11, scope="mysql"),
    _o("mysql-debug", "bool", False, scope="mysql"), _o("mysql-ignore-errors", "list", "1213,1020,1205", scope="mysql"),
    _o("mysql-dry-run", "bool", False, scope="mysql"),
    # PostgreSQL driver
    _o("pgsql-host", "string", "localhost", scope="pgsql"), _o("pgsql-port", "int", 5432, scope="pgsql"),
    _o("pgsql-user", "string", "sbtest", scope="pgsql"), _o("pgsql-password", "string", "", scope="pgsql"),
    _o("pgsql-db", "string", "sbtest", scope="pgsql"),
]

# oltp_common.lua option_defs (1.0.20 as installed; master adds a few, marked 1.1)
_OLTP: list[OptSpec] = [
    _o("table-size", "number", 10000, scope="oltp"), _o("range-size", "number", 100, scope="oltp"),
    _o("tables", "number", 1, scope="oltp"), _o("point-selects", "number", 10, scope="oltp"),
    _o("simple-ranges", "number", 1, scope="oltp"), _o("sum-ranges", "number", 1, scope="oltp"),
    _o("order-ranges", "number", 1, scope="oltp"), _o("distinct-ranges", "number", 1, scope="oltp"),
    _o("index-updates", "number", 1, scope="oltp"), _o("non-index-updates", "number", 1, scope="oltp"),
    _o("delete-inserts", "number", 1, scope="oltp"), _o("range-selects", "bool", True, scope="oltp"),
    _o("auto-inc", "bool", True, scope="oltp"), _o("skip-trx", "bool", False, scope="oltp"),
    _o("secondary", "bool", False, scope="oltp"), _o("create-secondary", "bool", True, scope="oltp"),
    _o("mysql-storage-engine", "string", "innodb", scope="oltp"), _o("pgsql-variant", "string", None, scope="oltp"),
    _o("reconnect", "number", 0, ONLY_11, scope="oltp"),
    _o("create-table-options", "string", "", ONLY_11, scope="oltp"),
]
_SCRIPT_EXTRA: dict[str, list[OptSpec]] = {
    "select_random_points": [_o("random-points", "number", 10, scope="select_random_points")],
    "select_random_ranges": [_o("number-of-ranges", "number", 10, scope="select_random_ranges"),
                             _o("delta", "number", 5, scope="select_random_ranges")],
}
DEFAULTS_11: dict[str, Any] = {"rand-type": "uniform", "mysql-ssl": "disabled"}

CORE_OPTIONS = {o.name: o for o in _CORE}
OLTP_OPTIONS = {o.name: o for o in _OLTP}
ALL_OPTIONS: dict[str, OptSpec] = {**CORE_OPTIONS, **OLTP_OPTIONS,
                                   **{o.name: o for opts in _SCRIPT_EXTRA.values() for o in opts}}

# ---------------------------------------------------------------- tests and commands

BUILTIN_TESTS = ("fileio", "cpu", "memory", "threads", "mutex")
# Bundled Lua scripts (/usr/share/sysbench in 1.0.20 and master): name -> (uses the sbtest tables, writes)
LUA_SCRIPTS: dict[str, tuple[bool, bool]] = {
    "oltp_common": (True, True),  # prepare/cleanup only (the TiDB report prepares with it)
    "oltp_read_write": (True, True),
    "oltp_read_only": (True, False),
    "oltp_point_select": (True, False),
    "oltp_write_only": (True, True),
    "oltp_update_index": (True, True),
    "oltp_update_non_index": (True, True),
    "oltp_insert": (True, True),
    "oltp_delete": (True, True),
    "select_random_points": (True, False),
    "select_random_ranges": (True, False),
    "bulk_insert": (False, True),
}
OLTP_COMMANDS_10 = ("prepare", "prewarm", "run", "cleanup", "help")
OLTP_COMMANDS_11 = ("warmup",)
BUILTIN_COMMANDS = {"fileio": ("prepare", "run", "cleanup", "help"), "cpu": ("run", "help"),
                    "memory": ("run", "help"), "threads": ("run", "help"), "mutex": ("run", "help")}
DB_COMMANDS = ("prepare", "prewarm", "warmup", "run", "cleanup")

_BOOL_VALUES = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}
SSL_MODES_11 = ("disabled", "preferred", "required", "verify_ca", "verify_identity")
_SHELL_VAR = re.compile(r"\$(?:\{[A-Za-z_][A-Za-z0-9_]*[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|\([^)]*\))")
_INT = re.compile(r"[0-9]+")
_LUA_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")
_SIZE = re.compile(r"[0-9]+[KMGT]?", re.IGNORECASE)
_DOUBLE = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WRAPPERS = {"time", "sudo", "nice", "nohup", "env", "numactl", "taskset", "exec", "command", "stdbuf", "chrt", "ionice"}


@dataclass(frozen=True)
class Unresolved:
    """A value the command line leaves open: a shell variable, or an option that may sit in an unread
    config file. `why` says which."""

    text: str
    why: str

    def __str__(self) -> str:
        return self.text


Value = Union[int, float, bool, str, tuple, None, Unresolved]


@dataclass(frozen=True)
class Option:
    name: str           # canonical (dashes), as in the catalogue; as written for unknown options
    written: str        # the token as written, password masked
    raw: Optional[str]  # value as written (None for a bare boolean); never a password
    value: Value        # typed
    source: Literal["command line", "config file"] = "command line"
    form: Literal["eq", "space", "bare"] = "eq"
    known: bool = True


@dataclass
class SysbenchCommand:
    """A parsed sysbench command line. Passwords are masked everywhere in it."""

    display: str                       # the whole command, one line, password masked
    program: str                       # the sysbench token as written (path or name)
    test: Optional[str]                # canonical name: oltp_read_write, cpu, or the custom script's stem
    test_written: Optional[str]        # as written (name or path)
    test_kind: Literal["lua", "builtin", "custom", "unresolved"]
    command: Optional[str]             # prepare | prewarm | warmup | run | cleanup | help, or None
    command_unresolved: Optional[str] = None
    options: dict[str, Option] = field(default_factory=dict)
    config_file: Optional[str] = None
    config_read: bool = False
    config_problem: Optional[str] = None   # why the config file could not be read
    problems: list[str] = field(default_factory=list)   # things sysbench would reject or silently ignore
    notes: list[str] = field(default_factory=list)      # deprecated forms that still work
    password_given: bool = False
    legacy_test_option: bool = False

    # ------------------------------------------------------------ typed access
    def given(self, name: str) -> bool:
        return name in self.options

    def get(self, name: str, era: Optional[str] = None) -> Value:
        """The option's value: as given, else (when a config file went unread) Unresolved, else the
        default of the given era ('1.0' when unknown; see DEFAULTS_11)."""
        spec = ALL_OPTIONS.get(name)
        for alias in [name] + [a.name for a in ALL_OPTIONS.values() if a.alias_of == name]:
            if alias in self.options:
                return self.options[alias].value
        if self.config_file and not self.config_read:
            return Unresolved(f"--{name}?", f"--{name} may be set in the config file {self.config_file}, which was "
                                            f"not read ({self.config_problem})")
        if era == "1.1" and name in DEFAULTS_11:
            return DEFAULTS_11[name]
        return spec.default if spec else None

    @property
    def uses_sbtest(self) -> bool:
        if self.test_kind == "lua":
            return LUA_SCRIPTS[self.test][0]  # type: ignore[index]
        return self.test_kind == "unresolved" and any(n in OLTP_OPTIONS for n in self.options)

    @property
    def writes(self) -> Optional[bool]:
        if self.test_kind == "lua":
            return LUA_SCRIPTS[self.test][1]  # type: ignore[index]
        return None

    @property
    def is_database_test(self) -> bool:
        """Built-in tests (cpu, fileio, ...) and bulk_insert's own table aside, everything else talks to the
        server; a custom script is assumed to (it is run against one, or there is no point in a checklist)."""
        return self.test_kind != "builtin"

    @property
    def effective_command(self) -> Optional[str]:
        """The command, with `warmup` (1.1) folded into `prewarm`; None when unresolved."""
        if self.command == "warmup":
            return "prewarm"
        return self.command

    def era_hint(self) -> tuple[Optional[str], str]:
        """Which sysbench the command line was written for, from the options it uses."""
        only11 = sorted(n for n, o in self.options.items() if o.known and ALL_OPTIONS[n].eras == ONLY_11)
        ssl = self.options.get("mysql-ssl")
        if ssl is not None and isinstance(ssl.value, str) and ssl.value in SSL_MODES_11:
            only11.append(f"mysql-ssl={ssl.value}")
        if self.options.get("rand-type") is not None and self.options["rand-type"].value == "zipfian":
            only11.append("rand-type=zipfian")
        if self.command == "warmup":
            only11.append("the warmup command")
        only10 = sorted(n for n, o in self.options.items() if o.known and ALL_OPTIONS[n].eras == ONLY_10)
        if self.legacy_test_option:
            only10.append("test")
        if only11 and not only10:
            return "1.1", "the command uses " + ", ".join(f"--{x}" if not x.startswith("the ") else x for x in only11) + \
                ", which only sysbench 1.1 (master) has"
        if only10 and not only11:
            return "1.0", "the command uses " + ", ".join(f"--{x}" for x in only10) + \
                ", which sysbench 1.1 (master) no longer has"
        return None, "the options used exist in both sysbench 1.0 and 1.1"

    def hosts(self) -> list[Union[str, Unresolved]]:
        v = self.get("mysql-host")
        if isinstance(v, Unresolved):
            return [v]
        return list(v) if isinstance(v, tuple) else [str(v)]

    def ports(self) -> list[Union[int, Unresolved]]:
        v = self.get("mysql-port")
        if isinstance(v, Unresolved):
            return [v]
        out: list[Union[int, Unresolved]] = []
        for p in (v if isinstance(v, tuple) else (v,)):
            out.append(p if isinstance(p, Unresolved) else int(p))
        return out

    def socket(self) -> Optional[Union[str, Unresolved]]:
        v = self.get("mysql-socket")
        if isinstance(v, tuple):
            return v[0] if v else None
        return v  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        def show(v: Value) -> Any:
            if isinstance(v, Unresolved):
                return v.text
            if isinstance(v, tuple):
                return [show(x) for x in v]
            return v
        return {
            "command_line": self.display, "test": self.test, "test_kind": self.test_kind,
            "command": self.command if self.command is not None else self.command_unresolved,
            "options": {n: (MASK if is_secret_name(n) else show(o.value)) for n, o in self.options.items()},
            "config_file": self.config_file, "config_read": self.config_read,
            "problems": list(self.problems), "notes": list(self.notes),
        }


# ---------------------------------------------------------------- parsing

def _err(message: str, tip: str) -> UsageError:
    return UsageError(f"--sysbench: {message}", tip)


def _mask_token(tok: str) -> str:
    """`--mysql-password=x` -> `--mysql-password=***`; `MYSQL_PWD=x` -> `MYSQL_PWD=***`."""
    m = re.match(r"^(-{0,2})([A-Za-z0-9_.-]+)=(.*)$", tok, re.S)
    if m and is_secret_name(m.group(2)):
        return f"{m.group(1)}{m.group(2)}={MASK}"
    return tok


def _quote(tok: str) -> str:
    return tok if tok == MASK or re.fullmatch(r"[A-Za-z0-9_@%+=:,./*$-]+", tok) else shlex.quote(tok)


def _tokenize(text: str) -> list[str]:
    joined = re.sub(r"\\\r?\n", " ", text)
    try:
        return shlex.split(joined, comments=False, posix=True)
    except ValueError as e:
        # never echo the text: it may hold a password
        raise _err(f"the command line cannot be split into words ({e}).",
                   "check the quotes; pass the command as one argument: --sysbench \"sysbench oltp_read_write ... run\".") \
            from None


def _is_shell_var(s: str) -> bool:
    return bool(_SHELL_VAR.search(s))


def _canonical(name: str) -> str:
    return name.replace("_", "-")


def _suggest(name: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(name, candidates, n=2, cutoff=0.75)
    return f" Did you mean {' or '.join('--' + c for c in close)}?" if close else ""


def _typed(spec: OptSpec, raw: Optional[str], written: str) -> Value:
    """Validate one value the way sysbench reads it (stricter where sysbench silently misreads)."""
    shown = MASK if spec.secret else raw
    if raw is not None and _is_shell_var(raw):
        return Unresolved(raw if not spec.secret else MASK, f"--{spec.name} is the shell expression {shown}")
    if spec.type in ("bool",):
        if raw is None:
            return True
        if raw not in _BOOL_VALUES:
            raise _err(f"{written}: {spec.name} is on/off; sysbench accepts on, off, true, false, 1 or 0 "
                       f"(lower case), not {raw!r}.", f"write --{spec.name}=on or --{spec.name}=off.")
        return _BOOL_VALUES[raw]
    if spec.type == "ssl":  # bool in 1.0.x (and 1.1 built with libmariadb), a mode name in 1.1 with libmysqlclient
        if raw is None:
            return "on"
        low = raw.lower()
        if raw in _BOOL_VALUES:
            return "on" if _BOOL_VALUES[raw] else "off"
        if low in SSL_MODES_11:
            return low
        raise _err(f"{written}: --mysql-ssl takes on/off (sysbench 1.0) or one of "
                   f"{', '.join(SSL_MODES_11)} (sysbench 1.1), not {raw!r}.",
                   "write --mysql-ssl=off for plain connections in 1.0.x, --mysql-ssl=disabled in 1.1.")
    if raw is None or raw == "":
        raise _err(f"{written}: --{spec.name} needs a value.", f"write --{spec.name}=VALUE.")
    if spec.type == "int":
        if not _INT.fullmatch(raw):
            unit = " of seconds" if "time" in spec.name or "interval" in spec.name else ""
            raise _err(f"{written}: --{spec.name} must be a whole number{unit} written in digits; sysbench rejects "
                       f"{raw!r} (\"Invalid value for the '{spec.name}' option\").",
                       f"write e.g. --{spec.name}={spec.default if spec.default not in (None, 0) else 10}.")
        n = int(raw)
        if spec.name in ("threads", "num-threads") and n < 1:
            raise _err(f"{written}: --threads must be at least 1 (sysbench stops with \"Invalid value for --threads: 0\").",
                       "write --threads=1 or more.")
        return n
    if spec.type == "number":
        if not _LUA_NUMBER.fullmatch(raw):
            lead = re.match(r"[0-9]+", raw)
            what = (f"sysbench would read only the leading {lead.group(0)} and ignore the rest" if lead
                    else "sysbench would read it as 0")
            raise _err(f"{written}: --{spec.name} must be a number written in digits; {what}.",
                       f"write the full number, e.g. --{spec.name}=10000000 for ten million.")
        f = float(raw)
        if f != int(f):
            raise _err(f"{written}: --{spec.name} must be a whole number, not {raw}.", f"write --{spec.name}={int(f)}.")
        n = int(f)
        if spec.name in ("tables", "table-size") and n < 1:
            raise _err(f"{written}: --{spec.name} must be at least 1; with {n} sysbench creates "
                       f"{'no tables' if spec.name == 'tables' else 'empty tables'}.", f"write --{spec.name}=1 or more.")
        return n
    if spec.type == "double":
        if not _DOUBLE.fullmatch(raw):
            raise _err(f"{written}: --{spec.name} must be a number, not {raw!r}.", f"write e.g. --{spec.name}={spec.default}.")
        return float(raw)
    if spec.type == "size":
        if not _SIZE.fullmatch(raw):
            raise _err(f"{written}: --{spec.name} must be a size such as 64K, not {raw!r}.", f"write e.g. --{spec.name}=64K.")
        return raw.upper()
    if spec.type == "list":
        parts = tuple(p for p in raw.split(",") if p != "")
        if spec.name == "mysql-port":
            for p in parts:
                if not _is_shell_var(p) and not _INT.fullmatch(p):
                    raise _err(f"{written}: --mysql-port must be port numbers (comma-separated), not {p!r}.",
                               "write e.g. --mysql-port=3306.")
        return tuple(Unresolved(p, f"--{spec.name} contains the shell expression {p}") if _is_shell_var(p) else p
                     for p in parts)
    if spec.choices:
        if raw not in spec.choices:
            raise _err(f"{written}: --{spec.name} is one of {', '.join(spec.choices)}, not {raw!r} "
                       f"(sysbench stops: \"Invalid ...: {raw}\").", f"write e.g. --{spec.name}={spec.choices[0]}.")
    return raw


def _parse_config(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """`name=value` lines as sysbench reads them, and the lines it silently ignores."""
    pairs: list[tuple[str, str]] = []
    ignored: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9_-]+)=(.*)", line.rstrip("\r\n"))
        if not m or line != line.lstrip():
            name = s.split("=", 1)[0].strip()
            shown = f"{name}={MASK}" if is_secret_name(name) else s
            ignored.append(f"line {n} `{shown}` (sysbench reads only `name=value` with no spaces and no leading --)")
            continue
        pairs.append((m.group(1), m.group(2)))
    return pairs, ignored


def _secret_values(tokens: list[str], config_text: Optional[str]) -> list[str]:
    """Every value that may be a password: of secret-named options (either form), env assignments and
    config lines. Used to scrub error messages as a last line of defence."""
    out: list[str] = []
    for i, tok in enumerate(tokens):
        m = re.match(r"^-{0,2}([A-Za-z0-9_.-]+)(=?)(.*)$", tok, re.S)
        if not m or not is_secret_name(m.group(1)):
            continue
        if m.group(2):
            out.append(m.group(3))
        elif tok.startswith("--") and i + 1 < len(tokens) and not tokens[i + 1].startswith("--"):
            out.append(tokens[i + 1])
    for line in (config_text or "").splitlines():
        name, eq, value = line.strip().partition("=")
        if eq and is_secret_name(name):
            out.append(value.strip())
    return sorted({v for v in out if v and v != MASK}, key=len, reverse=True)


def _scrub(text: Optional[str], secrets: list[str]) -> Optional[str]:
    if text is None:
        return None
    for v in secrets:
        text = text.replace(v, MASK)
    return text


def parse_command(text: str, config_text: Optional[str] = None, config_problem: Optional[str] = None) -> SysbenchCommand:
    """Parse a sysbench command line. `config_text` is the content of its --config-file when the caller
    could read it (else `config_problem` says why not). Raises UsageError (exit 2) for what sysbench
    would reject or misread badly enough that the checklist would be about the wrong run. No password
    reaches the result or an error message."""
    try:
        return _parse_command(text, config_text, config_problem)
    except UsageError as e:
        try:
            secrets = _secret_values(_tokenize(text), config_text)
        except UsageError:
            secrets = []
        raise UsageError(_scrub(e.message, secrets) or "", _scrub(e.tip, secrets)) from None


def _parse_command(text: str, config_text: Optional[str], config_problem: Optional[str]) -> SysbenchCommand:
    if not text or not text.strip():
        raise _err("the command is empty.", "pass the whole command, e.g. --sysbench \"sysbench oltp_read_write --threads=16 run\".")
    tokens = _tokenize(text)
    # the sysbench word: after env assignments and wrappers such as `time` or `numactl --interleave=all`
    idx = None
    for i, tok in enumerate(tokens):
        base = os.path.basename(tok)
        if base == "sysbench" or re.fullmatch(r"sysbench[-.0-9a-z]*", base) and not tok.startswith("-"):
            idx = i
            break
    if idx is None:
        first = _mask_token(tokens[0]) if tokens else ""
        raise _err(f"no `sysbench` word in the command (it starts with {first!r}).",
                   "pass the command exactly as you run it: --sysbench \"sysbench oltp_read_write --threads=16 run\".")
    prefix = [_mask_token(t) for t in tokens[:idx]]
    program = tokens[idx]
    args = tokens[idx + 1:]

    raw_opts: list[tuple[str, Optional[str], str, str]] = []  # (name, value, written, form)
    positionals: list[str] = []
    display_args: list[str] = []
    legacy_test: Optional[str] = None
    problems: list[str] = []
    notes: list[str] = []
    i = 0
    while i < len(args):
        tok = args[i]
        if tok.startswith("--") and len(tok) > 2:
            body = tok[2:]
            name, eq, value = body.partition("=")
            canon = _canonical(name)
            spec = ALL_OPTIONS.get(canon)
            secret = is_secret_name(name)
            written = f"--{name}={MASK}" if secret and eq else tok
            if name == "test" and eq:
                legacy_test = value
                notes.append(f"--test={value} is the deprecated 0.x/1.0 way to name the test; sysbench 1.0 still "
                             f"accepts it with a warning (write `sysbench {value} ...`).")
                display_args.append(tok)
                i += 1
                continue
            if not eq:
                nxt = args[i + 1] if i + 1 < len(args) else None
                takes_value = (spec is not None and spec.type not in ("bool", "ssl")) or (spec is None and secret)
                bool_word = spec is not None and spec.type in ("bool", "ssl") and nxt is not None and (
                    nxt in _BOOL_VALUES or nxt.lower() in SSL_MODES_11)
                if (takes_value or bool_word) and nxt is not None and not nxt.startswith("--"):
                    shown = MASK if secret else nxt
                    problems.append(f"`--{name} {shown}` is written with a space: sysbench reads only --{name}={shown} "
                                    f"and would take {shown!r} as the test name or command, then stop with "
                                    f"\"Unrecognized command line argument\".")
                    raw_opts.append((name, nxt, f"--{name} {shown}", "space"))
                    display_args += [tok, shown]
                    i += 2
                    continue
                raw_opts.append((name, None, tok, "bare"))
                display_args.append(tok)
                i += 1
                continue
            raw_opts.append((name, value, written, "eq"))
            display_args.append(written)
            i += 1
            continue
        positionals.append(tok)
        display_args.append(tok)
        i += 1

    display = " ".join(_quote(t) for t in prefix + [program] + display_args)

    # test and command
    if legacy_test is not None:
        test_written: Optional[str] = legacy_test
        command_tokens = positionals
    else:
        test_written = positionals[0] if positionals else None
        command_tokens = positionals[1:]
    if len(command_tokens) > 1:
        extra = command_tokens[1]
        raise _err(f"unexpected word {extra!r} after the command {command_tokens[0]!r}; sysbench takes one test and "
                   f"one command and stops with \"Unrecognized command line argument: {extra}\".",
                   "options need the --name=value form (a value after a space is read as a word).")
    command_written = command_tokens[0] if command_tokens else None
    if test_written is None:
        raise _err("the command names no test (sysbench would wait for a Lua script on standard input).",
                   "name the test, e.g. `sysbench oltp_read_write ... run`, or a script path.")

    test: Optional[str]
    kind: Literal["lua", "builtin", "custom", "unresolved"]
    if _is_shell_var(test_written):
        test, kind = None, "unresolved"
    elif "/" in test_written or test_written.endswith(".lua"):
        stem = os.path.basename(test_written)
        stem = stem[:-4] if stem.endswith(".lua") else stem
        if stem in LUA_SCRIPTS:
            test, kind = stem, "lua"
        else:
            test, kind = stem, "custom"
    elif test_written in BUILTIN_TESTS:
        test, kind = test_written, "builtin"
    elif test_written in LUA_SCRIPTS:
        test, kind = test_written, "lua"
    else:
        close = difflib.get_close_matches(test_written, list(LUA_SCRIPTS) + list(BUILTIN_TESTS), n=2, cutoff=0.6)
        hint = f"Did you mean {' or '.join(close)}? " if close else ""
        raise _err(f"unknown test {test_written!r}: not a built-in test ({', '.join(BUILTIN_TESTS)}) nor a bundled "
                   f"Lua script ({', '.join(k for k in LUA_SCRIPTS if k != 'oltp_common')}); sysbench stops with "
                   f"\"Cannot find benchmark\".",
                   f"{hint}For your own script pass its path (./my_test.lua).")

    command: Optional[str] = None
    command_unresolved: Optional[str] = None
    if command_written is None:
        raise _err(f"no command after the test {test_written!r} (sysbench stops: \"Command is required\").",
                   "add prepare, run or cleanup at the end (prewarm too for the OLTP scripts).")
    if _is_shell_var(command_written):
        command_unresolved = command_written
    else:
        if kind == "builtin":
            allowed = BUILTIN_COMMANDS[test]  # type: ignore[index]
        elif kind == "lua" and test == "oltp_common":
            # oltp_common.lua defines prepare/prewarm/cleanup for the others; `run` fails in its init()
            # ("this script is meant to be included by other OLTP scripts", sysbench 1.0.20)
            allowed = ("prepare", "prewarm", "warmup", "cleanup", "help")
        elif kind == "lua":
            allowed = OLTP_COMMANDS_10 + OLTP_COMMANDS_11 if LUA_SCRIPTS[test][0] else ("prepare", "run", "cleanup", "help")  # type: ignore[index]
        else:
            allowed = None  # a custom script defines its own commands
        if allowed is not None and command_written not in allowed:
            close = difflib.get_close_matches(command_written, list(allowed), n=1, cutoff=0.6)
            hint = f"Did you mean {close[0]}? " if close else ""
            raise _err(f"{test} has no command {command_written!r} (sysbench stops: \"Unknown command\"); it has "
                       f"{', '.join(allowed)}.", f"{hint}The command comes last: `sysbench {test} [options] run`.")
        command = command_written

    # options: catalogue for this test
    if kind == "builtin":
        known = dict(CORE_OPTIONS)  # builtin tests' own options (fileio-*, cpu-max-prime, ...) are not modelled
        lenient = True
    elif kind == "lua":
        known = dict(CORE_OPTIONS)
        if LUA_SCRIPTS[test][0]:  # type: ignore[index]
            known.update(OLTP_OPTIONS)
            known.update({o.name: o for o in _SCRIPT_EXTRA.get(test, [])})  # type: ignore[arg-type]
        lenient = False
    else:
        known = dict(ALL_OPTIONS)
        lenient = True

    cmd = SysbenchCommand(display=display, program=program, test=test, test_written=test_written, test_kind=kind,
                          command=command, command_unresolved=command_unresolved, problems=problems, notes=notes,
                          legacy_test_option=legacy_test is not None)

    def add(name: str, raw: Optional[str], written: str, form: str, source: str) -> None:
        canon = _canonical(name)
        spec = known.get(canon)
        if is_secret_name(name) and raw is not None:
            cmd.password_given = True
        if spec is None:
            if kind == "lua" and canon in ALL_OPTIONS:
                owner = ALL_OPTIONS[canon].scope
                raise _err(f"--{name}: {test} has no option --{canon} (it is an option of {owner}); sysbench "
                           "stops with \"invalid option\".", f"`sysbench {test} help` lists the options.")
            if not lenient:
                cands = sorted(known)
                raise _err(f"--{name}: sysbench has no option --{name}; it stops with \"invalid option\"."
                           f"{_suggest(canon, cands)}",
                           f"`sysbench {test} help` lists the options; names are case-sensitive.")
            value: Value = MASK if is_secret_name(name) else raw
            cmd.options[canon] = Option(canon, written, None if is_secret_name(name) else raw, value,
                                        source, form, known=False)  # type: ignore[arg-type]
            if kind == "builtin":
                cmd.notes.append(f"--{name} is not checked: the options of the built-in {test} test are not modelled.")
            return
        typed = _typed(spec, raw, written)
        if spec.secret:
            typed = MASK if not isinstance(typed, Unresolved) else typed
        keep_raw = None if spec.secret else raw
        cmd.options[canon] = Option(canon, written, keep_raw, typed, source, form)  # type: ignore[arg-type]
        if spec.alias_of:
            cmd.notes.append(f"--{canon} is a deprecated alias of --{spec.alias_of} (sysbench 1.0 only).")

    for name, raw, written, form in raw_opts:
        add(name, raw, written, form, "command line")

    cfg = cmd.options.get("config-file")
    if cfg is not None:
        cmd.config_file = str(cfg.value)
        if config_text is None:
            cmd.config_problem = config_problem or "not read"
        else:
            cmd.config_read = True
            pairs, ignored = _parse_config(config_text)
            for line in ignored:
                cmd.problems.append(f"config file {cmd.config_file}: {line}; sysbench ignores it silently.")
            for name, raw in pairs:
                canon = _canonical(name)
                if canon in cmd.options:
                    continue  # the command line wins (checked with sysbench 1.0.20)
                if canon not in known and not lenient:
                    shown = f"{name}={MASK}" if is_secret_name(name) else f"{name}={raw}"
                    cmd.problems.append(f"config file {cmd.config_file}: `{shown}` is not an option of {test}; "
                                        "sysbench ignores it silently.")
                    continue
                written = f"{name}={MASK}" if is_secret_name(name) else f"{name}={raw}"
                add(name, raw, f"{written} (in {cmd.config_file})", "eq", "config file")
    return cmd


# ---------------------------------------------------------------- this machine's sysbench (I/O)

@dataclass(frozen=True)
class LocalSysbench:
    """The sysbench binary on the machine running the checklist, if any, and its MySQL client library."""

    path: Optional[str] = None
    version: Optional[str] = None            # "1.0.20", "1.1.0-ead2689"
    library: Optional[str] = None            # libmariadb | libmysqlclient | libperconaserverclient
    library_file: Optional[str] = None       # "libmariadb.so.3"
    library_version: Optional[str] = None    # mysql_get_client_info(): "3.3.20", "8.0.36"
    reason: str = ""                         # what could not be found, and why

    @property
    def era(self) -> Optional[str]:
        return era_of_version(self.version)

    def describe(self) -> str:
        if not self.path:
            return f"no sysbench on this machine ({self.reason})" if self.reason else "no sysbench on this machine"
        lib = self.library_file or "an unknown client library"
        if self.library_version:
            lib += f" {self.library_version}"
        return f"sysbench {self.version or '(version unknown)'} at {self.path}, linked against {lib}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "version": self.version, "library": self.library, "library_file": self.library_file,
                "library_version": self.library_version, "reason": self.reason}


def era_of_version(version: Optional[str]) -> Optional[str]:
    if not version:
        return None
    m = re.match(r"(\d+)\.(\d+)", version)
    if not m:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    if (major, minor) <= (1, 0):
        return "1.0"
    return "1.1"


def parse_version_output(text: str) -> Optional[str]:
    """`sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)` -> '1.0.20'; `sysbench 1.1.0-ead2689` -> '1.1.0-ead2689'."""
    m = re.search(r"sysbench\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?(?:-[0-9A-Za-z.]+)?)", text)
    return m.group(1) if m else None


def parse_ldd(text: str) -> tuple[Optional[str], Optional[str], Optional[str]]:
    """(library, file, resolved path) of the MySQL-protocol client library in `ldd` output."""
    for line in text.splitlines():
        m = re.match(r"\s*((lib(mariadb|mysqlclient|perconaserverclient))[^\s]*\.so[^\s]*)\s*(?:=>\s*(\S+))?", line)
        if m:
            path = m.group(4) if m.group(4) and m.group(4) != "not" else None
            return m.group(2), m.group(1), path
    return None, None, None


_CLIENT_INFO = ("import ctypes,sys\nl=ctypes.CDLL(sys.argv[1])\nf=l.mysql_get_client_info\nf.restype=ctypes.c_char_p\n"
                "print(f().decode())\n")


def read_local_sysbench(program: Optional[str] = None, timeout: float = 5.0) -> LocalSysbench:
    """Find sysbench (the command's own path when it exists, else PATH) and read its version and client
    library: `sysbench --version`, `ldd`, and mysql_get_client_info() from the library (in a child
    process). Never raises: what is missing goes into `reason`."""
    import shutil
    import subprocess
    import sys

    path = None
    if program and os.sep in program and os.access(program, os.X_OK):
        path = program
    else:
        path = shutil.which(program if program and os.sep not in program else "sysbench")
    if path is None:
        return LocalSysbench(reason="sysbench is not on this machine's PATH; if it runs on another host, check there")
    reasons: list[str] = []
    version = None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=timeout)
        version = parse_version_output(out.stdout + out.stderr)
        if version is None:
            reasons.append(f"`{path} --version` printed no version")
    except (OSError, subprocess.SubprocessError) as e:
        reasons.append(f"`{path} --version` failed: {e}")
    library = lib_file = lib_path = lib_version = None
    try:
        out = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=timeout)
        library, lib_file, lib_path = parse_ldd(out.stdout)
        if library is None:
            reasons.append("`ldd` shows no libmysqlclient/libmariadb (statically linked, or not a dynamic binary)")
    except (OSError, subprocess.SubprocessError) as e:
        reasons.append(f"`ldd {path}` failed: {e}")
    if lib_path:
        try:
            out = subprocess.run([sys.executable, "-S", "-I", "-c", _CLIENT_INFO, lib_path], capture_output=True, text=True,
                                 timeout=timeout)
            v = out.stdout.strip()
            if out.returncode == 0 and re.match(r"\d+\.\d+", v):
                lib_version = v
            else:
                reasons.append(f"mysql_get_client_info() of {lib_path} could not be read")
        except (OSError, subprocess.SubprocessError) as e:
            reasons.append(f"reading the version of {lib_path} failed: {e}")
    return LocalSysbench(path=path, version=version, library=library, library_file=lib_file,
                         library_version=lib_version, reason="; ".join(reasons))


def read_config_file(path: str, cwd: Optional[str] = None) -> tuple[Optional[str], Optional[str]]:
    """(text, None) or (None, why not) for a --config-file named in the command, relative to `cwd`."""
    from pathlib import Path

    p = Path(path)
    if not p.is_absolute():
        p = Path(cwd or os.getcwd()) / p
    if _is_shell_var(path):
        return None, f"the path is the shell expression {path}"
    try:
        return p.read_text(encoding="utf-8", errors="replace"), None
    except FileNotFoundError:
        return None, f"{p} does not exist here (run the checklist in the directory you run sysbench from)"
    except OSError as e:
        return None, f"{p}: {e.strerror}"


# ---------------------------------------------------------------- checks against the server (pure)

# Bytes per sbtest row in InnoDB, data + indexes, measured here (docs/checklist.md, "Row size"):
# sysbench 1.0.20 `oltp_read_write --tables=1 --table-size=1000000 prepare` on MariaDB 10.11.19 (16 KiB
# pages, DYNAMIC rows), then ANALYZE TABLE: data_length 225,132,544 + index_length 16,269,312 bytes
# = 241.4 B/row (100,000 rows: 241.8). Derivation: 5 B record header + 6 B DB_TRX_ID + 7 B DB_ROLL_PTR +
# 4 B id + 4 B k + 120 B c + 60 B pad = 206 B; 73 rows per 16 KiB leaf page (InnoDB leaves 1/16 free
# when it fills pages in key order) -> 224.5 B/row in the clustered index; the secondary index k
# (k + id + header, built sorted by CREATE INDEX after the load) adds 16.3 B/row.
SBTEST_ROW_BYTES = 241
SBTEST_K_INDEX_BYTES = 16
MIN_RUN_SECONDS = 60
_LOOPBACK_NAMES = ("localhost", "::1")


def _is_loopback(host: str) -> bool:
    return host in _LOOPBACK_NAMES or host.startswith("127.")


def _fmt_int(n: int) -> str:
    return f"{n:,}"


def _size(n: float) -> str:
    from advisor.units import format_size

    return format_size(n)


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def dataset_bytes(tables: int, table_size: int, secondary: bool = True) -> int:
    """Estimated InnoDB bytes (data + indexes) of `tables` sbtest tables of `table_size` rows."""
    per_row = SBTEST_ROW_BYTES if secondary else SBTEST_ROW_BYTES - SBTEST_K_INDEX_BYTES
    return tables * table_size * per_row


def tls_check_howto(view: Any) -> str:
    """How to see, during the run, whether sysbench's connections are encrypted on this server."""
    from advisor.rules.facts import Unknown

    flavor = view.snapshot.target.flavor
    ps = view.flag("var.performance_schema")
    if flavor in ("mysql", "percona") and ps is True:
        return ("During the run, `SELECT thread_id, ssl_version, ssl_cipher FROM sys.session_ssl_status` (built on "
                "performance_schema.status_by_thread) lists each connection's TLS version; empty means plain text.")
    if flavor == "tidb":
        return ("From the client host, connect with the same client library and options and run "
                "`SHOW SESSION STATUS LIKE 'Ssl_cipher'` (empty means plain text).")
    why = "performance_schema is off here" if ps is False else (
        "performance_schema state is unknown" if isinstance(ps, Unknown) else "per-connection TLS status is limited")
    return ("Run `SHOW GLOBAL STATUS LIKE 'Ssl_accepts'` before and during the run: it counts TLS handshakes, so it "
            f"grows by the number of threads if sysbench uses TLS and stays put if not ({why}, so per-connection "
            "status is not available).")


def sysbench_items(cmd: SysbenchCommand, view: Any, local: Optional[LocalSysbench]) -> list[Any]:
    """Checklist items for a sysbench command against the snapshot in `view` (a FactView, purpose
    benchmark). Pure: `local` is what read_local_sysbench found."""
    import advisor.rules.derived  # noqa: F401  (registers the derived facts read below)
    from advisor.checklist import _era

    era, era_why = _era(cmd, local)
    items = [_check_command_line(cmd, local)]
    if not cmd.is_database_test:
        return items
    c = cmd.effective_command
    items.append(_check_target(cmd, view))
    if c in ("cleanup", "help"):
        return items
    items.append(_check_route(cmd, view))
    items.append(_check_client_cpu(cmd, view))
    items.append(_check_max_connections(cmd, view))
    items.append(_check_tls(cmd, view, local, era, era_why))
    if cmd.uses_sbtest or cmd.test_kind == "custom":
        ds = _check_dataset(cmd, view, era, era_why)
        if ds is not None:
            items.append(ds)
    if c in (None, "run", "prewarm") and cmd.uses_sbtest:
        items.append(_check_prepared(cmd, view))
    if c in (None, "run"):
        items.append(_check_rand_type(cmd, era, era_why))
        items.append(_check_duration(cmd))
        items.append(_check_warmup(cmd, era, local))
        items.append(_check_report_interval(cmd))
    elif c == "prewarm":
        from advisor.checklist import Item

        items.append(Item(id="sysbench-warmup", phase="run", status="pass", title="Warm up before the measured run",
                          evidence=f"this command is the warm-up: `{cmd.command}` runs ANALYZE TABLE and reads the "
                                   "primary key and the k index of every table (sysbench 1.0.20 oltp_common.lua).",
                          fix="Run it the same way before every measured run."))
    return items


def _item(**kw: Any) -> Any:
    from advisor.checklist import Item

    return Item(**kw)


def _check_command_line(cmd: SysbenchCommand, local: Optional[LocalSysbench]) -> Any:
    problems = list(cmd.problems)
    lera = local.era if local is not None else None
    if lera is not None:
        bad = [o for n, o in cmd.options.items() if o.known and lera not in ALL_OPTIONS[n].eras]
        for o in bad:
            problems.append(f"{o.written}: sysbench {local.version} on this machine has no --{o.name} "  # type: ignore[union-attr]
                            f"(only {' and '.join(ALL_OPTIONS[o.name].eras)}) and stops with \"invalid option\".")
        ssl = cmd.options.get("mysql-ssl")
        if ssl is not None and isinstance(ssl.value, str):
            if lera == "1.0" and ssl.value in SSL_MODES_11:
                problems.append(f"{ssl.written}: sysbench {local.version} takes --mysql-ssl=on|off only and stops "  # type: ignore[union-attr]
                                "with \"invalid option\".")
            if lera == "1.1" and local.library in ("libmysqlclient", "libperconaserverclient") and \
                    ssl.value in ("on", "off"):  # type: ignore[union-attr]
                problems.append(f"{ssl.written}: sysbench {local.version} built with {local.library} takes an SSL "  # type: ignore[union-attr]
                                f"mode ({', '.join(SSL_MODES_11)}) and stops with \"Invalid value for --mysql-ssl\".")
        if cmd.command == "warmup" and lera == "1.0":
            problems.append(f"sysbench {local.version} has no `warmup` command (1.0 calls it `prewarm`).")  # type: ignore[union-attr]
    driver = cmd.get("db-driver")
    if driver == "pgsql" and cmd.is_database_test:
        problems.append("--db-driver=pgsql: sysbench will talk to PostgreSQL (--pgsql-host), not to this server.")
    unchecked = sorted(o.written for o in cmd.options.values() if not o.known)
    facts: dict[str, Any] = {"command": cmd.display}
    if cmd.config_file and not cmd.config_read:
        return _item(id="sysbench-command-line", phase="run", status="unknown",
                     title="sysbench reads the command line as intended",
                     evidence=f"options may come from the config file {cmd.config_file}, which could not be read "
                              f"({cmd.config_problem}); only the command line was checked"
                              + (": " + " ".join(problems) if problems else "."),
                     fix="Run the checklist in the directory you run sysbench from, so the config file is read.",
                     facts=facts)
    if problems:
        return _item(id="sysbench-command-line", phase="run", status="fail",
                     title="sysbench reads the command line as intended", evidence=" ".join(problems),
                     fix="Write every option as --name=value with no spaces, use only options this sysbench has "
                         "(`sysbench <test> help` lists them), and check the config file's lines.", facts=facts)
    notes = (" " + " ".join(n for n in cmd.notes if "is not checked" not in n)) if cmd.notes else ""
    if unchecked:
        notes += (f" The options {', '.join(unchecked)} belong to {cmd.test or cmd.test_written} itself and were not "
                  "checked.")
    known = "every option is written as --name=value" + (
        f" and exists for {cmd.test or cmd.test_written}" if not unchecked else "")
    return _item(id="sysbench-command-line", phase="run", status="pass",
                 title="sysbench reads the command line as intended",
                 evidence=known + (f" (checked against sysbench {local.version} here)" if local and local.version else "")
                          + "." + notes, facts=facts)


def _target_of(view: Any) -> str:
    t = view.snapshot.target
    return f"{t.host}:{t.port}" if t.transport == "tcp" else f"socket {t.socket}"


def _check_target(cmd: SysbenchCommand, view: Any) -> Any:
    t = view.snapshot.target
    hosts, ports, sock = cmd.hosts(), cmd.ports(), cmd.socket()
    title = "sysbench connects to the server this checklist is about"
    unresolved = [x for x in hosts + ports if isinstance(x, Unresolved)] + ([sock] if isinstance(sock, Unresolved) else [])
    facts = {"sysbench_hosts": [str(h) for h in hosts], "sysbench_ports": [str(p) for p in ports],
             "snapshot_target": _target_of(view)}
    fix = ("Point the checklist at the server sysbench uses (same host and port), or confirm that the address "
           "sysbench uses (a proxy or load balancer) leads to this server.")
    if unresolved:
        return _item(id="sysbench-target", phase="environment", status="unknown", title=title,
                     evidence=f"sysbench's address is {unresolved[0].why}; the checklist describes {_target_of(view)}.",
                     fix=fix + " Pass the command with the shell variables expanded.", facts=facts)
    if sock or (len(hosts) == 1 and hosts[0] == "localhost"):
        where = f"the Unix socket {sock}" if sock else "localhost, which the MySQL client libraries reach through the default Unix socket"
        if t.transport == "socket" and sock and t.socket == sock:
            return _item(id="sysbench-target", phase="environment", status="pass", title=title,
                         evidence=f"sysbench and the snapshot both use the socket {sock}.", facts=facts)
        return _item(id="sysbench-target", phase="environment", status="unknown", title=title,
                     evidence=f"sysbench connects to {where}; the checklist describes {_target_of(view)}; whether "
                              "they are the same server cannot be told from here.", fix=fix, facts=facts)
    same = []
    for h in hosts:
        for p in ports:
            ok_host = (str(h) == t.host) or (_is_loopback(str(h)) and t.host is not None and _is_loopback(t.host))
            same.append(t.transport == "tcp" and ok_host and int(p) == t.port)  # type: ignore[arg-type]
    if all(same):
        return _item(id="sysbench-target", phase="environment", status="pass", title=title,
                     evidence=f"sysbench connects to {', '.join(f'{h}:{p}' for h in hosts for p in ports)}, the server "
                              f"in this snapshot ({_target_of(view)}).", facts=facts)
    return _item(id="sysbench-target", phase="environment", status="unknown", title=title,
                 evidence=f"sysbench connects to {', '.join(f'{h}:{p}' for h in hosts for p in ports)} but the checklist "
                          f"describes {_target_of(view)}; if that is a proxy, load balancer or another name for the "
                          "same server the items hold, otherwise they describe a different server.",
                 fix=fix, facts=facts)


def _check_route(cmd: SysbenchCommand, view: Any) -> Any:
    title = "sysbench's network path to the server is not the bottleneck"
    hosts, sock = cmd.hosts(), cmd.socket()
    c = view.snapshot.client
    if isinstance(sock, Unresolved) or any(isinstance(h, Unresolved) for h in hosts):
        bad = sock if isinstance(sock, Unresolved) else next(h for h in hosts if isinstance(h, Unresolved))
        return _item(id="sysbench-route", phase="environment", status="unknown", title=title,
                     evidence=f"the route cannot be looked up: {bad.why}.",  # type: ignore[union-attr]
                     fix="Check on the client: `ip route get <server address>` names the interface, and "
                         "`cat /sys/class/net/<interface>/speed` its link speed (Mb/s).")
    if sock or hosts == ["localhost"]:
        return _item(id="sysbench-route", phase="environment", status="pass", title=title,
                     evidence="sysbench connects through a local Unix socket (--mysql-host=localhost or "
                              "--mysql-socket): no NIC is involved, but client and server share this host's CPUs.")
    if all(_is_loopback(str(h)) for h in hosts):
        return _item(id="sysbench-route", phase="environment", status="pass", title=title,
                     evidence=f"sysbench connects over loopback ({', '.join(map(str, hosts))}): no NIC is involved, but "
                              "client and server share this host's CPUs.")
    fix = ("Connect sysbench to the server's address on its fastest network (`ip route get <address>` on the client "
           "must name the fast interface); watch /sys/class/net/<if>/statistics/tx_bytes during the run.")
    if c is None or c.route is None:
        reason = view.get("client.route")
        why = getattr(reason, "reason", "the client's network path was not collected")
        return _item(id="sysbench-route", phase="environment", status="unknown", title=title,
                     evidence=f"sysbench connects to {', '.join(map(str, hosts))}; the route and link speed are unknown: "
                              f"{why}.",
                     fix="Check on the client: `ip route get " + str(hosts[0]) + "` names the interface and "
                         "`cat /sys/class/net/<interface>/speed` its speed in Mb/s; 1000 means about 118 MB/s of "
                         "payload at most. " + fix)
    r = c.route
    if r.destination not in [str(h) for h in hosts]:
        return _item(id="sysbench-route", phase="environment", status="unknown", title=title,
                     evidence=f"the snapshot has the route to {r.destination}, but sysbench connects to "
                              f"{', '.join(map(str, hosts))}.",
                     fix=f"Check `ip route get {hosts[0]}` on the client. " + fix)
    facts = {"interface": r.interface, "speed_mbps": r.speed_mbps, "destination": r.destination}
    if r.kind in ("loopback", "socket"):
        return _item(id="sysbench-route", phase="environment", status="pass", title=title,
                     evidence=f"the route to {r.destination} is {r.kind}: no NIC is involved.", facts=facts)
    faster = [i for i in c.interfaces if i.name not in (r.interface, "lo") and (i.operstate or "up").lower() in ("up", "unknown")
              and i.speed_mbps and r.speed_mbps and i.speed_mbps > r.speed_mbps]
    if r.speed_mbps is None or r.speed_mbps <= 0:
        return _item(id="sysbench-route", phase="environment", status="unknown", title=title,
                     evidence=f"sysbench reaches {r.destination} through {r.interface}, which reports no link speed "
                              "(a virtual NIC?).", fix=fix, facts=facts)
    if faster:
        f = max(faster, key=lambda i: i.speed_mbps or 0)
        return _item(id="sysbench-route", phase="environment", status="fail", title=title,
                     evidence=f"sysbench reaches {r.destination} through {r.interface} at {r.speed_mbps:,} Mb/s while "
                              f"{f.name} is up at {f.speed_mbps:,} Mb/s; the routing table, not the speed, picks the "
                              "interface.", fix=fix, facts=facts)
    if r.speed_mbps <= 1000:
        return _item(id="sysbench-route", phase="environment", status="fail", title=title,
                     evidence=f"sysbench reaches {r.destination} through {r.interface} at {r.speed_mbps:,} Mb/s, at most "
                              "about 118 MB/s of TCP payload per direction; many threads or wide rows will measure "
                              "the link, not the server.", fix=fix, facts=facts)
    return _item(id="sysbench-route", phase="environment", status="pass", title=title,
                 evidence=f"sysbench reaches {r.destination} through {r.interface} at {r.speed_mbps:,} Mb/s, the fastest "
                          "up interface on the client.", facts=facts)


def _client_is_local(cmd: SysbenchCommand, view: Any) -> Optional[bool]:
    hosts, sock = cmd.hosts(), cmd.socket()
    if isinstance(sock, Unresolved) or any(isinstance(h, Unresolved) for h in hosts):
        return None
    if sock or all(_is_loopback(str(h)) for h in hosts):
        return True
    c = view.snapshot.client
    if c is not None and c.route is not None and c.route.destination in [str(h) for h in hosts]:
        return c.route.kind in ("loopback", "socket")
    return None


def _check_client_cpu(cmd: SysbenchCommand, view: Any) -> Any:
    from advisor.rules.facts import Unknown

    title = "sysbench threads and the server's CPUs"
    threads = cmd.get("threads")
    cpus = view.get("host.cpu.logical_count")
    if isinstance(threads, Unresolved):
        return _item(id="sysbench-client-cpu", phase="run", status="unknown", title=title,
                     evidence=f"the thread count is unknown: {threads.why}.")
    if isinstance(cpus, Unknown):
        return _item(id="sysbench-client-cpu", phase="run", status="unknown", title=title,
                     evidence=f"{threads} threads; the server's CPU count is unknown: {cpus.reason}.",
                     fix="Collect host facts on the server (its logical CPU count) and run the checklist again.",
                     facts={"threads": threads})
    local = _client_is_local(cmd, view)
    facts = {"threads": threads, "logical_cpus": cpus}
    per = threads / cpus if cpus else 0
    if local and threads > cpus:
        return _item(id="sysbench-client-cpu", phase="run", status="fail", title=title,
                     evidence=f"sysbench runs on the server host with {threads} threads for {cpus} logical CPUs; the "
                              "client's own CPU time comes out of the server's, so the result measures both.",
                     fix="Run sysbench from another host over a fast link (PingCAP runs it on a separate machine), or "
                         "pin client and server to separate CPUs (taskset/numactl) and say so in the report.",
                     facts=facts)
    where = ("sysbench runs on the server host" if local else
             "sysbench runs on another host" if local is False else "where sysbench runs is unknown")
    return _item(id="sysbench-client-cpu", phase="run", status="pass", title=title,
                 evidence=f"{threads} threads for {cpus} logical CPUs ({per:.1f} per CPU); {where}. Above about one "
                          "thread per CPU the run measures queueing and contention rather than single-query speed.",
                 facts=facts)


def _check_max_connections(cmd: SysbenchCommand, view: Any) -> Any:
    from advisor.rules.facts import Unknown

    title = "max_connections leaves room for every sysbench thread"
    threads = cmd.get("threads")
    mc = view.num("var.max_connections")
    if isinstance(threads, Unresolved):
        return _item(id="sysbench-max-connections", phase="server", status="unknown", title=title,
                     evidence=f"the thread count is unknown: {threads.why}"
                              + (f"; max_connections is {mc}" if not isinstance(mc, Unknown) else "") + ".",
                     fix="Pass the command with the thread count written out.")
    if isinstance(mc, Unknown):
        return _item(id="sysbench-max-connections", phase="server", status="unknown", title=title,
                     evidence=f"--threads={threads}; max_connections is unknown: {mc.reason}.")
    mc = int(mc)
    if view.snapshot.target.flavor == "tidb" and mc == 0:
        return _item(id="sysbench-max-connections", phase="server", status="pass", title=title,
                     evidence=f"--threads={threads}; max_connections is 0, which TiDB treats as no limit.",
                     facts={"threads": threads, "max_connections": 0})
    connected = view.num("status.Threads_connected")
    others = max(0, int(connected) - 1) if not isinstance(connected, Unknown) else 0
    room = mc - others
    muc = view.num("var.max_user_connections")
    muc = int(muc) if not isinstance(muc, Unknown) else 0
    facts = {"threads": threads, "max_connections": mc, "other_connections": others, "max_user_connections": muc}
    others_txt = (f"; {others} other connection{'s' if others != 1 else ''} were open when the snapshot was taken, "
                  f"leaving {room}" if others else "")
    if cmd.effective_command == "prepare":
        opens = f"--threads={threads} opens {threads} connections (prepare runs one connection per thread)"
    else:
        opens = f"--threads={threads} opens {threads} connections (one per thread)"
    need = threads + others + 10
    open_files = view.num("var.open_files_limit")
    of_txt = (f" open_files_limit is {int(open_files):,}; MySQL caps the effective max_connections by it "
              "(about open_files_limit − 810), so raise it too if needed."
              if not isinstance(open_files, Unknown) else "")
    if threads > room:
        return _item(id="sysbench-max-connections", phase="server", status="fail", title=title,
                     evidence=f"max_connections {mc} < {threads} threads: {opens}{others_txt}; the connections "
                              "beyond the limit fail with error 1040 \"Too many connections\" and sysbench stops.",
                     fix=f"Raise max_connections to at least {need} (SET GLOBAL max_connections = {need}; and in "
                         f"my.cnf for the next restart), or lower --threads to {max(1, room)} or less." + of_txt,
                     facts=facts)
    if muc and threads > muc:
        return _item(id="sysbench-max-connections", phase="server", status="fail", title=title,
                     evidence=f"max_user_connections {muc} < {threads} threads: {opens}, all as one user; the rest "
                              "fail with error 1203 and sysbench stops.",
                     fix=f"Set max_user_connections = 0 (no per-user limit) or at least {threads}.", facts=facts)
    return _item(id="sysbench-max-connections", phase="server", status="pass", title=title,
                 evidence=f"max_connections {mc} ≥ {threads} threads{others_txt}.", facts=facts)


def _check_tls(cmd: SysbenchCommand, view: Any, local: Optional[LocalSysbench], era: Optional[str],
               era_why: str) -> Any:
    from advisor.rules.facts import Unknown

    title = "TLS is on or off for sysbench's connections on purpose"
    howto = tls_check_howto(view)
    ssl = cmd.options.get("mysql-ssl")
    ssl_v = ssl.value if ssl is not None else cmd.get("mysql-ssl")
    offers = view.get("derived.server_offers_tls")
    facts: dict[str, Any] = {"mysql_ssl": str(ssl_v) if ssl is not None else None,
                             "server_offers_tls": None if isinstance(offers, Unknown) else offers,
                             "sysbench_version": local.version if local else None,
                             "client_library": (f"{local.library_file} {local.library_version or ''}".strip()
                                                if local and local.library_file else None)}
    if isinstance(ssl_v, Unresolved):
        return _item(id="sysbench-tls", phase="run", status="unknown", title=title,
                     evidence=f"--mysql-ssl is not known: {ssl_v.why}.", fix=howto, facts=facts)
    sock = cmd.socket()
    if sock or cmd.hosts() == ["localhost"]:
        return _item(id="sysbench-tls", phase="run", status="unknown", title=title,
                     evidence="sysbench connects through a Unix socket; whether its client library encrypts socket "
                              "connections when TLS was not asked for is not established here.", fix=howto, facts=facts)
    asked = ssl is not None and ssl_v in ("on", "preferred", "required", "verify_ca", "verify_identity")
    refused = ssl is not None and ssl_v in ("off", "disabled")
    if isinstance(offers, Unknown):
        return _item(id="sysbench-tls", phase="run", status="unknown", title=title,
                     evidence=f"whether the server offers TLS is unknown: {offers.reason}.", fix=howto, facts=facts)
    if asked:
        if not offers:
            return _item(id="sysbench-tls", phase="run", status="fail", title=title,
                         evidence=f"{ssl.written} asks for TLS but the server offers none (have_ssl is not YES): "  # type: ignore[union-attr]
                                  "sysbench's connections will fail.",
                         fix="Drop --mysql-ssl, or configure ssl_cert/ssl_key/ssl_ca on the server.", facts=facts)
        extra = (" sysbench 1.0.x with --mysql-ssl=on reads cacert.pem, client-cert.pem and client-key.pem from its "
                 "working directory." if ssl_v == "on" else "")
        return _item(id="sysbench-tls", phase="run", status="pass", title=title,
                     evidence=f"{ssl.written} asks for TLS and the server offers it: the run is encrypted by choice; "  # type: ignore[union-attr]
                              "state it in the report (on this project's 2-core VM TLS cost 28–33% of point-select "
                              "and read-only throughput, docs/checklist.md)." + extra, fix=howto, facts=facts)
    if not offers:
        return _item(id="sysbench-tls", phase="run", status="pass", title=title,
                     evidence="the server offers no TLS (have_ssl is not YES), so sysbench connects in plain text "
                              "whatever its client library.", facts=facts)
    if refused and (ssl_v == "disabled" or era == "1.1"):
        return _item(id="sysbench-tls", phase="run", status="pass", title=title,
                     evidence=f"{ssl.written}: sysbench 1.1 sets SSL_MODE_DISABLED, so its connections are plain "  # type: ignore[union-attr]
                              "text although the server offers TLS.", fix=howto, facts=facts)
    # The server offers TLS and sysbench did not ask for it (no --mysql-ssl, or --mysql-ssl=off on 1.0.x):
    # the client library's default decides (KNOWLEDGE.md §1.2, §1.3, §9).
    said = f"{ssl.written}" if ssl is not None else "no --mysql-ssl"
    lib = local.library if local is not None else None
    libv = local.library_version if local is not None else None
    where = local.describe() if local is not None and local.path else None
    fix_off = ("To compare like with like, decide: plain text (sysbench 1.1: --mysql-ssl=disabled; 1.0.x with "
               "libmysqlclient: disable TLS on the benchmark server, since 1.0.x cannot turn it off) or TLS "
               "everywhere (--mysql-ssl=on / required). " + howto)
    if lib is None:
        why = (local.reason if local is not None and local.reason else "sysbench was not inspected")
        return _item(id="sysbench-tls", phase="run", status="unknown", title=title,
                     evidence=f"the server offers TLS and the command has {said}; then the client library decides: "
                              "sysbench 1.0.x sets no SSL mode, so when linked against libmysqlclient ≥ 5.7.11 it "
                              "uses TLS whenever the server offers it (PREFERRED), while Debian's sysbench 1.0.20 "
                              "links libmariadb (3.3), which does not; sysbench 1.1 with libmysqlclient defaults to "
                              f"disabled. Which library the sysbench that runs the benchmark uses is unknown ({why}).",
                     fix="On the client run `ldd $(command -v sysbench) | grep -E 'libmysqlclient|libmariadb|"
                         "libperconaserverclient'` and `sysbench --version`. " + fix_off, facts=facts)
    if lib == "libmariadb":
        v = _version_tuple(libv)
        if v is None:
            return _item(id="sysbench-tls", phase="run", status="unknown", title=title,
                         evidence=f"{where}; the server offers TLS and the command has {said}. libmariadb before 3.4 "
                                  "does not start TLS unless asked; 3.4 and later enable it by default (sysbench commit "
                                  "80de759). The library's version could not be read.", fix=fix_off, facts=facts)
        if v < (3, 4):
            return _item(id="sysbench-tls", phase="run", status="pass", title=title,
                         evidence=f"{where}: libmariadb {libv} does not start TLS unless asked, so with {said} the "
                                  "connections are plain text although the server offers TLS (measured here: "
                                  "Ssl_accepts stays put during such a run).", fix=howto, facts=facts)
        return _item(id="sysbench-tls", phase="run", status="fail", title=title,
                     evidence=f"{where}: libmariadb {libv} enables TLS by default (sysbench commit 80de759: \"The new "
                              f"libmariadb defaults to enabling SSL\"), so with {said} the run is encrypted without "
                              "anyone having asked for it.", fix=fix_off, facts=facts)
    # libmysqlclient / libperconaserverclient
    if era is None:
        return _item(id="sysbench-tls", phase="run", status="unknown", title=title,
                     evidence=f"{where}; the server offers TLS and the command has {said}. With {lib}, sysbench "
                              "1.0.x uses TLS (it sets no SSL mode, so the library's PREFERRED applies) and sysbench "
                              f"1.1 does not (default --mysql-ssl=disabled); which one runs is unknown ({era_why}).",
                     fix="Check `sysbench --version` on the client. " + fix_off, facts=facts)
    if era == "1.1":
        return _item(id="sysbench-tls", phase="run", status="pass", title=title,
                     evidence=f"{where}: sysbench 1.1 built with {lib} defaults to --mysql-ssl=disabled, so the "
                              "connections are plain text although the server offers TLS.", fix=howto, facts=facts)
    v = _version_tuple(libv)
    if v is not None and v < (5, 7, 11):
        return _item(id="sysbench-tls", phase="run", status="unknown", title=title,
                     evidence=f"{where}: {lib} {libv} predates --ssl-mode (5.7.11); whether it tries TLS by default "
                              "is not established here.", fix=howto, facts=facts)
    return _item(id="sysbench-tls", phase="run", status="fail", title=title,
                 evidence=f"{where}: sysbench 1.0.x sets no SSL mode with {said}, and {lib} "
                          f"{libv or '(≥ 5.7.11 assumed)'} then defaults to PREFERRED, so every sysbench connection "
                          "negotiates TLS with this server without anyone having asked for it (docs/checklist.md, TLS).",
                 fix=fix_off, facts=facts)


def _version_tuple(v: Optional[str]) -> Optional[tuple[int, ...]]:
    if not v:
        return None
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", v)
    if not m:
        return None
    return tuple(int(x) for x in m.groups() if x is not None)


def _check_dataset(cmd: SysbenchCommand, view: Any, era: Optional[str], era_why: str) -> Any:
    from advisor.rules.facts import Unknown

    title = "The dataset fits the buffer pool (or the I/O-bound test is deliberate)"
    if cmd.test_kind == "custom":
        return _item(id="sysbench-dataset", phase="data", status="unknown", title=title,
                     evidence=f"{cmd.test} is a custom script; its tables and row sizes are not known.",
                     fix="Compare the data size after prepare (information_schema.TABLES data_length + index_length) "
                         "with innodb_buffer_pool_size.")
    tables, size = cmd.get("tables"), cmd.get("table-size")
    bad = next((x for x in (tables, size) if isinstance(x, Unresolved)), None)
    if bad is not None:
        return _item(id="sysbench-dataset", phase="data", status="unknown", title=title,
                     evidence=f"the dataset size is unknown: {bad.why}.")  # type: ignore[union-attr]
    engine = cmd.get("mysql-storage-engine")
    if isinstance(engine, str) and engine.lower() != "innodb":
        return _item(id="sysbench-dataset", phase="data", status="unknown", title=title,
                     evidence=f"--mysql-storage-engine={engine}: the per-row estimate is for InnoDB.")
    secondary = cmd.get("create-secondary")
    est = dataset_bytes(int(tables), int(size), secondary is not False)  # type: ignore[arg-type]
    per_row = SBTEST_ROW_BYTES if secondary is not False else SBTEST_ROW_BYTES - SBTEST_K_INDEX_BYTES
    shape = f"{tables} table{'s' if tables != 1 else ''} × {_fmt_int(int(size))} rows × ~{per_row} B/row ≈ {_size(est)} ({_gb(est)})"  # type: ignore[arg-type]
    facts: dict[str, Any] = {"tables": tables, "table_size": size, "bytes_per_row": per_row, "dataset_bytes": est}
    if view.snapshot.target.flavor == "tidb":
        return _item(id="sysbench-dataset", phase="data", status="unknown", title=title,
                     evidence=f"{shape} of InnoDB-format data; TiDB stores it in TiKV (compressed RocksDB), whose "
                              "block cache (storage.block-cache.capacity) the advisor does not read.", facts=facts)
    bp = view.num("var.innodb_buffer_pool_size")
    if isinstance(bp, Unknown):
        return _item(id="sysbench-dataset", phase="data", status="unknown", title=title,
                     evidence=f"{shape}; innodb_buffer_pool_size is unknown: {bp.reason}.", facts=facts)
    bp = int(bp)
    facts["innodb_buffer_pool_size"] = bp
    rand = cmd.get("rand-type", era)
    hot = ""
    if rand == "special":
        hot = (" With --rand-type=special" + ("" if cmd.given("rand-type") else " (the 1.0.x default)") +
               " 75% of the accesses go to 1% of the rows, so the hit rate is higher than the sizes suggest, but "
               "every miss is still a disk read.")
    elif rand == "uniform":
        hot = " With --rand-type=uniform every row is equally likely, so the hit rate is about the cached share."
    mem = view.get("derived.memory_limit_bytes")
    if est > bp:
        ratio = est / bp
        fit_rows = int(bp * 0.8 / (int(tables) * per_row))  # type: ignore[arg-type]
        target_bp = -(-int(est * 1.1) // (1 << 30)) * (1 << 30)
        mem_txt = (f" (this host has {_size(mem)} of memory for the server; keep the buffer pool within about 75–80% "
                   "of it)" if not isinstance(mem, Unknown) else "")
        size_txt = (f", or use --table-size={_fmt_int(fit_rows).replace(',', '')} or less to stay in memory with "
                    f"{_size(bp)}" if fit_rows >= 1 else "")
        cmd_word = cmd.effective_command or "run"
        verb = "the prepared data will be" if cmd_word == "prepare" else "the data is"
        return _item(id="sysbench-dataset", phase="data", status="fail", title=title,
                     evidence=f"{shape} against innodb_buffer_pool_size {_size(bp)}: {verb} {ratio:,.0f}× the buffer "
                              f"pool, so the run is I/O-bound (reads come from disk or the OS page cache, not the "
                              f"buffer pool).{hot}",
                     fix=f"For an in-memory test set innodb_buffer_pool_size to at least {_size(target_bp)}{mem_txt}"
                         f"{size_txt}. If I/O-bound is the point, say so in the report and keep dataset and buffer "
                         "pool the same for every run.", facts=facts)
    return _item(id="sysbench-dataset", phase="data", status="pass", title=title,
                 evidence=f"{shape} fits in innodb_buffer_pool_size {_size(bp)} ({est / bp:.0%} of it): the run is "
                          "in-memory once the buffer pool is warm.", facts=facts)


def _check_prepared(cmd: SysbenchCommand, view: Any) -> Any:
    from advisor.rules.facts import Unknown

    title = "The data is prepared at the size the run expects"
    tables, size = cmd.get("tables"), cmd.get("table-size")
    bad = next((x for x in (tables, size) if isinstance(x, Unresolved)), None)
    if bad is not None:
        return _item(id="sysbench-data-prepared", phase="data", status="unknown", title=title,
                     evidence=f"the expected size is unknown: {bad.why}.")  # type: ignore[union-attr]
    est = dataset_bytes(int(tables), int(size), cmd.get("create-secondary") is not False)  # type: ignore[arg-type]
    have = view.get("derived.innodb_data_bytes")
    prep = _prepare_line(cmd)
    if isinstance(have, Unknown):
        return _item(id="sysbench-data-prepared", phase="data", status="unknown", title=title,
                     evidence=f"the server's data size is unknown: {have.reason}.", command=prep)
    facts = {"innodb_user_data_bytes": have, "expected_bytes": est}
    if have < est / 2:
        return _item(id="sysbench-data-prepared", phase="data", status="fail", title=title,
                     evidence=f"the server holds {_size(have)} of InnoDB data in user schemas, less than half the "
                              f"≈ {_size(est)} that --tables={tables} --table-size={_fmt_int(int(size))} implies; the "  # type: ignore[arg-type]
                              "tables are missing or smaller than the run expects (sysbench would query rows that are not there).",
                     fix=f"Prepare the data with the same --tables and --table-size first: `{prep}`, then ANALYZE.",
                     facts=facts)
    return _item(id="sysbench-data-prepared", phase="data", status="pass", title=title,
                 evidence=f"the server holds {_size(have)} of InnoDB data in user schemas; the run expects ≈ {_size(est)}.",
                 facts=facts)


def _prepare_line(cmd: SysbenchCommand) -> str:
    from advisor.checklist import _with_command

    return _with_command(cmd, "prepare")


def _check_rand_type(cmd: SysbenchCommand, era: Optional[str], era_why: str) -> Any:
    title = "The key distribution (--rand-type) is stated"
    opt = cmd.options.get("rand-type")
    v = cmd.get("rand-type", era)
    if opt is None and isinstance(v, Unresolved):
        return _item(id="sysbench-rand-type", phase="run", status="unknown", title=title, evidence=f"{v.why}.")
    if opt is not None:
        if isinstance(opt.value, Unresolved):
            return _item(id="sysbench-rand-type", phase="run", status="unknown", title=title,
                         evidence=f"{opt.value.why}.")
        note = (" special sends 75% of the accesses to 1% of the rows (--rand-spec-pct=1, --rand-spec-res=75): a "
                "small, hot, cache-friendly working set." if opt.value == "special" else "")
        return _item(id="sysbench-rand-type", phase="run", status="pass", title=title,
                     evidence=f"--rand-type={opt.value} is set explicitly, so the result does not depend on the sysbench "
                              f"version's default (special in 1.0.x, uniform in 1.1).{note}",
                     facts={"rand_type": opt.value})
    if era == "1.0":
        dflt = f"defaults to special ({era_why})"
    elif era == "1.1":
        dflt = f"defaults to uniform ({era_why})"
    else:
        dflt = "defaults to special in sysbench 1.0.x and to uniform in 1.1"
    return _item(id="sysbench-rand-type", phase="run", status="fail", title=title,
                 evidence=f"--rand-type is not set, so it {dflt}. special sends 75% of the accesses to 1% of the "
                          "rows, uniform spreads them over all rows: the same command measures a different workload "
                          "depending on the sysbench build, and results from the two are not comparable.",
                 fix="Add --rand-type=uniform (as PingCAP's reports do), or --rand-type=special to keep 1.0's hot set "
                     "deliberately; either way write it in the report.",
                 facts={"rand_type": None, "default": v if not isinstance(v, Unresolved) else None})


def _check_duration(cmd: SysbenchCommand) -> Any:
    title = f"The run lasts long enough (≥ {MIN_RUN_SECONDS} s)"
    t, ev = cmd.get("time"), cmd.get("events")
    if isinstance(t, Unresolved):
        return _item(id="sysbench-duration", phase="run", status="unknown", title=title, evidence=f"{t.why}.")
    given = cmd.given("time") or cmd.given("max-time")
    fix = (f"Use --time={max(300, MIN_RUN_SECONDS)} or more (PingCAP runs 300–600 s) and look at the "
           "--report-interval lines to see when throughput settles.")
    if t == 0:
        if isinstance(ev, int) and ev > 0:
            return _item(id="sysbench-duration", phase="run", status="unknown", title=title,
                         evidence=f"--time=0 with --events={ev}: the run ends after {ev:,} events, so its length "
                                  "depends on the throughput.", fix=fix)
        return _item(id="sysbench-duration", phase="run", status="fail", title=title,
                     evidence="--time=0 and no --events: the run has no end and must be interrupted, so its length "
                              "differs from run to run.", fix=fix)
    if t < MIN_RUN_SECONDS:  # type: ignore[operator]
        src = f"--time={t}" if given else f"--time is not set (default {t} s)"
        return _item(id="sysbench-duration", phase="run", status="fail", title=title,
                     evidence=f"{src}: a run that short is dominated by its start (cold caches, the first "
                              "checkpoints); the reported average is not a steady state.", fix=fix,
                     facts={"time": t})
    return _item(id="sysbench-duration", phase="run", status="pass", title=title,
                 evidence=f"--time={t} s.", facts={"time": t})


def _check_warmup(cmd: SysbenchCommand, era: Optional[str], local: Optional[LocalSysbench]) -> Any:
    title = "Warm up before the measured run"
    w = cmd.options.get("warmup-time")
    if w is not None and isinstance(w.value, int) and w.value > 0:
        return _item(id="sysbench-warmup", phase="run", status="pass", title=title,
                     evidence=f"--warmup-time={w.value}: sysbench 1.1 runs the load for {w.value} s with statistics "
                              "off before measuring.", facts={"warmup_time": w.value})
    word = "warmup" if era == "1.1" else "prewarm"
    prewarm = _with(cmd, word) if cmd.test_kind == "lua" and LUA_SCRIPTS.get(cmd.test or "", (False,))[0] else ""
    how = (f"`{word}` runs ANALYZE TABLE and reads the primary key and the k index of every table"
           if prewarm else "run the workload once unmeasured")
    return _item(id="sysbench-warmup", phase="run", status="manual", title=title,
                 evidence="The command has no --warmup-time; whether the buffer pool is warm when it starts depends on "
                          "what ran before, which no snapshot shows.",
                 fix=f"Before every measured run warm up the same way: {how}"
                     + ("; sysbench 1.1 also has --warmup-time=N." if era != "1.1" else "; or add --warmup-time=N.")
                     + " Start measuring only when the --report-interval lines level off.",
                 command=prewarm or "the same sysbench command with --time=120, unmeasured")


def _with(cmd: SysbenchCommand, word: str) -> str:
    from advisor.checklist import _with_command

    return _with_command(cmd, word)


def _check_report_interval(cmd: SysbenchCommand) -> Any:
    title = "Intermediate results are reported (--report-interval)"
    r = cmd.get("report-interval")
    if isinstance(r, Unresolved):
        return _item(id="sysbench-report-interval", phase="run", status="unknown", title=title, evidence=f"{r.why}.")
    if not r:
        return _item(id="sysbench-report-interval", phase="run", status="fail", title=title,
                     evidence="--report-interval is not set (0 = off): only the run's average is printed, so warm-up, "
                              "stalls and checkpoint dips are invisible.",
                     fix="Add --report-interval=10 (PingCAP's guide) or =1 for fine detail, and keep the output.",
                     facts={"report_interval": 0})
    return _item(id="sysbench-report-interval", phase="run", status="pass", title=title,
                 evidence=f"--report-interval={r}: sysbench prints throughput and latency every {r} s, so warm-up "
                          "and stalls are visible.", facts={"report_interval": r})
