"""InnoDB defaults per MariaDB release from the MariaDB documentation's "InnoDB System Variables" page.

    python -m tools.catalogue.extract_mdb_docs PAGE.md 10.6 > tools/catalogue/sources/mariadb-10.6-docs-innodb-variables.tsv

PAGE.md is `server/server-usage/storage-engines/innodb/innodb-system-variables.md` of a copy of the
MariaDB docs (PROVENANCE.md: repository and commit). For each `innodb_*` section the page's "Default Value",
"Introduced", "Removed" and "Data Type" items are read; a row is written only when the page says the
variable exists over the whole snapshot window of the release (build.MDB_SNAPSHOTS) and states one default
that holds over every release of that line where it exists. A variable the page marks deprecated at or before
the end of the window gives no row (its entry often keeps the old default: `innodb_prefix_index_cluster_optimization`
says OFF, 10.11.19 reports ON). A default with a condition this reader does not
understand (platform, "or", computed from another variable, ...) gives no row; debug-only variables neither.
Values are written in the server's form: sizes with a K/M/G suffix as bytes, booleans as ON / OFF.
"""

from __future__ import annotations

import re
import sys
from typing import Optional

Version = tuple[int, int, Optional[int]]

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_VER = re.compile(r"MariaDB (\d+)\.(\d+)(?:\.(\d+))?")
_SIZE_NOTE = re.compile(r"^\(\s*\d+(?:\.\d+)?\s?(?:K|M|G|KB|MB|GB|KiB|MiB|GiB)\s*\)$")
_MULT = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def _versions(text: str) -> list[Version]:
    return [(int(a), int(b), int(c) if c else None) for a, b, c in _VER.findall(text)]


def _ge(vs: list[Version], r: tuple[int, int, int]) -> bool:
    """r is at or after the listed release(s) (a list names one release per line: backports)."""
    same = [v for v in vs if v[:2] == r[:2]]
    if same:
        return same[0][2] is None or r[2] >= same[0][2]
    return any(v[:2] < r[:2] for v in vs)


def _le(vs: list[Version], r: tuple[int, int, int]) -> bool:
    same = [v for v in vs if v[:2] == r[:2]]
    if same:
        return same[0][2] is None or r[2] <= same[0][2]
    return bool(vs) and all(v[:2] > r[:2] for v in vs)


def _condition(text: str):
    """A predicate on a release for the condition text of one alternative, or None when not understood."""
    t = text.strip().replace("> \\=", ">=").replace("\\>=", ">=").replace("\\<=", "<=").strip()
    m = re.fullmatch(r"(>=|from)\s+(.*?)\s+to\s+(<=|until)\s+(.*)", t)
    if m:
        lo, hi = _versions(m.group(2)), _versions(m.group(4))
        if not lo or not hi:
            return None
        return lambda r: _ge(lo, r) and _le(hi, r)
    m = re.fullmatch(r"(>=|from|<=|until)\s+((?:MariaDB \d+\.\d+(?:\.\d+)?[,\s]*)+)", t)
    if not m:
        return None
    vs = _versions(m.group(2))
    return (lambda r: _ge(vs, r)) if m.group(1) in (">=", "from") else (lambda r: _le(vs, r))


def _alternatives(text: str):
    """[(value, predicate)] of a Default Value item (links already stripped), or None when not understood."""
    items = [x.strip() for x in re.split(r"\n\s*\*\s+", "\n" + text.strip()) if x.strip()]
    if len(items) == 1:  # inline: `a` (cond), `b` (cond)
        items = [x.strip() for x in re.split(r"(?<=\)),\s+(?=`)", items[0])]
    out = []
    for it in items:
        m = re.fullmatch(r"`([^`]*)`\s*(.*)", it, re.S)
        if m:
            value, rest = m.group(1), m.group(2).strip()
            if rest == "" or _SIZE_NOTE.match(rest):
                out.append((value, lambda r: True))
                continue
            rest = re.sub(r"^\(\s*\d+(?:\.\d+)?\s?(?:K|M|G|KB|MB|GB|KiB|MiB|GiB)\s*\)\s*", "", rest)
            m2 = re.fullmatch(r"\((.*)\)", rest, re.S)
            if not m2:
                return None
            cond = _condition(m2.group(1))
            if cond is None:
                return None
            out.append((value, cond))
            continue
        m = re.fullmatch(r"(.*?):\s*`([^`]*)`", it, re.S)  # >= MariaDB x, MariaDB y: `v`
        if m:
            cond = _condition(m.group(1))
            if cond is None:
                return None
            out.append((m.group(2), cond))
            continue
        return None
    return out


def _server_form(value: str, dtype: str) -> Optional[str]:
    v = value.strip()
    if dtype.startswith("bool"):
        v = {"0": "OFF", "1": "ON"}.get(v, v).upper()
        return v if v in ("ON", "OFF") else None
    if dtype.startswith("numeric") or dtype.startswith("double"):
        m = re.fullmatch(r"(\d+)([KMG])", v)
        if m:
            return str(int(m.group(1)) * _MULT[m.group(2)])
        return v if re.fullmatch(r"-?\d+(?:\.\d+)?", v) else None
    if v in ("", "NULL") or not re.fullmatch(r"[A-Za-z0-9_.:/,+-]+", v):
        return None
    return v


def sections(page: str) -> dict[str, str]:
    out = {}
    for m in re.finditer(r"^#### `(innodb_[a-z0-9_]+)`\n(.*?)(?=^#### |\Z)", page, re.S | re.M):
        out[m.group(1)] = _LINK.sub(r"\1", m.group(2))
    return out


def _item(body: str, key: str) -> Optional[str]:
    """The text of a top-level '* key:' item, sub-items included."""
    m = re.search(rf"^\* {re.escape(key)}:(.*?)(?=^\* |\Z)", body, re.S | re.M)
    return None if m is None else m.group(1).strip()


def defaults(page: str, window: tuple[tuple[int, int, int], tuple[int, int, int]]) -> dict[str, str]:
    lo, hi = window
    out = {}
    for name, body in sections(page).items():
        low = body.lower()
        if "debug build" in low or "xtradb only" in low or "xtradb-only" in low or "deprecated and ignored in mariadb 10.2" in low:
            continue  # debug builds only, or XtraDB's (the page does not say when those were removed)
        dep = _item(body, "Deprecated")
        if dep and (not _versions(dep) or _ge(_versions(dep), hi)):
            continue  # deprecated by the end of the window: the page often keeps the pre-deprecation default
        intro, removed = _item(body, "Introduced"), _item(body, "Removed")
        iv = _versions(intro) if intro else []
        rv = _versions(removed) if removed else []
        if (intro and not iv) or (removed and not rv):
            continue  # introduced / removed in something the reader cannot place (XtraDB, ...)

        def exists(r: tuple[int, int, int]) -> bool:
            return (not iv or _ge(iv, r)) and not (rv and _ge(rv, r))
        window_releases = [(lo[0], lo[1], p) for p in range(lo[2], hi[2] + 1)]
        if not all(exists(r) for r in window_releases):
            continue
        d, dtype = _item(body, "Default Value"), (_item(body, "Data Type") or "").strip("` ").lower()
        if not d:
            continue
        alts = _alternatives(d)
        if not alts:
            continue
        values = set()
        for p in range(0, 60):  # every release of the line where the page says it exists
            r = (lo[0], lo[1], p)
            if not exists(r):
                continue
            hit = {v for v, cond in alts if cond(r)}
            if len(hit) != 1:
                values = set()
                break
            values |= hit
        if len(values) != 1:
            continue
        v = _server_form(values.pop(), dtype)
        if v is not None:
            out[name] = v
    return out


def main(argv: list[str]) -> int:
    from tools.catalogue.build import MDB_SNAPSHOTS
    page = open(argv[0], encoding="utf-8").read()
    _label, lo, hi = MDB_SNAPSHOTS[argv[1]]
    rows = defaults(page, (lo, hi))  # the window with its upper end
    for name in sorted(rows):
        print(f"{name.replace('_', '-')}\t{rows[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
