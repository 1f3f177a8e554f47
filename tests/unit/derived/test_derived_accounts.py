"""Derived facts of advisor.rules.derived.accounts (accounts and the password policy)."""

from __future__ import annotations

from advisor.rules.facts import Unknown
from tests.support.facts import view

ACCOUNTS = [
    {"user": "root", "host": "localhost", "plugin": "unix_socket", "empty_password": True,
     "global_privileges": ["SUPER"]},
    {"user": "root", "host": "%", "plugin": "mysql_native_password", "empty_password": True,
     "global_privileges": ["SELECT", "SUPER"]},
    {"user": "", "host": "localhost", "plugin": "mysql_native_password", "empty_password": True},
    {"user": "app", "host": "10.0.%", "plugin": "caching_sha2_password", "ssl_type": "ANY"},
    {"user": "etl", "host": "%", "plugin": "caching_sha2_password", "global_privileges": ["FILE"]},
    {"user": "report", "host": "%", "plugin": "caching_sha2_password"},
    {"user": "mysql.sys", "host": "localhost", "plugin": "caching_sha2_password", "empty_password": True,
     "locked": True, "global_privileges": ["SUPER"]},
    {"user": "r_read", "host": "%", "empty_password": True, "is_role": True},
]


def v(target: str = "mysql 8.0.36", **facts):
    return view({"server.accounts": ACCOUNTS, **facts}, target)


def test_accounts_without_password_skip_socket_locked_and_roles():
    assert v().get("derived.accounts_without_password") == "'root'@'%', ''@'localhost'"  # snapshot order
    assert v().get("derived.accounts_without_password_count") == 2


def test_anonymous_and_remote_superusers():
    assert v().get("derived.anonymous_accounts") == "''@'localhost'"
    assert v().get("derived.anonymous_accounts_count") == 1
    assert v().get("derived.remote_superusers") == "'root'@'%'"  # mysql.sys is local and locked
    assert v().get("derived.remote_superusers_count") == 1


def test_any_host_accounts_and_the_privileged_ones():
    assert v().get("derived.any_host_accounts") == "'root'@'%', 'etl'@'%', 'report'@'%'"
    assert v().get("derived.any_host_accounts_count") == 3
    assert v().get("derived.any_host_privileged_accounts") == "'root'@'%', 'etl'@'%'"
    assert v().get("derived.any_host_privileged_accounts_count") == 2


def test_native_password_and_remote_without_tls():
    assert v().get("derived.native_password_accounts") == "'root'@'%', ''@'localhost'"
    assert v().get("derived.native_password_accounts_count") == 2
    # app@10.0.% requires TLS (ssl_type ANY); ''@localhost and root@localhost are local
    assert v().get("derived.remote_accounts_without_tls") == "'root'@'%', 'etl'@'%', 'report'@'%'"
    assert v().get("derived.remote_accounts_without_tls_count") == 3


def test_account_facts_unknown_with_the_collectors_reason():
    got = view({"var.local_infile": "OFF"}).get("derived.accounts_without_password_count")
    assert isinstance(got, Unknown) and "server.accounts" in got.reason


def test_password_check_from_variables_or_plugins():
    assert view({"var.validate_password_policy": "MEDIUM"}, "mysql 5.7.44").get("derived.password_check") == "validate_password"
    assert view({"var.simple_password_check_minimal_length": "8"}, "mariadb 10.11.19").get(
        "derived.password_check") == "simple_password_check"
    assert view({"var.local_infile": "ON", "server.plugins": {"cracklib_password_check": "ACTIVE"}},
                "mariadb 10.11.19").get("derived.password_check") == "cracklib_password_check"
    assert view({"var.local_infile": "ON", "server.plugins": {"cracklib_password_check": "INACTIVE"}},
                "mariadb 10.11.19").get("derived.password_check") == ""
    missing = view({"var.local_infile": "ON"}, "mariadb 10.11.19").get("derived.password_check")
    assert isinstance(missing, Unknown) and "server.plugins" in missing.reason  # absence needs the plugin list


def test_password_check_sees_the_80_component_variables():
    from advisor.rules.facts import FactView
    from advisor.snapshot import Snapshot

    snap = Snapshot.model_validate({"advisor_version": "0", "collected_at": "2026-01-01T00:00:00Z",
                                    "target": {"flavor": "mysql", "version": "8.0.36", "version_string": "8.0.36"},
                                    "server": {"variables": {"validate_password.policy": "MEDIUM"}}})
    assert FactView(snap, derived=__import__("advisor.rules.derived", fromlist=["DERIVED"]).DERIVED).get(
        "derived.password_check") == "validate_password"


def test_test_schemas():
    schemas = [{"name": n} for n in ("mysql", "test", "test_app", "testing", "latest")]
    assert view({"server.schemas": schemas}).get("derived.test_schemas") == "test, test_app"
    assert view({"server.schemas": [{"name": "app"}]}).get("derived.test_schemas") == ""


def test_replication_accounts_with_writes():
    accounts = [{"user": "repl", "host": "10.0.%", "global_privileges": ["REPLICATION SLAVE"]},
                {"user": "repl_all", "host": "%", "global_privileges": ["REPLICATION SLAVE", "SELECT", "INSERT"]},
                {"user": "root", "host": "localhost", "global_privileges": ["REPLICATION SLAVE", "SUPER"]},
                {"user": "old", "host": "%", "global_privileges": ["REPLICATION SLAVE", "SUPER"], "locked": True}]
    view_ = view({"server.accounts": accounts})
    assert view_.get("derived.replication_accounts_with_writes") == "'repl_all'@'%'"
    assert view_.get("derived.replication_accounts_with_writes_count") == 1
