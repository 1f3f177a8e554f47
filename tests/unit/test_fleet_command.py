"""`advisor fleet --snapshots DIR` in this process over recorded servers (tests/fixtures/flavors):
snapshot files and host directories as the Ansible role fetches them, one host the playbook could not
collect. The same judgement as `advisor audit --snapshot`, JSON Lines, the roll-up, exit 6, errors."""

import json
from pathlib import Path

import pytest

from advisor.render import html
from tests.support.cli import invoke
from tests.support.fleet import make_fetched

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fetched(tmp_path_factory):
    return make_fetched(tmp_path_factory.mktemp("fetched"))


def _records(p):
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_snapshots_stream_judge_as_audit_and_roll_up(fetched):
    p = invoke("fleet", "--snapshots", str(fetched), "--format", "jsonl", "--jobs", "1")
    assert p.returncode == 6, p.stderr
    assert p.stderr.startswith("advisor: error: 1 of 6 host(s) could not be audited: db-gone (exit 6). Tip: ")
    assert p.stderr.count("\n") == 1  # one paragraph, no progress line: not a tty
    recs = _records(p)
    assert [r["schema"] for r in recs] == ["advisor.fleet-host/1"] * 6 + ["advisor.fleet-rollup/1"]
    hosts = {r["host"]: r for r in recs[:-1]}
    gone = hosts["db-gone"]
    assert gone["report"] is None and gone["exit_code"] == 3 and "Connection refused" in gone["error"]
    a = invoke("audit", "--snapshot", str(fetched / "file-host.json"), "--format", "json")
    direct = json.loads(a.stdout)
    assert [(f["rule"], f["severity"]) for f in hosts["file-host"]["report"]["findings"]] == \
           [(f["rule"], f["severity"]) for f in direct["findings"]]
    # the role's directory of the same server: the same findings, plus what the data size it fetched
    # (1.25 GiB against a 128 MiB buffer pool) decides where the snapshot file has no data size
    same = hosts["db-mariadb-10.11"]["report"]
    assert [f["rule"] for f in same["findings"] if f["rule"] != "buffer-pool-below-data-size"] == \
           [f["rule"] for f in direct["findings"]]
    assert {o["rule"]: o["status"] for o in same["outcomes"]}["buffer-pool-below-data-size"] == "fired"
    assert {o["rule"]: o["status"] for o in direct["outcomes"]}["buffer-pool-below-data-size"] == "unknown"
    rollup = recs[-1]
    assert rollup["hosts_audited"] == 5 and [u["host"] for u in rollup["unreachable"]] == ["db-gone"]
    assert [r["rule"] for r in rollup["rules"] if r["rule"] == "sort-buffer-oversized"] == ["sort-buffer-oversized"]
    assert next(r for r in rollup["rules"] if r["rule"] == "sort-buffer-oversized")["hosts"] == ["db-mysql-8.0.36"]
    drift_a = {row["variable"]: row for row in rollup["drift"]["a"]}
    assert {v["value"] for v in drift_a["sort_buffer_size"]["values"]} >= {str(64 << 20)}
    assert "version" in drift_a  # MariaDB 10.11 and MySQL 8.0 in one group
    assert set(rollup["drift"]) == {"a", "b"}  # the snapshot file is alone in no group: nothing to compare


def test_worker_processes_give_the_same_results(fetched, tmp_path):
    d = tmp_path / "many"
    d.mkdir()
    src = (fetched / "file-host.json").read_text()
    for i in range(10):
        (d / f"h{i:02d}.json").write_text(src)
    one = invoke("fleet", "--snapshots", str(d), "--format", "json", "--jobs", "1")
    two = invoke("fleet", "--snapshots", str(d), "--format", "json", "--jobs", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert [t["host"] for t in a["targets"]] == [t["host"] for t in b["targets"]] == [f"h{i:02d}" for i in range(10)]
    assert [t["report"]["findings"] for t in a["targets"]] == [t["report"]["findings"] for t in b["targets"]]
    assert a["rollup"]["rules"] == b["rollup"]["rules"] and a["rollup"]["drift"] == {"all": []}
    assert invoke("fleet", "--snapshots", str(d), "--fail-on", "info").returncode == 1


def test_json_lines_written_by_the_workers_are_the_lines_one_process_writes(fetched, tmp_path):
    """With --format jsonl a worker writes its host's record and sends back only the fired outcomes
    (advisor.fleet._slim_entry): the records, the roll-up and --fail-on are the same as in one process."""
    d = tmp_path / "mixed"
    d.mkdir()
    for i in range(4):  # snapshot files and role directories, with findings of every severity
        for p in fetched.iterdir():
            if p.name.startswith("db-gone"):
                continue
            target = d / f"{i}-{p.name}"
            if p.is_dir():
                import shutil

                shutil.copytree(p, target)
            else:
                target.write_text(p.read_text())
    one = invoke("fleet", "--snapshots", str(d), "--format", "jsonl", "--jobs", "1")
    two = invoke("fleet", "--snapshots", str(d), "--format", "jsonl", "--jobs", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr

    def plain(p):
        recs = _records(p)
        for r in recs:
            for k in ("seconds", "timings", "wall_seconds", "jobs"):
                r.pop(k, None)
            if r.get("report"):  # a role directory without a collection time is stamped when it is read
                r["report"].pop("collected_at")
        return sorted(recs[:-1], key=lambda r: (r["host"], r["report"]["source"])), recs[-1]

    hosts_one, rollup_one = plain(one)
    hosts_two, rollup_two = plain(two)
    assert len(hosts_one) >= 16 and hosts_one == hosts_two
    assert any(o["status"] == "passed" for o in hosts_two[0]["report"]["outcomes"])  # the whole report, not the slim one
    assert rollup_one == rollup_two
    for severity in ("critical", "warning", "info"):
        assert invoke("fleet", "--snapshots", str(d), "--format", "jsonl", "--jobs", "2", "--fail-on", severity,
                      "-o", str(tmp_path / "out.jsonl")).returncode == \
               invoke("fleet", "--snapshots", str(d), "--format", "jsonl", "--jobs", "1", "--fail-on", severity,
                      "-o", str(tmp_path / "out.jsonl")).returncode


def test_text_shows_the_rollup(fetched):
    p = invoke("fleet", "--snapshots", str(fetched), "--jobs", "1")
    assert p.returncode == 6
    assert "Rules across 5 audited host(s):" in p.stdout
    assert "Not audited (1):\n  db-gone: the playbook could not collect db-gone: unreachable" in p.stdout
    assert "Drift in group a: " in p.stdout and "sort_buffer_size: " in p.stdout


def test_html_shows_the_rollup(fetched, tmp_path):
    out = tmp_path / "fleet.html"
    p = invoke("fleet", "--snapshots", str(fetched), "--format", "html", "-o", str(out), "--jobs", "1")
    assert p.returncode == 6
    page = out.read_text()
    assert "Rules across 5 audited hosts" in page and "Not audited (1)" in page
    assert "Configuration drift in group a" in page and "db-mysql-8.0.36" in page


@pytest.mark.parametrize("args,needle,code", [
    ((), "needs a target file or --snapshots", 2),
    (("x.txt", "--snapshots", "d"), "needs a target file or --snapshots", 2),
    (("--snapshots", "/nonexistent-dir"), "is not a directory", 2),
    (("/nonexistent-file",), "does not exist", 2),
    (("--snapshots", "/tmp", "--calibrate"), "does not apply with --snapshots", 2),
])
def test_bad_input_is_one_paragraph(args, needle, code):
    p = invoke("fleet", *args)
    assert p.returncode == code and needle in p.stderr and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1


def test_empty_snapshot_directory(tmp_path):
    p = invoke("fleet", "--snapshots", str(tmp_path))
    assert p.returncode == 2 and "holds no snapshots" in p.stderr


def test_progress_line():
    import io

    from advisor.commands.fleet import Progress
    from advisor.fleet import FleetResult, FleetTarget

    s = io.StringIO()
    pr = Progress(s, 4)
    pr.step(FleetResult(FleetTarget(1, "db1", "db1", None, None, name="db1"), 0.1, error="x", exit_code=3))
    pr.done()
    assert s.getvalue().startswith("\r[######..................] 1/4 hosts, 1 not audited, last db1")
    assert s.getvalue().endswith("\r\x1b[K")


def test_html_rollup_sections():
    rollup = {"hosts_audited": 0, "rules": [], "unreachable": [{"host": "db1", "error": "down", "exit_code": 3}],
              "drift": {"all": []}}
    secs = html.rollup_sections(rollup)
    assert [s.id for s in secs] == ["rollup-rules", "rollup-unreachable", "drift-all"]
    assert secs[0].paragraphs == ["No rule fired on any host."]


def test_ignore_and_purpose_apply_to_every_host(fetched):
    p = invoke("fleet", "--snapshots", str(fetched), "--ignore", "no-such-rule")
    assert p.returncode == 2 and "--ignore names unknown rule id(s): no-such-rule" in p.stderr
    base = _records(invoke("fleet", "--snapshots", str(fetched), "--format", "jsonl", "--jobs", "1"))[-1]
    fired = {r["rule"] for r in base["rules"]}
    assert "sort-buffer-oversized" in fired
    p = invoke("fleet", "--snapshots", str(fetched), "--format", "jsonl", "--jobs", "1", "--ignore",
               "sort-buffer-oversized", "--purpose", "benchmark")
    recs = _records(p)
    assert "sort-buffer-oversized" not in {r["rule"] for r in recs[-1]["rules"]}
    assert recs[-1]["purpose"] == "benchmark" and all(r["report"]["purpose"] == "benchmark" for r in recs[:-1] if r["report"])


def test_outputs_validate_against_their_schemas(fetched):
    import jsonschema

    def validator(name):
        return jsonschema.Draft202012Validator(json.loads((ROOT / "docs" / "schemas" / f"{name}.schema.json").read_text()))

    recs = _records(invoke("fleet", "--snapshots", str(fetched), "--format", "jsonl", "--jobs", "1"))
    host, rollup = validator("fleet-host"), validator("fleet-rollup")
    for r in recs[:-1]:
        host.validate(r)
    rollup.validate(recs[-1])
    doc = json.loads(invoke("fleet", "--snapshots", str(fetched), "--format", "json", "--jobs", "1").stdout)
    validator("fleet").validate(doc)
    with pytest.raises(jsonschema.ValidationError):
        host.validate({**recs[0], "password": "x"})  # nothing the writer never writes


def test_audit_reads_a_fetched_host_directory_as_fleet_does(fetched):
    """`advisor audit --snapshot fetched/HOST` judges a host's directory exactly as fleet does."""
    hosts = {r["host"]: r for r in _records(invoke("fleet", "--snapshots", str(fetched), "--format", "jsonl",
                                                   "--jobs", "1"))[:-1]}
    for name in ("db-mysql-8.0.36", "db-percona-8.0"):
        p = invoke("audit", "--snapshot", str(fetched / name), "--format", "json")
        assert p.returncode == 0, p.stderr
        direct = json.loads(p.stdout)
        ours = hosts[name]["report"]
        assert [(f["rule"], f["severity"], f["message"]) for f in ours["findings"]] == \
               [(f["rule"], f["severity"], f["message"]) for f in direct["findings"]]
        assert ours["outcomes"] == direct["outcomes"]
    p = invoke("audit", "--snapshot", str(fetched / "db-gone"))
    assert p.returncode == 4 and "the playbook could not collect the host" in p.stderr and p.stderr.count("\n") == 1


def test_progress_on_a_terminal_only(fetched):
    """Standard error on a real pseudo-terminal gets the progress line; standard output (a pipe) only the
    JSON lines; with standard error on a pipe there is no progress at all (the other tests)."""
    import os
    import subprocess
    import sys

    master, slave = os.openpty()
    env = {**os.environ, "HOME": "/nonexistent-advisor-home"}
    p = subprocess.Popen([sys.executable, "-m", "advisor", "fleet", "--snapshots", str(fetched), "--format", "jsonl",
                          "--jobs", "1"], stdout=subprocess.PIPE, stderr=slave, text=True, env=env)
    os.close(slave)
    out, _ = p.communicate(timeout=120)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    tty = b"".join(chunks).decode()
    assert p.returncode == 6
    assert "6/6 hosts, 1 not audited" in tty and "[########################]" in tty
    assert "could not be audited: db-gone" in tty
    assert [json.loads(line)["schema"] for line in out.splitlines()][-1] == "advisor.fleet-rollup/1"
    assert "\r" not in out and "[#" not in out
