"""The shape of rules/groups.toml, validated when the file is loaded (advisor.rules.loader); the report
works on the plain advisor.rules.groups.Group records the loader makes from it, so that a cache hit
imports no pydantic."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from advisor.rules.groups import Group


class GroupSpec(BaseModel):
    """One `[[group]]` of rules/groups.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    title: str = Field(min_length=1)
    cause: str = Field(min_length=1, description="the root cause the members share, one sentence")
    members: list[str] = Field(min_length=2, description="rule ids, in the order that breaks severity ties")
    recommend: Literal["lead", "merge"] = Field(
        "lead", description="lead: the lead's recommendation only; merge: the lead's, then the other members' "
                            "settings for variables the lead does not set")

    @field_validator("members")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        dup = sorted({m for m in v if v.count(m) > 1})
        if dup:
            raise ValueError(f"listed twice: {', '.join(dup)}")
        return v


class GroupsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    group: list[GroupSpec] = Field(default_factory=list)

    @field_validator("group")
    @classmethod
    def _one_group_per_rule(cls, v: list[GroupSpec]) -> list[GroupSpec]:
        seen: dict[str, str] = {}
        for g in v:
            for m in g.members:
                if m in seen:
                    raise ValueError(f"rule {m} is in group {seen[m]} and in group {g.id}; a rule has one cause")
                seen[m] = g.id
        ids = [g.id for g in v]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"group id used twice: {', '.join(dup)}")
        return v


def plain(spec: GroupSpec) -> Group:
    return Group(id=spec.id, title=spec.title, cause=spec.cause, members=tuple(spec.members), recommend=spec.recommend)
