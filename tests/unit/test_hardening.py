"""Regression tests for the reproducers of issue 19 (hardening): each malformed input ends in a
documented exit code with one paragraph that names the problem and ends with a Tip, never exit 70.
The fuzz suite (tests/fuzz/) covers the same surfaces with mutants; these pin the named cases.
"""

from __future__ import annotations

import copy
import io
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from advisor.inputs import BadInput, clip, load_json
from tests.support.cli import assert_one_paragraph_error, invoke
from tests.support.wire_server import ReplayServer

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "src/advisor/data/demo-seed-000.json").read_text())
# the hand-written rule big_tables had before risky.toml took its place (big_tables.on): a realistic rule file
RULE = (ROOT / "tests/fixtures/rules/big-tables-hand-written.toml").read_text().replace(
    'id = "big-tables-forces-disk-temp"', 'id = "hardening-copy"')
DEEP = 100_000


def refused(p: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    assert p.returncode == code, (p.returncode, p.stderr)
    assert_one_paragraph_error(p.stderr)
    err = p.stderr.strip()
    assert "Tip:" in err and len(err) <= 2000, err
    for w in words:
        assert w in err, (w, err)
    return err


def snapshot_file(tmp_path: Path, doc: Any = None, text: str | None = None) -> str:
    f = tmp_path / "snap.json"
    f.write_text(text if text is not None else json.dumps(doc))
    return str(f)


def rule_dir(tmp_path: Path, text: str | bytes, name: str = "r") -> str:
    d = tmp_path / name
    d.mkdir()
    f = d / "hardening-copy.toml"
    f.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(d)


# ---------------------------------------------------------------- nesting, huge and non-finite numbers

def test_snapshot_nested_100000_deep(tmp_path):
    refused(invoke("audit", "--snapshot", snapshot_file(tmp_path, text="[" * DEEP + "]" * DEEP)), 4, "nested")


def test_snapshot_field_nested_deep_inside_an_object(tmp_path):
    text = json.dumps(DEMO).replace('"missing": []', '"missing": ' + "[" * DEEP + "]" * DEEP, 1)
    refused(invoke("audit", "--snapshot", snapshot_file(tmp_path, text=text)), 4, "nested")


def test_rule_file_nested_100000_deep(tmp_path):
    refused(invoke("rules", "lint", rule_dir(tmp_path, RULE + "\nx = " + "[" * DEEP + "]" * DEEP + "\n")), 4)


def test_host_facts_nested_100000_deep(tmp_path):
    f = tmp_path / "host.json"
    f.write_text("[" * DEEP + "]" * DEEP)
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        p = invoke("collect", "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults", "--host-facts", str(f))
    refused(p, 4, "nested")


@pytest.mark.parametrize("where", ["target.version", "variable", "status"])
def test_numbers_of_more_than_4300_digits(tmp_path, where):
    doc = copy.deepcopy(DEMO)
    if where == "target.version":
        doc["target"]["version"] = "8.0." + "9" * 5000
        refused(invoke("audit", "--snapshot", snapshot_file(tmp_path, doc)), 4, "target.version")
        return
    section = "variables" if where == "variable" else "status"
    name = "sort_buffer_size" if where == "variable" else "Threads_connected"
    doc["server"][section][name] = "9" * 5000  # a string: valid JSON, a value no server has
    p = invoke("audit", "--snapshot", snapshot_file(tmp_path, doc), "-f", "json")
    assert p.returncode in (0, 1), p.stderr
    json.loads(p.stdout)


def test_a_json_integer_of_5000_digits(tmp_path):
    text = json.dumps(DEMO).replace('"schema_version": 1', '"schema_version": ' + "9" * 5000)
    refused(invoke("audit", "--snapshot", snapshot_file(tmp_path, text=text)), 4, "5,000 digits")


@pytest.mark.parametrize("number", ["1.0e309", "1" + "0" * 400, "NaN", "-Infinity"])
def test_non_finite_and_huge_numbers_in_a_snapshot(tmp_path, number):
    text = json.dumps(DEMO).replace('"schema_version": 1', f'"schema_version": 1, "x_odd": {number}')
    err = refused(invoke("audit", "--snapshot", snapshot_file(tmp_path, text=text)), 4)
    assert "snapshot" in err


@pytest.mark.parametrize("number", ["1.0e309", "inf", "nan", "1" + "0" * 400])
def test_non_finite_and_huge_numbers_in_a_rule(tmp_path, number):
    text = RULE.replace("value = true", f"value = {number}")
    refused(invoke("rules", "lint", rule_dir(tmp_path, text)), 4, "hardening-copy.toml")


def test_huge_number_in_a_sysbench_line():
    refused(invoke("checklist", "--demo", "--no-detect-sysbench", "--sysbench",
                   f"sysbench oltp_read_write --threads={'9' * 5000} run"), 2, "--threads")
    refused(invoke("checklist", "--demo", "--no-detect-sysbench", "--sysbench",
                   "sysbench oltp_read_write --table-size=1.0e309 run"), 2, "--table-size")


def test_target_version_x_is_rejected_by_the_snapshot_model(tmp_path):
    doc = copy.deepcopy(DEMO)
    doc["target"]["version"] = "x"
    refused(invoke("audit", "--snapshot", snapshot_file(tmp_path, doc)), 4, "target.version", "not a version")


# ---------------------------------------------------------------- bytes that are not UTF-8

def test_non_utf8_rule_file(tmp_path):
    refused(invoke("rules", "lint", rule_dir(tmp_path, RULE.encode().replace(b"relic", b"rel\xffic"))), 4, "UTF-8")


def test_non_utf8_fleet_file(tmp_path):
    f = tmp_path / "fleet.txt"
    f.write_bytes(b"db1:3306\n\xff\xfe:3306\n")
    refused(invoke("fleet", str(f), "--no-defaults"), 4, "utf-8")  # exit 4: an unreadable input file


def test_non_utf8_server_value_is_read_with_replacement_characters():
    with ReplayServer.from_set("mysql-8.0.36", overrides={"version_comment": b"MySQL \xff\xfe build"}) as srv:
        p = invoke("collect", "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["server"]["variables"]["version_comment"] == "MySQL \ufffd\ufffd build"


def test_strict_utf8_terminal_and_a_file_name_that_is_not_utf8(tmp_path, monkeypatch):
    """A non-UTF-8 file name reaches Python as surrogates; a strict UTF-8 stream cannot write them."""
    from advisor import cli

    name = str(tmp_path).encode() + b"/snap-\xff.json"
    path = name.decode("utf-8", "surrogateescape")
    Path(path).write_text(json.dumps(DEMO))
    out, err = io.BytesIO(), io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", errors="strict"))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, encoding="utf-8", errors="strict"))
    monkeypatch.setenv("HOME", "/nonexistent-advisor-home")
    commands = list(cli.app.registered_commands)
    try:
        with pytest.raises(SystemExit) as e:
            cli.main(["audit", "--snapshot", path + ".missing"])
        sys.stderr.flush()
        assert e.value.code == 4, err.getvalue()
        assert b"advisor: error:" in err.getvalue() and b"\\udcff" in err.getvalue()
        with pytest.raises(SystemExit) as e:
            cli.main(["audit", "--snapshot", path, "-f", "markdown"])
        sys.stdout.flush()
        assert e.value.code in (0, 1), err.getvalue()
        assert out.getvalue()
    finally:
        cli.app.registered_commands[:] = commands


# ---------------------------------------------------------------- rules that pass the loader and fail later

def test_rule_example_with_wrongly_typed_facts_is_reported_not_a_crash(tmp_path):
    text = RULE.replace('"var.big_tables" = "ON"', '"var.big_tables" = [1, { x = 2 }]')
    p = invoke("rules", "lint", rule_dir(tmp_path, text))
    assert p.returncode == 1, p.stderr  # the example fails, as lint reports failing examples
    assert "expected fired, got unknown" in p.stdout and "is not a boolean" in p.stdout


def test_formula_without_its_args_is_rejected_by_the_loader(tmp_path):
    text = RULE.replace('recommendation = { big_tables = "OFF" }\n', "") + '\n[[recommend]]\nformula = "flavor_default"\n'
    for args in (("rules", "lint"), ("audit", "--demo", "--rules")):
        refused(invoke(*args, rule_dir(tmp_path, text, name="r" + str(len(args)))), 4,
                "recommend[1].args", "needs variable")


def test_formula_with_an_unknown_arg_is_rejected(tmp_path):
    text = RULE + '\n[[recommend]]\nformula = "flavor_default"\nargs = { variable = "big_tables", bogus = 1 }\n'
    refused(invoke("rules", "lint", rule_dir(tmp_path, text)), 4, "takes no argument bogus")


# ---------------------------------------------------------------- host-facts files of the wrong shape

def _host_seed(tmp_path: Path) -> dict[str, Any]:
    from tests.fuzz.surfaces import host_facts_seed

    return json.loads(host_facts_seed(tmp_path))


@pytest.mark.parametrize("section,value", [("errors", ["x"]), ("files", {"/proc/meminfo": 5}),
                                           ("dirs", {"/sys/block": "sda"}), ("mysqld", "x"), ("paths", [1])])
def test_host_facts_with_the_wrong_types(tmp_path, section, value):
    doc = _host_seed(tmp_path)
    doc["raw"][section] = value
    f = tmp_path / "host.json"
    f.write_text(json.dumps(doc))
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        p = invoke("audit", "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults", "--no-calibrate",
                   "--host-facts", str(f))
    refused(p, 4, f"raw.{section}")


# ---------------------------------------------------------------- connection options

@pytest.mark.parametrize("value", ["nan", "1e9", "inf", "-1", "0"])
def test_connect_timeout_out_of_range(value):
    refused(invoke("audit", "-h", "127.0.0.1", "-P", "1", "--no-defaults", "--connect-timeout", value), 2,
            "--connect-timeout")


def test_read_timeout_nan():
    refused(invoke("audit", "-h", "127.0.0.1", "-P", "1", "--no-defaults", "--read-timeout", "nan"), 2, "--read-timeout")


def test_host_label_of_64_characters():
    refused(invoke("audit", "-h", "a" * 64 + ".example", "-P", "3306", "--no-defaults", "--connect-timeout", "2"), 3,
            "host name is not valid", "63 characters")


def test_ssl_ca_without_a_certificate(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("this is not a certificate\n")
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        p = invoke("audit", "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults",
                   "--ssl-mode", "VERIFY_CA", "--ssl-ca", str(ca))
    refused(p, 2, "--ssl-ca", str(ca))


def test_sysbench_host_list_of_only_commas():
    refused(invoke("checklist", "--demo", "--no-detect-sysbench", "--sysbench",
                   "sysbench oltp_read_write --mysql-host=,,, run"), 2, "--mysql-host", "names no host")


@pytest.mark.parametrize("ram", ["0", "1", "1.0e309", "9" * 5000, "-1"])
def test_mycnf_validate_with_an_impossible_ram(ram):
    p = invoke("mycnf", "--validate", str(ROOT / "tests/golden/mycnf/seed-000-benchmark.cnf"), "--no-server-check",
               "--flavor", "mariadb", "--version", "10.11", "--ram", ram)
    refused(p, 2, "--ram")


# ---------------------------------------------------------------- odd answers from a server

@pytest.mark.parametrize("answer", [None, "x", "-3"])
def test_connection_id_null_or_not_a_number(answer):
    canned = [{"match": r"^SELECT CONNECTION_ID\(\)", "columns": ["CONNECTION_ID()"], "rows": [[answer]]}]
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        srv.set_canned(canned + list(srv.canned))
        p = invoke("collect", "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["server"]["connection"]["thread_id"] is None


@pytest.mark.parametrize("cell", ["lots", "1.0e309", "-5"])
def test_size_column_that_is_not_a_number(cell):
    canned = [{"match": r"SUM\(DATA_LENGTH\)", "columns": ["ENGINE", "COUNT(*)", "SUM(DATA_LENGTH)", "SUM(INDEX_LENGTH)"],
               "rows": [["InnoDB", "3", cell, "12"]]}]
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        srv.set_canned(canned + list(srv.canned))
        p = invoke("collect", "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults")
    assert p.returncode == 0, p.stderr
    server = json.loads(p.stdout)["server"]
    assert server["data_size"] is None
    reason = next(m["reason"] for m in server["missing"] if m["fact"] == "server.data_size")
    assert "not a number" in reason and "InnoDB" in reason


# ---------------------------------------------------------------- long values cut

def test_a_100kb_value_is_cut_in_the_error(tmp_path):
    long = "A" * 100_000
    err = refused(invoke("checklist", "--demo", "--no-detect-sysbench", "--sysbench",
                         f"sysbench oltp_read_write --threads={long} run"), 2)
    assert "characters)" in err and "100,0" in err and long[:1000] not in err


def test_a_long_user_in_an_option_file_is_cut(tmp_path):
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[client]\nhost=127.0.0.1\nport=1\nuser=" + "u" * 50_000 + "\n")
    err = refused(invoke("audit", "--defaults-file", str(cnf), "--connect-timeout", "1"), 3)
    assert "characters)" in err


def test_clip():
    assert clip("abc") == "'abc'"
    assert clip("x" * 500, 10) == "'xxxxxxxxxx'… (500 characters)"
    assert clip(12) == "12"


def test_load_json_limits():
    assert load_json('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    for bad in ("1e309", "NaN", "[" * 65 + "]" * 65, "9" * 41, b'"\xff"'):
        with pytest.raises(BadInput):
            load_json(bad)
    with pytest.raises(json.JSONDecodeError):
        load_json("{")


# ---------------------------------------------------------------- JSON without Infinity

def test_json_output_writes_null_for_a_non_finite_calibration_value():
    from advisor.render.calibration import render_json
    from advisor.snapshot import load_snapshot

    snap = load_snapshot((ROOT / "tests/fixtures/calibration/mariadb-10.11-tls-calibrated.snapshot.json").read_text())
    snap.calibration.stream.mbytes_per_s = math.inf
    snap.calibration.rtt_ms.p99 = math.nan
    text = render_json(snap)
    assert "Infinity" not in text and "NaN" not in text
    doc = json.loads(text)
    assert doc["stream"]["mbytes_per_s"] is None and doc["rtt_ms"]["p99"] is None
    facts = {m["fact"]: m["reason"] for m in doc["missing"]}
    assert "not a finite number (inf)" in facts["stream.mbytes_per_s"] and "nan" in facts["rtt_ms.p99"]


# ---------------------------------------------------------------- exit codes and degraded runs

def _collect_statements() -> int:
    """What collecting mysql-8.0.36 sends, the driver's SET NAMES included (counted, not written down:
    the collector gains statements as it learns to read more)."""
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        p = invoke("collect", "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults")
        assert p.returncode == 0, p.stderr
        return len(srv.queries)


@pytest.mark.parametrize("command", [("audit", "-f", "json"), ("checklist", "--no-detect-sysbench", "-f", "json"),
                                     ("mycnf",)])
def test_server_gone_after_the_first_connection_is_5_and_keeps_the_findings(command):
    """The server answers the collection, then stops listening (as a killed server does): calibration's
    new connection is refused. That is exit 5 (went away after connecting), not 3, and the audit of the
    facts already collected is still written, with calibration marked as failed and why."""
    collect_statements = _collect_statements()
    with ReplayServer.from_set("mysql-8.0.36", fail_after_queries=collect_statements) as srv:
        p = invoke(*command, "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults")
        assert srv.aborted and len(srv.queries) == collect_statements + 1
    err = refused(p, 5, "during calibration", "after the audit's connection had worked")
    assert "--no-calibrate" in err
    assert p.stdout.strip()
    if command[0] == "audit":
        doc = json.loads(p.stdout)
        assert doc["outcomes"] and doc["summary"]
        cal = next(m for m in doc["missing"] if m["fact"] == "calibration")
        assert cal["reason"].startswith("calibration failed: the server at")
        assert any("calibration failed" in n for n in doc["notes"])
    elif command[0] == "checklist":
        assert json.loads(p.stdout)["items"]
    else:
        assert "[mysqld]" in p.stdout


def test_first_connection_refused_is_still_3():
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        port = srv.port
    refused(invoke("audit", "-h", "127.0.0.1", "-P", str(port), "-u", "root", "--no-defaults", "--connect-timeout", "2"),
            3, "cannot connect")


def test_an_error_raised_without_a_tip_still_ends_with_one(tmp_path):
    inv = tmp_path / "hosts.ini"  # the inventory reader raises this one without a Tip of its own
    inv.write_text("[dbs]\ndb1\n[dbs:vars]\nnot a setting\n")
    err = refused(invoke("fleet", str(inv), "--no-defaults"), 4, "is not KEY=VALUE")
    assert err.endswith("Tip: check the file named above; docs/snapshot-format.md and docs/writing-rules.md describe "
                        "the formats.")


# ---------------------------------------------------------------- a sysbench named on the command line is not run

def _trap(directory: Path) -> Path:
    """An executable `sysbench` that leaves a marker when run: running it is what must not happen."""
    marker = directory / "it-ran"
    trap = directory / "sysbench"
    trap.write_text(f"#!/bin/sh\ntouch {marker}\necho 'sysbench 9.9.9'\n")
    trap.chmod(0o755)
    return marker


def test_checklist_does_not_run_a_sysbench_from_the_current_directory(tmp_path, monkeypatch):
    marker = _trap(tmp_path)
    monkeypatch.chdir(tmp_path)
    p = invoke("checklist", "--demo", "-f", "json", "--sysbench", "./sysbench oltp_read_write --threads=8 run")
    assert p.returncode == 0, p.stderr
    assert not marker.exists()
    local = json.loads(p.stdout)["sysbench_here"]
    assert local["version"] is None and "not run" in local["inspected"] and "not a dynamically linked ELF" in local["reason"]


def test_a_path_entry_of_dot_is_not_searched(tmp_path, monkeypatch):
    marker = _trap(tmp_path)
    monkeypatch.chdir(tmp_path)
    p = invoke("checklist", "--demo", "-f", "json", "--sysbench", "sysbench oltp_read_write --threads=8 run",
               env={"PATH": f".:{tmp_path}/../no-such-dir"})
    assert p.returncode == 0, p.stderr
    assert not marker.exists()
    assert "not on this machine's PATH" in json.loads(p.stdout)["sysbench_here"]["reason"]


@pytest.mark.requires_tool("sysbench")
def test_an_elf_sysbench_named_by_path_is_read_without_running_it(tmp_path, monkeypatch):
    import shutil

    real = shutil.which("sysbench")
    copy_ = tmp_path / "sysbench"
    shutil.copy(real, copy_)
    copy_.chmod(0o644)  # not even executable: it is read as data
    monkeypatch.chdir(tmp_path)
    p = invoke("checklist", "--demo", "-f", "json", "--sysbench", "./sysbench oltp_read_write --threads=8 run")
    local = json.loads(p.stdout)["sysbench_here"]
    assert local["path"] == "./sysbench" and local["version"] is None and "ELF dynamic section" in local["inspected"]
    from advisor.sysbench.local import client_library_of, parse_elf_needed

    lib, file = client_library_of(parse_elf_needed(Path(real).read_bytes()) or [])
    assert (local["library"], local["library_file"]) == (lib, file) and lib is not None
    p = invoke("checklist", "--demo", "-f", "json", "--sysbench", "sysbench oltp_read_write --threads=8 run")
    on_path = json.loads(p.stdout)["sysbench_here"]
    assert on_path["path"] == real and on_path["version"] and on_path["inspected"] == "found on PATH and run with --version"


# ---------------------------------------------------------------- pure helpers of the secrets and the write probe

@pytest.mark.parametrize("name,value,secret", [
    ("report_password", "hunter2", True), ("wsrep_sst_auth", "sst:pw", True), ("report_password", "", False),
    ("ldap_bind_password", "x", True), ("my_plugin_secret", "abc", True), ("ssl_key", "/etc/mysql/key.pem", False),
    ("ssl_key", "server-key.pem", False), ("sql_require_primary_key", "OFF", False), ("some_key", "12", False),
    ("report_host", "replica-7", False), ("innodb_encrypt_key", "6b2f", True),
])
def test_secret_variables(name, value, secret):
    from advisor.knowledge.catalogue import is_secret_variable, mask_secret_variables

    assert is_secret_variable(name, value) is secret
    assert mask_secret_variables({name: value})[name] == ("***" if secret else value)


@pytest.mark.parametrize("grants,missing", [
    (["GRANT PROCESS, REPLICATION CLIENT ON *.* TO `advisor`@`%`",
      "GRANT SELECT ON `performance_schema`.* TO `advisor`@`%`"], ["CREATE", "INSERT", "DROP"]),
    (["GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"], []),
    (["GRANT USAGE ON *.* TO `a`@`%`", "GRANT CREATE, INSERT, DROP ON `advisor\\_probe\\_%`.* TO `a`@`%`"], []),
    (["GRANT USAGE ON *.* TO `a`@`%`", "GRANT CREATE, INSERT ON `advisor\\_probe\\_%`.* TO `a`@`%`"], ["DROP"]),
    (["GRANT CREATE, INSERT, DROP ON `shop`.* TO `a`@`%`"], ["CREATE", "INSERT", "DROP"]),
    (["GRANT USAGE ON *.* TO `a`@`%`", "GRANT `probe_role` TO `a`@`%`"], None),  # a role: cannot tell
])
def test_write_privileges_from_show_grants(grants, missing):
    from advisor.collect.calibrate_stats import write_privileges_missing

    assert write_privileges_missing(grants, "advisor_probe_0a1b2c3d") == missing


@pytest.mark.parametrize("argv", [["mytool", "--mysql-password", "W-Secret", "--x=1"],
                                  ["mytool", "--mysql-password W-Secret", "run"],
                                  ["mytool", "--pgsql-password=W-Secret"],
                                  ["sysbench", "oltp_read_write", "--mysql-password", "W-Secret", "--threads=x", "run"],
                                  ["sysbench", "oltp_read_write", "--mysql-password W-Secret", "run"]])
def test_watch_masks_every_password_spelling_of_its_command(argv):
    from advisor.watch.session import mask_command

    shown, _ = mask_command(argv)
    assert "W-Secret" not in shown and "***" in shown


def test_a_lone_surrogate_in_a_host_facts_file(tmp_path):
    """Legal JSON (`"\\ud800"`), not text: it used to fail only when the snapshot was serialised."""
    doc = _host_seed(tmp_path)
    text = json.dumps(doc).replace('"format": "advisor.host-raw/1"', '"format": "advisor.host-raw/1", "x": "\\ud800"', 1)
    f = tmp_path / "host.json"
    f.write_text(text)
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        p = invoke("collect", "-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults", "--host-facts", str(f))
    refused(p, 4, "surrogate")
