"""`advisor import`: build a snapshot from SHOW VARIABLES / SHOW STATUS dumps."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from advisor.commands.options import HostFacts, OutputFile, write_output

DUMPS = "Dumps"


def import_(
    variables: Annotated[str, typer.Option("--variables", help="SHOW GLOBAL VARIABLES dump (tab, table, \\G, JSON or CSV; detected), or a pt-mysql-summary / pt-stalk / MySQLTuner --dumpdir directory.", rich_help_panel=DUMPS)],
    status: Annotated[Optional[str], typer.Option("--status", help="SHOW GLOBAL STATUS dump, in any of the same formats (counters, rates and Uptime).", rich_help_panel=DUMPS)] = None,
    flavor: Annotated[Optional[str], typer.Option("--flavor", help="mysql, percona, mariadb or tidb, when the dump has no version_comment or says it wrongly.", rich_help_panel=DUMPS)] = None,
    version: Annotated[Optional[str], typer.Option("--version", help="Server version (e.g. 8.0.36), when the dump has no `version` variable.", rich_help_panel=DUMPS)] = None,
    input_format: Annotated[Optional[str], typer.Option("--input-format", help="tab, table, vertical, json or csv (default: detected).", rich_help_panel=DUMPS)] = None,
    host_facts: HostFacts = None,
    output: OutputFile = None,
) -> None:
    """Build a snapshot (JSON) from a variables dump and a status dump, for `advisor audit --snapshot FILE`."""
    from advisor.dumps import import_snapshot

    snap = import_snapshot(variables, status, flavor=flavor, version=version, input_format=input_format,
                           host_facts=host_facts)
    write_output(snap.to_json(), output, private=True)
    if output and output != "-":
        sys.stderr.write(summary(snap, output) + "\n")


def summary(snap, output: str) -> str:
    """One line for the terminal: what was imported and where it went."""
    from advisor.units import format_number, whole

    t = snap.target
    info = snap.imported
    counts = ", ".join(f"{format_number(s.rows)} {s.kind} from {s.path} ({s.format})" for s in info.sources)
    up = snap.server.status.get("Uptime")
    uptime = f", up {_duration(int(up))}" if up and whole(up) is not None else ", no Uptime (no status dump)"
    return f"advisor: imported {counts}; {_flavor(t.flavor)} {t.version}{uptime}; wrote {output}"


def _flavor(f: str) -> str:
    return {"mysql": "MySQL", "percona": "Percona Server", "mariadb": "MariaDB", "tidb": "TiDB"}.get(f, f)


def _duration(s: int) -> str:
    d, rem = divmod(s, 86400)
    h, rem = divmod(rem, 3600)
    m, sec = divmod(rem, 60)
    if d:
        return f"{d} d {h} h"
    if h:
        return f"{h} h {m} min"
    if m:
        return f"{m} min {sec} s"
    return f"{sec} s"

