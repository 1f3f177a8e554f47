"""The loaded knowledge the core is handed: the variable catalogue and every entry of every kind
(rules, sizers, checklist checks; advisor.rules.entries defines the kinds).

Rules are loaded with the catalogue; the other kinds on first use (`others`, a function the loader
hands in, {kind: entries}), so an audit never imports the sizer and check schemas and code. Ids are unique across kinds: among
the rules when the catalogue is built, across all kinds when the others arrive.

A rule family made from data (risky values per server variable, read from the variable catalogue) is a
RuleGenerator: a pure function from the VariableCatalogue to Rules, each carrying the examples it
derives from its own data (the risky value fires, the default stays quiet). Listed in RULE_GENERATORS,
it is run by build_catalogue; its rules are evaluated by the same engine, checked by the same example
test and lint, and documented by the same page renderer; `Catalogue.generated` lists their ids.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules.risky import risky_rules
from advisor.rules.conditions import Rule
from advisor.rules.symptoms import symptom_rules

RuleGenerator = Callable[[VariableCatalogue], Iterable[Rule]]
RULE_GENERATORS: tuple[RuleGenerator, ...] = (risky_rules, symptom_rules)

Others = Callable[[], Mapping[str, Sequence[Any]]]  # () -> {kind: entries} for every kind but "rule"


class Catalogue:
    """The variable catalogue and the entries: `rules` now, the other kinds (`of(kind)`; `sizers`,
    `checks`) on first use."""

    def __init__(self, variables: VariableCatalogue, rules: Iterable[Rule] = (), sizers: Iterable[Any] = (),
                 checks: Iterable[Any] = (), generated: Iterable[str] = (), *, others: Optional[Others] = None,
                 groups: Iterable[Any] = ()):
        self.variables = variables
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.groups: tuple[Any, ...] = tuple(groups)  # advisor.rules.groups.Group: the cause groups
        self.generated: tuple[str, ...] = tuple(generated)
        given = {"sizer": tuple(sizers), "check": tuple(checks)}
        self._others: Others = others if others is not None else (lambda: given)
        self._loaded: Optional[dict[str, tuple[Any, ...]]] = None
        _check_unique(self.rules)

    def cause_groups(self) -> tuple[Any, ...]:
        """The cause groups with each member named by its rule's current id (a member listed by an alias
        of a renamed rule stays in its group)."""
        current = {a: r.id for r in self.rules for a in r.spec.aliases}
        if not any(m in current for g in self.groups for m in g.members):
            return self.groups
        return tuple(dataclasses.replace(g, members=tuple(current.get(m, m) for m in g.members)) for g in self.groups)

    def _load_others(self) -> dict[str, tuple[Any, ...]]:
        if self._loaded is None:
            loaded = {kind: tuple(entries) for kind, entries in self._others().items()}
            _check_unique([*self.rules, *(e for entries in loaded.values() for e in entries)])
            self._loaded = loaded
        return self._loaded

    def of(self, kind: str) -> tuple[Any, ...]:
        """The entries of one kind ("rule", "sizer", "check", or a kind added to advisor.rules.entries.KINDS)."""
        return self.rules if kind == "rule" else self._load_others().get(kind, ())

    @property
    def sizers(self) -> tuple[Any, ...]:
        return self.of("sizer")

    @property
    def checks(self) -> tuple[Any, ...]:
        return self.of("check")

    def entries(self) -> list[Any]:
        return [*self.rules, *(e for entries in self._load_others().values() for e in entries)]

    def find(self, entry_id: str) -> Optional[Any]:
        for e in self.entries():
            if entry_id == e.id or entry_id in getattr(e.spec, "aliases", []):
                return e
        return None

    def check(self, check_id: str) -> Optional[Any]:
        return next((c for c in self.checks if c.id == check_id), None)

    def with_rules(self, rules: Iterable[Rule]) -> "Catalogue":
        """The same catalogue with other rules (the other kinds as they are)."""
        return Catalogue(self.variables, rules, generated=self.generated, others=self._load_others, groups=self.groups)


def _check_unique(entries: Iterable[Any]) -> None:
    seen: dict[str, str] = {}
    for e in entries:
        for name in [e.id, *getattr(e.spec, "aliases", [])]:
            if name in seen:
                raise ValueError(f"{e.path}: id {name!r} is already used by {seen[name]}")
            seen[name] = e.path


def generate(variables: VariableCatalogue, generators: Iterable[RuleGenerator] = RULE_GENERATORS) -> list[Rule]:
    """The rules of the generated families (the loader caches them)."""
    return [r for g in generators for r in g(variables)]


def _superseded(rule: Rule) -> set[str]:
    return {s.lower() for s in getattr(rule.spec, "supersedes", ())}


def with_precedence(rules: Sequence[Rule], made: Sequence[Rule]) -> list[Rule]:
    """The generated rules, each deferring to the hand-written rules that supersede it (`supersedes`
    names its variable or its alias `<variable>.<entry>`): when one of them fired, the engine reports the
    generated rule not_applicable ('already reported by'), so a setting gives one finding, in the
    hand-written rule's words."""
    from dataclasses import replace

    # one pass over the hand-written rules (key -> positions), not one per generated rule: ~450 × ~180
    # set intersections cost ~40 ms of every audit
    by_key: dict[str, list[int]] = {}
    for i, r in enumerate(rules):
        for key in _superseded(r):
            by_key.setdefault(key, []).append(i)
    out = []
    for m in made:
        keys = {str(m.variable)} | {a.lower() for a in m.aliases}
        hits = sorted({i for k in keys for i in by_key.get(k, ())})
        by = tuple(rules[i].id for i in hits)
        out.append(replace(m, defers_to=by) if by else m)
    return out


def second_opinions(rules: Sequence[Rule], made: Sequence[Rule]) -> list[tuple[str, str]]:
    """[(rule path and id, problem)]: a hand-written rule that names a variable in `variables` whose
    risky-values entries it does not supersede (two judgements of one variable), or that supersedes an
    entry that does not exist."""
    entries: dict[str, list[str]] = {}
    for m in made:
        if m.variable is not None:
            entries.setdefault(m.variable, []).extend(a.lower() for a in m.aliases)
    known = {a for aliases in entries.values() for a in aliases} | set(entries)
    out = []
    for r in rules:
        if r.variable is not None:
            continue
        sup = _superseded(r)
        for s in sorted(sup - known):
            out.append((f"{r.path} ({r.id})", f"supersedes {s!r}, which is no risky-values entry "
                        "(risky.toml: <variable> or <variable>.<entry>)"))
        for v in sorted({x.lower() for x in r.spec.variables}):
            left = [a for a in entries.get(v, []) if v not in sup and a not in sup]
            if left:
                out.append((f"{r.path} ({r.id})", f"judges {v}, which risky.toml judges too ({', '.join(left)}): "
                            f"a second opinion on one variable; add supersedes = [\"{v}\"] (this rule's finding "
                            "takes their place), or move the judgement into risky.toml"))
    return out


def build_catalogue(variables: VariableCatalogue, rules: Iterable[Rule], sizers: Iterable[Any] = (),
                    checks: Iterable[Any] = (), generators: Iterable[RuleGenerator] = RULE_GENERATORS, *,
                    others: Optional[Others] = None, generated: Optional[Sequence[Rule]] = None,
                    groups: Iterable[Any] = ()) -> Catalogue:
    """The catalogue from loaded entries plus the generated rule families (`generated`: their rules made
    already, e.g. from the loader's cache; `others` loads the sizers and checks on first use instead of
    `sizers` and `checks`)."""
    rules = list(rules)
    made = with_precedence(rules, generate(variables, generators) if generated is None else generated)
    return Catalogue(variables, [*rules, *made], sizers, checks, [r.id for r in made], others=others, groups=groups)
