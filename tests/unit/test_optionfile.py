"""The one option-file reader (advisor.optionfile), line by line against the server's own reader as
`my_print_defaults --defaults-file=F GROUP...` prints it, and its include cycle / depth limits."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from advisor.optionfile import MAX_INCLUDE_DEPTH, parse_option_text, read_option_file, unquote
from tests.support.tools import require_tool

# Each a whole file; the corpus covers quotes, escapes, comments, blanks, case, groups and includes.
CORPUS = {
    "quotes-escapes": r'''# comment
[client]
password = "se\"cret"
user = 'it''s'
host = db1 # trailing comment
h2 = "a # b" # c
esc = a\tb\sc\\d\qe\
sq='a'b'
emptyq=""
e=
half = "unterminated
''',
    "blanks-case": """
   [client]
   indented   =   yes   
Port=3307
; semicolon comment
[CLIENT]
upper=1
[client ]
trailing_blank_group=1
[ client]
leading_blank_group_is_another_group=1
[client] # comment after the header
after_header_comment=1
bare
loose-ssl_mode=DISABLED
""",
    "groups": """[mysqld]
port=1
[client]
port=2
[mysql]
port=3
[client-server]
port=4
[advisor]
purpose=benchmark
[client]
port=5
""",
}
GROUPS = ("client", "mysql", "client-server", "advisor")


def _ours(path: Path, groups=GROUPS, cwd: Path | None = None) -> list[str]:
    f = read_option_file(path, cwd=cwd)
    return [f"--{o.written}" + ("" if o.value is None else f"={o.value}") for o in f.options if o.group in groups]


def _theirs(path: Path, groups=GROUPS, cwd: Path | None = None) -> list[str]:
    mpd = require_tool("my_print_defaults")
    p = subprocess.run([mpd, f"--defaults-file={path}", *groups], capture_output=True, text=True, cwd=cwd, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_lines_read_as_my_print_defaults_reads_them(tmp_path, name):
    f = tmp_path / f"{name}.cnf"
    f.write_text(CORPUS[name])
    assert _ours(f) == _theirs(f)


def test_the_issue_example_and_loose_prefix(tmp_path):
    f = parse_option_text('[client]\npassword = "se\\"cret"\nloose-ssl_mode = DISABLED\n', "x.cnf")
    pw, mode = f.options
    assert pw.value == 'se"cret' and mode.option == "ssl-mode" and mode.value == "DISABLED"
    assert unquote(r'"a\nb"') == "a\nb" and unquote("'x'") == "x" and unquote(r"a\qb") == r"a\qb"


def test_includes_in_order_and_relative_to_the_current_directory(tmp_path):
    d = tmp_path / "conf.d"
    d.mkdir()
    (d / "b.cnf").write_text("[client]\nfrom_b=1\n")
    (d / "a.cnf").write_text("[client]\nfrom_a=1\n")
    (d / "c.conf").write_text("[client]\nnot_read=1\n")
    (tmp_path / "rel.cnf").write_text("[client]\nrelative=1\n")
    main = tmp_path / "my.cnf"
    main.write_text(f"[client]\nfirst=1\n!includedir {d}\nmiddle=1\n!include rel.cnf\n"
                    "!include /nonexistent/missing.cnf\nlast=1\n")
    for cwd in (tmp_path, d):  # rel.cnf is found from tmp_path only, by both readers
        assert _ours(main, cwd=cwd) == _theirs(main, cwd=cwd)
    assert _ours(main, cwd=tmp_path) == ["--first=1", "--from_a=1", "--from_b=1", "--middle=1", "--relative=1", "--last=1"]


def test_fatal_lines_are_the_ones_the_server_refuses(tmp_path):
    mpd = require_tool("my_print_defaults")
    for text in ("before=1\n[client]\n", "[client\nx=1\n", f"[client]\n!includedir {tmp_path}/nodir\n"):
        f = tmp_path / "bad.cnf"
        f.write_text(text)
        p = subprocess.run([mpd, f"--defaults-file={f}", "client"], capture_output=True, text=True, timeout=30)
        ours = read_option_file(f)
        assert p.returncode != 0 and ours.fatal, (text, p.stderr, ours.errors)
    ok = tmp_path / "ok.cnf"
    ok.write_text("[client]\n!unknown directive\n!include /nonexistent.cnf\n")
    assert read_option_file(ok).fatal == [] and len(read_option_file(ok).errors) == 2


def test_world_writable_included_file_is_ignored_like_the_server(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "open.cnf").write_text("[client]\nuser=intruder\n")
    (d / "open.cnf").chmod(0o666)
    main = tmp_path / "my.cnf"
    main.write_text(f"[client]\nuser=me\n!includedir {d}\n")
    f = read_option_file(main)
    assert [o.value for o in f.options] == ["me"] and "world-writable" in f.warnings[0]
    assert _ours(main) == _theirs(main)


def test_includedir_of_its_own_directory_is_a_cycle_read_once(tmp_path):
    """issue 19: four files each with `!includedir` of their own directory took 18.6 s (the server's
    reader re-reads them 10 levels deep). Each file is read once, the cycle is one error per include."""
    for name in "abcd":
        (tmp_path / f"{name}.cnf").write_text(f"[client]\nfrom_{name}=1\n!includedir {tmp_path}\n")
    f = read_option_file(tmp_path / "a.cnf")
    assert [o.name for o in f.options] == ["from_a", "from_b", "from_c", "from_d"]
    assert f.fatal and all("include cycle" in e for e in f.fatal)
    assert "include cycle, " + " -> ".join([str(tmp_path / "a.cnf")] * 2) in f.fatal[0]
    assert any(f"{tmp_path / 'a.cnf'} -> " in e for e in f.fatal)
    assert len(f.files) == 4 + 0 and len(f.errors) < 50


def test_include_depth_limit(tmp_path):
    for i in range(MAX_INCLUDE_DEPTH + 3):
        (tmp_path / f"{i}.cnf").write_text(f"[client]\nlevel{i}=1\n!include {tmp_path / f'{i + 1}.cnf'}\n")
    f = read_option_file(tmp_path / "0.cnf")
    assert len(f.options) == MAX_INCLUDE_DEPTH + 1
    assert len(f.fatal) == 1 and f"deeper than {MAX_INCLUDE_DEPTH} levels" in f.fatal[0]


def test_a_file_included_twice_without_a_cycle_is_a_note_not_an_error(tmp_path):
    (tmp_path / "common.cnf").write_text("[client]\ncommon=1\n")
    (tmp_path / "x.cnf").write_text(f"[client]\n!include {tmp_path / 'common.cnf'}\n")
    (tmp_path / "top.cnf").write_text(f"[client]\n!include {tmp_path / 'x.cnf'}\n!include {tmp_path / 'common.cnf'}\n")
    f = read_option_file(tmp_path / "top.cnf")
    assert f.fatal == [] and [o.name for o in f.options] == ["common"]
    assert len(f.errors) == 1 and "already read" in f.errors[0]
    assert _theirs(tmp_path / "top.cnf") == ["--common=1", "--common=1"]  # the server reads it twice


def test_many_files_including_their_own_directory_are_each_read_once(tmp_path):
    for i in range(60):
        (tmp_path / f"f{i:02}.cnf").write_text(f"[client]\nk{i}=1\n!includedir {tmp_path}\n")
    f = read_option_file(tmp_path / "f00.cnf")
    assert sorted(o.name for o in f.options) == sorted(f"k{i}" for i in range(60))
    assert len(f.files) == 60 and 0 < len(f.fatal) <= 8


def test_long_lines_are_cut_in_messages():
    f = parse_option_text("[client\n" + "x" * 100_000 + "\n", "big.cnf")
    assert f.errors and all(len(e) < 400 for e in f.errors)


def test_messages_show_no_option_value(tmp_path):
    """A value in a malformed line may be a password: messages name the option, not its value."""
    f = parse_option_text("password = Tok-Secret\n[client password=Tok-Secret\n!inclde x=Tok-Secret\n", "x.cnf")
    assert len(f.errors) == 3 and all("Tok-Secret" not in e for e in f.errors)
    assert "option 'password = …' appears before any [group] header" in f.errors[0]
