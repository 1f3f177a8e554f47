"""The per-release coverage table of docs/catalogue.md, computed from the merged catalogue (curated + generated).

    .venv/bin/python -m tools.catalogue.coverage           # rewrite the table in docs/catalogue.md
    .venv/bin/python -m tools.catalogue.coverage --check   # exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "catalogue.md"
BEGIN, END = "<!-- coverage:begin (tools/catalogue/coverage.py) -->", "<!-- coverage:end -->"

# (flavor, release, what the generated data rests on there)
RELEASES = [
    ("mysql", "5.6.29", "5.6.29 tree"),
    ("mysql", "5.6.51", "5.6.29 tree (existence, defaults from 5.6.29 on)"),
    ("mysql", "5.7.19", "5.6.29 + 5.7.22 trees: existence only"),
    ("mysql", "5.7.22", "5.7.22 tree"),
    ("mysql", "5.7.44", "5.7.41 tree, 5.7.44 capture"),
    ("mysql", "8.0.28", "8.0.27 tree"),
    ("mysql", "8.0.36", "8.0.32 tree"),
    ("mysql", "8.0.41", "8.0.41 tree"),
    ("mysql", "8.4.3", "8.4 manual (no defaults)"),
    ("percona", "5.7.22", "5.7.22-22 tree"),
    ("percona", "5.7.44", "5.7.22-22 tree, to 5.7's end where MySQL 5.7.41 agrees"),
    ("percona", "8.0.32", "8.0.32 capture (existence), MySQL 8.0.41 defaults from 8.0.41"),
    ("percona", "8.4.5", "8.4.5 capture (existence)"),
    ("mariadb", "10.4.12", "10.4.12 mysql-test results"),
    ("mariadb", "10.5.15", "10.4.12 tree + 10.6 snapshot: continuity"),
    ("mariadb", "10.6.18", "10.6 snapshot (10.6.1-10.6.12, InnoDB from the docs) + 10.4.12 / 10.11.19: continuity"),
    ("mariadb", "10.11.19", "10.11.19 recording"),
    ("mariadb", "11.4.4", "11.4 snapshot (11.4.4-11.4.7): help table + docs InnoDB defaults"),
]


def rows() -> list[tuple[str, str, str, int, int, int, int, int]]:
    sys.path.insert(0, str(ROOT / "src"))
    from advisor import knowledge as K

    names = K.names()
    out = []
    for fl, rel, basis in RELEASES:
        known = absent = with_default = deprecated = unknown = 0
        for n in names:
            ex = K.exists_on(n, fl, rel)
            if ex is None:
                unknown += 1
                continue
            if not ex:
                absent += 1
                continue
            known += 1
            spec = K.info(n, fl, rel)
            if spec is not None and (spec.default is not None or spec.default_formula is not None):
                with_default += 1
            if spec is not None and spec.deprecated:
                deprecated += 1
        out.append((fl, rel, basis, known, with_default, deprecated, absent, unknown))
    return out


def table() -> str:
    head = ("| flavor | release | generated data from | exist | with a default | deprecated there | known absent | not known |\n"
            "|---|---|---|---:|---:|---:|---:|---:|\n")
    body = "".join(f"| {fl} | {rel} | {basis} | {k} | {d} | {dep} | {a} | {u} |\n"
                   for fl, rel, basis, k, d, dep, a, u in rows())
    return head + body


def render(text: str) -> str:
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:a] + "\n" + table() + text[b:]


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.catalogue.coverage", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/catalogue.md's table is stale")
    args = ap.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    new = render(text)
    if args.check:
        if new != text:
            print("stale: docs/catalogue.md; rebuild with python -m tools.catalogue.coverage", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
