"""Host sources for `advisor watch`: this machine, a server over ssh, or a stream of samples written on
the server. The I/O half; advisor.watch.hostsetup and advisor.watch.counters parse and compute.

Every source gives a setup document once and then samples ({"mono", "wall", "files", "command"}):
  LocalHost    reads /proc here at each tick (advisor.watch.sampler.HostSampler)
  SshHost      runs the same sampler on the server through the system ssh client (host keys
               verified, as `advisor audit --ssh`), one JSON line per interval
  StreamHost   reads such lines from a file or FIFO that something on the server writes
               (`advisor watch --host-only`, or `python3 sampler.py` after host_gather.py)
Shapers (tbf qdiscs) are read with `tc -j qdisc show` on this machine only, inside mysqld's network
namespace through nsenter when the server runs in one here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from typing import Any, Iterable, Optional

from advisor.errors import ConnectError, InvalidInputError, UsageError
from advisor.watch.procfs import Shaper, parse_tc_qdiscs
from advisor.watch.sampler import STREAM_FORMAT, HostSampler

TC_TIMEOUT_S = 3.0
SETUP_TIMEOUT_S = 30.0


def read_shapers(interfaces: Iterable[str], netns_pid: Optional[int] = None) -> tuple[dict[str, Shaper], list[str]]:
    """{interface: its tbf shaper} for the given interfaces, and notes on what could not be read."""
    tc = shutil.which("tc") or next((p for p in ("/usr/sbin/tc", "/sbin/tc") if os.path.exists(p)), None)
    names = [i for i in interfaces if i and i != "lo"]
    if not names:
        return {}, []
    if tc is None:
        return {}, ["`tc` (iproute2) is not installed, so traffic shapers were not read"]
    prefix: list[str] = []
    if netns_pid:
        nsenter = shutil.which("nsenter") or ("/usr/bin/nsenter" if os.path.exists("/usr/bin/nsenter") else None)
        if nsenter is None:
            return {}, ["`nsenter` is not installed, so shapers in mysqld's network namespace were not read"]
        prefix = [nsenter, f"--net=/proc/{netns_pid}/ns/net"]
    out: dict[str, Shaper] = {}
    notes: list[str] = []
    for name in names:
        try:
            p = subprocess.run([*prefix, tc, "-j", "qdisc", "show", "dev", name], capture_output=True, text=True,
                               timeout=TC_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as e:
            notes.append(f"`tc qdisc show dev {name}` failed: {e}")
            continue
        if p.returncode != 0:
            notes.append(f"`tc qdisc show dev {name}` failed: {p.stderr.strip()[:200] or p.returncode}")
            continue
        shapers = parse_tc_qdiscs(p.stdout)
        if shapers:
            out[name] = min(shapers, key=lambda s: s.rate_bits_per_s)
    return out, notes


class LocalHost:
    source = "local"

    def __init__(self, pid_file: Optional[str], dirs: dict[str, str], server: bool = True):
        self.sampler = HostSampler(pid_file=pid_file, dirs=list(dirs.values()))
        self.doc = self.sampler.setup(server=server)
        self.origin = "read on this machine"

    def set_command(self, pid: int) -> None:
        self.sampler.command_pid = pid

    def sample(self) -> Optional[dict[str, Any]]:
        return self.sampler.sample()

    def close(self) -> None:
        pass


class StreamHost:
    """Samples arriving as JSON lines on a file object, read by a thread; the newest wins."""

    source = "stream"

    def __init__(self, path: str, follow: bool = True):
        self.path = path
        try:
            self.file = open(path, "r", encoding="utf-8", errors="replace")  # a FIFO blocks here until a writer opens it
        except OSError as e:
            raise InvalidInputError(f"cannot open the host stream {path}: {e.strerror}.",
                                    "write it on the server with `advisor watch --host-only > FILE` (or a FIFO).") from None
        self.origin = f"read from the host stream {path}"
        self.follow = follow
        self._start()

    def _start(self) -> None:
        self._lock = threading.Lock()
        self._latest: Optional[dict[str, Any]] = None
        self._taken: Optional[float] = None
        self._setup = threading.Event()
        self.doc: dict[str, Any] = {}
        self.error: Optional[str] = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="watch-host-stream", daemon=True)
        self._thread.start()
        if not self._setup.wait(SETUP_TIMEOUT_S) or self.error:
            self.close()
            raise self._setup_error()

    def _setup_error(self) -> Exception:
        why = self.error or f"no setup line within {SETUP_TIMEOUT_S:g} s"
        return InvalidInputError(f"the host stream {self.path} is not a watch host stream ({why}).",
                                 "its first line comes from `advisor watch --host-only` on the server.")

    def _lines(self) -> Iterable[str]:
        while not self._stop.is_set():
            line = self.file.readline()
            if line:
                yield line
            elif not self.follow:
                return
            else:
                time.sleep(0.05)

    def _pump(self) -> None:
        try:
            for line in self._lines():
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if "setup" in obj and not self._setup.is_set():
                    if (obj["setup"] or {}).get("format") != STREAM_FORMAT:
                        self.error = f"format {(obj['setup'] or {}).get('format')!r}, expected {STREAM_FORMAT!r}"
                    self.doc = obj["setup"]
                    self._setup.set()
                elif "sample" in obj:
                    with self._lock:
                        self._latest = obj["sample"]
        except (OSError, ValueError) as e:
            self.error = str(e)
        finally:
            self._setup.set()

    def set_command(self, pid: int) -> None:  # the command runs on this machine, not there
        pass

    def sample(self) -> Optional[dict[str, Any]]:
        """The newest sample not handed out yet, or None."""
        with self._lock:
            s = self._latest
        if s is None or s.get("mono") == self._taken:
            return None
        self._taken = s.get("mono")
        return s

    def close(self) -> None:
        self._stop.set()
        try:
            self.file.close()
        except OSError:
            pass


class SshHost(StreamHost):
    """The sampler running on the server over ssh (`ssh ... python3 -` with the script on stdin)."""

    source = "ssh"

    def __init__(self, destination: str, options: Iterable[str], interval: float, pid_file: Optional[str],
                 dirs: dict[str, str]):
        from advisor.collect.ssh import ssh_command

        ssh = shutil.which("ssh")
        if ssh is None:
            raise UsageError("--ssh needs the ssh client, which is not installed here.",
                             "install openssh-client, or use --host-stream FILE written on the server.")
        args = ["--interval", f"{interval:g}"] + [a for d in dirs.values() for a in ("--dir", d)]
        if pid_file:
            args += ["--pid-file", pid_file]
        argv = ssh_command(destination, list(options), args, ssh)
        self.path = f"ssh {destination}"
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, start_new_session=True)
        except OSError as e:
            raise ConnectError(f"cannot run ssh: {e}.", "check the ssh client installation.") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(remote_script())
        self.proc.stdin.close()
        self.file = self.proc.stdout
        self.follow = False
        self.origin = f"sampled on {destination} over ssh"
        try:
            self._start()
        except InvalidInputError:
            err = (self.proc.stderr.read() if self.proc.stderr else "")[:300] if self.proc.poll() is not None else ""
            self.close()
            from advisor.collect.ssh import _ssh_failure

            if self.proc.returncode == 255:
                raise ConnectError(*_ssh_failure(destination, " ".join(err.split()))) from None
            raise ConnectError(f"the host sampler did not start on {destination} over ssh ({' '.join(err.split()) or 'no output'}).",
                               "check that `ssh " + destination + " python3 -V` works; the sampler needs python3 there.") from None

    def close(self) -> None:
        self._stop.set()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            try:
                if f:
                    f.close()
            except OSError:
                pass


def remote_script() -> str:
    """host_gather.py followed by sampler.py as one script for `python3 -` (host_gather's own main
    is kept from running by the name it is given)."""
    from importlib.resources import files

    gather = (files("advisor.collect") / "host_gather.py").read_text(encoding="utf-8")
    sampler = (files("advisor.watch") / "sampler.py").read_text(encoding="utf-8")
    return "__name__ = 'advisor_host_gather'\n" + gather + "\n__name__ = '__main__'\n" + sampler
