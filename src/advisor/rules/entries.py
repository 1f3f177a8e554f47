"""The kinds of catalogue entries: their TOML schemas, the loaded entries, and KINDS.

    kind    file                         logic                                    page
    rule    rules/<area>/<id>.toml       conditions as data (+ derived facts, formulas)   docs/rules/<id>.md
    sizer   rules/sizing/<name>.toml     one function in advisor.rules.sizers              docs/sizers/<id>.md
    check   rules/checklist/<id>.toml    one function in advisor.rules.checks              docs/checks/<id>.md

Every entry has an id (unique across kinds), a title, a rationale, references, and examples that must
fire and stay quiet, run by one parametrised test and by `advisor rules lint`; `advisor explain ID`
prints its page. A TOML file says its kind (`kind = "sizer"`; a file without `kind` is a rule).

Kinds are data (KINDS): a new kind (the watch verdicts of `advisor watch`, evaluated over a time
series instead of a snapshot) adds its schema here, its example runner to advisor.rules.examples_run
and its page to advisor.render.pages; the loader, the registry meta-tests, `explain` and the page
index take it from KINDS. The Catalogue that holds the loaded entries, and the RuleGenerator hook for
rule families generated from data, are in advisor.rules.catalogue (light, so an audit does not import
these schemas).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from advisor.rules.schema import Phase, Purpose, Rule, Status
from advisor.versions import FLAVORS

SIZER_ID_RE = re.compile(r"^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$")
CHECK_ID_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")
Workload = Literal["oltp", "bulk-load", "benchmark"]
CheckExpect = Literal["pass", "fail", "unknown", "manual", "note", "omitted"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


def _target(v: str) -> str:
    parts = v.split()
    if len(parts) != 2 or parts[0] not in FLAVORS:
        raise ValueError(f"target is '<flavor> <version>' with flavor one of {', '.join(FLAVORS)} (got {v!r})")
    return v


def _urls(v: list[str]) -> list[str]:
    for r in v:
        if not r.startswith(("https://", "http://")):
            raise ValueError(f"references are URLs (got {r!r})")
    return v


def _name(v: str) -> str:
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", v):
        raise ValueError("example names are lower-case words joined by - . _")
    return v


# ---------------------------------------------------------------- sizers

class SizerExample(_Strict):
    name: str
    expect: Status
    purpose: Purpose = "production"
    target: str = Field("mysql 8.0.36", description="'<flavor> <version>'")
    workload: Optional[Workload] = Field(None, description="default: benchmark for purpose benchmark, else oltp")
    allow_unsafe_durability: bool = False
    threads: Optional[int] = Field(None, description="the benchmark's client threads (mycnf --sysbench)")
    facts: dict[str, Any] = Field(default_factory=dict)
    proposals: Optional[dict[str, str]] = Field(None, description="the exact lines {variable: value} when fired")
    reason_contains: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _check_name(cls, v: str) -> str:
        return _name(v)

    @field_validator("target")
    @classmethod
    def _check_target(cls, v: str) -> str:
        return _target(v)


class SizerFile(_Strict):
    kind: Literal["sizer"]
    id: str
    title: str
    variables: list[str] = Field(min_length=1, description="the variables it writes")
    rationale: str
    references: list[str] = Field(min_length=1, description="the first one on the target's documentation site "
                                                            "is each line's Source")
    examples: list[SizerExample] = Field(min_length=2)

    @field_validator("references")
    @classmethod
    def _check_references(cls, v: list[str]) -> list[str]:
        return _urls(v)

    @field_validator("id")
    @classmethod
    def _check_id(cls, v: str) -> str:
        if not SIZER_ID_RE.match(v):
            raise ValueError("sizer ids are <area>.<words-joined-by-dashes> (e.g. 'sizing.buffer-pool')")
        return v


# ---------------------------------------------------------------- checklist checks

class CheckExample(_Strict):
    name: str
    expect: CheckExpect
    target: str = Field("mariadb 10.11.6", description="'<flavor> <version>'")
    sysbench: Optional[str] = Field(None, description="the sysbench command line; PORT stands for the target's port")
    config: Optional[str] = Field(None, description="the content of the command's --config-file")
    local: Optional[dict[str, Optional[str]]] = Field(None, description="what sysbench on this machine is "
                                                                        "(advisor.sysbench.LocalSysbench fields)")
    facts: dict[str, Any] = Field(default_factory=dict)
    evidence_contains: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _check_name(cls, v: str) -> str:
        return _name(v)

    @field_validator("target")
    @classmethod
    def _check_target(cls, v: str) -> str:
        return _target(v)


class CheckFile(_Strict):
    kind: Literal["check"]
    id: str
    title: str
    phase: Phase
    rationale: str
    reminder: bool = Field(False, description="a standing reminder of what no snapshot can decide: always "
                                              "`manual`, so its examples show the commands it gives, not a quiet case")
    references: list[str] = Field(min_length=1)
    examples: list[CheckExample] = Field(min_length=2)

    @field_validator("references")
    @classmethod
    def _check_references(cls, v: list[str]) -> list[str]:
        return _urls(v)

    @field_validator("id")
    @classmethod
    def _check_id(cls, v: str) -> str:
        if not CHECK_ID_RE.match(v):
            raise ValueError("check ids are lower-case words joined by '-' (e.g. 'sysbench-tls')")
        return v


# ---------------------------------------------------------------- loaded entries

@dataclass(frozen=True)
class SizerEntry:
    spec: SizerFile
    path: str
    kind: str = "sizer"

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def references(self) -> tuple[str, ...]:
        return tuple(self.spec.references)

    @property
    def aliases(self) -> list[str]:
        return []


@dataclass(frozen=True)
class CheckEntry:
    spec: CheckFile
    path: str
    kind: str = "check"

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def references(self) -> tuple[str, ...]:
        return tuple(self.spec.references)

    @property
    def aliases(self) -> list[str]:
        return []


Entry = Union[Rule, SizerEntry, CheckEntry]


@dataclass(frozen=True)
class EntryKind:
    name: str           # the `kind` a file states ("rule" when it states none)
    plural: str         # docs/<plural>/ and the heading of its index page
    heading: str
    schema: Optional[type[BaseModel]]  # the TOML schema (rules have their own loader: advisor.rules.loader)


KINDS: dict[str, EntryKind] = {
    "rule": EntryKind("rule", "rules", "Rules", None),
    "sizer": EntryKind("sizer", "sizers", "Sizers (my.cnf lines)", SizerFile),
    "check": EntryKind("check", "checks", "Checklist checks", CheckFile),
}


def kind_of(entry: Any) -> str:
    return getattr(entry, "kind", "rule") if not isinstance(entry, Rule) else "rule"
