"""What every dump parser shares: the shape of a variable name, header rows, the mysql client's
prompt and "rows in set" lines, batch-mode escapes, and which kind of dump (variables or status) a
statement or a set of rows is. Pure."""

from __future__ import annotations

import re
from typing import Optional

from advisor.dumps.model import DumpError, Kind, Row

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)?$")  # component variables: name.var
HEADER_NAMES = {"variable_name", "name", "variable"}
HEADER_VALUES = {"value", "variable_value"}
SQL_LINE = re.compile(r"^\s*(?:mysql>\s*|MariaDB \[[^\]]*\]>\s*|[A-Za-z ]*\[[^\]]*\]>\s*)?"
                       r"(show|select)\b(.*?);?\s*(?:\\G)?\s*$", re.IGNORECASE)
ROWS_IN_SET = re.compile(r"^\s*(\d+|Empty) rows? in set", re.IGNORECASE)

# names that say which kind a list of rows is (lower case)
STATUS_MARKERS = {"uptime", "questions", "com_select", "threads_connected", "aborted_clients", "bytes_received",
                   "innodb_buffer_pool_reads", "connections", "threads_created", "ddl_schema_version",
                   "handler_read_rnd_next", "innodb_os_log_written", "opened_tables", "slow_queries"}
VARIABLE_MARKERS = {"version", "version_comment", "innodb_buffer_pool_size", "max_connections", "datadir",
                     "sql_mode", "port", "sort_buffer_size", "innodb_flush_log_at_trx_commit", "basedir",
                     "character_set_server", "tmpdir", "wait_timeout"}


def kind_of_statement(sql: str) -> Optional[Kind]:
    s = " ".join(sql.lower().split())
    if re.search(r"\bshow\b.*\bvariables\b", s) or re.search(r"\bglobal_variables\b", s):
        return "variables"
    if re.search(r"\bshow\b.*\bstatus\b", s) or re.search(r"\bglobal_status\b", s):
        return "status"
    return None


def infer_kind(rows: list[Row]) -> Optional[Kind]:
    """Variables or status, from the names the rows carry; None when they do not say."""
    names = {n.lower() for n, _ in rows}
    s, v = len(names & STATUS_MARKERS), len(names & VARIABLE_MARKERS)
    if s > v:
        return "status"
    if v > s:
        return "variables"
    if any(n.startswith("tidb_") for n in names):
        return "variables"
    if not rows:
        return None
    upper = sum(1 for n, _ in rows if n[:1].isupper() and not n.isupper())
    lower = sum(1 for n, _ in rows if n[:1].islower())
    if upper > 2 * lower:
        return "status"
    if lower > 2 * upper:
        return "variables"
    return None


# a name read between delimiters (tab, table cell, JSON key): also component variables and MySQL 9's
# status names such as `option_tracker_usage:Binary Log`
DELIMITED_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:$@ -]{0,127}$")


def check_name(name: str, where: str) -> str:
    n = name.strip()
    if not DELIMITED_NAME_RE.match(n):
        shown = n if len(n) <= 60 else n[:57] + "..."
        raise DumpError(f"{where} has {shown!r} where a variable name was expected")
    return n


def is_header(name: str, value: str) -> bool:
    return name.strip().lower() in HEADER_NAMES and value.strip().lower() in HEADER_VALUES


def batch_unescape(s: str) -> str:
    r"""mysql --batch writes tab, newline, backslash and NUL in values as \t \n \\ \0."""
    if "\\" not in s:
        return s
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            rep = {"t": "\t", "n": "\n", "\\": "\\", "0": "\0"}.get(nxt)
            if rep is not None:
                out.append(rep)
                i += 2
                continue
        out.append(c)
        i += 1
    return "".join(out)


def text_lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
