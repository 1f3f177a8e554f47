"""A controller-side directory as the Ansible role fetches it (ansible/), made from the recorded
servers in tests/fixtures/flavors: host directories with the dumps, a snapshot file made by
`advisor import`, and a host the playbook could not collect. For `advisor fleet --snapshots`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import invoke

FLAVORS = Path(__file__).resolve().parents[1] / "fixtures" / "flavors"
SETS = ("mariadb-10.11", "mysql-8.0.36", "percona-8.0", "mysql-8.4")


def _tsv(rows: dict) -> str:
    return "".join(f"{k}\t{v}\n" for k, v in rows.items())


def make_fetched(d: Path) -> Path:
    """db-<set> directories (the first two in group a, the others in b; db-mysql-8.0.36 with a 64 MiB
    sort buffer; 1.25 GiB of InnoDB data each), file-host.json, and db-gone with error.json."""
    for i, name in enumerate(SETS):
        variables = json.loads((FLAVORS / name / "variables.json").read_text())
        if i == 1:
            variables["sort_buffer_size"] = str(64 << 20)
        h = d / f"db-{name}"
        h.mkdir(parents=True)
        (h / "variables.tsv").write_text(_tsv(variables))
        (h / "status.tsv").write_text(_tsv(json.loads((FLAVORS / name / "status.json").read_text())))
        (h / "data-size.tsv").write_text("InnoDB\t12\t1073741824\t268435456\n")
        (h / "meta.json").write_text(json.dumps({"inventory_hostname": h.name, "groups": ["a" if i < 2 else "b"]}))
    p = invoke("import", "--variables", str(d / "db-mariadb-10.11" / "variables.tsv"), "--status",
               str(d / "db-mariadb-10.11" / "status.tsv"), "-o", str(d / "file-host.json"))
    assert p.returncode == 0, p.stderr
    (d / "db-gone").mkdir()
    (d / "db-gone" / "error.json").write_text(json.dumps({"error": "unreachable: ssh: connect to host 10.0.0.9 "
                                                                   "port 22: Connection refused"}))
    return d
