"""Plan building: target correctness, the durability guard, conflicts, the memory budget, modes."""

from __future__ import annotations

import pytest

from advisor import api
from advisor.errors import UsageError
from advisor.mycnf.cnf import effective, parse_option_text
from advisor.mycnf.model import MycnfOptions, adapt_to_target, resolve, weakens_durability
from advisor.mycnf.profile import Profile, check_profile, profile_snapshot
from advisor.knowledge import default_catalogue
from advisor.render.mycnf import render as render_plan
from advisor.rules.sizers import Proposal
from advisor.versions import Version

GiB = 1 << 30
CAT = default_catalogue()


def render(plan) -> str:
    return render_plan(plan, CAT)


def settings_of(text: str) -> dict[str, str]:
    return {k: o.value for k, o in effective(parse_option_text(text).options).items()}  # type: ignore[misc]


def profile_text(**kw) -> str:
    args = dict(ram_bytes=64 * GiB, cores=16, disk="nvme-plp", flavor="mysql", version="8.0.36", workload="oltp")
    args.update(kw)
    return render(api.mycnf_profile(Profile(**args)))


# ---------------------------------------------------------------- acceptance: redo names per target

def test_mysql_8036_uses_redo_log_capacity():
    s = settings_of(profile_text())
    assert s["innodb_redo_log_capacity"] == "8G"
    assert "innodb_log_file_size" not in s and "innodb_log_files_in_group" not in s


def test_mysql_8020_uses_log_file_size():
    s = settings_of(profile_text(version="8.0.20"))
    assert s["innodb_log_file_size"] == "4G"     # × 2 files = 8 GiB
    assert "innodb_redo_log_capacity" not in s


def test_mariadb_1011_has_no_log_files_in_group():
    text = profile_text(flavor="mariadb", version="10.11")
    s = settings_of(text)
    assert s["innodb_log_file_size"] == "8G"
    assert "innodb_log_files_in_group" not in text and "innodb_redo_log_capacity" not in s


# ---------------------------------------------------------------- target correctness

def P(var, value, source="some-rule", kind="rule", severity="warning"):
    return Proposal(var, value, source, kind, severity, "why.", "https://example.org/x")


def test_adapt_renames_redo_between_versions():
    q, note = adapt_to_target(P("innodb_log_file_size", "1G"), "mysql", Version(8, 0, 36), 2, CAT)
    assert q is not None and (q.variable, q.value) == ("innodb_redo_log_capacity", "2G") and "renamed" in note
    q, note = adapt_to_target(P("innodb_redo_log_capacity", "4G"), "mysql", Version(8, 0, 20), 2, CAT)
    assert q is not None and (q.variable, q.value) == ("innodb_log_file_size", "2G")
    q, note = adapt_to_target(P("innodb_redo_log_capacity", "4G"), "mariadb", Version(10, 11, 6), 1, CAT)
    assert q is not None and (q.variable, q.value) == ("innodb_log_file_size", "4G")


def test_adapt_drops_what_the_target_does_not_have():
    q, why = adapt_to_target(P("query_cache_size", "0"), "mysql", Version(8, 0, 36), 2, CAT)
    assert q is None and "removed" in why
    q, why = adapt_to_target(P("innodb_log_files_in_group", "2"), "mariadb", Version(10, 11, 6), 1, CAT)
    assert q is None and "removed in MariaDB 10.6.0" in why
    q, why = adapt_to_target(P("no_such_variable_x", "1"), "mysql", Version(8, 0, 36), 2, CAT)
    assert q is None and "not in the variable catalogue" in why
    # one the catalogue does not cover on this release but the server shows is an option it knows (issue 23)
    # (MariaDB 11.x past 11.4.7: no generated data; MySQL 5.7 and MariaDB 11.4.4-11.4.7 are catalogued)
    assert adapt_to_target(P("lock_wait_timeout", "3600"), "mysql", Version(5, 7, 44), 2, CAT)[0] is not None
    q, why = adapt_to_target(P("lock_wait_timeout", "3600"), "mariadb", Version(11, 4, 4), 2, CAT)
    assert q is not None and q.value == "3600" and "not checked" not in why
    q, why = adapt_to_target(P("lock_wait_timeout", "3600"), "mariadb", Version(11, 8, 2), 2, CAT, {"lock_wait_timeout"})
    assert q is not None and q.value == "3600" and "the server shows it" in why and "not checked" in why
    q, why = adapt_to_target(P("lock_wait_timeout", "3600"), "mariadb", Version(11, 8, 2), 2, CAT)
    assert q is None and "does not know" in why
    q, why = adapt_to_target(P("log_bin", "ON"), "mysql", Version(8, 0, 36), 2, CAT)
    assert q is None and "file name" in why
    q, why = adapt_to_target(P("max_connections", "0"), "mysql", Version(8, 0, 36), 2, CAT)
    assert q is None and "below the minimum" in why


def test_adapt_writes_sizes_and_rounds_like_the_server():
    q, _ = adapt_to_target(P("sort_buffer_size", "262144"), "mysql", Version(8, 0, 36), 2, CAT)
    assert q is not None and q.value == "256K"
    q, note = adapt_to_target(P("read_buffer_size", "130000"), "mysql", Version(8, 0, 36), 2, CAT)
    assert q is not None and q.value == "124K" and "multiple of 4096" in note


# ---------------------------------------------------------------- durability guard and conflicts

def test_weakens_durability():
    assert weakens_durability("innodb_flush_log_at_trx_commit", "2")
    assert weakens_durability("innodb_flush_log_at_trx_commit", "0")
    assert weakens_durability("sync_binlog", "0") and weakens_durability("sync_binlog", "100")
    assert weakens_durability("innodb_doublewrite", "OFF") and weakens_durability("innodb_doublewrite", "DETECT_ONLY")
    assert not weakens_durability("innodb_doublewrite", "ON")
    assert not weakens_durability("innodb_flush_log_at_trx_commit", "1")
    assert not weakens_durability("innodb_flush_method", "O_DIRECT")


def test_resolve_rules_beat_sizing_and_severity_orders_rules():
    out = resolve([P("max_connections", "500", "sizing.x", "sizing", "sizing"), P("max_connections", "300", "b-rule", "rule", "info"),
                   P("max_connections", "400", "a-rule", "rule", "warning")], CAT)
    win, notes = out["max_connections"]
    assert (win.source, win.value) == ("a-rule", "400")
    assert any("sizing.x" in n and "evidence" in n for n in notes)
    assert any("b-rule" in n and "higher severity" in n for n in notes)


def test_resolve_capacities_take_the_larger_value():
    out = resolve([P("innodb_redo_log_capacity", "1G", "redo-log-undersized"),
                   P("innodb_redo_log_capacity", "8G", "sizing.redo-capacity", "sizing", "sizing")], CAT)
    win, notes = out["innodb_redo_log_capacity"]
    assert win.value == "8G" and "larger value wins" in notes[0]


def test_resolve_is_deterministic_whatever_the_order():
    ps = [P("sort_buffer_size", "256K", "r1", "rule", "info"), P("sort_buffer_size", "2M", "r2", "rule", "info"),
          P("sort_buffer_size", "1M", "sizing.s", "sizing", "sizing")]
    a = resolve(ps, CAT)["sort_buffer_size"][0]
    b = resolve(list(reversed(ps)), CAT)["sort_buffer_size"][0]
    assert a == b and a.source == "r1"


def _relaxed_snapshot():
    snap = api.demo_snapshot()
    snap.server.variables["innodb_flush_log_at_trx_commit"] = "2"
    snap.server.variables["sync_binlog"] = "0"
    snap.server.variables["log_bin"] = "ON"
    return snap


def test_durability_is_never_weakened_without_the_flag():
    for purpose in ("production", "benchmark"):
        for mode in ("changes", "full"):
            plan = api.mycnf_plan(_relaxed_snapshot(), MycnfOptions(purpose=purpose, mode=mode))
            s = settings_of(render(plan))
            assert s.get("innodb_flush_log_at_trx_commit", "1") == "1"
            assert s.get("sync_binlog", "1") == "1"
            assert plan.unsafe == []


def test_full_mode_restores_durability_it_would_otherwise_keep():
    plan = api.mycnf_plan(_relaxed_snapshot(), MycnfOptions(purpose="benchmark", mode="full"))
    s = {x.variable: x for x in plan.settings}
    assert s["innodb_flush_log_at_trx_commit"].value == "1" and s["innodb_flush_log_at_trx_commit"].kind == "guard"
    assert s["sync_binlog"].value == "1"


def test_unsafe_durability_needs_benchmark_and_prints_a_banner():
    with pytest.raises(UsageError):
        api.mycnf_plan(api.demo_snapshot(), MycnfOptions(purpose="production", allow_unsafe_durability=True))
    plan = api.mycnf_plan(api.demo_snapshot(), MycnfOptions(purpose="benchmark", allow_unsafe_durability=True))
    text = render(plan)
    assert text.startswith("# " + "!" * 10)
    assert "UNSAFE DURABILITY" in text.splitlines()[1]
    s = settings_of(text)
    assert s["innodb_flush_log_at_trx_commit"] == "2" and s["sync_binlog"] == "0" and s["innodb_doublewrite"] == "OFF"


def test_a_rule_that_weakens_durability_is_dropped(tmp_path):
    rule = tmp_path / "relax.toml"
    rule.write_text('''id = "test-relax-durability"
title = "Test rule that relaxes durability"
category = "durability"
severity = "critical"
message = "Relax it."
rationale = "Test."
fix = "Test."
references = ["https://example.org/relax"]
[applies_to.flavors]
mysql = "*"
[when]
all = [ { fact = "var.innodb_flush_log_at_trx_commit", op = "exists" } ]
[[recommend]]
variable = "innodb_flush_log_at_trx_commit"
value = "0"
[[examples]]
name = "fires"
expect = "fired"
[examples.facts]
"var.innodb_flush_log_at_trx_commit" = "1"
[[examples]]
name = "quiet"
expect = "unknown"
[examples.facts]
"var.innodb_flush_method" = "fsync"
''')
    plan = api.mycnf_plan(api.demo_snapshot(), MycnfOptions(purpose="benchmark", rules_dirs=(str(tmp_path),)))
    assert "innodb_flush_log_at_trx_commit" not in {s.variable for s in plan.settings}
    assert any("test-relax-durability" in n and "weakens" not in n and "commits would no longer wait" in n
               for n in plan.not_changed)


# ---------------------------------------------------------------- the demo (seed 000)

def test_demo_plan_fixes_the_seed_pitfalls_within_the_budget():
    plan = api.mycnf_plan(api.demo_snapshot(), MycnfOptions(purpose="benchmark"))
    s = {x.variable: x for x in plan.settings}
    assert s["sort_buffer_size"].value == "256K" and s["sort_buffer_size"].source_id == "sort-buffer-oversized"
    assert s["innodb_log_file_size"].value == "8G"     # 16 GiB over 2 files (80 CPUs / 2, capped)
    # the rule and the sizer share one sizing model (rules.sizing.redo_target), so they agree on the value
    assert s["innodb_log_file_size"].source_id == "redo-log-undersized"
    assert any("sizing.redo-capacity recommends the same value" in n for n in s["innodb_log_file_size"].notes)
    assert s["innodb_io_capacity"].value == "1000"      # nvme_client
    assert plan.budget.limit == 128 * GiB and plan.budget.total <= 0.9 * 128 * GiB
    assert all(x.previous and x.reason and x.reference.startswith("https://") for x in plan.settings)
    assert any("nvme-client-no-plp" in n for n in plan.not_changed)


def test_full_mode_keeps_the_core_settings():
    plan = api.mycnf_plan(api.demo_snapshot(), MycnfOptions(purpose="production", mode="full"))
    kinds = {x.variable: x.kind for x in plan.settings}
    assert kinds["innodb_flush_log_at_trx_commit"] == "kept" and kinds["join_buffer_size"] == "kept"
    assert kinds["sort_buffer_size"] == "rule"
    assert "open_files_limit" not in kinds and "log_bin" not in kinds   # autosized; never written


def test_full_mode_writes_a_renamed_variable_under_its_new_name_only():
    # MySQL 8.0.26+ prints slave_parallel_workers beside replica_parallel_workers with one value
    snap = api.demo_snapshot()
    snap.target.version = snap.target.version_string = "8.0.41"
    snap.server.variables["slave_parallel_workers"] = "8"
    snap.server.variables["replica_parallel_workers"] = "8"
    plan = api.mycnf_plan(snap, MycnfOptions(purpose="production", mode="full"))
    s = {x.variable: x.value for x in plan.settings}
    assert s["replica_parallel_workers"] == "8" and "slave_parallel_workers" not in s


def test_tidb_and_bad_options_are_usage_errors():
    snap = api.demo_snapshot()
    snap.target.flavor = "tidb"
    with pytest.raises(UsageError):
        api.mycnf_plan(snap, MycnfOptions())
    with pytest.raises(UsageError):
        api.mycnf_plan(api.demo_snapshot(), MycnfOptions(mode="partial"))
    with pytest.raises(UsageError):
        api.mycnf_plan(api.demo_snapshot(), MycnfOptions(workload="olap"))


def test_memory_unknown_is_said_and_nothing_is_sized_from_it():
    snap = api.demo_snapshot()
    snap.host = None
    plan = api.mycnf_plan(snap, MycnfOptions(purpose="benchmark"))
    text = render(plan)
    assert "memory: unknown" in text and "not checked" in text
    assert "innodb_buffer_pool_size" not in {x.variable for x in plan.settings}
    assert any("memory limit is unknown" in n for n in plan.not_changed)


# ---------------------------------------------------------------- profiles

def test_profile_snapshot_carries_catalogue_defaults_and_host_facts():
    snap = profile_snapshot(Profile(16 * GiB, 8, "hdd", "mysql", "8.4.3", "oltp"), CAT)
    v = snap.server.variables
    assert v["innodb_io_capacity"] == "10000" and v["innodb_flush_method"] == "O_DIRECT"
    assert v["innodb_read_io_threads"] == "4"          # 8.4 formula: max(4, cpus / 2)
    assert snap.host.memory.total_bytes == 16 * GiB and snap.host.datadir.device_class == "rotational"
    assert snap.server.status == {} and any(m.fact == "server.status" for m in snap.server.missing)


def test_check_profile():
    assert check_profile(Profile(64 * GiB, 16, "nvme-plp", "mysql", "8.0.36", "oltp")) is None
    assert "below" in check_profile(Profile(512 << 20, 16, "ssd", "mysql", "8.0.36", "oltp"))
    assert "not a mysql version" in check_profile(Profile(64 * GiB, 16, "ssd", "mysql", "10.11", "oltp"))
    assert "TiDB" in check_profile(Profile(64 * GiB, 16, "ssd", "tidb", "7.5.1", "oltp"))


def test_hdd_profile_on_84_lowers_io_capacity():
    s = settings_of(profile_text(ram_bytes=16 * GiB, cores=8, disk="hdd", version="8.4.3"))
    assert s["innodb_io_capacity"] == "200" and s["innodb_io_capacity_max"] == "400"
