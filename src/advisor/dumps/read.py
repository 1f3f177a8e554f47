"""The I/O edge of the importer: read files and directories, hand their text to the pure parsers,
and turn parser errors into one-paragraph InvalidInputErrors that name the formats read."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Optional

from advisor.dumps.build import Input
from advisor.dumps.formats import PARSERS, formats_sentence, parse, parse_status_defer
from advisor.dumps.model import DumpError, Kind, Section
from advisor.errors import InvalidInputError

MAX_BYTES = 64 << 20  # a SHOW VARIABLES dump is tens of KB; anything this large is not one

TIP = ("save them with `mysql -NBe 'SHOW GLOBAL VARIABLES' > variables.txt` and "
       "`mysql -NBe 'SHOW GLOBAL STATUS' > status.txt`, or name the format with --input-format "
       f"({', '.join(PARSERS)}).")


class UnreadableDump(InvalidInputError):
    """A file none of the parsers can read; `detail` says what was found."""

    def __init__(self, path: str, detail: str):
        super().__init__(f"{path}: {detail}. advisor reads {formats_sentence()}.", TIP)
        self.path, self.detail = path, detail


def _fail(path: str, what: str) -> UnreadableDump:
    return UnreadableDump(path, what)


def read_text(path: str) -> str:
    """A dump file's text: UTF-8 (Latin-1 as a fallback), gzip-compressed or not. Binary files and
    files far larger than any dump are refused with a clear error."""
    p = Path(path)
    if not p.exists():
        raise InvalidInputError(f"{path} does not exist.", "check the path.")
    if p.is_dir():
        raise InvalidInputError(f"{path} is a directory.", "give the file, or pass a pt-mysql-summary / pt-stalk "
                                "directory as --variables DIR.")
    try:
        with p.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise InvalidInputError(f"cannot read {path}: {e.strerror}.", "check the file and its permissions.") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)[: MAX_BYTES + 1]
        except (OSError, EOFError) as e:
            raise _fail(path, f"it is gzip-compressed but cannot be decompressed ({e})") from None
    if len(data) > MAX_BYTES:
        raise _fail(path, f"it is larger than {MAX_BYTES >> 20} MiB, far larger than a variables or status dump")
    if b"\x00" in data[:65536]:
        raise _fail(path, "it is a binary file (it contains NUL bytes), not a text dump")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_dump(path: str, kind: Kind, fmt: Optional[str] = None, *, text: Optional[str] = None) -> Input:
    """Parse one file given as --variables or --status and return the section of that kind."""
    if text is None:
        text = read_text(path)
    try:
        dump = parse(text, fmt)
    except DumpError as e:
        raise _fail(path, f"cannot read it as {fmt if fmt else 'any of these formats'}: {e}") from None
    return _pick(dump, path, kind)


def _pick(dump, path: str, kind: Kind) -> Input:
    other = "status" if kind == "variables" else "variables"
    section = dump.of_kind(kind)
    if section is None:
        untyped = [s for s in dump.sections if s.kind is None]
        if len(untyped) == 1:
            section = untyped[0]
            dump.notes.append(f"{path}: took the rows as {kind} (the dump does not say which it is)")
        elif dump.of_kind(other) is not None:  # type: ignore[arg-type]
            opt = "--status" if kind == "variables" else "--variables"
            raise InvalidInputError(
                f"{path} holds SHOW {other.upper()} (it has names such as "
                f"{', '.join(n for n, _ in dump.of_kind(other).rows[:3])}), not SHOW {kind.upper()}.",  # type: ignore[union-attr]
                f"pass it as {opt} {path}.")
        else:
            raise _fail(path, f"it holds no SHOW {kind.upper()} rows")
    notes = list(dump.notes)
    same = [s for s in dump.sections if s.kind == kind]
    if len(same) > 1:  # e.g. two `SHOW VARIABLES LIKE ...` results in one paste: their rows together
        section = Section(rows=[r for s in same for r in s.rows], kind=kind, label=same[0].label)
        notes.append(f"{path}: read {len(same)} {kind} results and took their rows together")
    return Input(path=path, format=dump.format, section=section, notes=notes, collected_at=dump.collected_at)


def read_pair(path: str, kind: Kind, fmt: Optional[str], text: Optional[str] = None) -> tuple[Input, Optional[Input]]:
    """A file that may hold both results (MySQLTuner --json, a paste of both SHOWs): the section
    asked for, and the other one when present. `text` is the file's content when already read."""
    if text is None:
        text = read_text(path)
    try:
        dump = parse(text, fmt)
    except DumpError as e:
        raise _fail(path, f"cannot read it as {fmt if fmt else 'any of these formats'}: {e}") from None
    other_kind: Kind = "status" if kind == "variables" else "variables"
    other = None
    if dump.of_kind(other_kind) is not None and dump.of_kind(kind) is not None:
        other = Input(path=path, format=dump.format, section=dump.of_kind(other_kind), notes=[],  # type: ignore[arg-type]
                      collected_at=dump.collected_at)
    return _pick(dump, path, kind), other


# ---------------------------------------------------------------- directories

_STALK_PREFIX = re.compile(r"^(\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2})-(variables|mysqladmin)$")


def plan_directory(names: list[str]) -> tuple[str, Optional[str], Optional[str], list[str]]:
    """Which files of a collection directory hold variables and status. Pure: takes the file names.
    Returns (tool, variables file, status file, notes); tool is pt-mysql-summary, pt-stalk or
    MySQLTuner --dumpdir."""
    s = set(names)
    if "mysql-variables" in s:
        status = "mysql-status-defer" if "mysql-status-defer" in s else ("mysql-status" if "mysql-status" in s else None)
        return "pt-mysql-summary", "mysql-variables", status, []
    if "ifs_GLOBAL_VARIABLES.csv" in s:
        st = "ifs_GLOBAL_STATUS.csv" if "ifs_GLOBAL_STATUS.csv" in s else None
        return "MySQLTuner --dumpdir", "ifs_GLOBAL_VARIABLES.csv", st, []
    stamps = sorted({m.group(1) for n in names if (m := _STALK_PREFIX.match(n))})
    if stamps:
        last = stamps[-1]
        notes = [f"pt-stalk directory with {len(stamps)} collections; read the latest, {last}"] if len(stamps) > 1 else []
        v = f"{last}-variables" if f"{last}-variables" in s else None
        st = f"{last}-mysqladmin" if f"{last}-mysqladmin" in s else None
        return "pt-stalk", v, st, notes
    return "", None, None, []


def read_directory(path: str, fmt: Optional[str]) -> tuple[Input, Optional[Input]]:
    """--variables DIR: a pt-mysql-summary (--save-samples) or pt-stalk directory, or a MySQLTuner
    --dumpdir directory."""
    d = Path(path)
    try:
        names = sorted(p.name for p in d.iterdir() if p.is_file())
    except OSError as e:
        raise InvalidInputError(f"cannot list {path}: {e.strerror}.", "check the directory and its permissions.") from None
    tool, vfile, sfile, notes = plan_directory(names)
    defer = None
    if sfile == "mysql-status-defer":  # two samples for rates; the complete rows come from mysql-status
        defer = sfile
        sfile = "mysql-status" if "mysql-status" in names else None
    if vfile is None:
        raise InvalidInputError(
            f"{path} is a directory without a variables file: neither pt-mysql-summary's mysql-variables, pt-stalk's "
            "<time>-variables nor MySQLTuner's ifs_GLOBAL_VARIABLES.csv is in it.",
            "give the directory pt-mysql-summary --save-samples or pt-stalk wrote, or pass the files with "
            "--variables FILE --status FILE.")
    variables = read_dump(str(d / vfile), "variables", fmt)
    variables.notes[:0] = [f"{path}: {tool} directory"] + notes
    status = None
    if sfile is not None:
        status = read_dump(str(d / sfile), "status", None)
    if defer is not None:
        dpath = str(d / defer)
        try:
            samples = parse_status_defer(read_text(dpath))
        except DumpError as e:
            raise _fail(dpath, str(e)) from None
        if status is None:
            status = _pick(samples, dpath, "status")
        else:
            status.section.samples = samples.sections[0].samples
            status.notes.append(f"{dpath}: two status samples for rates over the time between them")
    return variables, status
