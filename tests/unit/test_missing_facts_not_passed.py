"""Issue 23 §7: a fact the snapshot lacks gives `unknown` with the reason, never `passed`. A collected MariaDB
10.11 snapshot (tests/golden/checklist/inputs) with the per-engine sizes and the status counters taken out, as in
an imported dump of an old MyISAM-default server, audited through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_json

SNAP = Path(__file__).resolve().parents[1] / "golden" / "checklist" / "inputs" / "mariadb-10.11-default.json"


def outcomes(tmp_path: Path, **server: object) -> dict:
    doc = json.loads(SNAP.read_text())
    for k, v in server.items():
        doc["server"][k] = v
    doc["server"]["variables"].update({"default_storage_engine": "MyISAM", "innodb_log_file_size": str(2 << 30)})
    p = tmp_path / "snap.json"
    p.write_text(json.dumps(doc))
    code, out, err = run_json("audit", "--snapshot", str(p), "--format", "json")
    assert out is not None, err
    return {o["rule"]: o for o in out["outcomes"]}


def test_absent_engine_sizes_and_status_are_unknown(tmp_path):
    o = outcomes(tmp_path, data_size=None, status={})
    assert o["myisam-tables-present"]["status"] == "unknown"
    assert "data size per engine was not collected" in o["myisam-tables-present"]["reason"]
    assert o["redo-log-below-hour-of-writes"]["status"] == "unknown"
    assert "Innodb_os_log_written" in o["redo-log-below-hour-of-writes"]["reason"]


def test_collected_sizes_without_myisam_still_pass(tmp_path):
    o = outcomes(tmp_path, data_size={"InnoDB": {"tables": 3, "data_bytes": 16384, "index_bytes": 0}})
    assert o["myisam-tables-present"]["status"] == "passed"
    assert o["key-buffer-without-myisam"]["status"] in ("passed", "fired")
