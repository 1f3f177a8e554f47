"""`advisor schema NAME`: print the JSON Schema of one of the advisor's JSON documents."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from advisor.commands.options import OutputFile, write_output


class SchemaName(str, Enum):
    report = "report"
    snapshot = "snapshot"
    calibration = "calibration"
    host_facts = "host-facts"
    compare = "compare"
    fleet = "fleet"
    fleet_host = "fleet-host"
    fleet_rollup = "fleet-rollup"


def schema(
    name: Annotated[SchemaName, typer.Argument(help="report (audit --format json), snapshot (collect), calibration "
                                                    "(calibrate --format json), host-facts (collect --host-facts-only), compare (compare --format json), "
                                                    "fleet (fleet --format json), fleet-host or fleet-rollup (the lines of fleet --format jsonl).")],
    output: OutputFile = None,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a JSON document the advisor writes; docs/schemas/ holds the same files."""
    from advisor.schemas import render

    write_output(render(name.value), output)
