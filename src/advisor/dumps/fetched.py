"""A host's directory as the Ansible role (ansible/roles/advisor_collect) fetches it to the controller:

  variables.tsv   SHOW GLOBAL VARIABLES, the mysql client's -NB output (tab format)
  status.tsv      SHOW GLOBAL STATUS, the same
  data-size.tsv   advisor.collect.mysql.Q_DATA_SIZE: engine, tables, data bytes, index bytes
  host-raw.json   the host-fact gatherer's output (advisor.collect.host_gather, format advisor.host-raw/1)
  snapshot.json   instead of the dumps, when the advisor ran on the host (`advisor collect`)
  meta.json       inventory_hostname, groups, address (read by advisor.fleet)
  error.json      why the playbook could not collect the host (instead of the rest)

`load_fetched` turns it into the snapshot `advisor audit --snapshot DIR` and `advisor fleet --snapshots`
judge: the dumps imported as `advisor import` does, with the host facts and the data size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from advisor.errors import InvalidInputError, SnapshotError

VARIABLES_FILES = ("variables.tsv", "variables.txt")
STATUS_FILES = ("status.tsv", "status.txt")
HOST_RAW = "host-raw.json"
DATA_SIZE = "data-size.tsv"
META = "meta.json"
ERROR = "error.json"
SNAPSHOT = "snapshot.json"
AGAIN = "run the playbook again for this host (ansible/collect.yml)."


def is_fetched_dir(path: str) -> bool:
    p = Path(path)
    return p.is_dir() and any((p / f).is_file() for f in (META, ERROR, SNAPSHOT, HOST_RAW, DATA_SIZE))


def recorded_error(path: str) -> str | None:
    """What error.json says (the playbook could not collect the host), or None."""
    p = Path(path) / ERROR
    if not p.is_file():
        return None
    text = read_text(p)
    try:
        doc = json.loads(text)
        return str(doc.get("error") or doc) if isinstance(doc, dict) else str(doc)
    except ValueError:
        return text.strip()[:500]


def load_fetched(path: str):
    """The snapshot of a fetched host directory (see the module docstring)."""
    from advisor.dumps import import_snapshot
    from advisor.snapshot import load_snapshot

    p = Path(path)
    err = recorded_error(path)
    if err is not None:
        raise SnapshotError(f"{p} holds no results: the playbook could not collect the host ({err}).", AGAIN)
    if (p / SNAPSHOT).is_file():
        return load_snapshot(read_text(p / SNAPSHOT), str(p / SNAPSHOT))
    variables = next((p / f for f in VARIABLES_FILES if (p / f).is_file()), None)
    if variables is None:
        raise SnapshotError(f"{p} holds neither {SNAPSHOT} nor a variables dump ({' or '.join(VARIABLES_FILES)}).", AGAIN)
    status = next((str(p / f) for f in STATUS_FILES if (p / f).is_file()), None)
    host = str(p / HOST_RAW) if (p / HOST_RAW).is_file() else None
    snap = import_snapshot(str(variables), status, host_facts=host)
    if (p / DATA_SIZE).is_file():
        snap.server.data_size = data_size(read_text(p / DATA_SIZE), str(p / DATA_SIZE))
        snap.server.missing = [m for m in snap.server.missing if m.fact != "server.data_size"]
    return snap


def read_text(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInputError(f"cannot read {p}: {e}.", AGAIN) from None


def data_size(text: str, where: str) -> dict[str, Any]:
    """data-size.tsv (engine, tables, data bytes, index bytes per line) as a live collection stores it."""
    from advisor.snapshot import EngineSize

    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            engine, count, data, index = line.split("\t")
            out[engine] = EngineSize.model_construct(tables=_num(count), data_bytes=_num(data), index_bytes=_num(index))
        except ValueError:
            raise InvalidInputError(f"{where}:{n}: {line[:80]!r} is not engine, tables, data bytes and index bytes "
                                    "separated by tabs.", AGAIN) from None
    return out


def _num(cell: str) -> int:
    return 0 if cell in ("", "NULL") else int(cell.split(".")[0])  # SUM() prints a DECIMAL
