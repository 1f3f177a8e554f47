"""Derived facts about storage engines: which engine a CREATE TABLE gets when it names none."""

from __future__ import annotations

from typing import Any

from advisor.rules.facts import FactSet, FactView, Unknown

FACTS = FactSet()


@FACTS.define("default_engine", "The engine of a CREATE TABLE that names none: default_storage_engine, or "
              "storage_engine on servers that predate that name (MySQL before 5.5.3, where SHOW VARIABLES has "
              "storage_engine only).")
def default_engine(v: FactView) -> Any:
    for path in ("var.default_storage_engine", "var.storage_engine"):
        eng = v.get(path)
        if not isinstance(eng, Unknown) and str(eng).strip():
            return str(eng).strip()
    return Unknown("neither default_storage_engine nor storage_engine was collected")
