"""What a parsed dump holds, before it becomes a snapshot. Pure data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

Kind = Literal["variables", "status"]
Row = tuple[str, str]


class DumpError(ValueError):
    """Text that a parser cannot read. `str()` says what was found, in one sentence; the reader at
    the edge adds the file name and the formats it reads. `tip` says what to do, when the message
    itself does not."""

    def __init__(self, message: str, tip: Optional[str] = None):
        super().__init__(message)
        self.tip = tip


@dataclass
class Section:
    """One SHOW VARIABLES or SHOW STATUS result, or several samples of SHOW STATUS.

    `rows` are (name, value) pairs in file order, values decoded as the server sent them (SQL NULL
    becomes '' as the live collector stores it). `samples` holds every sample of a multi-sample
    status file (mysqladmin extended-status -i, pt-mysql-summary's mysql-status-defer), oldest
    first; `rows` is then the last one. `kind` is None when the text does not say which it is."""

    rows: list[Row] = field(default_factory=list)
    kind: Optional[Kind] = None
    samples: list[list[Row]] = field(default_factory=list)
    label: str = ""


@dataclass
class Dump:
    """The result of one parser on one text: its format id, its sections, and what it skipped."""

    format: str
    sections: list[Section] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    collected_at: Optional[str] = None
    version_hint: Optional[str] = None

    def of_kind(self, kind: Kind) -> Optional[Section]:
        for s in self.sections:
            if s.kind == kind:
                return s
        return None
