"""Symptoms: status counters that show a problem the variables only hint at (symptoms.toml beside this
module; schema advisor.knowledge.schema.Symptom).

An entry names one SHOW GLOBAL STATUS counter or ratio, the sample it needs, a sourced threshold, the
variables it points to and the fix per flavor. This module loads and validates the file (cached on
disk like risky.toml); it evaluates nothing: the symptoms rule family (advisor.rules.symptoms) makes
one rule of each entry.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

SOURCE = "advisor/knowledge/symptoms.toml"


def load(text: str) -> dict[str, Any]:
    """id -> validated entry (ValueError naming the entry and the field)."""
    from advisor.knowledge.schema import Symptom

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{SOURCE}: {e}") from None
    out: dict[str, Any] = {}
    for sid, body in raw.items():
        if not isinstance(body, dict):
            raise ValueError(f"{SOURCE}: {sid}: write each entry as a table [{sid}]")
        try:
            out[sid] = Symptom.model_validate(body)
        except Exception as e:
            raise ValueError(f"{SOURCE}: [{sid}]: {e}") from None
    return out


@lru_cache(maxsize=1)
def entries() -> dict[str, Any]:
    """id -> validated entry as plain data (cached on disk across runs)."""
    from advisor.cache import cached, code_files
    from advisor.knowledge.plain import plain
    from advisor.resources import files

    src = files("advisor.knowledge") / "symptoms.toml"
    here = Path(__file__).resolve().parent

    def build() -> dict[str, Any]:
        return {k: plain(v) for k, v in load(src.read_text(encoding="utf-8")).items()}

    return cached("symptoms", [("symptoms.toml", src)] + code_files(here), build, lambda x: isinstance(x, dict))
