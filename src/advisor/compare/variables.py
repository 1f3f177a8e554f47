"""Server variables side by side: which differ, whether each side is at its own compiled-in default
(the variable catalogue, advisor.knowledge), and what kind of difference that makes. Pure.

- the values differ and at least one side set its own: a configuration difference;
- every side is at its own default and the defaults differ: a *differing default*, which comes with
  the version (or flavor), or with the host when the default is sized from CPUs or memory;
- the variable exists on some sides only: listed once per comparison, with the names.
Names that identify a server or a path (hostname, server_uuid, datadir, log file names) differ on
every pair of servers and cannot change a result; they are harmless. What each variable is (its role,
its weight and reason in a comparison) is the catalogue's: VariableCatalogue.traits()."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.knowledge.values import normalise
from advisor.snapshot import Snapshot
from advisor.units import to_number


@dataclass
class VarDiff:
    name: str
    values: list[Optional[str]]
    defaults: list[Optional[str]]
    at_default: list[Optional[bool]]
    kind: str                     # differs | default_differs
    sized_by_host: bool = False
    noop_everywhere: bool = False


def identity(cat: VariableCatalogue, name: str) -> bool:
    """The variable names the server or a path on it (the catalogue's role 'identity')."""
    return cat.traits(name).role == "identity"


def read_only(cat: VariableCatalogue, name: str) -> bool:
    """No SET or my.cnf line aligns it (the catalogue's role is not 'setting'), unless the catalogue says how
    to align it otherwise (have_ssl follows from certificates: `align`)."""
    t = cat.traits(name)
    return not t.fix_target and not t.align


def _lower_bound(text: str) -> Optional[str]:
    m = re.search(r">=\s*([0-9][0-9.]*)", text)
    return m.group(1) if m else None


def default_changed_in(cat: VariableCatalogue, name: str, flavor: str, older: str, newer: str) -> Optional[str]:
    """The release of `flavor` in which the compiled-in default of `name` became the one `newer`
    has, searched between `older` (exclusive) and `newer`: the earliest catalogued range start from
    which the default stays the newer one. None when the catalogue cannot say."""
    from advisor.versions import Version

    var = cat.get(name)
    want = cat.default_for(name, flavor, newer)
    if var is None or want is None:
        return None
    lo, hi = Version.parse(older), Version.parse(newer)
    bounds = {_lower_bound(str(e.range)) for e in var.versions if flavor in e.flavors}
    starts = sorted((b for b in bounds if b is not None), key=lambda x: Version.parse(x).as_tuple())
    cands = [b for b in starts if lo.as_tuple() < Version.parse(b).as_tuple() <= hi.as_tuple()]
    found = None
    for b in reversed(cands):
        d = cat.default_for(name, flavor, b)
        if d is None or normalise(d, var.unit) != normalise(want, var.unit):
            break
        found = b
    return found


def same(a: Optional[str], b: Optional[str], unit: Optional[str]) -> bool:
    if a is None or b is None:
        return a is b
    if unit is not None:
        na, nb = normalise(a, unit), normalise(b, unit)
        if na is not None and nb is not None:
            return abs(na - nb) < 1e-9 if isinstance(na, float) and isinstance(nb, float) else na == nb
    x, y = to_number(a), to_number(b)
    if x is not None and y is not None:
        return float(x) == float(y)
    return a.strip().lower() == b.strip().lower()


def _inputs(s: Snapshot) -> dict[str, Any]:
    h = s.host
    pool = to_number({k.lower(): v for k, v in s.server.variables.items()}.get("innodb_buffer_pool_size"))
    return {"cpus": h.cpu.logical_count if h else None,
            "ram_bytes": (h.memory.effective_limit_bytes or h.memory.total_bytes) if h else None,
            "buffer_pool_bytes": int(pool) if pool is not None else None}


def compare_variables(snaps: Sequence[Snapshot], cat: VariableCatalogue) -> tuple[list[VarDiff], list[set[str]]]:
    """The variables whose values differ, and per side the names only some sides have."""
    lowered = [{k.lower(): v for k, v in s.server.variables.items()} for s in snaps]
    names = sorted(set().union(*lowered))
    inputs = [_inputs(s) for s in snaps]
    out: list[VarDiff] = []
    only: list[set[str]] = [set() for _ in snaps]
    for name in names:
        if cat.traits(name).role == "version":  # the version difference is reported once, as target.version
            continue
        values = [v.get(name) for v in lowered]
        if any(x is None for x in values):
            for i, x in enumerate(values):
                if x is not None:
                    only[i].add(name)
            continue
        unit = cat.unit(name)
        if all(same(values[0], x, unit) for x in values[1:]):
            continue
        out.append(_diff(name, values, snaps, inputs, cat))
    return out, only


def _diff(name: str, values: list[Optional[str]], snaps: Sequence[Snapshot], inputs: list[dict[str, Any]],
          cat: VariableCatalogue) -> VarDiff:
    defaults, at_default, formula, noop = [], [], False, True
    for s, value, inp in zip(snaps, values, inputs):
        t = s.target
        spec = cat.info(name, t.flavor, t.version)
        defaults.append(cat.default_for(name, t.flavor, t.version, **inp))
        at_default.append(cat.is_default(name, value, t.flavor, t.version, **inp))
        formula = formula or (spec is not None and spec.default_formula is not None)
        noop = noop and spec is not None and spec.noop
    unit = cat.unit(name)
    differing_defaults = (all(a is True for a in at_default)
                          and not all(same(defaults[0], d, unit) for d in defaults[1:]))
    return VarDiff(name, list(values), defaults, at_default, "default_differs" if differing_defaults else "differs",
                   sized_by_host=differing_defaults and formula, noop_everywhere=noop)
