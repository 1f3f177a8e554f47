"""Pure parsers for the saved source extracts in tools/catalogue/sources/ (see PROVENANCE.md there).

Each reads the text of one extract and returns plain data; build.py combines them.
"""

from __future__ import annotations

import json
import re
from typing import Any

_HELP_HEADER = re.compile(r"^Variables \(--variable-name=value\)\s*$", re.M)


def parse_help_variables(text: str) -> dict[str, str]:
    """The "Variables (--variable-name=value)" table of `mysqld/mariadbd --verbose --help`:
    option name (with dashes, as printed) -> value after reading options ("" when the server
    prints "(No default value)")."""
    m = _HELP_HEADER.search(text)
    if m is None:
        raise ValueError("no 'Variables (--variable-name=value)' section in the help text")
    out: dict[str, str] = {}
    started = False
    for line in text[m.end():].splitlines():
        if not started:
            if line.startswith("-----"):
                started = True
            continue
        if not line.strip():
            break
        name, _, value = line.partition(" ")
        value = value.strip()
        out[name] = "" if value == "(No default value)" else value
    return out


def tsv_rows(text: str) -> list[dict[str, str]]:
    """A tab-separated extract: '#' comment lines, then a header line, then rows."""
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    if not lines:
        return []
    header = lines[0].split("\t")
    rows = []
    for n, ln in enumerate(lines[1:], 2):
        cells = ln.split("\t")
        if len(cells) < len(header):
            cells += [""] * (len(header) - len(cells))
        if len(cells) != len(header):
            raise ValueError(f"row {n}: {len(cells)} cells for {len(header)} columns: {ln!r}")
        rows.append(dict(zip(header, cells)))
    return rows


def parse_system_variables(text: str) -> dict[str, Any]:
    """mariadb-<version>-system-variables.json: {"server": {...}, "variables": {name: row}}."""
    raw = json.loads(text)
    return {"server": raw["server"], "variables": {v["VARIABLE_NAME"]: v for v in raw["variables"]}}


def parse_lifecycle(text: str) -> dict[str, dict[str, str]]:
    """name -> {added|deprecated|removed: version} from a refman added/deprecated/removed extract.
    Option names keep their dashes (they are options, not variables)."""
    out: dict[str, dict[str, str]] = {}
    for r in tsv_rows(text):
        out.setdefault(r["name"], {})[r["event"]] = r["version"]
    return out


def parse_reference(text: str) -> dict[str, dict[str, Any]]:
    """name -> {scope, dynamic} from the 8.4 system variable reference extract."""
    return {r["name"]: {"scope": r["scope"], "dynamic": r["dynamic"] == "yes"} for r in tsv_rows(text)}
