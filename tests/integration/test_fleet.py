"""`advisor fleet` against ten throwaway servers listed in an Ansible inventory (its JSON from real
`ansible-inventory --list`), one of them down: JSON Lines as hosts finish, the roll-up (rules across
hosts, per-host counts, the host not audited with its error, drift per group), exit 6 naming the down
host whatever --fail-on says. One set of servers serves every assertion."""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.cli import run_cli, run_json
from tests.support.mariadb import PW_PASSWORD, PW_USER, MariaDB
from tests.support.tools import require_ansible

pytestmark = pytest.mark.requires_mariadbd

SMALL = {"innodb-buffer-pool-size": "16M", "key-buffer-size": "1M", "performance-schema": "OFF"}
ODD = 7  # db07 (group west) runs with a 32M sort buffer: it fires sort-buffer-oversized and drifts


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    base = tmp_path_factory.mktemp("fleet")
    dbs = [MariaDB(options={**SMALL, "sort-buffer-size": "32M"} if i == ODD else SMALL) for i in range(1, 11)]
    pool = ThreadPoolExecutor(5)  # the servers die with the thread that started them: keep it to the end
    try:
        list(pool.map(lambda d: d.start(), dbs))
        dbs[2].stop()  # db03 is down
        lines = ["[east]"] + [f"db{i:02d} ansible_host=127.0.0.1 mysql_port={dbs[i - 1].port}" for i in range(1, 6)]
        lines += ["[west]"] + [f"db{i:02d} ansible_host=127.0.0.1 mysql_port={dbs[i - 1].port}" for i in range(6, 11)]
        lines += ["[all:vars]", "mysql_user=root", ""]
        ini = base / "hosts.ini"
        ini.write_text("\n".join(lines))
        p = subprocess.run([require_ansible("ansible-inventory"), "-i", str(ini), "--list"], capture_output=True,
                           text=True, check=True, env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
                                                       "HOME": str(base), "LC_ALL": "C.UTF-8"})
        inv = base / "inventory.json"
        inv.write_text(p.stdout)
        yield {"dbs": dbs, "json": inv, "ini": ini, "dir": base}
    finally:
        for d in dbs:
            d.close()
        pool.shutdown()


def _validator(name):
    import jsonschema

    root = Path(__file__).resolve().parents[2]
    return jsonschema.Draft202012Validator(json.loads((root / "docs" / "schemas" / f"{name}.schema.json").read_text()))


@pytest.fixture(scope="module")
def jsonl(fleet):
    p = run_cli("fleet", str(fleet["json"]), "--jobs", "4", "--no-defaults", "--format", "jsonl", "--fail-on",
                "critical", timeout=300)
    return p


def test_json_lines_one_per_host_then_the_rollup(jsonl):
    assert jsonl.returncode == 6, jsonl.stderr
    assert "1 of 10 host(s) could not be audited: db03" in jsonl.stderr
    records = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert [r["schema"] for r in records] == ["advisor.fleet-host/1"] * 10 + ["advisor.fleet-rollup/1"]
    for r in records:
        _validator(r["schema"].split(".", 1)[1].split("/")[0]).validate(r)
    hosts = {r["host"]: r for r in records[:-1]}
    assert sorted(hosts) == [f"db{i:02d}" for i in range(1, 11)]
    down = hosts["db03"]
    assert down["report"] is None and down["exit_code"] == 3 and "2003" in down["error"]
    for name, r in hosts.items():
        assert r["groups"] == (["east"] if name <= "db05" else ["west"])
        if name != "db03":
            # judged as `advisor audit` judges it: collected with host facts, calibrated as the purpose says
            assert r["report"]["target"]["flavor"] == "mariadb" and r["host_facts"] == "local"
            assert r["report"]["calibration"]["mode"] == "light"
            assert set(r["timings"]) == {"collect", "calibrate", "audit"}
    rollup = records[-1]
    assert (rollup["hosts_total"], rollup["hosts_audited"], rollup["hosts_unreachable"]) == (10, 9, 1)
    assert [u["host"] for u in rollup["unreachable"]] == ["db03"] and "2003" in rollup["unreachable"][0]["error"]
    rules = {r["rule"]: r for r in rollup["rules"]}
    assert rules["sort-buffer-oversized"]["hosts"] == ["db07"]
    every = [r for r in rollup["rules"] if r["count"] == 9]
    assert every, "some rule fires on every audited server (they share one configuration)"
    per_host = {h["host"]: h for h in rollup["hosts"]}
    for name, r in hosts.items():
        if r["report"]:
            counts = r["report"]["summary"]
            assert {s: per_host[name][s] for s in ("critical", "warning", "info")} == \
                   {s: counts[s] for s in ("critical", "warning", "info")}, name
    drift = {g: {row["variable"]: row for row in rows} for g, rows in rollup["drift"].items()}
    assert set(drift) == {"east", "west"}
    assert "sort_buffer_size" not in drift["east"]
    assert drift["west"]["sort_buffer_size"]["values"] == [
        {"value": "2097152", "hosts": ["db06", "db08", "db09", "db10"]}, {"value": str(32 << 20), "hosts": ["db07"]}]
    assert list(drift["west"]) == ["sort_buffer_size"]  # port, socket, the paths under the datadir name the host


def test_text_and_json_show_the_rollup_and_drift(fleet, tmp_path):
    p = run_cli("fleet", str(fleet["ini"]), "--no-defaults", timeout=300)
    assert p.returncode == 6
    assert "Rules across 9 audited host(s):" in p.stdout and "sort-buffer-oversized" in p.stdout
    assert "Not audited (1):\n  db03: cannot connect" in p.stdout
    assert "Drift in group west: 1 variable(s) differ\n  sort_buffer_size: 2097152 on db06, db08, db09, db10; 33554432 on db07" in p.stdout
    assert "Drift in group east: none" in p.stdout
    code, doc, err = run_json("fleet", str(fleet["json"]), "--no-defaults", "--format", "json", "--no-calibrate",
                              timeout=300)
    assert code == 6 and doc["schema"] == "advisor.fleet/1"
    _validator("fleet").validate(doc)
    assert [t["host"] for t in doc["targets"]] == [f"db{i:02d}" for i in range(1, 11)]
    assert doc["rollup"]["unreachable"][0]["host"] == "db03"
    assert doc["rollup"]["drift"]["west"][0]["variable"] == "sort_buffer_size"
    html = tmp_path / "fleet.html"
    p = run_cli("fleet", str(fleet["json"]), "--no-defaults", "--format", "html", "-o", str(html), "--no-calibrate",
                timeout=300)
    assert p.returncode == 6
    page = html.read_text()
    assert "Configuration drift in group west" in page and "sort-buffer-oversized" in page and "db03" in page


def test_percona_dsns_and_plain_lines(fleet, tmp_path):
    dbs = fleet["dbs"]
    f = tmp_path / "dsns.txt"
    f.write_text(f"h=127.0.0.1,P={dbs[0].port},u=root\nS={dbs[1].socket},u=root\n"
                 f"h=127.0.0.1,P={dbs[3].port},u={PW_USER},p={PW_PASSWORD}\n")
    p = run_cli("fleet", str(f), "--no-defaults", "--format", "json", "--no-calibrate")
    assert p.returncode == 0, p.stderr
    assert PW_PASSWORD not in p.stdout + p.stderr  # the DSN's p= logs in and is shown nowhere
    doc = json.loads(p.stdout)
    assert [t["target"] for t in doc["targets"]] == [f"h=127.0.0.1,P={dbs[0].port},u=root", f"S={dbs[1].socket},u=root",
                                                     f"h=127.0.0.1,P={dbs[3].port},u={PW_USER},p=…"]
    assert all(t["report"]["target"]["flavor"] == "mariadb" for t in doc["targets"])
    f.write_text(f"127.0.0.1:{dbs[0].port}\n")
    p = run_cli("fleet", str(f), "--user", "root", "--no-defaults", "--no-calibrate", "--fail-on", "info")
    assert p.returncode == 1  # a finding at or above --fail-on, every host audited
