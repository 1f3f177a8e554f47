"""Derived facts of advisor.rules.derived.version (against the variable catalogue)."""

from __future__ import annotations

import re

import pytest

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


@pytest.mark.parametrize("target,covered", [("mysql 5.1.34", False), ("mysql 5.6.51", True), ("mysql 8.4.5", True),
                                            ("mysql 9.7.1", False), ("percona 8.0.32", True), ("mariadb 10.6.12", True),
                                            ("mariadb 12.0.2", False), ("tidb 3.0.0", False), ("tidb 7.5.1", True)])
def test_catalogue_covers_target(target, covered):
    v = view({}, target)
    assert v.get("derived.catalogue_covers_target") is covered
    assert v.get("derived.catalogue_versions").split()[0] in ("MySQL", "Percona", "MariaDB", "TiDB")


def test_innodb_thread_concurrency_default_is_not_judged_outside_the_catalogue():
    assert view({}, "mysql 5.7.44").get("derived.innodb_thread_concurrency_default") == 0
    old = view({"var.innodb_thread_concurrency": "8"}, "mysql 5.1.34").get("derived.innodb_thread_concurrency_default")
    assert isinstance(old, Unknown) and "outside the releases the variable catalogue covers" in old.reason
