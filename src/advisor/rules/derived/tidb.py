"""Derived facts about TiDB: where its prepared plan cache is switched, and whether it is on."""

from __future__ import annotations

from typing import Any

from advisor.rules.facts import FactSet, FactView, Unknown
from advisor.units import parse_bool
from advisor.versions import Version

FACTS = FactSet()
PLAN_CACHE_SYSVAR_SINCE = Version(6, 1, 0)


@FACTS.define("tidb_plan_cache_enabled", "Whether TiDB's prepared plan cache is on: tidb_enable_prepared_plan_cache "
              "from v6.1, the tidb.toml item prepared-plan-cache.enabled (SHOW CONFIG) before.")
def tidb_plan_cache_enabled(v: FactView) -> Any:
    if v.flavor != "tidb":
        return Unknown("not a TiDB server")
    if v.version >= PLAN_CACHE_SYSVAR_SINCE:
        return v.flag("var.tidb_enable_prepared_plan_cache")
    cfg = v.snapshot.server.tidb_config
    if cfg is None:
        return Unknown(v.missing_reason("server.tidb_config", "TiDB's SHOW CONFIG was not collected, so "
                                        "prepared-plan-cache.enabled (tidb.toml, before v6.1) is unknown"))
    val = {k.lower(): x for k, x in cfg.items()}.get("prepared-plan-cache.enabled")
    if val is None:
        return Unknown("SHOW CONFIG returned no prepared-plan-cache.enabled item")
    b = parse_bool(val)
    return b if b is not None else Unknown(f"prepared-plan-cache.enabled is {val!r}, not true/false")


@FACTS.define("tidb_plan_cache_setting", "Where TiDB's prepared plan cache is switched: the system variable (v6.1+) "
              "or the tidb.toml item (before).")
def tidb_plan_cache_setting(v: FactView) -> Any:
    if v.flavor != "tidb":
        return Unknown("not a TiDB server")
    if v.version >= PLAN_CACHE_SYSVAR_SINCE:
        return "tidb_enable_prepared_plan_cache"
    return "prepared-plan-cache.enabled in tidb.toml"
