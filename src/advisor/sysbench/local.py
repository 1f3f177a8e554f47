"""What the sysbench on the machine running the checklist is (version, MySQL client library) as a
model, and the pure parsers of `sysbench --version` and `ldd` output. advisor.collect.sysbench runs
the commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True)
class LocalSysbench:
    """The sysbench binary on the machine running the checklist, if any, and its MySQL client library."""

    path: Optional[str] = None
    version: Optional[str] = None            # "1.0.20", "1.1.0-ead2689"
    library: Optional[str] = None            # libmariadb | libmysqlclient | libperconaserverclient
    library_file: Optional[str] = None       # "libmariadb.so.3"
    library_version: Optional[str] = None    # mysql_get_client_info(): "3.3.20", "8.0.36"
    reason: str = ""                         # what could not be found, and why

    @property
    def era(self) -> Optional[str]:
        return era_of_version(self.version)

    def describe(self) -> str:
        if not self.path:
            return f"no sysbench on this machine ({self.reason})" if self.reason else "no sysbench on this machine"
        lib = self.library_file or "an unknown client library"
        if self.library_version:
            lib += f" {self.library_version}"
        return f"sysbench {self.version or '(version unknown)'} at {self.path}, linked against {lib}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "version": self.version, "library": self.library, "library_file": self.library_file,
                "library_version": self.library_version, "reason": self.reason}


def era_of_version(version: Optional[str]) -> Optional[str]:
    if not version:
        return None
    m = re.match(r"(\d+)\.(\d+)", version)
    if not m:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    if (major, minor) <= (1, 0):
        return "1.0"
    return "1.1"


def parse_version_output(text: str) -> Optional[str]:
    """`sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)` -> '1.0.20'; `sysbench 1.1.0-ead2689` -> '1.1.0-ead2689'."""
    m = re.search(r"sysbench\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?(?:-[0-9A-Za-z.]+)?)", text)
    return m.group(1) if m else None


def parse_ldd(text: str) -> tuple[Optional[str], Optional[str], Optional[str]]:
    """(library, file, resolved path) of the MySQL-protocol client library in `ldd` output."""
    for line in text.splitlines():
        m = re.match(r"\s*((lib(mariadb|mysqlclient|perconaserverclient))[^\s]*\.so[^\s]*)\s*(?:=>\s*(\S+))?", line)
        if m:
            path = m.group(4) if m.group(4) and m.group(4) != "not" else None
            return m.group(2), m.group(1), path
    return None, None, None
