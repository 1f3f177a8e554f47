"""The JSON contracts as pydantic models, and their JSON Schemas (`advisor schema NAME`,
docs/schemas/NAME.schema.json). Each model describes a document exactly as the advisor writes it:
extra keys are forbidden, so a schema that drifts from the writer fails the tests that validate
real outputs (tests/unit/test_schemas.py).

  report       `advisor audit --format json`          advisor.report/1      (docs/report-format.md)
  snapshot     `advisor collect`                      snapshot schema_version 1 (advisor.snapshot)
  calibration  `advisor calibrate --format json`      advisor.calibration/1 (docs/calibration.md)
  host-facts   `advisor collect --host-facts-only`    advisor.host-facts/1  (docs/host-facts.md)
  compare      `advisor compare --format json`        advisor.compare/1     (docs/compare.md)
  fleet        `advisor fleet --format json`          advisor.fleet/1       (docs/fleet.md)
  fleet-host   each line but the last of `fleet --format jsonl`   advisor.fleet-host/1
  fleet-rollup the last line of `fleet --format jsonl`            advisor.fleet-rollup/1
"""

from __future__ import annotations

import json
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.compare.model import Comparison
from advisor import snapshot as _snapshot
from advisor.snapshot import Flavor, Transport

# the snapshot's classes are plain objects; their pydantic twins describe and validate the JSON
Calibration = _snapshot.pydantic_twin(_snapshot.Calibration)
HostFacts = _snapshot.pydantic_twin(_snapshot.HostFacts)
Missing = _snapshot.pydantic_twin(_snapshot.Missing)
Snapshot = _snapshot.pydantic_twin(_snapshot.Snapshot)

Severity = Literal["critical", "warning", "info"]
Status = Literal["fired", "passed", "not_applicable", "unknown"]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


# ---------------------------------------------------------------- report

class ReportTarget(_Doc):
    host: Optional[str] = Field(description="host name or address; the socket path for socket connections")
    port: Optional[int]
    flavor: Flavor
    version: str = Field(description="normalised x.y.z (TiDB's own version for TiDB)")
    version_string: str
    transport: Transport


class Summary(_Doc):
    fired: int
    passed: int
    not_applicable: int
    unknown: int
    critical: int
    warning: int
    info: int
    findings: int = Field(description="findings as the reports show them: one per cause group with a fired member, "
                                      "one per fired rule in no group (the length of `groups`)")


class ReportFinding(_Doc):
    rule: str
    severity: Severity
    category: str
    title: str
    message: str
    variables: list[str] = Field(description="server variables the finding is about, plus recommended ones")
    evidence: dict[str, Any] = Field(description="fact path -> value used to decide (raw server strings for var./status., "
                                                 "numbers for rates and derived facts)")
    recommendation: dict[str, str] = Field(description="variable -> value as written in my.cnf")
    references: list[str]
    fix: str
    notes: list[str]
    group: Optional[str] = Field(description="the id of the rule's cause group (rules/groups.toml, docs/groups.md); "
                                             "null for a rule in no group")


class ReportConsequence(_Doc):
    rule: str
    severity: Severity
    message: str


class ReportGroup(_Doc):
    id: Optional[str] = Field(description="the cause group's id; null for a fired rule in no group")
    title: str
    severity: Severity = Field(description="the lead's: the highest severity among the fired members")
    lead: str = Field(description="the rule whose finding leads: highest severity, then the group's declared order")
    rules: list[str] = Field(description="the fired members, lead first")
    recommendation: dict[str, str] = Field(description="one value per variable: the lead's (with the group's "
                                                       "recommend = merge, the other members' for the other variables)")
    consequences: list[ReportConsequence] = Field(description="the other fired members' findings, in the group's order")


class ReportOutcome(_Doc):
    rule: str
    status: Status
    reason: str
    group: Optional[str] = Field(description="the id of the rule's cause group; null for a rule in no group")


class Verdict(_Doc):
    verdict: str = Field(description="a code: near, lan, far, no_network, line_rate, measurable_cost, ...")
    why: str


class ReportCalibration(Calibration):
    """The `calibration` object of a report: the calibration section with its verdicts."""

    verdicts: dict[str, Verdict] = Field(default_factory=dict)


class Report(_Doc):
    """`advisor audit --format json` (advisor.report/1)."""

    schema_: Literal["advisor.report/1"] = Field(alias="schema")
    advisor_version: str
    target: ReportTarget
    purpose: Literal["production", "benchmark"]
    source: str = Field(description="live, snapshot PATH or the demo")
    collected_at: str = Field(description="ISO 8601 UTC")
    summary: Summary
    findings: list[ReportFinding] = Field(description="one per fired rule, most severe first")
    groups: list[ReportGroup] = Field(description="the findings as the reports show them, one per cause, most severe first")
    outcomes: list[ReportOutcome] = Field(description="every rule evaluated")
    missing: list[Missing]
    notes: list[str]
    calibration: Optional[ReportCalibration] = Field(description="null when calibration did not run")


# ---------------------------------------------------------------- calibration

class CalibrationTarget(_Doc):
    host: Optional[str]
    port: Optional[int]
    transport: Transport
    flavor: Flavor
    version: str


class CalibrationDocument(Calibration):
    """`advisor calibrate --format json` (advisor.calibration/1): the calibration section, its target and verdicts."""

    schema_: Literal["advisor.calibration/1"] = Field(alias="schema")
    target: CalibrationTarget
    collected_at: str
    verdicts: dict[str, Verdict] = Field(default_factory=dict)


# ---------------------------------------------------------------- host facts

class HostRaw(BaseModel):
    """What the gatherer read (advisor.collect.host_gather), parsed again on the reading side. The
    gatherer runs on the server and may be newer or older than this advisor, so keys it adds are allowed."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    format: Literal["advisor.host-raw/1"]
    root: str = "/"
    files: dict[str, str] = Field(description="path -> content as read")
    links: dict[str, str] = Field(default_factory=dict, description="symlink -> target as read")
    dirs: dict[str, list[str]] = Field(default_factory=dict, description="directory -> entries")
    errors: dict[str, str] = Field(default_factory=dict, description="path -> why it could not be read")
    paths: dict[str, Any] = Field(default_factory=dict, description="requested directories: realpath and device")
    mysqld: Optional[dict[str, Any]] = Field(None, description="the mysqld process found, or why none was")


class HostFactsDocument(_Doc):
    """`advisor collect --host-facts-only` (advisor.host-facts/1): raw files plus the facts parsed from them."""

    schema_: Literal["advisor.host-facts/1"] = Field(alias="schema")
    advisor_version: str
    collected_at: str
    host: HostFacts
    raw: HostRaw


# ---------------------------------------------------------------- fleet

class FleetHostFields(_Doc):
    target: str = Field(description="the target as given (a DSN without its password, `name (address)` from an inventory)")
    host: str = Field(description="the inventory host name (the target when there is no inventory)")
    groups: list[str] = Field(description="the host's inventory groups, without all and ungrouped")
    seconds: float
    timings: dict[str, float] = Field(description="collect, calibrate, audit: seconds")
    host_facts: Optional[Literal["local", "ssh", "file", "recorded"]] = Field(
        description="where the server host's facts came from; null when they were not read")
    error: Optional[str] = Field(description="why the host could not be audited (one paragraph); null when it was")
    exit_code: int = Field(description="the exit code `advisor audit` would have given for the error; 0 when audited")
    report: Optional[Report] = Field(description="the audit (advisor.report/1); null when the host was not audited")


class FleetHost(FleetHostFields):
    """One line of `advisor fleet --format jsonl` (advisor.fleet-host/1), written as the host finishes."""

    schema_: Literal["advisor.fleet-host/1"] = Field(alias="schema")


class RollupRule(_Doc):
    rule: str
    severity: Severity
    title: str
    hosts: list[str]
    count: int


class RollupHost(_Doc):
    host: str
    audited: bool
    groups: list[str]
    flavor: Optional[str] = None
    version: Optional[str] = None
    critical: int
    warning: int
    info: int


class RollupUnreachable(_Doc):
    host: str
    error: str
    exit_code: int


class DriftValue(_Doc):
    value: str
    hosts: list[str]


class DriftRow(_Doc):
    variable: str
    hosts: int = Field(description="hosts of the group that have the variable")
    values: list[DriftValue] = Field(description="most common first")


class RollupFields(_Doc):
    hosts_total: int
    hosts_audited: int
    hosts_unreachable: int
    rules: list[RollupRule] = Field(description="each rule that fired on some host; most severe, then most hosts, first")
    hosts: list[RollupHost]
    unreachable: list[RollupUnreachable]
    drift: dict[str, list[DriftRow]] = Field(description="group -> the variables whose values differ between its hosts")
    drift_ignored: list[str] = Field(description="variables that name the host itself, left out of drift")


class Rollup(RollupFields):
    """The last line of `advisor fleet --format jsonl` (advisor.fleet-rollup/1)."""

    schema_: Literal["advisor.fleet-rollup/1"] = Field(alias="schema")
    purpose: Literal["production", "benchmark"]
    jobs: int
    wall_seconds: float


class FleetDocument(_Doc):
    """`advisor fleet --format json` (advisor.fleet/1)."""

    schema_: Literal["advisor.fleet/1"] = Field(alias="schema")
    purpose: Literal["production", "benchmark"]
    jobs: int
    wall_seconds: float
    targets: list[FleetHostFields] = Field(description="one per target, in the order of the target file")
    rollup: RollupFields


# ---------------------------------------------------------------- schemas

MODELS: dict[str, type[BaseModel]] = {"report": Report, "snapshot": Snapshot, "calibration": CalibrationDocument,
                                      "host-facts": HostFactsDocument, "compare": Comparison, "fleet": FleetDocument,
                                      "fleet-host": FleetHost, "fleet-rollup": Rollup}
TITLES = {"report": "advisor.report/1", "snapshot": "advisor snapshot (schema_version 1)",
          "calibration": "advisor.calibration/1", "host-facts": "advisor.host-facts/1",
          "compare": "advisor.compare/1", "fleet": "advisor.fleet/1", "fleet-host": "advisor.fleet-host/1",
          "fleet-rollup": "advisor.fleet-rollup/1"}


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a document, as the advisor writes it."""
    from advisor import docs_url

    model = MODELS[name]
    body = model.model_json_schema(by_alias=True, mode="serialization")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": docs_url(f"schemas/{name}.schema.json"),
            "title": TITLES[name], **{k: v for k, v in body.items() if k != "title"}}


def render(name: str) -> str:
    return json.dumps(json_schema(name), indent=2, ensure_ascii=False) + "\n"
