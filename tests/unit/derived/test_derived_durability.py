"""Derived facts of advisor.rules.derived.durability."""

from __future__ import annotations

import pytest

from advisor.rules.facts import Unknown
from tests.support.facts import view


def test_binlog_enabled():
    assert view({"var.log_bin": "ON"}).get("derived.binlog_enabled") is True
    assert view({"var.log_bin": "OFF"}).get("derived.binlog_enabled") is False
    assert isinstance(view({}).get("derived.binlog_enabled"), Unknown)


@pytest.mark.parametrize("facts,want", [
    ({"var.innodb_flush_log_at_trx_commit": 2}, True),
    ({"var.innodb_flush_log_at_trx_commit": 1, "var.log_bin": "OFF"}, False),
    ({"var.innodb_flush_log_at_trx_commit": 1, "var.log_bin": "ON", "var.sync_binlog": 0}, True),
    ({"var.innodb_flush_log_at_trx_commit": 1, "var.log_bin": "ON", "var.sync_binlog": 1}, False),
])
def test_durability_relaxed(facts, want):
    assert view(facts).get("derived.durability_relaxed") is want


def test_durability_relaxed_unknown_when_an_input_is_missing():
    assert "sync_binlog" in view({"var.innodb_flush_log_at_trx_commit": 1, "var.log_bin": "ON"}).get(
        "derived.durability_relaxed").reason
    assert isinstance(view({}).get("derived.durability_relaxed"), Unknown)


def test_durability_summary():
    v = view({"var.innodb_flush_log_at_trx_commit": 2, "var.log_bin": "ON", "var.sync_binlog": 0,
              "var.innodb_doublewrite": "ON"})
    assert v.get("derived.durability_summary") == ("innodb_flush_log_at_trx_commit=2, binary log ON with sync_binlog=0, "
                                                   "innodb_doublewrite=ON")
    assert view({"var.innodb_flush_log_at_trx_commit": 1, "var.log_bin": "OFF"}).get(
        "derived.durability_summary") == "innodb_flush_log_at_trx_commit=1, binary log OFF"
    assert isinstance(view({}).get("derived.durability_summary"), Unknown)


def test_commit_loss_window_s():
    from advisor.rules.facts import Unknown
    assert view({"var.innodb_flush_log_at_trx_commit": 2, "var.innodb_flush_log_at_timeout": 3}) \
        .get("derived.commit_loss_window_s") == 3
    # MySQL 5.1 has no innodb_flush_log_at_timeout: once a second
    assert view({"var.innodb_flush_log_at_trx_commit": 0}, "mysql 5.1.34").get("derived.commit_loss_window_s") == 1
    only_binlog = view({"var.innodb_flush_log_at_trx_commit": 1, "var.innodb_flush_log_at_timeout": 1})
    assert isinstance(only_binlog.get("derived.commit_loss_window_s"), Unknown)
