"""One parse function per dump format, and format detection. Pure: text in, Dump out, no I/O.

Formats (ids used by --input-format):

  tab       `mysql -NBe 'SHOW GLOBAL VARIABLES'` (with or without the Variable_name/Value header),
            `mysql -ss -e` as pt-mysql-summary writes it (its `internal::` / `pt-summary-internal-*`
            trailer lines are read for the collection time and dropped), pt-stalk's `*-variables`
            file (sections headed by the SQL statement), and the `NAME VALUE1 VALUE2` lines of
            pt-mysql-summary's `mysql-status-defer`. Batch-mode escapes (\\t \\n \\\\ \\0) are decoded.
  table     the mysql client's table format (+----+ borders), including values that contain `|`,
            several tables in one paste with `mysql>` prompts and "N rows in set" lines around
            them, and `mysqladmin extended-status [-i N]` (pt-stalk's `*-mysqladmin`), whose
            repeated samples are kept.
  vertical  `\\G` output: `*** 1. row ***` blocks of `Variable_name: x` / `Value: y`.
  json      a JSON array of objects ({"VARIABLE_NAME", "VARIABLE_VALUE"} from information_schema or
            performance_schema, {"Variable_name", "Value"} from `mysqlsh --result-format=json/array`
            or `mysql --json`), the same one object per line (ndjson), MySQL Shell's
            {"rows": [...]} document, a plain {"name": "value"} object, and MySQLTuner's
            `--json` report (its "Variables" and "Status" objects).
  csv       MySQLTuner `--dumpdir` files (ifs_GLOBAL_VARIABLES.csv: "NAME","VALUE" records, with or
            without a line break between them) and ordinary CSV with an optional header row.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from advisor.dumps.model import Dump, DumpError, Kind, Row, Section
from advisor.dumps.rows import (HEADER_NAMES, HEADER_VALUES, NAME_RE, ROWS_IN_SET, SQL_LINE, batch_unescape,
                                check_name, infer_kind, is_header, kind_of_statement, text_lines)
from advisor.dumps.structured import CSV_LINE, TUNER_REC, parse_csv, parse_json

__all__ = ["FORMATS", "PARSERS", "detect", "formats_sentence", "infer_kind", "kind_of_statement", "parse",
           "parse_csv", "parse_json", "parse_status_defer", "parse_table", "parse_tab", "parse_vertical"]

FORMATS: dict[str, str] = {
    "tab": "tab-separated NAME<TAB>VALUE lines (`mysql -NBe`, with or without a header; pt-mysql-summary, pt-stalk)",
    "table": "the mysql client's table format (+----+ borders; also `mysqladmin extended-status`)",
    "vertical": "`\\G` vertical output (`*** 1. row ***`, `Variable_name:`, `Value:`)",
    "json": "JSON: rows of {VARIABLE_NAME, VARIABLE_VALUE} or {Variable_name, Value} (information_schema, "
            "performance_schema, mysqlsh, mysql --json), a {name: value} object, MySQLTuner --json",
    "csv": "CSV: MySQLTuner --dumpdir ifs_GLOBAL_VARIABLES.csv / ifs_GLOBAL_STATUS.csv, or NAME,VALUE rows",
}


def formats_sentence() -> str:
    """The formats this package reads, for error messages."""
    return ("tab-separated `mysql -NBe` output (with or without a header), the mysql table format, `\\G` vertical "
            "output, JSON rows of VARIABLE_NAME/VARIABLE_VALUE (information_schema, performance_schema, mysqlsh, "
            "MySQLTuner --json), MySQLTuner --dumpdir CSV, and pt-mysql-summary / pt-stalk directories")


# ---------------------------------------------------------------- tab

_PT_TRAILER = re.compile(r"^(?:internal::\S+|pt-summary-internal-\S+)(?:\s+(.*))?$")


def parse_tab(text: str) -> Dump:
    """NAME<TAB>VALUE lines. See the module docstring for the variants read."""
    dump = Dump("tab")
    current = Section()
    sections: list[Section] = []
    trailer = 0
    skipped: dict[str, int] = {}
    lines = text_lines(text)
    spaces = not any("\t" in ln for ln in lines)  # copied from a terminal: tabs became spaces
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        m = _PT_TRAILER.match(line)
        if m:
            trailer += 1
            if line.split()[0] == "pt-summary-internal-now" and m.group(1):
                dump.collected_at = m.group(1).strip()
            continue
        if "\t" not in line:
            if SQL_LINE.match(line):  # pt-stalk writes the statement above each result
                if current.rows or current.label:
                    sections.append(current)
                current = Section(kind=kind_of_statement(line), label=line.strip())
                continue
            if ROWS_IN_SET.match(line):
                continue
            parts = line.split(None, 1)
            if spaces and NAME_RE.match(parts[0]):
                name, value = parts[0], (parts[1].strip() if len(parts) > 1 else "")
                if is_header(name, value):
                    continue
                current.rows.append((name, value))
                continue
            raise DumpError(f"line {lineno} ({_shorten(line)!r}) has no tab between a name and a value")
        name, _, value = line.partition("\t")
        if is_header(name, value.split("\t")[0]):
            continue
        if "\t" in value:
            if current.label and current.kind is None:
                skipped[current.label] = skipped.get(current.label, 0) + 1
                continue  # pt-stalk's performance_schema.variables_by_thread section (three columns)
            raise DumpError(f"line {lineno} has {line.count(chr(9)) + 1} tab-separated columns; a SHOW "
                            "VARIABLES/STATUS dump has two (name and value)")
        current.rows.append((check_name(name, f"line {lineno}"), batch_unescape(value)))
    if current.rows or current.label:
        sections.append(current)
    if spaces:
        dump.notes.append("the file has no tabs (copied from a terminal?); each line was split at its first run of "
                          "spaces, so leading spaces of values are lost")
    if trailer:
        dump.notes.append(f"dropped {trailer} pt-mysql-summary trailer lines (internal::, pt-summary-internal-*)")
    for s in sections:
        if s.label and s.kind is None:
            n = len(s.rows) + skipped.get(s.label, 0)
            if n:
                dump.notes.append(f"skipped the result of `{_shorten(s.label)}` ({n} rows)")
            continue
        if s.rows:
            dump.sections.append(s)
    return dump


def parse_status_defer(text: str) -> Dump:
    """pt-mysql-summary's mysql-status-defer: `join` of two SHOW STATUS samples, `NAME V1 V2` per
    line (space-separated). Rows whose values contain spaces cannot be split and are skipped."""
    dump = Dump("tab")
    first: list[Row] = []
    second: list[Row] = []
    skipped = 0
    for line in text_lines(text):
        parts = line.split(" ")
        if not line.strip():
            continue
        if len(parts) == 3 and NAME_RE.match(parts[0]):
            first.append((parts[0], parts[1]))
            second.append((parts[0], parts[2]))
        else:
            skipped += 1
    if not first:
        raise DumpError("no `NAME VALUE1 VALUE2` line was found")
    dump.sections.append(Section(rows=second, kind="status", samples=[first, second], label="mysql-status-defer"))
    if skipped:
        dump.notes.append(f"mysql-status-defer: skipped {skipped} lines whose values contain spaces")
    return dump


def _shorten(s: str, n: int = 60) -> str:
    s = s.strip()
    return s if len(s) <= n else s[: n - 3] + "..."


# ---------------------------------------------------------------- table

_BORDER = re.compile(r"^\s*\+(?:-+\+)+\s*$")


def _split_table_row(line: str, widths: Optional[list[int]]) -> list[str]:
    """Cells of a `| a | b |` row. With the border's column widths, cells are cut at the
    positions of the border's '+', so a value containing '|' stays whole."""
    s = line.strip()
    if widths:
        cells, pos = [], 1
        body = s.rstrip()
        for i, w in enumerate(widths):
            if i == len(widths) - 1:
                cell = body[pos:]
                cell = cell[:-1] if cell.endswith("|") else cell
            else:
                cell = body[pos:pos + w]
            cells.append(cell)
            pos += w + 1
        if len(body) == sum(widths) + len(widths) + 1 and body.endswith("|"):
            return [c.strip() for c in cells]
    inner = s[1:-1] if s.endswith("|") else s[1:]
    parts = inner.split("|")
    if widths and len(parts) > len(widths):  # misaligned row: first cell is the name, the rest is the value
        return [parts[0].strip(), "|".join(parts[1:]).strip()]
    return [p.strip() for p in parts]


def parse_table(text: str) -> Dump:
    """The mysql client's table format; see the module docstring."""
    dump = Dump("table")
    sections: list[Section] = []
    current: Optional[Section] = None
    widths: Optional[list[int]] = None
    state = "out"  # out -> header -> body
    pending_kind: Optional[Kind] = None
    pending_label = ""
    n_tables = 0
    for lineno, raw in enumerate(text_lines(text), 1):
        line = raw.rstrip()
        stripped = line.strip()
        if _BORDER.match(line):
            cols = [len(c) for c in stripped.strip("+").split("+")]
            if state == "out":
                widths, state = cols, "header"
                current = Section(kind=pending_kind, label=pending_label)
                pending_kind, pending_label = None, ""
                n_tables += 1
            elif state == "header":
                state = "body"
            elif state == "body":
                # end of this table; a mysqladmin sample is followed by the next border directly
                assert current is not None
                sections.append(current)
                current, state = None, "out"
            continue
        if stripped.startswith("|") and state in ("header", "body"):
            cells = _split_table_row(stripped, widths)
            if state == "header":
                if len(cells) < 2 or not is_header(cells[0], cells[1]):
                    # a table that is not NAME/VALUE (e.g. SHOW ENGINES in the same paste)
                    assert current is not None
                    current.label = current.label or "a table with columns " + ", ".join(cells[:4])
                    current.kind = None
                    state = "skip"
                continue
            if len(cells) != 2:
                raise DumpError(f"line {lineno} has {len(cells)} columns; a SHOW VARIABLES/STATUS table has two")
            assert current is not None
            current.rows.append((check_name(cells[0], f"line {lineno}"), cells[1]))
            continue
        if state == "skip":
            if _BORDER.match(line) or stripped.startswith("|"):
                continue
            state = "out"
        if state == "header":  # a border with no header row under it
            raise DumpError(f"line {lineno} ({_shorten(stripped)!r}) follows a table border where a "
                            "Variable_name | Value header was expected")
        # text around the tables: prompts, statements, "N rows in set", prose of a pasted session
        sql = SQL_LINE.match(stripped)
        if sql:
            pending_kind, pending_label = kind_of_statement(stripped), stripped
    if state == "body" and current is not None:
        raise DumpError("the last table has no closing +----+ border; the file may be truncated")
    if current is not None and state != "out" and current.rows:
        sections.append(current)
    dump.sections = _merge_samples(sections, dump)
    if n_tables == 0:
        raise DumpError("no +----+ table border was found")
    return dump


def _merge_samples(sections: list[Section], dump: Dump) -> list[Section]:
    """Tables that repeat the same names are samples of one status result (mysqladmin ext -i);
    tables with different names are separate results (e.g. two LIKE queries in one paste)."""
    out: list[Section] = []
    skipped = [s for s in sections if s.kind is None and s.label.startswith("a table with columns")]
    for s in skipped:
        dump.notes.append(f"skipped {s.label}")
    sections = [s for s in sections if s not in skipped]
    for s in sections:
        prev = out[-1] if out else None
        if prev is not None and prev.rows and s.rows and [n for n, _ in prev.rows[:5]] == [n for n, _ in s.rows[:5]]:
            if not prev.samples:
                prev.samples.append(prev.rows)
            prev.samples.append(s.rows)
            prev.rows = s.rows
            continue
        out.append(s)
    for s in out:
        if s.samples:
            dump.notes.append(f"read {len(s.samples)} samples of the same counters (mysqladmin extended-status -i)")
    return out


# ---------------------------------------------------------------- vertical (\G)

_ROW_SEP = re.compile(r"^\s*\*+\s*\d+\.\s*row\s*\*+\s*$")
_KV = re.compile(r"^\s*([A-Za-z_]+)\s*:\s?(.*)$")


def parse_vertical(text: str) -> Dump:
    r"""`\G` output: blocks of `Variable_name: x` and `Value: y` lines (or VARIABLE_NAME/VARIABLE_VALUE)."""
    dump = Dump("vertical")
    section = Section()
    sections = [section]
    pending_kind: Optional[Kind] = None
    name: Optional[str] = None
    blocks = 0
    in_row = False
    last_value_row: Optional[int] = None
    for lineno, raw in enumerate(text_lines(text), 1):
        line = raw.rstrip()
        if _ROW_SEP.match(line):
            if name is not None:
                raise DumpError(f"the row before line {lineno} has a Variable_name but no Value")
            if pending_kind is not None and section.rows:
                section = Section()
                sections.append(section)
            if pending_kind is not None:
                section.kind, pending_kind = pending_kind, None
            blocks += 1
            in_row = True
            last_value_row = None
            continue
        if not in_row:
            sql = SQL_LINE.match(line.strip())
            if sql:
                pending_kind = kind_of_statement(line)
            continue
        if ROWS_IN_SET.match(line) or SQL_LINE.match(line.strip()):
            in_row = False
            sql = SQL_LINE.match(line.strip())
            if sql:
                pending_kind = kind_of_statement(line)
            continue
        m = _KV.match(line)
        if m and m.group(1).lower() in HEADER_NAMES:
            name = check_name(m.group(2), f"line {lineno}")
            continue
        if m and m.group(1).lower() in HEADER_VALUES:
            if name is None:
                raise DumpError(f"line {lineno} has a Value with no Variable_name above it")
            section.rows.append((name, m.group(2)))
            last_value_row = len(section.rows) - 1
            name = None
            continue
        if last_value_row is not None and line.strip():  # a value that spans lines (a PEM key)
            n, v = section.rows[last_value_row]
            section.rows[last_value_row] = (n, v + "\n" + line)
            continue
    if blocks == 0:
        raise DumpError("no `*** 1. row ***` separator was found")
    dump.sections = [s for s in sections if s.rows]
    return dump


# ---------------------------------------------------------------- detection

PARSERS: dict[str, Callable[[str], Dump]] = {
    "tab": parse_tab, "table": parse_table, "vertical": parse_vertical, "json": parse_json, "csv": parse_csv,
}


def detect(text: str) -> Optional[str]:
    """The format id of a dump's text, or None when it looks like none of them."""
    body = text.lstrip("\ufeff").strip()
    if not body:
        return None
    if re.match(r"[\[{]\s*[\[{\"\]}]", body) or (body[0] == "{" and len(body) < 3):
        return "json"
    if re.match(r"^(?:[#;].*\n|\s*\n)*\s*\[[A-Za-z0-9_.-]+\]\s*$", body.split("\n=")[0], re.M):
        raise DumpError("it looks like a MySQL option file (my.cnf), not SHOW VARIABLES output; "
                        "`advisor mycnf` reads option files")
    head = text_lines(body)[:400]
    if body.startswith('"') and TUNER_REC.match(body):
        return "csv"
    if any(_ROW_SEP.match(ln) for ln in head) and any(_KV.match(ln) for ln in head):
        return "vertical"
    if any(_BORDER.match(ln) for ln in head) and any(ln.strip().startswith("|") for ln in head):
        return "table"
    if sum(1 for ln in head if "\t" in ln) >= max(1, len([ln for ln in head if ln.strip()]) // 3):
        return "tab"
    lines = [ln for ln in head if ln.strip()]
    if lines and sum(1 for ln in lines if CSV_LINE.match(ln)) > len(lines) // 2:
        return "csv"
    firsts = [ln.split(None, 1)[0] for ln in lines]
    if (len(lines) >= 3 and sum(1 for w in firsts if NAME_RE.match(w)) > len(lines) * 0.9
            and sum(1 for w in firsts if "_" in w) >= len(lines) // 2):
        return "tab"  # NAME VALUE with spaces (a terminal copy)
    return None


def parse(text: str, fmt: Optional[str] = None) -> Dump:
    """Parse a dump, detecting the format unless `fmt` names one. Raises DumpError."""
    body = text.lstrip("\ufeff")
    if not body.strip():
        raise DumpError("it is empty")
    if "\x00" in body[:65536]:
        raise DumpError("it is a binary file (it contains NUL bytes), not a text dump")
    if fmt is None:
        fmt = detect(body)
        if fmt is None:
            first = next((ln for ln in text_lines(body) if ln.strip()), "")
            raise DumpError(f"its first line ({_shorten(first)!r}) matches none of the formats")
    if fmt not in PARSERS:
        raise DumpError(f"{fmt!r} is not an input format (use one of {', '.join(PARSERS)})")
    dump = PARSERS[fmt](body)
    if not any(s.rows for s in dump.sections):
        raise DumpError(f"it holds no name/value rows as {fmt}")
    for s in dump.sections:
        if s.kind is None:
            s.kind = infer_kind(s.rows)
    return dump
