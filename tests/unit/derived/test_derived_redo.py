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


# ---- issue 14 §2.1/§2.10: what sizes the log on MySQL ≥ 8.0.30, and both variables on 5.7

def test_redo_capacity_follows_the_legacy_pair_when_capacity_is_at_its_default():
    legacy = {"var.innodb_redo_log_capacity": "104857600", "var.innodb_log_file_size": "5242880",
              "var.innodb_log_files_in_group": "2"}
    v = view(legacy, "percona 8.0.32")
    assert v.get("derived.redo_capacity_bytes") == 10 * MiB
    assert v.get("derived.redo_sized_by") == ("innodb_log_file_size 5 MiB × innodb_log_files_in_group 2, "
                                              "as innodb_redo_log_capacity is not set")
    # the status counter, when present, is what the server really has
    v = view({**legacy, "status.Innodb_redo_log_capacity_resized": "10485760"}, "percona 8.0.32")
    assert v.get("derived.redo_capacity_bytes") == 10 * MiB and "Innodb_redo_log_capacity_resized is 10 MiB" in \
        v.get("derived.redo_sized_by")
    # an explicit capacity wins over the legacy pair
    v = view({**legacy, "var.innodb_redo_log_capacity": "20M"}, "mysql 8.0.32")
    assert v.get("derived.redo_capacity_bytes") == 20 * MiB and v.get("derived.redo_sized_by") == "innodb_redo_log_capacity"
    # the legacy pair at its defaults: the default capacity
    v = view({"var.innodb_redo_log_capacity": "104857600", "var.innodb_log_file_size": "50331648",
              "var.innodb_log_files_in_group": "2"}, "mysql 8.4.3")
    assert v.get("derived.redo_capacity_bytes") == 100 * MiB


def test_redo_sized_by_names_both_variables_before_8030():
    v = view({"var.innodb_log_file_size": "64M", "var.innodb_log_files_in_group": "2"}, "mysql 5.7.19")
    assert v.get("derived.redo_sized_by") == "innodb_log_file_size 64 MiB × innodb_log_files_in_group 2"
    assert view({"var.innodb_log_file_size": "96M"}, "mariadb 10.6.12").get("derived.redo_sized_by") == \
        "innodb_log_file_size 96 MiB, one file"


def test_redo_target_layout_states_the_total():
    v = view({"var.innodb_log_file_size": "64M", "var.innodb_log_files_in_group": "2"}, "mysql 5.7.19", "benchmark")
    assert v.get("derived.redo_target_bytes") == 2 * GiB
    assert v.get("derived.redo_target_layout") == "1 GiB × 2 files (innodb_log_files_in_group) = 2 GiB of redo"
    assert view({"var.innodb_redo_log_capacity": "100M"}, "mysql 8.0.36").get("derived.redo_target_layout") == \
        "1 GiB of redo"
    assert view({"var.innodb_log_file_size": "96M"}, "mariadb 10.11.6").get("derived.redo_target_layout") == \
        "1 GiB of redo in one file"


def test_redo_target_reason_matches_the_numbers():
    # 1.37 h of writes already: the floor, not "an hour of writes", decides
    quiet = view({"var.innodb_redo_log_capacity": "100M", "status.Innodb_os_log_written": 73 * MiB * 10,
                  "status.Uptime": 36000}, "mysql 8.0.36", "benchmark")
    assert quiet.get("derived.redo_target_reason").startswith("one hour of the measured writes is 73 MiB, less than "
                                                               "a 2 GiB floor")
    busy = view({"var.innodb_redo_log_capacity": "1G", "status.Innodb_os_log_written": 4 * GiB * 10,
                 "status.Uptime": 36000})
    assert busy.get("derived.redo_target_reason") == "the log holds one hour of the measured writes, 4 GiB"
    # a 128 MiB pool cannot hold 16 GiB/h dirty: the floor, not 16G
    capped = view({"var.innodb_log_file_size": "96M", "var.innodb_buffer_pool_size": "128M",
                   "status.Innodb_os_log_written": 16 * GiB, "status.Uptime": 3600}, "mariadb 10.6.12")
    assert capped.get("derived.redo_target_bytes") == 1 * GiB
    assert "more than the 128 MiB the buffer pool can hold dirty" in capped.get("derived.redo_target_reason")


@pytest.mark.parametrize("target,has,lacks", [
    ("mysql 8.0.36", ["SET PERSIST innodb_redo_log_capacity = 1073741824"], []),
    ("mariadb 10.11.6", ["SET GLOBAL innodb_log_file_size = 1073741824"], ["innodb_redo_log_capacity", "PERSIST"]),
    ("mariadb 10.6.12", ["restart"], ["innodb_redo_log_capacity", "PERSIST", "SET GLOBAL"]),
    ("mysql 5.7.44", ["clean shutdown"], ["innodb_redo_log_capacity", "PERSIST"]),
])
def test_redo_resize_how_fits_flavor_and_version(target, has, lacks):
    text = view({"var.innodb_log_file_size": "48M", "var.innodb_redo_log_capacity": "100M"}, target) \
        .get("derived.redo_resize_how")
    assert all(h in text for h in has) and not any(x in text for x in lacks), text
    assert isinstance(view({}, "tidb 7.5.1").get("derived.redo_resize_how"), Unknown)


def test_rates_since_start_need_fifteen_minutes_of_uptime():
    short = view({"status.Innodb_os_log_written": 303932416, "status.Uptime": 61}, "mariadb 10.6.12")
    why = short.get("derived.redo_bytes_per_hour")
    assert isinstance(why, Unknown) and "up only 61 s" in why.reason and "--sample-seconds" in why.reason


def test_redo_resize_how_names_the_legacy_pair_only_when_it_is_set():
    legacy = view({"var.innodb_redo_log_capacity": "100M", "var.innodb_log_file_size": "5M"}, "percona 8.0.32")
    assert "drop innodb_log_file_size and innodb_log_files_in_group" in legacy.get("derived.redo_resize_how")
    plain = view({"var.innodb_redo_log_capacity": "100M", "var.innodb_log_file_size": "48M"}, "mysql 8.4.3")
    assert "innodb_log_file_size" not in plain.get("derived.redo_resize_how")
