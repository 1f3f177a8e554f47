"""A small on-disk cache for data that is expensive to validate and cheap to unpickle (the rule
catalogue, the variable catalogue): ~/.cache/advisor/<name>-<key>.pickle (XDG_CACHE_HOME
respected; ADVISOR_NO_CACHE=1 bypasses it).

The key is a SHA-256 over the advisor and Python versions and the path and *content* of every input
file and of the code that validates them (the loader version): any edit is a miss, also one copied
with `cp -p` that keeps size and mtime. A missing, unreadable or corrupt cache is a miss; an
unwritable cache directory only costs speed.

A pickle can run code when it is loaded, so a cache file is read only from a directory this user
owns that no one else can write (and only a file this user owns, not writable by others); otherwise
the cache is not used at all (neither read nor written). The directory is created mode 0700, the
files 0600.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, TypeVar

T = TypeVar("T")


def _key(inputs: Iterable[tuple[str, Any]]) -> Optional[str]:
    from advisor import __version__

    h = hashlib.sha256(f"{__version__}|{sys.version}".encode())
    for label, f in inputs:
        try:
            with open(str(f), "rb") as fh:
                data = fh.read()
        except (OSError, TypeError):
            return None  # not a plain file (e.g. inside a zip): do not cache
        h.update(f"|{label}|{f}|{len(data)}|".encode())
        h.update(hashlib.sha256(data).digest())
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
           valid: Callable[[Any], bool] = lambda x: True) -> T:
    """build(), or its pickled result from an earlier run with identical inputs."""
    if os.environ.get("ADVISOR_NO_CACHE"):
        return build()
    key = _key(list(inputs))
    if key is None:
        return build()
    path = cache_dir() / f"{name}-{key}.pickle"
    if not trusted_dir(path.parent, create=True):
        return build()  # someone else can write there: never unpickle from it, never write to it
    try:
        if _trusted_file(path):
            with open(path, "rb") as fh:
                value = pickle.load(fh)
            if valid(value):
                return value
    except Exception:  # missing, stale or corrupt: a miss
        pass
    value = build()
    try:
        for old in path.parent.glob(f"{name}-*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass
    return value


def code_files(*packages_dirs: Path) -> list[tuple[str, Path]]:
    """The .py and data files of the given package directories and their subpackages, as cache inputs."""
    out = []
    for d in packages_dirs:
        out += [(f"code:{p.name}", p) for p in sorted(d.rglob("*"))
                if p.is_file() and p.suffix in (".py", ".toml", ".json") and "__pycache__" not in p.parts]
    return out
