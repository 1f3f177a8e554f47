"""The rendering check (issue 14, acceptance): every message and fix a rule prints — for each firing
example of every rule, and for every real dump of tests/fixtures/dumps in both purposes — reads right
with the values it was given: no placeholder that rendered empty, no "None", no "unknown s", no raw
`{...}` or `<derived....>` placeholder, no "(no computed value)", and no raw enum token of the snapshot
model (a device class like nvme_plp, a calibration flush class like plp_like).

The template a finding used is found the way the engine chooses it (the overrides whose condition
holds, in file order), and each of its placeholders is rendered on its own, so that an interpolation
that came out empty is caught where it happens rather than guessed from the sentence."""

from __future__ import annotations

import re
import sys
import typing
from pathlib import Path
from typing import Any, Iterator

import pytest
from advisor.snapshot import SnapshotModel as BaseModel  # the snapshot classes are plain (advisor.plainmodel)

from advisor import snapshot as snapshot_model
from advisor.dumps import import_snapshot
from advisor.knowledge import default_catalogue
from advisor.rules.engine import eval_condition, evaluate_rule, fact_view
from advisor.rules.examples import example_snapshot
from advisor.rules.facts import FILTERS, FactView, Unknown, template_paths
from advisor.rules.loader import load_rules
from advisor.rules.schema import Rule
from advisor.versions import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RULES = load_rules()
CAT = default_catalogue()
DUMPS = Path(__file__).resolve().parents[1] / "fixtures" / "dumps"
MANIFEST: dict[str, dict[str, Any]] = tomllib.loads((DUMPS / "manifest.toml").read_text(encoding="utf-8"))


def _enum_tokens() -> set[str]:
    """The snake_case literals of the snapshot model's enumerations (nvme_plp, plp_like, ...)."""
    out: set[str] = set()
    for obj in vars(snapshot_model).values():
        hints = {}
        if isinstance(obj, type) and issubclass(obj, BaseModel):
            hints = {n: f.annotation for n, f in obj.model_fields.items()}
        for t in hints.values():
            stack = [t]
            while stack:
                cur = stack.pop()
                if typing.get_origin(cur) is typing.Literal:
                    out.update(a for a in typing.get_args(cur) if isinstance(a, str) and "_" in a)
                else:
                    stack.extend(typing.get_args(cur))
    return out


ENUM_TOKENS = {t for t in _enum_tokens() if CAT.get(t) is None and t != "performance_schema"}  # real names stay
BAD = [(re.compile(r"\bNone\b"), "None"), (re.compile(r"\bunknown s\b"), "'unknown s'"),
       (re.compile(r"\{[A-Za-z_.|]+\}"), "a raw placeholder"), (re.compile(r"<derived\.[^>]*>"), "a raw <derived.…>"),
       (re.compile(r"\(no computed value\)"), "'(no computed value)'")]


def chosen_templates(rule: Rule, view: FactView) -> tuple[str, str]:
    spec = rule.spec
    message, fix = spec.message, spec.fix
    for ov, cond in zip(spec.overrides, rule.override_whens):
        if eval_condition(cond, view)[0] is True:
            message, fix = ov.message or message, ov.fix or fix
    return message, fix


def problems(rule: Rule, view: FactView) -> list[str]:
    rule_problems: list[str] = []
    outcome = evaluate_rule(rule, view)
    if outcome.status != "fired" or outcome.finding is None:
        return []
    f = outcome.finding
    message, fix = chosen_templates(rule, view)
    for kind, template, text in (("message", message, f.message), ("fix", fix, f.fix)):
        for path, flt in template_paths(template):
            if path == "recommendation" or path.startswith("rec."):
                continue
            val = view.get(path)
            if isinstance(val, Unknown):
                rule_problems.append(f"{kind}: {{{path}}} is unknown ({val.reason})")
                continue
            try:
                shown = FILTERS[flt or "raw"](val)
            except (TypeError, ValueError):
                shown = str(val)
            if not str(shown).strip() or (isinstance(val, (list, tuple)) and not val):
                rule_problems.append(f"{kind}: {{{path}}} rendered empty")
        for rx, what in BAD:
            if rx.search(text):
                rule_problems.append(f"{kind} contains {what}: {text}")
        tokens = sorted(t for t in ENUM_TOKENS if re.search(rf"(?<![\w.]){re.escape(t)}(?![\w])", text))
        if tokens:
            rule_problems.append(f"{kind} contains raw enum token(s) {tokens}: {text}")
    return rule_problems


def example_views() -> Iterator[Any]:
    for rule in RULES:
        for ex in rule.spec.examples:
            if ex.expect == "fired":
                yield pytest.param(rule, ex, id=f"{rule.id}/{ex.name}")


@pytest.mark.parametrize("rule,ex", list(example_views()))
def test_every_firing_example_renders_right(rule, ex):
    view = fact_view(example_snapshot(ex), ex.purpose, CAT)
    assert problems(rule, view) == []


DUMP_CASES = [(n, s) for n in sorted(MANIFEST) for s in ("as-dumped", "variables-only")
              if s == "as-dumped" or "status_count" in MANIFEST[n]]


@pytest.mark.parametrize("purpose", ["production", "benchmark"])
@pytest.mark.parametrize("name,status", DUMP_CASES)
def test_every_real_dump_finding_renders_right(name, status, purpose):
    """Each dump as it was published, and as the SHOW VARIABLES half alone (what a DBA often pastes)."""
    m = MANIFEST[name]
    snap = import_snapshot(str(DUMPS / name / m["variables"]), flavor=m.get("flavor_arg"),
                           version=m.get("version_arg"), now="2026-01-01T00:00:00Z")
    if status == "variables-only":
        snap.server.status = {}
    view = fact_view(snap, purpose, CAT)
    found = {rule.id: p for rule in RULES if (p := problems(rule, view))}
    assert found == {}


def test_the_check_catches_what_it_is_for():
    """The check itself, on the texts the issue quoted: flush-method-fsync as it read before
    ("innodb_flush_method is on mysql 5.7.44"), a raw device class, and a missing recommendation."""
    import dataclasses
    from advisor.rules.schema import Example
    rule = next(r for r in RULES if r.id == "flush-method-fsync")
    old = dataclasses.replace(rule, spec=rule.spec.model_copy(update={
        "message": "innodb_flush_method is {var.innodb_flush_method} on {target.flavor} {target.version}",
        "fix": "Set it on nvme_plp storage ({recommendation}).", "overrides": []}), override_whens=())
    ex = Example(name="x", expect="fired", target="mysql 5.7.44", facts={"var.innodb_flush_method": ""})
    got = problems(old, fact_view(example_snapshot(ex), "production", CAT))
    assert any("{var.innodb_flush_method} rendered empty" in p for p in got), got
    assert any("raw enum token(s) ['nvme_plp']" in p for p in got), got
    assert problems(rule, fact_view(example_snapshot(ex), "production", CAT)) == []
    assert {"nvme_plp", "plp_like", "nvme_client"} <= ENUM_TOKENS and "performance_schema" not in ENUM_TOKENS


# ---- fix texts fit the target flavor and version (issue 14 §2.2)

MYSQL_ONLY = re.compile(r"SET PERSIST|innodb_redo_log_capacity|ALTER INSTANCE")


def flavor_problems(rule: Rule, view: FactView) -> list[str]:
    """MySQL-only statements in a MariaDB or TiDB fix; innodb_redo_log_capacity before MySQL 8.0.30."""
    o = evaluate_rule(rule, view)
    if o.finding is None:
        return []
    fl, ver = view.flavor, view.version
    no_capacity = fl in ("mariadb", "tidb") or ver < Version(8, 0, 30)
    bad = MYSQL_ONLY.findall(o.finding.fix) if fl in ("mariadb", "tidb") else \
        (re.findall(r"innodb_redo_log_capacity", o.finding.fix) if no_capacity else [])
    bad += [k for k in o.finding.recommendation if k == "innodb_redo_log_capacity" and no_capacity]
    return [f"{sorted(set(bad))} in a fix for {fl} {ver}: {o.finding.fix}"] if bad else []


@pytest.mark.parametrize("rule,ex", list(example_views()))
def test_fix_texts_fit_the_target_flavor_and_version(rule, ex):
    assert flavor_problems(rule, fact_view(example_snapshot(ex), ex.purpose, CAT)) == []


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_fix_texts_of_real_dumps_fit_their_flavor_and_version(name):
    m = MANIFEST[name]
    snap = import_snapshot(str(DUMPS / name / m["variables"]), flavor=m.get("flavor_arg"),
                           version=m.get("version_arg"), now="2026-01-01T00:00:00Z")
    for purpose in ("production", "benchmark"):
        view = fact_view(snap, purpose, CAT)
        assert {r.id: p for r in RULES if (p := flavor_problems(r, view))} == {}
