"""The account and data-dictionary parser (advisor.collect.dictionary_parse) on raw rows as the
servers return them: pure, no server."""

from __future__ import annotations

import pytest

from advisor.collect.dictionary import Q_AUTO_INCREMENT, Q_INNODB_TABLES, Q_SCHEMAS, Q_TABLES, Q_UNIQUE_KEYS
from advisor.collect.dictionary_parse import (PRIVILEGE_COLUMNS, account_name, accounts_query, integer_max,
                                              parse_dictionary, reads_dictionary, without_clustering_key)
from advisor.collect.raw import QueryError, RawServer
from advisor.snapshot import ServerFacts


def raw_for(version: str, comment: str = "", **kw) -> RawServer:
    return RawServer(variables=[("version", version), ("version_comment", comment)], **kw)


def facts_of(raw: RawServer) -> ServerFacts:
    facts = ServerFacts.model_construct(variables={}, status={}, missing=[])
    parse_dictionary(raw, facts)
    return facts


@pytest.mark.parametrize("text,top", [("int(11)", 2**31 - 1), ("int(10) unsigned", 2**32 - 1), ("bigint", 2**63 - 1),
                                      ("bigint(20) unsigned", 2**64 - 1), ("TINYINT(4)", 127), ("smallint unsigned", 65535),
                                      ("mediumint(9)", 2**23 - 1), ("decimal(10,0)", None), ("", None)])
def test_integer_max(text, top):
    assert integer_max(text) == top


def test_accounts_query_per_flavor_never_selects_a_hash():
    for v, c in (("8.0.36", "MySQL Community Server - GPL"), ("5.7.44", ""), ("10.11.19-MariaDB", ""),
                 ("10.3.39-MariaDB", "")):
        q = accounts_query({"version": v, "version_comment": c})
        assert q.startswith("SELECT") and "authentication_string = ''" in q
        assert q.replace("authentication_string = ''", "").count("authentication_string") == 0
        assert all(col in q for col, _ in PRIVILEGE_COLUMNS)
    assert "global_priv" in accounts_query({"version": "10.11.19-MariaDB"})
    assert "global_priv" not in accounts_query({"version": "10.3.39-MariaDB"})
    assert "NULL" in accounts_query({"version": "5.6.51"})  # no account_locked before 5.7.6
    assert not reads_dictionary({"version": "8.0.11-TiDB-v7.5.1"})


def test_statements_are_read_only():
    for q in (Q_SCHEMAS, Q_TABLES, Q_INNODB_TABLES, Q_UNIQUE_KEYS, Q_AUTO_INCREMENT):
        assert q.startswith("SELECT") and "information_schema" in q


def test_account_name():
    assert account_name("advisor@%") == "'advisor'@'%'"
    assert account_name("a@b@10.0.0.1") == "'a@b'@'10.0.0.1'"
    assert account_name(None) == "the advisor's account"


def test_without_clustering_key():
    tables = [("s", "pk"), ("s", "uniq_not_null"), ("s", "uniq_nullable"), ("s", "none")]
    keys = [("s", "pk", "PRIMARY", ""), ("s", "uniq_not_null", "code", ""), ("s", "uniq_not_null", "code", ""),
            ("s", "uniq_nullable", "code", "YES"), ("s", "uniq_nullable", "code", "")]
    assert without_clustering_key(tables, keys) == ["s.none", "s.uniq_nullable"]


def test_mysql_rows_become_accounts_and_tables():
    priv = ["Y"] * len(PRIVILEGE_COLUMNS)
    none = ["N"] * len(PRIVILEGE_COLUMNS)
    raw = raw_for("8.0.36", current_user="root@localhost",
                  own_privileges=[("'root'@'localhost'", "SELECT"), ("'root'@'localhost'", "SHOW DATABASES")],
                  accounts=[("root", "localhost", "caching_sha2_password", 0, "N", "N", "", "N", *priv),
                            ("app", "%", "", None, "N", "Y", "X509", "N", *none),
                            ("mysql.sys", "localhost", "caching_sha2_password", 0, "Y", "N", "", "N", *none)],
                  schemas=[("app", "utf8mb4", "utf8mb4_0900_ai_ci"), ("mysql", "utf8mb4", "utf8mb4_0900_ai_ci")],
                  tables=[("app", "InnoDB", "utf8mb4_0900_ai_ci", 3, 4096), ("app", "MyISAM", "latin1_swedish_ci", 1, 0)],
                  innodb_tables=[("app", "a"), ("app", "b"), ("app", "c")], unique_keys=[("app", "a", "PRIMARY", "")],
                  auto_increment=[("app", "a", 100), ("app", "b", 3000000000)],
                  auto_increment_columns=[("app", "a", "int(11)"), ("app", "b", "int(10) unsigned")],
                  plugins=[("validate_password", "ACTIVE")])
    f = facts_of(raw)
    assert [a.user for a in f.accounts] == ["app", "mysql.sys", "root"]  # sorted by user, host
    by = {a.user: a for a in f.accounts}
    assert by["root"].global_privileges[0] == "SELECT" and "SUPER" in by["root"].global_privileges
    assert by["app"].plugin == "mysql_native_password" and by["app"].empty_password is True  # NULL string
    assert by["app"].password_expired is True and by["app"].ssl_type == "X509"
    assert by["mysql.sys"].locked is True and by["root"].locked is False
    st = f.tables.schemas["app"]
    assert (st.tables, st.engines, st.without_primary_key, st.data_free_bytes) == (4, {"InnoDB": 3, "MyISAM": 1}, 2, 4096)
    assert f.tables.without_primary_key == ["app.b", "app.c"]
    assert [a.table for a in f.tables.auto_increment] == ["app.b", "app.a"]  # highest share first
    assert f.plugins == {"validate_password": "ACTIVE"} and f.missing == []


def test_refusals_and_partial_visibility_name_the_grant():
    denied = QueryError("SELECT ... FROM mysql.user", 1142, "SELECT command denied to user 'ro'@'10.0.0.9' for table 'user'")
    raw = raw_for("10.11.19-MariaDB", current_user="ro@%", own_privileges=[("'ro'@'%'", "USAGE")],
                  schemas=[("app", "utf8mb4", "utf8mb4_general_ci")], tables=[], innodb_tables=[], unique_keys=[],
                  auto_increment=[], auto_increment_columns=[], plugins=[], errors={"accounts": denied})
    missing = {m.fact: m.reason for m in facts_of(raw).missing}
    assert "`GRANT SELECT ON mysql.user TO 'ro'@'%'` and `GRANT SELECT ON mysql.global_priv TO 'ro'@'%'`" in missing["server.accounts"]
    assert "GRANT SHOW DATABASES ON *.* TO 'ro'@'%'" in missing["server.schemas"]
    assert "GRANT SELECT ON *.* TO 'ro'@'%'" in missing["server.tables"]
    tidb = facts_of(raw_for("8.0.11-TiDB-v7.5.1"))
    assert {m.fact for m in tidb.missing} == {"server.accounts", "server.schemas", "server.tables", "server.plugins",
                                             "server.time_zone_names", "server.transactions"}


def test_certificate_expiry_against_the_read_time():
    from advisor.collect.parse import certificate_expiry, parse_certificate

    read_at = 1798761600.0  # 2027-01-01T00:00:00Z
    cert = certificate_expiry("Jan 31 00:00:00 2027 GMT", read_at)
    assert (cert.not_after, cert.days_left) == ("2027-01-31T00:00:00Z", 30.0)
    assert certificate_expiry("Dec  1 12:00:00 2026 GMT", read_at).days_left == -30.5  # OpenSSL pads the day
    assert certificate_expiry("soon", read_at) is None
    facts = ServerFacts.model_construct(variables={}, status={}, missing=[])
    parse_certificate(RawServer(status=[("Ssl_server_not_after", "")], read_at=read_at), facts)
    assert facts.tls_certificate is None and "reports no certificate" in facts.missing[0].reason


def test_the_statement_list_is_what_the_collector_sends_and_no_statement_sorts(capsys):
    import json

    from advisor.collect import dictionary
    from advisor.collect.mysql import Q_DATA_SIZE

    class Recorder:  # stands in for the server connection: answers every statement with no rows
        def __init__(self, refuse=()):
            self.sent, self.refuse = [], refuse

        def rows(self, sql, key, fatal):
            self.sent.append(sql)
            return None if key in self.refuse else []

    variables = {"version": "10.11.19-MariaDB", "version_comment": "mariadb.org binary distribution"}
    statements = dictionary.dictionary_statements(variables)
    r = Recorder()
    dictionary.read_dictionary(r, variables, RawServer())
    assert r.sent == [sql for _, sql in statements]
    r = Recorder(refuse=("tables",))
    dictionary.read_dictionary(r, variables, RawServer())
    assert r.sent == [sql for k, sql in statements if k not in dictionary.AFTER_TABLES]
    assert dictionary.dictionary_statements({"version": "8.0.11-TiDB-v7.5.1"}) == []
    # a GROUP BY sorts on MariaDB and MySQL 5.7 (Sort_scan, which rules judge) unless it says ORDER BY NULL
    for sql in [sql for _, sql in statements] + [Q_DATA_SIZE]:
        assert "GROUP BY" not in sql or sql.endswith("ORDER BY NULL"), sql
    # what the Ansible role asks for on the controller
    assert dictionary.main([variables["version"], variables["version_comment"]]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [(k, sql) for k, sql, _ in got] == statements
    assert {k for k, _, needs in got if needs == "tables"} == set(dictionary.AFTER_TABLES)
    assert dictionary.main([]) == 2


def test_the_clients_tab_output_and_error_line():
    from advisor.dumps.fetched import CLIENT_ERROR, tab_rows

    assert tab_rows("a\tNULL\t3\nx\\ty\t\t0\n") == [("a", None, "3"), ("x\ty", "", "0")]
    m = CLIENT_ERROR.search("ERROR 1142 (42000) at line 1: SELECT command denied to user 'u'@'localhost' "
                            "for table `mysql`.`user`\n")
    assert m and m.group(1) == "1142" and m.group(2).strip().endswith("`mysql`.`user`")
