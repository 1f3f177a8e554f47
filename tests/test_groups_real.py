"""Cause groups on real data (issue 23 §2): the bundled demo and every real dump of tests/fixtures/dumps/,
audited with both purposes (the audits of tests/test_consistency.py, made once). On each:

- a group's fired members are one finding, led by the member with the highest severity and, among
  equals, the one rules/groups.toml lists first; the others follow in the declared order;
- members that fire together agree: no two of them recommend different values for one variable, and the
  group's recommendation is theirs;
- the findings as shown recommend each variable at most once, and every fired rule is shown exactly once
  (as a finding or as a consequence);
- the groups that real servers fire together are the ones the data means (EXPECTED), with the right lead.
"""

from __future__ import annotations

from collections import Counter

import pytest

from advisor.rules.schema import SEVERITY_RANK
from tests.test_consistency import DUMP_MANIFEST, PURPOSES, _catalogue, audit

CORPUS = ["demo"] + [f"dump:{n}" for n in sorted(DUMP_MANIFEST)]
CASES = [(n, p) for n in CORPUS for p in PURPOSES]

# (corpus entry, purpose, group) -> the fired members, lead first: real co-firings the groups exist for
EXPECTED = {
    ("demo", "benchmark", "redo-size"): ["redo-log-undersized", "redo-small-on-slow-flush-device"],
    ("demo", "benchmark", "flash-io-settings"): ["io-capacity-low-for-flash", "flush-neighbors-on-flash"],
    ("demo", "benchmark", "benchmark-stated"): ["durability-settings-stated", "binary-log-stated",
                                                "performance-schema-stated"],
    ("dump:percona-8.0.32-pt-mysql-summary", "benchmark", "redo-size"): ["redo-log-undersized",
                                                                          "log-buffer-exceeds-redo-log"],
    ("dump:percona-8.0.32-pt-mysql-summary", "production", "statement-binlog"): [
        "binlog-format-statement", "autoinc-interleaved-with-statement-binlog"],
    ("dump:mysql-9.7.1-pt-mysql-summary", "production", "every-statement-logged"): [
        "general-log-enabled", "slow-log-captures-everything"],
    ("dump:mysql-5.1.34-table", "production", "sql-mode-permissive"): ["sql-mode-not-strict", "engine-substitution-allowed"],
}


def _specs():
    return {g.id: g for g in _catalogue().cause_groups()}


@pytest.mark.parametrize("name,purpose", CASES)
def test_lead_and_order_follow_the_data(name, purpose):
    a, _ = audit(name, purpose)
    specs = _specs()
    for g in a.report.finding_groups:
        if g.id is None:
            continue
        order = specs[g.id].members
        top = max(SEVERITY_RANK[f.severity] for f in g.members)
        want = min((f for f in g.members if SEVERITY_RANK[f.severity] == top), key=lambda f: order.index(f.rule))
        assert g.lead is want, f"{g.id}: lead {g.lead.rule}, expected {want.rule}"
        assert g.severity == want.severity
        rest = [f.rule for f in g.members[1:]]
        assert rest == sorted(rest, key=order.index)


@pytest.mark.parametrize("name,purpose", CASES)
def test_members_that_fire_together_agree(name, purpose):
    a, _ = audit(name, purpose)
    for g in a.report.finding_groups:
        said: dict[str, set[str]] = {}
        for f in g.members:
            for var, val in f.recommendation.items():
                said.setdefault(var.lower(), set()).add(str(val))
        assert all(len(v) == 1 for v in said.values()), f"{g.id}: members disagree: {said}"
        for var, val in g.recommendation.items():
            assert {val} == said[var.lower()], f"{g.id}: {var} = {val} is not what its members recommend"
        assert set(g.lead.recommendation) <= set(g.recommendation)


@pytest.mark.parametrize("name,purpose", CASES)
def test_one_recommendation_per_variable_and_every_fired_rule_shown_once(name, purpose):
    a, _ = audit(name, purpose)
    shown = a.report.finding_groups
    per_var = Counter(v.lower() for g in shown for v in g.recommendation)
    assert [v for v, n in per_var.items() if n > 1] == []
    rules = [r for g in shown for r in g.rules]
    assert sorted(rules) == sorted(f.rule for f in a.report.findings)
    assert len(shown) <= len(a.report.findings)


def test_real_servers_fire_the_groups_the_data_means():
    got = {}
    for name, purpose in CASES:
        a, _ = audit(name, purpose)
        for g in a.report.finding_groups:
            if g.id is not None and g.consequences:
                got[(name, purpose, g.id)] = list(g.rules)
    for key, members in EXPECTED.items():
        assert got.get(key) == members, f"{key}: {got.get(key)}"
    # and the terminal report speaks less in total: fewer findings than fired rules over the corpus
    fired = sum(len(audit(n, p)[0].report.findings) for n, p in CASES)
    shown = sum(len(audit(n, p)[0].report.finding_groups) for n, p in CASES)
    assert shown < fired
