"""The dump parsers (advisor.dumps.formats, pure) and the snapshot builder, on the real public dumps
in tests/fixtures/dumps (PROVENANCE.md there). Where a layout has no committed public sample (a
terminal copy with spaces, pt-stalk's sectioned *-variables file, `\\G`, ndjson), the test lays
real rows from those dumps out the way that tool writes them and says so; the live integration
test (tests/integration/test_dumps_live.py) reads the same layouts from a real mariadbd and its
real clients."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.dumps import import_snapshot
from advisor.dumps.build import Input, build_snapshot, clean_rows
from advisor.dumps.formats import detect, parse, parse_status_defer
from advisor.dumps.model import DumpError, Section
from advisor.dumps.read import plan_directory, read_text
from advisor.errors import InvalidInputError, UsageError

D = Path(__file__).resolve().parents[1] / "fixtures" / "dumps"
PT80 = D / "percona-8.0.32-pt-mysql-summary"
V001 = D / "mysql-5.1.34-table" / "vars001.txt"
V002 = D / "mysql-5.1.34-tab-header" / "vars002.txt"
TUNER = D / "mariadb-10.6.12-mysqltuner-dumpdir"
TIDB = D / "tidb-docs-cn-show-variables" / "show-variables.md"
J80 = D / "mysql-8.0.32-mysqltuner-json" / "result.json"
FT = '+ -><()~*:""&|'  # ft_boolean_syntax: a value with quotes and a pipe


def text(p: Path) -> str:
    return p.read_text(encoding="utf-8")


def rows_of(p: Path) -> dict[str, str]:
    return dict(parse(text(p)).sections[0].rows)


# ---------------------------------------------------------------- detection

@pytest.mark.parametrize("path, fmt", [
    (PT80 / "mysql-variables", "tab"), (PT80 / "mysql-status", "tab"), (V002, "tab"), (V001, "table"),
    (TIDB, "table"), (TUNER / "ifs_GLOBAL_VARIABLES.csv", "csv"), (TUNER / "ifs_GLOBAL_STATUS.csv", "csv"),
    (J80, "json"), (D / "percona-8.0.29-netdata-table" / "global_variables.txt", "table"),
])
def test_detect_names_the_format_of_each_real_dump(path, fmt):
    assert detect(text(path)) == fmt


# ---------------------------------------------------------------- tab

def test_pt_mysql_summary_variables_drop_the_trailer_and_keep_the_collection_time():
    dump = parse(text(PT80 / "mysql-variables"))
    s = dump.sections[0]
    assert s.kind == "variables" and len(s.rows) == 689
    v = dict(s.rows)
    assert v["version"] == "8.0.32-24" and v["ft_boolean_syntax"] == FT and v["admin_address"] == ""
    assert not any(n.startswith(("internal::", "pt-summary-internal")) for n in v)
    assert dump.collected_at == "2023-07-13 23:29:50"
    assert any("19 pt-mysql-summary trailer lines" in n for n in dump.notes)


def test_tab_status_decodes_batch_escapes_in_long_values():
    s = parse(text(PT80 / "mysql-status")).sections[0]
    st = dict(s.rows)
    assert s.kind == "status" and len(s.rows) == 539
    key = st["Rsa_public_key"]
    assert key.startswith("-----BEGIN PUBLIC KEY-----\nMIIB") and key.endswith("-----END PUBLIC KEY-----\n")
    assert st["Tls_library_version"] == "OpenSSL 3.0.2 15 Mar 2022" and st["Uptime"] == "108232"


def test_tab_with_header_row():
    s = parse(text(V002)).sections[0]
    assert s.rows[0] == ("auto_increment_increment", "1") and len(s.rows) == 270
    assert ("Variable_name", "Value") not in s.rows


def test_tab_copied_from_a_terminal_with_spaces():
    """vars002 as it looks after copying from a terminal: tabs turned into spaces."""
    spaced = text(V002).replace("\t", "    ")
    assert detect(spaced) == "tab"
    dump = parse(spaced)
    v = dict(dump.sections[0].rows)
    assert len(v) == 270 and v["innodb_buffer_pool_size"] == "16777216" and v["init_connect"] == ""
    assert v["datetime_format"] == "%Y-%m-%d %H:%i:%s"
    assert any("no tabs" in n for n in dump.notes)


def test_pt_stalk_variables_file_takes_the_show_global_variables_section():
    """pt-stalk's collect_mysql_variables writes each statement, then `mysql -e` output (header row);
    the performance_schema.variables_by_thread section after it has three columns."""
    body = "\nSHOW GLOBAL VARIABLES\n\n" + text(V002)
    body += ("\nselect * from performance_schema.variables_by_thread order by thread_id, variable_name;\n\n"
             "THREAD_ID\tVARIABLE_NAME\tVARIABLE_VALUE\n48\tautocommit\tON\n48\tsort_buffer_size\t262144\n")
    dump = parse(body)
    assert [s.kind for s in dump.sections] == ["variables"]
    assert len(dump.sections[0].rows) == 270
    assert any("variables_by_thread" in n for n in dump.notes)


def test_pt_mysql_summary_status_defer_gives_two_samples():
    """mysql-status-defer is `join` of two SHOW STATUS samples; rows whose values hold spaces are skipped."""
    first = dict(parse(text(PT80 / "mysql-status")).sections[0].rows)
    lines = [f"{k} {v} {int(v) + 600 if k == 'Uptime' else v}" for k, v in first.items()]
    dump = parse_status_defer("\n".join(lines) + "\n")
    s = dump.sections[0]
    assert len(s.samples) == 2 and dict(s.samples[1])["Uptime"] == "108832" and dict(s.rows) == dict(s.samples[1])
    assert any("values contain spaces" in n for n in dump.notes)  # Tls_library_version, the PEM keys


# ---------------------------------------------------------------- table

def test_table_keeps_values_that_contain_a_pipe_and_a_misaligned_row():
    v = rows_of(V001)
    assert len(v) == 270
    assert v["ft_boolean_syntax"] == FT
    assert v["innodb_log_file_size"] == "50331648"  # its row is one column wider than the border
    assert v["init_connect"] == "" and v["version_comment"] == "MySQL Community Server (GPL)"


def test_table_in_a_pasted_session_merges_the_results_and_skips_prompts_and_prose():
    dump = parse(text(TIDB))
    assert [len(s.rows) for s in dump.sections] == [58, 1]
    assert all(s.kind == "variables" for s in dump.sections)
    snap = import_snapshot(str(TIDB), flavor="tidb", version="3.0.0", now="2026-01-01T00:00:00Z")
    assert len(snap.server.variables) == 59 and snap.server.variables["time_zone"] == "SYSTEM"
    assert snap.server.variables["tidb_auto_analyze_end_time"] == "23:59 +0000"


def test_truncated_table_is_an_error():
    cut = text(V001).rsplit("+-", 1)[0]
    with pytest.raises(DumpError, match="no closing"):
        parse(cut)


# ---------------------------------------------------------------- vertical

def test_vertical_output():
    """vars002's first rows laid out as `mysql -e 'SHOW GLOBAL VARIABLES\\G'` prints them."""
    rows = parse(text(V002)).sections[0].rows[:40]
    out = ["mysql> SHOW GLOBAL VARIABLES\\G"]
    for i, (n, v) in enumerate(rows, 1):
        out += [f"*************************** {i}. row ***************************", f"Variable_name: {n}",
                f"        Value: {v}"]
    out.append(f"{len(rows)} rows in set (0.00 sec)")
    body = "\n".join(out) + "\n"
    assert detect(body) == "vertical"
    dump = parse(body)
    assert dump.sections[0].rows == rows and dump.sections[0].kind == "variables"


# ---------------------------------------------------------------- json

def test_mysqltuner_json_report_gives_variables_and_status():
    dump = parse(text(J80))
    kinds = {s.kind: s for s in dump.sections}
    v, st = dict(kinds["variables"].rows), dict(kinds["status"].rows)
    assert len(v) == 653 and len(st) == 496
    assert v["version"] == "8.0.32" and v["ft_boolean_syntax"] == FT and st["Uptime"] == "62"
    assert st["Innodb_log_waits_computed"] == "0"  # a JSON number becomes the string a server would send
    assert any("mangled" in n for n in dump.notes)


def test_json_row_shapes():
    """The real 8.0.32 variables as information_schema rows, as mysqlsh rows, as ndjson, as an object."""
    real = dict(parse(text(J80)).sections[0].rows)
    real["secure_file_priv"] = None  # information_schema reports it as NULL
    is_rows = [{"VARIABLE_NAME": k.upper(), "VARIABLE_VALUE": v} for k, v in real.items()]
    shell = {"rows": [{"Variable_name": k, "Value": v} for k, v in real.items()], "executionTime": "0.0 sec"}
    ndjson = "\n".join(json.dumps({"Variable_name": k, "Value": v}) for k, v in real.items())
    for body in (json.dumps(is_rows), json.dumps(shell), ndjson, json.dumps(real)):
        assert detect(body) == "json"
        rows = parse(body).sections[0].rows
        assert len(rows) == len(real)
    vars_, notes = clean_rows(parse(json.dumps(is_rows)).sections[0].rows, "variables", "x.json")
    assert vars_["secure_file_priv"] == "" and vars_["version"] == "8.0.32"
    assert any("upper case" in n for n in notes) and any("NULL" in n for n in notes)


def test_json_of_another_shape_says_what_it_found():
    with pytest.raises(DumpError, match="keys"):
        parse(json.dumps([{"name_of_thing": 1, "x": 2}]))
    with pytest.raises(DumpError, match="advisor snapshot"):
        parse(json.dumps({"schema_version": 1, "target": {}}))


# ---------------------------------------------------------------- csv

def test_mysqltuner_csv_records_without_separators():
    v = rows_of(TUNER / "ifs_GLOBAL_VARIABLES.csv")
    assert len(v) == 627 and v["FT_BOOLEAN_SYNTAX"] == FT and v["VERSION"] == "10.6.12-MariaDB"
    assert v["SLAVE_TYPE_CONVERSIONS"] == "" and v["OPTIMIZER_SWITCH"].startswith("index_merge=on,")
    lines = text(TUNER / "ifs_GLOBAL_STATUS.csv").replace('""', '"\n"')  # one record per line
    st = dict(parse(lines).sections[0].rows)
    assert len(st) == 569 and st["UPTIME"] == "61"


def test_information_schema_names_are_stored_as_show_writes_them():
    snap = import_snapshot(str(TUNER), now="2026-01-01T00:00:00Z")
    assert snap.server.variables["innodb_buffer_pool_size"] == "134217728"
    st = snap.server.status
    assert st["Uptime"] == "61" and st["Innodb_os_log_written"] == "303932416" and "wsrep_ready" in st


# ---------------------------------------------------------------- odd inputs

@pytest.mark.parametrize("body, match", [
    ("", "empty"), ("   \n\n", "empty"), ("\x00\x01\x02binary", "binary"),
    ("hello world, this is prose\n", "matches none"),
    ("[mysqld]\ninnodb_buffer_pool_size = 1G\n", "option file"),
    ('{"broken": ', "not valid JSON"),
])
def test_odd_inputs_give_one_clear_error(body, match):
    with pytest.raises(DumpError, match=match):
        parse(body)


def test_a_name_given_twice_with_different_values_is_an_error_naming_both():
    body = text(V002) + "innodb_buffer_pool_size\t268435456\n"
    rows = parse(body).sections[0].rows
    with pytest.raises(DumpError, match=r"innodb_buffer_pool_size twice.*'16777216'.*'268435456'"):
        clean_rows(rows, "variables", "v.txt")


def test_repeated_rows_with_the_same_value_are_read_once():
    rows = parse(text(V002) + text(V002)).sections[0].rows
    vars_, notes = clean_rows(rows, "variables", "v.txt")
    assert len(vars_) == 270 and any("270 row(s) repeated" in n for n in notes)


def test_very_long_value_is_kept_whole():
    long = "x" * 1_000_000
    v = dict(parse(text(V002) + f"optimizer_trace\t{long}\n").sections[0].rows)
    assert len(v["optimizer_trace"]) == 1_000_000


def test_status_dump_given_as_variables_says_so(tmp_path):
    with pytest.raises(InvalidInputError, match="holds SHOW STATUS.*--status"):
        import_snapshot(str(PT80 / "mysql-status"))


def test_read_text_refuses_binary_and_reads_gzip(tmp_path):
    import gzip

    b = tmp_path / "b"
    b.write_bytes(b"\x00\x00\x01")
    with pytest.raises(InvalidInputError, match="binary"):
        read_text(str(b))
    g = tmp_path / "v.txt.gz"
    g.write_bytes(gzip.compress(V002.read_bytes()))
    assert read_text(str(g)) == text(V002)


def test_unknown_input_format_is_a_usage_error():
    with pytest.raises(UsageError, match="tab, table, vertical, json, csv"):
        import_snapshot(str(V002), input_format="xml")


# ---------------------------------------------------------------- build

def _input(path: Path, kind: str = "variables") -> Input:
    s = parse(text(path)).sections[0]
    return Input(path=str(path), format="tab", section=Section(rows=s.rows, kind=kind))  # type: ignore[arg-type]


def test_flavor_and_version_from_the_dump_and_overrides():
    snap = build_snapshot(_input(PT80 / "mysql-variables"), None, advisor_version="t", now="n")
    assert (snap.target.flavor, snap.target.version, snap.target.version_string) == ("percona", "8.0.32", "8.0.32-24")
    assert snap.imported.flavor_from == "version_comment" and snap.imported.version_from == "version"
    o = build_snapshot(_input(PT80 / "mysql-variables"), None, advisor_version="t", now="n", flavor="mysql",
                       version="8.0.30")
    assert (o.target.flavor, o.target.version) == ("mysql", "8.0.30")
    assert any("overrides" in n for n in o.imported.notes)


def test_missing_version_asks_for_flavor_and_version():
    netdata = D / "percona-8.0.29-netdata-table" / "global_variables.txt"
    with pytest.raises(InvalidInputError, match="no `version` variable.*--flavor.*--version"):
        import_snapshot(str(netdata))
    with pytest.raises(DumpError, match="not one of"):
        build_snapshot(_input(V002), None, advisor_version="t", now="n", flavor="oracle")


def test_status_samples_give_interval_rates_when_far_enough_apart():
    first = parse(text(PT80 / "mysql-status")).sections[0].rows
    later = [(k, str(int(v) + (600 if k == "Uptime" else 1200 if k == "Questions" else 0))) if v.isdigit() else (k, v)
             for k, v in first]
    st = Input(path="s", format="tab", section=Section(rows=later, kind="status", samples=[first, later]))
    snap = build_snapshot(_input(PT80 / "mysql-variables"), st, advisor_version="t", now="n")
    assert snap.server.interval is not None and snap.server.interval.seconds == 600
    assert snap.server.interval.rates["Questions"] == 2.0
    close = [(k, str(int(v) + 3)) if k == "Uptime" else (k, v) for k, v in first]
    st2 = Input(path="s", format="tab", section=Section(rows=close, kind="status", samples=[first, close]))
    snap2 = build_snapshot(_input(PT80 / "mysql-variables"), st2, advisor_version="t", now="n")
    assert snap2.server.interval is None and any("too short" in n for n in snap2.imported.notes)


def test_plan_directory_for_the_three_collectors():
    assert plan_directory(["mysql-variables", "mysql-status", "innodb-status"])[1:3] == ("mysql-variables",
                                                                                         "mysql-status")
    assert plan_directory(["mysql-variables", "mysql-status", "mysql-status-defer"])[2] == "mysql-status-defer"
    tool, v, s, notes = plan_directory(["2013_01_01_00_00_00-variables", "2013_01_01_00_00_00-mysqladmin",
                                        "2013_01_02_00_00_00-variables", "2013_01_02_00_00_00-mysqladmin",
                                        "2013_01_02_00_00_00-df"])
    assert (tool, v, s) == ("pt-stalk", "2013_01_02_00_00_00-variables", "2013_01_02_00_00_00-mysqladmin")
    assert notes and "latest" in notes[0]
    assert plan_directory(["ifs_GLOBAL_VARIABLES.csv", "ifs_GLOBAL_STATUS.csv"])[0] == "MySQLTuner --dumpdir"
    assert plan_directory(["README"])[1] is None


def test_pt_mysql_summary_directory_with_status_defer_gives_rates(tmp_path):
    """The real pt-mysql-summary files plus a mysql-status-defer laid out as `join` writes it."""
    import shutil

    for f in ("mysql-variables", "mysql-status"):
        shutil.copy(PT80 / f, tmp_path / f)
    first = dict(parse(text(PT80 / "mysql-status")).sections[0].rows)
    bump = {"Uptime": 600, "Questions": 1200, "Innodb_os_log_written": 6_000_000}
    (tmp_path / "mysql-status-defer").write_text(
        "".join(f"{k} {v} {int(v) + bump.get(k, 0)}\n" for k, v in first.items() if v.isdigit()))
    snap = import_snapshot(str(tmp_path), now="2026-01-01T00:00:00Z")
    assert len(snap.server.status) == 539  # the complete rows of mysql-status
    iv = snap.server.interval
    assert iv is not None and iv.seconds == 600 and iv.rates["Questions"] == 2.0
    assert iv.rates["Innodb_os_log_written"] == 10_000.0


def test_mysql_9_status_names_with_a_colon_and_spaces_are_kept():
    s = parse(text(D / "mysql-9.7.1-pt-mysql-summary" / "mysql-status")).sections[0]
    st = dict(s.rows)
    assert len(st) == 517 and st["option_tracker_usage:Traditional Optimizer"] == "49725"
    assert st["Table_open_cache_overflows"] == "4709"
