"""Flavor detection and version parsing for MySQL, Percona Server, MariaDB and TiDB. Pure.

Detection uses the `version` and `version_comment` variables (KNOWLEDGE.md §8 for TiDB):
  MySQL     8.0.36                        / MySQL Community Server - GPL
  Percona   8.0.36-28                     / Percona Server (GPL), Release 28, Revision 47601f19
  MariaDB   10.11.6-MariaDB-0+deb12u1     / Debian 12
  TiDB      5.7.25-TiDB-v5.1.4 or 8.0.11-TiDB-v7.5.1 (the MySQL-compatible prefix is not TiDB's version)
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass
from functools import total_ordering
from typing import Literal

Flavor = Literal["mysql", "percona", "mariadb", "tidb"]
FLAVORS: tuple[Flavor, ...] = ("mysql", "percona", "mariadb", "tidb")
FLAVOR_NAMES: dict[str, str] = {"mysql": "MySQL", "percona": "Percona Server", "mariadb": "MariaDB", "tidb": "TiDB"}


def flavor_name(flavor: str) -> str:
    """A flavor as people write it in a sentence: 'mysql' -> 'MySQL', 'percona' -> 'Percona Server'."""
    return FLAVOR_NAMES.get(flavor, flavor)

_TIDB_RE = re.compile(r"-TiDB-v(\d{1,9})\.(\d{1,9})\.(\d{1,9})", re.IGNORECASE)
_NUM_RE = re.compile(r"^\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?")


@total_ordering
@dataclass(frozen=True)
class Version:
    """A server release as major.minor.patch, ordered."""

    major: int
    minor: int = 0
    patch: int = 0

    @classmethod
    def parse(cls, text: str) -> "Version":
        """'8.0.36-28' -> 8.0.36; '10.11.6-MariaDB-0+deb12u1' -> 10.11.6; '8.0' -> 8.0.0.
        A TiDB version string yields TiDB's own version (v7.5.1), not the MySQL-compatible prefix."""
        t = _TIDB_RE.search(text)
        if t:
            return cls(int(t.group(1)), int(t.group(2)), int(t.group(3)))
        text = text.strip()
        if text[:1].lower() == "v":
            text = text[1:]
        m = _NUM_RE.match(text)
        if not m or any(g and len(g) > 9 for g in m.groups()):
            raise ValueError(f"not a version: {text[:40]!r}{'…' if len(text) > 40 else ''}")
        return cls(*(int(g) if g else 0 for g in m.groups()))

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)

    def __lt__(self, other: "Version") -> bool:
        return self.as_tuple() < other.as_tuple()

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


def detect_flavor(version: str, version_comment: str = "") -> Flavor:
    if _TIDB_RE.search(version) or "tidb" in version.lower():
        return "tidb"
    if "mariadb" in version.lower() or "mariadb" in version_comment.lower():
        return "mariadb"
    if "percona" in version_comment.lower():
        return "percona"
    return "mysql"


_CLAUSE_RE = re.compile(r"^\s*(>=|<=|==|!=|>|<|=)?\s*v?(\d{1,9}(?:\.\d{1,9}){0,2})\s*$")


@lru_cache(maxsize=1024)
def _clauses(text: str) -> tuple[tuple[str, list[int], tuple[int, ...]], ...]:
    """The parsed clauses of a range text ('*' has none), parsed once per text."""
    if text.strip() == "*":
        return ()
    out = []
    for clause in text.split(","):
        m = _CLAUSE_RE.match(clause)
        assert m is not None  # checked in __post_init__
        parts = [int(p) for p in m.group(2).split(".")]
        out.append((m.group(1) or "==", parts, tuple(parts + [0] * (3 - len(parts)))))
    return tuple(out)


@dataclass(frozen=True)
class VersionRange:
    """A conjunction of comparisons: '>=8.0.12,<8.0.30'; '*' matches everything.

    A clause written with fewer components compares only those components: '<8.1' is
    '< 8.1.0'; '==8.0' matches every 8.0.x."""

    text: str

    def __post_init__(self) -> None:
        if self.text.strip() != "*":
            for clause in self.text.split(","):
                if not _CLAUSE_RE.match(clause):
                    raise ValueError(
                        f"not a version range clause: {clause.strip()!r} (write e.g. '>=8.0.12,<8.0.30' or '*')"
                    )

    def contains(self, v: Version) -> bool:
        cur = v.as_tuple()
        for op, parts, want in _clauses(self.text):
            if op in ("==", "="):
                ok = list(cur[: len(parts)]) == parts
            elif op == "!=":
                ok = list(cur[: len(parts)]) != parts
            else:
                ok = {">=": cur >= want, "<=": cur <= want, ">": cur > want, "<": cur < want}[op]
            if not ok:
                return False
        return True

    def __str__(self) -> str:
        return self.text

    def describe(self) -> str:
        """The range in words: '>=5.6,<9.0' is '5.6 or later, before 9.0'; '==8.0' is '8.0.x'."""
        if self.text.strip() == "*":
            return "any version"
        words = {">=": "{} or later", ">": "later than {}", "<": "before {}", "<=": "{} or earlier",
                 "!=": "other than {}", "==": "{}.x", "=": "{}.x"}
        out = []
        for clause in self.text.split(","):
            m = _CLAUSE_RE.match(clause)
            if m is None:  # not reached: __post_init__ checked every clause
                out.append(clause.strip())
                continue
            op, ver = m.group(1) or "==", m.group(2)
            if op in ("==", "=") and ver.count(".") == 2:
                out.append(ver)
            else:
                out.append(words[op].format(ver))
        return ", ".join(out)
