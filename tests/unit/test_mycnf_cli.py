"""`advisor mycnf` and `advisor verify` from the command line, without a server (profiles, the demo
snapshot, saved snapshots): outputs, exit codes, one-paragraph errors."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import assert_one_paragraph_error, invoke

PROFILE = ["mycnf", "--profile", "--ram", "64G", "--cores", "16", "--disk", "nvme-plp", "--flavor", "mysql"]


def settings(text: str) -> dict[str, str]:
    return dict(ln.split(" = ", 1) for ln in text.splitlines() if ln and not ln.startswith("#") and " = " in ln)


def test_acceptance_profile_commands():
    p = invoke(*PROFILE, "--version", "8.0.36", "--workload", "oltp")
    assert p.returncode == 0, p.stderr
    s = settings(p.stdout)
    assert "innodb_redo_log_capacity" in s and "innodb_log_file_size" not in s
    p = invoke(*PROFILE, "--version", "8.0.20", "--workload", "oltp")
    s = settings(p.stdout)
    assert "innodb_log_file_size" in s and "innodb_redo_log_capacity" not in s
    p = invoke("mycnf", "--profile", "--ram", "64G", "--cores", "16", "--disk", "nvme-plp", "--flavor", "mariadb",
                "--version", "10.11", "--workload", "oltp")
    assert p.returncode == 0 and "innodb_log_files_in_group" not in p.stdout


def test_output_file_and_modes(tmp_path):
    out = tmp_path / "99-advisor.cnf"
    p = invoke("mycnf", "--demo", "--purpose", "benchmark", "-o", str(out))
    assert p.returncode == 0 and p.stdout == ""
    text = out.read_text()
    assert text.startswith("# 99-advisor.cnf: a drop-in") and "[mysqld]" in text
    full = invoke("mycnf", "--demo", "--mode", "full").stdout
    assert "the complete tuning configuration" in full and "kept; unchanged" in full
    assert len(settings(full)) > len(settings(text))


def test_stated_host_facts_fill_in_a_snapshot_without_host(tmp_path):
    snap = json.loads(open(_demo_path()).read())
    snap["host"] = None
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snap))
    without = invoke("mycnf", "--snapshot", str(f)).stdout
    assert "memory: unknown" in without and "innodb_buffer_pool_size =" not in without
    stated = invoke("mycnf", "--snapshot", str(f), "--ram", "256G", "--disk", "ssd").stdout
    assert "memory: 256 GiB RAM (--ram --disk given on the command line)" in stated
    assert "innodb_buffer_pool_size = 192G" in stated


def _demo_path() -> str:
    from importlib.resources import files

    return str(files("advisor.data") / "demo-seed-000.json")


@pytest.mark.parametrize("args,needle", [
    (["mycnf", "--profile", "--ram", "64G"], "--profile needs --cores, --disk, --flavor, --version"),
    (["mycnf", "--demo", "--allow-unsafe-durability"], "only accepted with --purpose benchmark"),
    ([*PROFILE, "--version", "8.0.36", "--ram", "12X"], "--ram '12X' is not a size"),
    ([*PROFILE, "--version", "8.0.36", "--ram", "512M"], "below 1 GiB"),
    ([*PROFILE, "--version", "10.11"], "is not a mysql version"),
    (["mycnf", "--demo", "--snapshot", "x.json"], "cannot be used together"),
    (["mycnf", "--demo", "--flavor", "mysql"], "--flavor and --version describe a --profile"),
    (["mycnf", "--profile", "--ram", "8G", "--cores", "2", "--disk", "tape", "--flavor", "mysql", "--version", "8.0.36"],
     "tape"),
])
def test_usage_errors_exit_2_with_one_paragraph(args, needle):
    p = invoke(*args)
    assert p.returncode == 2, p.stdout + p.stderr
    assert_one_paragraph_error(p.stderr)
    assert needle in p.stderr


def test_tidb_snapshot_is_refused(tmp_path):
    snap = json.loads(open(_demo_path()).read())
    snap["target"]["flavor"] = "tidb"
    f = tmp_path / "tidb.json"
    f.write_text(json.dumps(snap))
    p = invoke("mycnf", "--snapshot", str(f))
    assert p.returncode == 2 and "tidb.toml" in p.stderr
    assert_one_paragraph_error(p.stderr)


def test_validate_catalogue_only(tmp_path):
    good = tmp_path / "good.cnf"
    good.write_text(invoke(*PROFILE, "--version", "8.0.36").stdout)
    p = invoke("mycnf", "--validate", str(good), "--flavor", "mysql", "--version", "8.0.36", "--no-server-check",
                "--ram", "64G")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "valid: 0 problem(s)" in p.stdout and "of the 64 GiB memory limit: within the limit" in p.stdout
    # the same file for MySQL 8.0.20 names a variable that does not exist there
    p = invoke("mycnf", "--validate", str(good), "--flavor", "mysql", "--version", "8.0.20", "--no-server-check")
    assert p.returncode == 1
    assert "innodb_redo_log_capacity does not exist on MySQL 8.0.20" in p.stdout
    # and for a 16 GiB machine its 48G buffer pool exceeds the memory
    p = invoke("mycnf", "--validate", str(good), "--flavor", "mysql", "--version", "8.0.36", "--no-server-check",
                "--ram", "16G")
    assert p.returncode == 1 and "EXCEEDS the limit" in p.stdout


def test_validate_problems_and_input_errors(tmp_path):
    bad = tmp_path / "bad.cnf"
    bad.write_text("[mysqld]\nquery_cache_size = 0\nsort_buffer_size = lots\ninnodb_flush_method = O_DIRECT\n"
                   "innodb_flush_method = fsync\n")
    p = invoke("mycnf", "--validate", str(bad), "--flavor", "mysql", "--version", "8.0.36", "--no-server-check")
    assert p.returncode == 1
    assert "query_cache_size does not exist on MySQL 8.0.36: removed in MySQL 8.0.3" in p.stdout
    assert "takes a number" in p.stdout and "the last one wins" in p.stdout
    p = invoke("mycnf", "--validate", str(tmp_path / "missing.cnf"), "--flavor", "mysql", "--version", "8.0.36")
    assert p.returncode == 4
    assert_one_paragraph_error(p.stderr)
    p = invoke("mycnf", "--validate", str(bad), "--flavor", "mysql")
    assert p.returncode == 2


def test_verify_against_a_snapshot_normalises_units(tmp_path):
    cnf = tmp_path / "same.cnf"
    # the demo server's values, written the way a my.cnf would: sizes with suffixes, booleans as words
    cnf.write_text("[mysqld]\nsort_buffer_size = 32M\ninnodb_buffer_pool_size = 64G\nmax_connections = 2000\n"
                   "skip-name-resolve\ninnodb_file_per_table = 1\nuser = mysql\n")
    p = invoke("verify", "--snapshot", _demo_path(), "--cnf", str(cnf))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "5 applied, 0 differ, 1 not applicable" in p.stdout
    changed = tmp_path / "changed.cnf"
    changed.write_text("[mysqld]\nsort_buffer_size = 256K\ninnodb_log_file_size = 1G\n")
    p = invoke("verify", "--snapshot", _demo_path(), "--cnf", str(changed), "--format", "json")
    assert p.returncode == 1
    r = json.loads(p.stdout)
    assert r["summary"] == {"applied": 0, "differs": 2, "not_applicable": 0}
    item = next(i for i in r["items"] if i["option"] == "innodb_log_file_size")
    assert item["server_value"] == "67108864" and "file 1G (1073741824), server 67108864 (64M)" in item["note"]
    assert "needs a restart" in item["note"]


def test_verify_input_errors(tmp_path):
    p = invoke("verify", "--snapshot", _demo_path(), "--cnf", str(tmp_path / "nope.cnf"))
    assert p.returncode == 4
    assert_one_paragraph_error(p.stderr)
    client_only = tmp_path / "client.cnf"
    client_only.write_text("[client]\nuser = x\n")
    p = invoke("verify", "--snapshot", _demo_path(), "--cnf", str(client_only))
    assert p.returncode == 4 and "sets no option in a group the server reads" in p.stderr


def test_help_lists_the_commands():
    p = invoke("--help")
    assert "mycnf" in p.stdout and "verify" in p.stdout
    p = invoke("mycnf", "--help", env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    assert "--allow-unsafe-durability" in p.stdout and "--validate" in p.stdout
