"""The engine: three-valued logic, coercion, reasons, overrides, recommendations, ignore."""


import pytest

from advisor.knowledge import default_catalogue
from advisor.rules.engine import eval_condition, evaluate, fact_view
from advisor.rules.facts import Unknown
from advisor.rules.loader import parse_rule
from advisor.rules.schema import parse_condition
from advisor.snapshot import Snapshot


def snap(variables=None, status=None, flavor="mysql", version="8.0.36", **extra):
    doc = {"schema_version": 1, "advisor_version": "t", "collected_at": "2026-01-01T00:00:00Z",
           "target": {"host": "db", "port": 3306, "flavor": flavor, "version": version, "version_string": version},
           "server": {"variables": variables or {}, "status": status or {}}}
    doc.update(extra)
    return Snapshot.model_validate(doc)


def ev(cond, s, purpose="production"):
    return eval_condition(parse_condition(cond), fact_view(s, purpose, default_catalogue()))


def test_size_literal_compares_numerically():
    s = snap({"sort_buffer_size": "33554432"})
    r, why = ev({"fact": "var.sort_buffer_size", "op": "ge", "value": "32M"}, s)
    assert r is True and "32 MiB" in why
    assert ev({"fact": "var.sort_buffer_size", "op": "lt", "value": "32M"}, s)[0] is False


def test_bool_literal_accepts_on_off():
    s = snap({"skip_name_resolve": "OFF"})
    assert ev({"fact": "var.skip_name_resolve", "op": "eq", "value": False}, s)[0] is True


def test_a_negation_gives_the_reason_it_holds_or_fails_without_denying_it():
    """Issue 23 §3: "not (var.log_error_verbosity is present)" beside its value read as a denial of it."""
    s = snap({"log_error_verbosity": "3"})
    r, why = ev({"not": {"fact": "var.log_error_verbosity", "op": "exists"}}, s)
    assert r is False and why == "var.log_error_verbosity is present"
    r, why = ev({"not": {"fact": "var.log_error_verbosity", "op": "eq", "value": 1}}, s)
    assert r is True and why.startswith("var.log_error_verbosity is 3") and "not (" not in why


def test_non_numeric_value_is_unknown_not_false():
    s = snap({"sort_buffer_size": "lots"})
    r, why = ev({"fact": "var.sort_buffer_size", "op": "ge", "value": "32M"}, s)
    assert r is None and "not a number" in why


def test_missing_fact_is_unknown_with_reason():
    s = snap({})
    r, why = ev({"fact": "var.innodb_redo_log_capacity", "op": "le", "value": "128M"}, s)
    assert r is None and "innodb_redo_log_capacity" in why


def test_missing_reason_comes_from_collector():
    s = snap({}, missing=[{"fact": "host", "reason": "server is remote; pass --ssh user@host"}])
    v = fact_view(s, "production", default_catalogue()).get("host.memory.total_bytes")
    assert isinstance(v, Unknown) and "--ssh" in v.reason


def test_kleene_logic():
    s = snap({"a": "1"})
    t = {"fact": "var.a", "op": "eq", "value": 1}
    f = {"fact": "var.a", "op": "eq", "value": 2}
    u = {"fact": "var.missing", "op": "eq", "value": 1}
    assert ev({"all": [t, u]}, s)[0] is None
    assert ev({"all": [f, u]}, s)[0] is False
    assert ev({"any": [t, u]}, s)[0] is True
    assert ev({"any": [f, u]}, s)[0] is None
    assert ev({"not": u}, s)[0] is None
    assert ev({"not": f}, s)[0] is True
    assert ev({"fact": "var.missing", "op": "exists"}, s)[0] is False


def test_version_comparison():
    s = snap(version="8.0.9")
    assert ev({"fact": "target.version", "op": "lt", "value": "8.0.12"}, s)[0] is True
    assert ev({"fact": "target.version", "op": "ge", "value": "8.0"}, s)[0] is True


def test_ref_with_factor():
    s = snap({"innodb_buffer_pool_size": "8589934592"}, host={"memory": {"total_bytes": 10737418240}})
    c = {"fact": "var.innodb_buffer_pool_size", "op": "gt", "ref": "host.memory.total_bytes", "factor": 0.75}
    r, why = ev(c, s)
    assert r is True and "0.75 ×" in why


def test_rates_since_uptime_and_interval():
    s = snap({}, {"Innodb_os_log_written": "7200", "Uptime": "3600"})
    assert fact_view(s, "production", default_catalogue()).get("rate.Innodb_os_log_written") == 2.0
    s2 = snap({}, {"Innodb_os_log_written": "7200", "Uptime": "3600"},
              server={"variables": {}, "status": {"Uptime": "3600"}, "interval": {"seconds": 10, "rates": {"Innodb_os_log_written": 50.0}}})
    v = fact_view(s2, "production", default_catalogue())
    assert v.get("rate.Innodb_os_log_written") == 50.0 and "10 s" in v.rate_basis()


RULE = '''
id = "test-thing-wrong"
title = "t"
category = "memory"
severity = "warning"
variables = ["sort_buffer_size", "query_cache_size"]
rationale = "r"
message = "value {var.sort_buffer_size|size} on {target.flavor}"
references = ["https://example.org"]
[when]
all = [ { fact = "var.sort_buffer_size", op = "ge", value = "32M" } ]
[[overrides]]
when = { fact = "purpose", op = "eq", value = "benchmark" }
severity = "critical"
[[overrides]]
when = { fact = "target.flavor", op = "eq", value = "mariadb" }
message = "mariadb variant {var.sort_buffer_size|size}"
[[recommend]]
variable = "sort_buffer_size"
value = "256K"
[[examples]]
name = "a"
expect = "fired"
[examples.facts]
"var.sort_buffer_size" = "32M"
[[examples]]
name = "b"
expect = "passed"
[examples.facts]
"var.sort_buffer_size" = "1M"
'''


def test_fired_finding_has_numbers_evidence_and_recommendation():
    rule = parse_rule(RULE, "t.toml")
    o = evaluate(snap({"sort_buffer_size": "33554432"}), [rule], catalogue=default_catalogue())[0]
    assert o.status == "fired"
    f = o.finding
    assert f.message == "value 32 MiB on MySQL"  # the flavor as people write it
    assert f.severity == "warning"
    assert f.evidence["var.sort_buffer_size"] == "33554432"
    assert f.recommendation == {"sort_buffer_size": "256K"}
    assert f.variables == ["sort_buffer_size"]  # query_cache_size does not exist on this server


def test_overrides_accumulate_in_order():
    rule = parse_rule(RULE, "t.toml")
    o = evaluate(snap({"sort_buffer_size": "33554432"}, flavor="mariadb", version="10.11.6"), [rule], "benchmark", catalogue=default_catalogue())[0]
    assert o.finding.severity == "critical"
    assert o.finding.message.startswith("mariadb variant")


def test_passed_and_ignored_outcomes_have_reasons():
    rule = parse_rule(RULE, "t.toml")
    o = evaluate(snap({"sort_buffer_size": "1048576"}), [rule], catalogue=default_catalogue())[0]
    assert o.status == "passed" and "sort_buffer_size is 1 MiB, < " in o.reason and "not" not in o.reason
    o = evaluate(snap({"sort_buffer_size": "33554432"}), [rule], ignore=["test-thing-wrong"], catalogue=default_catalogue())[0]
    assert o.status == "not_applicable" and "ignored" in o.reason


def test_not_applicable_by_flavor_and_purpose():
    text = RULE.replace('[when]', '[applies_to]\npurpose = ["benchmark"]\nflavors = { mysql = ">=8.0.30" }\n[when]')
    rule = parse_rule(text, "t.toml")
    o = evaluate(snap({"sort_buffer_size": "33554432"}), [rule], "production", catalogue=default_catalogue())[0]
    assert o.status == "not_applicable" and "benchmark" in o.reason
    o = evaluate(snap({"sort_buffer_size": "33554432"}, version="8.0.20"), [rule], "benchmark", catalogue=default_catalogue())[0]
    assert o.status == "not_applicable" and "8.0.30 or later" in o.reason
    o = evaluate(snap({"sort_buffer_size": "33554432"}, flavor="mariadb", version="10.11.6"), [rule], "benchmark", catalogue=default_catalogue())[0]
    assert o.status == "not_applicable" and o.reason == "applies to MySQL; the target is MariaDB 10.11.6"


def test_unknown_never_recommends():
    rule = parse_rule(RULE, "t.toml")
    o = evaluate(snap({}), [rule], catalogue=default_catalogue())[0]
    assert o.status == "unknown" and o.finding is None


# ---------------------------------------------------------------- units (one resolver)

@pytest.mark.parametrize("path,unit", [
    ("var.innodb_io_capacity", "count"),             # the catalogue says so; the name says "capacity"
    ("var.thread_cache_size", "count"),
    ("var.max_allowed_packet", "bytes"),
    ("server.variables.sort_buffer_size", "bytes"),
    ("var.innodb_flush_method", "enum"),
    ("var.not_a_catalogued_variable", None),          # not known: no guess
    ("status.Innodb_os_log_written", "count"),
    ("rate.Questions", "count"),
    ("derived.redo_capacity_bytes", "bytes"),          # declared by the derived fact
    ("derived.tls_query_latency_ratio", "ratio"),
    ("derived.datadir_models", None),
    ("host.memory.total_bytes", "bytes"),              # snapshot field, by its name
    ("calibration.fsync_ms.p50", "ms"),
    ("calibration.stream.mbytes_per_s", "MB/s"),
    ("client.route.speed_mbps", "Mb/s"),
    ("calibration.duration_s", "seconds"),
    ("calibration.sort_probe.server_value", "bytes"),  # snapshot field, by its declared metadata
    ("host.datadir.device_class", None),
])
def test_every_fact_path_gets_its_unit_from_one_resolver(path, unit):
    assert fact_view(snap({}), "production", default_catalogue()).unit(path) == unit


UNIT_RULE = """
id = "io-capacity-thing"
title = "x"
category = "flushing"
severity = "info"
rationale = "r"
message = "m"
references = ["https://example.com"]
evidence = ["var.thread_cache_size", "var.max_allowed_packet"]
when = { fact = "var.innodb_io_capacity", op = "ge", value = 2000000 }
[[examples]]
name = "a"
expect = "fired"
facts = { "var.innodb_io_capacity" = 4000000 }
[[examples]]
name = "b"
expect = "passed"
facts = { "var.innodb_io_capacity" = 200 }
"""


def test_reasons_and_evidence_use_the_catalogue_unit():
    from advisor.units import format_evidence

    s = snap({"innodb_io_capacity": "4194304", "thread_cache_size": "16384", "max_allowed_packet": "67108864"})
    o = evaluate(s, [parse_rule(UNIT_RULE, "t.toml")], catalogue=default_catalogue())[0]
    assert o.reason == "var.innodb_io_capacity is 4,194,304, ≥ 2000000"  # a count, not "4 MiB"
    f = o.finding
    assert f.units == {"var.innodb_io_capacity": "count", "var.thread_cache_size": "count",
                       "var.max_allowed_packet": "bytes"}
    shown = {k: format_evidence(k, v, f.units.get(k)) for k, v in f.evidence.items()}
    assert shown == {"var.innodb_io_capacity": "4194304", "var.thread_cache_size": "16384",
                     "var.max_allowed_packet": "64 MiB (67,108,864)"}
