"""Derived facts of advisor.rules.derived.dictionary (information_schema over user schemas)."""

from __future__ import annotations

from advisor.rules.facts import Unknown
from tests.support.facts import view

TABLES = {
    "schemas": {
        "app": {"tables": 30, "engines": {"InnoDB": 28, "MyISAM": 2}, "collations": {"utf8mb4_0900_ai_ci": 29,
                                                                                    "latin1_swedish_ci": 1},
                "without_primary_key": 3},
        "logs": {"tables": 5, "engines": {"Aria": 5}, "collations": {"utf8mb4_0900_ai_ci": 5}},
    },
    "without_primary_key": ["app.a", "app.b"],
    "auto_increment": [
        {"table": "app.orders", "column_type": "int(11)", "next_value": 2000000000, "max_value": 2147483647},
        {"table": "app.users", "column_type": "int unsigned", "next_value": 10, "max_value": 4294967295},
    ],
}
SCHEMAS = [{"name": "mysql", "collation": "utf8mb4_0900_ai_ci"}, {"name": "app", "collation": "utf8mb4_0900_ai_ci"},
           {"name": "logs", "collation": "utf8mb4_0900_ai_ci"}]


def v(**facts):
    return view({"server.tables": TABLES, "server.schemas": SCHEMAS, "var.character_set_server": "utf8mb4", **facts})


def test_tables_without_primary_key():
    assert v().get("derived.tables_without_primary_key_count") == 3
    assert v().get("derived.tables_without_primary_key") == "app.a, app.b and 1 more"


def test_collations_and_charsets():
    assert v().get("derived.user_collations_count") == 2
    assert v().get("derived.user_collations") == ("latin1_swedish_ci (1 table in app); utf8mb4_0900_ai_ci "
                                                   "(schema app, schema logs, 29 tables in app, 5 tables in logs)")
    assert v().get("derived.user_charsets_unlike_server") == "latin1"
    assert v(**{"var.character_set_server": "latin1"}).get("derived.user_charsets_unlike_server") == "utf8mb4"
    utf8 = {"schemas": {"a": {"tables": 1, "collations": {"utf8mb3_general_ci": 1}}}}
    assert view({"server.tables": utf8, "server.schemas": [], "var.character_set_server": "utf8"}).get(
        "derived.user_charsets_unlike_server") == ""


def test_schemas_mixing_engines():
    assert v().get("derived.schemas_mixing_engines") == "app (InnoDB 28, MyISAM 2)"  # logs is Aria only


def test_auto_increment():
    share = v().get("derived.auto_increment_max_share")
    assert abs(share - 2000000000 / 2147483647) < 1e-9
    assert v().get("derived.auto_increment_near_limit") == "app.orders (int(11): 2,000,000,000 of 2,147,483,647, 93%)"
    empty = view({"server.tables": {"schemas": {}}})
    assert empty.get("derived.auto_increment_max_share") == 0.0
    assert empty.get("derived.auto_increment_near_limit") == ""


def test_user_tables_count_and_missing_tables():
    assert v().get("derived.user_tables_count") == 35
    got = view({"var.local_infile": "OFF"}).get("derived.user_tables_count")
    assert isinstance(got, Unknown) and "server.tables" in got.reason
