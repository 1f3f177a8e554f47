"""`advisor mycnf --validate` on real public my.cnf files (issue 14 §2 item 13), against a real throwaway
mariadbd (the trial of advisor.mycnf.trial) and, for MySQL targets, the catalogue. The files and where
they come from: tests/fixtures/mycnf/PROVENANCE.md.

False problems it used to report: `query_cache_type = 0` ("0 is not one of OFF, ON, DEMAND"),
`transaction_isolation` on MariaDB 10.x ("exists on mariadb >=11.1"), `innodb_log_buffer_size = 1M`
(the server adjusts it), and a file with `user = mysql` or TLS files of another machine "refused" by the
trial. False "valid": options no one could check (thread_concurrency on a MySQL target without a server).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_cli

pytestmark = pytest.mark.requires_mariadbd

CNF = Path(__file__).resolve().parents[1] / "fixtures" / "mycnf"


def validate(name: str, flavor: str, version: str, tmp_path: Path):
    tmp = tmp_path / "t"
    tmp.mkdir()
    p = run_cli("mycnf", "--validate", str(CNF / name), "--flavor", flavor, "--version", version,
                env={"TMPDIR": str(tmp)}, timeout=240)
    assert list(tmp.iterdir()) == []  # the trial left nothing behind
    return p


def line_of(text: str, option: str) -> str:
    return next(x for x in text.splitlines() if x.strip().split("  ")[-1].startswith(option) or f" {option} " in x)


def test_nextcloudpi_file_has_no_false_problems(tmp_path):
    p = validate("nextcloudpi-91-ncp.cnf", "mariadb", "10.11", tmp_path)
    out = p.stdout
    assert p.returncode == 0, out + p.stderr
    assert "ok           query_cache_type = 0" in out               # an enum takes its index
    assert "ok           transaction_isolation = READ-COMMITTED" in out  # --transaction-isolation sets tx_isolation
    assert "'innodb-large-prefix' was removed" in out               # what the server said, as a warning
    assert "skip-name-resolve mode" not in out                      # the trial's own accounts are not the file's
    assert out.rstrip().splitlines()[-1].startswith("valid with warnings: 0 problem(s)")


def test_percona_sample_with_tls_files_of_another_machine(tmp_path):
    p = validate("pt-my.cnf-001.cnf", "mariadb", "10.11", tmp_path)
    out = p.stdout
    assert p.returncode == 0, out + p.stderr
    assert "Failed to setup SSL" not in out                          # the trial's environment, not the file
    assert "the trial ran with --skip-ssl" in out and "not on this machine" in out
    buf = next(x for x in out.splitlines() if "innodb_log_buffer_size = 1M" in x and "(" in x)
    assert buf.lstrip().startswith("warning") and "adjusts it" in buf  # adjusted, not refused
    assert "PROBLEM" not in out


def test_old_ansible_file_on_mariadb(tmp_path):
    p = validate("geerlingguy-2015-debian.cnf", "mariadb", "10.11", tmp_path)
    out = p.stdout
    assert p.returncode == 1, out + p.stderr
    assert "ddl_recovery.log" not in out and "Permission denied" not in out   # `user = mysql` is the target's
    assert "user = mysql is the target's account; the trial ran as" in out
    pool = next(x for x in out.splitlines() if x.lstrip().startswith(("PROBLEM", "warning", "ok", "not checked"))
                and "innodb_additional_mem_pool_size = 20M" in x)
    assert pool.lstrip().startswith("PROBLEM") and "unknown variable" in pool
    conc = next(x for x in out.splitlines() if "thread_concurrency = 2" in x and "(" in x)
    assert conc.lstrip().startswith("warning") and "was removed" in conc
    assert out.rstrip().splitlines()[-1].startswith("NOT valid")


def test_old_ansible_file_on_mysql_84_is_not_called_valid(tmp_path):
    p = validate("geerlingguy-2015-debian.cnf", "mysql", "8.4.3", tmp_path)
    out = p.stdout
    assert p.returncode == 1, out + p.stderr
    last = out.rstrip().splitlines()[-1]
    assert not last.startswith("valid"), last
    assert "thread_concurrency" in out and "innodb_additional_mem_pool_size" in out
    assert "ok           user = mysql" in out                        # a start-up option every server takes


def test_old_ansible_file_on_mysql_57_is_refused(tmp_path):
    """No server check for 5.7 (mysqld --validate-config is 8.0.16+), but the catalogue knows 5.7 (issue 23 §1):
    thread_concurrency and innodb_additional_mem_pool_size are gone there (5.7.2 / 5.7.4), so the file is NOT
    valid, exit 1, and the output says which."""
    p = validate("geerlingguy-2015-debian.cnf", "mysql", "5.7.44", tmp_path)
    last = p.stdout.rstrip().splitlines()[-1]
    assert p.returncode == 1, p.stdout + p.stderr
    assert last.startswith("NOT valid: 2 problem(s)"), last
    assert "thread_concurrency" in p.stdout and "innodb_additional_mem_pool_size" in p.stdout
    assert "datadir" not in last and "port" not in last               # path options every server takes


def test_compatibility_options_loose_options_and_distinct_problems(tmp_path):
    """Issue 23 §7: options MariaDB 10.11 keeps only for compatibility are what the trial server says (a
    warning), a loose_ option cannot stop the server, and the count holds distinct problems (not "[ERROR]
    Aborting", not one option twice)."""
    cnf = tmp_path / "compat.cnf"
    cnf.write_text("[mysqld]\ninnodb_log_files_in_group = 2\ninnodb_thread_concurrency = 8\n"
                   "loose_handlersocket_port = 9998\nno_such_option_here = 1\nno_such_option_here = 2\n")
    tmp = tmp_path / "t"
    tmp.mkdir()
    p = run_cli("mycnf", "--validate", str(cnf), "--flavor", "mariadb", "--version", "10.11",
                env={"TMPDIR": str(tmp)}, timeout=240)
    out = p.stdout
    assert p.returncode != 0, out + p.stderr
    for opt in ("innodb_log_files_in_group = 2", "innodb_thread_concurrency = 8"):
        line = next(x for x in out.splitlines() if opt in x)
        assert line.lstrip().startswith("warning") and "exists only for compatibility" in line, line
    loose = next(x for x in out.splitlines() if "loose_handlersocket_port" in x and "compat.cnf:4" in x)
    assert loose.lstrip().startswith("warning") and "cannot stop the server" in loose
    assert "Aborting" not in out
    assert out.count("PROBLEM  [ERROR]") == 1
    assert out.rstrip().splitlines()[-1].startswith("NOT valid: 1 problem(s)")
