"""The rule schema: strict, closed, data only.

A rule file is TOML validated by these pydantic models (`extra="forbid"`: an unknown key is a
load error naming the file and the field). Conditions are trees of `all` / `any` / `not` over
leaves `{fact, op, value | values | ref}`; operators come from a closed set (advisor.rules.ops).
Nothing in a rule file can reach Python: computed values go through named formulas.
"""


import re
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from advisor import severity as policy
# the pydantic-free half, re-exported: the closed sets, conditions and the loaded Rule
from advisor.rules.conditions import (CATEGORIES, ID_RE, ITEM_STATUSES, PHASES, PURPOSES, SEVERITIES,  # noqa: F401
                                      SEVERITY_RANK, STATUSES, AllOf, AnyOf, Category, Condition, ConditionError,
                                      ItemStatus, Leaf, NotOf, Phase, Purpose, Rule, Severity, Status,
                                      basis_fits_severity, parse_condition)
from advisor.versions import FLAVORS, VersionRange

# ---------------------------------------------------------------- rule file models

class StrictModel(BaseModel):
    """Base of the rule-file models: unknown keys are errors, values are frozen."""
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class AppliesTo(StrictModel):
    purpose: list[Purpose] = Field(default_factory=lambda: ["production", "benchmark"])
    flavors: dict[Literal["mysql", "percona", "mariadb", "tidb"], str] = Field(
        default_factory=lambda: {f: "*" for f in FLAVORS},
        description="flavor -> version range ('*', '>=8.0.12,<8.0.30'); flavors not listed do not apply")
    when: Optional[dict[str, Any]] = Field(None, description="a condition; false -> not_applicable")

    @field_validator("flavors")
    @classmethod
    def _ranges(cls, v: dict[str, str]) -> dict[str, str]:
        for fl, rng in v.items():
            try:
                VersionRange(rng)
            except ValueError as e:
                raise ValueError(f"{fl}: {e}") from None
        return v


class Override(StrictModel):
    """Changes severity and/or text of a fired rule when its condition holds. Every override that
    holds applies, in file order, so a later override wins for the fields it sets."""

    when: dict[str, Any]
    severity: Optional[Severity] = None
    message: Optional[str] = None
    fix: Optional[str] = None


class Recommend(StrictModel):
    """A recommended setting: a literal value for a variable, or a named formula that returns
    {variable: value} (so the variable's name can follow the target's version)."""

    variable: Optional[str] = None
    value: Optional[Union[str, int, bool]] = None
    formula: Optional[str] = None
    args: dict[str, Union[str, int, float, bool]] = Field(default_factory=dict)
    when: Optional[dict[str, Any]] = None
    experiment: bool = Field(False, description="a setting to try and compare, not a fix (a thread pool): the finding "
                                                "recommends it, and a generated my.cnf lists it as not changed")


class Example(StrictModel):
    name: str
    expect: Status
    purpose: Purpose = "production"
    target: str = Field("mysql 8.0.36", description="'<flavor> <version>'")
    facts: dict[str, Any] = Field(default_factory=dict)
    severity: Optional[Severity] = None
    recommendation: Optional[dict[str, str]] = None
    message_contains: list[str] = Field(default_factory=list)
    fix_contains: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", v):
            raise ValueError("example names are lower-case words joined by - . _")
        return v

    @field_validator("target")
    @classmethod
    def _target(cls, v: str) -> str:
        parts = v.split()
        if len(parts) != 2 or parts[0] not in FLAVORS:
            raise ValueError(f"target is '<flavor> <version>' with flavor one of {', '.join(FLAVORS)} (got {v!r})")
        return v


class RuleFile(StrictModel):
    id: str
    title: str
    category: Category
    severity: Severity
    severity_basis: Optional[policy.Basis] = Field(
        None, description="why the rule has its severity (docs/severity.md); one of its level's bases")
    aliases: list[str] = Field(default_factory=list)
    variables: list[str] = Field(default_factory=list, description="server variables the finding is about")
    supersedes: list[str] = Field(default_factory=list, description="the risky-values entries (advisor/knowledge/"
                                  "risky.toml) this rule judges in their place: `<variable>` (all its entries) or "
                                  "`<variable>.<entry>`; when the rule fired they report not_applicable, 'already "
                                  "reported by'. `advisor rules lint` refuses a rule that names a variable with "
                                  "risky entries without superseding them (a second opinion)")
    evidence: list[str] = Field(default_factory=list, description="extra fact paths shown as evidence")
    rationale: str
    message: str
    fix: str = ""
    references: list[str] = Field(min_length=1)
    applies_to: AppliesTo = Field(default_factory=AppliesTo)
    when: dict[str, Any]
    overrides: list[Override] = Field(default_factory=list)
    recommend: list[Recommend] = Field(default_factory=list)
    examples: list[Example] = Field(min_length=2)

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ID_RE.match(v):
            raise ValueError("ids are lower-case words joined by '-', naming the problem (e.g. 'sort-buffer-oversized')")
        return v

    @field_validator("references")
    @classmethod
    def _refs(cls, v: list[str]) -> list[str]:
        for r in v:
            if not r.startswith(("https://", "http://")):
                raise ValueError(f"references are URLs (got {r!r})")
        return v

    _basis = field_validator("severity_basis")(basis_fits_severity)
