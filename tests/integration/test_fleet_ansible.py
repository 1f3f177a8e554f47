"""Issue 17 acceptance: the Ansible role and playbook under ansible/ run by real ansible-core against
three "hosts" reached over real ssh (three throwaway sshd on loopback ports, each with its own
throwaway mariadbd), plus one host whose sshd is not there. The playbook fetches per-host results to
the controller; `advisor fleet --snapshots` audits them and judges each server as `advisor audit`
run against it directly does; the host that could not be reached makes the exit 6 and is named."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from advisor.collect.dictionary import dictionary_statements
from tests.support.cli import run_cli, run_json
from tests.support.mariadb import PW_PASSWORD, PW_USER, RO_PASSWORD, RO_USER, MariaDB
from tests.support.sshd import Sshd, free_port, keygen
from tests.support.tools import require_ansible, require_tool

pytestmark = [pytest.mark.requires_mariadbd, pytest.mark.requires_tool("sshd", "ssh", "ssh-keygen", "mariadb")]

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"innodb-buffer-pool-size": "16M", "key-buffer-size": "1M", "performance-schema": "OFF"}
OPTIONS = [SMALL, {**SMALL, "sort-buffer-size": "32M"}, SMALL]


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    """Three (sshd, mariadbd) pairs started in parallel, and one sshd port nobody listens on."""
    require_tool("sshd")
    require_tool("mariadb")
    base = tmp_path_factory.mktemp("ansible-hosts")
    key = base / "id_client"
    keygen(key)
    sshds = [Sshd(base / f"ssh{i}", client_key=key) for i in range(3)]
    dbs = [MariaDB(options=o) for o in OPTIONS]
    # the servers die with the thread that started them (PR_SET_PDEATHSIG): keep the threads until the end
    pool = ThreadPoolExecutor(6)
    try:
        list(pool.map(lambda x: x.start(), sshds + dbs))
        known = base / "known_hosts"
        known.write_text("".join(s.known_hosts.read_text() for s in sshds))
        yield {"dir": base, "key": key, "known": known, "pairs": list(zip(sshds, dbs)), "dead_port": free_port()}
    finally:
        for x in sshds + dbs:
            x.stop() if isinstance(x, Sshd) else x.close()
        pool.shutdown()


def _error_of(d: Path) -> str:
    """What the role recorded for a host it could not collect (for the assertion message)."""
    f = d / "error.json"
    return f.read_text(errors="replace") if f.is_file() else ""


def _inventory(hosts, path: Path) -> Path:
    lines = ["[dbs]"]
    # db1 and db2 with the mysql client (as on a host without the advisor), db3 with the advisor installed there
    # db2 as pwuser, its password from the vault (host_vars/db2.yml); db1 through 127.0.0.1:mysql_port
    on_host = ["never", "never", str(Path(sys.executable).parent / "advisor")]
    users = ["root", PW_USER, "root"]
    for i, (s, db) in enumerate(hosts["pairs"], 1):
        where = f"mysql_port={db.port}" if i == 1 else f"mysql_socket={db.socket}"  # db1 over TCP on the host
        lines.append(f"db{i} ansible_host=127.0.0.1 ansible_port={s.port} {where} "
                     f"mysql_user={users[i - 1]} advisor_on_host={on_host[i - 1]}")
    lines += ["", "[gone]", f"db9 ansible_host=127.0.0.1 ansible_port={hosts['dead_port']} mysql_port={hosts['dead_port']}", "",
              "[all:vars]", "ansible_user=root", f"ansible_ssh_private_key_file={hosts['key']}",
              f"ansible_ssh_common_args='-o UserKnownHostsFile={hosts['known']} -o StrictHostKeyChecking=yes "
              "-o ControlMaster=no -o ConnectTimeout=5'",
              "ansible_python_interpreter=/usr/bin/python3", ""]
    path.write_text("\n".join(lines))
    return path


def _ansible_env(tmp: Path) -> dict[str, str]:
    (tmp / "ansible.cfg").write_text("[defaults]\n")
    return {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "HOME": str(tmp), "LC_ALL": "C.UTF-8", "ANSIBLE_CONFIG": str(tmp / "ansible.cfg"),
            "ANSIBLE_LOCAL_TEMP": str(tmp / "local-tmp"), "ANSIBLE_REMOTE_TEMP": str(tmp / "remote-tmp"),
            "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORKS": "4", "ANSIBLE_RETRY_FILES_ENABLED": "0",
            "ANSIBLE_PIPELINING": "1",
            # ssh's control socket must fit a Unix socket path (108 bytes): under ~/.ansible/cp in a pytest
            # tmp dir (popen-gw0/test_…/) it does not; %C is the hash of host, port and user
            "ANSIBLE_SSH_CONTROL_PATH": "/tmp/ansible-cp-%%C"}


def _vault_password(tmp: Path, env: dict[str, str]) -> None:
    """db2's password, encrypted with real ansible-vault into host_vars/db2.yml beside the inventory."""
    (tmp / "vault-pass").write_text("advisor-test-vault\n")
    p = subprocess.run([require_ansible("ansible-vault"), "encrypt_string", "--vault-password-file",
                        str(tmp / "vault-pass"), "--name", "mysql_password", PW_PASSWORD],
                       capture_output=True, text=True, env=env, check=True)
    assert PW_PASSWORD not in p.stdout and "$ANSIBLE_VAULT" in p.stdout
    (tmp / "host_vars").mkdir()
    (tmp / "host_vars" / "db2.yml").write_text(p.stdout)


def _sort_counters(hosts) -> list[dict[str, int]]:
    return [{k: int(v) for k, v in db.query("SHOW GLOBAL STATUS LIKE 'Sort%'")} for _, db in hosts["pairs"]]


def _task_times(junit_dir: Path) -> list[str]:
    """The playbook's tasks by the time they took, summed over the hosts (ansible's junit report)."""
    from xml.etree import ElementTree as ET

    total: dict[str, list[float]] = {}
    for f in junit_dir.glob("*.xml"):
        for case in ET.parse(f).iter("testcase"):
            name = re.sub(r"^\[[^]]*\]\s*", "", case.get("name") or "?")  # "[db1] Collect: ..." -> "Collect: ..."
            total.setdefault(name[:70], []).append(float(case.get("time") or 0))
    rows = sorted(total.items(), key=lambda kv: -sum(kv[1]))
    return [f"  {sum(t):6.2f} s  {len(t):3d} x  {name}" for name, t in rows[:12]]


def _findings(report: dict) -> list[tuple[str, str]]:
    return sorted((f["rule"], f["severity"]) for f in report["findings"])


def test_playbook_collects_over_ssh_and_fleet_judges_as_audit(hosts, tmp_path):
    playbook = require_tool("ansible-playbook")
    inv = _inventory(hosts, tmp_path / "hosts.ini")
    fetched = tmp_path / "fetched"
    env = _ansible_env(tmp_path)
    _vault_password(tmp_path, env)
    sorts = _sort_counters(hosts)
    # what the run spends its time on (printed, not asserted): ansible-core's junit callback times each task
    env.update({"ANSIBLE_CALLBACKS_ENABLED": "ansible.builtin.junit", "JUNIT_OUTPUT_DIR": str(tmp_path / "junit"),
                "JUNIT_TASK_CLASS": "yes"})
    t0 = time.monotonic()
    p = subprocess.run([playbook, "-i", str(inv), str(ROOT / "ansible" / "collect.yml"),
                        "-e", f"advisor_fetch_dir={fetched}", "--vault-password-file", str(tmp_path / "vault-pass")],
                       capture_output=True, text=True, env=env, timeout=300)
    print(f"\nansible-playbook: {time.monotonic() - t0:.1f} s wall for 4 hosts (3 collected, 1 unreachable)")
    print("\n".join(_task_times(tmp_path / "junit")))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    # no statement of the role sorts: a later audit judges Sort_* (sort-buffer-oversized) as this one did
    assert _sort_counters(hosts) == sorts
    assert "WARNING" not in p.stdout + p.stderr, p.stdout[-3000:] + p.stderr[-3000:]
    assert sorted(x.name for x in fetched.iterdir()) == ["db1", "db2", "db3", "db9"]
    for name in ("db1", "db2"):
        files = sorted(x.name for x in (fetched / name).iterdir())
        dictionary = sorted(f"dict-{k}.tsv" for k, _ in dictionary_statements({"version": "10.11.0-MariaDB"}))
        assert files == sorted(["data-size.tsv", "host-raw.json", "meta.json", "read-at.txt", "status.tsv",
                                "variables.tsv"] + dictionary), (name, files, _error_of(fetched / name))
    # db2 logged in with the vaulted password: it is nowhere in Ansible's output or in what was fetched
    assert PW_PASSWORD not in p.stdout + p.stderr
    assert not [f for f in fetched.rglob("*") if f.is_file() and PW_PASSWORD in f.read_text(errors="replace")]
    assert sorted(x.name for x in (fetched / "db3").iterdir()) == ["meta.json", "snapshot.json"]
    assert json.loads((fetched / "db9" / "error.json").read_text())["error"].startswith("unreachable")
    # nothing stays on the hosts: the work directories (and the gatherer copied there) are gone
    assert not list(Path("/tmp").glob("advisor.*/host_gather.py"))

    out = tmp_path / "fleet.jsonl"
    r = run_cli("fleet", "--snapshots", str(fetched), "--format", "jsonl", "-o", str(out), timeout=120)
    assert r.returncode == 6, r.stderr
    assert "db9" in r.stderr and "could not be audited" in r.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["schema"] for x in lines] == ["advisor.fleet-host/1"] * 4 + ["advisor.fleet-rollup/1"]
    by_host = {x["host"]: x for x in lines[:-1]}
    rollup = lines[-1]
    assert by_host["db9"]["report"] is None and "unreachable" in by_host["db9"]["error"]
    assert [u["host"] for u in rollup["unreachable"]] == ["db9"]

    for i, (_, db) in enumerate(hosts["pairs"], 1):
        h = by_host[f"db{i}"]
        # read on the host: the gatherer's output fetched (file), or advisor collect there (local)
        assert h["groups"] == ["dbs"] and h["host_facts"] == ("local" if i == 3 else "file")
        code, direct, err = run_json("audit", "-h", "127.0.0.1", "-P", str(db.port), "-u", "root", "--no-defaults",
                                     "--format", "json")
        assert code == 0, err
        assert _findings(h["report"]) == _findings(direct), f"db{i}"
        status = {o["rule"]: o["status"] for o in h["report"]["outcomes"]}
        direct_status = {o["rule"]: o["status"] for o in direct["outcomes"]}
        assert status["buffer-pool-below-data-size"] == direct_status["buffer-pool-below-data-size"] == "passed"
        assert h["report"]["target"]["version"] == direct["target"]["version"]
        if i < 3:  # dumps fetched by the role: the address is the inventory's, the port the server's own
            assert (h["report"]["target"]["host"], h["report"]["target"]["port"]) == ("127.0.0.1", db.port)
    assert "sort-buffer-oversized" in {f["rule"] for f in by_host["db2"]["report"]["findings"]}
    one = run_cli("audit", "--snapshot", str(fetched / "db1"))
    assert one.returncode in (0, 1) and f"at 127.0.0.1:{hosts['pairs'][0][1].port}" in one.stdout.splitlines()[0], \
        one.stdout[:500]
    assert "sort-buffer-oversized" not in {f["rule"] for f in by_host["db1"]["report"]["findings"]}
    drift = {row["variable"]: row for row in rollup["drift"]["dbs"]}
    assert drift["sort_buffer_size"]["values"][1] == {"value": str(32 << 20), "hosts": ["db2"]}
    sort_rule = next(x for x in rollup["rules"] if x["rule"] == "sort-buffer-oversized")
    assert sort_rule["hosts"] == ["db2"]


def test_live_fleet_reads_host_facts_over_ssh_from_the_inventory(hosts, tmp_path):
    """`advisor fleet INVENTORY --ssh-host-facts`: the servers from here, their hosts' facts over ssh at
    each host's inventory address (ansible_user, ansible_port, the key, the known_hosts of
    ansible_ssh_common_args); the judgement is audit's with --ssh."""
    lines = ["[dbs]"] + [f"db{i} ansible_host=127.0.0.1 ansible_port={s.port} mysql_port={db.port}"
                         for i, (s, db) in enumerate(hosts["pairs"], 1)]
    lines += ["[dbs:vars]", "ansible_user=root", "mysql_user=root", f"ansible_ssh_private_key_file={hosts['key']}",
              f"ansible_ssh_common_args='-o UserKnownHostsFile={hosts['known']} -o StrictHostKeyChecking=yes'", ""]
    inv = tmp_path / "live.ini"
    inv.write_text("\n".join(lines))
    p = run_cli("fleet", str(inv), "--ssh-host-facts", "--no-defaults", "--format", "jsonl", "--no-calibrate",
                timeout=180)
    assert p.returncode == 0, p.stderr
    recs = [json.loads(x) for x in p.stdout.splitlines()]
    by_host = {r["host"]: r for r in recs[:-1]}
    assert sorted(by_host) == ["db1", "db2", "db3"]
    for i, (s, db) in enumerate(hosts["pairs"], 1):
        assert by_host[f"db{i}"]["host_facts"] == "ssh"
        code, direct, err = run_json("audit", "-h", "127.0.0.1", "-P", str(db.port), "-u", "root", "--no-defaults",
                                     "--no-calibrate", "--ssh", "root@127.0.0.1", "--ssh-option", f"Port={s.port}",
                                     "--ssh-option", f"UserKnownHostsFile={hosts['known']}",
                                     "--ssh-option", f"IdentityFile={hosts['key']}", "--format", "json")
        assert code == 0, err
        assert _findings(by_host[f"db{i}"]["report"]) == _findings(direct)
    bad = tmp_path / "weak.ini"
    bad.write_text(inv.read_text().replace("StrictHostKeyChecking=yes", "StrictHostKeyChecking=no"))
    p = run_cli("fleet", str(bad), "--ssh-host-facts", "--no-defaults", "--no-calibrate", timeout=180)
    assert p.returncode == 6 and "StrictHostKeyChecking is not allowed" in p.stdout


def test_a_refused_dictionary_statement_reads_as_in_a_live_audit(hosts, tmp_path):
    """An account that may not read mysql.user nor every table: the playbook records each refused
    statement's error instead of failing the host, and the fleet's reasons (the grant to add) and
    findings are the ones `advisor audit` gives with the same account."""
    playbook = require_tool("ansible-playbook")
    sshd, db = hosts["pairs"][0]
    inv = tmp_path / "ro.ini"
    inv.write_text("\n".join([
        "[dbs]", f"ro1 ansible_host=127.0.0.1 ansible_port={sshd.port} mysql_port={db.port} mysql_user={RO_USER} "
        "advisor_on_host=never", "", "[all:vars]", "ansible_user=root", f"ansible_ssh_private_key_file={hosts['key']}",
        f"ansible_ssh_common_args='-o UserKnownHostsFile={hosts['known']} -o StrictHostKeyChecking=yes "
        "-o ControlMaster=no -o ConnectTimeout=5'", "ansible_python_interpreter=/usr/bin/python3", ""]))
    (tmp_path / "host_vars").mkdir()
    (tmp_path / "host_vars" / "ro1.yml").write_text(f"mysql_password: {RO_PASSWORD}\n")  # a test; use the vault
    fetched = tmp_path / "fetched"
    env = _ansible_env(tmp_path)
    p = subprocess.run([playbook, "-i", str(inv), str(ROOT / "ansible" / "collect.yml"),
                        "-e", f"advisor_fetch_dir={fetched}"], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    got = fetched / "ro1"
    assert not (got / "error.json").exists(), _error_of(got)
    # mysql.user is refused (its error recorded); the tables-dependent reads ran since TABLES answered
    assert "1142" in (got / "dict-accounts.err").read_text() and not (got / "dict-accounts.tsv").exists()
    assert (got / "dict-tables.tsv").is_file() and (got / "dict-unique_keys.tsv").is_file()
    assert not [f for f in fetched.rglob("*") if f.is_file() and RO_PASSWORD in f.read_text(errors="replace")]

    r = run_cli("fleet", "--snapshots", str(fetched), "--format", "jsonl", timeout=120)
    assert r.returncode in (0, 1), r.stderr
    fleet = json.loads(r.stdout.splitlines()[0])["report"]
    code, direct, err = run_json("audit", "-h", "127.0.0.1", "-P", str(db.port), "-u", RO_USER, "--no-defaults",
                                 "--no-calibrate", "--format", "json", env={"MYSQL_PWD": RO_PASSWORD})
    assert code in (0, 1), err
    assert _findings(fleet) == _findings(direct)
    # every judgement that waits on a grant reads the same, down to the grant it names
    fleet_o, direct_o = ({o["rule"]: (o["status"], o.get("reason")) for o in r["outcomes"]} for r in (fleet, direct))
    on_grants = sorted(rule for rule, (_, reason) in direct_o.items() if "GRANT" in (reason or ""))
    assert {rule: fleet_o.get(rule) for rule in on_grants} == {rule: direct_o[rule] for rule in on_grants}
    assert len(on_grants) >= 5, on_grants
    assert fleet_o["account-without-password"][0] == "unknown"
    assert f"GRANT SELECT ON mysql.user TO '{RO_USER}'@'%'" in fleet_o["account-without-password"][1]
    assert fleet_o["tables-without-primary-key"] == direct_o["tables-without-primary-key"]


def test_a_run_where_no_host_was_collected_fails(hosts, tmp_path):
    """Every host in the play unreachable: each one's error.json is written and ansible-playbook exits
    non-zero, saying so, instead of 0 (a run that collected nothing is not a success)."""
    playbook = require_tool("ansible-playbook")
    inv = _inventory(hosts, tmp_path / "hosts.ini")
    fetched = tmp_path / "fetched"
    env = _ansible_env(tmp_path)
    p = subprocess.run([playbook, "-i", str(inv), str(ROOT / "ansible" / "collect.yml"),
                        "-e", f"advisor_fetch_dir={fetched}", "-e", "advisor_hosts=gone"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 2, (p.returncode, p.stdout[-3000:])  # ansible-playbook: a host failed
    assert "no host was collected: all 1 failed" in p.stdout, p.stdout[-3000:]
    assert json.loads((fetched / "db9" / "error.json").read_text())["error"].startswith("unreachable")
