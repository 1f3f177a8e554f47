"""Every dump layout, written by the real clients against a real throwaway mariadbd, imports to the
same variables the advisor's own collector reads from that server: `mariadb -NBe` (tab, no header),
`mariadb -Be` (tab with header), `mariadb -te` (table), `\\G` (vertical), an information_schema
JSON export (JSON_ARRAYAGG of VARIABLE_NAME/VARIABLE_VALUE), and `mariadb-admin extended-status -i`
(pt-stalk's *-mysqladmin: repeated table samples)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from advisor.dumps import import_snapshot
from advisor.dumps.formats import detect, parse
from tests.support.cli import run_json

pytestmark = pytest.mark.requires_mariadbd

CLIENT = shutil.which("mariadb") or shutil.which("mysql")
ADMIN = shutil.which("mariadb-admin") or shutil.which("mysqladmin")


def _client(db, *args: str, sql: str) -> str:
    assert CLIENT, "the mariadb client is needed (it comes with mariadb-server)"
    p = subprocess.run([CLIENT, "--no-defaults", "-h", db.host, "-P", str(db.port), "-uroot", *args, "-e", sql],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from tests.support.mariadb import MariaDB

    db = MariaDB()
    db.start()
    try:
        yield db
    finally:
        db.close()


def _live_variables(db) -> dict[str, str]:
    return {str(k).lower(): "" if v is None else (v.decode() if isinstance(v, bytes) else str(v))
            for k, v in db.query("SHOW GLOBAL VARIABLES")}


@pytest.mark.parametrize("fmt, args, sql", [
    ("tab", ("-NB",), "SHOW GLOBAL VARIABLES"),
    ("tab", ("-B",), "SHOW GLOBAL VARIABLES"),
    ("table", ("-t",), "SHOW GLOBAL VARIABLES"),
    ("vertical", (), "SHOW GLOBAL VARIABLES\\G"),
    ("json", ("-NB", "--raw"), "SELECT JSON_ARRAYAGG(JSON_OBJECT('VARIABLE_NAME', VARIABLE_NAME, 'VARIABLE_VALUE', "
                               "VARIABLE_VALUE)) FROM information_schema.GLOBAL_VARIABLES"),
])
def test_client_output_imports_to_the_live_variables(server, tmp_path, fmt, args, sql):
    text = _client(server, *args, sql=sql)
    assert detect(text) == fmt
    path = tmp_path / f"variables.{fmt}"
    path.write_text(text)
    snap = import_snapshot(str(path), now="2026-01-01T00:00:00Z")
    live = _live_variables(server)
    got = snap.server.variables
    assert set(got) == set(live)
    # the table and \G layouts pad or trim surrounding blanks, as the client prints them; batch output is exact
    differ = {k for k in live if got[k] != live[k] and got[k] != live[k].strip()}
    assert not differ, {k: (got[k], live[k]) for k in sorted(differ)[:5]}
    assert snap.target.flavor == "mariadb" and snap.imported.sources[0].format == fmt


def test_mysqladmin_extended_status_samples_give_rates(server, tmp_path):
    assert ADMIN
    p = subprocess.run([ADMIN, "--no-defaults", "-h", server.host, "-P", str(server.port), "-uroot",
                        "extended-status", "-i", "1", "-c", "3"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    dump = parse(p.stdout)
    assert dump.format == "table" and len(dump.sections) == 1
    s = dump.sections[0]
    assert len(s.samples) == 3 and s.kind == "status"
    ups = [int(dict(x)["Uptime"]) for x in s.samples]
    assert ups == sorted(ups)
    vars_file = tmp_path / "variables.txt"
    vars_file.write_text(_client(server, "-NB", sql="SHOW GLOBAL VARIABLES"))
    status_file = tmp_path / "2026_01_01_00_00_00-mysqladmin"
    status_file.write_text(p.stdout)
    snap = import_snapshot(str(vars_file), str(status_file), now="2026-01-01T00:00:00Z")
    assert snap.server.status["Uptime"] == str(ups[-1])
    # three samples a second apart span about 2 s of Uptime: too short for rates, and the import says so
    assert snap.server.interval is None
    assert any("too short" in n for n in snap.imported.notes)


def test_cli_import_of_a_live_dump_matches_advisor_collect(server, tmp_path):
    v = tmp_path / "v.txt"
    s = tmp_path / "s.txt"
    v.write_text(_client(server, "-NB", sql="SHOW GLOBAL VARIABLES"))
    s.write_text(_client(server, "-NB", sql="SHOW GLOBAL STATUS"))
    code, snap, err = run_json("import", "--variables", str(v), "--status", str(s))
    assert code == 0, err
    code, collected, err = run_json("collect", "-h", server.host, "-P", str(server.port), "-u", "root",
                                    "--no-defaults")
    assert code == 0, err
    assert snap["target"] == {**collected["target"], "host": None, "port": None, "socket": None}
    assert snap["server"]["variables"] == collected["server"]["variables"]
    assert set(snap["server"]["status"]) == set(collected["server"]["status"])
    json.dumps(snap)


def test_pt_stalk_directory_of_live_output(server, tmp_path):
    """A pt-stalk collection directory as pt-stalk writes it: `<time>-variables` (the statement, then
    `mysql -e` output with its header, then the variables_by_thread section) and `<time>-mysqladmin`."""
    stamp = "2026_01_01_00_00_00"
    body = "\nSHOW GLOBAL VARIABLES\n\n" + _client(server, sql="SHOW GLOBAL VARIABLES")
    body += "\nselect * from performance_schema.variables_by_thread order by thread_id, variable_name;\n\n"
    (tmp_path / f"{stamp}-variables").write_text(body)
    p = subprocess.run([ADMIN, "--no-defaults", "-h", server.host, "-P", str(server.port), "-uroot",
                        "extended-status"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    (tmp_path / f"{stamp}-mysqladmin").write_text(p.stdout)
    (tmp_path / f"{stamp}-df").write_text("Filesystem 1K-blocks Used\n")
    snap = import_snapshot(str(tmp_path), now="2026-01-01T00:00:00Z")
    assert snap.server.variables == _live_variables(server)
    assert int(snap.server.status["Uptime"]) > 0 and "Com_select" in snap.server.status
    assert any("pt-stalk directory" in n for n in snap.imported.notes)


def test_import_with_host_facts_of_this_machine(server, tmp_path):
    host = tmp_path / "host.json"
    code, _, err = run_json("collect", "--host-facts-only", "-o", str(host))
    assert code == 0, err
    v = tmp_path / "v.txt"
    v.write_text(_client(server, "-NB", sql="SHOW GLOBAL VARIABLES"))
    code, snap, err = run_json("import", "--variables", str(v), "--host-facts", str(host))
    assert code == 0, err
    assert snap["host"]["memory"]["total_bytes"] > 0 and "host-facts file" in snap["host"]["origin"]
    assert "host" not in {m["fact"] for m in snap["missing"]}
