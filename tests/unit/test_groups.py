"""Cause groups (issue 23 §2, rules/groups.toml, advisor.rules.groups): the grouping on a synthetic set
of findings (lead by severity then declared order, one recommendation per variable, consequences), the
data file against the catalogue, the loader's errors, --fail-on at the group's highest severity, and the
reports showing one finding per group with its consequences."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace

import pytest
from pydantic import ValidationError

from advisor import api
from advisor.errors import RuleLoadError
from advisor.render import report_markdown, terminal
from advisor.rules.engine import Finding, Outcome
from advisor.rules.groups import group_findings
from advisor.rules.groups_schema import GroupSpec, GroupsFile
from advisor.rules.loader import GROUPS_SOURCE, load_entries, load_groups
from tests.support.cli import invoke


def finding(rule: str, severity: str = "warning", rec: dict | None = None, category: str = "redo") -> Finding:
    return Finding(rule=rule, severity=severity, category=category, title=f"title of {rule}",
                   message=f"message of {rule}.", variables=list(rec or {}), evidence={"var.x": "1"},
                   recommendation=dict(rec or {}), references=["https://example.invalid/"], fix=f"fix of {rule}.")


REDO = GroupSpec(id="redo", title="The redo log is too small", cause="the redo size",
                 members=["a-undersized", "b-hour", "c-slow-device"], recommend="merge")
DURABLE = GroupSpec(id="durable", title="Commits are not durable", cause="relaxed durability",
                    members=["d-relaxed", "e-zero"])


def test_lead_is_the_highest_severity_then_the_declared_order():
    fs = [finding("b-hour", "warning", {"innodb_redo_log_capacity": "4G"}),
          finding("c-slow-device", "critical"),
          finding("a-undersized", "warning", {"innodb_redo_log_capacity": "2G", "innodb_log_file_size": "1G"}),
          finding("lonely", "info", {"sort_buffer_size": "256K"}, category="memory")]
    out = group_findings(fs, [REDO, DURABLE])
    assert [(g.id, g.lead.rule) for g in out] == [("redo", "c-slow-device"), (None, "lonely")]
    redo = out[0]
    assert redo.severity == "critical" and redo.title == "The redo log is too small"
    # consequences: the other fired members in the declared order (a before b), not in firing order
    assert [c.rule for c in redo.consequences] == ["a-undersized", "b-hour"]
    assert redo.rules == ("c-slow-device", "a-undersized", "b-hour")
    # merge: the lead sets nothing, so each variable takes the first member's value in the declared order
    assert redo.recommendation == {"innodb_redo_log_capacity": "2G", "innodb_log_file_size": "1G"}
    # among equal severities the declared order decides, whatever order the rules fired in
    tie = group_findings([finding("b-hour"), finding("a-undersized")], [REDO])
    assert tie[0].lead.rule == "a-undersized" and [c.rule for c in tie[0].consequences] == ["b-hour"]


def test_recommendation_lead_keeps_only_the_leads_settings():
    fs = [finding("d-relaxed", "warning", {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}),
          finding("e-zero", "info", {"innodb_flush_log_at_trx_commit": "2", "innodb_flush_log_at_timeout": "1"})]
    (g,) = group_findings(fs, [DURABLE])
    assert g.lead.rule == "d-relaxed"
    assert g.recommendation == {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}
    assert g.to_dict() == {"id": "durable", "title": "Commits are not durable", "severity": "warning",
                           "lead": "d-relaxed", "rules": ["d-relaxed", "e-zero"],
                           "recommendation": {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"},
                           "consequences": [{"rule": "e-zero", "severity": "info", "message": "message of e-zero."}]}
    # with merge instead, a variable the lead sets keeps the lead's value (one value per variable)
    (m,) = group_findings(fs, [DURABLE.model_copy(update={"recommend": "merge"})])
    assert m.recommendation == {"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1",
                                "innodb_flush_log_at_timeout": "1"}


def test_a_group_with_one_fired_member_reads_as_that_rule():
    (g,) = group_findings([finding("e-zero", "info", {"innodb_flush_log_at_trx_commit": "1"})], [DURABLE])
    assert g.id == "durable" and g.title == "title of e-zero" and g.consequences == ()
    assert g.recommendation == {"innodb_flush_log_at_trx_commit": "1"}
    assert group_findings([], [REDO, DURABLE]) == []


def test_the_groups_file_refuses_what_it_cannot_mean():
    with pytest.raises(ValidationError, match="in group redo and in group other"):
        GroupsFile.model_validate({"group": [REDO.model_dump(),
                                             {"id": "other", "title": "t", "cause": "c", "members": ["b-hour", "z"]}]})
    with pytest.raises(ValidationError, match="listed twice"):
        GroupSpec(id="x", title="t", cause="c", members=["a", "a"])
    with pytest.raises(ValidationError):
        GroupSpec(id="x", title="t", cause="c", members=["a"])  # a group of one is no group
    with pytest.raises(ValidationError):
        GroupSpec(id="x", title="t", cause="c", members=["a", "b"], recommend="all")


def test_loader_error_names_the_file_and_field(tmp_path):
    bad = tmp_path / "groups.toml"
    bad.write_text('[[group]]\nid = "x"\ntitle = "t"\ncause = "c"\nmembers = ["a", "b"]\nrecommend = "both"\n',
                   encoding="utf-8")
    with pytest.raises(RuleLoadError) as e:
        load_groups([(GROUPS_SOURCE, bad)])
    assert str(e.value).startswith("rules/groups.toml: group[0].recommend:"), str(e.value)


def test_every_member_is_a_rule_of_the_catalogue():
    """The built-in groups name rules that exist (hand-written or generated), and none is empty of them."""
    cat = load_entries()
    ids = {r.id for r in cat.rules}
    groups = cat.cause_groups()
    assert len(groups) >= 5
    missing = [f"{g.id}: {m}" for g in groups for m in g.members if m not in ids]
    assert missing == [], "groups.toml names rules the catalogue does not have: " + ", ".join(missing)


def test_a_renamed_member_stays_in_its_group_by_its_alias():
    cat = load_entries()
    rule = next(r for r in cat.rules if r.id == "redo-log-undersized")
    renamed = replace(rule, spec=rule.spec.model_copy(update={"id": "redo-log-too-small",
                                                              "aliases": ["redo-log-undersized"]}))
    cat2 = cat.with_rules([renamed if r is rule else r for r in cat.rules])
    redo = next(g for g in cat2.cause_groups() if g.id == "redo-size")
    assert redo.members[0] == "redo-log-too-small"


# ------------------------------------------------------------ --fail-on and the reports

def _report_with(findings: list[Finding]):
    """The demo's real production report with its outcomes replaced by these fired findings."""
    report = copy.copy(api.audit(api.demo_snapshot()))
    report.outcomes = [Outcome(f.rule, "fired", "test", f) for f in findings]
    report.groups = (REDO, DURABLE)
    return report


def test_fail_on_sees_the_groups_highest_severity():
    report = _report_with([finding("a-undersized", "info"), finding("c-slow-device", "critical")])
    (g,) = report.finding_groups
    assert g.severity == "critical" and g.lead.rule == "c-slow-device"
    assert report.worst_at_least("critical") and report.worst_at_least("warning")
    assert report.finding_severity_counts() == {"critical": 1, "warning": 0, "info": 0}
    low = _report_with([finding("a-undersized", "info"), finding("b-hour", "info")])
    assert not low.worst_at_least("warning") and low.worst_at_least("info")


def test_terminal_shows_one_finding_per_group_with_its_consequences():
    report = _report_with([finding("b-hour", "warning", {"innodb_redo_log_capacity": "4G"}),
                           finding("a-undersized", "warning", {"innodb_redo_log_capacity": "2G"}),
                           finding("lonely", "info", {"sort_buffer_size": "256K"}, category="memory")])
    text = terminal.render(report, width=200)
    heads = re.findall(r"^  \[([a-z-]+)\] (.*)$", text, re.M)
    assert heads == [("a-undersized", "The redo log is too small"), ("lonely", "title of lonely")]
    assert "WARNING (1)" in text and "INFO (1)" in text
    assert "    also [b-hour] (warning): message of b-hour." in text
    assert text.count("recommend: innodb_redo_log_capacity") == 1 and "innodb_redo_log_capacity = 2G" in text
    assert "see: advisor explain a-undersized / b-hour" in text
    assert "Summary: 2 findings (0 critical, 1 warning, 1 info) from 3 fired rules" in text
    md = report_markdown.render(report)
    assert md.count("## WARNING: ") == 1 and "- `b-hour` (warning): message of b-hour." in md
    assert "| warning | `a-undersized`, `b-hour` | The redo log is too small |" in md


def test_demo_benchmark_audit_shows_the_redo_cause_once():
    """The real demo: the redo-size group's two fired rules are one finding in every format, the JSON keeps both
    rules' outcomes with their group, and `--fail-on` still exits 1 on the demo's warnings."""
    p = invoke("audit", "--demo", "--purpose", "benchmark", env={"COLUMNS": "200"})
    assert p.returncode == 0, p.stderr
    assert re.findall(r"^  \[(redo-[a-z-]+)\]", p.stdout, re.M) == ["redo-log-undersized"]
    assert "also [redo-small-on-slow-flush-device] (warning):" in p.stdout
    assert p.stdout.count("recommend: innodb_log_file_size") == 1
    doc = json.loads(invoke("audit", "--demo", "--purpose", "benchmark", "--format", "json").stdout)
    groups = {o["rule"]: o["group"] for o in doc["outcomes"]}
    assert groups["redo-log-undersized"] == groups["redo-small-on-slow-flush-device"] == "redo-size"
    assert groups["sort-buffer-oversized"] is None
    redo = next(g for g in doc["groups"] if g["id"] == "redo-size")
    assert redo["lead"] == "redo-log-undersized" and redo["rules"] == ["redo-log-undersized", "redo-small-on-slow-flush-device"]
    assert doc["summary"]["findings"] == len(doc["groups"]) < doc["summary"]["fired"] == len(doc["findings"])
    assert invoke("audit", "--demo", "--purpose", "benchmark", "--fail-on", "warning").returncode == 1
    assert invoke("audit", "--demo", "--purpose", "benchmark", "--fail-on", "critical").returncode == 0
