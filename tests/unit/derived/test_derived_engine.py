"""Derived facts of advisor.rules.derived.engine."""

from __future__ import annotations

from tests.support.facts import view


def test_default_engine_from_either_name():
    assert view({"var.default_storage_engine": "InnoDB"}).get("derived.default_engine") == "InnoDB"
    assert view({"var.storage_engine": " MyISAM "}, "mysql 5.1.73").get("derived.default_engine") == "MyISAM"
    both = {"var.default_storage_engine": "InnoDB", "var.storage_engine": "MyISAM"}
    assert view(both, "mysql 5.5.62").get("derived.default_engine") == "InnoDB"
    assert "neither default_storage_engine nor storage_engine" in view({}).get("derived.default_engine").reason
    assert "neither" in view({"var.default_storage_engine": ""}).get("derived.default_engine").reason
