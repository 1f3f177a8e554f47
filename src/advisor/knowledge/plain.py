"""Validated catalogue entries as plain data: SimpleNamespace with the schema's attribute names, so
that the on-disk cache unpickles them without importing pydantic or the schema module."""

from __future__ import annotations

from typing import Any


def plain(obj: Any) -> Any:
    """`obj` (a pydantic model, or lists and dicts of them) as SimpleNamespace / list / dict."""
    from types import SimpleNamespace

    from pydantic import BaseModel

    if isinstance(obj, BaseModel):
        return SimpleNamespace(**{k: plain(getattr(obj, k)) for k in type(obj).model_fields})
    if isinstance(obj, list):
        return [plain(x) for x in obj]
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    return obj
