"""The variable catalogue as a value: what is known about every server variable, queried per flavor
and version. Pure: the entries are handed in (advisor.knowledge loads and merges them at the edge,
with its cache: advisor.knowledge.merged.Catalogue); this module reads no file.

    cat = VariableCatalogue(entries)          # Mapping name -> entry (advisor.knowledge.schema.VariableFile shape)
    cat.exists_on(name, flavor, version)      -> True | False | None (not known)
    cat.default_for(name, flavor, version, cpus=, ram_bytes=, buffer_pool_bytes=)
    cat.info(name, flavor, version)           -> VarSpec | None
    cat.check_setting(name, value, flavor, version) -> list of problems ([] = fine)
    cat.is_default(name, value, flavor, version, **inputs) -> True | False | None
    cat.unit(name)                            -> 'bytes' | 'count' | ... | None (not catalogued)
    cat.risky_entries()                       -> {name: [risky-values entries]} (handed in; {} by default)

`version` is an advisor.versions.Version or a string ("8.0.36", "10.11.6-MariaDB").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

from advisor.knowledge.defaults import Inputs, compute
from advisor.knowledge.values import NUMERIC as NUMERIC_UNITS
from advisor.knowledge.values import normalise
from advisor.versions import FLAVORS, Version, VersionRange, flavor_name

VersionLike = Union[Version, str]


@dataclass(frozen=True)
class VarSpec:
    """What the catalogue knows about one variable on one flavor and version."""

    name: str
    flavor: str
    version: str
    unit: str
    scope: str
    dynamic: bool
    min: Optional[float]
    max: Optional[float]
    default: Optional[str]          # as SHOW VARIABLES prints it; None when computed or not recorded
    default_formula: Optional[str]  # name in advisor.knowledge.defaults.DEFAULT_FORMULAS
    enum: Optional[tuple[str, ...]]
    deprecated: bool
    deprecated_since: Optional[str]
    removed_in: Optional[str]
    replaced_by: tuple[str, ...]
    renamed: bool                   # replaced_by[0] is this variable's new name (both names print, one value)
    noop: bool
    note: str
    sources: tuple[str, ...]

    @property
    def enum_values(self) -> Optional[tuple[str, ...]]:
        return self.enum

    @property
    def deprecation(self) -> str:
        """'deprecated since mysql 8.0.30', or 'deprecated' when the first release is not
        recorded (the server says so but the data gives no version); '' when not deprecated."""
        if not self.deprecated:
            return ""
        return f"deprecated since {self.flavor} {self.deprecated_since}" if self.deprecated_since else "deprecated"


# The releases the variable catalogue's defaults were researched for, per flavor (the curated entries and
# the generated data: MySQL 5.6 / 5.7 / 8.0 / 8.4 manuals and builds, MariaDB 10.4-11.x, TiDB 4.0-8.x). Outside
# these the catalogue does not know a default (default_for / is_default answer None), so no rule judges a
# value against a default nobody checked for that release (issue 14 §2.9: MySQL 5.1's
# innodb_thread_concurrency = 8 is its default, not "a value from an older template").
CATALOGUE_VERSIONS: dict[str, str] = {"mysql": ">=5.6,<9.0", "percona": ">=5.7,<9.0", "mariadb": ">=10.4,<12.0",
                                      "tidb": ">=4.0,<9.0"}
CATALOGUE_VERSIONS_TEXT: dict[str, str] = {"mysql": "MySQL 5.6 to 8.4", "percona": "Percona Server 5.7 to 8.4",
                                           "mariadb": "MariaDB 10.4 to 11.x", "tidb": "TiDB 4.0 to 8.x"}


_WINDOWS: dict[str, VersionRange] = {}


def catalogue_covers(flavor: str, version: "VersionLike") -> bool:
    """Whether the catalogue's defaults were researched for this flavor and release (CATALOGUE_VERSIONS)."""
    window = CATALOGUE_VERSIONS.get(flavor)
    if window is None:
        return True
    rng = _WINDOWS.get(flavor)
    if rng is None:
        rng = _WINDOWS[flavor] = VersionRange(window)
    return rng.contains(_v(version))


_PARSED: dict[str, Version] = {}


def parse_version(version: VersionLike) -> Version:
    """A Version from a Version or a string, each string parsed once per process."""
    if isinstance(version, Version):
        return version
    v = _PARSED.get(version)
    if v is None:
        v = _PARSED[version] = Version.parse(str(version))
    return v


_v = parse_version


def show_value(value: Any, unit: str) -> str:
    """A default as SHOW GLOBAL VARIABLES prints it."""
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, float) and value.is_integer() and unit in ("bytes", "count", "seconds", "milliseconds",
                                                                   "microseconds"):
        return str(int(value))
    return str(value)


def normal_value(unit: str, value: Any) -> Any:
    """A value in a comparable form for its unit, or None when it does not parse (knowledge.values)."""
    return normalise(value, unit)


def _int_if_whole(x: Optional[float]) -> Optional[float]:
    return int(x) if isinstance(x, float) and x.is_integer() else x


class VariableCatalogue:
    """Queries over the catalogue's entries (name -> entry with unit, scope, versions, ...)."""

    def __init__(self, entries: Mapping[str, Any], risky: Optional[Mapping[str, Any]] = None,
                 traits: Optional[Mapping[str, Any]] = None):
        self._entries = entries  # a Mapping; the merged catalogue merges an entry on its first lookup
        self._risky: Mapping[str, Any] = risky if risky is not None else {}  # name -> risky-values entries
        self._traits: Mapping[str, Any] = traits if traits is not None else {}  # name -> traits.toml record
        self._traits_of: dict[str, Traits] = {}
        self._ranges: dict[str, VersionRange] = {}
        self._found: dict[tuple[str, str, Version], Any] = {}
        self._specs: dict[tuple[str, str, Version], Optional[VarSpec]] = {}
        # is_default's answers: a fleet's snapshots repeat the same (name, value, target) many times
        self._defaults_memo: dict[tuple[Any, ...], Optional[bool]] = {}

    @classmethod
    def empty(cls) -> "VariableCatalogue":
        """A catalogue that knows no variable: every question is answered 'not known'."""
        return cls({})

    # ------------------------------------------------------------ lookup
    def names(self) -> list[str]:
        return sorted(self._entries)

    def entries(self) -> Mapping[str, Any]:
        return self._entries

    def risky_entries(self) -> Mapping[str, Any]:
        """name -> the variable's risky-values entries (advisor.knowledge.schema.RiskyValue shape; the
        bundled catalogue reads them from risky.toml on first use)."""
        return self._risky

    def traits(self, name: str) -> "Traits":
        """The variable's traits (traits.toml: category, role, comparison weight, my.cnf and memory-model
        facts); a variable without a category is 'uncategorised' with the reason (Traits.category_reason)."""
        low = name.lower()
        got = self._traits_of.get(low)
        if got is None:
            got = self._traits_of[low] = _traits(low, self._traits.get(low), low in self._entries)
        return got

    def traits_names(self) -> tuple[str, ...]:
        """The names with a traits record, in traits.toml's order."""
        return tuple(self._traits)

    def names_with(self, trait: str, value: Any = True) -> tuple[str, ...]:
        """The names whose trait has this value, in traits.toml's order (memory="per_connection",
        role="identity", plan_full=True, ...)."""
        return tuple(n for n, t in self._traits.items() if getattr(t, trait, None) == value)

    def curated_names(self) -> list[str]:
        """The hand-curated names (all of them when the entries are not a merged catalogue)."""
        curated = getattr(self._entries, "curated_names", None)
        return curated() if curated is not None else self.names()

    def get(self, name: str) -> Any:
        """The raw entry of a variable (any flavor), or None."""
        return self._entries.get(name.lower())

    def maybe_deprecated(self, name: str) -> bool:
        """False only when no flavor or version of the variable is deprecated (a quick filter before info())."""
        fast = getattr(self._entries, "maybe_deprecated", None)
        return True if fast is None else fast(name.lower())

    def unit(self, name: str) -> Optional[str]:
        fast = getattr(self._entries, "unit_of", None)  # the merged catalogue answers without merging the entry
        if fast is not None:
            return fast(name.lower())
        var = self.get(name)
        return None if var is None else var.unit

    def _range(self, text: str) -> VersionRange:
        r = self._ranges.get(text)
        if r is None:
            r = self._ranges[text] = VersionRange(text)
        return r

    def _entry(self, name: str, flavor: str, version: VersionLike) -> Any:
        key = (name.lower(), flavor, _v(version))
        if key in self._found:
            return self._found[key]
        var = self._entries.get(key[0])
        hit = None
        if var is not None:
            hit = next((e for e in var.versions if flavor in e.flavors and self._range(e.range).contains(key[2])), None)
        self._found[key] = hit
        return hit

    def covers(self, var: Any, flavor: str, version: VersionLike) -> bool:
        """Whether the data of `var` was researched for this flavor and version (its `coverage` window)."""
        if flavor not in var.covered:
            return False
        window = (getattr(var, "coverage", None) or {}).get(flavor)
        return window is None or any(self._range(w.strip()).contains(_v(version)) for w in window.split("||"))

    def exists_on(self, name: str, flavor: str, version: VersionLike) -> Optional[bool]:
        """True/False when the catalogue knows the variable on this flavor and version; None when it
        does not (not catalogued, flavor not researched, or a version outside the data's window)."""
        var = self.get(name)
        if var is None or not self.covers(var, flavor, version):
            return None
        return self._entry(name, flavor, version) is not None

    def default_for(self, name: str, flavor: str, version: VersionLike, cpus: Optional[int] = None,
                    ram_bytes: Optional[int] = None, buffer_pool_bytes: Optional[int] = None) -> Optional[str]:
        """The compiled-in default as SHOW VARIABLES prints it, or None (not recorded, autosized, or a
        formula whose inputs were not given)."""
        var = self.get(name)
        e = self._entry(name, flavor, version)
        if var is None or e is None or not catalogue_covers(flavor, version):
            return None
        if e.default_formula is not None:
            val = compute(e.default_formula, Inputs(cpus=cpus, ram_bytes=ram_bytes, buffer_pool_bytes=buffer_pool_bytes))
            return None if val is None else str(val)
        if e.default is None:
            return None
        return show_value(e.default, var.unit)

    def info(self, name: str, flavor: str, version: VersionLike) -> Optional[VarSpec]:
        key = (name.lower(), flavor, _v(version))
        if key not in self._specs:
            self._specs[key] = self._spec(name, flavor, version)
        return self._specs[key]

    def _spec(self, name: str, flavor: str, version: VersionLike) -> Optional[VarSpec]:
        var = self.get(name)
        e = self._entry(name, flavor, version)
        if var is None or e is None:
            return None
        enum = e.enum if e.enum is not None else var.enum
        return VarSpec(
            name=name.lower(), flavor=flavor, version=str(_v(version)), unit=var.unit,
            scope=e.scope or var.scope, dynamic=var.dynamic if e.dynamic is None else e.dynamic,
            min=_int_if_whole(e.min if e.min is not None else var.min),
            max=_int_if_whole(e.max if e.max is not None else var.max),
            default=None if e.default is None else show_value(e.default, var.unit), default_formula=e.default_formula,
            enum=tuple(enum) if enum is not None else None,
            deprecated=e.deprecated, deprecated_since=var.deprecated.get(flavor) if e.deprecated else None,
            removed_in=var.removed.get(flavor), replaced_by=tuple(var.replaced_by),
            renamed=bool(getattr(var, "renamed", False)), noop=e.noop,
            note=" ".join(x for x in (var.note, e.note) if x), sources=tuple(var.sources),
        )

    # ------------------------------------------------------------ judgements on values
    def _absent_reason(self, name: str, flavor: str, version: Version) -> str:
        var = self._entries[name.lower()]
        fl = flavor_name(flavor)
        where = f"{fl} {version}"
        removed = var.removed.get(flavor)
        if removed and version >= Version.parse(removed):
            text = f"{name} does not exist on {where}: removed in {fl} {removed}"
        else:
            ranges = [e.range for e in var.versions if flavor in e.flavors]
            text = (f"{name} does not exist on {where} (it exists on {fl} {' or '.join(ranges)})" if ranges
                    else f"{name} does not exist on {fl}")
        repl = [r for r in var.replaced_by if self.exists_on(r, flavor, version)]
        if repl:
            text += f"; use {' and '.join(repl)} instead"
        return text

    def _unknown_reason(self, name: str, flavor: str, version: Version) -> str:
        var = self.get(name)
        fl = flavor_name(flavor)
        window = None if var is None else (getattr(var, "coverage", None) or {}).get(flavor)
        if var is not None and flavor in var.covered and window:
            return (f"{name} is catalogued for {fl} {window.replace(' || ', ' and ')} only, so whether it exists on {fl} {version} "
                    "is not known")
        return (f"{name} is not in the variable catalogue for {fl}, so whether it exists on {fl} {version} "
                "is not known")

    def check_setting(self, name: str, value: Any, flavor: str, version: VersionLike) -> list[str]:
        """Problems with setting `name = value` on this target: not known, does not exist there (with
        the version that removed it and its replacement), out of range, not a valid enum/boolean value.
        An empty list means the catalogue sees nothing wrong."""
        v = _v(version)
        where = f"{flavor} {v}"
        if flavor not in FLAVORS:
            return [f"{flavor!r} is not a flavor (use one of {', '.join(FLAVORS)})"]
        ex = self.exists_on(name, flavor, v)
        if ex is None:
            return [self._unknown_reason(name, flavor, v)]
        if ex is False:
            return [self._absent_reason(name, flavor, v)]
        spec = self.info(name, flavor, v)
        assert spec is not None
        problems: list[str] = []
        if spec.noop:
            problems.append(f"{name} is accepted on {where} for compatibility but has no effect")
        return problems + _value_problems(spec, name, value, where)

    def is_default(self, name: str, value: Any, flavor: str, version: VersionLike, **inputs: Any) -> Optional[bool]:
        """Whether `value` equals the default on this target; None when the default is not known
        (not catalogued, autosized, or a formula whose inputs (cpus, ram_bytes, buffer_pool_bytes)
        were not given) or the value does not parse."""
        key = (name, value, flavor, str(version), inputs.get("cpus"), inputs.get("ram_bytes"),
               inputs.get("buffer_pool_bytes"))
        try:
            return self._defaults_memo[key]
        except (KeyError, TypeError):  # TypeError: a value that is not hashable is not memoised
            pass
        out = self._is_default(name, value, flavor, version, inputs)
        if len(self._defaults_memo) < 500_000:
            try:
                self._defaults_memo[key] = out
            except TypeError:
                pass
        return out

    def _is_default(self, name: str, value: Any, flavor: str, version: VersionLike, inputs: dict[str, Any]) -> Optional[bool]:
        spec = self.info(name, flavor, version)
        if spec is None:
            return None
        d = self.default_for(name, flavor, version,
                             **{k: inputs.get(k) for k in ("cpus", "ram_bytes", "buffer_pool_bytes")})
        if d is None:
            return None
        a, b = normal_value(spec.unit, value), normal_value(spec.unit, d)
        if a is None or b is None:
            return None
        if isinstance(a, float) and isinstance(b, float):
            return abs(a - b) < 1e-9
        return a == b


class Traits:
    """One variable's traits (advisor.knowledge.schema.VariableTraits), with the defaults filled in."""

    __slots__ = ("name", "category", "category_reason", "role", "never_write", "weight", "does", "compare_group",
                 "aspects", "align", "block", "memory", "fallback", "autosized", "larger_wins", "plan_full",
                 "durable", "relaxed", "relaxed_loses")

    def __init__(self, name: str, **kw: Any) -> None:
        for k in self.__slots__[1:]:
            setattr(self, k, kw.get(k))
        self.name = name

    @property
    def fix_target(self) -> bool:
        """Whether a fix may set it (only a setting: never build_id, a path or the version text)."""
        return self.role == "setting"

    @property
    def not_written_why(self) -> str:
        """Why my.cnf never writes it ('' when it may)."""
        if self.never_write:
            return str(self.never_write)
        return {"read_only": "it is reported by the server from its build and start-up; it is not a setting",
                "identity": "it names the server or a path on it; the advisor does not set it",
                "version": "it is not a setting"}.get(str(self.role), "")


_TRAIT_DEFAULTS: dict[str, Any] = {"role": "setting", "never_write": "", "does": "", "aspects": (), "align": "",
                                   "autosized": False, "larger_wins": False, "plan_full": False, "relaxed_loses": ""}


def _traits(name: str, rec: Any, catalogued: bool) -> Traits:
    kw = dict(_TRAIT_DEFAULTS)
    if rec is not None:
        kw.update({k: v for k, v in vars(rec).items() if v is not None})
        kw["aspects"] = tuple(kw["aspects"])
    if kw.get("category"):
        kw["category_reason"] = ""
    elif name.startswith("tidb_"):  # TiDB's own variables: the prefix is TiDB's naming rule, not a guess
        kw["category"], kw["category_reason"] = "tidb", "a TiDB variable (tidb_ prefix) the catalogue has no record of"
    else:
        kw["category"] = "uncategorised"
        kw["category_reason"] = (f"{name} has no category in the variable catalogue (traits.toml)" if catalogued
                                 else f"{name} is not in the variable catalogue")
    return Traits(name, **kw)


def _value_problems(spec: VarSpec, name: str, value: Any, where: str) -> list[str]:
    """Range, boolean and enum problems of one value for a variable that exists on the target."""
    n = normal_value(spec.unit, value)
    problems: list[str] = []
    if spec.unit in NUMERIC_UNITS:
        if n is None:
            return [f"{name} takes a number on {where} (got {value!r})"]
        if spec.min is not None and n < spec.min:
            problems.append(f"{name} = {value} is below the minimum {show_value(spec.min, spec.unit)} on {where}")
        if spec.max is not None and n > spec.max:
            problems.append(f"{name} = {value} is above the maximum {show_value(spec.max, spec.unit)} on {where}")
    elif spec.unit == "bool":
        if n is None:
            problems.append(f"{name} takes ON or OFF on {where} (got {value!r})")
    elif spec.enum:
        allowed = {x.lower() for x in spec.enum}
        if spec.unit != "set" and str(value).strip().isdigit() and int(str(value).strip()) < len(spec.enum):
            return problems  # an enum takes its index too: query_cache_type = 0 is OFF (my_getopt's find_type)
        got = n if spec.unit == "set" else {n}
        bad = sorted(x for x in got if x not in allowed)
        if bad:
            problems.append(f"{name} = {value!r} on {where}: {', '.join(bad)} is not one of {', '.join(spec.enum)}")
    return problems


# ---------------------------------------------------------------- variables that hold secrets

# Variables whose value is a credential, as SHOW GLOBAL VARIABLES prints it in clear: MariaDB's
# report_password (a replica's password shown to its primary, in clear in SHOW VARIABLES) and
# wsrep_sst_auth (user:password for state transfers), and the names the
# suffix rule below would miss. Any other variable whose name ends in one of SECRET_SUFFIXES is
# a secret too, unless its value is a path (ssl_key, a key file), a number or a boolean word.
SECRET_VARIABLES: frozenset[str] = frozenset({
    "report_password", "wsrep_sst_auth", "wsrep_sst_donor_password", "master_password",
    "server_audit_file_password", "ldap_bind_password", "authentication_ldap_simple_bind_root_pwd",
    "authentication_ldap_sasl_bind_root_pwd",
})
SECRET_SUFFIXES = ("_password", "_secret", "_key", "_pwd", "_passwd", "_token")
SECRET_MASK = "***"
_NOT_SECRET_WORDS = frozenset({"", "on", "off", "yes", "no", "true", "false", "none", "null", "disabled", "enabled"})


def is_secret_variable(name: str, value: object) -> bool:
    """Whether a variable's value must never be shown: a listed secret, or a name with a secret suffix
    holding a value that is not a path, a number or a boolean word."""
    low = name.lower()
    text = "" if value is None else str(value).strip()
    if low in SECRET_VARIABLES:
        return text != ""
    if not low.endswith(SECRET_SUFFIXES):
        return False
    if text.lower() in _NOT_SECRET_WORDS or text.startswith(("/", "./", "../", "~")):
        return False
    if text.replace(".", "", 1).lstrip("-").isdigit() or text.lower().endswith((".pem", ".key", ".crt")):
        return False
    return True


def mask_secret_variables(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The variables with every secret value replaced by SECRET_MASK (the names stay: a rule may say
    that a secret is set, never what it is)."""
    return {k: (SECRET_MASK if v != SECRET_MASK and is_secret_variable(k, v) else v) for k, v in variables.items()}
