"""MySQL/MariaDB option files (my.cnf): parse them, follow their includes, and map options to
server variables. Parsing is pure (`parse_option_text`); `read_option_file` does the I/O.

Syntax, as the servers read it (refman "Using Option Files"; MariaDB "Configuring MariaDB with
Option Files"): `[group]` headers; `name`, `name = value`; `#` and `;` start a comment line, and
`#` starts a trailing comment outside quotes; values may be quoted with ' or "; `!include FILE`
and `!includedir DIR` (files ending in .cnf). Dashes and underscores in names are the same, and
a `loose-` prefix makes an unknown option a warning instead of an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from advisor.versions import Version

MAX_INCLUDE_DEPTH = 10

_GROUP = re.compile(r"^\[\s*([^\]]+?)\s*\]\s*(?:[#;].*)?$")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "r": "\r", "\\": "\\", "s": " ", '"': '"', "'": "'"}


@dataclass(frozen=True)
class OptionLine:
    """One `name[=value]` line of an option file."""

    file: str
    line: int
    group: str
    name: str              # as written, lower-cased
    value: Optional[str]   # None for a bare option (`skip-name-resolve`)

    @property
    def key(self) -> str:
        """The name with dashes as underscores (the form SHOW VARIABLES uses)."""
        return self.name.replace("-", "_")

    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class OptionFile:
    path: str
    options: list[OptionLine] = field(default_factory=list)
    includes: list[tuple[str, int, str]] = field(default_factory=list)  # (include | includedir, line, path)
    errors: list[str] = field(default_factory=list)


def _strip_trailing_comment(text: str) -> str:
    quote = ""
    escape = False
    for i, ch in enumerate(text):
        if ch in "'\"" and not escape:
            if not quote:
                quote = ch
            elif quote == ch:
                quote = ""
        if not quote and ch == "#":
            return text[:i]
        escape = bool(quote) and ch == "\\" and not escape
    return text


def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        v = v[1:-1]
    out = []
    i = 0
    while i < len(v):
        ch = v[i]
        if ch == "\\" and i + 1 < len(v) and v[i + 1] in _ESCAPES:
            out.append(_ESCAPES[v[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_option_text(text: str, source: str = "my.cnf") -> OptionFile:
    """Parse one option file's text (includes are recorded, not followed)."""
    result = OptionFile(path=source)
    group = ""
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("!"):
            m = re.match(r"!\s*(includedir|include)\s+(.+?)\s*$", line)
            if not m:
                result.errors.append(f"{source}:{n}: unknown directive {line!r} (expected !include or !includedir)")
                continue
            result.includes.append((m.group(1), n, m.group(2)))
            continue
        g = _GROUP.match(line)
        if g:
            group = g.group(1).strip().lower()
            continue
        if line.startswith("["):
            result.errors.append(f"{source}:{n}: malformed group header {line!r}")
            continue
        body = _strip_trailing_comment(line).strip()
        if not body:
            continue
        if not group:
            result.errors.append(f"{source}:{n}: option {body!r} appears before any [group] header")
            continue
        if "=" in body:
            name, _, value = body.partition("=")
            name, value_s = name.strip(), _unquote(value)
            val: Optional[str] = value_s
        else:
            name, val = body, None
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
            result.errors.append(f"{source}:{n}: {name!r} is not an option name")
            continue
        result.options.append(OptionLine(source, n, group, name.lower(), val))
    return result


def read_option_file(path: str | Path, _depth: int = 0) -> OptionFile:
    """Read a file and the files it includes, in the order the server reads them. `options` holds
    every option line of all files; `errors` every problem. Raises OSError if `path` is unreadable."""
    p = Path(path)
    text = p.read_text(encoding="utf-8", errors="replace")
    top = parse_option_text(text, str(p))
    merged = OptionFile(path=str(p), errors=list(top.errors), includes=list(top.includes))
    # Includes are processed at their position: interleave by line number.
    events: list[tuple[int, object]] = [(o.line, o) for o in top.options] + [(ln, (kind, target)) for kind, ln, target in top.includes]
    for _, ev in sorted(events, key=lambda e: e[0]):
        if isinstance(ev, OptionLine):
            merged.options.append(ev)
            continue
        kind, target = ev  # type: ignore[misc]
        if _depth >= MAX_INCLUDE_DEPTH:
            merged.errors.append(f"{p}: !{kind} {target}: includes nested deeper than {MAX_INCLUDE_DEPTH} levels")
            continue
        tp = Path(target) if Path(target).is_absolute() else p.parent / target
        files = [tp] if kind == "include" else (sorted(x for x in tp.glob("*.cnf")) if tp.is_dir() else [])
        if kind == "includedir" and not tp.is_dir():
            merged.errors.append(f"{p}: !includedir {target}: not a directory")
        for f in files:
            try:
                sub = read_option_file(f, _depth + 1)
            except OSError as e:
                merged.errors.append(f"{p}: !{kind} {target}: cannot read {f}: {e.strerror}")
                continue
            merged.options.extend(sub.options)
            merged.errors.extend(sub.errors)
    return merged


def server_groups(flavor: str, version: Version | None) -> tuple[str, ...]:
    """Option groups the server reads (refman option-files; MariaDB option-files page)."""
    mm = f"{version.major}.{version.minor}" if version else None
    groups = ["mysqld", "server"]
    if mm:
        groups.append(f"mysqld-{mm}")
    if flavor == "mariadb":
        groups += ["mariadb", "mariadbd", "client-server", "galera"]
        if mm:
            groups += [f"mariadb-{mm}", f"mariadbd-{mm}"]
    return tuple(groups)


def server_options(options: Iterable[OptionLine], flavor: str, version: Version | None) -> list[OptionLine]:
    groups = set(server_groups(flavor, version))
    return [o for o in options if o.group in groups]


def effective(options: Iterable[OptionLine]) -> dict[str, OptionLine]:
    """Last occurrence wins (the server reads files and lines in order); keyed by underscore name
    without a `loose_` prefix."""
    out: dict[str, OptionLine] = {}
    for o in options:
        key = o.key[len("loose_"):] if o.key.startswith("loose_") else o.key
        out.pop(key, None)  # keep file order of the last occurrence
        out[key] = o
    return out


# Options whose variable has another name on some servers: MariaDB before 11.1 takes --transaction-isolation
# and --transaction-read-only for tx_isolation and tx_read_only (its manual lists them as their command-line
# forms); MySQL 5.7 before 5.7.20 the same. Used when the option's own name is no variable on the target.
OPTION_VARIABLE_ALIASES = {"transaction_isolation": "tx_isolation", "transaction_read_only": "tx_read_only"}


def option_to_variable(key: str, value: Optional[str], is_variable: Callable[[str], bool]) -> Optional[tuple[str, str]]:
    """The server variable an option sets and the value it should show, or None when the option
    sets no variable of that name. `is_variable(name)` says whether the server has a variable.

      skip_name_resolve          -> (skip_name_resolve, ON)   (a variable itself)
      skip_log_bin, disable_X    -> (log_bin, OFF), (X, OFF)
      enable_X                   -> (X, ON)
      log_bin[=basename]         -> (log_bin, ON)             (the value is a file name)
      bare option                -> (name, ON)
    """
    if key == "log_bin":
        return ("log_bin", "ON")
    if is_variable(key):
        return (key, "ON" if value is None else value)
    alias = OPTION_VARIABLE_ALIASES.get(key)
    if alias is not None and is_variable(alias):
        return (alias, "ON" if value is None else value)
    for prefix, forced in (("skip_", "OFF"), ("disable_", "OFF"), ("enable_", "ON")):
        if key.startswith(prefix) and is_variable(key[len(prefix):]):
            if value is not None and forced == "ON":
                return (key[len(prefix):], value)
            return (key[len(prefix):], forced)
    return None
