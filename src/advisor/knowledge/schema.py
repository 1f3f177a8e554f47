"""The schema of the variable catalogue (variables.toml). Closed: an unknown key is an error.

Validation also checks what a reader would otherwise trust blindly: version ranges parse, a
named default formula exists, a literal default fits the variable's limits and enum values,
and `deprecated` / `removed` versions agree with the version entries.
"""

from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from advisor.versions import FLAVORS, Version, VersionRange

FlavorName = Literal["mysql", "percona", "mariadb", "tidb"]
Unit = Literal["bytes", "count", "bool", "enum", "seconds", "string", "float", "set"]
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


class VariableFile(StrictModel):
    unit: Unit
    scope: Scope
    dynamic: bool
    min: Optional[float] = None
    max: Optional[float] = None
    enum: Optional[list[str]] = None
    covered: list[FlavorName] = Field(default_factory=lambda: list(FLAVORS))
    deprecated: dict[FlavorName, str] = Field(default_factory=dict)
    removed: dict[FlavorName, str] = Field(default_factory=dict)
    replaced_by: list[str] = Field(default_factory=list)
    note: str = ""
    sources: list[str] = Field(min_length=1)
    versions: list[VersionEntry] = Field(min_length=1)

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
                if kind == "deprecated" and not here:
                    raise ValueError(f"deprecated.{fl} = {ver} but no version entry covers {fl} {ver}")
        return self
