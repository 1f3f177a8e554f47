import socket

import pytest

from tests.support.cli import run_cli, run_json

pytestmark = pytest.mark.requires_mariadbd


def test_fleet_audits_in_parallel_and_reports_failures(mariadb_factory, tmp_path):
    dbs = [mariadb_factory(), mariadb_factory(options={"sort-buffer-size": "32M"}), mariadb_factory()]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    lst = tmp_path / "fleet.txt"
    lst.write_text("".join(f"127.0.0.1:{d.port}\n" for d in dbs) + f"127.0.0.1:{dead}  # down\n")
    code, data, err = run_json("fleet", str(lst), "--jobs", "3", "--user", "root", "--no-defaults", "--format", "json")
    assert code == 0, err
    assert data["schema"] == "advisor.fleet/1" and data["jobs"] == 3
    rows = data["targets"]
    assert [r["target"] for r in rows][:3] == [f"127.0.0.1:{d.port}" for d in dbs]
    assert all(r["report"]["target"]["flavor"] == "mariadb" for r in rows[:3])
    # each server is judged as `advisor audit` judges it: collected, calibrated as the purpose says (light here)
    assert all(r["report"]["calibration"]["mode"] == "light" for r in rows[:3])
    assert all(set(r["timings"]) == {"collect", "calibrate", "audit"} for r in rows[:3])
    assert rows[3]["report"] is None and rows[3]["exit_code"] == 3 and "2003" in rows[3]["error"]
    fired = {f["rule"] for f in rows[1]["report"]["findings"]}
    assert "sort-buffer-oversized" in fired
    p = run_cli("fleet", str(lst), "--user", "root", "--no-defaults", "--fail-on", "critical")
    assert p.returncode == 1  # one server could not be audited
    assert "1 failed" in p.stdout
