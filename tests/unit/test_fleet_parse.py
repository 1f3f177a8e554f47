"""Target files `advisor fleet` reads (advisor.inventory): plain lists, Percona DSNs, and Ansible
inventories in INI and YAML, each checked against what real ansible-inventory makes of the same file."""

import json
import subprocess

import pytest

from advisor.errors import InvalidInputError, UsageError
from advisor.fleet import parse_targets
from advisor.inventory import detect, expand_range, from_inventory, parse
from tests.support.tools import require_ansible


def test_parse_targets():
    ts = parse_targets("# fleet\n db1\nbench@db2:3307  # comment\n[::1]:3310\n\n", "f")
    assert [(t.host, t.port, t.user, t.line) for t in ts] == [("db1", None, None, 2), ("db2", 3307, "bench", 3), ("::1", 3310, None, 4)]


@pytest.mark.parametrize("bad", ["db1:99999", "a b", "# only comments\n"])
def test_bad_targets(bad):
    with pytest.raises(UsageError):
        parse_targets(bad, "f")


def test_percona_dsns():
    ts = parse("h=db1,P=3307,u=bench\nS=/run/mysqld/mysqld.sock,u=root,F=/etc/mysql/debian.cnf\n"
               "# a comment\nh=db3,p=se#cret,u=x\n", "dsns")
    assert [(t.host, t.port, t.user, t.socket, t.defaults_file) for t in ts] == [
        ("db1", 3307, "bench", None, None), ("localhost", None, "root", "/run/mysqld/mysqld.sock", "/etc/mysql/debian.cnf"),
        ("db3", None, "x", None, None)]
    assert ts[2].password == "se#cret" and ts[2].text == "h=db3,p=…,u=x"
    assert ts[2].password_source == "p= in the DSN at dsns:4"
    assert "se#cret" not in repr(ts[2])
    with pytest.raises(UsageError, match="not a DSN part"):
        parse("h=db1,Q=1\n", "dsns", "dsn")
    with pytest.raises(UsageError, match="names no host"):
        parse("u=root,P=3306\n", "dsns", "dsn")


def test_detection():
    assert detect("db1\ndb2:3307\n") == "list"
    assert detect("h=db1,P=3306\n") == "dsn"
    assert detect("[dbs]\ndb1\n") == "ini"
    assert detect("db1 mysql_port=3307\n") == "ini"
    assert detect("all:\n  hosts:\n") == "yaml"
    assert detect('{"_meta": {}}') == "json"
    assert detect("db[01:03]\n") == "list"


def test_ranges():
    assert expand_range("db[01:03].example", "f") == ["db01.example", "db02.example", "db03.example"]
    assert expand_range("db[a:c]", "f") == ["dba", "dbb", "dbc"]
    assert expand_range("db[1:9:4]", "f") == ["db1", "db5", "db9"]
    with pytest.raises(InvalidInputError):
        expand_range("db[1:c]", "f")


INI = """\
# a fleet
lone ansible_host=10.0.0.9

[prod_dbs]
db[01:02] mysql_user=auditor
db03 ansible_host=10.0.0.3 mysql_port=3307 mysql_socket="/run/mysql d/m.sock"

[bench_dbs]
bench1:2222 ansible_host=127.0.0.1 mysql_port=13306

[dbs:children]
prod_dbs
bench_dbs

[dbs:vars]
mysql_user=advisor
mysql_port=3306

[prod_dbs:vars]
mysql_port=3310
"""

YAML = """\
all:
  hosts:
    lone:
      ansible_host: 10.0.0.9
  children:
    dbs:
      vars:
        mysql_user: advisor
        mysql_port: 3306
      children:
        prod_dbs:
          vars:
            mysql_port: 3310
          hosts:
            db[01:02]:
              mysql_user: auditor
            db03:
              ansible_host: 10.0.0.3
              mysql_port: 3307
              mysql_socket: /run/mysql d/m.sock
        bench_dbs:
          hosts:
            bench1:
              ansible_host: 127.0.0.1
              ansible_port: 2222
              mysql_port: 13306
"""

EXPECTED = {  # name: (address, port, user, socket, groups)
    "lone": ("10.0.0.9", None, None, None, ()),
    "db01": ("db01", 3310, "auditor", None, ("dbs", "prod_dbs")),
    "db02": ("db02", 3310, "auditor", None, ("dbs", "prod_dbs")),
    "db03": ("10.0.0.3", 3307, "advisor", "/run/mysql d/m.sock", ("dbs", "prod_dbs")),
    "bench1": ("127.0.0.1", 13306, "advisor", None, ("bench_dbs", "dbs")),
}


def _table(ts):
    return {t.name: (t.host, t.port, t.user, t.socket, t.groups) for t in ts}


@pytest.mark.parametrize("text,suffix", [(INI, ".ini"), (INI, ""), (YAML, ".yml"), (YAML, "")])
def test_inventories(text, suffix):
    assert _table(parse(text, "inv", None, suffix)) == EXPECTED


@pytest.mark.parametrize("text,name", [(INI, "hosts.ini"), (YAML, "hosts.yml")])
def test_inventories_as_ansible_reads_them(tmp_path, text, name):
    """ansible-inventory --list on the same file gives the same targets as reading the file directly."""
    exe = require_ansible("ansible-inventory")
    f = tmp_path / name
    f.write_text(text)
    p = subprocess.run([exe, "-i", str(f), "--list"], capture_output=True, text=True, check=True,
                       env={"PATH": "/usr/bin:/bin", "ANSIBLE_LOCAL_TEMP": str(tmp_path), "HOME": str(tmp_path)})
    doc = json.loads(p.stdout)
    assert _table(from_inventory(doc, "inv.json")) == EXPECTED
    assert _table(parse(p.stdout, "inv.json")) == EXPECTED


def test_vaulted_password_that_was_not_decrypted():
    doc = {"_meta": {"hostvars": {"db1": {"mysql_password": {"__ansible_vault": "$ANSIBLE_VAULT;1.1;AES256\n3361"}}}},
           "all": {"children": ["ungrouped"]}, "ungrouped": {"hosts": ["db1"]}}
    with pytest.raises(InvalidInputError, match="vault-encrypted"):
        from_inventory(doc, "inv.json")


def test_inventory_errors():
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        parse("{nope", "inv.json")
    with pytest.raises(InvalidInputError, match="not KEY=VALUE"):
        parse("[dbs]\ndb1 mysql_port\n", "inv", "ini")
    with pytest.raises(UsageError, match="lists no targets"):
        parse("[dbs]\n", "inv")


def test_ssh_address_for_host_facts():
    ts = parse("[dbs]\ndb1 ansible_host=10.0.0.1 ansible_user=ops ansible_port=2222 "
               "ansible_ssh_private_key_file=/k/id ansible_ssh_common_args='-o UserKnownHostsFile=/k/kh "
               "-oProxyJump=bastion -o StrictHostKeyChecking=yes'\n"
               "db2 ansible_connection=local\ndb3 ansible_ssh_common_args='-o StrictHostKeyChecking=no'\n", "inv")
    assert (ts[0].ssh, ts[0].ssh_options) == ("ops@10.0.0.1", ("Port=2222", "IdentityFile=/k/id",
                                                               "UserKnownHostsFile=/k/kh", "ProxyJump=bastion"))
    assert ts[1].ssh is None
    assert ts[2].ssh == "db3" and ts[2].ssh_options == ("StrictHostKeyChecking=no",)  # left for ssh_command to refuse


def test_yaml_without_pyyaml_goes_through_ansible_inventory(tmp_path):
    """Without PyYAML the YAML inventory is read by running the real ansible-inventory --list."""
    import sys

    require_ansible("ansible-inventory")
    f = tmp_path / "hosts.yml"
    f.write_text(YAML)
    code = ("import sys, json; sys.modules['yaml'] = None\n"
            "from advisor.inventory import read\n"
            "print(json.dumps([[t.name, t.host, t.port, t.user, t.socket, list(t.groups)] for t in read(sys.argv[1])]))")
    p = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LC_ALL": "C.UTF-8"})
    assert p.returncode == 0, p.stderr
    got = {row[0]: (row[1], row[2], row[3], row[4], tuple(row[5])) for row in json.loads(p.stdout)}
    assert got == EXPECTED


def test_a_list_mixing_host_lines_and_dsn_lines_reads_each_by_its_own_syntax():
    ts = parse("db1:3307\n# dsn below\nh=127.0.0.1,P=3306,u=app,p=PW-Sec#1\napp2@db2\n", "mixed")
    assert [(t.host, t.port, t.user) for t in ts] == [("db1", 3307, None), ("127.0.0.1", 3306, "app"),
                                                      ("db2", None, "app2")]
    assert ts[1].password == "PW-Sec#1" and ts[1].text == ts[1].label == "h=127.0.0.1,P=3306,u=app,p=…"
    assert ts[1].password_source == "p= in the DSN at mixed:3" and ts[0].password_source is None
    with pytest.raises(UsageError) as e:  # a line that is neither: its password is not repeated
        parse("db1\nh=db2,p=PW-Sec-2,junk\n", "bad")
    assert "PW-Sec-2" not in str(e.value)
    with pytest.raises(UsageError) as e:
        parse("db1\nh=db2,p=PW-Sec-3,Q=1\n", "bad")
    assert "PW-Sec-3" not in str(e.value) and "bad:2" in str(e.value)
