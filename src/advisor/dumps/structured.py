"""Dumps in structured formats: JSON (information_schema / performance_schema rows, mysqlsh, mysql
--json, ndjson, a {name: value} object, MySQLTuner --json) and CSV (MySQLTuner --dumpdir, NAME,VALUE
rows). Pure: text in, Dump out (advisor.dumps.formats lists every format and detects them)."""

from __future__ import annotations

import json
import re
from typing import Any

from advisor.dumps.model import Dump, DumpError, Row, Section
from advisor.dumps.rows import NAME_RE, check_name, is_header, text_lines

# ---------------------------------------------------------------- json

_NAME_KEYS = ("variable_name", "name", "variable")
_VALUE_KEYS = ("variable_value", "value")


def _json_scalar(v: Any, where: str) -> str:
    if v is None:
        return "NULL"  # stored as '' (and counted) by build.clean_rows, like a NULL in text dumps
    if isinstance(v, bool):
        return "ON" if v else "OFF"
    if isinstance(v, (int, float, str)):
        return str(v)
    raise DumpError(f"{where} is a JSON {type(v).__name__}, not a value")


def _rows_from_objects(items: list[Any], where: str) -> list[Row]:
    rows: list[Row] = []
    for i, obj in enumerate(items):
        if not isinstance(obj, dict):
            raise DumpError(f"{where} item {i + 1} is a JSON {type(obj).__name__}, not an object")
        low = {str(k).lower(): v for k, v in obj.items()}
        nk = next((k for k in _NAME_KEYS if k in low), None)
        vk = next((k for k in _VALUE_KEYS if k in low), None)
        if nk is None or vk is None:
            keys = ", ".join(list(obj)[:4])
            raise DumpError(f"{where} item {i + 1} has the keys {keys}; expected VARIABLE_NAME and VARIABLE_VALUE "
                            "(or Variable_name and Value)")
        rows.append((check_name(str(low[nk]), f"{where} item {i + 1}"), _json_scalar(low[vk], f"{where} item {i + 1}")))
    return rows


def parse_json(text: str) -> Dump:
    """The JSON shapes listed in the module docstring."""
    dump = Dump("json")
    from advisor.inputs import BadInput, load_json

    stripped = text.strip()
    try:
        doc: Any = load_json(stripped)
    except BadInput as e:
        raise DumpError(f"it cannot be read: {e}") from None
    except json.JSONDecodeError as e:
        lines = [ln for ln in text_lines(stripped) if ln.strip()]
        if len(lines) > 1 and all(ln.lstrip().startswith("{") for ln in lines):  # ndjson
            items = []
            for n, ln in enumerate(lines, 1):
                try:
                    items.append(load_json(ln))
                except BadInput as e2:
                    raise DumpError(f"line {n} cannot be read: {e2}") from None
                except json.JSONDecodeError as e2:
                    raise DumpError(f"line {n} is not valid JSON ({e2.msg})") from None
            doc = items
        else:
            raise DumpError(f"it is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if isinstance(doc, dict) and "schema_version" in doc and "target" in doc:
        raise DumpError("it is an advisor snapshot, not a dump; audit it with --snapshot")
    if isinstance(doc, dict) and isinstance(doc.get("Variables"), dict):  # MySQLTuner --json
        dump.format = "json"
        for key, kind in (("Variables", "variables"), ("Status", "status")):
            obj = doc.get(key)
            if isinstance(obj, dict):
                rows, dropped = [], 0
                for k, v in obj.items():
                    if not NAME_RE.match(str(k)) or isinstance(v, (dict, list)):
                        dropped += 1  # MySQLTuner's report mangles a few names (empty, leading '_')
                        continue
                    rows.append((str(k), _json_scalar(v, f"{key}.{k}")))
                dump.sections.append(Section(rows=rows, kind=kind, label=f"MySQLTuner {key}"))  # type: ignore[arg-type]
                if dropped:
                    dump.notes.append(f"dropped {dropped} {key} entries whose names MySQLTuner's --json report "
                                      "mangled (empty or not a variable name)")
        dump.notes.append("read the Variables and Status objects of a MySQLTuner --json report")
        return dump
    if isinstance(doc, dict) and isinstance(doc.get("rows"), list):  # mysqlsh --result-format=json (full)
        doc = doc["rows"]
    if isinstance(doc, list):
        if doc and all(isinstance(x, list) and len(x) == 2 for x in doc):  # [["name", "value"], ...]
            dump.sections.append(Section(rows=[(check_name(str(a), "a row"), _json_scalar(b, str(a))) for a, b in doc]))
            return dump
        dump.sections.append(Section(rows=_rows_from_objects(doc, "the array")))
        return dump
    if isinstance(doc, dict):
        if doc and all(isinstance(v, (str, int, float, bool)) or v is None for v in doc.values()):
            rows = [(check_name(str(k), "a key"), _json_scalar(v, str(k))) for k, v in doc.items()]
            dump.sections.append(Section(rows=rows))
            return dump
        keys = ", ".join(list(doc)[:5])
        raise DumpError(f"it is a JSON object with the keys {keys}, which is not a shape of variables this advisor reads")
    raise DumpError(f"it is a JSON {type(doc).__name__}, not rows of variables")


# ---------------------------------------------------------------- csv

TUNER_REC = re.compile(r'"([A-Za-z][A-Za-z0-9_]*)","')
CSV_LINE = re.compile(r'^\s*"?[A-Za-z][A-Za-z0-9_]*"?\s*,')


def parse_csv(text: str) -> Dump:
    """MySQLTuner --dumpdir records ("NAME","VALUE" with no separator between records, values not
    escaped), or ordinary CSV rows with an optional header."""
    dump = Dump("csv")
    body = text.strip()
    if not body.startswith('"') or not TUNER_REC.match(body):
        return _parse_plain_csv(body, dump)
    # Records start at `"NAME","` where the text before is the start or a closing quote; values may
    # contain quotes (ft_boolean_syntax is `+ -><()~*:""&|`), so the record boundary is found from
    # the next `"NAME","` rather than by unescaping.
    starts = [m for m in TUNER_REC.finditer(body)
              if m.start() == 0 or body[m.start() - 1] in '"\n']
    rows: list[Row] = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(body)
        chunk = body[m.end():end].rstrip("\r\n")
        if not chunk.endswith('"'):
            raise DumpError(f"the record of {m.group(1)} does not end with a closing quote")
        rows.append((m.group(1), chunk[:-1]))
    if not rows:
        raise DumpError('no "NAME","VALUE" record was found')
    dump.sections.append(Section(rows=rows))
    return dump


def _parse_plain_csv(body: str, dump: Dump) -> Dump:
    import csv
    import io

    rows: list[Row] = []
    for n, rec in enumerate(csv.reader(io.StringIO(body)), 1):
        if not rec or not any(c.strip() for c in rec):
            continue
        if len(rec) != 2:
            raise DumpError(f"CSV record {n} has {len(rec)} fields; expected two (name and value)")
        if n == 1 and is_header(rec[0], rec[1]):
            continue
        rows.append((check_name(rec[0], f"CSV record {n}"), rec[1]))
    if not rows:
        raise DumpError("the CSV has no name,value records")
    dump.sections.append(Section(rows=rows))
    return dump
