"""Derived facts of advisor.rules.derived.tidb."""

from __future__ import annotations

from advisor.rules.facts import Unknown
from tests.support.facts import view


def test_tidb_plan_cache_enabled_from_the_variable_or_the_config_item():
    assert view({"var.tidb_enable_prepared_plan_cache": "ON"}, "tidb 7.5.1").get("derived.tidb_plan_cache_enabled") is True
    old = {"server.tidb_config": {"prepared-plan-cache.enabled": "false"}}
    assert view(old, "tidb 5.1.4").get("derived.tidb_plan_cache_enabled") is False
    assert "not collected" in view({}, "tidb 5.1.4").get("derived.tidb_plan_cache_enabled").reason
    assert "no prepared-plan-cache" in view({"server.tidb_config": {}}, "tidb 5.1.4").get(
        "derived.tidb_plan_cache_enabled").reason
    assert "not true/false" in view({"server.tidb_config": {"prepared-plan-cache.enabled": "maybe"}}, "tidb 5.1.4").get(
        "derived.tidb_plan_cache_enabled").reason
    assert isinstance(view({}).get("derived.tidb_plan_cache_enabled"), Unknown)


def test_tidb_plan_cache_setting():
    assert view({}, "tidb 6.1.0").get("derived.tidb_plan_cache_setting") == "tidb_enable_prepared_plan_cache"
    assert view({}, "tidb 5.1.4").get("derived.tidb_plan_cache_setting") == "prepared-plan-cache.enabled in tidb.toml"
    assert "not a TiDB" in view({}).get("derived.tidb_plan_cache_setting").reason
