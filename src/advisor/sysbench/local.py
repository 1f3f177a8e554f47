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
    inspected: str = ""                      # how: run from PATH, or read without running it

    @property
    def era(self) -> Optional[str]:
        return era_of_version(self.version)

    def describe(self) -> str:
        if not self.path:
            return f"no sysbench on this machine ({self.reason})" if self.reason else "no sysbench on this machine"
        lib = self.library_file or "an unknown client library"
        if self.library_version:
            lib += f" {self.library_version}"
        how = f" ({self.inspected})" if self.inspected else ""
        return f"sysbench {self.version or '(version unknown)'} at {self.path}, linked against {lib}{how}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "version": self.version, "library": self.library, "library_file": self.library_file,
                "library_version": self.library_version, "reason": self.reason, "inspected": self.inspected}


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


_CLIENT_LIBRARY = re.compile(r"(lib(mariadb|mysqlclient|perconaserverclient))[^/\s]*\.so[^/\s]*")


def client_library_of(needed: list[str]) -> tuple[Optional[str], Optional[str]]:
    """(library, file) of the MySQL-protocol client library among an ELF file's DT_NEEDED names."""
    for name in needed:
        m = _CLIENT_LIBRARY.fullmatch(name)
        if m:
            return m.group(1), name
    return None, None


def parse_elf_needed(data: bytes) -> Optional[list[str]]:
    """The DT_NEEDED names (shared libraries) of an ELF file, read from its section headers and its
    .dynamic section, without running or loading it; None when `data` is not an ELF file or has no
    dynamic section (a static binary, a script). Pure: the bytes are handed in."""
    import struct

    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    wide, end = data[4] == 2, "<" if data[5] == 1 else ">"
    try:
        if wide:
            shoff, = struct.unpack_from(end + "Q", data, 0x28)
            shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
        else:
            shoff, = struct.unpack_from(end + "I", data, 0x20)
            shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
        sections = []
        for i in range(min(shnum, 4096)):
            base = shoff + i * shentsize
            if wide:
                _, kind, _, _, off, size, link, _, _, entsize = struct.unpack_from(end + "IIQQQQIIQQ", data, base)
            else:
                _, kind, _, _, off, size, link, _, _, entsize = struct.unpack_from(end + "IIIIIIIIII", data, base)
            sections.append((kind, off, size, link, entsize))
        dyn = next((s for s in sections if s[0] == 6), None)  # SHT_DYNAMIC
        if dyn is None or dyn[3] >= len(sections):
            return None
        _, str_off, str_size, _, _ = sections[dyn[3]]
        strtab = data[str_off:str_off + str_size]
        entry = 16 if wide else 8
        needed = []
        for pos in range(dyn[1], dyn[1] + dyn[2] - entry + 1, entry):
            tag, val = struct.unpack_from(end + ("qQ" if wide else "iI"), data, pos)
            if tag == 0:  # DT_NULL
                break
            if tag == 1 and val < len(strtab):  # DT_NEEDED
                needed.append(strtab[val:strtab.index(b"\0", val) if b"\0" in strtab[val:] else None]
                              .decode("utf-8", "replace"))
        return needed
    except (struct.error, ValueError):
        return None
