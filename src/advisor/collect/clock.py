"""The wall-clock time stamp of a collection: UTC, whole seconds, ISO 8601 with a Z."""

from __future__ import annotations

import datetime as _dt


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
