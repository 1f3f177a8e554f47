"""Risky-values entries (src/advisor/knowledge/risky.toml): the data model, its validation, and the
entries' own examples (a risky value fires; the default stays quiet unless the entry says the
default itself is risky, which is checked too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from advisor import knowledge as K
from advisor.knowledge import riskyvalues as R
from advisor.knowledge.rulecheck import KNOWN_RELEASES
from advisor.knowledge.schema import RiskyValue
from advisor.knowledge.values import compare
from advisor.versions import Version, VersionRange

RISKY = Path(__file__).resolve().parents[2] / "src" / "advisor" / "knowledge" / "risky.toml"

ENTRIES = [(name, e) for name, es in R.entries().items() for e in es]


def _id(p):
    return f"{p[0]}.{p[1].id}" if isinstance(p, tuple) else str(p)


def test_the_file_validates_against_the_catalogue():
    got = R.validate(RISKY.read_text(encoding="utf-8"), K.catalogue())
    assert sum(len(v) for v in got.values()) == len(ENTRIES) >= 10


@pytest.mark.parametrize("entry", ENTRIES, ids=_id)
def test_risky_value_fires(entry):
    name, e = entry
    var = K.catalogue()[name]
    enum = var.enum or next((x.enum for x in var.versions if x.enum), None)
    example = R.firing_example(e, var.unit, enum)
    assert example is not None, f"{name}.{e.id}: no firing example can be derived"
    assert R.matches(e, example, var.unit) is True
    # a value as SHOW VARIABLES prints it fires too (sizes in bytes, booleans as ON/OFF)
    from advisor.knowledge.values import normalise

    shown = normalise(example, var.unit)
    if var.unit in ("bytes", "count", "seconds", "milliseconds", "microseconds"):
        assert R.matches(e, str(int(shown)), var.unit) is True


def _probes(name: str, e) -> list[tuple[str, Version]]:
    var = K.catalogue()[name]
    out = []
    for fl in var.covered:
        if e.flavors and fl not in e.flavors:
            continue
        for v in KNOWN_RELEASES.get(fl, ()):
            ver = Version.parse(v)
            if e.flavors and not VersionRange(e.flavors[fl]).contains(ver):
                continue
            if K.exists_on(name, fl, ver):
                out.append((fl, ver))
    return out


@pytest.mark.parametrize("entry", ENTRIES, ids=_id)
def test_default_stays_quiet_unless_declared_risky(entry):
    name, e = entry
    unit = K.unit_of(name)
    risky_defaults = []
    quiet = 0
    for fl, ver in _probes(name, e):
        d = K.default_for(name, fl, ver)
        if d is None:
            continue
        if R.matches(e, d, unit):
            risky_defaults.append(f"{fl} {ver}: {d}")
        else:
            quiet += 1
    recommended_quiet = e.recommend is not None and R.matches(e, e.recommend, unit) is False
    if e.default_is_risky:
        assert risky_defaults, f"{name}.{e.id} says default_is_risky but no default it applies to matches"
        assert quiet or recommended_quiet, f"{name}.{e.id}: neither a default nor `recommend` shows the quiet case"
    elif e.only_if:  # applies only with other settings (encryption on): the default may be the risky value
        assert quiet or recommended_quiet, f"{name}.{e.id}: neither a default nor `recommend` shows the quiet case"
    else:
        assert not risky_defaults, f"{name}.{e.id}: the default is risky on {risky_defaults}; say default_is_risky"
        assert quiet or recommended_quiet, f"{name}.{e.id}: no known default and no `recommend` to show the quiet case"


def test_applies_by_flavor_version_and_purpose():
    assert {e.id for e in K.risky("sort_buffer_size", "mysql", "5.7.44")} == {"oversized"}
    assert {e.id for e in K.risky("sort_buffer_size", "mysql", "8.0.36")} == {"huge"}  # 8.0.12+ allocates incrementally
    assert K.risky("sort_buffer_size", "mariadb", "10.11.19")
    ids = {e.id for e in K.risky("innodb_flush_log_at_trx_commit", "mysql", "8.0.36", "production")}
    assert ids == {"no-flush-at-commit", "os-buffered-commit"}
    assert not K.risky("innodb_flush_log_at_trx_commit", "mysql", "8.0.36", "benchmark")
    assert K.risky("no_such_variable") == []


@pytest.mark.parametrize("op,value,operands,unit,want", [
    ("ge", "33554432", ["32M"], "bytes", True), ("ge", "33554431", ["32M"], "bytes", False),
    ("eq", "OFF", [False], "bool", True), ("eq", "1", ["ON"], "bool", True),
    ("ne", "DEMAND", ["OFF"], "enum", True), ("ne", "off", ["OFF"], "enum", False),
    ("in", "2", [0, 2], "count", True), ("not_in", "1", [0, 2], "count", True),
    ("between", "10", [1, 1023], "count", True), ("between", "0", [1, 1023], "count", False),
    ("lt", "0.5", [1], "seconds", True), ("gt", "abc", [1], "count", None),
    ("lt", "x", ["y"], "enum", None),
])
def test_compare_in_units(op, value, operands, unit, want):
    assert compare(op, value, operands, unit) is want


def _entry(**kw):
    base = {"id": "x-y", "op": "ge", "value": "32M", "purposes": ["production"], "severity": "warning",
            "why": "Large buffers are allocated in full for every query that uses them.",
            "fix": "Set it back to the default.", "sources": ["https://dev.mysql.com/doc/"]}
    base.update(kw)
    return RiskyValue.model_validate(base)


@pytest.mark.parametrize("kw,message", [
    ({"op": "gte"}, "op"),
    ({"op": "in", "value": "1"}, "takes `values`"),
    ({"op": "between", "value": None, "values": [1, 2, 3]}, "between takes values"),
    ({"why": "Two sentences. Here is the second one."}, "one sentence"),
    ({"sources": ["http://insecure"]}, "https"),
    ({"severity": "fatal"}, "severity"),
    ({"purposes": []}, "purposes"),
    ({"flavors": {"mysql": ">=x"}}, "version range"),
    ({"id": "Has Spaces"}, "id"),
])
def test_schema_rejects(kw, message):
    with pytest.raises(ValidationError) as err:
        _entry(**kw)
    assert message in str(err.value)


@pytest.mark.parametrize("kw,unit,message", [
    ({"value": "32X"}, "bytes", "not a bytes value"),
    ({"op": "lt", "value": "OFF"}, "bool", "compares numbers"),
    ({"op": "eq", "value": "MAYBE"}, "enum", "not one of"),
])
def test_values_must_be_in_the_variables_unit(kw, unit, message):
    e = _entry(**kw)
    with pytest.raises(ValueError, match=message):
        e.check_unit(unit, ["ROW", "STATEMENT", "MIXED"] if unit == "enum" else None)


def test_file_errors_name_the_entry():
    bad = '[[sort_buffer_size]]\nid = "x"\n'
    with pytest.raises(ValueError, match=r"\[\[sort_buffer_size\]\] #1"):
        R.validate(bad, K.catalogue())
    unknown = RISKY.read_text(encoding="utf-8").replace("[[general_log]]", "[[no_such_variable]]")
    with pytest.raises(ValueError, match="no_such_variable.*not in the variable catalogue"):
        R.validate(unknown, K.catalogue())
    wrong_unit = RISKY.read_text(encoding="utf-8").replace('value = "32M"', 'value = "lots"', 1)
    with pytest.raises(ValueError, match="sort_buffer_size.*not a bytes value"):
        R.validate(wrong_unit, K.catalogue())
