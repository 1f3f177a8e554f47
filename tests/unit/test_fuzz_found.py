"""What an independent fuzz run found (issue 24 §5), one regression per cause, through the real CLI
entry point: each input is refused with one `advisor: error:` paragraph and its documented exit code
(README, "Output and exit codes"), never exit 70."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fuzz.harness import stderr_shape
from tests.support.cli import invoke, run_cli
from tests.support.wire_server import ReplayServer

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "src/advisor/data/demo-seed-000.json")
LONG_NAME = "/tmp/" + "a" * 300  # one name of 300 bytes: longer than NAME_MAX (255)


def refused(p: Any, code: int, *words: str) -> str:
    assert p.returncode == code, (p.returncode, p.stderr)
    assert stderr_shape(p.returncode, p.stderr) == "", p.stderr
    for w in words:
        assert w in p.stderr, (w, p.stderr)
    return p.stderr


def _live(srv: Any) -> tuple[str, ...]:
    return ("-h", srv.host, "-P", str(srv.port), "-u", "root", "--no-defaults", "--connect-timeout", "3")


# ---------------------------------------------------------------- (a) a path field of the wrong type

@pytest.mark.parametrize("field,value", [("realpath", {"x": 1}), ("realpath", ["/data"]), ("dev", [259, 2]),
                                         ("exists", "yes")])
def test_host_facts_path_entry_of_the_wrong_type(tmp_path, field, value):
    from tests.fuzz.surfaces import host_facts_seed

    doc = json.loads(host_facts_seed(tmp_path))
    doc["raw"]["paths"] = {"/var/lib/mysql/": {"realpath": "/var/lib/mysql", "dev": "259:2", "exists": True,
                                               field: value}}
    f = tmp_path / "host.json"
    f.write_text(json.dumps(doc))
    with ReplayServer.from_set("mysql-8.0.36") as srv:
        p = invoke("audit", *_live(srv), "--no-calibrate", "--host-facts", str(f))
    refused(p, 4, f"raw.paths['/var/lib/mysql/'].{field} is {type(value).__name__}")


# ---------------------------------------------------------------- (b) a file name longer than the OS allows

@pytest.mark.parametrize("args", [
    ("audit", "--snapshot", LONG_NAME + ".json"),
    ("audit", "--no-calibrate", "--defaults-file", LONG_NAME + ".cnf", "--connect-timeout", "1"),
    ("audit", "--no-calibrate", "--defaults-extra-file", LONG_NAME + ".cnf", "--connect-timeout", "1"),
    ("mycnf", "--validate", LONG_NAME + ".cnf", "--no-server-check"),
    ("verify", "--cnf", LONG_NAME + ".cnf", "--snapshot", DEMO),
    ("audit", "--demo", "--rules", LONG_NAME),
    ("collect", "-h", "127.0.0.1", "-P", "1", "--no-defaults", "--ssl-ca", LONG_NAME + ".pem"),
], ids=lambda a: " ".join(x for x in a if x.startswith("--") and x != "--no-calibrate")[:40])
def test_a_file_name_longer_than_the_system_allows(args):
    err = refused(invoke(*args), 2, "cannot use the file", "File name too long", "characters)")
    assert "a" * 200 not in err  # the name is cut in the message


def test_a_long_file_name_in_a_subprocess():
    refused(run_cli("audit", "--snapshot", LONG_NAME + ".json"), 2, "File name too long")


def test_an_include_name_longer_than_the_system_allows(tmp_path):
    f = tmp_path / "my.cnf"
    for line in (f"!include {LONG_NAME}.cnf", f"!includedir {LONG_NAME}"):
        f.write_text(f"[client]\nhost = 127.0.0.1\nport = 1\n{line}\n")
        p = invoke("audit", "--no-calibrate", "--defaults-file", str(f), "--connect-timeout", "1")
        assert p.returncode in (2, 3), p.stderr
        assert stderr_shape(p.returncode, p.stderr) == "", p.stderr


# ---------------------------------------------------------------- (d) a NUL byte in a server value

@pytest.mark.parametrize("command", [("collect",), ("audit", "--no-calibrate"), ("mycnf",)])
def test_a_nul_byte_in_the_servers_datadir(command):
    with ReplayServer.from_set("mysql-8.0.36", overrides={"datadir": "/var/lib/my\x00sql/"}) as srv:
        p = invoke(*command, *_live(srv))
    assert p.returncode in (0, 1), p.stderr
    assert stderr_shape(p.returncode, p.stderr) == "", p.stderr
    if command == ("collect",):
        doc = json.loads(p.stdout)
        assert doc["host"]["datadir"]["path"] == "/var/lib/my\x00sql"  # kept as the server said it


def test_an_include_name_holding_a_nul_byte(tmp_path):
    f = tmp_path / "my.cnf"
    f.write_bytes(b"[client]\nhost = 127.0.0.1\nport = 1\n!include /etc/my\x00.cnf\n")
    p = invoke("audit", "--no-calibrate", "--defaults-file", str(f), "--connect-timeout", "1")
    refused(p, 2, "holds a NUL byte")


# ---------------------------------------------------------------- the password prompt without a terminal

def test_password_prompt_without_a_terminal_is_the_advisors_own_lines(tmp_path):
    f = tmp_path / "my.cnf"
    f.write_text("[client]\nhost = 127.0.0.1\nport = 1\npassword\n")
    p = run_cli("audit", "--no-calibrate", "--defaults-file", str(f), "--connect-timeout", "1", input="")
    refused(p, 2, "none was typed")
    assert "Warning: Password input may be echoed" not in p.stderr
    assert "advisor: warning: no terminal" in p.stderr


# ---------------------------------------------------------------- bounded reads (advisor.collect.limits)

def test_a_huge_answer_is_cut_and_the_cut_is_reported():
    import re

    from advisor.collect.dictionary import Q_INNODB_TABLES
    from advisor.collect.limits import MAX_ROWS, MAX_VALUE_CHARS

    with ReplayServer.from_set("mysql-8.0.36") as srv:
        srv.variables["init_connect"] = "x" * (MAX_VALUE_CHARS + 10)
        rows = [["db", f"t{i}"] for i in range(MAX_ROWS + 10)]
        srv.set_canned([{"match": "^" + re.escape(Q_INNODB_TABLES[:40]), "columns": ["TABLE_SCHEMA", "TABLE_NAME"],
                         "rows": rows}, *srv.canned])
        p = invoke("collect", *_live(srv))
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        assert len(doc["server"]["variables"]["init_connect"]) == MAX_VALUE_CHARS
        cuts = {m["fact"]: m["reason"] for m in doc["missing"] if "read in part" in m["reason"]}
        assert f"1 value(s) longer than {MAX_VALUE_CHARS:,} characters cut" in cuts["server.variables"]
        assert f"{MAX_ROWS + 10:,} rows answered, the first {MAX_ROWS:,} kept" in cuts["server.innodb_tables"]
        text = invoke("audit", "--no-calibrate", *_live(srv))
        assert text.returncode in (0, 1), text.stderr
        assert "read in part" in text.stdout
