"""Derived facts of advisor.rules.derived.version (against the variable catalogue)."""

from __future__ import annotations

import re

from advisor.rules.facts import Unknown
from tests.support.facts import view


def test_default_and_nondefault_variables():
    v = view({"var.innodb_io_capacity": "200", "var.innodb_flush_method": "O_DIRECT",
              "var.my_plugin_var": "1"}, "mysql 8.0.36")
    assert v.get("derived.default_variables") == ["innodb_io_capacity"]
    assert v.get("derived.nondefault_variables") == ["innodb_flush_method"]   # not-catalogued ones in neither
    assert isinstance(view({}).get("derived.default_variables"), Unknown)
    assert isinstance(view({}).get("derived.nondefault_variables"), Unknown)


def test_pinned_old_defaults_on_84():
    v = view({"var.innodb_io_capacity": "200", "var.innodb_change_buffering": "all",
              "var.innodb_log_buffer_size": "64M"}, "mysql 8.4.3")
    assert v.get("derived.pinned_old_defaults") == ("innodb_change_buffering=all (8.4 default none), "
                                                    "innodb_io_capacity=200 (8.4 default 10000)")
    assert v.get("derived.pinned_old_defaults_count") == 2
    assert "not MySQL/Percona 8.4" in view({}, "mysql 8.0.36").get("derived.pinned_old_defaults").reason
    assert isinstance(view({}, "mariadb 10.11.6").get("derived.pinned_old_defaults_count"), Unknown)


def test_deprecated_settings():
    v = view({"var.query_cache_type": "ON", "var.query_cache_size": "64M"}, "mysql 5.7.44")
    dep = v.get("derived.deprecated_settings")
    assert "query_cache_type=ON (deprecated since mysql 5.7.20, removed in mysql 8.0.3)" in dep
    assert v.get("derived.deprecated_settings_count") == len(re.findall(r"\w+=\S+ \(deprecated", dep)) == 2
    quiet = view({"var.innodb_io_capacity": "200"}, "mysql 8.0.36")
    assert quiet.get("derived.deprecated_settings") == "" and quiet.get("derived.deprecated_settings_count") == 0
    assert isinstance(view({}).get("derived.deprecated_settings_count"), Unknown)
