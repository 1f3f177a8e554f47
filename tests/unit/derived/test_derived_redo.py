"""Derived facts of advisor.rules.derived.redo."""

from __future__ import annotations

import pytest

from advisor.rules.facts import Unknown
from tests.support.facts import view

MiB, GiB = 1 << 20, 1 << 30


@pytest.mark.parametrize("target,facts,want", [
    ("mysql 8.0.36", {"var.innodb_redo_log_capacity": "1G"}, 1 * GiB),
    ("mysql 8.0.36", {"var.innodb_log_file_size": "48M", "var.innodb_log_files_in_group": 2}, 96 * MiB),  # no capacity
    ("mysql 8.0.29", {"var.innodb_redo_log_capacity": "1G", "var.innodb_log_file_size": "48M",
                      "var.innodb_log_files_in_group": 3}, 144 * MiB),   # before 8.0.30 the files count
    ("mysql 5.7.44", {"var.innodb_log_file_size": "48M"}, 96 * MiB),      # files_in_group missing: the default 2
    ("mariadb 10.11.6", {"var.innodb_log_file_size": "96M", "var.innodb_log_files_in_group": 2}, 96 * MiB),
    ("mariadb 10.4.34", {"var.innodb_log_file_size": "48M", "var.innodb_log_files_in_group": 2}, 96 * MiB),
])
def test_redo_capacity_bytes(target, facts, want):
    assert view(facts, target).get("derived.redo_capacity_bytes") == want


def test_redo_capacity_bytes_unknown():
    assert "TiDB" in view({}, "tidb 7.5.1").get("derived.redo_capacity_bytes").reason
    missing = view({}, "mysql 5.7.44").get("derived.redo_capacity_bytes")
    assert isinstance(missing, Unknown) and "innodb_log_file_size" in missing.reason


@pytest.mark.parametrize("target,want", [("mysql 8.0.30", "innodb_redo_log_capacity"),
                                         ("percona 8.0.36", "innodb_redo_log_capacity"),
                                         ("mysql 8.0.29", "innodb_log_file_size"),
                                         ("mariadb 11.4.4", "innodb_log_file_size")])
def test_redo_variable(target, want):
    assert view({}, target).get("derived.redo_variable") == want
    assert isinstance(view({}, "tidb 7.5.1").get("derived.redo_variable"), Unknown)


def test_redo_bytes_per_hour_from_the_rate_since_start():
    v = view({"status.Innodb_os_log_written": 7_200_000, "status.Uptime": 7200})
    assert v.get("derived.redo_bytes_per_hour") == pytest.approx(3_600_000)
    assert isinstance(view({"status.Uptime": 7200}).get("derived.redo_bytes_per_hour"), Unknown)


def test_redo_hours_of_writes():
    v = view({"var.innodb_redo_log_capacity": "1G", "status.Innodb_os_log_written": 512 * MiB, "status.Uptime": 3600})
    assert v.get("derived.redo_hours_of_writes") == pytest.approx(2.0)
    idle = view({"var.innodb_redo_log_capacity": "1G", "status.Innodb_os_log_written": 0, "status.Uptime": 3600})
    assert "no redo writes" in idle.get("derived.redo_hours_of_writes").reason
