"""Remote host facts without a server: the ssh command line (host keys always verified), the ssh error
messages, and host-facts files (`advisor collect --host-facts-only` / `--host-facts FILE`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.collect.host import load_host_facts_file, server_dirs, pid_file
from advisor.collect.host_parse import parse_host
from advisor.collect.ssh import _ssh_failure, gatherer_source, remote_args, ssh_command
from advisor.errors import InvalidInputError, UsageError
from tests.support.cli import assert_one_paragraph_error, invoke

HOSTS = Path(__file__).resolve().parents[1] / "fixtures" / "hosts"


def test_ssh_command_forces_host_key_checking_and_batch_mode():
    argv = ssh_command("root@db1", ["Port=2222", "IdentityFile=/k"], remote_args({"datadir": "/var/lib/my sql"}, "/run/m.pid"))
    assert argv[:5] == ["ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes"]
    assert "Port=2222" in argv and "IdentityFile=/k" in argv
    i = argv.index("--")
    assert argv[i + 1:i + 4] == ["root@db1", "python3", "-"]
    assert "'/var/lib/my sql'" in argv  # quoted for the remote shell
    assert argv[-2:] == ["--pid-file", "/run/m.pid"]


@pytest.mark.parametrize("opt", ["StrictHostKeyChecking=no", "stricthostkeychecking=accept-new", "BatchMode=no",
                                 "LocalCommand=touch /tmp/x", "KnownHostsCommand=/bin/true"])
def test_options_that_weaken_verification_are_refused(opt):
    with pytest.raises(UsageError) as e:
        ssh_command("root@db1", [opt], [])
    assert e.value.exit_code == 2 and "not allowed" in str(e.value)


@pytest.mark.parametrize("dest,opt", [("-oProxyCommand=x", None), ("", None), ("root@db 1", None),
                                      ("root@db1", "Port"), ("root@db1", "-p=22")])
def test_bad_destinations_and_options(dest, opt):
    with pytest.raises(UsageError):
        ssh_command(dest, [opt] if opt else [], [])


def test_ssh_failures_are_one_paragraph_with_a_tip():
    msg, tip = _ssh_failure("root@db1", "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested "
                                        "strict checking. Host key verification failed.")
    assert "not in known_hosts" in msg and "never disables host-key checking" in tip
    msg, tip = _ssh_failure("root@db1", "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! Host key verification failed.")
    assert "CHANGED" in msg and "ssh-keygen -R" in tip
    msg, tip = _ssh_failure("root@db1", "root@127.0.0.1: Permission denied (publickey).")
    assert "authentication failed" in msg and "IdentityFile" in tip


def test_the_shipped_gatherer_is_this_module():
    src = gatherer_source()
    assert src.startswith('"""Gather the raw /proc and /sys files') and "def main(argv)" in src


def test_server_dirs_and_pid_file():
    v = {"datadir": "/var/lib/mysql/", "innodb_log_group_home_dir": "./", "innodb_data_home_dir": "",
         "pid_file": "db1.pid"}
    assert server_dirs(v) == {"datadir": "/var/lib/mysql"}
    assert pid_file(v) == "/var/lib/mysql/db1.pid"
    v.update(innodb_log_group_home_dir="/redo/", innodb_data_home_dir="ibdata")
    assert server_dirs(v) == {"datadir": "/var/lib/mysql", "innodb_log_group_home_dir": "/redo",
                              "innodb_data_home_dir": "/var/lib/mysql/ibdata"}
    assert server_dirs({}) == {}


def test_host_facts_only_file_round_trip(tmp_path):
    out = tmp_path / "host.json"
    p = invoke("collect", "--host-facts-only", "--sysroot", str(HOSTS / "seed-003-pm981"), "--format", "json",
                "-o", str(out))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == "advisor.host-facts/1" and doc["host"]["hostname"] == "db-pm981"
    raw = load_host_facts_file(str(out))
    h = parse_host(raw, {"datadir": "/var/lib/mysql"}, "file")  # re-parsed with the server's real datadir
    assert h.datadir.devices[0].model == "SAMSUNG MZVLB1T0HBLR-000L7" and h.datadir.device_class == "nvme_client"


@pytest.mark.parametrize("content,word", [("{not json", "not valid JSON"), ('{"schema": "advisor.report/1"}', "not a host-facts file"),
                                          ('{"schema": "advisor.host-facts/1", "raw": {}}', "no raw section")])
def test_bad_host_facts_files_exit_4(tmp_path, content, word):
    f = tmp_path / "h.json"
    f.write_text(content)
    with pytest.raises(InvalidInputError) as e:
        load_host_facts_file(str(f))
    assert e.value.exit_code == 4 and word in str(e.value) and "Tip:" in str(e.value)
    with pytest.raises(InvalidInputError, match="does not exist"):
        load_host_facts_file(str(tmp_path / "nope.json"))


def test_cli_usage_errors():
    p = invoke("collect", "--host-facts-only", "--host", "db1")
    assert p.returncode == 2 and "takes no --host" in p.stderr
    assert_one_paragraph_error(p.stderr)
    p = invoke("audit", "--demo", "--sysroot", "/")
    assert p.returncode == 2
    assert_one_paragraph_error(p.stderr)
    p = invoke("collect", "--format", "yaml")
    assert p.returncode == 2
    p = invoke("collect", "--host-facts-only", "--sysroot", "/no/such/dir")
    assert p.returncode == 2 and "--sysroot /no/such/dir is not a directory" in p.stderr
