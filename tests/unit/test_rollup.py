"""The fleet roll-up (advisor.rollup): rules across hosts, per-host counts, hosts not audited, drift."""

from advisor.knowledge import default_catalogue
from advisor.rollup import HostOutcome, Rollup

# the variables that name a host: the catalogue's role 'identity' (what `advisor fleet` hands the roll-up)
IDENTITY = frozenset(default_catalogue().names_with("role", "identity"))


def _hosts():
    base = {"sort_buffer_size": "262144", "server_id": "1", "version": "10.11.19-MariaDB", "socket": "/a.sock"}
    return [
        HostOutcome("db1", ("prod",), [("binary-log-off", "warning", "Binary log off")], flavor="mariadb",
                    version="10.11.19", variables={**base, "server_id": "1", "socket": "/1.sock"}),
        HostOutcome("db2", ("prod",), [("binary-log-off", "warning", "Binary log off"),
                                       ("sort-buffer-oversized", "warning", "sort_buffer_size is large")],
                    variables={**base, "server_id": "2", "socket": "/2.sock", "sort_buffer_size": "33554432"}),
        HostOutcome("db3", ("prod",), [("binary-log-off", "warning", "Binary log off")],
                    variables={**base, "server_id": "3"}),
        HostOutcome("db4", ("prod",), error="cannot connect to db4:3306 (2003 Connection refused)", exit_code=3),
        HostOutcome("bench1", ("bench",), [("x-critical", "critical", "X")], variables=base),
    ]


def test_rollup():
    r = Rollup(IDENTITY)
    for h in _hosts():
        r.add(h)
    d = r.to_dict()
    assert (d["hosts_total"], d["hosts_audited"], d["hosts_unreachable"]) == (5, 4, 1)
    assert [(x["rule"], x["count"], x["hosts"]) for x in d["rules"]] == [
        ("x-critical", 1, ["bench1"]), ("binary-log-off", 3, ["db1", "db2", "db3"]),
        ("sort-buffer-oversized", 1, ["db2"])]
    by_host = {h["host"]: h for h in d["hosts"]}
    assert (by_host["db2"]["warning"], by_host["db2"]["critical"], by_host["db2"]["audited"]) == (2, 0, True)
    assert by_host["db4"]["audited"] is False
    assert d["unreachable"] == [{"host": "db4", "error": "cannot connect to db4:3306 (2003 Connection refused)",
                                 "exit_code": 3}]
    # drift: only sort_buffer_size differs in prod (server_id and socket name the host); bench has one host
    assert d["drift"] == {"prod": [{"variable": "sort_buffer_size", "hosts": 3, "values": [
        {"value": "262144", "hosts": ["db1", "db3"]}, {"value": "33554432", "hosts": ["db2"]}]}]}


def test_hosts_without_groups_drift_together_in_all():
    r = Rollup(IDENTITY)
    r.add(HostOutcome("a", variables={"max_connections": "151"}))
    r.add(HostOutcome("b", variables={"max_connections": "151"}))
    assert r.drift() == {"all": []}
    r.add(HostOutcome("c", variables={"max_connections": "500"}))
    assert [row["variable"] for row in r.drift()["all"]] == ["max_connections"]
