"""Check a rule's recommendations against the variable catalogue, for every flavor and version
the rule applies to. Used when rule files are loaded (`advisor rules lint`, `advisor audit
--rules DIR`): a rule that recommends a variable the target cannot have is an invalid rule file.

A literal recommendation ({variable, value}) without its own `when` must name a variable that
exists, with a valid value, on every flavor/version in applies_to.flavors. Recommendations that
are computed (formulas) or guarded by `when` are checked per target by the engine instead, which
drops one that names a variable the target does not have and says so in the finding's notes.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.versions import Version, VersionRange

# Release points probed in addition to the boundaries found in the catalogue and the rule.
KNOWN_RELEASES: dict[str, tuple[str, ...]] = {
    "mysql": ("5.6.51", "5.7.44", "8.0.0", "8.0.28", "8.0.36", "8.4.0", "8.4.3", "9.1.0"),
    "percona": ("5.7.44", "8.0.28", "8.0.36", "8.4.0"),
    "mariadb": ("10.3.39", "10.4.34", "10.5.27", "10.6.20", "10.11.10", "11.4.4", "11.8.0"),
    "tidb": ("4.0.16", "5.1.4", "6.1.0", "6.5.0", "7.1.0", "7.5.1", "8.5.0"),
}

_VER = re.compile(r"\d+(?:\.\d+){0,2}")


def _boundaries(texts: Iterable[str]) -> set[Version]:
    out: set[Version] = set()
    for t in texts:
        for m in _VER.findall(t):
            v = Version.parse(m)
            out.add(v)
            if v.patch > 0:
                out.add(Version(v.major, v.minor, v.patch - 1))
    return out


def probe_versions(flavor: str, rule_range: str, variable: str, catalogue: VariableCatalogue) -> list[Version]:
    texts = [rule_range]
    var = catalogue.get(variable)
    if var is not None:
        texts += [e.range for e in var.versions if flavor in e.flavors]
        texts += [v for fl, v in list(var.removed.items()) + list(var.deprecated.items()) if fl == flavor]
    cands = _boundaries(texts) | {Version.parse(v) for v in KNOWN_RELEASES.get(flavor, ())}
    rng = VersionRange(rule_range)
    return sorted(v for v in cands if rng.contains(v))


def check_recommendations(spec: Any, catalogue: VariableCatalogue) -> list[tuple[str, str]]:
    """[(field location, problem)] for the literal, unguarded recommendations of a RuleFile."""
    problems: list[tuple[str, str]] = []
    for i, rec in enumerate(spec.recommend):
        if rec.formula is not None or rec.when is not None or rec.variable is None or rec.value is None:
            continue
        value = ("ON" if rec.value else "OFF") if isinstance(rec.value, bool) else rec.value
        for flavor, rng in spec.applies_to.flavors.items():
            for v in probe_versions(flavor, rng, rec.variable, catalogue):
                if catalogue.exists_on(rec.variable, flavor, v) is None:
                    continue  # not catalogued for this flavor: the engine flags it per target
                found = catalogue.check_setting(rec.variable, value, flavor, v)
                if found:
                    problems.append((f"recommend[{i}].variable",
                                     f"{found[0]}, but the rule applies to {flavor} {rng!s}; narrow "
                                     "applies_to.flavors, or guard the recommendation with its own `when`"))
                    break
    return problems
