"""The schema of the variable catalogue: the hand-curated variables.toml and the generated
generated-<flavor>.json files (tools/catalogue/build.py). Closed: an unknown key is an error.

Validation also checks what a reader would otherwise trust blindly: version ranges parse, a
named default formula exists, `deprecated` / `removed` versions agree with the version entries,
and every risky-values entry states its values in the variable's own unit.

Units (`unit`): bytes, count (a plain number: threads, pages, rows, IDs, percentages), seconds,
milliseconds, microseconds, float, bool, enum, set, string. A renderer formats a value by its
unit: bytes as KiB/MiB/GiB, the three time units as durations, count and float as numbers.

Coverage: `covered` names the flavors whose data was researched; `coverage` (optional) narrows
that to a version range per flavor, or windows joined with ' || ' (generated data comes from a few
releases: MySQL 5.6.29, 5.7.22, 5.7.41, 8.0.27, 8.0.32, 8.0.41 and the 8.4 manual; MariaDB 10.4.12 and
10.11.19; docs/catalogue.md). Outside what is covered the catalogue answers "not known".

Risky values (`risky`): the values or ranges a DBA would call a problem, for which purposes, how
bad, why in one sentence, the fix and a source; see RiskyValue.
"""

from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from advisor.severity import Basis
from advisor.versions import FLAVORS, Version, VersionRange

FlavorName = Literal["mysql", "percona", "mariadb", "tidb"]
Unit = Literal["bytes", "count", "bool", "enum", "seconds", "milliseconds", "microseconds", "string", "float", "set"]
NUMERIC_UNITS = ("bytes", "count", "seconds", "milliseconds", "microseconds", "float")
Severity = Literal["critical", "warning", "info"]  # the rule catalogue's severities
Purpose = Literal["production", "benchmark"]
RiskyOp = Literal["eq", "ne", "lt", "le", "gt", "ge", "in", "not_in", "between", "has", "lacks"]
Scope = Literal["global", "session", "both"]
Scalar = Union[bool, int, float, str]


class StrictModel(BaseModel):
    """Base of the catalogue-file models: unknown keys are errors, values are frozen."""
    model_config = ConfigDict(extra="forbid", frozen=True)


class VersionEntry(StrictModel):
    """The variable exists on these flavors in this version range, with this default."""

    flavors: list[FlavorName] = Field(min_length=1)
    range: str = "*"
    default: Optional[Scalar] = None
    default_formula: Optional[str] = Field(None, description="a name in advisor.knowledge.defaults.DEFAULT_FORMULAS")
    min: Optional[float] = None
    max: Optional[float] = None
    enum: Optional[list[str]] = None
    scope: Optional[Scope] = None
    dynamic: Optional[bool] = None
    deprecated: bool = False
    noop: bool = Field(False, description="accepted for compatibility but has no effect (TiDB)")
    note: str = ""

    @field_validator("range")
    @classmethod
    def _range(cls, v: str) -> str:
        VersionRange(v)  # raises ValueError with a readable message
        return v

    @model_validator(mode="after")
    def _one_default(self) -> "VersionEntry":
        if self.default is not None and self.default_formula is not None:
            raise ValueError("give default or default_formula, not both")
        if self.default_formula is not None:
            from advisor.knowledge.defaults import DEFAULT_FORMULAS

            if self.default_formula not in DEFAULT_FORMULAS:
                raise ValueError(f"no default formula named {self.default_formula!r} "
                                 f"(known: {', '.join(sorted(DEFAULT_FORMULAS))})")
        return self


class SourcedEntry(StrictModel):
    """What a risky-values entry and a symptoms entry share: https sources, flavor ranges that parse, and a
    one-sentence `why` (the subclasses declare the fields; the checks live here once)."""

    @field_validator("sources", check_fields=False)
    @classmethod
    def _urls(cls, v: list[str]) -> list[str]:
        for s in v:
            if not s.startswith("https://"):
                raise ValueError(f"sources are https URLs (got {s!r})")
        return v

    @field_validator("flavors", check_fields=False)
    @classmethod
    def _ranges(cls, v: dict[str, str]) -> dict[str, str]:
        for rng in v.values():
            VersionRange(rng)
        return v

    @field_validator("why", check_fields=False)
    @classmethod
    def _one_sentence(cls, v: str) -> str:
        body = v.strip().rstrip(".")
        if ". " in body or not v.strip().endswith("."):
            raise ValueError("why is one sentence ending with a full stop")
        return v


class RiskyValue(SourcedEntry):
    """One value or range of a variable that is a problem for the given purposes.

    `op` and `value`/`values` say which settings are risky, in the variable's unit ("32M" for
    bytes, "OFF" for a boolean, an enum member for an enum): `ge 32M`, `eq 0`, `in [0, 2]`,
    `between [1, 1023]`, `ne OFF`; for a set (sql_mode, tls_version) `has [A, B]` (any member present)
    and `lacks [A, B]` (none present). `flavors` limits the entry to flavors and version ranges
    (absent: every flavor and version where the variable exists). The entry is data: the generic
    rule family evaluates it (RiskyValue.matches gives the comparison, pure); its page and its
    examples (a risky value fires, the default stays quiet) come from the entry itself."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{1,40}$", description="unique within the variable, e.g. 'oversized'")
    op: RiskyOp
    value: Optional[Scalar] = None
    values: Optional[list[Scalar]] = None
    purposes: list[Purpose] = Field(min_length=1)
    severity: Severity
    basis: Optional[Basis] = Field(None, description="severity_basis of the generated rule (advisor.severity); "
                                 "absent: DEFAULT_BASIS by severity and category (a critical entry names it)")
    why: str = Field(min_length=20, description="one sentence: what goes wrong at these values")
    fix: str = Field(min_length=10, description="what to set instead, in words")
    recommend: Optional[Scalar] = Field(None, description="the value the fix sets, when there is one")
    example: Optional[Scalar] = Field(None, description="a value in the risky set for the firing example, where the "
                                      "op cannot give one (ne / not_in on a string)")
    sources: list[str] = Field(min_length=1)
    flavors: dict[FlavorName, str] = Field(default_factory=dict)
    only_if: dict[str, Scalar] = Field(default_factory=dict, description="other variables and the values they must "
                                       "have for the entry to apply (log_bin = 'ON'): otherwise not_applicable")
    category: Optional[str] = Field(None, description="the generated rule's category (advisor.rules.schema.CATEGORIES); "
                                    "absent: the variable's category in traits.toml")
    aliases: list[str] = Field(default_factory=list, description="ids of the hand-written rules this entry replaced: "
                               "`advisor explain`, --ignore and suppressions still find it by them")
    default_is_risky: bool = Field(False, description="the compiled-in default is itself in the risky set on some "
                                   "flavor/version the entry applies to (a test keeps this honest)")

    @model_validator(mode="after")
    def _operands(self) -> "RiskyValue":
        if self.op in ("in", "not_in", "between", "has", "lacks"):
            if self.values is None or self.value is not None:
                raise ValueError(f"op {self.op} takes `values`, not `value`")
            if self.op == "between" and len(self.values) != 2:
                raise ValueError("op between takes values = [low, high]")
            if not self.values:
                raise ValueError(f"op {self.op} needs at least one value")
        elif self.value is None or self.values is not None:
            raise ValueError(f"op {self.op} takes one `value`")
        return self

    def operands(self) -> list[Scalar]:
        return list(self.values) if self.values is not None else [self.value]  # type: ignore[list-item]

    def check_unit(self, unit: str, enum: Optional[list[str]]) -> None:
        """Raise ValueError unless every operand is a value of this unit and the op suits it."""
        from advisor.knowledge.values import normalise

        if self.op in ("lt", "le", "gt", "ge", "between") and unit not in NUMERIC_UNITS:
            raise ValueError(f"op {self.op} compares numbers; the variable's unit is {unit}")
        if self.op in ("has", "lacks") and unit != "set":
            raise ValueError(f"op {self.op} tests the members of a set; the variable's unit is {unit}")
        for x in self.operands():
            n = normalise(x, unit)
            if n is None:
                raise ValueError(f"{x!r} is not a {unit} value")
            if unit == "enum" and enum and str(x).lower() not in {e.lower() for e in enum}:
                raise ValueError(f"{x!r} is not one of {', '.join(enum)}")

    def matches(self, value: object, unit: str) -> Optional[bool]:
        """Whether a setting (as SHOW VARIABLES prints it) is in this risky set; None when it
        does not parse in the unit."""
        from advisor.knowledge.values import compare

        return compare(self.op, value, self.operands(), unit)


class VariableFile(StrictModel):
    unit: Unit
    scope: Scope
    dynamic: bool
    min: Optional[float] = None
    max: Optional[float] = None
    enum: Optional[list[str]] = None
    covered: list[FlavorName] = Field(default_factory=lambda: list(FLAVORS))
    coverage: dict[FlavorName, str] = Field(default_factory=dict, description="version range per covered flavor that the data "
                                            "is known for; ' || ' joins windows (ranges between them are not known)")
    deprecated: dict[FlavorName, str] = Field(default_factory=dict)
    removed: dict[FlavorName, str] = Field(default_factory=dict)
    replaced_by: list[str] = Field(default_factory=list)
    renamed: bool = Field(False, description="replaced_by is this same variable under a new name: a server that "
                          "has both prints both in SHOW VARIABLES, with one value, whichever name was set")
    note: str = ""
    sources: list[str] = Field(min_length=1)
    versions: list[VersionEntry] = Field(min_length=1)
    risky: list[RiskyValue] = Field(default_factory=list)

    @field_validator("coverage")
    @classmethod
    def _coverage(cls, v: dict[str, str]) -> dict[str, str]:
        for rng in v.values():
            for part in rng.split("||"):
                VersionRange(part.strip())
        return v

    @field_validator("sources")
    @classmethod
    def _urls(cls, v: list[str]) -> list[str]:
        for s in v:
            if not s.startswith("https://"):
                raise ValueError(f"sources are https URLs (got {s!r})")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "VariableFile":
        for e in self.versions:
            stray = set(e.flavors) - set(self.covered)
            if stray:
                raise ValueError(f"version entry {e.range!r} names {sorted(stray)} which `covered` leaves out")
        for kind, table in (("deprecated", self.deprecated), ("removed", self.removed)):
            for fl, ver in table.items():
                try:
                    v = Version.parse(ver)
                except ValueError:
                    raise ValueError(f"{kind}.{fl}: not a version: {ver!r}") from None
                here = [e for e in self.versions if fl in e.flavors and VersionRange(e.range).contains(v)]
                if kind == "removed" and here:
                    raise ValueError(f"removed.{fl} = {ver} but a version entry ({here[0].range}) says it exists there")
                if kind == "removed" and not any(fl in e.flavors for e in self.versions):
                    raise ValueError(f"removed.{fl} = {ver} but no version entry says it ever existed on {fl}")
                window = self.coverage.get(fl)
                if kind == "deprecated" and not here and window and \
                        not any(VersionRange(w.strip()).contains(v) for w in window.split("||")):
                    continue  # deprecated before the window the data covers (e.g. data from 8.0.32 on, deprecated in 8.0.26)
                if kind == "deprecated" and not here:
                    raise ValueError(f"deprecated.{fl} = {ver} but no version entry covers {fl} {ver}")
                if kind == "deprecated" and not any(e.deprecated for e in here):
                    raise ValueError(f"deprecated.{fl} = {ver} but the version entry for {fl} {ver} "
                                     f"({here[0].range}) does not say deprecated = true")
        if self.renamed and len(self.replaced_by) != 1:
            raise ValueError("renamed = true needs exactly one replaced_by name (the new name)")
        stray = set(self.coverage) - set(self.covered)
        if stray:
            raise ValueError(f"coverage names {sorted(stray)} which `covered` leaves out")
        ids = [r.id for r in self.risky]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"risky ids repeat: {', '.join(dup)}")
        for i, r in enumerate(self.risky):
            enum = self.enum or next((e.enum for e in self.versions if e.enum), None)
            try:
                r.check_unit(self.unit, enum)
            except ValueError as e:
                raise ValueError(f"risky[{i}] ({r.id}): {e}") from None
            stray = set(r.flavors) - set(self.covered)
            if stray:
                raise ValueError(f"risky[{i}] ({r.id}) names {sorted(stray)} which `covered` leaves out")
        return self


Role = Literal["setting", "read_only", "identity", "version"]
MemoryKind = Literal["global", "per_connection"]


class VariableTraits(StrictModel):
    """What the advisor knows about a variable beyond the server's own facts (traits.toml): its category,
    its role (whether it may be a fix target), its weight in a comparison, how my.cnf writes it and where
    the memory model counts it. One record per variable, read through VariableCatalogue.traits()."""

    category: Optional[str] = Field(None, description="one of advisor.rules.schema.CATEGORIES (a test keeps it so)")
    role: Role = Field("setting", description="setting: a fix may set it; read_only: the build or the server "
                       "reports it; identity: it names the server or a path on it; version: the version text")
    never_write: str = Field("", description="why my.cnf never writes it although it is a setting (log_bin)")
    weight: Optional[int] = Field(None, ge=0, le=100, description="how much a difference weighs in a comparison")
    does: str = Field("", description="what a difference changes, for a comparison's reason")
    compare_group: Optional[str] = Field(None, description="the comparison's group (durability, binlog, memory, tls, "
                                         "tidb, variables)")
    aspects: list[str] = Field(default_factory=list, description="the comparison aspects a difference belongs to")
    align: str = Field("", description="how to align two servers when setting the variable is not how")
    block: Optional[int] = Field(None, gt=0, description="the server rounds a value down to a multiple of this")
    memory: Optional[MemoryKind] = Field(None, description="counted by the memory model once (global) or per connection")
    fallback: Optional[int] = Field(None, description="the memory model's stated assumption when no value is known")
    autosized: bool = Field(False, description="the server sizes it at start-up; a full my.cnf does not freeze it")
    larger_wins: bool = Field(False, description="of two proposals the larger wins (disk, descriptors, a little memory)")
    plan_full: bool = Field(False, description="a full my.cnf states it even at its default")
    durable: Optional[str] = Field(None, description="the durable value a full my.cnf guards")
    relaxed: Optional[str] = Field(None, description="the relaxed value a benchmark may run with")
    relaxed_loses: str = Field("", description="what the relaxed value can lose, in words")

    @model_validator(mode="after")
    def _fits(self) -> "VariableTraits":
        if (self.weight is None) != (not self.does):
            raise ValueError("weight and does come together (a comparison's weight and its reason)")
        if self.role != "setting" and (self.durable or self.plan_full or self.block):
            raise ValueError(f"a {self.role} variable is no fix target: no durable, plan_full or block")
        if bool(self.relaxed) != bool(self.relaxed_loses):
            raise ValueError("relaxed and relaxed_loses come together")
        return self


SymptomMeasure = Literal["ratio", "count", "rate", "limit"]
SymptomOp = Literal["gt", "ge", "lt", "le"]


class Symptom(SourcedEntry):
    """One status counter (or ratio) that shows a problem the variables only hint at (symptoms.toml).

    `measure` says what is compared with `value` by `op`:
      ratio  status.<counter> / status.<of>            (a share: 0.25 = a quarter; or "per event": 10)
      count  status.<counter>                           (events since start)
      rate   rate.<counter>, per second                 (over a sampled interval, else since start,
                                                         which needs the code's MIN_UPTIME_FOR_RATES)
      limit  status.<counter> / var.<of>                (a gauge's share of the variable that caps it)
    The sample it needs: `min_events` of status.<events> (absent: status.<of> for a ratio, status.<counter>
    for a rate or a limit) and `min_uptime` seconds; below either the outcome is
    unknown, never passed. The entry is data: the symptoms rule family (advisor.rules.symptoms) makes
    one rule of it, id = the entry's id, with examples derived from the thresholds."""

    title: str = Field(min_length=10, description="the problem, as a rule title")
    counter: str = Field(pattern=r"^[A-Z][A-Za-z0-9_]+$", description="a SHOW GLOBAL STATUS name")
    measure: SymptomMeasure
    of: Optional[str] = Field(None, description="ratio: the status counter divided by; limit: the variable")
    op: SymptomOp = "gt"
    value: float
    min_events: int = Field(0, ge=0)
    events: Optional[str] = Field(None, description="the status counter min_events counts (absent: `of` for a "
                                  "ratio, the counter itself for a rate or a limit; a count names it)")
    min_uptime: int = Field(0, ge=0, description="seconds of uptime the judgement needs")
    purposes: list[Purpose] = Field(default_factory=lambda: ["production", "benchmark"])
    severity: Severity
    basis: Basis
    category: str
    why: str = Field(min_length=20, description="one sentence: what the counter shows and why it matters")
    fix: dict[Literal["*", "mysql", "percona", "mariadb"], str] = Field(
        description="what to change, in words: '*' for every flavor, a flavor's own text where it differs")
    variables: list[str] = Field(default_factory=list, description="the server variables it points to")
    sources: list[str] = Field(min_length=1)
    flavors: dict[FlavorName, str] = Field(default_factory=lambda: {"mysql": "*", "percona": "*", "mariadb": "*"})
    only_if: dict[str, Scalar] = Field(default_factory=dict, description="variables that must have these values "
                                       "for the counter to mean anything (log_bin = 'ON'): otherwise not_applicable")
    live: Optional[str] = Field(None, description="the live test group that reproduces it on MariaDB "
                                "(tests/integration/test_symptoms_live.py)")
    not_live: Optional[str] = Field(None, description="why no live MariaDB 10.11 test reproduces it")
    recorded: Optional[str] = Field(None, description="a recorded set under tests/fixtures/flavors where the "
                                    "counter exists, audited in its stead")

    @model_validator(mode="after")
    def _shape(self) -> "Symptom":
        if self.measure in ("ratio", "limit") and not self.of:
            raise ValueError(f"measure {self.measure} needs `of`")
        if self.measure in ("count", "rate") and self.of:
            raise ValueError(f"measure {self.measure} takes no `of`")
        if self.measure == "count" and self.min_events and not self.events:
            raise ValueError("a count with min_events names the counter they are counted in (`events`)")
        if "*" not in self.fix:
            raise ValueError("fix needs a '*' text (flavors may add their own)")
        if (self.live is None) == (self.not_live is None):
            raise ValueError("give exactly one of `live` (a live test group) and `not_live` (why not)")
        if self.not_live is not None and self.recorded is None:
            raise ValueError("an entry without a live test names a `recorded` set instead")
        return self
