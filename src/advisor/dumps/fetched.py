"""A host's directory as the Ansible role (ansible/roles/advisor_collect) fetches it to the controller:

  variables.tsv   SHOW GLOBAL VARIABLES, the mysql client's -NB output (tab format)
  status.tsv      SHOW GLOBAL STATUS, the same
  read-at.txt     when SHOW GLOBAL STATUS was read (epoch seconds, the host's clock): certificate expiry
  data-size.tsv   advisor.collect.mysql.Q_DATA_SIZE: engine, tables, data bytes, index bytes
  dict-KEY.tsv    one statement of advisor.collect.dictionary.dictionary_statements (KEY its RawServer
                  field), the mysql client's -NB output; dict-KEY.err instead when the server refused it
  host-raw.json   the host-fact gatherer's output (advisor.collect.host_gather, format advisor.host-raw/1)
  snapshot.json   instead of the dumps, when the advisor ran on the host (`advisor collect`)
  meta.json       inventory_hostname, groups, address (read by advisor.fleet)
  error.json      why the playbook could not collect the host (instead of the rest)

`load_fetched` turns it into the snapshot `advisor audit --snapshot DIR` and `advisor fleet --snapshots`
judge: the dumps imported as `advisor import` does, with the host facts and the data size; the
accounts, data dictionary and TLS certificate parsed by the live collector's own parsers
(parse_dictionary, parse_certificate), so a refused statement gives the same `missing` reason.
In the client's tab output SQL NULL and the text 'NULL' look alike: a cell 'NULL' is read as NULL."""

from __future__ import annotations

import json
import re
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
READ_AT = "read-at.txt"
AGAIN = "run the playbook again for this host (ansible/collect.yml)."
CLIENT_ERROR = re.compile(r"ERROR (\d+)(?: \(\w+\))?(?: at line \d+)?: (.*)", re.S)


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
    _dictionary_and_certificate(p, snap.server)
    _address(p, snap)
    return snap


def _address(p: Path, snap) -> None:
    """The host's address as the inventory gave it (meta.json) and the server's own port, so the report
    names 'MariaDB 10.11.6 at db1.example:3306' rather than an address it does not know."""
    if not (p / META).is_file() or snap.target.host:
        return
    try:
        meta = json.loads(read_text(p / META))
    except ValueError:
        return
    address = meta.get("address") if isinstance(meta, dict) else None
    if not isinstance(address, str) or not address.strip() or len(address) > 255:
        return
    port = str(snap.server.variables.get("port", "")).strip()
    snap.target.host = address.strip()
    snap.target.port = int(port) if port.isdigit() and 0 < int(port) < 65536 else None


DICTIONARY_FACTS = ("server.accounts", "server.schemas", "server.tables", "server.plugins", "server.time_zone_names",
                    "server.transactions")


def _dictionary_and_certificate(p: Path, server) -> None:
    """Fill a RawServer from the dict-*.tsv / .err files and read-at.txt and parse it as a live
    collection does; what the playbook did not read (an older role) keeps the import's reasons."""
    from advisor.collect.dictionary import AFTER_TABLES, dictionary_statements, fill
    from advisor.collect.dictionary_parse import parse_dictionary
    from advisor.collect.parse import parse_certificate
    from advisor.collect.raw import QueryError, RawServer

    raw = RawServer(variables=list(server.variables.items()), status=list(server.status.items()))
    statements = dictionary_statements(server.variables)
    read = [(k, sql) for k, sql in statements if (p / f"dict-{k}.tsv").is_file() or (p / f"dict-{k}.err").is_file()]
    if read or not statements:
        for key, sql in statements:
            tsv, err = p / f"dict-{key}.tsv", p / f"dict-{key}.err"
            if key in AFTER_TABLES and raw.tables is None:
                continue
            if tsv.is_file():
                fill(raw, key, tab_rows(read_text(tsv)))
            else:
                text = read_text(err).strip() if err.is_file() else ""
                m = CLIENT_ERROR.search(text)
                raw.errors[key] = (QueryError(sql, int(m.group(1)), m.group(2).strip()) if m else
                                   QueryError(sql, 0, text[:300] or "the playbook wrote neither its result nor an error"))
        server.missing = [m for m in server.missing if m.fact not in DICTIONARY_FACTS]
        parse_dictionary(raw, server)
    if (p / READ_AT).is_file() and server.status:
        try:
            raw.read_at = float(read_text(p / READ_AT).strip())
        except ValueError:
            raise InvalidInputError(f"{p / READ_AT} is not a time in epoch seconds.", AGAIN) from None
        server.missing = [m for m in server.missing if m.fact != "server.tls_certificate"]
        parse_certificate(raw, server)


def tab_rows(text: str) -> list[tuple[Any, ...]]:
    """The mysql client's -NB output as rows: batch escapes decoded, NULL as None."""
    from advisor.dumps.rows import batch_unescape

    return [tuple(None if c == "NULL" else batch_unescape(c) for c in line.split("\t"))
            for line in text.split("\n") if line]


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
