"""The checklist on real sysbench command lines and real dumps (issue 14 §2 item 15).

Command lines, verbatim from public files read with the search index (the shell's line continuations
joined, nothing else changed):
  CIRCLE_LEGACY_RUN   notnoopci/circle-dummy-project · sysbench-mysql.sh @ de46dc54cac66f313572c9ea0fc68be6fa0e2611,
                      line 6: sysbench 0.4's `--test=oltp` with an unquoted `$ADDITIONAL_ARGS`.
  BACHELOR_RUN        danielfmhaw/Bachelorarbeit · Latex/Arbeit/Scripts/Tools/02_process_sysbench.sh
                      @ 15e6c6b96e45ffcd9789bdb8c4776dbcb9bc6b33, line 5: `$SYSBENCH_CONFIG` unquoted between the
                      test and its options (valid shell: it expands to several options).
  PXC_RUN             eubide/sandbox_pxc · sysbench_run.sh @ d36f6a8730b5ede541ba3ef9e7dd17f10d41904d:
                      `--mysql-ignore-errors=all --time=0 --events=0`; `${TYPE}` etc. come from a sourced file,
                      here replaced by the values of eubide/sandbox_mariadb's run script (below) and TYPE=oltp_read_write.lua.
  MARIADB_SANDBOX_RUN eubide/sandbox_mariadb · sysbench_run.sh @ ca486508b9b726abee6495326e42645987f2366b:
                      `--time=0 --events=0` with an explicit `--events=0`.
  COBURN_RATE         https://gist.github.com/michaelcoburn/c43e4f36e815d97101cdc379352d5484 (Percona, 2018):
                      `--threads=1 --events=0 --time=0 --rate=1`.
Snapshots: tests/golden/checklist/inputs/mariadb-10.11-default.json (see the README there); the real
public dumps of tests/fixtures/dumps/ (PROVENANCE.md there) for MySQL 5.7.41 and TiDB.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from advisor.checklist import build, unknown_fix
from advisor.dumps import import_snapshot
from advisor.knowledge import default_catalogue
from advisor.render.checklist import render_markdown
from advisor.report import Report
from advisor.rules.engine import evaluate
from advisor.rules.loader import load_entries
from advisor.snapshot import Snapshot
from advisor.sysbench import Unresolved, parse_command

TESTS = Path(__file__).resolve().parents[1]
INPUTS = TESTS / "golden" / "checklist" / "inputs"
DUMPS = TESTS / "fixtures" / "dumps"
CAT = load_entries()

CIRCLE_LEGACY_RUN = ("time sysbench --num-threads=4 --max-time=900 --max-requests=500000 --test=oltp "
                     "--oltp-table-size=80000000 --mysql-user=${MYSQL_USER} --mysql-table-engine=innodb "
                     "--oltp-test-mode=complex $ADDITIONAL_ARGS run")
BACHELOR_RUN = "sysbench oltp_read_write $SYSBENCH_CONFIG --time=$DURATION --threads=1 --report-interval=1 run"
PXC_RUN = ("sysbench --db-driver=mysql --db-ps-mode=disable --skip-trx --mysql-user=app --mysql_password=app "
           "--mysql-db=test --mysql-host=192.168.35.90 --mysql-port=3306 --tables=16 --table-size=10000 --threads=8 "
           "--mysql-ignore-errors=all --time=0 --events=0 --report-interval=1 /usr/share/sysbench/oltp_read_write.lua run")
MARIADB_SANDBOX_RUN = ("sysbench --db-driver=mysql --mysql-user=app --mysql_password=app --mysql-db=test "
                       "--mysql-host=192.168.35.90 --mysql-port=3306 --tables=16 --table-size=10000 --threads=8 "
                       "--time=0 --events=0 --report-interval=1 /usr/share/sysbench/oltp_read_write.lua run")
COBURN_RATE = ("sysbench --threads=1 --events=0 --time=0 --rate=1 --report-interval=1 --db-driver=mysql "
               "--mysql-password=sbtest /usr/share/sysbench/oltp_read_write.lua run")


def default_snap() -> Snapshot:
    return Snapshot.model_validate(json.loads((INPUTS / "mariadb-10.11-default.json").read_text()))


def checklist(snap: Snapshot, line: str | None = None):
    report = Report(target=snap.target, purpose="benchmark",
                    outcomes=evaluate(snap, CAT.rules, "benchmark", catalogue=default_catalogue()),
                    missing=list(snap.missing))
    return build(snap, report, CAT, parse_command(line) if line else None)


def items(snap: Snapshot, line: str | None = None):
    return {it.id: it for it in checklist(snap, line).items}


# ---------------------------------------------------------------- the command line

def test_legacy_oltp_test_is_a_failing_item_not_a_usage_error():
    cmd = parse_command(CIRCLE_LEGACY_RUN)  # exited 2 ("unknown test 'oltp'") before
    assert cmd.test == "oltp" and cmd.command == "run" and cmd.expanded_words == ["$ADDITIONAL_ARGS"]
    it = items(default_snap(), CIRCLE_LEGACY_RUN)["sysbench-command-line"]
    assert it.status == "fail"
    assert "sysbench 0.4" in it.evidence and "Cannot find benchmark 'oltp'" in it.evidence
    assert "oltp_read_write" in it.fix and "--num-threads" in it.fix


def test_unquoted_variable_expanding_to_options_is_read_not_refused():
    cmd = parse_command(BACHELOR_RUN)  # exited 2 ("unexpected word 'run'") before
    assert (cmd.test, cmd.command, cmd.expanded_words) == ("oltp_read_write", "run", ["$SYSBENCH_CONFIG"])
    host = cmd.get("mysql-host")
    assert isinstance(host, Unresolved) and "$SYSBENCH_CONFIG" in host.why
    got = items(default_snap(), BACHELOR_RUN)
    line = got["sysbench-command-line"]
    assert line.status == "unknown" and "$SYSBENCH_CONFIG" in line.evidence and "outside quotes" in line.evidence
    assert got["sysbench-target"].status == "unknown"  # the host may be in the variable: not guessed as localhost


def test_explicit_events_zero_is_not_reported_as_missing():
    it = items(default_snap(), MARIADB_SANDBOX_RUN)["sysbench-duration"]
    assert it.status == "fail" and "--events=0" in it.evidence and "no --events" not in it.evidence


def test_ignore_all_errors_fails():
    got = items(default_snap(), PXC_RUN)
    assert got["sysbench-ignore-errors"].status == "fail"
    assert "--mysql-ignore-errors=all" in got["sysbench-ignore-errors"].evidence
    assert items(default_snap(), MARIADB_SANDBOX_RUN)["sysbench-ignore-errors"].status == "pass"


def test_fixed_rate_is_stated_as_a_note():
    it = items(default_snap(), COBURN_RATE)["sysbench-rate-limit"]
    assert it.status == "note" and "--rate=1" in it.evidence and "latency" in it.evidence
    assert items(default_snap(), MARIADB_SANDBOX_RUN)["sysbench-rate-limit"].status == "pass"


# ---------------------------------------------------------------- items from the audit

def dump(name: str, **kw) -> Snapshot:
    m = {"mysql-5.7.41-mysqltuner-json": "result.json", "tidb-docs-cn-show-variables": "show-variables.md"}[name]
    return import_snapshot(str(DUMPS / name / m), now="2026-01-01T00:00:00Z", **kw)


def test_info_findings_are_notes_not_ticked_passes():
    cl = checklist(dump("mysql-5.7.41-mysqltuner-json"))
    notes = [it for it in cl.items if it.rule and it.severity == "info" and it.status != "pass"
             and it.status != "unknown"]
    assert notes and all(it.status == "note" and not it.title.startswith("Avoid:") for it in notes)
    md = render_markdown(cl)
    change = next(it for it in notes if it.rule == "change-buffering-enabled")
    assert f"- **{change.title}** (note)" in md  # no box: neither passed nor failed
    assert "- [x] **Avoid: InnoDB change buffering is on**" not in md
    assert not re.search(r"\[x\] \*\*[^*]+\*\* \(note\)", md)


def test_redo_under_1g_is_not_ticked_for_a_96m_log():
    got = items(dump("mysql-5.7.41-mysqltuner-json"))
    assert "rule:redo-log-small-for-bulk-load" not in got  # a 96 MiB log is redo-log-undersized's (it fails)
    assert got["rule:redo-log-undersized"].status == "fail"


def test_unknown_items_say_what_to_do_and_never_ask_for_an_uncollectable_fact():
    got = items(dump("mysql-5.7.41-mysqltuner-json"))
    unknown = {k: it for k, it in got.items() if it.status == "unknown" and it.rule}
    assert unknown
    host = unknown["rule:numa-interleave-off"]
    assert "--host-facts" in host.fix and "Collect the missing fact" not in host.fix
    thread = unknown["rule:thread-cache-churn"]  # 12 connections since start: nothing to collect, it needs time
    assert "There is no fact to collect" in thread.fix and "12 connections" in thread.fix
    assert unknown_fix("x", "host.memory.total_bytes is unknown: the host's RAM is unknown").startswith("Collect")


def test_tidb_items_do_not_talk_about_the_buffer_pool():
    snap = dump("tidb-docs-cn-show-variables", flavor="tidb", version="3.0.0")
    line = ("sysbench --config-file=config oltp_point_select --tables=32 --table-size=10000000 --threads=64 "
            "--time=300 --mysql-host=10.0.0.5 --mysql-port=4000 run")
    cl = checklist(snap, line)
    for it in cl.items:
        for text in (it.title, it.evidence, it.fix):
            assert "buffer pool" not in text and "InnoDB samples" not in text, (it.id, text)
