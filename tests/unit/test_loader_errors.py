"""Malformed rules fail at load time with the file and the field named (STYLE.md practice 2)."""

import pytest

from advisor.errors import RuleLoadError
from advisor.rules.loader import load_rules, parse_rule

BASE = '''
id = "thing-wrong"
title = "t"
category = "memory"
severity = "warning"
rationale = "r"
message = "m"
references = ["https://example.org"]
[when]
all = [ { fact = "var.a", op = "eq", value = 1 }, { fact = "var.b", op = "ge", value = "32M" } ]
[[examples]]
name = "a"
expect = "fired"
[[examples]]
name = "b"
expect = "passed"
'''


def err(text):
    with pytest.raises(RuleLoadError) as e:
        parse_rule(text, "rules/x/thing.toml")
    return str(e.value)


def test_valid_base_loads():
    assert parse_rule(BASE, "x.toml").id == "thing-wrong"


def test_unknown_operator_names_field_and_choices():
    msg = err(BASE.replace('op = "ge"', 'op = "gte"'))
    assert "rules/x/thing.toml: when.all[1].op: expected one of eq, ne, lt, le, gt, ge" in msg
    assert "'gte'" in msg


def test_unknown_key_is_an_error():
    msg = err(BASE.replace('severity = "warning"', 'severity = "warning"\nseverty = "info"'))
    assert "severty" in msg and "unknown key" in msg


def test_bad_severity():
    msg = err(BASE.replace('severity = "warning"', 'severity = "high"'))
    assert "severity" in msg and "'high'" in msg


def test_bad_fact_namespace_and_model_path():
    assert "unknown fact namespace 'vars'" in err(BASE.replace('fact = "var.a"', 'fact = "vars.a"'))
    assert "no field 'totl_bytes'" in err(BASE.replace('fact = "var.a"', 'fact = "host.memory.totl_bytes"'))
    assert "no derived fact" in err(BASE.replace('fact = "var.a"', 'fact = "derived.nope"'))


def test_bad_formula_and_placeholder():
    assert "no formula named 'nope'" in err(BASE + '\n[[recommend]]\nformula = "nope"\n')
    assert "unknown filter |bytes" in err(BASE.replace('message = "m"', 'message = "{var.a|bytes}"'))


def test_needs_two_examples_and_a_reference():
    assert "examples" in err(BASE.split("[[examples]]")[0] + '[[examples]]\nname = "a"\nexpect = "fired"\n')
    assert "references" in err(BASE.replace('references = ["https://example.org"]', "references = []"))


def test_bad_id_and_toml_syntax():
    assert "id" in err(BASE.replace('id = "thing-wrong"', 'id = "Thing"'))
    assert "not valid TOML" in err(BASE + "\n[[[")


def test_in_needs_values_list():
    msg = err(BASE.replace('op = "eq", value = 1', 'op = "in", value = 1'))
    assert "when.all[0].value" in msg


def test_duplicate_id_across_directories(tmp_path):
    (tmp_path / "dup.toml").write_text(BASE.replace('id = "thing-wrong"', 'id = "tls-in-use"'))
    with pytest.raises(RuleLoadError) as e:
        load_rules([tmp_path])
    assert "already used" in str(e.value) and "dup.toml" in str(e.value)


def test_missing_directory():
    with pytest.raises(RuleLoadError):
        load_rules(["/nonexistent/rules"])


def test_rule_cache_is_used_and_invalidated(tmp_path, monkeypatch):
    import os
    import time

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ADVISOR_NO_CACHE", raising=False)
    d = tmp_path / "rules"
    d.mkdir()
    f = d / "thing-wrong.toml"
    f.write_text(BASE)
    first = load_rules([d], builtin=False)
    cached = list((tmp_path / "cache" / "advisor").glob("catalogue-*.pickle"))
    assert len(cached) == 1
    again = load_rules([d], builtin=False)
    assert [r.spec for r in again] == [r.spec for r in first]
    # an edit (new size and mtime) is a miss: the new text is validated, not the cached one
    f.write_text(BASE.replace('op = "ge"', 'op = "gte"'))
    os.utime(f, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    with pytest.raises(RuleLoadError):
        load_rules([d], builtin=False)


def test_a_new_data_file_in_a_rule_directory_is_a_new_cache_key(tmp_path, monkeypatch):
    """Every file of a catalogue directory keys the cache, not only the .toml rules: a data file
    another kind of entry reads (a group list, a symptom table) is picked up without naming it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ADVISOR_NO_CACHE", raising=False)
    d = tmp_path / "rules"
    d.mkdir()
    (d / "thing-wrong.toml").write_text(BASE)
    load_rules([d], builtin=False)
    folder = tmp_path / "cache" / "advisor"
    before = {p.name for p in folder.glob("catalogue-*.pickle")}
    (d / "groups.yaml").write_text("groups: []\n")
    load_rules([d], builtin=False)
    after = {p.name for p in folder.glob("catalogue-*.pickle")}
    assert len(before) == 1 and after - before, (before, after)


def test_corrupt_cache_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    d = tmp_path / "rules"
    d.mkdir()
    (d / "thing-wrong.toml").write_text(BASE)
    load_rules([d], builtin=False)
    for p in (tmp_path / "cache" / "advisor").glob("catalogue-*.pickle"):
        p.write_bytes(b"not a pickle")
    assert load_rules([d], builtin=False)[0].id == "thing-wrong"


def test_an_edit_that_keeps_size_and_mtime_is_a_miss(tmp_path, monkeypatch):
    """`cp -p` of an edited rule keeps its size and mtime: the cache is keyed on content."""
    import os

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ADVISOR_NO_CACHE", raising=False)
    d = tmp_path / "rules"
    d.mkdir()
    f = d / "thing-wrong.toml"
    f.write_text(BASE)
    st = os.stat(f)
    assert load_rules([d], builtin=False)[0].spec.severity == "warning"
    edited = BASE.replace('severity = "warning"', 'severity = "info"   ')  # same length
    assert len(edited) == len(BASE)
    f.write_text(edited)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(f).st_size == st.st_size and os.stat(f).st_mtime_ns == st.st_mtime_ns
    assert load_rules([d], builtin=False)[0].spec.severity == "info"


class _Payload:
    """A pickle that creates a file when it is loaded: what a hostile cache file could do."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):  # noqa: D105
        import pathlib

        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


@pytest.mark.parametrize("mode", [0o777, 0o757, 0o775])
def test_a_cache_directory_others_can_write_is_never_unpickled(tmp_path, monkeypatch, mode):
    import pickle

    from advisor.cache import _key, cache_dir, cached

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ADVISOR_NO_CACHE", raising=False)
    src = tmp_path / "input.toml"
    src.write_text("x = 1\n")
    inputs = [("input", src)]
    d = cache_dir()
    d.mkdir(parents=True)
    marker = tmp_path / "payload-ran"
    (d / f"t-{_key(inputs)}.pickle").write_bytes(pickle.dumps(_Payload(str(marker))))
    d.chmod(mode)
    assert cached("t", inputs, lambda: "built") == "built"
    assert not marker.exists()
    assert list(d.glob("t-*.pickle")) == [d / f"t-{_key(inputs)}.pickle"]  # nothing written there either
    d.chmod(0o700)  # the same file in a private directory is read (so the payload above was live)
    cached("t", inputs, lambda: "built")
    assert marker.exists()


def test_the_cache_directory_is_created_private(tmp_path, monkeypatch):
    import stat

    from advisor.cache import cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ADVISOR_NO_CACHE", raising=False)
    d = tmp_path / "rules"
    d.mkdir()
    (d / "thing-wrong.toml").write_text(BASE)
    load_rules([d], builtin=False)
    assert stat.S_IMODE(cache_dir().stat().st_mode) == 0o700
    for p in cache_dir().glob("*.pickle"):
        assert stat.S_IMODE(p.stat().st_mode) == 0o600


def test_installs_sharing_a_cache_keep_their_entries(tmp_path, monkeypatch):
    """Several installs (venvs, checkouts) with one cache directory: each one's entry survives the
    others' runs, up to cache.KEEP per name; the least recently used goes first."""
    import os
    import time as _time

    from advisor import cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ADVISOR_NO_CACHE", raising=False)
    files = []
    for i in range(cache.KEEP + 2):
        f = tmp_path / f"input{i}.txt"
        f.write_text(f"install {i}")
        files.append(f)
    builds: list[int] = []

    def run(i: int) -> str:
        return cache.cached("t", [("in", files[i])], lambda: builds.append(i) or f"value {i}")

    base = _time.time() - 1000
    for i in range(cache.KEEP):
        assert run(i) == f"value {i}"
        for n, p in enumerate(sorted((cache.cache_dir()).glob("t-*.pickle"), key=lambda p: p.stat().st_mtime)):
            os.utime(p, (base + n, base + n))  # distinct ages whatever the clock's resolution
    assert len(list(cache.cache_dir().glob("t-*.pickle"))) == cache.KEEP
    builds.clear()
    assert [run(i) for i in range(cache.KEEP)] == [f"value {i}" for i in range(cache.KEEP)]
    assert builds == []  # every install still has its entry: no one evicted another
    os.utime(next(iter(sorted(cache.cache_dir().glob("t-*.pickle")))), (base, base))  # make one the oldest
    oldest = min(cache.cache_dir().glob("t-*.pickle"), key=lambda p: p.stat().st_mtime)
    run(cache.KEEP)  # a fifth install: the least recently used entry goes
    left = list(cache.cache_dir().glob("t-*.pickle"))
    assert len(left) == cache.KEEP and oldest not in left
