"""The Ansible role under ansible/ stays in step with the advisor: the statements it sends are the
collector's, read-only, the credentials task is not logged, and every variable it reads is documented.
(Running it for real against hosts over ssh: tests/integration/test_fleet_ansible.py.)"""

import re
from pathlib import Path

import pytest

from advisor.collect.mysql import Q_DATA_SIZE, Q_STATUS, Q_VARIABLES

yaml = pytest.importorskip("yaml", reason="PyYAML comes with ansible-core in the test extras")

ROLE = Path(__file__).resolve().parents[2] / "ansible" / "roles" / "advisor_collect"
README = Path(__file__).resolve().parents[2] / "ansible" / "README.md"


def _tasks(name: str) -> list[dict]:
    out, todo = [], list(yaml.safe_load((ROLE / "tasks" / name).read_text()))
    while todo:
        t = todo.pop(0)
        out.append(t)
        for key in ("block", "rescue", "always"):
            todo.extend(t.get(key) or [])
    return out


def test_statements_are_the_collectors_and_read_only():
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
    assert defaults["advisor_data_size_query"] == Q_DATA_SIZE
    shell = "\n".join(t["ansible.builtin.shell"] for t in _tasks("collect.yml") if "ansible.builtin.shell" in t)
    sent = re.findall(r"-NB -e '([^']+)'", shell)
    assert f"{Q_VARIABLES}" in sent and f"{Q_STATUS}" in sent
    assert all(s.split()[0] in ("SHOW", "SELECT") for s in sent + [Q_DATA_SIZE])


def test_the_credentials_are_not_logged():
    cnf = [t for t in _tasks("collect.yml") if "password" in str(t.get("ansible.builtin.copy", {}).get("content", ""))]
    assert len(cnf) == 1 and cnf[0]["no_log"] is True and cnf[0]["ansible.builtin.copy"]["mode"] == "0600"
    # no other task (blocks only hold tasks) puts the password anywhere
    others = [t for t in _tasks("collect.yml") + _tasks("main.yml")
              if t not in cnf and "block" not in t and "mysql_password" in str(t)]
    assert others == []


def test_every_variable_is_documented():
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
    readme = README.read_text()
    for name in defaults:
        if name != "advisor_data_size_query":
            assert f"`{name}`" in readme, name
    for name in ("advisor_hosts", "advisor_become"):  # the playbook's own
        assert f"`{name}`" in readme, name


def test_the_work_directory_is_always_removed():
    outer = [t for t in yaml.safe_load((ROLE / "tasks" / "collect.yml").read_text()) if "always" in t]
    assert len(outer) == 1
    assert outer[0]["always"][0]["ansible.builtin.file"]["state"] == "absent"


def test_the_dictionary_statements_are_the_collectors_not_a_copy():
    task = next(t for t in _tasks("collect.yml") if "data dictionary" in t.get("name", ""))
    assert "-m advisor.collect.dictionary" in task["vars"]["advisor_dictionary"]
    assert "SELECT" not in task["ansible.builtin.shell"].upper()  # every statement comes from the lookup
    # what it writes (dict-KEY.tsv or .err) goes into the one archive the role fetches
    assert 'glob.glob("dict-*")' in task["ansible.builtin.shell"]
    fetch = [t for t in _tasks("collect.yml") if "ansible.builtin.fetch" in t]
    assert len(fetch) == 1 and "loop" not in fetch[0] and fetch[0]["ansible.builtin.fetch"]["src"].endswith("results.tar.gz")
