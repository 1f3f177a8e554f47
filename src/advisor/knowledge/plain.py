"""Validated entries as plain data: SimpleNamespace with the schema's attribute names, so that the
on-disk cache unpickles them without importing pydantic or the schema module (the variable
catalogue's entries, and the rules' `spec`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class Plain(SimpleNamespace):
    """A validated model's fields as attributes; model_dump and model_copy as pydantic's."""

    def model_dump(self, **_: Any) -> dict[str, Any]:
        return {k: _dump(v) for k, v in vars(self).items()}

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> "Plain":
        import copy

        out = copy.deepcopy(self) if deep else copy.copy(self)
        out.__dict__.update(update or {})
        return out


def _dump(v: Any) -> Any:
    if isinstance(v, Plain):
        return v.model_dump()
    if isinstance(v, list):
        return [_dump(x) for x in v]
    if isinstance(v, dict):
        return {k: _dump(x) for k, x in v.items()}
    return v


def plain(obj: Any) -> Any:
    """`obj` (a pydantic model, or lists and dicts of them) as Plain / list / dict."""
    from pydantic import BaseModel

    if isinstance(obj, BaseModel):
        return Plain(**{k: plain(getattr(obj, k)) for k in type(obj).model_fields})
    if isinstance(obj, list):
        return [plain(x) for x in obj]
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    return obj
