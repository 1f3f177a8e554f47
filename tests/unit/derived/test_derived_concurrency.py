"""Derived facts of advisor.rules.derived.concurrency."""

from __future__ import annotations

import pytest

from advisor.rules.facts import Unknown
from tests.support.facts import view


def test_connections_used_ratio():
    assert view({"status.Max_used_connections": 140, "var.max_connections": 151}).get(
        "derived.connections_used_ratio") == pytest.approx(140 / 151)
    assert "max_connections is 0" in view({"status.Max_used_connections": 1, "var.max_connections": 0}).get(
        "derived.connections_used_ratio").reason


def test_connections_per_cpu():
    v = view({"status.Max_used_connections": 64, "host.cpu": {"logical_count": 16}})
    assert v.get("derived.connections_per_cpu") == 4.0
    assert isinstance(view({"status.Max_used_connections": 64}).get("derived.connections_per_cpu"), Unknown)


def test_open_files_needed_is_the_manuals_formula():
    assert view({"var.max_connections": 151, "var.table_open_cache": 4000}).get("derived.open_files_needed") == 8161
    assert isinstance(view({"var.max_connections": 151}).get("derived.open_files_needed"), Unknown)


@pytest.mark.parametrize("limit,want", [(1_048_576, 4000), (5000, 2419), (800, 400)])
def test_table_open_cache_effective(limit, want):
    v = view({"var.open_files_limit": limit, "var.max_connections": 151, "var.table_open_cache": 4000})
    assert v.get("derived.table_open_cache_effective") == want


def test_table_cache_fill_ratio():
    assert view({"status.Open_tables": 3800, "var.table_open_cache": 4000}).get("derived.table_cache_fill_ratio") == 0.95


def test_thread_create_ratio_needs_enough_connections():
    v = view({"status.Threads_created": 300, "status.Connections": 1000})
    assert v.get("derived.thread_create_ratio") == 0.3
    few = view({"status.Threads_created": 30, "status.Connections": 99}).get("derived.thread_create_ratio")
    assert isinstance(few, Unknown) and "only 99 connections" in few.reason


def test_table_open_cache_cut_at_start_and_intended():
    # ytkit's MySQL 5.7.19: open_files_limit 1024 made the server cut the 2000 default to 431
    cut = view({"var.open_files_limit": 1024, "var.max_connections": 151, "var.table_open_cache": 431}, "mysql 5.7.19")
    assert cut.get("derived.table_open_cache_cut_at_start") is True
    assert cut.get("derived.table_open_cache_intended") == 2000
    assert cut.get("derived.open_files_needed") == 10 + 151 + 2 * 2000
    kept = view({"var.open_files_limit": 65536, "var.max_connections": 151, "var.table_open_cache": 2000}, "mysql 5.7.44")
    assert kept.get("derived.table_open_cache_cut_at_start") is False
    assert kept.get("derived.table_open_cache_intended") == 2000
