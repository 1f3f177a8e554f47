"""Meta-tests over the rule catalogue (sqlfluff / ansible-lint style): size, references, the
variables rules name are in the variable catalogue, generated docs are current and `advisor
explain` prints the same page; plus unit tests of the derived facts and formulas the rules use."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor import knowledge as K
from advisor.rules import formulas as F
from advisor.rules.sizing import dedicated_buffer_pool_bytes as dedicated_bp_for_ram
from advisor.rules.engine import evaluate
from advisor.rules.examples import example_snapshot
from advisor.rules.examples_run import run_examples
from advisor.rules.facts import Unknown
from advisor.rules.loader import load_rules
from advisor.rules.schema import Example
from advisor.rules.engine import fact_view
from tests.support.cli import invoke

ROOT = Path(__file__).resolve().parent.parent.parent
RULES = load_rules()
MiB, GiB = 1 << 20, 1 << 30

SEED = {"tls-in-use", "network-route-slow-link", "sort-buffer-oversized", "redo-log-undersized", "nvme-client-no-plp"}
# Rules written for the knowledge base (issue 5); the catalogue passes 40 with these and the seed rules alone.
KNOWLEDGE_RULES = {
    "require-secure-transport-benchmark", "name-resolution-per-connection", "max-allowed-packet-small",
    "buffer-pool-below-data-size", "buffer-pool-chunk-mismatch", "buffer-pool-instances-small",
    "connection-memory-over-budget", "tmp-table-size-mismatch", "join-buffer-oversized",
    "redo-log-below-hour-of-writes", "redo-log-small-for-bulk-load", "log-buffer-small",
    "flush-method-fsync", "io-capacity-low-for-flash", "io-capacity-high-for-hdd", "doublewrite-disabled",
    "flush-neighbors-on-flash", "durability-relaxed", "durability-settings-stated",
    "max-connections-near-limit", "table-open-cache-churn", "open-files-limit-too-low", "thread-cache-churn",
    "thread-pool-available-unused", "innodb-thread-concurrency-limited", "adaptive-hash-index-contention",
    "query-cache-enabled", "dedicated-server-overridden", "pinned-pre-84-defaults", "deprecated-variable-set",
    "change-buffering-enabled", "performance-schema-stated", "binary-log-stated",
    "tidb-prepared-plan-cache-off", "tidb-async-commit-off", "tidb-1pc-off", "tidb-linearizability-benchmark",
    "tidb-clustered-index-off", "tidb-statistics-after-load",
}


def test_catalogue_size():
    ids = {r.id for r in RULES}
    assert KNOWLEDGE_RULES <= ids
    assert len(KNOWLEDGE_RULES) >= 30
    assert len(KNOWLEDGE_RULES | SEED) >= 40


# The canon areas of issue 15: each has several rules (the category closed list, docs/report-format.md).
CANON_CATEGORIES = ("logging", "instrumentation", "transactions", "replication", "limits", "engine",
                    "optimizer", "correctness", "security", "charset", "durability", "memory", "version")


def test_canon_size_and_areas():
    from collections import Counter

    hand = [r for r in RULES if r.variable is None]  # the risky-values family is counted on its own
    # ... except the risky entries that took a hand-written rule's place (they keep its id as an alias)
    replaced = [r for r in RULES if r.variable is not None and any("." not in a for a in r.spec.aliases)]
    per = Counter(r.spec.category for r in hand + replaced)
    assert len(hand) >= 130
    for cat in CANON_CATEGORIES:
        assert per[cat] >= (1 if cat == "charset" else 3), (cat, per[cat])


def test_coverage_doc_names_real_rules_and_every_pt_variable_advisor_check():
    """docs/coverage.md maps peer checks to rules: every rule id it names exists, and every rule of
    the installed pt-variable-advisor has a row (read from the script's own rule table)."""
    import re

    text = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    ids = {r.id for r in RULES}
    named = set(re.findall(r"`([a-z][a-z0-9]*(?:-[a-z0-9]+)+)`", text))
    planned = set(re.findall(r"`([a-z][a-z0-9]*(?:-[a-z0-9]+)+)`",
                             (ROOT / "docs" / "rules-planned.md").read_text(encoding="utf-8")))
    unknown = sorted(n for n in named - ids - planned if not n.startswith(("tidb-", "advisor-")))
    assert not unknown, f"docs/coverage.md names rules that do not exist: {unknown}"
    script = Path("/usr/bin/pt-variable-advisor")
    if not script.is_file():
        pytest.skip("pt-variable-advisor is not installed")
    src = script.read_text(encoding="utf-8", errors="replace")
    pt_ids = re.findall(r"id\s*=>\s*'([^']+)'", src[src.index("package VariableAdvisorRules"):])
    section = text[text.index("## pt-variable-advisor"):text.index("## MySQLTuner")]
    rows = {line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ")}
    missing = [i for i in pt_ids if i not in rows]
    assert len(pt_ids) >= 60 and not missing, missing


def test_rules_list_json_counts():
    import json

    p = invoke("rules", "list", "--format", "json")
    assert p.returncode == 0, p.stderr
    items = json.loads(p.stdout)["rules"]
    assert len(items) >= 40
    assert all(i["references"] for i in items)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_quality(rule):
    s = rule.spec
    assert s.references
    assert s.rationale.strip() and len(s.rationale.split()) >= 30, "rationale should explain, in own words"
    results = run_examples(rule, K.default_catalogue())
    assert all(r.ok for r in results), [p for r in results for p in r.problems]
    statuses = {r.outcome.status for r in results}
    assert "fired" in statuses and statuses & {"passed", "not_applicable"}


def _var_names(rule) -> set[str]:
    names = {v.lower() for v in rule.spec.variables}
    names |= {p.split(".", 1)[1].lower() for p in rule.fact_paths() + list(rule.spec.evidence) if p.startswith("var.")}
    names |= {r.variable.lower() for r in rule.spec.recommend if r.variable}
    return names


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_variables_are_catalogued(rule):
    missing = sorted(n for n in _var_names(rule) if n not in K.catalogue())
    assert not missing, f"{rule.id} names variables the catalogue does not know: {missing}"


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_variables_exist_where_the_rule_applies(rule):
    """Every variable a rule is about exists on some flavor and version the rule applies to (the
    list may name both spellings of a renamed variable, e.g. innodb_redo_log_capacity and
    innodb_log_file_size)."""
    from advisor.knowledge.rulecheck import probe_versions

    for name in rule.spec.variables:
        found = [(fl, v) for fl, rng in rule.spec.applies_to.flavors.items()
                 for v in probe_versions(fl, rng, name, K.default_catalogue()) if K.exists_on(name, fl, v)]
        assert found, f"{rule.id}: {name} exists nowhere the rule applies"


# ---------------------------------------------------------------- docs

# (the pages of every entry kind are checked in tests/unit/test_pages.py)


def test_writing_rules_guide_covers_every_key():
    from advisor.rules.schema import AppliesTo, Example, Override, Recommend, RuleFile

    guide = (ROOT / "docs" / "writing-rules.md").read_text(encoding="utf-8")
    for model in (RuleFile, AppliesTo, Override, Recommend, Example):
        for key in model.model_fields:
            assert f"`{key}`" in guide, f"docs/writing-rules.md does not explain `{key}` ({model.__name__})"


def test_doc_pages_have_fixed_sections():
    text = (ROOT / "docs" / "rules" / "redo-log-undersized.md").read_text(encoding="utf-8")
    for section in ("## What it checks", "## Why it matters", "## Example", "## Recommendation", "## Variables",
                    "## Applies to", "## References"):
        assert section in text
    assert "mariadb >=10.5,<10.9: 100663296 (96 MiB)" in text


# ---------------------------------------------------------------- formulas

def view(target: str = "mysql 8.0.36", purpose: str = "production", **facts):
    return fact_view(example_snapshot(Example(name="x", expect="passed", target=target, facts=facts)), purpose,
                     K.default_catalogue())


def test_bp_for_data():
    assert F.bp_for_data(480e6, 24 * GiB, 2 * MiB) == 504 * MiB
    assert F.bp_for_data(100 * GiB, 16 * GiB, 128 * MiB) == 12 * GiB            # capped at 75 %
    assert F.bp_for_data(1 * GiB, None, 128 * MiB) == 1152 * MiB
    assert F.bp_for_data(1 * GiB, 100 * MiB, 128 * MiB) is None                 # 75 % < one chunk


def test_buffer_pool_for_data_needs_memory():
    v = view(**{"var.innodb_buffer_pool_size": "128M",
                "server.data_size": {"InnoDB": {"tables": 1, "data_bytes": 10 * GiB, "index_bytes": 0}}})
    out = F.FORMULAS["buffer_pool_for_data"].fn(v)
    assert isinstance(out, Unknown) and "memory" in out.reason


def test_instances_and_connections():
    assert F.instances_for_pool(4 * GiB, 8) == 4
    assert F.instances_for_pool(512 * MiB, 8) == 1
    assert F.instances_for_pool(64 * GiB, 8) == 8
    assert F.connections_for_budget(8 * GiB, 2 * GiB, 20 * MiB, 40) == int((8 * GiB * 0.9 - 2 * GiB) // (20 * MiB))
    assert F.connections_for_budget(8 * GiB, 2 * GiB, 20 * MiB, 1000) == 1100   # never below the peak + 10 %
    assert F.connections_for_budget(2 * GiB, 4 * GiB, 20 * MiB, 10) is None
    assert F.connections_headroom(152, 151) == 250
    assert F.connections_headroom(10, 151) == 151


def test_table_thread_and_log_buffer():
    assert F.table_cache_for(4000, 4000) == 8000
    assert F.table_cache_for(100, 400) == 1000
    assert F.table_cache_for(400000, 4000) == 524288
    assert F.thread_cache_for(120, 9) == 120
    assert F.thread_cache_for(5000, 9) == 1009
    assert F.thread_cache_for(5, 100) == 100
    assert F.log_buffer_target(16 * MiB, 0) == 64 * MiB
    assert F.log_buffer_target(64 * MiB, 3) == 128 * MiB
    assert F.log_buffer_target(256 * MiB, 3) == 256 * MiB


def test_io_capacity_for_device():
    assert F.FORMULAS["io_capacity_for_device"].fn(view(**{"host.datadir": {"path": "/d", "device_class": "ssd"}})) == \
        {"innodb_io_capacity": "1000", "innodb_io_capacity_max": "2000"}
    out = F.FORMULAS["io_capacity_for_device"].fn(view(**{"host.datadir": {"path": "/d", "device_class": "virtual"}}))
    assert isinstance(out, Unknown)


def test_tmp_table_pair_and_chunk_alignment():
    v = view(**{"var.tmp_table_size": "64M", "var.max_heap_table_size": "16M"})
    assert F.FORMULAS["tmp_table_pair"].fn(v) == {"tmp_table_size": "64M", "max_heap_table_size": "64M"}
    v = view(**{"var.innodb_buffer_pool_size": "9728M", "var.innodb_buffer_pool_chunk_size": "128M",
                "var.innodb_buffer_pool_instances": "8"})
    assert F.FORMULAS["buffer_pool_chunk_aligned"].fn(v) == {"innodb_buffer_pool_size": "10G"}


def test_defaults_of_target():
    v = view("mysql 8.4.3", **{"var.innodb_io_capacity": "200", "var.innodb_change_buffering": "all",
                               "var.innodb_log_buffer_size": "64M"})
    assert F.FORMULAS["defaults_of_target"].fn(v) == {"innodb_io_capacity": "10000", "innodb_change_buffering": "none"}


# ---------------------------------------------------------------- derived facts

def test_dedicated_bp_for_ram():
    assert dedicated_bp_for_ram(512 * MiB) == 128 * MiB
    assert dedicated_bp_for_ram(4 * GiB) == 2 * GiB
    assert dedicated_bp_for_ram(64 * GiB) == 48 * GiB


def test_default_and_nondefault_lists():
    v = view("mysql 8.0.36", **{"var.innodb_io_capacity": "200", "var.innodb_flush_method": "O_DIRECT",
                                "var.open_files_limit": "10000", "var.my_plugin_var": "1"})
    assert v.get("derived.default_variables") == ["innodb_io_capacity"]
    assert v.get("derived.nondefault_variables") == ["innodb_flush_method"]


def test_per_connection_memory_follows_tmp_engine():
    base = {"var.sort_buffer_size": "256K", "var.join_buffer_size": "256K", "var.read_buffer_size": "128K",
            "var.read_rnd_buffer_size": "256K", "var.thread_stack": "1M", "var.binlog_cache_size": "32K",
            "var.tmp_table_size": "16M", "var.max_heap_table_size": "16M"}
    temptable = view("mysql 8.0.36", **base, **{"var.internal_tmp_mem_storage_engine": "TempTable"})
    memory = view("mysql 8.0.36", **base, **{"var.internal_tmp_mem_storage_engine": "MEMORY"})
    old = view("mysql 5.7.44", **base)
    small = (256 + 256 + 128 + 256 + 1024 + 32) * 1024
    assert temptable.get("derived.per_connection_buffer_bytes") == small
    assert memory.get("derived.per_connection_buffer_bytes") == small + 16 * MiB
    assert old.get("derived.per_connection_buffer_bytes") == small + 16 * MiB
    assert isinstance(view("mysql 8.0.36").get("derived.per_connection_buffer_bytes"), Unknown)


def test_durability_summary_and_relaxed():
    v = view("mariadb 10.11.6", **{"var.innodb_flush_log_at_trx_commit": "1", "var.log_bin": "ON",
                                   "var.sync_binlog": "0", "var.innodb_doublewrite": "ON"})
    assert v.get("derived.durability_summary") == ("innodb_flush_log_at_trx_commit=1, binary log ON with "
                                                   "sync_binlog=0, innodb_doublewrite=ON")
    assert v.get("derived.durability_relaxed") is True
    v = view(**{"var.innodb_flush_log_at_trx_commit": "1", "var.log_bin": "OFF"})
    assert v.get("derived.durability_relaxed") is False


def test_tidb_plan_cache_by_version():
    old = view("tidb 5.1.4", **{"server.tidb_config": {"prepared-plan-cache.enabled": "true"}})
    assert old.get("derived.tidb_plan_cache_enabled") is True
    assert isinstance(view("tidb 5.1.4").get("derived.tidb_plan_cache_enabled"), Unknown)
    new = view("tidb 7.5.1", **{"var.tidb_enable_prepared_plan_cache": "OFF"})
    assert new.get("derived.tidb_plan_cache_enabled") is False


def test_unknown_reasons_name_the_missing_fact():
    snap = example_snapshot(Example(name="x", expect="passed", target="mysql 8.0.36", facts={}))
    for purpose in ("production", "benchmark"):
        for o in evaluate(snap, RULES, purpose, catalogue=K.default_catalogue()):
            assert o.reason, o.rule
            if o.status == "unknown":
                assert any(w in o.reason for w in ("var.", "status.", "host", "client", "server.", "derived.",
                                                   "calibration", "rate.")), (o.rule, o.reason)


def test_size_filter_exactly_on_facts_the_resolver_calls_bytes():
    """A message shows a fact as a size exactly when its unit (FactView.unit) is bytes."""
    from advisor.rules.derived import DERIVED
    from advisor.rules.facts import fact_unit, template_paths

    wrong = []
    for r in RULES:
        for part in [r.spec, *r.spec.overrides]:
            for text in (part.message or "", part.fix or ""):
                for path, flt in template_paths(text):
                    if path.startswith("rec.") or path == "recommendation":
                        continue
                    unit = fact_unit(path, K.default_catalogue(), DERIVED)
                    if (flt == "size") != (unit == "bytes") and not (flt is None and unit != "bytes"):
                        wrong.append(f"{r.id}: {{{path}|{flt}}} has unit {unit}")
                    if flt is None and unit == "bytes":
                        wrong.append(f"{r.id}: {{{path}}} is bytes but printed raw")
    assert wrong == []
