"""Issue 3 acceptance: `--ssh` against a real sshd started by the test on loopback (its own port, a
generated host key the test trusts through a temporary known_hosts, root with a temporary
authorized_keys), and the refusal of an unknown host key."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import assert_one_paragraph_error, run_cli, run_json
from tests.support.tools import require_tool

pytestmark = [pytest.mark.requires_mariadbd, pytest.mark.requires_tool("sshd", "ssh", "ssh-keygen")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _keygen(path: Path) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "advisor-test", "-f", str(path)],
                   check=True, capture_output=True)
    return path.with_suffix(".pub").read_text().strip()


@pytest.fixture
def sshd(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("the ssh test logs in as root to a throwaway sshd; run the tests as root", pytrace=False)
    d = tmp_path / "ssh"
    d.mkdir(mode=0o700)
    host_pub = _keygen(d / "host_key")
    client_pub = _keygen(d / "id_client")
    (d / "authorized_keys").write_text(client_pub + "\n")
    port = _free_port()
    (d / "known_hosts").write_text(f"[127.0.0.1]:{port} {' '.join(host_pub.split()[:2])}\n")
    (d / "empty_known_hosts").write_text("")
    cfg = d / "sshd_config"
    cfg.write_text("\n".join([
        f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {d / 'host_key'}", "PidFile none",
        f"AuthorizedKeysFile {d / 'authorized_keys'}", "PermitRootLogin prohibit-password",
        "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
        "LogLevel ERROR", "",
    ]))
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's compiled-in privilege separation directory
    proc = subprocess.Popen([require_tool("sshd"), "-D", "-e", "-f", str(cfg)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"sshd did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
            time.sleep(0.05)
    yield {"port": port, "dir": d}
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


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
