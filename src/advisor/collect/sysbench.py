"""Read this machine's sysbench (the I/O half of advisor.sysbench.local): `sysbench --version`, `ldd`,
the client library's version; and the --config-file a command names. Never raises for what is
missing: the reason goes into the result.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from advisor.sysbench.local import LocalSysbench, parse_ldd, parse_version_output
from advisor.sysbench.parse import is_shell_expression

_CLIENT_INFO = ("import ctypes,sys\nl=ctypes.CDLL(sys.argv[1])\nf=l.mysql_get_client_info\nf.restype=ctypes.c_char_p\n"
                "print(f().decode())\n")


def read_local_sysbench(program: Optional[str] = None, timeout: float = 5.0) -> LocalSysbench:
    """Find sysbench (the command's own path when it exists, else PATH) and read its version and client
    library: `sysbench --version`, `ldd`, and mysql_get_client_info() from the library (in a child
    process). Never raises: what is missing goes into `reason`."""
    import shutil
    import subprocess
    import sys

    path = None
    if program and os.sep in program and os.access(program, os.X_OK):
        path = program
    else:
        path = shutil.which(program if program and os.sep not in program else "sysbench")
    if path is None:
        return LocalSysbench(reason="sysbench is not on this machine's PATH; if it runs on another host, check there")
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
        try:
            out = subprocess.run([sys.executable, "-S", "-I", "-c", _CLIENT_INFO, lib_path], capture_output=True, text=True,
                                 timeout=timeout)
            v = out.stdout.strip()
            if out.returncode == 0 and re.match(r"\d+\.\d+", v):
                lib_version = v
            else:
                reasons.append(f"mysql_get_client_info() of {lib_path} could not be read")
        except (OSError, subprocess.SubprocessError) as e:
            reasons.append(f"reading the version of {lib_path} failed: {e}")
    return LocalSysbench(path=path, version=version, library=library, library_file=lib_file,
                         library_version=lib_version, reason="; ".join(reasons))


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
