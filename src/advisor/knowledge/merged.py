"""The merged variable catalogue: hand-curated variables.toml over the generated files.

`Catalogue` is a read-only mapping name -> entry (plain data with the attribute names of
advisor.knowledge.schema.VariableFile). It is pure: built from already-loaded data, so a caller
that must not touch files (the rules engine) can be handed one. Entries are merged lazily, on
first lookup, because an audit looks up a few hundred of the ~1,300 names.

Merge (curated entries are authoritative):
- a name only one side knows is taken as it is;
- for a name both know, the curated entry gives unit, scope, dynamic, limits, enum, note and the
  version entries of every flavor it covers; the generated data adds the flavors the curated entry
  does not cover (with their coverage window), their deprecated/removed versions, and sources.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import SimpleNamespace
from typing import Any, Optional

from advisor.versions import FLAVORS

_VF_DEFAULTS: dict[str, Any] = {"min": None, "max": None, "enum": None, "coverage": {}, "deprecated": {},
                                "removed": {}, "replaced_by": [], "renamed": False, "note": "", "risky": []}
_VE_DEFAULTS: dict[str, Any] = {"range": "*", "default": None, "default_formula": None, "min": None, "max": None,
                                "enum": None, "scope": None, "dynamic": None, "deprecated": False, "noop": False,
                                "note": ""}


def _version(d: dict[str, Any], top: Optional[dict[str, Any]] = None, under: Any = None) -> SimpleNamespace:
    """A generated version entry; `top` (its file's variable) and `under` (the entry it is merged
    under) decide which top-level values the entry must carry itself: its own limits and enum
    always (they are its flavor's), scope and dynamic where they differ."""
    v = {**_VE_DEFAULTS, **d}
    if top is not None and under is not None:
        for k in ("min", "max", "enum"):
            if v[k] is None:
                v[k] = top.get(k)
        for k in ("scope", "dynamic"):
            if v[k] is None and top.get(k) is not None and top.get(k) != getattr(under, k):
                v[k] = top[k]
    return SimpleNamespace(**v)


def _push_down(base: SimpleNamespace) -> None:
    """Move the top-level limits and enum into the entries, so that entries of another flavor
    merged in later do not inherit them (one flavor's limits are not the other's)."""
    tops = {k: getattr(base, k) for k in ("min", "max", "enum") if getattr(base, k) is not None}
    if not tops:
        return
    base.versions = [SimpleNamespace(**{**vars(e), **{k: t for k, t in tops.items() if getattr(e, k) is None}})
                     for e in base.versions]
    for k in tops:
        setattr(base, k, None)


def _generated(d: dict[str, Any], sources: dict[str, str], limits_in_entries: bool = False) -> SimpleNamespace:
    """A generated variable as plain data; with `limits_in_entries` its min/max/enum go into its
    version entries (another flavor's entries will be merged in)."""
    body = {k: (type(v)(v) if isinstance(v, (dict, list)) else v) for k, v in _VF_DEFAULTS.items()}
    body.update({k: (type(v)(v) if isinstance(v, (dict, list)) else v)
                 for k, v in d.items() if k not in ("src", "versions")})
    body["sources"] = [sources[s] for s in d.get("src", [])]
    if limits_in_entries:
        tops = {k: body[k] for k in ("min", "max", "enum") if body[k] is not None}
        body["versions"] = [SimpleNamespace(**{**_VE_DEFAULTS, **tops, **e}) for e in d["versions"]]
        body.update(dict.fromkeys(tops))
    else:
        body["versions"] = [SimpleNamespace(**{**_VE_DEFAULTS, **e}) for e in d["versions"]]
    return SimpleNamespace(**body)


def _deprecated_anywhere(curated: Mapping[str, Any], generated: list[dict[str, Any]]) -> Iterator[str]:
    """Names with a deprecation mark in any source: the curated entry's or any generated file's."""
    for name, cur in curated.items():
        if getattr(cur, "deprecated", None) or any(getattr(e, "deprecated", False) for e in cur.versions):
            yield name
    for f in generated:
        by_default = bool(f.get("entry_defaults", {}).get("deprecated"))
        for name, d in f["variables"].items():
            if d.get("deprecated") or by_default or any(e.get("deprecated") for e in d.get("versions", [])):
                yield name


def expand(raw: dict[str, Any], name: str) -> dict[str, Any]:
    """One variable of a generated file with the file's var_defaults and entry_defaults applied."""
    vd, ed = raw.get("var_defaults", {}), raw.get("entry_defaults", {})
    d = {**vd, **raw["variables"][name]}
    d["versions"] = [{**ed, **e} for e in d["versions"]]
    return d


class Catalogue(Mapping[str, Any]):
    """name -> merged entry. `curated`: validated variables.toml entries (plain data);
    `generated`: the parsed generated-<flavor>.json files."""

    def __init__(self, curated: Mapping[str, Any], generated: list[dict[str, Any]]) -> None:
        self._curated = curated
        self._files = generated
        names = set(curated)
        for f in generated:
            names |= set(f["variables"])
        self._names = sorted(names)
        self._known = set(self._names)
        self._merged: dict[str, Any] = {}
        self._maybe_deprecated = frozenset(_deprecated_anywhere(curated, generated))

    def __getitem__(self, name: str) -> Any:
        got = self._merged.get(name)
        if got is None:
            if name not in self._known:
                raise KeyError(name)
            got = self._merged[name] = self._merge(name)
        return got

    def __contains__(self, name: object) -> bool:
        return name in self._known

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def origin(self, name: str) -> Optional[str]:
        """'curated', 'generated', 'merged' (both), or None when the name is not catalogued."""
        cur = name in self._curated
        gen = any(name in f["variables"] for f in self._files)
        return {(True, False): "curated", (False, True): "generated", (True, True): "merged"}.get((cur, gen))

    def unit_of(self, name: str) -> Optional[str]:
        """The merged entry's unit without merging it (the curated entry's, else the first generated
        file's, as _merge decides); None when the name is not catalogued."""
        got = self._merged.get(name)
        if got is not None:
            return got.unit
        cur = self._curated.get(name)
        if cur is not None:
            return cur.unit
        for f in self._files:
            if name in f["variables"]:
                return expand(f, name).get("unit")
        return None

    def curated_names(self) -> list[str]:
        return sorted(self._curated)

    def maybe_deprecated(self, name: str) -> bool:
        """Whether any flavor or version of the name is marked deprecated, without merging the entry
        (False means info() gives deprecated=False for every flavor and version)."""
        return name in self._maybe_deprecated

    def generated(self, name: str) -> list[tuple[dict[str, Any], dict[str, str]]]:
        """The raw generated data for a name: [(variable dict, the file's source table)]."""
        return [(expand(f, name), f["sources"]) for f in self._files if name in f["variables"]]

    # ------------------------------------------------------------------------------ merge

    def _merge(self, name: str) -> Any:
        gens = self.generated(name)
        cur = self._curated.get(name)
        if not gens:
            return cur
        if cur is None:
            base = _generated(gens[0][0], gens[0][1], limits_in_entries=len(gens) > 1)
            rest = gens[1:]
        else:
            base = SimpleNamespace(**vars(cur))
            base.covered, base.versions, base.sources = list(cur.covered), list(cur.versions), list(cur.sources)
            base.coverage, base.deprecated, base.removed = dict(getattr(cur, "coverage", {}) or {}), \
                dict(cur.deprecated), dict(cur.removed)
            rest = gens
        for d, sources in rest:
            new = [fl for fl in d.get("covered", FLAVORS) if fl not in base.covered]
            if not new:
                continue
            _push_down(base)
            for e in d["versions"]:
                fls = [fl for fl in e["flavors"] if fl in new]
                if fls:
                    base.versions.append(_version({**e, "flavors": fls}, d, base))
            base.covered += new
            for fl in new:
                if fl in d.get("coverage", {}):
                    base.coverage[fl] = d["coverage"][fl]
                for kind in ("deprecated", "removed"):
                    if fl in d.get(kind, {}):
                        getattr(base, kind)[fl] = d[kind][fl]
            if not base.replaced_by and d.get("replaced_by"):
                base.replaced_by = list(d["replaced_by"])
                base.renamed = bool(d.get("renamed"))
            base.sources += [s for s in (sources[k] for k in d.get("src", [])) if s not in base.sources]
        return base
