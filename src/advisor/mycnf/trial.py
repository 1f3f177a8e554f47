"""Check a my.cnf against the server itself (the I/O half of advisor.mycnf.validate): MySQL/Percona
>= 8.0.16 `mysqld --defaults-file=FILE --validate-config`; MariaDB a throwaway mariadbd on a temporary
datadir (mariadb-install-db --no-defaults), started with a generated --defaults-file that !includes
FILE, bound to no TCP port (--skip-networking, socket in the temp dir), every path option pointed into
the temp dir, run as `nobody` when started as root so it cannot write anywhere else; its variables
are read back and compared with the file; then it is stopped and the temp dir removed, also on Ctrl-C
or SIGTERM.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.mycnf.cnf import OptionLine, effective, option_to_variable, server_options
from advisor.mycnf.compare import same_value, show, unit_of
from advisor.units import format_size, to_number
from advisor.versions import Version

START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
SBIN = ("/usr/sbin", "/usr/local/sbin", "/sbin", "/usr/local/mysql/bin")


@dataclass
class ServerCheck:
    ran: bool = False
    method: str = ""
    binary: Optional[str] = None
    binary_version: Optional[str] = None
    reason: str = ""
    ok: Optional[bool] = None
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    readback: list[tuple[str, str, str, bool]] = field(default_factory=list)  # option, file value, server value, same
    overrides: list[str] = field(default_factory=list)


def parse_server_version(text: str) -> Optional[tuple[str, Version, str]]:
    """`mysqld --version` output -> (flavor, version, version string)."""
    m = re.search(r"Ver\s+(\S+)", text)
    if not m:
        return None
    vs = m.group(1)
    try:
        v = Version.parse(vs)
    except ValueError:
        return None
    low = text.lower()
    flavor = "mariadb" if "mariadb" in low else ("percona" if "percona" in low else "mysql")
    return flavor, v, vs


def find_server_binary(flavor: str, version: Version) -> tuple[Optional[str], Optional[str], str]:
    """(path, version string, reason) of an installed server binary that matches flavor and
    major.minor; path None when there is none (the reason says what was found)."""
    names = ("mariadbd", "mysqld") if flavor == "mariadb" else ("mysqld",)
    seen = []
    for name in names:
        path = shutil.which(name) or shutil.which(name, path=os.pathsep.join(SBIN))
        if path is None:
            continue
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as e:
            seen.append(f"{path} ({e})")
            continue
        parsed = parse_server_version(out.stdout + out.stderr)
        if parsed is None:
            seen.append(f"{path} (unrecognised --version output)")
            continue
        fl, v, vs = parsed
        if fl == flavor and (v.major, v.minor) == (version.major, version.minor):
            return path, vs, ""
        seen.append(f"{path} is {fl} {vs}")
    if not seen:
        return None, None, f"no {' or '.join(names)} binary on PATH or in /usr/sbin"
    return None, None, f"no {flavor} {version.major}.{version.minor} server binary is installed ({'; '.join(seen)})"


# ---------------------------------------------------------------- MySQL: --validate-config

def mysql_validate_config(binary: str, binary_version: str, path: str) -> ServerCheck:
    chk = ServerCheck(ran=True, method="mysqld --validate-config", binary=binary, binary_version=binary_version)
    try:
        out = subprocess.run([binary, f"--defaults-file={path}", "--validate-config"], capture_output=True, text=True,
                             timeout=120, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        chk.ok, chk.reason = False, f"{binary} --validate-config could not run: {e}"
        chk.problems.append(chk.reason)
        return chk
    for line in (out.stdout + out.stderr).splitlines():
        if "[ERROR]" in line:
            chk.problems.append(line.strip())
        elif "[Warning]" in line:
            chk.warnings.append(line.strip())
    chk.ok = out.returncode == 0 and not chk.problems
    chk.reason = f"exit status {out.returncode}"
    return chk


# ---------------------------------------------------------------- MariaDB: a throwaway server

# Options that name files or directories: the trial points them into its temp dir so that it can
# never write where a real server keeps its data. (name with underscores -> path inside the temp dir)
PATH_OPTIONS = {
    "datadir": "data", "socket": "s", "pid_file": "mariadbd.pid", "log_error": "error.log", "tmpdir": "tmp",
    "innodb_data_home_dir": "data", "innodb_log_group_home_dir": "data", "innodb_undo_directory": "data",
    "innodb_tmpdir": "tmp", "general_log_file": "general.log", "slow_query_log_file": "slow.log",
    "aria_log_dir_path": "data", "log_bin": "binlog/mariadb-bin", "log_bin_index": "binlog/mariadb-bin.index",
    "relay_log": "binlog/relay-bin", "relay_log_index": "binlog/relay-bin.index", "log_basename": "trial",
    "server_audit_file_path": "audit.log", "secure_file_priv": "tmp",
}
ALWAYS = ("datadir", "socket", "pid_file", "log_error", "tmpdir", "innodb_data_home_dir", "innodb_log_group_home_dir",
          "innodb_undo_directory")
TLS_PATH_OPTIONS = ("ssl_ca", "ssl_capath", "ssl_cert", "ssl_key", "ssl_crl", "ssl_crlpath")
TLS_OPTIONS = ("ssl", "have_ssl", "ssl_cipher", "tls_version", "require_secure_transport") + TLS_PATH_OPTIONS
MEMORY_OPTIONS = ("innodb_buffer_pool_size", "aria_pagecache_buffer_size", "key_buffer_size", "query_cache_size")


def _mem_available() -> Optional[int]:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _bytes(v: Optional[str]) -> Optional[int]:
    n = to_number(v)
    return None if n is None else int(n)

def trial_overrides(opts: dict[str, OptionLine], work: Path, mem_available: Optional[int], disk_free: Optional[int]) -> tuple[list[str], list[str]]:
    """(command-line arguments, human notes) that keep the trial inside `work` and within this
    machine. Pure (the caller measures memory and disk)."""
    args: list[str] = []
    notes: list[str] = []
    for name, rel in PATH_OPTIONS.items():
        if name in ALWAYS or name in opts:
            target = work / rel
            args.append(f"--{name.replace('_', '-')}={target}")
            if name in opts and name not in ("socket", "pid_file", "log_error"):
                notes.append(f"{name} = {opts[name].value} was pointed to {target} for the trial")
    if "log_bin" not in opts:
        args.append("--skip-log-bin")
    tls = [n for n in TLS_OPTIONS if n in opts]
    if tls:
        # The certificate files are the target's: on this machine they are missing or unreadable, and a failed TLS
        # set-up ("Failed to setup SSL") says nothing about the file. Tried without TLS; the catalogue checks them.
        args.append("--skip-ssl")
        missing = [f"{n} = {opts[n].value}" for n in tls if n in TLS_PATH_OPTIONS and opts[n].value
                   and not Path(str(opts[n].value)).exists()]
        notes.append("TLS options (" + ", ".join(f"{n} = {opts[n].value}" if opts[n].value is not None else n for n in tls)
                     + ") are the target's; the trial ran with --skip-ssl"
                     + (f" ({'; '.join(missing)}: not on this machine)" if missing else "")
                     + ", so only the catalogue checked them")
    args.append("--skip-networking")
    budget = (mem_available or 0) // 2
    for name in MEMORY_OPTIONS:
        n = _bytes(opts[name].value) if name in opts else None
        if n is not None and mem_available is not None and n > budget:
            small = 128 << 20 if name != "query_cache_size" else 1 << 20
            args.append(f"--{name.replace('_', '-')}={small}")
            notes.append(f"{name} = {opts[name].value} is more than half of this machine's available memory "
                         f"({format_size(mem_available)}); the trial used {format_size(small)}, so only the catalogue "
                         "checked that value")
    n = _bytes(opts["innodb_log_file_size"].value) if "innodb_log_file_size" in opts else None
    if n is not None and disk_free is not None and n > disk_free // 4:
        args.append("--innodb-log-file-size=96M")
        notes.append(f"innodb_log_file_size = {opts['innodb_log_file_size'].value} is more than a quarter of the free "
                     f"space in {work.parent} ({format_size(disk_free)}); the trial used 96M")
    return args, notes


def _reachable_by_others(path: Path) -> bool:
    """Whether every directory above `path` lets other users through (o+x)."""
    import stat

    for d in path.resolve().parents:
        try:
            if not os.stat(d).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def _run_as(work: Path) -> tuple[Optional[tuple[str, int, int]], str]:
    """(user to run the trial as, note). As root the trial runs as `nobody`, so that it cannot write
    outside its temp dir; when `nobody` cannot reach the temp dir, as root with every path overridden."""
    if os.geteuid() != 0:
        return None, ""
    import pwd

    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        return ("root", 0, 0), "ran as root: there is no user 'nobody' (every path option points into the temp dir)"
    if not _reachable_by_others(work):
        return ("root", 0, 0), (f"ran as root: user 'nobody' cannot reach {work.parent} (every path option points "
                                "into the temp dir); set TMPDIR to a directory others can enter to run it as nobody")
    return ("nobody", pw.pw_uid, pw.pw_gid), ""


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


def _child_setup() -> None:  # pragma: no cover - runs in the child between fork and exec
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTS)  # the parent blocks them while it spawns
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the advisor
    except Exception:
        pass


def _spawn(procs: list[subprocess.Popen[Any]], cmd: list[str], **kw: Any) -> subprocess.Popen[Any]:
    """Start `cmd` in its own session and record it in `procs` before an interrupt can arrive, so
    that the caller's cleanup always knows every process it started."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        procs.append(subprocess.Popen(cmd, start_new_session=True, preexec_fn=_child_setup, **kw))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # a pending Ctrl-C is raised here
    return procs[-1]


_SAVED: dict[int, Any] = {}


def _ignore_interrupts() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            _SAVED[sig] = signal.signal(sig, signal.SIG_IGN)
        except ValueError:  # not the main thread
            pass


def _restore_interrupts() -> None:
    for sig, old in list(_SAVED.items()):
        signal.signal(sig, old)
        del _SAVED[sig]


class _TermAsInterrupt:
    """Within the trial, SIGTERM interrupts like Ctrl-C so that the cleanup runs."""

    def __enter__(self) -> "_TermAsInterrupt":
        self.old = None
        try:
            self.old = signal.signal(signal.SIGTERM, self._raise)
        except ValueError:  # not the main thread
            pass
        return self

    @staticmethod
    def _raise(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    def __exit__(self, *exc: object) -> None:
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)


def _read_trial_log(chk: ServerCheck, log: list[str], opts: Any, user_args: list[str]) -> None:
    """The trial server's errors as distinct problems (not "[ERROR] Aborting", the consequence of the others;
    one refused option set twice once) and its warnings about the file's options."""
    refused: set[str] = set()
    for line in log:
        if "[ERROR]" in line:
            text = _strip_log_prefix(line)
            if text.rstrip().endswith("[ERROR] Aborting") or text.strip() == "Aborting":
                continue
            m = re.search(r"unknown (?:variable|option) '-*([^=']+)", text)
            name = m.group(1).replace("-", "_") if m else None
            if name is not None and name in refused:
                continue
            if name is not None:
                refused.add(name)
            chk.problems.append(text)
        elif "[Warning]" in line and _mentions_option(line, opts) and not _trial_user_change(line, user_args):
            chk.warnings.append(_strip_log_prefix(line))


def mariadb_trial(binary: str, binary_version: str, path: str, options: list[OptionLine], flavor: str,
                  version: Version, catalogue: VariableCatalogue, keep_on_failure: bool = False) -> ServerCheck:
    chk = ServerCheck(ran=True, method="throwaway mariadbd", binary=binary, binary_version=binary_version)
    install = shutil.which("mariadb-install-db") or shutil.which("mariadb-install-db", path=os.pathsep.join(("/usr/bin",) + SBIN))
    if install is None:
        chk.ran, chk.reason = False, "mariadb-install-db is not installed, so no temporary datadir can be made"
        return chk
    opts = effective(server_options(options, flavor, version))
    proc: Optional[subprocess.Popen[bytes]] = None
    procs: list[subprocess.Popen[Any]] = []
    work: Optional[Path] = None
    with _TermAsInterrupt():
        try:
            # No interrupt between making the temp dir and recording it for the cleanup below.
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
            try:
                work = Path(tempfile.mkdtemp(prefix="advisor-validate-"))
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            wrapper, user_args, user_note, child_env = _prepare_workdir(work, path)
            t0 = time.monotonic()
            inst = _run_group(procs, [install, "--no-defaults", f"--datadir={work / 'data'}",
                               "--auth-root-authentication-method=normal", "--skip-test-db", *user_args], child_env)
            if inst.returncode != 0:
                errors = [_strip_log_prefix(x) for x in (inst.stderr + inst.stdout).splitlines() if "[ERROR]" in x]
                chk.ok, chk.ran = None, False
                chk.reason = (f"not run: mariadb-install-db could not make a temporary datadir (exit {inst.returncode}"
                              + (f": {errors[0]}" if errors else "") + "); only the catalogue checked the file")
                return chk
            disk = shutil.disk_usage(work).free
            extra, chk.overrides = trial_overrides(opts, work, _mem_available(), disk)
            if user_note:
                chk.overrides.append(user_note)
            if "user" in opts and user_args:
                chk.overrides.append(f"user = {opts['user'].value} is the target's account; the trial ran as "
                                     f"{user_args[0].split('=', 1)[1]}")
            cmd = [binary, f"--defaults-file={wrapper}", *extra, *user_args]
            with open(work / "stderr.log", "wb") as err:
                proc = _spawn(procs, cmd, stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=child_env)
            conn = _connect_when_up(proc, str(work / "s"), chk)
            log = _read_log(work)
            _read_trial_log(chk, log, opts, user_args)
            if conn is None:
                chk.ok = False
                if proc.poll() is not None:
                    chk.reason = f"mariadbd refused the file and exited with status {proc.returncode}"
                    if not chk.problems:
                        chk.problems.append(f"mariadbd exited with status {proc.returncode}: " + " | ".join(log[-5:]))
                return chk
            _read_back(chk, conn, opts, extra, flavor, version, catalogue)
            chk.ok = not chk.problems
            chk.reason = f"started in {time.monotonic() - t0:.1f} s and read back {len(chk.readback)} settings"
            return chk
        finally:
            _ignore_interrupts()  # a second Ctrl-C must not cut the cleanup short
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            for p in procs:
                _kill_group(p.pid)  # whatever is left of what the trial started, in its own session
                p.wait()
            if work is not None and not keep_on_failure:
                _remove(work)
            _restore_interrupts()


def _prepare_workdir(work: Path, path: str) -> tuple[Path, list[str], str, dict[str, str]]:
    """The trial's option file (!include of the file under test), the --user it runs as (nobody when
    started as root), why, and the environment that keeps its temporary files inside `work`."""
    user, user_note = _run_as(work)
    (work / "tmp").mkdir()
    (work / "binlog").mkdir()
    wrapper = work / "trial.cnf"
    # mariadbd keeps the first --user it reads ("Ignoring user change to 'nobody' because the user was set to
    # 'mysql' earlier"): the trial's user goes before the file's `user = mysql`, which names the target's account.
    first = f"user={user[0]}\n" if user is not None else ""
    wrapper.write_text(f"[mysqld]\n{first}!include {Path(path).resolve()}\n", encoding="utf-8")
    if user is not None and user[1] != 0:
        for p in (work, work / "tmp", work / "binlog"):
            os.chown(p, user[1], user[2])
        os.chmod(work, 0o755)
    user_args = [f"--user={user[0]}"] if user is not None else []
    return wrapper, user_args, user_note, dict(os.environ, TMPDIR=str(work / "tmp"))


def _connect_when_up(proc: subprocess.Popen[bytes], sock: str, chk: ServerCheck) -> Any:
    """A connection over the trial's socket once the server accepts one; None when it exits or the
    start timeout passes (the reason goes into chk)."""
    import pymysql

    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if proc.poll() is not None:
            return None
        if time.monotonic() > deadline:
            chk.problems.append(f"the server did not accept connections within {START_TIMEOUT:.0f} s")
            return None
        if os.path.exists(sock):
            try:
                return pymysql.connect(unix_socket=sock, user="root", password="", connect_timeout=5)
            except pymysql.MySQLError:
                pass
        time.sleep(0.05)


def _read_back(chk: ServerCheck, conn: Any, opts: dict[str, OptionLine], extra: list[str], flavor: str,
               version: Version, catalogue: VariableCatalogue) -> None:
    """Compare what the trial server took with what the file sets (the trial's own overrides aside)."""
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW GLOBAL VARIABLES")
            server = {str(k).lower(): str(v) for k, v in cur.fetchall()}
    finally:
        conn.close()
    overridden = {o.split("=", 1)[0][2:].replace("-", "_") for o in extra}
    if "skip_networking" in overridden:
        overridden |= {"port", "bind_address"}  # the trial listens on no TCP port
    if "skip_ssl" in overridden:
        overridden |= set(TLS_OPTIONS)
    for key, o in opts.items():
        mapped = option_to_variable(key, o.value, lambda n: n in server)
        if mapped is None or mapped[0] in overridden:
            continue
        var, want = mapped
        unit = unit_of(var, flavor, version, catalogue)
        same = same_value(want, server[var], unit)
        chk.readback.append((o.name, show(want, unit), show(server[var], unit), same))
        if not same:
            chk.warnings.append(f"{o.name}: the file sets {show(want, unit)} but the server took "
                                f"{show(server[var], unit)}")


def _run_group(procs: list[subprocess.Popen[Any]], cmd: list[str], env: dict[str, str],
               timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a command in its own process group (mariadb-install-db is a shell script whose
    mariadbd --bootstrap child would outlive it); the caller kills the group on an interrupt."""
    proc = _spawn(procs, cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                  env=env)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _kill_group(pgid: int, wait_s: float = 10.0) -> None:
    """SIGKILL a process group and wait until its processes are gone (they may be writing into the
    directory about to be removed)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and _group_alive(pgid):
        time.sleep(0.02)


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs (zombies waiting for a reaper do not count)."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False
    for d in proc.iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


def _remove(work: Path) -> None:
    for _ in range(20):
        shutil.rmtree(work, ignore_errors=True)
        if not work.exists():
            return
        time.sleep(0.05)


def _read_log(work: Path) -> list[str]:
    lines: list[str] = []
    for name in ("error.log", "stderr.log"):
        p = work / name
        if p.exists():
            lines += [x for x in p.read_text(errors="replace").splitlines() if x.strip()]
    return lines


_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d\s+\d+:\d\d:\d\d\s+\d+\s+")


def _trial_user_change(line: str, user_args: list[str]) -> bool:
    """A warning about the trial itself, not the file: the server kept the trial's --user over the file's
    `user =`, or skipped an account of the temporary datadir under skip-name-resolve."""
    if "ignored in --skip-name-resolve mode" in line:
        return True  # about the temporary datadir's own accounts (root@<this host>), not the file
    return bool(user_args) and "Ignoring user change" in line


def _strip_log_prefix(line: str) -> str:
    return _PREFIX.sub("", line.strip())


def _mentions_option(line: str, opts: dict[str, OptionLine]) -> bool:
    low = line.lower().replace("-", "_")
    return any(k in low for k in opts)



def find_local_target() -> Optional[tuple[str, Version, str]]:
    """(flavor, version, description) of the server binary installed here, or None."""
    for name in ("mariadbd", "mysqld"):
        path = shutil.which(name) or shutil.which(name, path=os.pathsep.join(SBIN))
        if path is None:
            continue
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        parsed = parse_server_version(out.stdout + out.stderr)
        if parsed is not None:
            return parsed[0], parsed[1], f"the server binary installed here, {path} {parsed[2]}"
    return None

