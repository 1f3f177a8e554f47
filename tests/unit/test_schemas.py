"""`advisor schema NAME`: the committed schemas under docs/schemas/ are current, and real outputs
validate against them: the demo's audit report (both purposes, text of the CLI), the demo
snapshot and a real collected one, a calibration document and a report with calibration from a
recorded calibrated snapshot, and host-facts files written from every recorded /proc+/sys tree.
Drift the other way (a key the writer does not produce) is caught because the models forbid extra keys."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from advisor import schemas
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "schemas"
CALIBRATED = ROOT / "tests/fixtures/calibration/mariadb-10.11-tls-calibrated.snapshot.json"
TREES = sorted(p.parent for p in (ROOT / "tests/fixtures/hosts").glob("*/PROVENANCE.md") if (p.parent / "proc").is_dir())


def validator(name: str) -> jsonschema.Draft202012Validator:
    s = json.loads((DOCS / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def assert_valid(name: str, doc: object) -> None:
    errors = list(validator(name).iter_errors(doc))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])


@pytest.mark.pins_toolchain  # pydantic's JSON Schema output changes between minor versions
@pytest.mark.parametrize("name", list(schemas.MODELS))
def test_committed_schema_is_current(name, golden):
    golden.check(DOCS / f"{name}.schema.json", schemas.render(name))


@pytest.mark.pins_toolchain
def test_cli_prints_the_committed_schema():
    p = run_cli("schema", "host-facts")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (DOCS / "host-facts.schema.json").read_text(encoding="utf-8")
    p = run_cli("schema", "reports")
    assert p.returncode == 2 and ("is not one of 'report', 'snapshot', 'calibration', 'host-facts', 'compare', 'fleet', "
                                  "'fleet-host', 'fleet-rollup'") in p.stderr


@pytest.mark.parametrize("purpose", ["production", "benchmark"])
def test_demo_report_validates(purpose):
    p = run_cli("audit", "--demo", "--purpose", purpose, "--format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["findings"] and doc["calibration"] is None
    assert_valid("report", doc)


def test_report_with_calibration_validates():
    p = run_cli("audit", "--snapshot", str(CALIBRATED), "--purpose", "benchmark", "--format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["calibration"]["rtt_ms"]["histogram"]["bins"] and doc["calibration"]["verdicts"]
    assert_valid("report", doc)


def test_snapshots_validate():
    from advisor import api

    assert_valid("snapshot", json.loads(api.demo_snapshot().to_json()))
    for path in (CALIBRATED, ROOT / "tests/fixtures/mycnf/mariadb-10.11-pitfalls.snapshot.json"):
        assert_valid("snapshot", json.loads(path.read_text(encoding="utf-8")))


def test_calibration_document_validates():
    from advisor.render.calibration import render_json
    from advisor.snapshot import load_snapshot

    doc = json.loads(render_json(load_snapshot(CALIBRATED.read_text(encoding="utf-8"))))
    assert doc["schema"] == "advisor.calibration/1" and doc["tls"]["query_histogram"]["on"]["bins"]
    assert_valid("calibration", doc)


@pytest.mark.parametrize("tree", TREES, ids=[t.name for t in TREES])
def test_host_facts_from_recorded_trees_validate(tree, tmp_path):
    out = tmp_path / "host.json"
    p = run_cli("collect", "--host-facts-only", "--sysroot", str(tree), "-o", str(out))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["raw"]["files"]
    assert_valid("host-facts", doc)


def test_schemas_reject_what_the_writer_never_writes():
    p = run_cli("audit", "--demo", "--format", "json")
    doc = json.loads(p.stdout)
    bad = json.loads(json.dumps(doc))
    bad["findings"][0]["severity"] = "major"
    assert not validator("report").is_valid(bad)
    bad = json.loads(json.dumps(doc))
    bad["summary"]["errors"] = 0
    assert not validator("report").is_valid(bad)
    bad = json.loads(json.dumps(doc))
    del bad["outcomes"]
    assert not validator("report").is_valid(bad)
