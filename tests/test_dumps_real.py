"""Real public dumps (tests/fixtures/dumps/<name>/, provenance in PROVENANCE.md there) go through
`advisor import` as a DBA would hand them over: the format is detected, flavor, version and uptime
come out right, the number of variables and status counters equals the source's, and the audit's
findings equal the reviewed expected-findings.toml beside the dump.

expected-findings.toml is a reviewed golden: a header (kept across regeneration) records the
review of every fired finding; below the marker line the file is generated. After a deliberate
change to rules or import, regenerate and review the diff like code:

    ADVISOR_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_dumps_real.py
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from advisor.dumps import import_snapshot
from advisor.knowledge import default_catalogue
from advisor.rules.engine import evaluate
from advisor.rules.loader import load_rules
from advisor.snapshot import Snapshot

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DUMPS = Path(__file__).resolve().parent / "fixtures" / "dumps"
MANIFEST: dict[str, dict[str, Any]] = tomllib.loads((DUMPS / "manifest.toml").read_text(encoding="utf-8"))
NAMES = sorted(MANIFEST)
PURPOSES = ("production", "benchmark")
UPDATE = os.environ.get("ADVISOR_UPDATE_GOLDEN") == "1"
MARKER = "# ---- generated below this line by tests/test_dumps_real.py; the review above is kept ----"
RULES = load_rules()
_SNAPS: dict[str, Snapshot] = {}


def snapshot(name: str) -> Snapshot:
    if name not in _SNAPS:
        m = MANIFEST[name]
        path = DUMPS / name / m["variables"]
        _SNAPS[name] = import_snapshot(str(path), flavor=m.get("flavor_arg"), version=m.get("version_arg"),
                                       now="2026-01-01T00:00:00Z")
    return _SNAPS[name]


def test_every_dump_directory_is_in_the_manifest():
    dirs = sorted(p.name for p in DUMPS.iterdir() if p.is_dir())
    assert dirs == NAMES
    assert len(NAMES) >= 10


@pytest.mark.parametrize("name", NAMES)
def test_dump_imports_with_detected_format_flavor_version_and_counts(name):
    m = MANIFEST[name]
    snap = snapshot(name)
    info = snap.imported
    assert info is not None
    kinds = {s.kind: s for s in info.sources}
    assert kinds["variables"].format == m["format"]
    assert kinds["variables"].rows == m["variables_count"] == len(snap.server.variables)
    assert snap.target.flavor == m["flavor"]
    assert snap.target.version == m["version"]
    if "status_count" in m:
        assert kinds["status"].format == m["status_format"]
        assert kinds["status"].rows == m["status_count"] == len(snap.server.status)
        assert snap.server.status["Uptime"] == str(m["uptime"])
    else:
        assert "status" not in kinds and snap.server.status == {}
        assert any(x.fact == "server.status" and "--status" in x.reason for x in snap.server.missing)
    missing = {x.fact: x.reason for x in snap.missing}
    assert "--host-facts" in missing["host"] and "calibrate" in missing["calibration"] and "client" in missing
    # the imported snapshot is a valid snapshot: it survives a validating JSON round trip unchanged
    again = Snapshot.model_validate_json(snap.to_json())
    assert again.to_json() == snap.to_json()


def findings(name: str, purpose: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for o in evaluate(snapshot(name), RULES, purpose, catalogue=default_catalogue()):
        if o.status == "fired" and o.finding is not None:
            ev = {k: _ev(v) for k, v in sorted(o.finding.evidence.items())}
            out[o.rule] = {"status": o.status, "severity": o.finding.severity, "evidence": ev}
    return out


def _ev(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_ev(x) for x in v)
    return str(v)


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def _write_expected(name: str, path: Path) -> None:
    head = []
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        if MARKER in text:
            head = text.split(MARKER)[0].rstrip("\n").split("\n")
    if not head:
        head = [f"# Expected findings of the rule catalogue on the real dump {name} (tests/test_dumps_real.py).",
                "# Review: (not reviewed yet)"]
    lines = head + [MARKER]
    for purpose in PURPOSES:
        for rule, f in sorted(findings(name, purpose).items()):
            lines += ["", f'[{purpose}."{rule}"]', f'status = "{f["status"]}"', f'severity = "{f["severity"]}"']
            lines.append("evidence = { " + ", ".join(f"{_toml_str(k)} = {_toml_str(v)}"
                                                     for k, v in f["evidence"].items()) + " }")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("purpose", PURPOSES)
@pytest.mark.parametrize("name", NAMES)
def test_audit_of_dump_equals_reviewed_expected_findings(name, purpose):
    path = DUMPS / name / "expected-findings.toml"
    if UPDATE and purpose == PURPOSES[0]:
        _write_expected(name, path)
    assert path.is_file(), f"missing {path}; create it with ADVISOR_UPDATE_GOLDEN=1 and review every finding"
    text = path.read_text(encoding="utf-8")
    assert MARKER in text and "(not reviewed yet)" not in text, f"{path}: the findings have not been reviewed"
    want = tomllib.loads(text).get(purpose, {})
    assert findings(name, purpose) == want


@pytest.mark.parametrize("name", NAMES)
def test_messages_of_real_dumps_have_no_raw_placeholders(name):
    """Every fired message and fix reads right with the dump's real values."""
    for purpose in PURPOSES:
        for o in evaluate(snapshot(name), RULES, purpose, catalogue=default_catalogue()):
            assert o.reason, o.rule
            if o.finding is None:
                continue
            for text in (o.finding.message, o.finding.fix):
                assert "{" not in text and "<derived." not in text, (o.rule, text)
                # a placeholder whose fact is missing renders as "unknown" (no rule text uses the word)
                assert not re.search(r"\bunknown\b", text), (o.rule, text)
