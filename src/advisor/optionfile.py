"""The one option-file (my.cnf) reader: the mysql client's connection options and `advisor mycnf`
both read files through it, so they agree on every line.

Syntax as the servers' option-file reader has it (mysys `search_default_file_with_ext`, which
`my_print_defaults` prints; refman "Using Option Files", MariaDB "Configuring MariaDB with Option
Files"), checked against `my_print_defaults` in tests/unit/test_optionfile.py:

- leading white space is skipped; an empty line, or one starting with `#` or `;`, is a comment;
- `[group]`: the name runs to the first `]`, trailing blanks dropped; group names match without
  regard to case; a `[` line without `]` is fatal ("Wrong group definition");
- `name`, `name = value`: `#` outside quotes starts a trailing comment; blanks around the name and
  the value are dropped; one pair of matching quotes around the whole value is removed; then
  `\\n \\t \\r \\b \\s \\" \\' \\\\` are escapes (any other backslash stays). An option before any
  group is fatal;
- `!include FILE` and `!includedir DIR` (the files in DIR ending in `.cnf`, by name). A relative
  path is relative to the current directory, as the server opens it. A missing `!include` file is
  skipped; a missing `!includedir` directory is fatal (MariaDB's reader stops there). Any other
  `!` line is ignored;
- a world-writable file is ignored, with a warning.

What the server does not have: every file is read once (a visited set). A file that includes
itself, directly or through others, is an include cycle, an error naming the chain (the server
re-reads it up to 10 levels deep: `!includedir` of a file's own directory holding 4 files is 4**10
reads); a file included again without a cycle is not read again either, with a note (the server
reads it again, which can only matter when a later file changed the same option); includes nested
deeper than MAX_INCLUDE_DEPTH levels and more than MAX_FILE_READS file reads are errors too.

`parse_option_text` is pure (one file's text; includes recorded, not followed);
`read_option_file` follows the includes. Problems are collected, not raised: `errors` holds every
one, `fatal` those the mysql client refuses to start with.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

MAX_INCLUDE_DEPTH = 10   # the server's own limit (it skips deeper includes with a warning)
MAX_FILE_READS = 512     # files read for one top-level file, re-reads included
SHOWN_PER_KIND = 3       # include cycles (or too deep includes) named one by one; more are counted
MAX_SHOWN = 120          # characters of a line shown in a message

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", '"': '"', "'": "'", "\\": "\\"}
_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
_BLANKS = " \t\r\n\v\f"


@dataclass(frozen=True)
class OptionLine:
    """One `name[=value]` line of an option file."""

    file: str
    line: int
    group: str             # lower-cased
    name: str              # as written, lower-cased
    value: Optional[str]   # None for a bare option (`skip-name-resolve`)
    written: str = ""      # the name as written (case kept), what my_print_defaults prints

    @property
    def key(self) -> str:
        """The name with dashes as underscores (the form SHOW VARIABLES uses)."""
        return self.name.replace("-", "_")

    @property
    def option(self) -> str:
        """The name as the client's option parser sees it: dashes, no `loose-` prefix."""
        n = self.name.replace("_", "-")
        return n[len("loose-"):] if n.startswith("loose-") else n

    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class OptionFile:
    """One option file as read: its option lines, include directives and problems."""

    path: str
    options: list[OptionLine] = field(default_factory=list)
    includes: list[tuple[str, int, str]] = field(default_factory=list)  # (include | includedir, line, path)
    errors: list[str] = field(default_factory=list)    # every problem, "file:line: text"
    fatal: list[str] = field(default_factory=list)     # those the mysql client stops at (also in errors)
    warnings: list[str] = field(default_factory=list)  # what the server only warns about (ignored files)
    files: list[str] = field(default_factory=list)     # the files read, in order

    def _problem(self, text: str, fatal: bool = False) -> None:
        self.errors.append(text)
        if fatal:
            self.fatal.append(text)


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def shown(line: str) -> str:
    """A line for a message: cut when long, and no value after `=` (it may be a password)."""
    name, sep, _ = line.partition("=")
    return shorten(name.rstrip() + (" = …" if sep else ""))


def _strip_trailing_comment(text: str) -> str:
    """The server's remove_end_comment: `#` outside quotes ends the line; a backslash inside quotes
    protects the next quote."""
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


def unquote(value: str) -> str:
    """A value as the server stores it: blanks around it dropped, one pair of matching quotes
    removed, escapes applied (an unknown escape keeps its backslash, as does a trailing one)."""
    v = value.strip(_BLANKS)
    if len(v) >= 2 and v[0] in "'\"" and v[0] == v[-1]:
        v = v[1:-1]
    out: list[str] = []
    i, n = 0, len(v)
    while i < n:
        ch = v[i]
        if ch == "\\" and i + 1 < n:
            nxt = v[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_option_text(text: str, source: str = "my.cnf") -> OptionFile:
    """Parse one option file's text (includes are recorded, not followed)."""
    result = OptionFile(path=source)
    group: Optional[str] = None
    for n, raw in enumerate(text.split("\n"), start=1):  # the server reads lines with fgets
        line = raw.lstrip(_BLANKS)
        if not line or line[0] in "#;":
            continue
        where = f"{source}:{n}"
        if line[0] == "!":
            m = re.match(r"!(includedir|include)[ \t]+(.*?)[ \t\r]*$", line)
            if m and m.group(2):
                result.includes.append((m.group(1), n, m.group(2)))
            elif m or re.match(r"!include(dir)?$", line.rstrip()):
                result._problem(f"{where}: {shorten(line.rstrip())!r} names no file or directory", fatal=True)
            else:
                result._problem(f"{where}: unknown directive {shown(line.rstrip())!r} (expected !include or "
                                "!includedir; the server ignores the line)")
            continue
        if line[0] == "[":
            end = line.find("]")
            if end < 0:
                result._problem(f"{where}: malformed group header {shown(line.rstrip())!r} (no closing ])", fatal=True)
                group = None
                continue
            group = line[1:end].rstrip(_BLANKS).lower()
            continue
        body = _strip_trailing_comment(line).rstrip(_BLANKS)
        if not body:
            continue
        if group is None:
            result._problem(f"{where}: option {shown(body)!r} appears before any [group] header", fatal=True)
            continue
        name, sep, value = body.partition("=")
        name = name.rstrip(_BLANKS)
        val: Optional[str] = unquote(value) if sep else None
        if not _NAME.fullmatch(name):
            result._problem(f"{where}: {shorten(name)!r} is not an option name")
            continue
        result.options.append(OptionLine(source, n, group, name.lower(), val, name))
    return result


PathLike = Union[str, Path]


def _world_writable(p: Path) -> bool:
    try:
        return bool(p.stat().st_mode & stat.S_IWOTH)
    except OSError:
        return False


def read_option_file(path: PathLike, *, cwd: Optional[PathLike] = None) -> OptionFile:
    """Read a file and the files it includes, in the order the server reads them. `options` holds
    every option line of all files in that order. Raises OSError if `path` itself is unreadable;
    every other problem is in `errors` (and `fatal`). `cwd`: where relative includes are looked up
    (default: the current directory, as the server does)."""
    top = Path(path)
    merged = OptionFile(path=str(top))
    state = _ReadState(Path(cwd) if cwd is not None else Path(os.getcwd()))
    text = _read_text(top)
    merged.files.append(str(top))
    state.visited.add(_identity(top))
    _follow(merged, top, text, [_identity(top)], state)
    for kind, n in state.counts.items():
        if n > SHOWN_PER_KIND:
            merged._problem(f"{top}: {n - SHOWN_PER_KIND} more {kind} like the ones above", fatal=True)
    if state.repeats:
        merged._problem(f"{top}: {state.repeats} include(s) of files already read were not read again "
                        "(the server reads them again)")
    return merged


def _counted(out: OptionFile, state: _ReadState, kind: str, text: str) -> None:
    """A fatal problem that can repeat many times (cycles, depth): the first few are shown."""
    state.counts[kind] = state.counts.get(kind, 0) + 1
    if state.counts[kind] <= SHOWN_PER_KIND:
        out._problem(text, fatal=True)


@dataclass
class _ReadState:
    """What one read of option files carries across includes: directory, files seen, problem counts."""

    cwd: Path
    reads: int = 1
    stopped: bool = False
    visited: set[str] = field(default_factory=set)    # every file read so far
    counts: dict[str, int] = field(default_factory=dict)  # problems of a kind beyond the ones shown
    repeats: int = 0


def _identity(p: Path) -> str:
    try:
        return str(p.resolve())
    except (OSError, RuntimeError):
        return os.path.abspath(str(p))


def _read_text(p: Path) -> str:
    data = p.read_bytes()
    return data.decode("utf-8", errors="replace")


def _follow(out: OptionFile, path: Path, text: str, chain: list[str], state: _ReadState) -> None:
    parsed = parse_option_text(text, str(path))
    out.errors.extend(parsed.errors)
    out.fatal.extend(parsed.fatal)
    if len(chain) == 1:
        out.includes.extend(parsed.includes)
    events: list[tuple[int, object]] = [(o.line, o) for o in parsed.options]
    events += [(ln, (kind, target)) for kind, ln, target in parsed.includes]
    for ln, ev in sorted(events, key=lambda e: e[0]):
        if isinstance(ev, OptionLine):
            out.options.append(ev)
            continue
        if state.stopped:
            continue
        kind, target = ev  # type: ignore[misc]
        _include(out, path, ln, kind, target, chain, state)


def _include(out: OptionFile, path: Path, ln: int, kind: str, target: str, chain: list[str],
             state: _ReadState) -> None:
    where = f"{path}:{ln}: !{kind} {shorten(target)}"
    if len(chain) > MAX_INCLUDE_DEPTH:
        _counted(out, state, "includes nested too deep", f"{where}: includes nested deeper than {MAX_INCLUDE_DEPTH} "
                 f"levels ({' -> '.join(chain[:2])} -> … -> {chain[-1]})")
        return
    if "\x00" in target:  # no file has such a name; the server's C string would end at the NUL
        out._problem(f"{where}: the name holds a NUL byte", fatal=True)
        return
    tp = Path(target)
    if not tp.is_absolute():
        tp = state.cwd / tp
    if kind == "include":
        files = [tp]
    else:
        try:
            files = sorted((f for f in tp.iterdir() if f.name.endswith(".cnf") and f.is_file()), key=lambda f: f.name)
        except OSError as e:
            out._problem(f"{where}: cannot read the directory ({e.strerror or 'not a directory'})", fatal=True)
            return
    for f in files:
        ident = _identity(f)
        if ident in chain:
            loop = " -> ".join(chain[chain.index(ident):] + [ident])
            _counted(out, state, "include cycles", f"{where}: include cycle, {loop}; the file was not read again")
            continue
        if ident in state.visited:
            state.repeats += 1
            continue
        if state.reads >= MAX_FILE_READS:
            out._problem(f"{where}: more than {MAX_FILE_READS} option files read (the same files included "
                         "again and again?); stopped reading includes", fatal=True)
            state.stopped = True
            return
        if _world_writable(f):
            out.warnings.append(f"world-writable option file {f} is ignored (as the server ignores it)")
            continue
        try:
            text = _read_text(f)
        except OSError as e:
            if kind == "include":  # the server skips a missing !include file silently
                out._problem(f"{where}: cannot read {f}: {e.strerror}; the server skips it")
            else:
                out._problem(f"{where}: cannot read {f}: {e.strerror}", fatal=True)
            continue
        state.reads += 1
        state.visited.add(ident)
        out.files.append(str(f))
        _follow(out, f, text, chain + [ident], state)


def read_option_files(paths: list[PathLike], *, cwd: Optional[PathLike] = None) -> OptionFile:
    """Several top-level files in order (the client's search list); missing ones are skipped,
    world-writable ones ignored with a warning; an unreadable existing file is fatal."""
    merged = OptionFile(path=", ".join(str(p) for p in paths))
    for p in paths:
        p = Path(p)
        if not p.exists():
            continue
        if _world_writable(p):
            merged.warnings.append(f"world-writable option file {p} is ignored (as the mysql client ignores it)")
            continue
        try:
            one = read_option_file(p, cwd=cwd)
        except OSError as e:
            merged._problem(f"{p}: cannot read the option file: {e.strerror}", fatal=True)
            continue
        merged.options += one.options
        merged.errors += one.errors
        merged.fatal += one.fatal
        merged.warnings += one.warnings
        merged.files += one.files
    return merged
