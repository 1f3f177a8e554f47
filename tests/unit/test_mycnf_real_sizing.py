"""`advisor mycnf` on real snapshots (issue 14 §2 items 14 and 16).

Snapshots: tests/fixtures/calibration/mariadb-10.11-tls-calibrated.snapshot.json (this project's 2-CPU,
23.5 GiB test machine with a throwaway MariaDB 10.11.19; PROVENANCE.md there) and
tests/golden/checklist/inputs/mariadb-10.11-prepared.json (a server after sysbench prepare, 45 MB of
InnoDB data; README there). Sysbench command: PingCAP's v5.2.0 report, as in test_sysbench_parse.py,
with its shell variables given values.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from advisor import api
from advisor.knowledge import default_catalogue
from advisor.mycnf.profile import state_host_facts
from advisor.render.mycnf import render
from advisor.rules import sizing
from advisor.rules.memory import PlannedValues, fit_to_memory
from advisor.snapshot import Snapshot
from advisor.versions import Version

TESTS = Path(__file__).resolve().parents[1]
CALIBRATED = TESTS / "fixtures" / "calibration" / "mariadb-10.11-tls-calibrated.snapshot.json"
PREPARED = TESTS / "golden" / "checklist" / "inputs" / "mariadb-10.11-prepared.json"
PINGCAP_RUN_512 = ("sysbench oltp_read_write --threads=512 --time=300 --report-interval=1 --rand-type=uniform "
                   "--db-driver=mysql --mysql-db=sbtest --mysql-host=10.0.0.5 --mysql-port=4000 run "
                   "--tables=16 --table-size=10000000")
GiB, MiB = 1 << 30, 1 << 20
CAT = default_catalogue()


def snap(path: Path) -> Snapshot:
    return Snapshot.model_validate(json.loads(path.read_text(encoding="utf-8")))


def setting(plan, name):
    return next((s for s in plan.settings if s.variable == name), None)


# ---------------------------------------------------------------- item 16: connections from the workload

def test_two_cpu_benchmark_keeps_the_pool_and_does_not_size_for_1024_threads():
    plan = api.mycnf(snap(CALIBRATED), purpose="benchmark", source="test")
    assert setting(plan, "max_connections") is None          # 151 is enough for a sweep to 8 threads per CPU
    bp = setting(plan, "innodb_buffer_pool_size")
    assert bp is not None and bp.value == "18048M" and not any("memory budget" in n for n in bp.notes)
    assert plan.budget.active == 26 and plan.budget.total <= plan.budget.limit * 0.9
    text = render(plan, CAT)
    assert "26 expected at once × " in text and "worst case:" in text
    assert "1,100" not in text and "1,024" not in text


def test_sysbench_threads_size_max_connections_and_the_budget():
    threads = api.sysbench_threads(PINGCAP_RUN_512)
    assert threads == 512
    plan = api.mycnf(snap(CALIBRATED), purpose="benchmark", source="test", threads=threads)
    mc = setting(plan, "max_connections")
    assert mc is not None and mc.value == "564" and "512 threads" in mc.reason
    assert plan.budget.max_connections == 564 and plan.budget.active is None  # all 564 are expected at once
    text = render(plan, CAT)
    assert "connections at once: 564 (the sysbench command's 512 threads" in text
    # the worst case (564 connections × every buffer) is shown; the pool is cut only as far as the
    # expected connections need, never to a worst case
    bp = setting(plan, "innodb_buffer_pool_size")
    assert int(bp.value.rstrip("M")) * MiB >= 4 * GiB


def test_the_pool_is_never_cut_below_the_data_and_its_growth_when_memory_allows():
    v = PlannedValues("mariadb", Version(10, 11, 19), {"innodb_buffer_pool_size": "6G", "max_connections": "2000",
                                                      "sort_buffer_size": "4M", "tmp_table_size": "64M",
                                                      "max_heap_table_size": "64M"}, CAT)
    floor = sizing.data_pool_floor(4.5 * GiB, 128 * MiB)
    assert floor == 5760 * MiB
    explicit, adj, b = fit_to_memory(v, 8 * GiB, 128 * MiB, 151, bp_floor=floor)
    assert int(explicit["innodb_buffer_pool_size"].rstrip("M")) * MiB >= floor
    assert any(a.variable == "max_connections" for a in adj)       # connections gave way, not the data's pool
    no_floor, _, _ = fit_to_memory(v, 8 * GiB, 128 * MiB, 151)
    assert no_floor["innodb_buffer_pool_size"] == "2G"              # what it did before: a quarter of the memory


def test_prepared_server_keeps_a_pool_that_holds_its_data():
    s = state_host_facts(snap(PREPARED), 2 * GiB, 2, None)
    plan = api.mycnf(s, purpose="benchmark", source="test")
    bp = setting(plan, "innodb_buffer_pool_size")
    data = 45203456 + 3178496
    assert bp is None or int(bp.value.rstrip("MG")) * (GiB if bp.value.endswith("G") else MiB) >= data * 1.25


def test_expected_connections():
    assert sizing.expected_connections("benchmark", 64, 3, 2) == (74, sizing.expected_connections("oltp", 64, None, None)[1])
    n, why = sizing.expected_connections("benchmark", None, 1, 2)
    assert n == 26 and "8 threads per CPU on 2 CPUs" in why
    n, why = sizing.expected_connections("oltp", None, 300, 64)
    assert n == 330 and "Max_used_connections" in why
    assert sizing.expected_connections("oltp", None, None, 64)[0] is None
    assert sizing.connections_for_workload("benchmark", 5000, 64)[0] == 5000   # never lowered
    assert sizing.connections_for_workload("oltp", 151)[0] == 151


# ---------------------------------------------------------------- item 14: wording

def flat(text: str) -> str:
    """The file's comments as one line: wrapped sentences read across their `#` continuation lines."""
    return " ".join(line.lstrip("#").strip() for line in text.splitlines())


def test_header_and_lines_read_right():
    text = render(api.mycnf(snap(CALIBRATED), purpose="benchmark", source="test"), CAT)
    assert "calibration: not run (calibration did not run)" not in text
    assert "sizing sizing." not in text and "sizer sizing.buffer-pool" in text
    assert "1 of the changed settings take " not in text
    assert not re.search(r"\b1 of the \d+ changed settings take\b", text)
    # MariaDB has no innodb_dedicated_server: the reason says where the share comes from instead
    assert "innodb_dedicated_server's baseline" not in text
    assert "MariaDB's guidance for an InnoDB-only server (50-75 % of the memory" in flat(text)
    assert "Source: https://mariadb.com/docs/server/server-usage/storage-engines/innodb/" in text
    # the value written is the one the reason names
    assert "rounded down to 18048M" in flat(text) and "innodb_buffer_pool_size = 18048M" in text


def test_thread_pool_is_not_written_from_an_info_finding():
    snapshot = snap(CALIBRATED)  # 400 connections at once on its 2 CPUs: the rule fires (info)
    snapshot.server.status["Max_used_connections"] = "400"
    plan = api.mycnf(snapshot, purpose="production", source="test")
    assert any(f.rule == "thread-pool-available-unused" for f in plan.report.findings)
    assert setting(plan, "thread_handling") is None
    text = render(plan, CAT)
    assert "thread_handling = pool-of-threads: thread-pool-available-unused (info) suggests trying it" in flat(text)
