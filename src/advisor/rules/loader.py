"""Load the catalogue's files (TOML) into validated entries: rules, sizers and checklist checks (the
`kind` key; advisor.rules.entries). Errors name the file and the field. The edge: this module reads
files and the cache, and hands the core a Catalogue."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from advisor.errors import RuleLoadError
from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules.catalogue import Catalogue, build_catalogue, generate
from advisor.rules.derived import DERIVED
from advisor.rules.facts import FILTERS, template_paths, validate_path
from advisor.rules.formulas import FORMULAS
from advisor.rules.conditions import ConditionError, Rule, parse_condition
from advisor.versions import VersionRange

if TYPE_CHECKING:
    from advisor.rules.entries import Entry

PathLike = Union[str, Path, Any]  # Any: importlib.resources Traversable

EXAMPLE_ROOTS = ("var", "status", "server", "host", "client", "calibration")
# Catalogue directories that hold other kinds of entries than audit rules (advisor.watch.verdicts).
NOT_RULES = ("rules/watch/", "rules/groups.toml")
GROUPS_SOURCE = "rules/groups.toml"  # the cause groups (advisor.rules.groups)


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


def _toml(text: str, source: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):  # imported here: a cache hit needs no TOML parser
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from advisor.inputs import BadInput, check_toml, clip_words, finite_float

    try:
        return check_toml(tomllib.loads(text, parse_float=finite_float))
    except tomllib.TOMLDecodeError as e:
        raise RuleLoadError(f"{source}: not valid TOML: {clip_words(str(e))}.",
                            "check quoting and brackets near that line.") from None
    except BadInput as e:
        raise RuleLoadError(f"{source}: cannot be read: {e}.", "write plain values: numbers that fit 64 bits, "
                            "arrays and tables nested a few levels.") from None
    except RecursionError:
        raise RuleLoadError(f"{source}: cannot be read: arrays or tables nested too deep.",
                            "write arrays and tables nested a few levels.") from None
    except ValueError as e:  # an integer of more than 4,300 digits
        raise RuleLoadError(f"{source}: cannot be read: a number too large ({clip_words(str(e), 80)}).",
                            "write numbers that fit 64 bits.") from None


def _validated(model: Any, raw: dict[str, Any], source: str) -> Any:
    from pydantic import ValidationError  # validation only: a cache hit imports no pydantic

    try:
        return model.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        msg = first["msg"]
        if first["type"] == "extra_forbidden":
            msg = "unknown key (the schema is closed)"
        elif "input" in first and first["type"] not in ("missing",):
            inp = first["input"]
            if isinstance(inp, (str, int, float, bool)):
                msg += f" (got {inp!r})"
        more = f" ({e.error_count() - 1} more problems)" if e.error_count() > 1 else ""
        raise _err(source, _fmt_loc(first["loc"]), msg + more) from None


def _formula_args_problem(name: str, args: dict[str, Any]) -> str:
    """What the rule's `args` lack or have too many for the formula's signature, or ''. The engine
    calls the formula as fn(view, **args): a missing argument would fail there, an extra one would be
    silently ignored."""
    import inspect

    params = list(inspect.signature(FORMULAS[name].fn).parameters.values())[1:]
    named = {p.name: p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    missing = [n for n, p in named.items() if p.default is p.empty and n not in args]
    if missing:
        return (f"formula {name!r} needs {', '.join(missing)} (e.g. args = {{ {missing[0]} = \"...\" }})")
    extra = sorted(set(args) - set(named))
    if extra:
        return f"formula {name!r} takes no argument {', '.join(extra)} (it takes: {', '.join(named) or 'none'})"
    return ""


def parse_rule(text: str, source: str, catalogue: Optional[VariableCatalogue] = None) -> Rule:
    return rule_from_data(_toml(text, source), source, catalogue)


def rule_from_data(raw: dict[str, Any], source: str, catalogue: Optional[VariableCatalogue] = None) -> Rule:
    from advisor.knowledge.plain import plain
    from advisor.rules.schema import RuleFile

    spec = _validated(RuleFile, raw, source)

    def cond(obj: Any, loc: str):
        try:
            c = parse_condition(obj, loc)
        except ConditionError as ce:
            raise _err(source, ce.loc, ce.msg) from None
        for path in c.facts():
            problem = validate_path(path, DERIVED)
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
            problem = _formula_args_problem(rec.formula, rec.args)
            if problem:
                raise _err(source, f"{loc}.args", problem)
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
        problem = validate_path(ev, DERIVED)
        if problem:
            raise _err(source, f"evidence[{i}]", problem)
    _check_example_facts(spec.examples, source)
    from advisor.knowledge.rulecheck import check_recommendations  # validation only: not on a cache hit

    if catalogue is None:
        from advisor.knowledge import default_catalogue

        catalogue = default_catalogue()
    for loc, problem in check_recommendations(spec, catalogue):  # a recommendation the target cannot take
        raise _err(source, loc, problem)
    ranges = {fl: VersionRange(r) for fl, r in spec.applies_to.flavors.items()}
    # the spec as plain data: the rule cache unpickles it without pydantic
    return Rule(spec=plain(spec), path=source, when=when, applies_when=applies, override_whens=overrides,
                recommend_whens=tuple(rec_whens), ranges=ranges)


def _check_example_facts(examples: Iterable[Any], source: str) -> None:
    for i, ex in enumerate(examples):
        for key in ex.facts:
            root = key.split(".", 1)[0]
            if root not in EXAMPLE_ROOTS:
                raise _err(source, f"examples[{i}].facts.{key}",
                           f"examples set collected facts only ({', '.join(EXAMPLE_ROOTS)}); derived and rate facts are computed")
            problem = validate_path(key, DERIVED)
            if problem:
                raise _err(source, f"examples[{i}].facts", problem)
        _check_example_snapshot(ex, i, source)


def _check_example_snapshot(ex: Any, i: int, source: str) -> None:
    """The example's target and facts make a valid snapshot (so running it cannot fail later): a fact
    of the wrong shape (`"host.cpu" = "x"`) or a target that is not '<flavor> <version>' is a load error."""
    from pydantic import ValidationError

    from advisor.inputs import clip
    from advisor.rules.examples import example_snapshot

    try:
        example_snapshot(ex)
    except ValidationError as e:
        first = e.errors()[0]
        raise _err(source, f"examples[{i}].facts", f"{_fmt_loc(first['loc'])}: {first['msg']}") from None
    except (ValueError, TypeError, AttributeError, KeyError) as e:
        raise _err(source, f"examples[{i}]", f"target {clip(ex.target, 60)} and facts make no snapshot "
                                              f"({clip(str(e), 120).strip(chr(39))})") from None


def entry_from_data(raw: dict[str, Any], source: str, catalogue: Optional[VariableCatalogue] = None) -> Entry:
    """A rule, sizer or checklist check from a file's data, by its `kind` (absent: a rule)."""
    from advisor.rules.checks import CHECKS  # the other kinds' code: only when their files are validated
    from advisor.rules.entries import KINDS, CheckEntry, SizerEntry
    from advisor.rules.sizers import SIZERS

    kind = raw.get("kind", "rule")
    if kind == "rule" and "kind" not in raw:
        return rule_from_data(raw, source, catalogue)
    if not isinstance(kind, str) or kind not in KINDS or KINDS[kind].schema is None:
        raise _err(source, "kind", f"expected one of {', '.join(k for k in KINDS if KINDS[k].schema)} or no kind "
                   f"for a rule (got {kind!r})")
    spec = _validated(KINDS[kind].schema, raw, source)
    _check_example_facts(spec.examples, source)
    logic = SIZERS if kind == "sizer" else CHECKS
    if spec.id not in logic:
        where = "advisor/rules/sizers.py (@sizer)" if kind == "sizer" else "advisor/rules/checks/ (@CHECKS.define)"
        raise _err(source, "id", f"no {kind} function is registered for {spec.id!r}; register one in {where}")
    return SizerEntry(spec, source) if kind == "sizer" else CheckEntry(spec, source)


def _check_placeholder(source: str, field_name: str, path: str, flt: str | None) -> None:
    if flt is not None and flt not in FILTERS:
        raise _err(source, field_name, f"unknown filter |{flt} in {{{path}|{flt}}} (known: {', '.join(FILTERS)})")
    if path.startswith("rec.") or path == "recommendation":
        return
    problem = validate_path(path, DERIVED)
    if problem:
        raise _err(source, field_name, f"placeholder {{{path}}}: {problem}")


def _iter_toml(root: Any, prefix: str) -> Iterable[tuple[str, Any]]:
    for source, p, is_dir in _entries(root, prefix):
        if is_dir:
            yield from _iter_toml(p, source)
        elif p.name.endswith(".toml"):
            yield source, p


def _iter_files(root: Any, prefix: str) -> Iterable[tuple[str, Any]]:
    """Every file under root (not only .toml), for the cache key."""
    for source, p, is_dir in _entries(root, prefix):
        if is_dir:
            if p.name != "__pycache__":
                yield from _iter_files(p, source)
        elif not p.name.endswith((".pyc", ".tmp", "~")) and not p.name.startswith("."):
            yield source, p


def _entries(root: Any, prefix: str) -> list[tuple[str, Any, bool]]:
    """(source, path, is a directory) of root's entries by name; a directory on disk is listed with
    os.scandir (the kind comes with the listing: no stat per entry), another Traversable (a package
    inside a zip) through its own iterdir."""
    if isinstance(root, Path):
        import os

        try:
            with os.scandir(root) as it:
                found = sorted((e.name, e.is_dir()) for e in it)
        except OSError:
            found = None
        if found is not None:
            return [(f"{prefix}/{name}", root / name, is_dir) for name, is_dir in found]
    return [(f"{prefix}/{p.name}", p, p.is_dir()) for p in sorted(root.iterdir(), key=lambda p: p.name)]


def builtin_rules_root() -> Any:
    from advisor.resources import files

    return files("advisor.catalog")


def load_rules(extra_dirs: Iterable[PathLike] = (), builtin: bool = True) -> list[Rule]:
    """The rules of the built-in catalogue plus user directories (--rules DIR)."""
    return list(load_entries(extra_dirs, builtin).rules)


def load_entries(extra_dirs: Iterable[PathLike] = (), builtin: bool = True,
                 variables: Optional[VariableCatalogue] = None) -> Catalogue:
    """The built-in catalogue plus user directories (--rules DIR), with the variable catalogue, as the
    Catalogue the core is handed. A duplicate id (across kinds) is an error.

    Validated entries are cached (~/.cache/advisor, keyed by the content of every file and of the code
    that validates them; set ADVISOR_NO_CACHE=1 to bypass): parsing and validating the TOML files
    costs tens of milliseconds per run, reading the cache about one."""
    from advisor.knowledge import default_catalogue

    variables = variables or default_catalogue()
    roots: list[tuple[str, Any]] = []
    if builtin:
        roots.append(("rules", builtin_rules_root()))
    for d in extra_dirs:
        p = Path(d)
        if not p.is_dir():
            raise RuleLoadError(f"rule directory {p} does not exist or is not a directory.",
                                "pass --rules with a directory of .toml rule files.")
        roots.append((str(p), p))
    every = [(source, f) for label, root in roots for source, f in _iter_toml(root, label)]
    files = [(source, f) for source, f in every if not source.startswith(NOT_RULES)]
    group_files = [(source, f) for source, f in every if source == GROUPS_SOURCE]
    here = Path(__file__).resolve().parent
    from advisor.cache import cached, cached_by_key, code_files, input_key

    # the key covers every file of the catalogue directories (any kind: a new data file beside the
    # rules is picked up without naming it) and every file of the code and knowledge that validate them
    inputs = files + group_files + [(f"data:{source}", f) for label, root in roots for source, f in _iter_files(root, label)
                                    if not source.endswith(".toml")] + code_files(here, here.parent / "knowledge")
    validated: list[tuple[list[Rule], dict[str, list[Any]]]] = []

    def validate() -> tuple[list[Rule], dict[str, list[Any]]]:
        if not validated:
            validated.append(_load(files))
        return validated[0]

    key = input_key(inputs)  # one look at every input file for the three values kept under it

    def others() -> dict[str, list[Any]]:  # asked later (mycnf, checklist): the files are looked at again then
        return cached("entries", inputs, lambda: validate()[1], lambda x: isinstance(x, dict))

    rules = cached_by_key("catalogue", key, lambda: validate()[0], lambda x: isinstance(x, list))
    made = cached_by_key("generated", key, lambda: generate(variables), lambda x: isinstance(x, list)) \
        if variables is default_catalogue() else None
    groups = cached_by_key("groups", key, lambda: load_groups(group_files), lambda x: isinstance(x, tuple))
    return build_catalogue(variables, rules, others=others, generated=made, groups=groups)


def load_groups(files: Iterable[tuple[str, Any]]) -> tuple[Any, ...]:
    """The cause groups (rules/groups.toml, advisor.rules.groups) as plain Group records (validated by advisor.rules.groups_schema); errors name the file and field."""
    from pydantic import ValidationError  # validation only: a cache hit imports no pydantic

    from advisor.rules.groups_schema import GroupsFile, plain

    out: list[Any] = []
    for source, f in files:
        try:
            out += [plain(g) for g in GroupsFile.model_validate(_toml(_text(f, source), source)).group]
        except ValidationError as e:
            err = e.errors()[0]
            raise RuleLoadError(f"{source}: {_fmt_loc(err['loc']) or 'file'}: {err['msg']}.",
                                "see the comment at the top of rules/groups.toml for the shape of a group.") from None
    return tuple(out)

def _text(f: Any, source: str) -> str:
    try:
        return f.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise RuleLoadError(f"{source}: byte {e.start:,} is not UTF-8.", "save rule files as UTF-8 text.") from None
    except OSError as e:
        raise RuleLoadError(f"{source}: cannot be read: {e.strerror}.", "check the file and its permissions.") from None


def _load(files: list[tuple[str, Any]]) -> tuple[list[Rule], dict[str, list[Any]]]:
    """Every file validated: the rules, and the other kinds' entries by kind; ids unique across kinds
    (so a hit on the rules' cache file still means all of them were checked)."""
    from advisor.rules.entries import KINDS, kind_of

    rules: list[Rule] = []
    others: dict[str, list[Any]] = {k: [] for k in KINDS if k != "rule"}
    seen: dict[str, str] = {}
    for source, f in files:
        entry = entry_from_data(_toml(_text(f, source), source), source)
        for name in [entry.id, *entry.aliases]:
            if name in seen:
                raise RuleLoadError(f"{source}: id: {name!r} is already used by {seen[name]}.",
                                    "give the entry a new id, or use --ignore to switch off the built-in rule.")
            seen[name] = source
        kind = kind_of(entry)
        (rules if kind == "rule" else others[kind]).append(entry)  # type: ignore[arg-type]
    return rules, others
