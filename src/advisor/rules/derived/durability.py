"""Derived facts about durability: the binary log, and whether commits may be lost on a crash."""

from __future__ import annotations

from typing import Any

from advisor.rules.facts import FactSet, FactView, Unknown

FACTS = FactSet()


@FACTS.define("binlog_enabled", "Whether the binary log is on (log_bin).")
def binlog_enabled(v: FactView) -> Any:
    return v.flag("var.log_bin")


@FACTS.define("durability_relaxed", "Whether commits may be lost on a crash: innodb_flush_log_at_trx_commit ≠ 1, or "
              "the binary log is on with sync_binlog ≠ 1.")
def durability_relaxed(v: FactView) -> Any:
    if int(v.need_num("var.innodb_flush_log_at_trx_commit")) != 1:
        return True
    if not v.need_flag("var.log_bin"):
        return False
    return int(v.need_num("var.sync_binlog")) != 1


@FACTS.define("durability_summary", "The durability settings in one line: innodb_flush_log_at_trx_commit, binary "
              "log and sync_binlog, doublewrite.")
def durability_summary(v: FactView) -> Any:
    parts = [f"innodb_flush_log_at_trx_commit={v.need('var.innodb_flush_log_at_trx_commit')}"]
    log_bin = v.flag("var.log_bin")
    if log_bin is True:
        sb = v.get("var.sync_binlog")
        parts.append(f"binary log ON with sync_binlog={'unknown' if isinstance(sb, Unknown) else sb}")
    elif log_bin is False:
        parts.append("binary log OFF")
    dw = v.get("var.innodb_doublewrite")
    if not isinstance(dw, Unknown):
        parts.append(f"innodb_doublewrite={dw}")
    return ", ".join(parts)


@FACTS.define("commit_loss_window_s", "How many seconds of committed transactions InnoDB can lose on an OS crash: "
              "innodb_flush_log_at_timeout (1 s by default) when innodb_flush_log_at_trx_commit is 0 or 2, 1 s on "
              "servers without that variable (before MySQL 5.6.6 InnoDB flushed once a second); unknown with "
              "trx_commit = 1, where InnoDB itself loses no commit.", unit="seconds")
def commit_loss_window_s(v: FactView) -> Any:
    if int(v.need_num("var.innodb_flush_log_at_trx_commit")) == 1:
        return Unknown("innodb_flush_log_at_trx_commit is 1: InnoDB flushes its log at each commit")
    return v.num_or("var.innodb_flush_log_at_timeout", 1)
