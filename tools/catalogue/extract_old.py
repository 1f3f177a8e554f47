"""Write the extracts of the older releases (MySQL 5.6 / 5.7, Percona Server 5.7, MariaDB 10.4) into sources/
from source trees brought onto this machine with the `fetch` tool (git directories; provenance in
sources/PROVENANCE.md), and the MariaDB help-table extracts from result text saved from the search index.

    .venv/bin/python -m tools.catalogue.extract_old /work/.mirror
    .venv/bin/python -m tools.catalogue.extract_old --mariadb-help LABEL FILE   # a saved mysqld--help.result

Each extract holds facts (names, scopes, flags, defaults, limits), not a copy of the source. The build
(tools/catalogue/build.py) reads only the extracts; this tool is needed only to re-extract.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

SOURCES = Path(__file__).resolve().parent / "sources"

# (extract prefix, mirror directory, path prefix inside the tree, commit)
MYSQL_TREES = [
    ("mysql-5.6.29", "dolphinsboy+mysql-5.6.29", "", "41774d78445a12ad0b1b3f9a61d030fe654a7989"),
    ("mysql-5.7.22", "hwCloudRDS+mysql-5.7", "", "11250ebaffaa99c3e1a485f856072582d1692db6"),
    ("mysql-5.7.41", "adofsauron+mysql-5.7.41-dev", "origin/mysql-5.7.41/", "a5933a0c0a8148c1e28bfa7420e8a5b721215748"),
]
# MySQL 8.0 trees read for their help table and InnoDB variables only (second sightings of 8.0 defaults)
MYSQL80_TREES = [
    ("mysql-8.0.27", "LeileiChui+mysql-8.0.27", "", "590b7c7dbc114704ac711ae32b4c56b57106bc9a"),
    ("mysql-8.0.32", "adofsauron+mysql-8.0.32-dev", "origin/mysql-8.0.32/", "5bc8bbbb63c40293490603685dc6e7ead61c07a0"),
]
MARIADB_TREES = [
    ("mariadb-10.4.12", "NathanYu17724+MariaDB", "", "4bed139c39a77d6cd0616fed593a2027270840d0"),
]
# Percona Server 5.7 (VERSION 5.7.22-22): a study copy whose owner added two variables named gaopeng* (its README)
PERCONA57_TREES = [
    ("percona-5.7.22", "gaopengcarl+percona-server-locks-detail-5.7.22", "", "2f8823f2d6548193fc07f76d675decb2a48d103e"),
]
PERCONA_VENDOR_ONLY = re.compile(r"^(innodb[-_])?gaopeng[-_]")
# MariaDB mysqld--help.result "Variables" tables read page by page with the search tool's read_file and saved
# as text (the index stores single files of forks of MariaDB/server, not whole trees; PROVENANCE.md)
MARIADB_HELP_FILES = {
    "10.6-snapshot": "olernov-9fbf1db-mysqld--help.result.variables",
    "11.4-snapshot": "deankamali-917c99f-mysqld--help.result.variables",
}
# Options the Huawei Cloud RDS trees add to upstream MySQL (not in any MySQL release).
VENDOR_ONLY = re.compile(r"^(rds[-_]|combine[-_]engine[-_]log[-_]flush[-_]threshold|extra[-_]max[-_]connections|extra[-_]port|innodb[-_]cleaner[-_]real[-_]time)")


def show(mirror: Path, d: str, commit: str, path: str) -> str:
    return subprocess.run(["git", f"--git-dir={mirror / d / 'repo'}", "show", f"{commit}:{path}"],
                          check=True, capture_output=True, text=True, errors="replace").stdout


def help_table(text: str) -> list[tuple[str, str]]:
    """The 'Variables (--variable-name=value)' table of mysqld--help-notwin.result (5.x prints no dashes line)."""
    start = text.index("Variables (--variable-name=value)")
    out = []
    for ln in text[start:].splitlines()[1:]:
        if ln.startswith(("-----", "and boolean options")):
            continue
        if not ln.strip():
            break
        name, _, value = ln.partition(" ")
        value = value.strip()
        out.append((name, "" if value == "(No default value)" else value))
    return out


def _split_args(s: str) -> list[str]:
    """Top-level comma-separated arguments, strings and parentheses respected."""
    args, depth, cur, i, q = [], 0, [], 0, None
    while i < len(s):
        c = s[i]
        if q:
            cur.append(c)
            if c == "\\":
                cur.append(s[i + 1])
                i += 1
            elif c == q:
                q = None
        elif c in "\"'":
            q = c
            cur.append(c)
        elif c == "(":
            depth += 1
            cur.append(c)
        elif c == ")":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        args.append("".join(cur).strip())
    return args


def _call_body(text: str, open_at: int) -> str:
    """The text between the parenthesis at open_at and its match."""
    depth, q, i = 0, None, open_at
    while i < len(text):
        c = text[i]
        if q:
            if c == "\\":
                i += 1
            elif c == q:
                q = None
        elif c in "\"'":
            q = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:i]
        i += 1
    raise ValueError("unbalanced call")


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


_NUM_SUFFIX = re.compile(r"(?<=\d)(ULL|LL|UL|L|U)\b", re.I)
_CONSTS = {"ULONG_MAX": 2 ** 64 - 1, "ULONGLONG_MAX": 2 ** 64 - 1, "LONG_MAX": 2 ** 63 - 1, "LLONG_MAX": 2 ** 63 - 1,
           "UINT_MAX": 2 ** 32 - 1, "UINT_MAX32": 2 ** 32 - 1, "INT_MAX": 2 ** 31 - 1, "INT_MAX32": 2 ** 31 - 1,
           "UINT_MAX16": 65535, "INT_MAX16": 32767, "TRUE": 1, "FALSE": 0, "true": 1, "false": 0,
           "IO_SIZE": 4096, "KEY_CACHE_SIZE": 8 * 1024 * 1024, "KEY_CACHE_BLOCK_SIZE": 1024, "MALLOC_OVERHEAD": 8}


def _eval(expr: str) -> Optional[str]:
    """A literal or a constant arithmetic expression as a decimal string; a quoted string as its text;
    None when it names anything else (a default computed or set elsewhere: not known from here)."""
    e = expr.strip()
    e = re.sub(r"static_cast<[^>]+>", "", e)
    e = re.sub(r"\((u?long(long)?|u?int|double|ha_rows|my_off_t|size_t|uint32|ulong|longlong|ulonglong)\)", "", e)
    if re.fullmatch(r'"(?:[^"\\]|\\.)*"(\s*"(?:[^"\\]|\\.)*")*', e):
        return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', e))
    if e in ("0", "NULL", "nullptr", "0UL", "0L"):
        return "0" if e != "NULL" and e != "nullptr" else None
    for k, v in _CONSTS.items():
        e = re.sub(rf"\b{k}\b", str(v), e)
    e = _NUM_SUFFIX.sub("", e)
    if not re.fullmatch(r"[\d\s+\-*/().~<>xXa-fA-F]*", e) or re.search(r"[a-wyzA-WYZ_]", e):
        return None
    try:
        v = eval(e.replace("~0", "(2**64-1)").replace("/", "//"), {"__builtins__": {}}, {})  # noqa: S307 - digits only
    except Exception:
        return None
    return str(int(v)) if isinstance(v, (int, float)) else None


def sys_vars(text: str) -> list[dict[str, str]]:
    """Every `static Sys_var_<class> Sys_x("name", ...)` definition of sql/sys_vars.cc."""
    text = _strip_comments(text)
    out = []
    for m in re.finditer(r"static\s+Sys_var_(\w+)\s+\w+\s*\(", text):
        body = _call_body(text, m.end() - 1)
        args = _split_args(body)
        nm = re.fullmatch(r'"(\w+)"', args[0]) if args else None
        if not nm:
            continue
        joined = " ".join(args)
        scope = ("session" if "SESSION_ONLY(" in joined else "both" if "SESSION_VAR(" in joined
                 else "global" if "GLOBAL_VAR(" in joined else "")
        rng = re.search(r"VALID_RANGE\((.*)", joined)
        lo = hi = ""
        if rng:
            r = _split_args(_call_body(joined, joined.index("(", rng.start())))
            lo, hi = (_eval(r[0]) or ""), (_eval(r[1]) or "")
        d = next((a for a in args if a.startswith("DEFAULT(")), None)
        default = "" if d is None else (_eval(d[len("DEFAULT("):-1]) if d.endswith(")") else None)
        out.append({"name": nm.group(1), "class": m.group(1), "scope": scope,
                    "read_only": "yes" if re.search(r"\bREAD_ONLY\b", joined) else "no",
                    "min": lo, "max": hi, "default": "" if default is None else default,
                    "default_known": "no" if d is None or default is None else "yes",
                    "deprecated": "yes" if re.search(r"\bDEPRECATED(_VAR)?\(", joined) else "no"})
    return out


def innodb_sysvars(text: str) -> list[dict[str, str]]:
    """The MYSQL_SYSVAR_* / MYSQL_THDVAR_* definitions of ha_innodb.cc that innobase_system_variables[]
    lists, with build = debug for the entries under #ifdef UNIV_DEBUG there."""
    clean = _strip_comments(text)
    arr = clean[clean.index("innobase_system_variables[]"):]
    arr = arr[:arr.index("NULL")]
    listed: dict[str, str] = {}
    depth_debug = []
    for ln in arr.splitlines():
        s = ln.strip()
        if s.startswith("#if"):
            depth_debug.append(any(k in s for k in ("DEBUG", "DBUG_OFF", "UNIV_LOG_ARCHIVE")))  # not built in a release
        elif s.startswith("#else") and depth_debug:
            depth_debug[-1] = not depth_debug[-1]
        elif s.startswith("#endif") and depth_debug:
            depth_debug.pop()
        for name in re.findall(r"MYSQL_SYSVAR\((\w+)\)", s):
            listed[name] = "debug" if any(depth_debug) else "release"
    out = []
    for m in re.finditer(r"static\s+MYSQL_(SYSVAR|THDVAR)_(\w+)\s*\(", clean):
        args = _split_args(_call_body(clean, m.end() - 1))
        name = args[0]
        if name not in listed:
            continue
        kind, typ = m.group(1), m.group(2)
        a = args[2:] if kind == "SYSVAR" else args[1:]  # flags, comment, check, update, default, min, max, blk
        flags = a[0]
        default = _eval(a[4]) if len(a) > 4 else None
        if typ == "BOOL" and default is not None:
            default = "ON" if default not in ("0", "") else "OFF"
        if typ in ("ENUM", "SET"):
            default = None  # an index into the typelib: read from the manual, not from here
        lo = _eval(a[5]) if len(a) > 6 and typ not in ("ENUM", "SET", "BOOL", "STR") else None
        hi = _eval(a[6]) if len(a) > 6 and typ not in ("ENUM", "SET", "BOOL", "STR") else None
        if VENDOR_ONLY.match("innodb_" + name):
            continue
        out.append({"name": "innodb_" + name, "type": typ, "scope": "both" if kind == "THDVAR" else "global",
                    "read_only": "yes" if "PLUGIN_VAR_READONLY" in flags else "no",
                    "build": listed[name], "default": "" if default is None else default,
                    "default_known": "no" if default is None else "yes", "min": lo or "", "max": hi or ""})
    return sorted(out, key=lambda r: r["name"])


_RESULT_FIELDS = ("VARIABLE_NAME", "SESSION_VALUE", "DEFAULT_VALUE", "VARIABLE_SCOPE", "VARIABLE_TYPE",
                  "VARIABLE_COMMENT", "NUMERIC_MIN_VALUE", "NUMERIC_MAX_VALUE", "NUMERIC_BLOCK_SIZE",
                  "ENUM_VALUE_LIST", "READ_ONLY", "COMMAND_LINE_ARGUMENT", "GLOBAL_VALUE_PATH")


def sysvars_result(text: str) -> list[dict[str, str]]:
    """The vertical rows (`FIELD<TAB>value`) of MariaDB's mysql-test/suite/sys_vars/r/sysvars_*.result."""
    rows, cur = [], None
    for ln in text.splitlines():
        field, tab, value = ln.partition("\t")
        if not tab or field not in _RESULT_FIELDS:
            continue
        if field == "VARIABLE_NAME":
            cur = {"VARIABLE_NAME": value.lower()}
            rows.append(cur)
        elif cur is not None:
            cur[field] = value
    return rows


def _tsv(path: Path, head: str, cols: list[str], rows: list[dict[str, str]]) -> None:
    lines = [f"# {ln}" for ln in head.splitlines()] + ["\t".join(cols)]
    lines += ["\t".join(r.get(c, "").replace("\t", " ") for c in cols) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {path.name} ({len(rows)} rows)")


def mariadb_help(label: str, text: str) -> None:
    """mariadb-<label>-help-variables.tsv from the text of a mysql-test/main/mysqld--help.result (whole or its
    "Variables" section)."""
    rows = [{"option": n, "value": v} for n, v in help_table(text)]
    _tsv(SOURCES / f"mariadb-{label}-help-variables.tsv",
         f"mariadbd --verbose --help of a MariaDB {label.replace('-snapshot', '')} source snapshot as recorded by\n"
         "mysql-test/main/mysqld--help.result (PROVENANCE.md: repository, commit, the releases it lies between).\n"
         "value: the 'Variables (--variable-name=value)' column ('' for '(No default value)'); the test runs with\n"
         "--symbolic-links=0 --log-bin=foo --lower-case-table-names=1 and mysql-test-run's bootstrap options.",
         ["option", "value"], rows)


def _help_options(mirror: Path, pre: str, d: str, sub: str, commit: str, vendor_only: Any, head: str) -> None:
    """<pre>-help-options.tsv: the Variables table of a tree's mysqld--help-notwin.result, without the rows
    `vendor_only` matches."""
    text = show(mirror, d, commit, sub + "mysql-test/r/mysqld--help-notwin.result")
    rows = [{"option": n, "value": v} for n, v in help_table(text) if not vendor_only.match(n)]
    _tsv(SOURCES / f"{pre}-help-options.tsv", head, ["option", "value"], rows)


def percona57(mirror: Path) -> None:
    for pre, d, sub, commit in PERCONA57_TREES:
        ver = pre.split("-")[1]
        _help_options(mirror, pre, d, sub, commit, PERCONA_VENDOR_ONLY,
                      f"mysqld --verbose --help of Percona Server {ver}-22 as recorded by mysql-test/r/mysqld--help-notwin.result\n"
                      "(PROVENANCE.md). value: the 'Variables (--variable-name=value)' column ('' for '(No default value)'); the\n"
                      "test runs with mysql-test settings and filters machine-dependent rows. InnoDB is not in this test.")
        sv = [r for r in sys_vars(show(mirror, d, commit, sub + "sql/sys_vars.cc")) if not PERCONA_VENDOR_ONLY.match(r["name"])]
        _tsv(SOURCES / f"{pre}-sys-vars.tsv",
             f"The Sys_var_* definitions of sql/sys_vars.cc of Percona Server {ver}-22 (PROVENANCE.md), columns as for the\n"
             "MySQL 5.7 extracts. The copy's two added variables (gaopeng*) are dropped.",
             ["name", "class", "scope", "read_only", "min", "max", "default", "default_known", "deprecated"], sv)
        inn = [r for r in innodb_sysvars(show(mirror, d, commit, sub + "storage/innobase/handler/ha_innodb.cc"))
               if not PERCONA_VENDOR_ONLY.match(r["name"])]
        _tsv(SOURCES / f"{pre}-innodb-sysvars.tsv",
             f"The InnoDB variables of storage/innobase/handler/ha_innodb.cc of Percona Server {ver}-22 (PROVENANCE.md),\n"
             "columns as for the MySQL 5.7 extracts (XtraDB's own variables included).",
             ["name", "type", "scope", "read_only", "build", "default", "default_known", "min", "max"], inn)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--mariadb-help"]:  # --mariadb-help LABEL FILE
        mariadb_help(argv[1], Path(argv[2]).read_text(encoding="utf-8"))
        return 0
    if argv[:1] == ["--percona"]:  # --percona [MIRROR]: the Percona Server 5.7 tree only
        percona57(Path(argv[1] if len(argv) > 1 else "/work/.mirror"))
        return 0
    mirror = Path(argv[0] if argv else "/work/.mirror")
    percona57(mirror)
    for pre, d, sub, commit in MYSQL_TREES + MYSQL80_TREES:
        ver = pre.split("-")[1]
        _help_options(mirror, pre, d, sub, commit, VENDOR_ONLY,
                      f"mysqld --verbose --help of MySQL {ver} as recorded by mysql-test/r/mysqld--help-notwin.result (PROVENANCE.md).\n"
                      "value: the 'Variables (--variable-name=value)' column ('' for '(No default value)'); the test runs with\n"
                      "mysql-test settings and filters machine-dependent rows. InnoDB is not in this test. Vendor-only rows dropped.")
        if pre.startswith("mysql-8."):
            inn = innodb_sysvars(show(mirror, d, commit, sub + "storage/innobase/handler/ha_innodb.cc"))
            _tsv(SOURCES / f"{pre}-innodb-sysvars.tsv",
                 f"The InnoDB variables of storage/innobase/handler/ha_innodb.cc of MySQL {ver} (PROVENANCE.md), as for 5.7.",
                 ["name", "type", "scope", "read_only", "build", "default", "default_known", "min", "max"], inn)
            continue
        sv = [r for r in sys_vars(show(mirror, d, commit, sub + "sql/sys_vars.cc")) if not VENDOR_ONLY.match(r["name"])]
        _tsv(SOURCES / f"{pre}-sys-vars.tsv",
             f"The Sys_var_* definitions of sql/sys_vars.cc of MySQL {ver} (PROVENANCE.md): class, scope (GLOBAL_VAR = global,\n"
             "SESSION_VAR = both, SESSION_ONLY = session), READ_ONLY flag, VALID_RANGE and DEFAULT where they are\n"
             "literal (default_known = no: computed or set elsewhere), deprecated = the definition carries DEPRECATED(...).\n"
             "Debug and platform guards are not resolved.",
             ["name", "class", "scope", "read_only", "min", "max", "default", "default_known", "deprecated"], sv)
        inn = innodb_sysvars(show(mirror, d, commit, sub + "storage/innobase/handler/ha_innodb.cc"))
        _tsv(SOURCES / f"{pre}-innodb-sysvars.tsv",
             f"The InnoDB variables of storage/innobase/handler/ha_innodb.cc of MySQL {ver} (PROVENANCE.md): every\n"
             "MYSQL_SYSVAR_* / MYSQL_THDVAR_* that innobase_system_variables[] lists (build = debug under UNIV_DEBUG),\n"
             "type, scope, PLUGIN_VAR_READONLY, default and limits where literal (ENUM/SET defaults are typelib indexes: unknown).",
             ["name", "type", "scope", "read_only", "build", "default", "default_known", "min", "max"], inn)
    for pre, d, sub, commit in MARIADB_TREES:
        ver = pre.split("-")[1]
        rows = []
        for f in ("sysvars_server_notembedded", "sysvars_innodb", "sysvars_aria"):
            rows += sysvars_result(show(mirror, d, commit, sub + f"mysql-test/suite/sys_vars/r/{f}.result"))
        seen: dict[str, dict[str, str]] = {}
        for r in rows:
            seen.setdefault(r["VARIABLE_NAME"], r)
        cols = ["VARIABLE_NAME", "DEFAULT_VALUE", "VARIABLE_SCOPE", "VARIABLE_TYPE", "NUMERIC_MIN_VALUE",
                "NUMERIC_MAX_VALUE", "ENUM_VALUE_LIST", "READ_ONLY", "DEPRECATED", "DEFAULT_FROM"]
        helped = dict(help_table(show(mirror, d, commit, sub + "mysql-test/main/mysqld--help.result")))
        for r in seen.values():
            r["DEPRECATED"] = "yes" if "deprecated" in r.get("VARIABLE_COMMENT", "").lower() else "no"
            if "DEFAULT_VALUE" in r:
                r["DEFAULT_FROM"] = "result"
            elif r["VARIABLE_NAME"].replace("_", "-") in helped:
                h = helped[r["VARIABLE_NAME"].replace("_", "-")]
                if r.get("VARIABLE_TYPE") == "BOOLEAN":
                    h = {"TRUE": "ON", "FALSE": "OFF"}.get(h, h)
                r["DEFAULT_VALUE"], r["DEFAULT_FROM"] = h, "help"
            else:
                r["DEFAULT_VALUE"], r["DEFAULT_FROM"] = "", "none"
        _tsv(SOURCES / f"{pre}-system-variables.tsv",
             f"information_schema.SYSTEM_VARIABLES of MariaDB {ver} as recorded by mysql-test/suite/sys_vars/r/\n"
             "sysvars_server_notembedded.result, sysvars_innodb.result and sysvars_aria.result (PROVENANCE.md); DEPRECATED\n"
             "= the VARIABLE_COMMENT says so. DEFAULT_FROM: result = the DEFAULT_VALUE column of those results (InnoDB,\n"
             "Aria); help = the 'Variables' table of mysql-test/main/mysqld--help.result (the server result selects no\n"
             "default); none = neither. The tests leave out a few machine-dependent variables.",
             cols, sorted(seen.values(), key=lambda r: r["VARIABLE_NAME"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
