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


def test_options_a_release_removed_are_refused_and_unknown_ones_not_confirmed():
    # MySQL 5.7 removed both (5.7.2 / 5.7.4): the 5.6.29, 5.7.22 and 5.7.41 trees say so (issue 23 §1)
    r = validate_file(str(CNF / "geerlingguy-2015-debian.cnf"), "mysql", Version.parse("5.7.44"), "test",
                      server_check=False, catalogue=CAT)
    got = {i.option: i for i in r.items}
    for name in ("thread_concurrency", "innodb_additional_mem_pool_size"):
        assert got[name].status == "problem" and "does not exist on MySQL 5.7.44" in got[name].message, name
    assert not r.ok
    # before any release the catalogue read (MySQL 5.5) they are not known: not confirmed, not refused
    r = validate_file(str(CNF / "geerlingguy-2015-debian.cnf"), "mysql", Version.parse("5.5.62"), "test",
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
