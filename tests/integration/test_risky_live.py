"""The risky-values rule family against real throwaway mariadbd servers: settings no hand-written rule
covers are reported from the configuration alone, in the form SHOW VARIABLES prints them (sizes in
bytes, enums as words); a hand-written rule about the same variable keeps the finding; and a stock
server gives no generated finding at warning or above."""

from __future__ import annotations

import pytest

from tests.support.cli import run_json

pytestmark = pytest.mark.requires_mariadbd

RISKY = {"query-prealloc-size": "64M", "transaction-alloc-block-size": "32M", "back-log": "20",
         "max-connect-errors": "5", "completion-type": "RELEASE", "concurrent-insert": "NEVER",
         "innodb-old-blocks-time": "0", "low-priority-updates": "ON"}
GENERATED = {"risky-query-prealloc-size-oversized", "risky-transaction-alloc-block-size-oversized",
             "risky-back-log-short", "risky-max-connect-errors-low", "risky-completion-type-chain-or-release",
             "risky-concurrent-insert-never", "risky-innodb-old-blocks-time-zero"}


def _audit(db, purpose="production"):
    code, report, err = run_json("audit", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root",
                                 "--no-defaults", "--no-calibrate", "--purpose", purpose, "--format", "json")
    assert code in (0, 1, 2), err
    return report


def test_risky_settings_without_a_hand_written_rule_are_reported(mariadb_factory):
    report = _audit(mariadb_factory(options=RISKY))
    found = {f["rule"]: f for f in report["findings"]}
    assert GENERATED <= set(found), sorted(GENERATED - set(found))
    prealloc = found["risky-query-prealloc-size-oversized"]
    assert prealloc["severity"] == "warning" and prealloc["evidence"]["var.query_prealloc_size"] == "67108864"
    assert "64 MiB" in prealloc["message"] and "no workload evidence was needed" in prealloc["message"]
    assert prealloc["recommendation"] == {"query_prealloc_size": "32768"}
    # low_priority_updates has a hand-written rule: it reports, the generated rule says so
    outcomes = {o["rule"]: o for o in report["outcomes"]}
    assert "low-priority-updates-on" in found and "risky-low-priority-updates-on" not in found
    assert "already reported by rule low-priority-updates-on" in outcomes["risky-low-priority-updates-on"]["reason"]
    # an entry for a variable MariaDB does not have is not_applicable with the catalogue's reason
    assert outcomes["risky-replica-skip-errors-skipping"]["status"] == "not_applicable"


def test_a_stock_server_gives_no_generated_warning(mariadb):
    for purpose in ("production", "benchmark"):
        report = _audit(mariadb, purpose)
        loud = [f["rule"] for f in report["findings"] if f["rule"].startswith("risky-") and f["severity"] != "info"]
        assert not loud, (purpose, loud)
