"""Option-file parsing, includes, option -> variable mapping, and value comparison."""

from __future__ import annotations

from advisor.mycnf.cnf import (effective, option_to_variable, parse_option_text, read_option_file, server_groups,
                               server_options)
from advisor.mycnf.compare import guess_unit, same_value, show
from advisor.versions import Version

SAMPLE = """
# a comment
; another comment
[client]
password = "not for the server"

[mysqld]
sort_buffer_size = 32M          # trailing comment
innodb-log-file-size=48M
skip-name-resolve
loose-innodb_numa_interleave = 1
log-bin = /var/log/mysql/mysql-bin
init_connect = 'SET NAMES utf8mb4 # not a comment'
sort_buffer_size = 2M

[mysqld-10.11]
max_connections = 500

[mariadb]
thread_handling = pool-of-threads
"""


def test_parse_groups_values_comments_and_quotes():
    f = parse_option_text(SAMPLE, "my.cnf")
    assert f.errors == []
    by = {(o.group, o.key): o for o in f.options}
    assert by[("client", "password")].value == "not for the server"
    assert by[("mysqld", "innodb_log_file_size")].value == "48M"
    assert by[("mysqld", "skip_name_resolve")].value is None
    assert by[("mysqld", "init_connect")].value == "SET NAMES utf8mb4 # not a comment"
    assert by[("mysqld", "log_bin")].line == 12


def test_last_occurrence_wins_and_groups_follow_the_flavor():
    f = parse_option_text(SAMPLE, "my.cnf")
    eff = effective(server_options(f.options, "mariadb", Version(10, 11, 6)))
    assert eff["sort_buffer_size"].value == "2M"
    assert eff["max_connections"].value == "500"          # [mysqld-10.11]
    assert eff["thread_handling"].value == "pool-of-threads"  # [mariadb]
    assert "innodb_numa_interleave" in eff                # loose- prefix stripped
    assert "password" not in eff                          # [client] is not read by the server
    mysql = effective(server_options(f.options, "mysql", Version(8, 0, 36)))
    assert "thread_handling" not in mysql and "max_connections" not in mysql
    assert "mariadb" in server_groups("mariadb", Version(10, 11)) and "mariadb" not in server_groups("mysql", Version(8, 0))


def test_malformed_lines_are_reported_with_file_and_line():
    f = parse_option_text("sort_buffer_size = 1M\n[mysqld\n!inclde x\n[mysqld]\nbad name = 1\n", "x.cnf")
    assert any("x.cnf:1" in e and "before any [group]" in e for e in f.errors)
    assert any("x.cnf:2" in e for e in f.errors)
    assert any("x.cnf:3" in e and "unknown directive" in e for e in f.errors)
    assert any("x.cnf:5" in e for e in f.errors)


def test_includes_are_followed_in_order(tmp_path):
    d = tmp_path / "conf.d"
    d.mkdir()
    (d / "10-a.cnf").write_text("[mysqld]\nsort_buffer_size = 1M\n")
    (d / "99-advisor.cnf").write_text("[mysqld]\nsort_buffer_size = 2M\n")
    (d / "ignored.txt").write_text("[mysqld]\nsort_buffer_size = 9M\n")
    (tmp_path / "extra.cnf").write_text("[mysqld]\nmax_connections = 10\n")
    main = tmp_path / "my.cnf"
    main.write_text(f"[mysqld]\nsort_buffer_size = 512K\nmax_connections = 5\n!includedir {d}\n!include extra.cnf\n")
    f = read_option_file(main, cwd=tmp_path)  # a relative include is opened from the current directory, as the server does
    eff = effective(f.options)
    assert eff["sort_buffer_size"].value == "2M" and eff["sort_buffer_size"].file.endswith("99-advisor.cnf")
    assert eff["max_connections"].value == "10"
    assert f.errors == []


def test_include_of_missing_file_is_an_error_not_a_crash(tmp_path):
    main = tmp_path / "my.cnf"
    main.write_text("[mysqld]\n!include /nonexistent/x.cnf\n!includedir /nonexistent-dir\n")
    f = read_option_file(main)
    assert len(f.errors) == 2


def test_option_to_variable():
    server = {"skip_name_resolve", "log_bin", "sort_buffer_size", "performance_schema", "general_log"}
    known = server.__contains__
    assert option_to_variable("skip_name_resolve", None, known) == ("skip_name_resolve", "ON")
    assert option_to_variable("skip_log_bin", None, known) == ("log_bin", "OFF")
    assert option_to_variable("disable_performance_schema", None, known) == ("performance_schema", "OFF")
    assert option_to_variable("enable_general_log", None, known) == ("general_log", "ON")
    assert option_to_variable("log_bin", "/var/log/mysql/mysql-bin", known) == ("log_bin", "ON")
    assert option_to_variable("sort_buffer_size", "2M", known) == ("sort_buffer_size", "2M")
    assert option_to_variable("user", "mysql", known) is None


def test_same_value_normalises_units():
    assert same_value("2G", "2147483648", "bytes")
    assert same_value("256K", "262144", None)
    assert not same_value("2G", "2147483647", "bytes")
    assert same_value("ON", "1", "bool") and same_value("off", "OFF", None)
    assert same_value("1", "ON", "enum")  # innodb_doublewrite shows ON
    assert same_value("TLSv1.3,TLSv1.2", "TLSv1.2,TLSv1.3", "set")
    assert same_value("90", "90.000000", "float")
    assert same_value("O_DIRECT", "o_direct", "enum")
    assert not same_value("O_DIRECT", "fsync", "enum")
    assert guess_unit("2M", "2097152") == "bytes" and guess_unit("ON", "0") == "bool"


def test_show_gives_both_forms_for_sizes():
    assert show("2147483648", "bytes") == "2147483648 (2G)"
    assert show("2G", "bytes") == "2G (2147483648)"
    assert show("151", "count") == "151"
