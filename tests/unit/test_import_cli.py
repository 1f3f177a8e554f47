"""`advisor import` and `advisor audit --snapshot DUMP` through the real CLI (a subprocess, as a user
runs it), on real public dumps from tests/fixtures/dumps."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import assert_one_paragraph_error, run_cli, run_json

D = Path(__file__).resolve().parents[1] / "fixtures" / "dumps"
V002 = D / "mysql-5.1.34-tab-header" / "vars002.txt"
PT80 = D / "percona-8.0.32-pt-mysql-summary"


def test_import_writes_a_snapshot_and_says_what_it_read(tmp_path):
    out = tmp_path / "snap.json"
    p = run_cli("import", "--variables", str(PT80 / "mysql-variables"), "--status", str(PT80 / "mysql-status"),
                "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stderr.startswith("advisor: imported 689 variables") and "539 status" in p.stderr
    assert "Percona Server 8.0.32, up 1 d 6 h" in p.stderr and str(out) in p.stderr
    snap = json.loads(out.read_text())
    assert snap["schema_version"] == 1 and snap["target"]["flavor"] == "percona"
    assert snap["server"]["status"]["Innodb_redo_log_capacity_resized"] == "10485760"
    assert snap["imported"]["dump_time"] == "2023-07-13 23:29:50"
    assert {m["fact"] for m in snap["missing"]} == {"host", "client", "calibration"}
    # and the written snapshot audits like a collected one
    code, report, err = run_json("audit", "--snapshot", str(out), "--format", "json")
    assert code == 0, err
    assert report["target"]["flavor"] == "percona" and report["summary"]["fired"] > 0


def test_import_a_directory_to_stdout():
    code, snap, err = run_json("import", "--variables", str(PT80))
    assert code == 0, err
    assert len(snap["server"]["variables"]) == 689 and snap["server"]["status"]["Uptime"] == "108232"
    assert [s["path"].rsplit("/", 1)[1] for s in snap["imported"]["sources"]] == ["mysql-variables", "mysql-status"]


def test_audit_snapshot_reads_a_tab_dump_directly():
    p = run_cli("audit", "--snapshot", str(V002))
    assert p.returncode == 0, p.stderr
    assert "mysql 5.1.34" in p.stdout and "max-allowed-packet-small" in p.stdout
    assert "no status dump was given" in p.stdout  # counter rules are unknown with the reason and what to supply


def test_audit_snapshot_reads_a_tab_dump_on_stdin():
    p = run_cli("audit", "--snapshot", "-", "--format", "json", input=V002.read_text())
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["target"]["version"] == "5.1.34"


def test_audit_snapshot_with_a_named_input_format():
    p = run_cli("audit", "--snapshot", str(D / "mysql-5.1.34-table" / "vars001.txt"), "--input-format", "table",
                "--format", "json")
    assert p.returncode == 0, p.stderr
    p = run_cli("audit", "--snapshot", str(V002), "--input-format", "json")
    assert p.returncode == 4
    assert_one_paragraph_error(p.stderr)
    assert "cannot read it as json" in p.stderr


def test_unreadable_file_names_the_formats_read(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("The server was slow on Tuesday.\nWe restarted it.\n")
    p = run_cli("audit", "--snapshot", str(bad))
    assert p.returncode == 4
    assert_one_paragraph_error(p.stderr)
    for word in ("neither an advisor snapshot", "tab-separated", "table format", "\\G", "JSON", "MySQLTuner",
                 "pt-mysql-summary", "Tip:"):
        assert word in p.stderr, word


def test_import_errors_are_one_paragraph_with_exit_codes(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    for args, code, words in [
        (("import", "--variables", str(empty)), 4, ("is empty", "Tip:")),
        (("import", "--variables", str(tmp_path / "nope.txt")), 4, ("does not exist",)),
        (("import", "--variables", str(PT80 / "mysql-status")), 4, ("holds SHOW STATUS", "--status")),
        (("import", "--variables", str(D / "percona-8.0.29-netdata-table" / "global_variables.txt")), 4,
         ("--flavor", "--version")),
        (("import", "--variables", str(V002), "--input-format", "xml"), 2, ("--input-format",)),
        (("import", "--variables", str(V002), "--flavor", "oracle"), 4, ("oracle",)),
        (("import", "--variables", str(tmp_path)), 4, ("without a variables file",)),
    ]:
        p = run_cli(*args)
        assert p.returncode == code, (args, p.stderr)
        assert_one_paragraph_error(p.stderr)
        for w in words:
            assert w in p.stderr, (args, w, p.stderr)


def test_import_with_flavor_and_version_for_a_dump_without_version():
    code, snap, err = run_json("import", "--variables", str(D / "tidb-docs-cn-show-variables" / "show-variables.md"),
                               "--flavor", "tidb", "--version", "3.0.0")
    assert code == 0, err
    assert snap["target"]["flavor"] == "tidb" and snap["imported"]["version_from"] == "--version"
    assert any(m["fact"] == "server.tidb_config" for m in snap["server"]["missing"])
