"""Judge every difference between the compared snapshots: expected (what the comparison is about,
--about), harmless (cannot change a benchmark result) or confounding (can, and is not what is being
measured), each with its reason and its fix; then rank them. Pure: handed the snapshots and the
variable catalogue, reads nothing."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from advisor import __version__
from advisor.compare import items as it
from advisor.compare import measured as ms
from advisor.compare.model import (ABOUT, GROUPS, VERDICTS, Comparison, Difference, Figure, NotCompared, Side,
                                   Summary)
from advisor.compare.variables import KNOWN, VarDiff, compare_variables, identity, same
from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules.derived import DERIVED
from advisor.rules.facts import FactView, Unknown
from advisor.snapshot import Distribution, Snapshot
from advisor.units import format_cnf_size, format_evidence, to_number

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SECTIONS = {"host": "host facts", "client": "the client's network path", "calibration": "calibration"}


def about_aspects(about: Sequence[str]) -> set[str]:
    """The aspects a comparison about `about` expects to differ (ValueError for an unknown word)."""
    out: set[str] = set()
    for a in about:
        if a not in ABOUT:
            raise ValueError(a)
        out.update(ABOUT[a])
    return out


class _Judge:
    def __init__(self, snaps: Sequence[Snapshot], labels: Sequence[str], about: Sequence[str],
                 cat: VariableCatalogue):
        self.snaps, self.labels, self.about, self.cat = snaps, list(labels), list(about), cat
        self.expect = about_aspects(about)
        self.views = [FactView(s, "benchmark", catalogue=cat, derived=DERIVED) for s in snaps]
        self.diffs: list[Difference] = []
        self.not_compared: list[NotCompared] = []
        self.absent: set[str] = set()
        self.figures: list[Figure] = []

    # ------------------------------------------------------------ verdicts
    def verdict(self, aspects: Sequence[str], why: str, fix: str, harmless: str = "",
                noise: bool = False) -> tuple[str, str, str]:
        """`noise`: the values differ by less than they scatter, which is harmless whatever --about says."""
        if noise:
            return "harmless", harmless, ""
        hit = [a for a in aspects if a in self.expect]
        if hit:
            named = ", ".join(self.about)
            part = (f"the comparison is about the {hit[0]}" if hit[0] in self.about
                    else f"the {hit[0]} is part of what the comparison is about ({named})")
            return "expected", f"{part}; {why}", ""
        if harmless:
            return "harmless", harmless, ""
        return "confounding", why, fix

    def add(self, id_: str, group: str, title: str, aspects: Sequence[str], kind: str, values: list[Optional[str]],
            weight: int, why: str, fix: str, harmless: str = "", defaults: Optional[list[Optional[str]]] = None,
            raw: Optional[list[Optional[str]]] = None, noise: bool = False) -> None:
        v, reason, f = self.verdict(aspects, why, fix, harmless, noise)
        self.diffs.append(Difference(rank=0, id=id_, group=group, title=title, aspects=list(aspects), kind=kind,  # type: ignore[arg-type]
                                     values=values, defaults=defaults, raw=raw, verdict=v, reason=reason, fix=f,  # type: ignore[arg-type]
                                     weight=weight))

    def missing(self, fact: str, title: str, vals: Sequence[Any]) -> None:
        lacking = [lab for lab, v in zip(self.labels, vals) if isinstance(v, Unknown)]
        reason = next(v.reason for v in vals if isinstance(v, Unknown))
        self.not_compared.append(NotCompared(fact=fact, title=title, sides=lacking, reason=reason))

    # ------------------------------------------------------------ sections
    def sections(self) -> None:
        for section, title in SECTIONS.items():
            vals = [getattr(s, section) for s in self.snaps]
            if all(v is not None for v in vals):
                continue
            self.absent.add(section)
            reasons = [v.get(section) for v in self.views]
            self.missing(section, title, [r if isinstance(r, Unknown) else None for r in reasons])

    def item(self, item: it.Item) -> None:
        if item.section in self.absent:
            return
        vals = [item.read(v) for v in self.views]
        unknown = [isinstance(v, Unknown) for v in vals]
        if all(unknown):
            if item.key and any(s.target.flavor != "tidb" for s in self.snaps):
                self.missing(item.id, item.title, vals)
            return
        if any(unknown):
            self.missing(item.id, item.title, vals)
            return
        shown = [item.show(v) for v in vals]
        if len(set(shown)) == 1:
            return
        harmless = ""
        nums = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if item.tolerance and len(nums) == len(vals) and min(nums) > 0 and \
                (max(nums) - min(nums)) / min(nums) <= item.tolerance:
            harmless = f"the values are within {item.tolerance:.0%} of each other"
        self.add(item.id, item.group, item.title, item.aspects, "differs", shown, item.weight,
                 f"the sides differ in {item.title}: {item.why}", item.fix, harmless, noise=bool(harmless))

    def measure(self, m: ms.Measure) -> None:
        if "calibration" in self.absent:
            return
        vals = [v.get(m.id) for v in self.views]
        if all(isinstance(v, Unknown) for v in vals):
            return
        if any(isinstance(v, Unknown) for v in vals):
            self.missing(m.id, m.title, vals)
            return
        numbers = [v.p50 if isinstance(v, Distribution) else v for v in vals]
        if all(isinstance(n, (int, float)) for n in numbers):
            self.figures.append(Figure(id=m.id, title=m.title, unit=m.unit, values=[float(n) for n in numbers]))
        shown = [ms.show(m, v) for v in vals]
        d = ms.differs(m, vals)
        if d is None or len(set(shown)) == 1:
            return
        harmless = "" if d else "the figures differ by less than their spread (the middle halves of the samples " \
                                "overlap, or the gap is within the noise of one run)"
        self.add(m.id, "calibration", m.title, m.aspects, "measured", shown, m.weight,
                 f"the sides differ in {m.title} beyond its spread: {m.why}", m.fix, harmless, noise=not d)

    # ------------------------------------------------------------ variables
    def variables(self) -> None:
        diffs, only = compare_variables(self.snaps, self.cat)
        for d in diffs:
            self.variable(d)
        self.only_on_some(only)

    def variable(self, d: VarDiff) -> None:
        known = KNOWN.get(d.name)
        group, weight = (known.group, known.weight) if known else ("tidb" if d.name.startswith("tidb_") else "variables", 30)
        what = known.why if known else "the server runs with a different setting on each side"
        flavors = {s.target.flavor for s in self.snaps}
        versions = {(s.target.flavor, s.target.version) for s in self.snaps}
        harmless = ""
        if identity(d.name):
            harmless = f"{d.name} names the server or a path on it; it does not change how the server runs"
        elif d.noop_everywhere:
            harmless = f"{d.name} is accepted for compatibility and has no effect on these servers"
        if d.kind == "default_differs":
            aspects: tuple[str, ...] = ("host",) if d.sized_by_host else (("flavor", "version") if len(flavors) > 1
                                                                           else ("version",))
            if d.sized_by_host:
                cause = "the server sizes it at start-up from the host's CPUs or memory"
            else:
                cause = "the compiled-in default differs between " + " and ".join(f"{f} {v}" for f, v in sorted(versions))
            why = f"{d.name} is at its default on every side, but {cause}: {what}"
            fix = f"set {d.name} explicitly to the same value on every side to compare like for like"
            self.add(f"var.{d.name}", group if known else "defaults", d.name, aspects, "default_differs",
                     self._shown(d.name, d.values), max(weight - 5, 5), why, fix, harmless,
                     defaults=self._shown(d.name, d.defaults), raw=d.values, noise=bool(harmless))
            return
        aspects = known.aspects if known else (("tidb", "config") if d.name.startswith("tidb_") else ("config",))
        why = f"{d.name} is set differently ({self._setters(d)}): {what}"
        fix = self._fix(d)
        self.add(f"var.{d.name}", group, d.name, aspects, "differs", self._shown(d.name, d.values), weight, why, fix,
                 harmless, defaults=self._shown(d.name, d.defaults), raw=d.values, noise=bool(harmless))

    def _setters(self, d: VarDiff) -> str:
        if all(at is None for at in d.at_default):
            return "the variable catalogue does not know its default on these versions"
        parts = []
        for lab, at in zip(self.labels, d.at_default):
            parts.append(f"{lab} at its default" if at is True else f"{lab} set away from its default" if at is False
                         else f"{lab} with an unknown default")
        return ", ".join(parts)

    def _fix(self, d: VarDiff) -> str:
        """Align on the first side (the baseline): the sides whose value differs from it get its value,
        as a my.cnf line would write it; say when that takes a restart."""
        known = KNOWN.get(d.name)
        if known and known.fix:
            return known.fix
        unit = self.cat.unit(d.name)
        base = d.values[0]
        others = [lab for lab, v in zip(self.labels[1:], d.values[1:]) if not same(base, v, unit)]
        if base is None or base == "":
            return f"set {d.name} to the same value on every side"
        n = to_number(base)
        shown = format_cnf_size(int(n)) if unit == "bytes" and n is not None and float(n).is_integer() else base
        t = self.snaps[0].target
        spec = self.cat.info(d.name, t.flavor, t.version)
        how = "" if spec is None else ("; SET GLOBAL works" if spec.dynamic else "; in my.cnf, then a restart")
        return (f"set {d.name} = {shown} on {' and '.join(others)} as on {self.labels[0]} (the baseline{how}), or "
                f"one chosen value on every side")

    def _shown(self, name: str, values: list[Optional[str]]) -> list[Optional[str]]:
        """Values in the variable's unit: sizes as '16 MiB (16777216)', an empty value as such."""
        unit = self.cat.unit(name)
        return [None if v is None else format_evidence(f"var.{name}", v, unit) for v in values]

    def only_on_some(self, only: list[set[str]]) -> None:
        names = sorted(set().union(*only))
        if not names:
            return
        flavors = {s.target.flavor for s in self.snaps}
        versions = {s.target.version for s in self.snaps}
        aspects = ("flavor", "version") if len(flavors) > 1 else ("version",) if len(versions) > 1 else ("config",)
        shown = [f"{len(o)}: {', '.join(sorted(o)[:12])}{' …' if len(o) > 12 else ''}" if o else "none" for o in only]
        why = (f"{len(names)} variables exist on some sides only"
               + (" because the flavors differ" if "flavor" in aspects else
                  " because the versions differ" if aspects != ("config",) else
                  " although the versions are the same: a plugin or component is loaded on one side only"))
        harmless = ""
        if aspects != ("config",):
            harmless = f"{why}; the version difference itself is judged on its own line"
        self.add("server.variables.only_on_some", "variables", "variables present on some sides only", aspects,
                 "only_on_some", shown, 30 if aspects == ("config",) else 10,
                 why, "load the same plugins and components on every side", harmless)

    # ------------------------------------------------------------ all
    def run(self) -> None:
        self.sections()
        for item in it.SERVER:
            self.item(item)
        self.variables()
        keys = sorted({k for s in self.snaps for k in (s.server.tidb_config or {})})
        for item in it.tidb_config_items(keys):
            self.item(item)
        for item in it.HOST + it.STORAGE + it.NETWORK:
            self.item(item)
        for m in ms.MEASURES:
            self.measure(m)


def compare(snaps: Sequence[Snapshot], sources: Sequence[str], about: Sequence[str], catalogue: VariableCatalogue,
            labels: Optional[Sequence[str]] = None) -> Comparison:
    """The comparison of two or more snapshots (the first is the baseline the fixes align to)."""
    if len(snaps) < 2:
        raise ValueError("compare needs at least two snapshots")
    labels = list(labels or LABELS[:len(snaps)])
    j = _Judge(snaps, labels, about, catalogue)
    j.run()
    order = {v: i for i, v in enumerate(VERDICTS)}
    groups = list(GROUPS)
    ranked = sorted(j.diffs, key=lambda d: (order[d.verdict], -d.weight, groups.index(d.group), d.id))
    for i, d in enumerate(ranked, 1):
        d.rank = i
    counts = {v: sum(1 for d in ranked if d.verdict == v) for v in VERDICTS}
    sides = [Side(label=lab, source=src, flavor=s.target.flavor, version=s.target.version,
                  version_string=s.target.version_string, host=s.target.host or s.target.socket,
                  collected_at=s.collected_at) for lab, src, s in zip(labels, sources, snaps)]
    verdict, headline = _headline(counts, ranked, len(j.not_compared))
    notes = [f"--about {a}: nothing about the {a} differs between the sides, so this comparison cannot show its "
             "effect" for a in about if not any(set(ABOUT[a]) & set(d.aspects) for d in ranked if d.verdict == "expected")]
    return Comparison(schema=SCHEMA_NAME, advisor_version=__version__, about=list(about), sides=sides,  # type: ignore[arg-type]
                      verdict=verdict, headline=headline,  # type: ignore[arg-type]
                      summary=Summary(**counts, not_compared=len(j.not_compared)), differences=ranked,
                      not_compared=j.not_compared, figures=j.figures, notes=notes)


SCHEMA_NAME = "advisor.compare/1"


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word.replace('difference', 'differences').replace('fact', 'facts')}"


def _headline(counts: dict[str, int], ranked: list[Difference], not_compared: int) -> tuple[str, str]:
    unseen = (f"; {_n(not_compared, 'fact')} could not be compared (listed under not compared)" if not_compared
              else "")
    if counts["confounding"]:
        top = ranked[0]
        return "confounded", (f"{_n(counts['confounding'], 'confounding difference')} can change the result; the "
                              f"first to fix: {top.title} ({' vs '.join(str(v) for v in top.values)}){unseen}.")
    if counts["expected"]:
        return "fair", (f"only what the comparison is about differs ({counts['expected']} expected, "
                        f"{counts['harmless']} harmless){unseen}.")
    return "nothing_to_worry_about", (f"nothing to worry about: no difference that can change a benchmark result"
                                      f"{' (' + str(counts['harmless']) + ' harmless)' if counts['harmless'] else ''}"
                                      f"{unseen}.")
