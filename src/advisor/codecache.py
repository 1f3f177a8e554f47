"""Compiled code for the methods the standard dataclasses module writes (``__init__``, ``__repr__``,
``__eq__``, ``__setattr__`` of a frozen class, ...).

dataclasses builds each method as source text and compiles it when the class is defined, at every
start of the program: about 0.4 ms of a ~0.75 ms class definition, and an audit defines about 35
classes. ``install()`` shadows the name ``exec`` inside the dataclasses module (its one use of it
compiles that text) with a function that compiles each distinct text once and keeps the code objects
in the advisor cache directory (``codecache2-<tag>-<python build>.marshal``, read only from a
directory and file that only this user can write, as advisor.cache's pickles are); a later run
unmarshals them instead of compiling. The file maps each text to its code object's marshal bytes,
and a run unmarshals only the codes of the classes it defines (an audit uses about 180 of the 550
texts that the commands together leave there: reading all of them cost ~1.7 ms). The text itself is the key, so what is executed is exactly
what dataclasses asked for, and a dataclasses that writes other text (another Python) only misses.
Nothing is shadowed when dataclasses defines ``exec`` itself; ADVISOR_NO_CACHE=1 turns it off.
"""

from __future__ import annotations

import builtins
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any, Optional

_CODES: Optional[dict[str, bytes]] = None  # text -> marshal bytes of its code, as read and written
_MADE: dict[str, CodeType] = {}  # the codes this run unmarshalled or compiled
_CHANGED = False


def _path() -> Path:
    import hashlib

    from advisor.cache import cache_dir

    build = hashlib.sha256(sys.version.encode()).hexdigest()[:12]
    return cache_dir() / f"codecache2-{sys.implementation.cache_tag}-{build}.marshal"


def _load() -> dict[str, bytes]:
    global _CODES
    import marshal

    from advisor.cache import _trusted_file, trusted_dir

    codes: dict[str, bytes] = {}
    path = _path()
    if trusted_dir(path.parent) and _trusted_file(path):
        try:
            loaded = marshal.loads(path.read_bytes())
            if isinstance(loaded, dict):
                codes = {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, bytes)}
        except (OSError, ValueError, EOFError, TypeError):
            codes = {}
    _CODES = codes
    return codes


def _code(source: str) -> CodeType:
    """The code of one text: made earlier in this run, unmarshalled from the file, or compiled."""
    global _CHANGED
    code = _MADE.get(source)
    if code is not None:
        return code
    import marshal

    codes = _CODES if _CODES is not None else _load()
    blob = codes.get(source)
    if blob is not None:
        try:
            code = marshal.loads(blob)
        except (ValueError, EOFError, TypeError):
            code = None
    if not isinstance(code, CodeType):
        code = compile(source, "<string>", "exec")
        codes[source] = marshal.dumps(code)
        _CHANGED = True
    _MADE[source] = code
    return code


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """exec() as dataclasses calls it, with source texts compiled once across runs."""
    if type(source) is str:
        source = _code(source)
    builtins.exec(source, globals, locals)


def install() -> None:
    """Shadow exec in the dataclasses module (once; never over a name it defines itself)."""
    import dataclasses

    if os.environ.get("ADVISOR_NO_CACHE") or "exec" in vars(dataclasses):
        return
    dataclasses.exec = _exec  # type: ignore[attr-defined]


def save() -> None:
    """Write the code objects when this run compiled new ones (the console script calls this at exit)."""
    global _CHANGED
    if not _CHANGED or _CODES is None:
        return
    import marshal
    import tempfile

    from advisor.cache import trusted_dir

    path = _path()
    if not trusted_dir(path.parent, create=True):
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(marshal.dumps(_CODES))
        os.replace(tmp, path)
        _CHANGED = False
        for old in path.parent.glob("codecache-*.marshal"):  # the first format (every code unmarshalled at once)
            old.unlink(missing_ok=True)
    except (OSError, ValueError):
        pass
