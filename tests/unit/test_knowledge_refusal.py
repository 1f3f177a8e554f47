"""A variable that does not exist on the target is refused everywhere the advisor could write it:
the generator-facing API (check_setting), the engine (a computed or guarded recommendation is
dropped with a note), the rule loader (`advisor rules lint`) and `advisor audit --rules DIR`
(exit 4, invalid rule file). Cases: query_cache_size on MySQL 8.0, innodb_log_files_in_group on
MariaDB 10.11."""

from __future__ import annotations

import pytest

from advisor import knowledge as K
from advisor.errors import RuleLoadError
from advisor.rules.engine import check_recommendation, evaluate
from advisor.rules.examples import example_snapshot
from advisor.rules.loader import load_rules, parse_rule
from advisor.rules.schema import Example
from advisor.versions import Version
from advisor.knowledge import default_catalogue
from tests.support.cli import invoke

RULE = """
id = "test-{name}"
title = "test"
category = "version"
severity = "info"
rationale = "test"
message = "test message"
references = ["https://example.org/"]
{applies}
[when]
all = [ {{ fact = "var.max_connections", op = "gt", value = 0 }} ]

[[recommend]]
variable = "{variable}"
value = "{value}"
{rec_when}
[[examples]]
name = "fires"
expect = "fired"
target = "{target}"
[examples.facts]
"var.max_connections" = "151"

[[examples]]
name = "quiet"
expect = "passed"
target = "{target}"
[examples.facts]
"var.max_connections" = "0"
"""


def rule_text(variable: str, value: str, target: str, applies: str = "", rec_when: str = "") -> str:
    return RULE.format(name=variable.replace("_", "-"), variable=variable, value=value, target=target,
                       applies=applies, rec_when=rec_when)


def test_api_refuses():
    assert K.exists_on("query_cache_size", "mysql", "8.0.36") is False
    assert K.check_setting("query_cache_size", "0", "mysql", "8.0.36")
    assert K.exists_on("innodb_log_files_in_group", "mariadb", "10.11.6") is False
    assert K.check_setting("innodb_log_files_in_group", "2", "mariadb", "10.11.6")


def test_engine_drops_recommendation_missing_on_target():
    kept, notes = check_recommendation({"query_cache_size": "0", "max_connections": "300"}, "mysql", Version(8, 0, 36), default_catalogue())
    assert kept == {"max_connections": "300"}
    assert [n.kind for n in notes] == ["dropped"] and [n.variable for n in notes] == ["query_cache_size"]
    assert [str(n) for n in notes] == ["dropped recommendation query_cache_size = 0: query_cache_size does not exist on MySQL 8.0.36: "
                     "removed in MySQL 8.0.3"]
    kept, notes = check_recommendation({"innodb_log_files_in_group": "2"}, "mariadb", Version(10, 11, 6), default_catalogue())
    assert kept == {} and "removed in MariaDB 10.6.0" in str(notes[0])
    kept, notes = check_recommendation({"innodb_log_files_in_group": "2"}, "mariadb", Version(10, 4, 34), default_catalogue())
    assert kept == {"innodb_log_files_in_group": "2"} and notes == []
    kept, notes = check_recommendation({"my_plugin_var": "1"}, "mysql", Version(8, 0, 36), default_catalogue())
    assert kept == {"my_plugin_var": "1"} and "not in the variable catalogue" in str(notes[0]) and notes[0].kind == "unchecked"


@pytest.mark.parametrize("variable,value,target", [
    ("query_cache_size", "0", "mysql 8.0.36"),
    ("innodb_log_files_in_group", "2", "mariadb 10.11.6"),
])
def test_engine_drops_guarded_recommendation_when_rule_fires(variable, value, target):
    # a recommendation with its own `when` is not checked at load time; the engine checks it per target
    text = rule_text(variable, value, target, rec_when='when = { fact = "var.max_connections", op = "gt", value = 0 }')
    rule = parse_rule(text, "rules/test.toml")
    ex = Example(name="x", expect="fired", target=target, facts={"var.max_connections": "151"})
    out = evaluate(example_snapshot(ex), [rule], catalogue=default_catalogue())[0]
    assert out.status == "fired"
    assert variable not in out.finding.recommendation
    assert any(n.kind == "dropped" and n.variable == variable and str(n).startswith(
        f"dropped recommendation {variable} = {value}: {variable} does not exist on")
               for n in out.finding.notes), out.finding.notes


@pytest.mark.parametrize("variable,value,target,where", [
    ("query_cache_size", "0", "mysql 8.0.36", "mysql *"),
    ("innodb_log_files_in_group", "2", "mariadb 10.11.6", "mariadb *"),
])
def test_loader_refuses_literal_recommendation(variable, value, target, where):
    with pytest.raises(RuleLoadError) as e:
        parse_rule(rule_text(variable, value, target), "rules/version/test.toml")
    msg = str(e.value)
    assert msg.startswith("rules/version/test.toml: recommend[0].variable: ")
    assert f"{variable} does not exist on" in msg and where in msg and "Tip:" in msg


def test_loader_accepts_when_applicability_excludes_the_gap():
    applies = '[applies_to.flavors]\nmysql = "<8.0.3"\nmariadb = ">=10.1.7"\n'
    parse_rule(rule_text("query_cache_size", "0", "mysql 5.7.44", applies=applies), "rules/t.toml")
    applies = '[applies_to.flavors]\nmariadb = "<10.6"\n'
    parse_rule(rule_text("innodb_log_files_in_group", "2", "mariadb 10.4.34", applies=applies), "rules/t.toml")


def test_loader_refuses_bad_value_for_target():
    with pytest.raises(RuleLoadError, match="not one of"):
        parse_rule(rule_text("innodb_flush_method", "O_DIRECTX", "mysql 8.0.36"), "rules/t.toml")


def test_builtin_catalogue_loads():
    assert len(load_rules()) >= 40


@pytest.mark.parametrize("variable,value,target", [
    ("query_cache_size", "0", "mysql 8.0.36"),
    ("innodb_log_files_in_group", "2", "mariadb 10.11.6"),
])
def test_audit_refuses_rule_dir(tmp_path, variable, value, target):
    d = tmp_path / "myrules"
    d.mkdir()
    (d / f"test-{variable.replace('_', '-')}.toml").write_text(rule_text(variable, value, target))
    p = invoke("audit", "--demo", "--rules", str(d))
    assert p.returncode == 4, p.stderr
    assert p.stdout == ""
    err = p.stderr.strip()
    assert err.startswith("advisor: error: ") and "Traceback" not in err
    assert f"{variable} does not exist on" in err and "Tip:" in err
    lint = invoke("rules", "lint", str(d))
    assert lint.returncode == 4 and f"{variable} does not exist on" in lint.stderr
