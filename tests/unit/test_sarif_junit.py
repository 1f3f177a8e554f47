"""SARIF 2.1.0 and JUnit XML output of an audit: SARIF validates against the official OASIS schema
(tests/fixtures/sarif, see its PROVENANCE.md); by default one result per finding and a rule entry
per finding's rule (the unknown outcomes in the run's properties), within code-scanning upload
limits; with --sarif-all every outcome maps to one result with the right kind and level; JUnit has one test case per rule with failures at or above --fail-on."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from advisor import api
from advisor.render import junit, sarif
from advisor.rules.loader import load_rules
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests/fixtures/sarif/sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo_report():
    return api.audit(api.demo_snapshot(), purpose="benchmark", source="the bundled demo snapshot (seed 000)")


def validate(doc: dict) -> None:
    v = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:10])


@pytest.mark.parametrize("everything", [False, True])
def test_demo_sarif_validates_against_the_official_schema(demo_report, everything):
    doc = sarif.to_dict([demo_report], load_rules(), everything)
    validate(doc)
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1


def test_by_default_only_the_findings_are_results(demo_report):
    """Findings only: each a kind "fail" result whose rule is the run's only kind of descriptor; the
    unknown outcomes (no recommendation, so no alert) are listed, with their reasons, in the run's
    properties. GitHub code scanning takes at most 25,000 results a run and 10 MB gzip-compressed a file
    (docs/report-format.md); one server's log stays far inside both."""
    import gzip

    doc = sarif.to_dict([demo_report], load_rules())
    run = doc["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == [o.rule for o in demo_report.outcomes if o.status == "fired"]
    # a cause group's lead is "fail"; its other fired members are "informational" results (docs/groups.md)
    kinds = {r["ruleId"]: r["kind"] for r in run["results"]}
    leads = {g.lead.rule for g in demo_report.finding_groups}
    assert {k for k in kinds.values()} <= {"fail", "informational"}
    assert {r for r, k in kinds.items() if k == "fail"} == leads
    assert [d["id"] for d in run["tool"]["driver"]["rules"]] == [r["ruleId"] for r in run["results"]]
    unknown = [o for o in demo_report.outcomes if o.status == "unknown"]
    assert unknown and run["properties"]["unknown"] == [{"rule": o.rule, "reason": o.reason} for o in unknown]
    assert run["properties"]["outcomes"] == demo_report.counts() and run["properties"]["all_outcomes"] is False
    small = json.dumps(doc, indent=2).encode()
    big = json.dumps(sarif.to_dict([demo_report], load_rules(), everything=True), indent=2).encode()
    print(f"\ndemo SARIF: {len(small):,} bytes ({len(gzip.compress(small)):,} gzip) by default, "
          f"{len(big):,} ({len(gzip.compress(big)):,} gzip) with --sarif-all")
    assert len(small) * 5 < len(big) and len(run["results"]) <= 25_000


def test_every_outcome_is_one_result_with_its_kind_and_level(demo_report):
    run = sarif.to_dict([demo_report], load_rules(), everything=True)["runs"][0]
    assert "unknown" not in run["properties"] and run["properties"]["all_outcomes"] is True
    rules = run["tool"]["driver"]["rules"]
    assert [r["ruleId"] for r in run["results"]] == [o.rule for o in demo_report.outcomes]
    by_rule = {f.rule: f for f in demo_report.findings}
    led = {g.lead.rule: g for g in demo_report.finding_groups}
    under = {r: g for g in demo_report.finding_groups for r in g.rules[1:]}
    for res, o in zip(run["results"], demo_report.outcomes):
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        kind = {"fired": "fail", "passed": "pass", "not_applicable": "notApplicable", "unknown": "open"}[o.status]
        # one failing result per cause: a cause group's other fired rules are informational, pointing at the lead
        assert res["kind"] == ("informational" if o.rule in under else kind)
        if o.status == "fired":
            f = by_rule[o.rule]
            if o.rule in under:
                assert res["level"] == "none" and res["properties"]["lead"] == under[o.rule].lead.rule
            else:
                g = led[o.rule]
                assert res["level"] == {"critical": "error", "warning": "warning", "info": "note"}[g.severity]
                assert all(f"Same cause: [{q.rule}] {q.message}" in res["message"]["text"] for q in g.consequences)
                assert res["properties"]["recommendation"] == g.recommendation
            assert res["message"]["text"].startswith(f.message)
            names = [loc["logicalLocations"][0]["name"] for loc in res["locations"]]
            assert names == (list(f.variables) or ["10.10.1.12:3306"])
        else:
            assert res["level"] == "none" and res["message"]["text"] == o.reason
    fails = [r for r in run["results"] if r["kind"] == "fail"]
    assert len(fails) == len(demo_report.finding_groups) > 0 and under  # the demo has a group with consequences
    # the seed's sort buffer finding sits at the server's variable
    sort = next(r for r in fails if r["ruleId"] == "sort-buffer-oversized")
    assert sort["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "10.10.1.12:3306/sort_buffer_size"
    i = sort["locations"][0]["logicalLocations"][0]["index"]
    assert run["logicalLocations"][i]["name"] == "sort_buffer_size" and run["logicalLocations"][i]["parentIndex"] == 0


def test_rules_carry_help_and_a_uri_to_their_generated_page(demo_report):
    run = sarif.to_dict([demo_report], load_rules(), everything=True)["runs"][0]
    for d in run["tool"]["driver"]["rules"]:
        assert d["help"]["text"] and d["help"]["markdown"] and d["shortDescription"]["text"]
        page = d["helpUri"].split("/docs/", 1)[1]
        assert (ROOT / "docs" / page).is_file(), d["helpUri"]
        assert d["helpUri"].startswith("https://")


def test_user_rules_have_no_uri_and_still_validate(tmp_path, demo_report):
    src = (ROOT / "rules/benchmark/binary-log-stated.toml").read_text(encoding="utf-8")
    (tmp_path / "mine.toml").write_text(src.replace('id = "binary-log-stated"', 'id = "my-binlog-stated"'),
                                        encoding="utf-8")
    snap = api.demo_snapshot()
    report = api.audit(snap, purpose="benchmark", rules_dirs=[str(tmp_path)])
    doc = sarif.to_dict([report], load_rules([str(tmp_path)]), everything=True)
    validate(doc)
    mine = next(d for d in doc["runs"][0]["tool"]["driver"]["rules"] if d["id"] == "my-binlog-stated")
    assert "helpUri" not in mine


def test_cli_sarif_and_junit(tmp_path):
    p = run_cli("audit", "--demo", "--purpose", "benchmark", "--format", "sarif", "-o", str(tmp_path / "a.sarif"))
    assert p.returncode == 0, p.stderr
    validate(json.loads((tmp_path / "a.sarif").read_text(encoding="utf-8")))
    p = run_cli("audit", "--demo", "--purpose", "benchmark", "--format", "sarif", "--sarif-all", "-o", str(tmp_path / "b.sarif"))
    assert p.returncode == 0, p.stderr
    every = json.loads((tmp_path / "b.sarif").read_text(encoding="utf-8"))
    validate(every)
    assert len(every["runs"][0]["results"]) > len(json.loads((tmp_path / "a.sarif").read_text())["runs"][0]["results"])
    p = run_cli("audit", "--demo", "--sarif-all")
    assert p.returncode == 2 and p.stderr == ("advisor: error: --sarif-all goes with --format sarif. "
                                              "Tip: add --format sarif, or leave --sarif-all out.\n")
    p = run_cli("audit", "--demo", "--purpose", "benchmark", "--format", "junit", "--fail-on", "warning")
    assert p.returncode == 1, p.stderr  # the demo has warnings; --fail-on keeps its exit code
    root = ET.fromstring(p.stdout)
    assert root.tag == "testsuites"


def test_junit_one_case_per_rule_failures_at_or_above_fail_on(demo_report):
    rules = load_rules()
    for fail_on, counted in (("warning", ("critical", "warning")), ("critical", ("critical",)),
                             ("info", ("critical", "warning", "info"))):
        root = ET.fromstring(junit.render([demo_report], rules, fail_on=fail_on).split("\n", 1)[1])
        suite = root.find("testsuite")
        cases = suite.findall("testcase")
        assert [c.get("name") for c in cases] == [o.rule for o in demo_report.outcomes]
        want = sum(1 for f in demo_report.findings if f.severity in counted)
        assert int(suite.get("failures")) == want == len(suite.findall("testcase/failure")) == int(root.get("failures"))
        skipped = sum(1 for o in demo_report.outcomes if o.status in ("not_applicable", "unknown"))
        assert int(suite.get("skipped")) == skipped == len(suite.findall("testcase/skipped"))
        for c in cases:
            f = c.find("failure")
            if f is not None:
                assert f.get("type") in counted and f.text and "see: advisor explain" in f.text
        cats = {r.id: r.spec.category for r in rules}
        assert all(c.get("classname") == f"advisor.{cats[c.get('name')]}" for c in cases)
