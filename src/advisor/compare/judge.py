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
from advisor.compare.variables import VarDiff, compare_variables, default_changed_in, identity, read_only, same
from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules.derived import DERIVED
from advisor.rules.facts import FactView, Unknown
from advisor.snapshot import Distribution, Snapshot
from advisor.units import format_cnf_size, format_evidence, to_number
from advisor.versions import Version

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


def same_server(snaps: Sequence[Snapshot]) -> str:
    """How the sides are recognised as one server ('server_uuid …', 'hostname h, port p, datadir d'),
    or '' when they are not: the server_uuid where the flavor has one, else hostname, port and datadir
    from the variables, all equal and known on every side; never when the host facts show different
    machines (hostname, CPU model or RAM)."""
    hosts = [s.host for s in snaps]
    if all(h is not None for h in hosts):  # a cloned datadir carries its server_uuid to another machine
        for get in (lambda h: h.hostname, lambda h: h.cpu.model, lambda h: h.memory.total_bytes):
            seen = {get(h) for h in hosts}  # type: ignore[union-attr]
            if None not in seen and len(seen) > 1:
                return ""
    lowered = [{k.lower(): str(v).strip() for k, v in s.server.variables.items()} for s in snaps]
    uuids = [v.get("server_uuid") for v in lowered]
    if all(uuids):
        return f"server_uuid {uuids[0]}" if len(set(uuids)) == 1 else ""
    keys = ("hostname", "port", "datadir")
    rows = [tuple(v.get(k) for k in keys) for v in lowered]
    if all(all(r) for r in rows) and len(set(rows)) == 1 and rows[0][2].startswith("/"):  # TiDB's is PD's address
        return ", ".join(f"{k} {x}" for k, x in zip(keys, rows[0]))
    return ""


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
        self.same_server = same_server(snaps)
        tls = [it._tls_state(v) for v in self.views]
        self.no_tls = all(isinstance(t, str) and t == "off" for t in tls)

    # ------------------------------------------------------------ verdicts
    def verdict(self, aspects: Sequence[str], why: str, fix: str, harmless: str = "",
                noise: bool = False, expected: str = "") -> tuple[str, str, str]:
        """`noise`: the values differ by less than they scatter, which is harmless whatever --about says.
        `expected`: the reason a difference follows from one already reported (a default the version moved)."""
        if noise:
            return "harmless", harmless, ""
        if expected:
            return "expected", expected, ""
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
            raw: Optional[list[Optional[str]]] = None, noise: bool = False, expected: str = "") -> None:
        v, reason, f = self.verdict(aspects, why, fix, harmless, noise, expected)
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
        numbers_text = "; ".join(f"{lab}: {x}" for lab, x in zip(self.labels, shown))
        if d and m.kind == "figure" and self.same_server:
            d = False  # one figure per run has no spread of its own: on one server, a gap is the measuring noise
            harmless = (f"within noise: the same server on every side ({self.same_server}), and {m.title} is one "
                        f"figure per run with no spread recorded, so the gap is the measuring machine's noise "
                        f"({numbers_text})")
        elif d and self.same_server:
            # one server, one device, one network path: samples that stand apart were taken under different load
            d = False
            harmless = (f"the same server on every side ({self.same_server}): its {m.title} cannot differ from "
                        f"itself, so the samples stand apart because the machine was busier during one "
                        f"measurement than the other ({numbers_text}); measure again when the machine is quiet")
        elif d and m.kind == "distribution" and min(v.samples for v in vals) < ms.MIN_SAMPLES:
            d = False
            harmless = (f"not judged: a side has fewer than {ms.MIN_SAMPLES} samples of {m.title}, too few for a "
                        f"spread ({numbers_text}); give the calibration more time (--calibrate-seconds)")
        elif not d and m.kind == "distribution":
            harmless = (f"within noise: the middle halves of the samples overlap or the medians are within a fifth "
                        f"of each other ({numbers_text})")
        else:
            harmless = "" if d else (f"within noise: the gap is within the {m.tolerance:.0%} one run scatters by "
                                     f"({numbers_text})")
        self.add(m.id, "calibration", m.title, m.aspects, "measured", shown, m.weight,
                 f"the sides differ in {m.title} beyond its spread: {m.why}", m.fix, harmless, noise=not d)

    # ------------------------------------------------------------ variables
    def variables(self) -> None:
        diffs, only = compare_variables(self.snaps, self.cat)
        for d in diffs:
            self.variable(d)
        self.only_on_some(only)

    def variable(self, d: VarDiff) -> None:
        t = self.cat.traits(d.name)
        known = t.weight is not None
        weight = t.weight if known else 30
        group = t.compare_group or ("tidb" if t.category == "tidb" else "variables")
        what = t.does or "the server runs with a different setting on each side"
        flavors = {s.target.flavor for s in self.snaps}
        versions = {(s.target.flavor, s.target.version) for s in self.snaps}
        harmless = ""
        if identity(self.cat, d.name):
            harmless = f"{d.name} names the server or a path on it; it does not change how the server runs"
        elif d.noop_everywhere:
            harmless = f"{d.name} is accepted for compatibility and has no effect on these servers"
        elif t.compare_group == "tls" and self.no_tls:
            harmless = (f"no side's client connection used TLS, so what the servers would accept ({d.name}) does "
                        "not change the result")
        expected = ""
        ro = read_only(self.cat, d.name)
        by_version = len(flavors) == 1 and len({s.target.version for s in self.snaps}) > 1
        if ro and not harmless and by_version:
            expected = (f"{d.name} is read-only: the server reports it from its build and version, and the versions "
                        "differ; there is nothing to set")
        if d.kind == "default_differs" and not d.sized_by_host and by_version and not harmless:
            (flavor,) = flavors
            vs = sorted({s.target.version for s in self.snaps}, key=lambda x: Version.parse(x).as_tuple())
            when = default_changed_in(self.cat, d.name, flavor, vs[0], vs[-1])
            changed = f"default changed in {when}" if when else f"default changed between {vs[0]} and {vs[-1]}"
            between = " and ".join(f"{f} {v}" for f, v in sorted(versions))
            expected = (f"{changed}: {d.name} is at its default on every side, and the compiled-in default differs "
                        f"between {between}, so it comes with the version: {what}")
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
                     self._shown(d.name, d.values), max(weight - 5, 5), why, "" if ro else fix, harmless,
                     defaults=self._shown(d.name, d.defaults), raw=d.values, noise=bool(harmless), expected=expected)
            return
        aspects = t.aspects if known else (("tidb", "config") if t.category == "tidb" else ("config",))
        if ro:
            why = (f"{d.name} differs ({self._setters(d)}); it is read-only, reported by the server from its "
                   f"build: {what}")
            fix = "run the same build of the server on every side (the variable cannot be set)"
        else:
            why = f"{d.name} is set differently ({self._setters(d)}): {what}"
            fix = self._fix(d)
        self.add(f"var.{d.name}", group, d.name, aspects, "differs", self._shown(d.name, d.values), weight, why, fix,
                 harmless, defaults=self._shown(d.name, d.defaults), raw=d.values, noise=bool(harmless),
                 expected=expected)

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
        align = self.cat.traits(d.name).align
        if align:
            return str(align)
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
    if j.same_server:
        both = "both sides" if len(snaps) == 2 else "every side"
        headline = f"{headline[:-1]}; the same server on {both} ({j.same_server})."
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
