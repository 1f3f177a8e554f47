"""The comparison as data: what `advisor compare` found, as pydantic models (the JSON document
`advisor.compare/1`, whose schema `advisor schema compare` prints). Pure: no I/O."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.snapshot import Flavor

SCHEMA = "advisor.compare/1"

Verdict = Literal["confounding", "expected", "harmless"]
VERDICTS: tuple[Verdict, ...] = ("confounding", "expected", "harmless")

# What a comparison can be about (--about). A difference carries the aspects it belongs to; it is
# expected when one of them is what the comparison is about. `host` takes in the host's parts.
ABOUT: dict[str, tuple[str, ...]] = {
    "version": ("version",),
    "flavor": ("flavor", "version"),
    "config": ("config", "durability", "tls", "binlog", "memory", "tidb"),
    "durability": ("durability",),
    "tls": ("tls",),
    "binlog": ("binlog",),
    "memory": ("memory",),
    "tidb": ("tidb",),
    "host": ("host", "cpu", "ram", "storage", "network", "os"),
    "cpu": ("cpu",),
    "storage": ("storage",),
    "network": ("network",),
    "data": ("data",),
}

# The groups a difference is listed under, in the order the reports show them.
GROUPS: dict[str, str] = {
    "server": "Version and flavor",
    "durability": "Durability",
    "binlog": "Binary log",
    "tls": "TLS",
    "memory": "Buffer pool and data",
    "variables": "Variables",
    "defaults": "Differing defaults",
    "tidb": "TiDB and TiKV",
    "host": "Host",
    "storage": "Storage behind the datadir",
    "network": "Client network path",
    "calibration": "Calibration",
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Side(_Model):
    """One of the compared servers."""

    label: str = Field(description="A, B, C, … in the order given, or the --label names")
    source: str = Field(description="the snapshot file, dump or live target it came from")
    flavor: Flavor
    version: str
    version_string: str
    host: Optional[str] = Field(None, description="the server's host as the snapshot names it")
    collected_at: str


class Difference(_Model):
    """One fact that is not the same on every side, with its verdict."""

    rank: int = Field(description="1 = the difference most likely to change a benchmark result")
    id: str = Field(description="stable key: the fact path (var.NAME, host.cpu.logical_count, calibration.fsync_ms, …)")
    group: str = Field(description="one of the keys of GROUPS in advisor.compare.model")
    title: str
    aspects: list[str] = Field(description="what the difference is part of (version, config, storage, …)")
    kind: Literal["differs", "default_differs", "only_on_some", "measured"] = Field(
        description="differs: the values differ; default_differs: each side is at its own default and the defaults "
                    "differ; only_on_some: present on some sides only; measured: calibration figures beyond their spread")
    values: list[Optional[str]] = Field(description="per side, formatted; null when the side has no such fact")
    defaults: Optional[list[Optional[str]]] = Field(None, description="per side, the catalogue's default (variables)")
    raw: Optional[list[Optional[str]]] = Field(None, description="per side, the value as the server printed it "
                                                                 "(variables)")
    verdict: Verdict
    reason: str = Field(description="why it can change the result, or why it cannot")
    fix: str = Field(description="what makes the sides comparable; empty when nothing needs doing")
    weight: int = Field(description="how strongly this kind of difference moves benchmark results, 0-100")


class NotCompared(_Model):
    """A fact that could not be compared because some side lacks it."""

    fact: str
    title: str
    sides: list[str] = Field(description="labels of the sides that lack it")
    reason: str


class Figure(_Model):
    """A calibration figure every side measured, as numbers (for charts): the median of a
    distribution, or the single figure."""

    id: str
    title: str
    unit: str = Field(description="ms, MB/s or × (a ratio)")
    values: list[float] = Field(description="per side")


class Summary(_Model):
    confounding: int
    expected: int
    harmless: int
    not_compared: int


class Comparison(_Model):
    """`advisor compare --format json` (advisor.compare/1)."""

    schema_: Literal["advisor.compare/1"] = Field(SCHEMA, alias="schema")
    advisor_version: str
    about: list[str] = Field(description="--about: what the comparison is meant to measure (empty: nothing may differ)")
    sides: list[Side]
    verdict: Literal["fair", "confounded", "nothing_to_worry_about"] = Field(
        description="nothing_to_worry_about: no difference beyond harmless ones; fair: only expected and harmless "
                    "differences; confounded: at least one confounding difference")
    headline: str = Field(description="the verdict in one sentence")
    summary: Summary
    differences: list[Difference] = Field(description="ranked: confounding first, then expected, then harmless; "
                                                      "within each by weight")
    not_compared: list[NotCompared]
    figures: list[Figure] = Field(default_factory=list, description="calibration figures of every side, as numbers")
    notes: list[str] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", defer_build=True, populate_by_name=True)

    def by_verdict(self, verdict: str) -> list[Difference]:
        return [d for d in self.differences if d.verdict == verdict]

    def to_json(self) -> str:
        return self.model_dump_json(indent=2, by_alias=True) + "\n"
