"""JSON documents without the non-standard `Infinity` / `NaN`: a measurement that is not a finite
number (a calibration that divided by a zero duration, an overflowing rate) is written as null, and
the document's `missing` list (when it has one) says which value it was and why. Pure."""

from __future__ import annotations

import json
import math
from typing import Any


def _finite(node: Any, path: str, found: list[tuple[str, float]]) -> Any:
    if isinstance(node, float) and not math.isfinite(node):
        found.append((path, node))
        return None
    if isinstance(node, dict):
        return {k: _finite(v, f"{path}.{k}" if path else str(k), found) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return [_finite(v, f"{path}[{i}]", found) for i, v in enumerate(node)]
    return node


def finite(doc: Any) -> Any:
    """The document with every non-finite float replaced by None and, when the document has a
    `missing` list, one entry per replaced value naming it."""
    found: list[tuple[str, float]] = []
    clean = _finite(doc, "", found)
    if found and isinstance(clean, dict) and isinstance(clean.get("missing"), list):
        clean["missing"] = list(clean["missing"]) + [
            {"fact": p, "reason": f"the value was not a finite number ({v!r}); written as null"} for p, v in found]
    return clean


def dumps(doc: Any, **kw: Any) -> str:
    """json.dumps of finite(doc), refusing NaN/Infinity (allow_nan=False) so none can slip through."""
    return json.dumps(finite(doc), allow_nan=False, **kw)
