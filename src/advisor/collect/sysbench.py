"""Read this machine's sysbench (the I/O half of advisor.sysbench.local): `sysbench --version`, `ldd`,
the client library's version; and the --config-file a command names. Never raises for what is
missing: the reason goes into the result.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from advisor.sysbench.local import (LocalSysbench, client_library_of, parse_elf_needed, parse_ldd,
                                    parse_version_output)
from advisor.sysbench.parse import is_shell_expression

_CLIENT_INFO = ("import ctypes,sys\nl=ctypes.CDLL(sys.argv[1])\nf=l.mysql_get_client_info\nf.restype=ctypes.c_char_p\n"
                "print(f().decode())\n")


# System library directories, searched for a client library named in a binary that is not run:
# never the binary's own RPATH/RUNPATH (it may point at the directory it came from).
LIBRARY_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib")


def sysbench_on_path(name: str = "sysbench") -> Optional[str]:
    """The first executable `name` in an absolute PATH directory: '', '.' and relative entries are
    skipped, so a sysbench in the current directory is never picked by accident."""
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not d or not os.path.isabs(d):
            continue
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def read_local_sysbench(program: Optional[str] = None, timeout: float = 5.0) -> LocalSysbench:
    """Inspect the sysbench the command names. Only a sysbench found on PATH is run (`--version`,
    `ldd`, and mysql_get_client_info() of its library in a child process). A binary named by a path
    (`./sysbench`, `/opt/sb/sysbench`) that is not the one on PATH is never executed: its ELF dynamic
    section is read as data for the client library, and its version stays unknown. Never raises: what
    is missing goes into `reason`; `inspected` says which of the two was done."""
    named = program if program and os.sep in program else None
    on_path = sysbench_on_path(program if program and not named else "sysbench")
    if named is not None and (on_path is None or os.path.realpath(named) != os.path.realpath(on_path)):
        return _read_without_running(named)
    if on_path is None:
        return LocalSysbench(reason="sysbench is not on this machine's PATH; if it runs on another host, check there")
    return _run_from_path(on_path, timeout)


def _read_without_running(path: str) -> LocalSysbench:
    how = (f"not run: {path} is not the sysbench on PATH, so only its ELF dynamic section was read; "
           "its version is unknown")
    try:
        with open(path, "rb") as fh:
            data = fh.read(64 << 20)
    except OSError as e:
        return LocalSysbench(reason=f"{path} cannot be read here ({e.strerror}); it was not run", inspected=how)
    needed = parse_elf_needed(data)
    if needed is None:
        return LocalSysbench(path=path, reason=f"{path} is not a dynamically linked ELF binary; it was not run",
                             inspected=how)
    library, lib_file = client_library_of(needed)
    reasons = [] if library else ["its ELF dynamic section names no libmysqlclient/libmariadb"]
    lib_path = next((os.path.join(d, lib_file) for d in LIBRARY_DIRS if lib_file and os.path.isfile(os.path.join(d, lib_file))),
                    None)
    lib_version = _client_info(lib_path, 5.0, reasons) if lib_path else None
    return LocalSysbench(path=path, version=None, library=library, library_file=lib_file,
                         library_version=lib_version, reason="; ".join(reasons), inspected=how)


def _client_info(lib_path: str, timeout: float, reasons: list[str]) -> Optional[str]:
    """mysql_get_client_info() of a system client library, in a child process."""
    import subprocess
    import sys

    try:
        out = subprocess.run([sys.executable, "-S", "-I", "-c", _CLIENT_INFO, lib_path], capture_output=True, text=True,
                             timeout=timeout)
        v = out.stdout.strip()
        if out.returncode == 0 and re.match(r"\d+\.\d+", v):
            return v
        reasons.append(f"mysql_get_client_info() of {lib_path} could not be read")
    except (OSError, subprocess.SubprocessError) as e:
        reasons.append(f"reading the version of {lib_path} failed: {e}")
    return None


def _run_from_path(path: str, timeout: float) -> LocalSysbench:
    import subprocess

    reasons: list[str] = []
    version = None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=timeout)
        version = parse_version_output(out.stdout + out.stderr)
        if version is None:
            reasons.append(f"`{path} --version` printed no version")
    except (OSError, subprocess.SubprocessError) as e:
        reasons.append(f"`{path} --version` failed: {e}")
    library = lib_file = lib_path = lib_version = None
    try:
        out = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=timeout)
        library, lib_file, lib_path = parse_ldd(out.stdout)
        if library is None:
            reasons.append("`ldd` shows no libmysqlclient/libmariadb (statically linked, or not a dynamic binary)")
    except (OSError, subprocess.SubprocessError) as e:
        reasons.append(f"`ldd {path}` failed: {e}")
    if lib_path:
        lib_version = _client_info(lib_path, timeout, reasons)
    return LocalSysbench(path=path, version=version, library=library, library_file=lib_file,
                         library_version=lib_version, reason="; ".join(reasons),
                         inspected="found on PATH and run with --version")


def read_config_file(path: str, cwd: Optional[str] = None) -> tuple[Optional[str], Optional[str]]:
    """(text, None) or (None, why not) for a --config-file named in the command, relative to `cwd`."""
    from pathlib import Path

    p = Path(path)
    if not p.is_absolute():
        p = Path(cwd or os.getcwd()) / p
    if is_shell_expression(path):
        return None, f"the path is the shell expression {path}"
    try:
        return p.read_text(encoding="utf-8", errors="replace"), None
    except FileNotFoundError:
        return None, f"{p} does not exist here (run the checklist in the directory you run sysbench from)"
    except OSError as e:
        return None, f"{p}: {e.strerror}"
