"""Turn a rule's embedded example into a snapshot, so examples run through the real engine."""

from __future__ import annotations

from typing import Any

from advisor import __version__
from advisor.snapshot import Snapshot
from advisor.versions import Version


def _set(tree: dict[str, Any], parts: list[str], value: Any) -> None:
    cur = tree
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
    cur[parts[-1]] = value


def example_snapshot(ex: Any) -> Snapshot:
    """The snapshot an example describes (`ex.target`, `ex.facts`): a rule's, a sizer's or a check's."""
    return Snapshot.model_validate(example_doc(ex))


def example_doc(ex: Any) -> dict[str, Any]:
    """The snapshot document (parsed JSON) of an example."""
    flavor, version = ex.target.split()
    v = Version.parse(version)
    doc: dict[str, Any] = {
        "schema_version": 1,
        "advisor_version": __version__,
        "collected_at": "2026-01-01T00:00:00Z",
        "target": {"host": "example", "port": 3306, "flavor": flavor, "version": str(v),
                   "version_string": version, "version_comment": ""},
        "server": {"variables": {}, "status": {}},
    }
    for key, value in ex.facts.items():
        root, _, rest = key.partition(".")
        if root == "var":
            doc["server"]["variables"][rest] = _scalar(value)
        elif root == "status":
            doc["server"]["status"][rest] = _scalar(value)
        else:
            parts = key.split(".")
            if root in ("host", "client", "calibration"):
                doc.setdefault(root, {})
            _set(doc, parts, value)
    return doc


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, str):
        from advisor.units import parse_size

        # "32M" in an example stands for what the server would print: 33554432
        if value[:1].isdigit() and value[-1:].upper() in "KMG" and len(value) > 1:
            try:
                return str(parse_size(value))
            except ValueError:
                return value
        return value
    return str(value)
