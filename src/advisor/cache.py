"""A small on-disk cache for data that is expensive to validate and cheap to unpickle (the rule
catalogue, the variable catalogue): ~/.cache/advisor/<name>-<key>.pickle (XDG_CACHE_HOME
respected; ADVISOR_NO_CACHE=1 bypasses it).

The key covers the advisor and Python versions and the path, size and mtime of every input file
and of the code that validates them, so any edit is a miss. A missing, unreadable or corrupt
cache is a miss; an unwritable cache directory only costs speed.
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
            st = os.stat(str(f))
        except (OSError, TypeError):
            return None  # not a plain file (e.g. inside a zip): do not cache
        h.update(f"|{label}|{f}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()[:32]


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
    try:
        with open(path, "rb") as fh:
            value = pickle.load(fh)
        if valid(value):
            return value
    except Exception:  # missing, stale or corrupt: a miss
        pass
    value = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
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
