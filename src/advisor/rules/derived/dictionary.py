"""Derived facts over the data dictionary (server.tables, server.schemas: information_schema, user
schemas only): tables without a primary key, collations and engines in use, auto-increment headroom."""

from __future__ import annotations

from typing import Any

from advisor.rules.facts import FactSet, FactView
from advisor.units import format_number

FACTS = FactSet()

SYSTEM_SCHEMAS = {"mysql", "information_schema", "performance_schema", "sys"}
# Engines without transactions or crash recovery that a schema may mix with InnoDB.
NON_TRANSACTIONAL = ("MyISAM", "Aria", "MEMORY", "CSV", "ARCHIVE", "MRG_MyISAM", "MRG_MYISAM")
AUTO_INCREMENT_NEAR = 0.8


@FACTS.define("tables_without_primary_key_count", "InnoDB tables in user schemas with neither a PRIMARY KEY "
              "nor a UNIQUE key over NOT NULL columns, so InnoDB clusters them on a hidden row id.", unit="count")
def tables_without_primary_key_count(v: FactView) -> Any:
    dd = v.need("server.tables")
    return sum(s.without_primary_key for s in dd.schemas.values())


@FACTS.define("tables_without_primary_key", "The first such tables (schema.table, at most 20), comma-separated, "
              "with how many more there are.")
def tables_without_primary_key(v: FactView) -> Any:
    dd = v.need("server.tables")
    total = sum(s.without_primary_key for s in dd.schemas.values())
    shown = ", ".join(dd.without_primary_key)
    more = total - len(dd.without_primary_key)
    return shown + (f" and {format_number(more)} more" if more > 0 else "")


def _collations(v: FactView) -> dict[str, list[str]]:
    """collation -> what uses it ('schema app', '3 tables in app')."""
    users: dict[str, list[str]] = {}
    for s in v.need("server.schemas"):
        if s.name.lower() not in SYSTEM_SCHEMAS and s.collation:
            users.setdefault(s.collation, []).append(f"schema {s.name}")
    for name, st in v.need("server.tables").schemas.items():
        for coll, n in st.collations.items():
            users.setdefault(coll, []).append(f"{format_number(n)} table{'s' if n != 1 else ''} in {name}")
    return dict(sorted(users.items()))


@FACTS.define("user_collations_count", "How many collations user schemas (their defaults) and their tables use.",
              unit="count")
def user_collations_count(v: FactView) -> Any:
    return len(_collations(v))


@FACTS.define("user_collations", "The collations user schemas and their tables use, each with what uses it, "
              "e.g. 'latin1_swedish_ci (schema legacy, 4 tables in legacy); utf8mb4_general_ci (schema app)'.")
def user_collations(v: FactView) -> Any:
    return "; ".join(f"{c} ({', '.join(u)})" for c, u in _collations(v).items())


def _charset(collation: str) -> str:
    return collation.split("_", 1)[0].lower()


@FACTS.define("user_charsets_unlike_server", "Character sets of user schemas and tables other than "
              "character_set_server (what a new schema gets), comma-separated; '' when all match.")
def user_charsets_unlike_server(v: FactView) -> Any:
    server = str(v.need("var.character_set_server")).lower()
    others = {_charset(c) for c in _collations(v)} - {server}
    # utf8 and utf8mb3 are one character set under two names (MySQL 8.0.30+, MariaDB 10.6+ print utf8mb3)
    if server in ("utf8", "utf8mb3"):
        others -= {"utf8", "utf8mb3"}
    return ", ".join(sorted(others))


@FACTS.define("schemas_mixing_engines", "User schemas whose tables mix InnoDB with an engine without "
              "transactions (MyISAM, Aria, MEMORY, CSV, ARCHIVE, MERGE), e.g. 'shop (InnoDB 40, MyISAM 2)'.")
def schemas_mixing_engines(v: FactView) -> Any:
    out = []
    for name, st in v.need("server.tables").schemas.items():
        engines = {e: n for e, n in st.engines.items() if n}
        if "InnoDB" in engines and any(e in engines for e in NON_TRANSACTIONAL):
            out.append(f"{name} ({', '.join(f'{e} {format_number(n)}' for e, n in sorted(engines.items()))})")
    return "; ".join(out)


@FACTS.define("auto_increment_max_share", "The highest next AUTO_INCREMENT value of a user table as a share of "
              "its column type's maximum (0 when no table has an integer auto-increment column).", unit="fraction")
def auto_increment_max_share(v: FactView) -> Any:
    ai = v.need("server.tables").auto_increment
    return max((a.next_value / a.max_value for a in ai), default=0.0)


@FACTS.define("auto_increment_near_limit", "Tables whose next AUTO_INCREMENT value is at 80 % or more of its "
              "column type's maximum, e.g. 'app.orders (int: 1,900,000,000 of 2,147,483,647, 88%)'.")
def auto_increment_near_limit(v: FactView) -> Any:
    ai = v.need("server.tables").auto_increment
    return "; ".join(f"{a.table} ({a.column_type}: {format_number(a.next_value)} of {format_number(a.max_value)}, "
                     f"{a.next_value / a.max_value * 100:.0f}%)"
                     for a in ai if a.next_value / a.max_value >= AUTO_INCREMENT_NEAR)


@FACTS.define("user_tables_count", "Base tables in user schemas (information_schema.TABLES).", unit="count")
def user_tables_count(v: FactView) -> Any:
    return sum(s.tables for s in v.need("server.tables").schemas.values())
