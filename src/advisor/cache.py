"""A small on-disk cache for data that is expensive to validate and cheap to unpickle (the rule
catalogue, the variable catalogue): ~/.cache/advisor/<name>-<key>.pickle (XDG_CACHE_HOME
respected; ADVISOR_NO_CACHE=1 bypasses it).

The key is a SHA-256 over the advisor and Python versions and the path and *content* of every input
file and of the code that validates them (the loader version): any edit is a miss, also one copied
with `cp -p` that keeps size and mtime. A file unchanged since the last run (same size, mtime,
ctime, inode) is not read again: its digest is kept in a JSON memo (file-digests.json) beside the
cache. A missing, unreadable or corrupt cache is a miss; an
unwritable cache directory only costs speed.

A pickle can run code when it is loaded, so a cache file is read only from a directory this user
owns that no one else can write (and only a file this user owns, not writable by others); otherwise
the cache is not used at all (neither read nor written). The directory is created mode 0700, the
files 0600.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, TypeVar

T = TypeVar("T")


MEMO = "file-digests.json"
# the memo as this process last read or wrote it, per cache directory (each entry is still checked against
# the file's stat signature, so an edit made while the process runs is seen)
_MEMOS: dict[str, dict[str, list[Any]]] = {}


def _digests(paths: list[str]) -> Optional[list[str]]:
    """SHA-256 of each file's content. A file whose size, mtime, ctime, inode and device are those of
    the last run is not read again: its digest comes from a JSON memo in the cache directory (ctime
    cannot be set from user space, so an edit copied with `cp -p`, which keeps size and mtime, still
    changes it). None when a path is not a plain file."""
    memo_path = cache_dir() / MEMO
    memo = _MEMOS.get(str(memo_path))
    if memo is None:  # read once per process: a command asks for several keys (~1 ms of JSON each)
        memo = {}
        if _trusted_file(memo_path):
            try:
                with open(memo_path, encoding="utf-8") as fh:
                    loaded = json.load(fh)
                memo = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                memo = {}
        _MEMOS[str(memo_path)] = memo
    out, changed = [], False
    for p in paths:
        try:
            st = os.stat(p)
            sig = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
            known = memo.get(p)
            if isinstance(known, list) and known[:5] == sig and len(known) == 6:
                out.append(str(known[5]))
                continue
            with open(p, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
        except (OSError, TypeError):
            return None  # not a plain file (e.g. inside a zip): do not cache
        memo[p] = sig + [digest]
        out.append(digest)
        changed = True
    if changed and trusted_dir(memo_path.parent, create=True):
        try:
            import tempfile  # only to write (shutil, random: ~2.5 ms of a run that only reads)

            fd, tmp = tempfile.mkstemp(dir=memo_path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(memo, fh)
            os.replace(tmp, memo_path)
        except OSError:
            pass
    return out


def _key(inputs: Iterable[tuple[str, Any]]) -> Optional[str]:
    from advisor import __version__

    items = [(label, str(f)) for label, f in inputs]
    digests = _digests([f for _, f in items])
    if digests is None:
        return None
    h = hashlib.sha256(f"{__version__}|{sys.version}".encode())
    for (label, f), digest in zip(items, digests):
        h.update(f"|{label}|{f}|{digest}".encode())
    return h.hexdigest()[:32]


def _private(st: os.stat_result, kind: int) -> bool:
    """Owned by this user, of the expected kind (directory / regular file, not a symlink), and not
    writable by group or others."""
    import stat as _stat

    uid = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
    return _stat.S_IFMT(st.st_mode) == kind and st.st_uid == uid and not st.st_mode & 0o022


def trusted_dir(path: Path, create: bool = False) -> bool:
    """Whether the cache directory may be read from (see the module docstring); with `create`, make
    it (mode 0700) when it does not exist."""
    import stat as _stat

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return False
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            st = os.lstat(path)
        except OSError:
            return False
    except OSError:
        return False
    return _private(st, _stat.S_IFDIR)


def _trusted_file(path: Path) -> bool:
    import stat as _stat

    try:
        return _private(os.lstat(path), _stat.S_IFREG)
    except OSError:
        return False


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "advisor"


def cached(name: str, inputs: Iterable[tuple[str, Any]], build: Callable[[], T],
           valid: Callable[[Any], bool] = lambda x: True, plain: bool = False) -> T:
    """build(), or its pickled result from an earlier run with identical inputs. `plain`: the value
    is plain data (dicts, lists, strings, numbers), kept with marshal, which reads such data ~20 %
    faster than pickle and runs no code when it reads."""
    if os.environ.get("ADVISOR_NO_CACHE"):
        return build()
    return cached_by_key(name, _key(list(inputs)), build, valid, plain)


def input_key(inputs: Iterable[tuple[str, Any]]) -> Optional[str]:
    """The key `cached` computes for these inputs (None: not cacheable), for a caller that keeps
    several values under the same inputs (cached_by_key): every input file is looked at once."""
    if os.environ.get("ADVISOR_NO_CACHE"):
        return None
    return _key(list(inputs))


def cached_by_key(name: str, key: Optional[str], build: Callable[[], T],
                  valid: Callable[[Any], bool] = lambda x: True, plain: bool = False) -> T:
    """build(), or its pickled (`plain`: marshalled) result stored under `key` (from input_key;
    None: build())."""
    if key is None or os.environ.get("ADVISOR_NO_CACHE"):
        return build()
    import marshal

    suffix = "marshal" if plain else "pickle"
    path = cache_dir() / f"{name}-{key}.{suffix}"
    if not trusted_dir(path.parent, create=True):
        return build()  # someone else can write there: never unpickle from it, never write to it
    try:
        if _trusted_file(path):
            with open(path, "rb") as fh:
                value = marshal.loads(fh.read()) if plain else pickle.load(fh)
            if valid(value):
                _touch(path)
                return value
    except Exception:  # missing, stale or corrupt: a miss
        pass
    value = build()
    try:
        _prune(path.parent, name, keep=path, pattern=suffix)
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            if plain:
                fh.write(marshal.dumps(value))
            else:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except (OSError, ValueError):  # ValueError: marshal met a value that is not plain data
        pass
    return value


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


KEEP = 4  # files per cache name: several installs (venvs, checkouts) sharing one cache do not evict each other


def _prune(folder: Path, name: str, keep: Path, pattern: str = "pickle") -> None:
    """Delete all but the KEEP - 1 most recently used (modified: a hit touches its file) files of `name` besides `keep` (the one being written)."""
    others = []
    for old in folder.glob(f"{name}-*.{pattern}"):
        if old != keep:
            try:
                others.append((old.stat().st_mtime_ns, old))
            except OSError:
                pass
    for _, old in sorted(others, reverse=True)[KEEP - 1:]:
        old.unlink(missing_ok=True)


def code_files(*packages_dirs: Path) -> list[tuple[str, Path]]:
    """Every file of the given package directories and their subpackages (code and data of any kind:
    a data file added later is in the key without naming it here), as cache inputs; compiled
    bytecode and editor or temporary files are left out."""
    out = []
    for d in packages_dirs:
        found = []
        for folder, dirs, names in os.walk(d):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            found += [os.path.join(folder, n) for n in names
                      if not n.endswith((".pyc", ".tmp", ".swp", "~")) and not n.startswith((".", "#"))]
        out += [(f"code:{p.relative_to(d)}", p) for p in sorted(map(Path, found)) if p.is_file()]
    return out
