"""Issue 3 acceptance: `--ssh` against a real sshd started by the test on loopback (its own port, a
generated host key the test trusts through a temporary known_hosts, root with a temporary
authorized_keys), and the refusal of an unknown host key."""

from __future__ import annotations

import pytest

from tests.support.cli import assert_one_paragraph_error, run_cli, run_json
from tests.support.sshd import Sshd

pytestmark = [pytest.mark.requires_mariadbd, pytest.mark.requires_tool("sshd", "ssh", "ssh-keygen")]


@pytest.fixture
def sshd(tmp_path):
    with Sshd(tmp_path / "ssh") as s:
        yield {"port": s.port, "dir": s.dir}


def ssh_args(sshd, known_hosts: str = "known_hosts") -> list[str]:
    d = sshd["dir"]
    return ["--ssh", "root@127.0.0.1", "--ssh-option", f"Port={sshd['port']}",
            "--ssh-option", f"UserKnownHostsFile={d / known_hosts}", "--ssh-option", f"IdentityFile={d / 'id_client'}"]


def conn_args(db) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(db.port), "--user", "root", "--no-defaults"]


def test_host_facts_over_ssh(sshd, mariadb):
    code, remote, err = run_json("collect", *conn_args(mariadb), *ssh_args(sshd), "--format", "json")
    assert code == 0, err
    h = remote["host"]
    assert h["source"] == "ssh" and "over ssh" in h["origin"]
    code, local, err = run_json("collect", *conn_args(mariadb), "--format", "json")
    assert code == 0, err
    l = local["host"]
    # the gatherer ran on the "server" (this machine via sshd): the same facts as a local read
    for key in ("hostname", "kernel", "cpu", "thp"):
        assert h[key] == l[key], key
    assert h["memory"]["total_bytes"] == l["memory"]["total_bytes"]
    assert h["mysqld_open_files_limit"] == l["mysqld_open_files_limit"] is not None
    assert h["datadir"]["path"] == str(mariadb.datadir)
    assert h["datadir"]["devices"] == l["datadir"]["devices"]
    assert h["datadir"]["stack"] == l["datadir"]["stack"]


def test_unknown_host_key_is_refused(sshd, mariadb):
    p = run_cli("collect", *conn_args(mariadb), *ssh_args(sshd, "empty_known_hosts"))
    assert p.returncode == 3, p.stderr
    assert_one_paragraph_error(p.stderr)
    assert "host key" in p.stderr and "not in known_hosts" in p.stderr
    assert "never disables host-key checking" in p.stderr
    assert p.stdout == ""


def test_disabling_host_key_checking_is_not_possible(sshd, mariadb):
    p = run_cli("collect", *conn_args(mariadb), *ssh_args(sshd, "empty_known_hosts"),
                "--ssh-option", "StrictHostKeyChecking=no")
    assert p.returncode == 2
    assert_one_paragraph_error(p.stderr)
    assert "StrictHostKeyChecking is not allowed" in p.stderr
