"""The CLI as a user sees it: exit codes, one-paragraph errors, help, the demo.

Most tests call the entry point in this process (tests.support.cli.invoke); the ones marked
"a real process" run `python -m advisor`, so the console script's exit statuses, stdin pipe and
help output stay covered as a user gets them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import assert_one_paragraph_error, invoke, invoke_json, run_cli
from tests.support.demo import demo_json

ROOT = Path(__file__).resolve().parents[2]


def test_bundled_demo_is_the_generated_one(golden):
    golden.check(ROOT / "src/advisor/data/demo-seed-000.json", demo_json())


def test_demo_audit_fires_the_five_seed_pitfalls():
    code, report, err = invoke_json("audit", "--demo", "--purpose", "benchmark", "--format", "json")
    assert code == 0, err
    fired = {f["rule"] for f in report["findings"]}
    assert {"tls-in-use", "network-route-slow-link", "sort-buffer-oversized", "redo-log-undersized",
            "nvme-client-no-plp"} <= fired
    net = next(f for f in report["findings"] if f["rule"] == "network-route-slow-link")
    assert "em3" in net["message"] and "vlan2" in net["message"]


def test_fail_on_sets_exit_1():  # a real process: the exit status the shell sees
    assert run_cli("audit", "--demo", "--purpose", "benchmark", "--fail-on", "warning").returncode == 1
    assert run_cli("audit", "--demo", "--purpose", "benchmark", "--fail-on", "critical").returncode == 0
    assert invoke("audit", "--demo", "--purpose", "benchmark", "--fail-on", "warning").returncode == 1


def test_help_documents_every_command():  # a real process
    p = run_cli("--help")
    assert p.returncode == 0
    for cmd in ("audit", "collect", "explain", "rules"):
        assert cmd in p.stdout
    p = run_cli("audit", "--help")
    assert p.returncode == 0 and "--ssl-mode" in p.stdout and "--purpose" in p.stdout and "--fail-on" in p.stdout
    p = run_cli("--version")
    assert p.returncode == 0 and p.stdout.startswith("advisor ")


def test_usage_errors_exit_2():
    p = invoke("audit", "--demo", "--purpose", "fun")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    p = invoke("audit", "--demo", "--ignore", "no-such-rule")
    assert p.returncode == 2
    assert_one_paragraph_error(p.stderr)
    p = invoke("explain", "sort-bufer-oversized")
    assert p.returncode == 2 and "did you mean sort-buffer-oversized" in p.stderr
    p = invoke("audit", "--demo", "--snapshot", "x.json")
    assert p.returncode == 2


def test_malformed_rule_file_exit_4_names_file_and_field(tmp_path):
    src = (ROOT / "rules/memory/sort-buffer-oversized.toml").read_text()
    bad = src.replace('id = "sort-buffer-oversized"', 'id = "sort-buffer-copy"').replace('op = "ge", value = "32M"', 'op = "gte", value = "32M"')
    (tmp_path / "copy.toml").write_text(bad)
    p = invoke("audit", "--demo", "--rules", str(tmp_path))
    assert p.returncode == 4
    assert_one_paragraph_error(p.stderr)
    assert f"{tmp_path}/copy.toml: when.all[0].op: expected one of" in p.stderr
    p = invoke("rules", "lint", str(tmp_path))
    assert p.returncode == 4


def test_user_rules_directory_adds_rules(tmp_path):
    src = (ROOT / "rules/memory/sort-buffer-oversized.toml").read_text()
    (tmp_path / "mine.toml").write_text(src.replace('id = "sort-buffer-oversized"', 'id = "my-sort-check"'))
    code, report, err = invoke_json("audit", "--demo", "--rules", str(tmp_path), "--format", "json",
                                 "--ignore", "sort-buffer-oversized")
    assert code == 0, err
    rules = {f["rule"] for f in report["findings"]}
    assert "my-sort-check" in rules and "sort-buffer-oversized" not in rules
    assert invoke("rules", "lint", str(tmp_path)).returncode == 0


def test_truncated_and_missing_snapshot_exit_4(tmp_path):
    text = demo_json()
    f = tmp_path / "t.json"
    f.write_text(text[: len(text) // 3])
    p = invoke("audit", "--snapshot", str(f))
    assert p.returncode == 4
    assert_one_paragraph_error(p.stderr)
    assert "t.json is not valid JSON" in p.stderr
    p = invoke("audit", "--snapshot", str(tmp_path / "none.json"))
    assert p.returncode == 4
    p = invoke("audit", "--snapshot", "-", input=json.dumps({"schema_version": 1}))
    assert p.returncode == 4 and "not a valid snapshot" in p.stderr


def test_snapshot_from_stdin_and_markdown():  # a real process: the snapshot comes through a pipe
    p = run_cli("audit", "--snapshot", "-", "--format", "markdown", "--purpose", "benchmark", input=demo_json())
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("# advisor audit: MySQL 5.7.44 at 10.10.1.12:3306")
    assert "| warning | `tls-in-use` |" in p.stdout
    # evidence reads like the terminal's: units and yes/no, not Python reprs
    assert "- `var.sort_buffer_size` = 32 MiB (33,554,432)" in p.stdout
    assert "- `derived.tls_in_use` = yes" in p.stdout


def test_evidence_cites_fields_not_whole_sections():
    """io-capacity-low-for-flash tests `host.datadir exists` and cites its fields: the report shows the
    fields (device class, reason, model), not the whole datadir record again."""
    code, report, err = invoke_json("audit", "--demo", "--purpose", "benchmark", "--format", "json")
    assert code == 0, err
    f = next(x for x in report["findings"] if x["rule"] == "io-capacity-low-for-flash")
    assert "host.datadir" not in f["evidence"]
    assert f["evidence"]["host.datadir.device_class"] == "nvme_client"


def test_rules_list_json_and_explain():
    code, data, err = invoke_json("rules", "list", "--format", "json")
    assert code == 0
    ids = [r["id"] for r in data["rules"]]
    assert "sort-buffer-oversized" in ids and all(r["references"] for r in data["rules"])
    p = invoke("explain", "redo-log-undersized")
    assert p.returncode == 0
    for section in ("What it checks", "Why it matters", "Example", "Recommendation", "Applies to", "References"):
        assert f"\n{section}\n{'-' * len(section)}\n" in p.stdout  # for a terminal: no Markdown headings


@pytest.mark.pins_toolchain  # click 8.1 (typer 0.15.4, the floor) suggests no command; 8.2+ does
def test_unknown_command_suggestion_ends_its_sentence_once():
    p = run_cli("verfy")
    assert p.returncode == 2, p.stderr
    assert "Did you mean 'verify'? Tip: `advisor --help` lists the options." in p.stderr
    assert "?." not in p.stderr
