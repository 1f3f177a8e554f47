"""advisor.codecache: the dataclasses' generated methods compiled once across runs of the console
script. Each case runs a real `python -m advisor` (the cache is installed only there) or a fresh
interpreter, so the shadowed exec never leaks into this test process."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from types import CodeType


def _advisor(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("ADVISOR_NO_CACHE", None)
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def _marshal_files(cache: Path) -> list[Path]:
    return sorted((cache / "advisor").glob("codecache2-*.marshal"))


def test_the_first_run_writes_the_code_and_the_second_gives_the_same_report(tmp_path):
    first = _advisor(tmp_path, "audit", "--demo", "--format", "json")
    assert first.returncode in (0, 1), first.stderr
    files = _marshal_files(tmp_path)
    assert len(files) == 1 and files[0].stat().st_mode & 0o077 == 0, files
    codes = marshal.loads(files[0].read_bytes())  # text -> marshal bytes of its code
    assert len(codes) > 20 and all(isinstance(k, str) and isinstance(marshal.loads(v), CodeType) for k, v in codes.items())
    assert all(k.startswith("def __create_fn__(") for k in codes)  # only what dataclasses writes
    before = files[0].stat().st_mtime_ns
    second = _advisor(tmp_path, "audit", "--demo", "--format", "json")
    assert second.returncode == first.returncode, second.stderr
    assert json.loads(second.stdout)["outcomes"] == json.loads(first.stdout)["outcomes"]
    assert files[0].stat().st_mtime_ns == before  # nothing new compiled: nothing rewritten


def test_a_cache_file_others_can_write_is_not_read(tmp_path):
    first = _advisor(tmp_path, "audit", "--demo", "--format", "json")
    assert first.returncode in (0, 1), first.stderr
    path, = _marshal_files(tmp_path)
    path.chmod(0o666)
    probe = ("import os, sys; os.environ['XDG_CACHE_HOME'] = sys.argv[1]; from advisor import codecache; "
             "print(len(codecache._load()))")
    out = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"
    path.chmod(0o600)
    out = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert int(out.stdout.strip()) > 20


def test_classes_made_through_the_cache_behave_as_dataclasses_makes_them(tmp_path):
    """The same class defined with compiled and with cached code: equal fields, defaults, repr, eq,
    order, hash and frozenness."""
    script = """
import os, sys
os.environ['XDG_CACHE_HOME'] = sys.argv[1]
from advisor import codecache
codecache.install()
from dataclasses import dataclass, field, FrozenInstanceError
@dataclass(frozen=True, order=True)
class P:
    a: int
    b: str = 'x'
    c: list = field(default_factory=list, compare=False)
p, q = P(1), P(1, 'y', [2])
try:
    p.a = 2
    frozen = False
except FrozenInstanceError:
    frozen = True
print(repr(p), p == P(1), p < q, hash(p) == hash(P(1)), frozen, q.c)
codecache.save()
"""
    runs = [subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    assert runs[0].stdout == runs[1].stdout == "P(a=1, b='x', c=[]) True True True True [2]\n"
    assert _marshal_files(tmp_path)


def test_no_cache_means_no_shadowing(tmp_path):
    probe = ("import os; os.environ['ADVISOR_NO_CACHE'] = '1'; from advisor import codecache; codecache.install(); "
             "import dataclasses; print('exec' in vars(dataclasses))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
