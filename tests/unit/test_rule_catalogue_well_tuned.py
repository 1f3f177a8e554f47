"""A well-tuned server per flavor (tests/fixtures/well-tuned/<flavor>.toml, every value with its
reason) must produce no warning or critical finding in a production audit, and every variable it
sets must be one the catalogue accepts on that target (check_setting finds no problem)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from advisor import __version__
from advisor import knowledge as K
from advisor.rules.engine import evaluate
from advisor.rules.examples import _scalar
from advisor.rules.loader import load_rules
from advisor.snapshot import Snapshot

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DIR = Path(__file__).resolve().parent.parent / "fixtures" / "well-tuned"
FILES = sorted(DIR.glob("*.toml"))
RULES = load_rules()


def build(path: Path) -> Snapshot:
    raw: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    t = raw["target"]
    doc: dict[str, Any] = {
        "schema_version": 1, "advisor_version": __version__, "collected_at": "2026-01-01T00:00:00Z",
        "target": {"host": "db1", "port": 3306, "flavor": t["flavor"], "version": t["version"],
                   "version_string": raw["variables"].get("version", t["version"]),
                   "version_comment": t.get("version_comment", "")},
        "server": {"variables": {k: _scalar(v) for k, v in raw["variables"].items()},
                   "status": {k: _scalar(v) for k, v in raw.get("status", {}).items()}},
    }
    if "data_size" in raw:
        doc["server"]["data_size"] = raw["data_size"]
    if "host" in raw:
        doc["host"] = raw["host"]
    return Snapshot.model_validate(doc)


def test_one_per_flavor():
    assert {p.stem for p in FILES} == {"mysql", "percona", "mariadb", "tidb"}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_value_has_a_reason(path):
    in_section = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            in_section = line.strip("[]")
        elif in_section == "variables" and "=" in line and not line.lstrip().startswith("#"):
            assert "#" in line and line.split("#", 1)[1].strip(), f"{path.name}: no reason for: {line}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_no_warning_in_production(path):
    snap = build(path)
    outs = evaluate(snap, RULES, "production", catalogue=K.default_catalogue())
    loud = [(o.rule, o.finding.severity, o.finding.message) for o in outs
            if o.status == "fired" and o.finding and o.finding.severity in ("warning", "critical")]
    assert not loud, loud
    assert sum(o.status == "passed" for o in outs) >= (3 if snap.target.flavor == "tidb" else 20)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_settings_valid_on_target(path):
    snap = build(path)
    fl, ver = snap.target.flavor, snap.target.version
    for name, value in snap.server.variables.items():
        if name in ("version", "version_comment") or K.exists_on(name, fl, ver) is None:
            continue
        assert K.check_setting(name, value, fl, ver) == [], name
