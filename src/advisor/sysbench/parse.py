"""Parse a sysbench command line: parse_command(text, config_text=...) -> SysbenchCommand, or
UsageError (exit 2). Pure: the caller reads the --config-file (advisor.collect.sysbench).

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
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from typing import Literal, Optional

from advisor.errors import UsageError
from advisor.sysbench.command import Option, SysbenchCommand, Unresolved, Value
from advisor.sysbench.options import (ALL_OPTIONS, BUILTIN_COMMANDS, BUILTIN_TESTS, CORE_OPTIONS, LUA_SCRIPTS, MASK,
                                      OLTP_COMMANDS_10, OLTP_COMMANDS_11, OLTP_OPTIONS, SCRIPT_EXTRA_OPTIONS,
                                      SSL_MODES_11, OptSpec, is_secret_name)

_BOOL_VALUES = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}
_SHELL_VAR = re.compile(r"\$(?:\{[A-Za-z_][A-Za-z0-9_]*[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|\([^)]*\))")
# At most 19 digits: sysbench reads integers into a C long long (a longer one overflows), and Python
# refuses to convert a string of more than 4,300 digits.
_INT = re.compile(r"[0-9]{1,19}")
_LUA_NUMBER = re.compile(r"[0-9]{1,19}(?:\.[0-9]{0,19})?(?:[eE][+-]?[0-9]{1,2})?")
_SIZE = re.compile(r"[0-9]{1,19}[KMGT]?", re.IGNORECASE)
_DOUBLE = re.compile(r"-?(?:[0-9]{1,19}(?:\.[0-9]{0,19})?|\.[0-9]{1,19})(?:[eE][+-]?[0-9]{1,2})?")
_WRAPPERS = {"time", "sudo", "nice", "nohup", "env", "numactl", "taskset", "exec", "command", "stdbuf", "chrt", "ionice"}


def _err(message: str, tip: str) -> UsageError:
    return UsageError(f"--sysbench: {message}", tip)


def mask_words(words: list[str]) -> list[str]:
    """The words of a command line with every password masked: `--mysql-password=X` (also empty),
    `--mysql-password X` (two words, or one quoted word), `--pgsql-password…` and any other secret
    name (is_secret_name), `MYSQL_PWD=X` assignments, and a mysql client's `-pX`. The one masking
    function: the checklist's command echo and evidence and `advisor watch` both use it."""
    out: list[str] = []
    mask_next = False
    for tok in words:
        name, eq, _ = tok.partition("=")
        parts = name.split(None, 1)
        word = parts[0] if parts else name
        if mask_next and not tok.startswith("-"):  # the value of `--mysql-password VALUE`
            tok = MASK
        elif eq and len(parts) == 1 and parts[0] == name and is_secret_name(name.lstrip("-")):
            tok = f"{name}={MASK}"
        elif word.startswith("-") and is_secret_name(word.lstrip("-")) and word != tok:
            tok = f"{word} {MASK}"  # one quoted word holding name and value: '--mysql-password X'
        elif tok.startswith("-p") and len(tok) > 2 and not tok.startswith("--"):
            tok = f"-p{MASK}"
        mask_next = tok == word and word.startswith("--") and is_secret_name(word.lstrip("-"))
        out.append(tok)
    return out


def quote_word(tok: str) -> str:
    """A word for a shell command line: as is when safe, else quoted (the password mask stays as is)."""
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


def is_shell_expression(s: str) -> bool:
    """Whether the text holds a shell variable or command substitution ($X, ${X}, $(...))."""
    return bool(_SHELL_VAR.search(s))


def _canonical(name: str) -> str:
    return name.replace("_", "-")


def _suggest(name: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(name, candidates, n=2, cutoff=0.75)
    return f" Did you mean {' or '.join('--' + c for c in close)}?" if close else ""


def _typed(spec: OptSpec, raw: Optional[str], written: str) -> Value:
    """Validate one value the way sysbench reads it (stricter where sysbench silently misreads)."""
    shown = MASK if spec.secret else raw
    if raw is not None and is_shell_expression(raw):
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
    if spec.secret and raw is not None:  # an empty password (`--mysql-password=`) is a password too
        return MASK
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
        if not parts and spec.name in ("mysql-host", "mysql-port"):
            raise _err(f"{written}: --{spec.name} names no {spec.name.split('-')[1]} (only commas); sysbench would "
                       f"connect to nothing.", f"write e.g. --{spec.name}={spec.default}.")
        if spec.name == "mysql-port":
            for p in parts:
                if not is_shell_expression(p) and not _INT.fullmatch(p):
                    raise _err(f"{written}: --mysql-port must be port numbers (comma-separated), not {p!r}.",
                               "write e.g. --mysql-port=3306.")
        return tuple(Unresolved(p, f"--{spec.name} contains the shell expression {p}") if is_shell_expression(p) else p
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
        elif m.group(3)[:1].isspace():  # one quoted word holding name and value: '--mysql-password X'
            out.append(m.group(3).strip())
            out.extend(m.group(3).split())
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


@dataclass
class _Scanned:
    """The words after `sysbench`, sorted into options, positionals and what sysbench would misread."""

    raw_opts: list[tuple[str, Optional[str], str, str]] = field(default_factory=list)  # (name, value, written, form)
    positionals: list[str] = field(default_factory=list)
    display_args: list[str] = field(default_factory=list)
    legacy_test: Optional[str] = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _find_program(tokens: list[str]) -> int:
    """Index of the sysbench word: after env assignments and wrappers such as `time` or `numactl ...`."""
    for i, tok in enumerate(tokens):
        base = posixpath.basename(tok)
        if base == "sysbench" or re.fullmatch(r"sysbench[-.0-9a-z]*", base) and not tok.startswith("-"):
            return i
    first = mask_words(tokens[:1])[0] if tokens else ""
    raise _err(f"no `sysbench` word in the command (it starts with {first!r}).",
               "pass the command exactly as you run it: --sysbench \"sysbench oltp_read_write --threads=16 run\".")


def _scan_option(sc: _Scanned, args: list[str], i: int) -> int:
    """Read the option at args[i] into `sc`; the index of the next word."""
    tok = args[i]
    name, eq, value = tok[2:].partition("=")
    written = mask_words([tok])[0]
    word, rest = (name.split(None, 1) + [""])[:2] if not eq and name.strip() else (name, "")
    if rest and is_secret_name(word):  # '--mysql-password X': one quoted word that sysbench cannot read
        sc.problems.append(f"`{written}` is one quoted word: sysbench takes it for an option named "
                           f"\"{word} {MASK}\", not {word}, so the password is not used; write {word}={MASK} "
                           "(name and value joined by '=').")
        # an option of that odd name (masked): a built-in test refuses it as sysbench does, a custom one keeps it
        sc.raw_opts.append((written[2:], None, written, "bare"))
        sc.display_args.append(written)
        return i + 1
    spec = ALL_OPTIONS.get(_canonical(name))
    secret = is_secret_name(name)
    if name == "test" and eq:
        sc.legacy_test = value
        sc.notes.append(f"--test={value} is the deprecated 0.x/1.0 way to name the test; sysbench 1.0 still "
                        f"accepts it with a warning (write `sysbench {value} ...`).")
        sc.display_args.append(tok)
        return i + 1
    if eq:
        sc.raw_opts.append((name, value, written, "eq"))
        sc.display_args.append(written)
        return i + 1
    nxt = args[i + 1] if i + 1 < len(args) else None
    takes_value = (spec is not None and spec.type not in ("bool", "ssl")) or (spec is None and secret)
    bool_word = spec is not None and spec.type in ("bool", "ssl") and nxt is not None and (
        nxt in _BOOL_VALUES or nxt.lower() in SSL_MODES_11)
    if (takes_value or bool_word) and nxt is not None and not nxt.startswith("--"):
        shown = MASK if secret else nxt
        sc.problems.append(f"`--{name} {shown}` is written with a space: sysbench reads only --{name}={shown} "
                           f"and would take {shown!r} as the test name or command, then stop with "
                           f"\"Unrecognized command line argument\".")
        sc.raw_opts.append((name, nxt, f"--{name} {shown}", "space"))
        sc.display_args += [tok, shown]
        return i + 2
    sc.raw_opts.append((name, None, written, "bare"))
    sc.display_args.append(written)
    return i + 1


def _scan(args: list[str]) -> _Scanned:
    sc = _Scanned()
    i = 0
    while i < len(args):
        if args[i].startswith("--") and len(args[i]) > 2:
            i = _scan_option(sc, args, i)
        else:
            sc.positionals.append(args[i])
            sc.display_args.append(args[i])
            i += 1
    return sc


TestKind = Literal["lua", "builtin", "custom", "unresolved"]

# Tests that sysbench 0.4 had built in and 1.0 replaced by Lua scripts (sysbench 1.0's README, "Migrating
# from 0.4"), with what to write instead.
LEGACY_BUILTIN_TESTS = {
    "oltp": "Write `sysbench oltp_read_write ... run` (oltp_read_only for --oltp-read-only=on), with --threads, "
            "--events and --table-size for --num-threads, --max-requests and --oltp-table-size.",
}
_PURE_VAR = re.compile(r"\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)")


def _expanded_words(positionals: list[str], expected: int) -> list[str]:
    """Unquoted shell variables among too many positional words: `sysbench oltp_read_write $conn run` is valid
    shell, where $conn expands to options. Only words that are a variable and nothing else, never the test
    word, and only as many as make the count right."""
    extra = len(positionals) - expected
    if extra <= 0:
        return []
    head = positionals[:-1]  # the last word is the command
    variables = [p for p in head if _PURE_VAR.fullmatch(p)]
    if expected == 2 and len(variables) == len(head):
        variables = variables[:-1]  # `sysbench $OPTS $TEST run`: options first, the last variable names the test
    elif expected == 2 and not _PURE_VAR.fullmatch(head[0]):
        variables = [p for p in head[1:] if _PURE_VAR.fullmatch(p)]  # the written test stays the test
    return variables[:extra] if len(variables) >= extra else []


def _resolve_test(test_written: str) -> tuple[Optional[str], TestKind]:
    """(canonical test name, kind) of the test word, or UsageError for a test sysbench does not have."""
    if is_shell_expression(test_written):
        return None, "unresolved"
    if "/" in test_written or test_written.endswith(".lua"):
        stem = posixpath.basename(test_written)
        stem = stem[:-4] if stem.endswith(".lua") else stem
        return (stem, "lua") if stem in LUA_SCRIPTS else (stem, "custom")
    if test_written in BUILTIN_TESTS:
        return test_written, "builtin"
    if test_written in LUA_SCRIPTS:
        return test_written, "lua"
    close = difflib.get_close_matches(test_written, list(LUA_SCRIPTS) + list(BUILTIN_TESTS), n=2, cutoff=0.6)
    hint = f"Did you mean {' or '.join(close)}? " if close else ""
    raise _err(f"unknown test {test_written!r}: not a built-in test ({', '.join(BUILTIN_TESTS)}) nor a bundled "
               f"Lua script ({', '.join(k for k in LUA_SCRIPTS if k != 'oltp_common')}); sysbench stops with "
               f"\"Cannot find benchmark\".",
               f"{hint}For your own script pass its path (./my_test.lua).")


def _allowed_commands(kind: TestKind, test: Optional[str]) -> Optional[tuple[str, ...]]:
    if kind == "builtin":
        return BUILTIN_COMMANDS[test]  # type: ignore[index]
    if kind == "lua" and test == "oltp_common":
        # oltp_common.lua defines prepare/prewarm/cleanup for the others; `run` fails in its init()
        # ("this script is meant to be included by other OLTP scripts", sysbench 1.0.20)
        return ("prepare", "prewarm", "warmup", "cleanup", "help")
    if kind == "lua":
        return OLTP_COMMANDS_10 + OLTP_COMMANDS_11 if LUA_SCRIPTS[test][0] else ("prepare", "run", "cleanup", "help")  # type: ignore[index]
    return None  # a custom script defines its own commands


def _resolve_command(kind: TestKind, test: Optional[str], test_written: str,
                     command_written: Optional[str]) -> tuple[Optional[str], Optional[str]]:
    """(command, the command word when it is a shell expression)."""
    if command_written is None:
        raise _err(f"no command after the test {test_written!r} (sysbench stops: \"Command is required\").",
                   "add prepare, run or cleanup at the end (prewarm too for the OLTP scripts).")
    if is_shell_expression(command_written):
        return None, command_written
    allowed = _allowed_commands(kind, test)
    if allowed is not None and command_written not in allowed:
        close = difflib.get_close_matches(command_written, list(allowed), n=1, cutoff=0.6)
        hint = f"Did you mean {close[0]}? " if close else ""
        raise _err(f"{test} has no command {command_written!r} (sysbench stops: \"Unknown command\"); it has "
                   f"{', '.join(allowed)}.", f"{hint}The command comes last: `sysbench {test} [options] run`.")
    return command_written, None


def _known_options(kind: TestKind, test: Optional[str]) -> tuple[dict[str, OptSpec], bool]:
    """(the options this test has, whether unknown options are let through unchecked)."""
    if kind == "builtin":
        return dict(CORE_OPTIONS), True  # builtin tests' own options (fileio-*, cpu-max-prime, ...) are not modelled
    if kind == "lua":
        known = dict(CORE_OPTIONS)
        if LUA_SCRIPTS[test][0]:  # type: ignore[index]
            known.update(OLTP_OPTIONS)
            known.update({o.name: o for o in SCRIPT_EXTRA_OPTIONS.get(test, [])})  # type: ignore[arg-type]
        return known, False
    return dict(ALL_OPTIONS), True


@dataclass
class _Builder:
    """Adds options to a command, checked against the options its test has."""

    cmd: SysbenchCommand
    known: dict[str, OptSpec]
    lenient: bool

    def add(self, name: str, raw: Optional[str], written: str, form: str, source: str) -> None:
        cmd, canon = self.cmd, _canonical(name)
        spec = self.known.get(canon)
        if is_secret_name(name) and raw is not None:
            cmd.password_given = True
        if spec is None:
            self._add_unknown(name, canon, raw, written, form, source)
            return
        typed = _typed(spec, raw, written)
        if spec.secret:
            typed = MASK if not isinstance(typed, Unresolved) else typed
        keep_raw = None if spec.secret else raw
        cmd.options[canon] = Option(canon, written, keep_raw, typed, source, form)  # type: ignore[arg-type]
        if spec.alias_of:
            cmd.notes.append(f"--{canon} is a deprecated alias of --{spec.alias_of} (sysbench 1.0 only).")

    def _add_unknown(self, name: str, canon: str, raw: Optional[str], written: str, form: str, source: str) -> None:
        cmd, test, kind = self.cmd, self.cmd.test, self.cmd.test_kind
        if kind == "lua" and canon in ALL_OPTIONS:
            owner = ALL_OPTIONS[canon].scope
            raise _err(f"--{name}: {test} has no option --{canon} (it is an option of {owner}); sysbench "
                       "stops with \"invalid option\".", f"`sysbench {test} help` lists the options.")
        if not self.lenient:
            raise _err(f"--{name}: sysbench has no option --{name}; it stops with \"invalid option\"."
                       f"{_suggest(canon, sorted(self.known))}",
                       f"`sysbench {test} help` lists the options; names are case-sensitive.")
        value: Value = MASK if is_secret_name(name) else raw
        cmd.options[canon] = Option(canon, written, None if is_secret_name(name) else raw, value,
                                    source, form, known=False)  # type: ignore[arg-type]
        if kind == "builtin":
            cmd.notes.append(f"--{name} is not checked: the options of the built-in {test} test are not modelled.")

    def read_config(self, config_text: Optional[str], config_problem: Optional[str]) -> None:
        cmd = self.cmd
        cfg = cmd.options.get("config-file")
        if cfg is None:
            return
        cmd.config_file = str(cfg.value)
        if config_text is None:
            cmd.config_problem = config_problem or "not read"
            return
        cmd.config_read = True
        pairs, ignored = _parse_config(config_text)
        for line in ignored:
            cmd.problems.append(f"config file {cmd.config_file}: {line}; sysbench ignores it silently.")
        for name, raw in pairs:
            canon = _canonical(name)
            if canon in cmd.options:
                continue  # the command line wins (checked with sysbench 1.0.20)
            shown = f"{name}={MASK}" if is_secret_name(name) else f"{name}={raw}"
            if canon not in self.known and not self.lenient:
                cmd.problems.append(f"config file {cmd.config_file}: `{shown}` is not an option of {cmd.test}; "
                                    "sysbench ignores it silently.")
                continue
            self.add(name, raw, f"{shown} (in {cmd.config_file})", "eq", "config file")


def _parse_command(text: str, config_text: Optional[str], config_problem: Optional[str]) -> SysbenchCommand:
    if not text or not text.strip():
        raise _err("the command is empty.", "pass the whole command, e.g. --sysbench \"sysbench oltp_read_write --threads=16 run\".")
    tokens = _tokenize(text)
    idx = _find_program(tokens)
    prefix, program, args = mask_words(tokens[:idx]), tokens[idx], tokens[idx + 1:]
    sc = _scan(args)
    display = " ".join(quote_word(t) for t in mask_words(prefix + [program] + sc.display_args))
    expanded = _expanded_words(sc.positionals, 1 if sc.legacy_test is not None else 2)
    positionals = [p for p in sc.positionals if p not in expanded] if expanded else sc.positionals
    if sc.legacy_test is not None:
        test_written: Optional[str] = sc.legacy_test
        command_tokens = positionals
    else:
        test_written = positionals[0] if positionals else None
        command_tokens = positionals[1:]
    if len(command_tokens) > 1:
        extra = command_tokens[1]
        raise _err(f"unexpected word {extra!r} after the command {command_tokens[0]!r}; sysbench takes one test and "
                   f"one command and stops with \"Unrecognized command line argument: {extra}\".",
                   "options need the --name=value form (a value after a space is read as a word).")
    if test_written is None:
        raise _err("the command names no test (sysbench would wait for a Lua script on standard input).",
                   "name the test, e.g. `sysbench oltp_read_write ... run`, or a script path.")
    legacy = None
    if sc.legacy_test is not None and sc.legacy_test in LEGACY_BUILTIN_TESTS:
        # sysbench 0.4's built-in tests: 1.0 looks for a Lua script of that name and stops. Checked, not refused:
        # the checklist fails the command-line item and still checks the server against the rest.
        test, kind = sc.legacy_test, "custom"
        legacy = (f"--test={sc.legacy_test} is sysbench 0.4's built-in {sc.legacy_test.upper()} test; sysbench 1.0 and "
                  f"later have no such test and stop with \"Cannot find benchmark '{sc.legacy_test}'\".")
    else:
        test, kind = _resolve_test(test_written)
    command, command_unresolved = _resolve_command(kind, test, test_written, command_tokens[0] if command_tokens else None)
    known, lenient = _known_options(kind, test)
    cmd = SysbenchCommand(display=display, program=program, test=test, test_written=test_written, test_kind=kind,
                          command=command, command_unresolved=command_unresolved, problems=sc.problems,
                          notes=sc.notes, legacy_test_option=sc.legacy_test is not None, expanded_words=expanded)
    if legacy is not None:
        cmd.problems.append(legacy)
    builder = _Builder(cmd, known, lenient)
    for name, raw, written, form in sc.raw_opts:
        builder.add(name, raw, written, form, "command line")
    builder.read_config(config_text, config_problem)
    if legacy is not None:
        cmd.migration = _legacy_oltp_rewrite(cmd)
    return cmd


# sysbench 0.4's OLTP options and their sysbench 1.0 names (1.0's oltp_common.lua and README)
_LEGACY_OLTP_RENAMED = {"oltp-table-size": "table-size", "oltp-tables-count": "tables", "num-threads": "threads",
                        "max-requests": "events", "max-time": "time", "tx-rate": "rate",
                        "mysql-table-engine": "mysql-storage-engine"}


def _legacy_oltp_rewrite(cmd: SysbenchCommand) -> str:
    """The fix for `--test=oltp`: the same run written for sysbench 1.0 (a command 1.0.20 accepts)."""
    ro = cmd.options.get("oltp-read-only")
    test = "oltp_read_only" if ro is not None and str(ro.raw).lower() in ("on", "true", "1", "yes") else "oltp_read_write"
    words, dropped = ["sysbench", test], []
    for o in cmd.options.values():
        if o.name == "test" or o.name == "oltp-read-only":
            continue
        new = _LEGACY_OLTP_RENAMED.get(o.name)
        if new is not None:
            words.append(f"--{new}={o.raw}")
        elif o.known:
            words.append(o.written)
        else:
            dropped.append(o.written)
    words += cmd.expanded_words  # shell variables stay for the shell to expand
    words.append(cmd.command or "run")
    one = len(dropped) == 1
    note = (f" {', '.join(dropped)} {'has' if one else 'have'} no sysbench 1.0 equivalent and "
            f"{'is' if one else 'are'} left out." if dropped else "")
    shown = " ".join(f'"{w}"' if any(c.isspace() for c in w) else w for w in words)  # "$VAR" stays expandable
    renamed = ", ".join(f"--{n} → --{_LEGACY_OLTP_RENAMED[n]}" for n in cmd.options if n in _LEGACY_OLTP_RENAMED)
    return (f"Write it for sysbench 1.0: `{shown}`" + (f" ({renamed})" if renamed else "") + "." + note)
