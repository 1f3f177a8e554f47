"""Load rule files (TOML) into validated Rule objects. Errors name the file and the field."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterable, Union

from pydantic import ValidationError

from advisor.errors import RuleLoadError
from advisor.rules.facts import FILTERS, template_paths, validate_path
from advisor.rules.formulas import FORMULAS
from advisor.rules.schema import ConditionError, Rule, RuleFile, parse_condition
from advisor.versions import VersionRange


import advisor.rules.derived  # noqa: F401  (derived facts must be registered before paths are validated)

PathLike = Union[str, Path, Any]  # Any: importlib.resources Traversable

EXAMPLE_ROOTS = ("var", "status", "server", "host", "client", "calibration")
# Catalogue directories that hold other kinds of entries than audit rules (advisor.watch.verdicts).
NOT_RULES = ("rules/watch/",)


def _fmt_loc(loc: Iterable[Any]) -> str:
    out = ""
    for p in loc:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "(top level)"


def _err(source: str, loc: str, msg: str) -> RuleLoadError:
    return RuleLoadError(f"{source}: {loc}: {msg}.",
                         "fix the field named above; `advisor rules lint DIR` checks a rule directory, "
                         "and docs/writing-rules.md lists every key.")


def parse_rule(text: str, source: str) -> Rule:
    if sys.version_info >= (3, 11):  # imported here: a cache hit needs no TOML parser
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RuleLoadError(f"{source}: not valid TOML: {e}.", "check quoting and brackets near that line.") from None
    try:
        spec = RuleFile.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        msg = first["msg"]
        if first["type"] == "extra_forbidden":
            msg = "unknown key (the rule schema is closed)"
        elif "input" in first and first["type"] not in ("missing",):
            inp = first["input"]
            if isinstance(inp, (str, int, float, bool)):
                msg += f" (got {inp!r})"
        more = f" ({e.error_count() - 1} more problems)" if e.error_count() > 1 else ""
        raise _err(source, _fmt_loc(first["loc"]), msg + more) from None

    def cond(obj: Any, loc: str):
        try:
            c = parse_condition(obj, loc)
        except ConditionError as ce:
            raise _err(source, ce.loc, ce.msg) from None
        for path in c.facts():
            problem = validate_path(path)
            if problem:
                raise _err(source, loc, problem)
        return c

    when = cond(spec.when, "when")
    applies = cond(spec.applies_to.when, "applies_to.when") if spec.applies_to.when is not None else None
    overrides = tuple(cond(o.when, f"overrides[{i}].when") for i, o in enumerate(spec.overrides))
    rec_whens = []
    for i, rec in enumerate(spec.recommend):
        loc = f"recommend[{i}]"
        if rec.formula is not None:
            if rec.formula not in FORMULAS:
                raise _err(source, f"{loc}.formula", f"no formula named {rec.formula!r} (known: {', '.join(sorted(FORMULAS))})")
            if rec.variable is not None or rec.value is not None:
                raise _err(source, loc, "give either formula (+ args) or variable + value, not both")
        elif rec.variable is None or rec.value is None:
            raise _err(source, loc, "a recommendation needs variable and value, or a formula")
        rec_whens.append(cond(rec.when, f"{loc}.when") if rec.when is not None else None)

    for field_name in ("message", "fix"):
        for path, flt in template_paths(getattr(spec, field_name)):
            _check_placeholder(source, field_name, path, flt)
    for i, o in enumerate(spec.overrides):
        for field_name in ("message", "fix"):
            for path, flt in template_paths(getattr(o, field_name) or ""):
                _check_placeholder(source, f"overrides[{i}].{field_name}", path, flt)
    for i, ev in enumerate(spec.evidence):
        problem = validate_path(ev)
        if problem:
            raise _err(source, f"evidence[{i}]", problem)
    for i, ex in enumerate(spec.examples):
        for key in ex.facts:
            root = key.split(".", 1)[0]
            if root not in EXAMPLE_ROOTS:
                raise _err(source, f"examples[{i}].facts.{key}",
                           f"examples set collected facts only ({', '.join(EXAMPLE_ROOTS)}); derived and rate facts are computed")
            problem = validate_path(key)
            if problem:
                raise _err(source, f"examples[{i}].facts", problem)
    from advisor.knowledge.rulecheck import check_recommendations

    for loc, problem in check_recommendations(spec):  # a recommendation the target cannot take
        raise _err(source, loc, problem)
    ranges = {fl: VersionRange(r) for fl, r in spec.applies_to.flavors.items()}
    return Rule(spec=spec, path=source, when=when, applies_when=applies, override_whens=overrides,
                recommend_whens=tuple(rec_whens), ranges=ranges)


def _check_placeholder(source: str, field_name: str, path: str, flt: str | None) -> None:
    if flt is not None and flt not in FILTERS:
        raise _err(source, field_name, f"unknown filter |{flt} in {{{path}|{flt}}} (known: {', '.join(FILTERS)})")
    if path.startswith("rec.") or path == "recommendation":
        return
    problem = validate_path(path)
    if problem:
        raise _err(source, field_name, f"placeholder {{{path}}}: {problem}")


def _iter_toml(root: Any, prefix: str) -> Iterable[tuple[str, Any]]:
    entries = sorted(root.iterdir(), key=lambda p: p.name)
    for p in entries:
        if p.is_dir():
            yield from _iter_toml(p, f"{prefix}/{p.name}")
        elif p.name.endswith(".toml"):
            yield f"{prefix}/{p.name}", p


def builtin_rules_root() -> Any:
    from importlib.resources import files

    return files("advisor.catalog")


def load_rules(extra_dirs: Iterable[PathLike] = (), builtin: bool = True) -> list[Rule]:
    """The built-in catalogue plus user directories (--rules DIR). A duplicate id is an error.

    Validated rules are cached (~/.cache/advisor, keyed by every file's size and mtime; set
    ADVISOR_NO_CACHE=1 to bypass): parsing and validating ~50 TOML files costs ~40 ms per run,
    reading the cache well under 1 ms."""
    roots: list[tuple[str, Any]] = []
    if builtin:
        roots.append(("rules", builtin_rules_root()))
    for d in extra_dirs:
        p = Path(d)
        if not p.is_dir():
            raise RuleLoadError(f"rule directory {p} does not exist or is not a directory.",
                                "pass --rules with a directory of .toml rule files.")
        roots.append((str(p), p))
    files = [(source, f) for label, root in roots for source, f in _iter_toml(root, label)
             if not source.startswith(NOT_RULES)]
    here = Path(__file__).resolve().parent
    from advisor.cache import cached, code_files

    return cached("rules", files + code_files(here, here.parent / "knowledge"), lambda: _load(files),
                  lambda x: isinstance(x, list) and all(isinstance(r, Rule) for r in x))


def _load(files: list[tuple[str, Any]]) -> list[Rule]:
    rules: list[Rule] = []
    seen: dict[str, str] = {}
    for source, f in files:
        rule = parse_rule(f.read_text(encoding="utf-8"), source)
        for name in [rule.id, *rule.spec.aliases]:
            if name in seen:
                raise RuleLoadError(f"{source}: id: {name!r} is already used by {seen[name]}.",
                                    "give the rule a new id, or use --ignore to switch off the built-in one.")
            seen[name] = source
        rules.append(rule)
    return rules
