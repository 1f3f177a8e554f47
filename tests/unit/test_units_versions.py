import pytest

from advisor.units import format_cnf_size, format_evidence, format_size, parse_bool, parse_size, try_number
from advisor.versions import Version, VersionRange, detect_flavor


@pytest.mark.parametrize("text,expected", [
    ("32M", 32 << 20), ("32m", 32 << 20), ("1.5G", 3 << 29), ("4096", 4096), ("16K", 16384), ("1GiB", 1 << 30),
    (2048, 2048),
])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["", "abc", "-1", "32X", "1.2.3", True])
def test_parse_size_rejects(bad):
    with pytest.raises(ValueError):
        parse_size(bad)


def test_formatting():
    assert format_size(33554432) == "32 MiB"
    assert format_size(1610612736) == "1.5 GiB"
    assert format_size(1000) == "1000 B"
    assert format_cnf_size(33554432) == "32M"
    assert format_cnf_size(1536 << 20) == "1536M"
    assert format_cnf_size(2 << 30) == "2G"
    assert format_cnf_size(1000) == "1000"


def test_numbers_and_bools():
    assert try_number("33554432") == 33554432
    assert try_number("0.5") == 0.5
    assert try_number("ON") is None
    assert parse_bool("ON") is True and parse_bool("off") is False and parse_bool("YES") is True
    assert parse_bool("DISABLED") is False and parse_bool("maybe") is None


@pytest.mark.parametrize("version,comment,flavor,parsed", [
    # version strings as the servers print them (KNOWLEDGE.md §8; MariaDB 10.11 on this machine)
    ("8.0.36", "MySQL Community Server - GPL", "mysql", "8.0.36"),
    ("5.7.44-log", "MySQL Community Server (GPL)", "mysql", "5.7.44"),
    ("8.0.36-28", "Percona Server (GPL), Release 28, Revision 47601f19", "percona", "8.0.36"),
    ("10.11.19-MariaDB-0+deb12u1", "Debian 12", "mariadb", "10.11.19"),
    ("11.4.2-MariaDB", "mariadb.org binary distribution", "mariadb", "11.4.2"),
    ("5.7.25-TiDB-v5.1.4", "TiDB Server (Apache License 2.0) Community Edition, MySQL 5.7 compatible", "tidb", "5.1.4"),
    ("8.0.11-TiDB-v7.5.1", "TiDB Server (Apache License 2.0) Community Edition, MySQL 8.0 compatible", "tidb", "7.5.1"),
])
def test_flavor_detection(version, comment, flavor, parsed):
    assert detect_flavor(version, comment) == flavor
    assert str(Version.parse(version)) == parsed


def test_version_ranges():
    r = VersionRange(">=8.0.12,<8.0.30")
    assert r.contains(Version(8, 0, 12)) and r.contains(Version(8, 0, 29))
    assert not r.contains(Version(8, 0, 30)) and not r.contains(Version(5, 7, 44))
    assert VersionRange("*").contains(Version(1, 2, 3))
    assert VersionRange("==8.0").contains(Version(8, 0, 36)) and not VersionRange("==8.0").contains(Version(8, 4, 0))
    assert VersionRange("<8.1").contains(Version(8, 0, 99))
    with pytest.raises(ValueError):
        VersionRange(">=eight")


@pytest.mark.parametrize("path,value,unit,shown", [
    ("var.innodb_flush_method", "", "enum", "'' (empty)"),              # MySQL 5.7's default on Unix means fsync
    ("var.sort_buffer_size", "33554432", "bytes", "32 MiB (33,554,432)"),  # one separator style on a line
    ("var.max_allowed_packet", 4194304, "bytes", "4 MiB (4,194,304)"),
    ("status.Innodb_log_write_requests", "102897619", "count", "102,897,619"),
    ("var.port", "3306", "count", "3306"),                               # not a counter: left as written
    ("var.innodb_io_capacity", "10000", "count", "10000"),               # a count, whatever its name says
    ("var.thread_cache_size", "16384", "count", "16384"),
    ("var.innodb_io_capacity_max", 20000, "count", "20,000"),
    ("var.plugin_buffer_size", "4194304", None, "4194304"),              # not catalogued: no unit is guessed
    ("derived.tls_in_use", True, None, "yes"),
    ("derived.nondefault_variables", ["a", "b"], None, "a, b"),
    ("derived.nondefault_variables", [], None, "(none)"),               # issue 23 §3: never "= ;"
    ("rate.Threads_created", 0.0712, "count", "0.07/s"),                 # a rate says per second
])
def test_format_evidence(path, value, unit, shown):
    assert format_evidence(path, value, unit) == shown
