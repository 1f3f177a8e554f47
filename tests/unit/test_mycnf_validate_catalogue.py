"""`advisor mycnf --validate`'s catalogue half on the real option files of tests/fixtures/mycnf/
(PROVENANCE.md there), without a server (issue 14 §2 item 13; the server half is
tests/integration/test_mycnf_validate_real.py)."""

from __future__ import annotations

from pathlib import Path

from advisor.knowledge import default_catalogue
from advisor.mycnf.cnf import read_option_file
from advisor.mycnf.validate import catalogue_check, validate_file
from advisor.versions import Version

CNF = Path(__file__).resolve().parents[1] / "fixtures" / "mycnf"
CAT = default_catalogue()


def items(name: str, flavor: str, version: str):
    f = read_option_file(str(CNF / name))
    return {i.option: i for i in catalogue_check(f.options, flavor, Version.parse(version), CAT)}


def test_enum_index_and_transaction_isolation_on_mariadb_10():
    got = items("nextcloudpi-91-ncp.cnf", "mariadb", "10.11.6")
    assert got["query_cache_type"].status == "ok"                  # 0 is OFF
    assert got["transaction_isolation"].status == "ok"             # the option sets tx_isolation before 11.1


def test_out_of_range_is_adjusted_not_refused():
    i = items("pt-my.cnf-001.cnf", "mariadb", "10.11.6")["innodb_log_buffer_size"]
    assert i.status == "warning" and "adjusts it to that limit" in i.message


def test_unknown_options_without_a_server_are_not_confirmed():
    r = validate_file(str(CNF / "geerlingguy-2015-debian.cnf"), "mysql", Version.parse("5.7.44"), "test",
                      server_check=False, catalogue=CAT)
    names = {i.option for i in r.unconfirmed}
    assert {"thread_concurrency", "innodb_additional_mem_pool_size"} <= names
    assert not {"user", "port", "datadir", "socket"} & names        # options every server takes
    assert r.verdict == "not confirmed" and not r.ok


def test_removed_options_on_84_are_problems():
    r = validate_file(str(CNF / "geerlingguy-2015-debian.cnf"), "mysql", Version.parse("8.4.3"), "test",
                      server_check=False, catalogue=CAT)
    probs = {i.option for i in r.items if i.status == "problem"}
    assert "query_cache_size" in probs and r.verdict == "NOT valid"
