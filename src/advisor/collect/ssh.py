"""Gather host facts on the server through the system ssh client (`--ssh USER@HOST`).

The self-contained gatherer (advisor/collect/host_gather.py) is sent on standard input to
`python3 -` on the server; it only reads /proc and /sys and prints the raw files as JSON, which
are parsed here exactly like local ones. Host keys are always verified: the command line sets
StrictHostKeyChecking=yes and BatchMode=yes (no prompts), and an option that would weaken the
check is refused. Extra ssh options (a port, an identity file, a known_hosts file, a jump host)
come from ~/.ssh/config or --ssh-option KEY=VALUE.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from typing import Any, Iterable, Optional

from advisor.errors import CollectionError, ConnectError, UsageError

SSH_TIMEOUT_S = 60.0
CONNECT_TIMEOUT_S = 10
FORCED = ("BatchMode=yes", "StrictHostKeyChecking=yes")
# Options that could turn host-key verification off, or run code on this machine on our behalf.
REFUSED: dict[str, str] = {
    "stricthostkeychecking": "the advisor always verifies host keys (StrictHostKeyChecking=yes)",
    "batchmode": "the advisor never prompts (BatchMode=yes)",
    "localcommand": "LocalCommand runs a command on this machine",
    "permitlocalcommand": "LocalCommand runs a command on this machine",
    "knownhostscommand": "host keys must come from a known_hosts file",
    "verifyhostkeydns": "host keys must come from a known_hosts file",
}


def ssh_command(destination: str, options: Iterable[str], remote_args: list[str], ssh: str = "ssh") -> list[str]:
    """The argv for ssh; options are KEY=VALUE and validated."""
    if not destination or destination.startswith("-") or any(c.isspace() for c in destination):
        raise UsageError(f"--ssh {destination!r} is not a destination.", "give USER@HOST (or ssh://USER@HOST:PORT).")
    argv = [ssh]
    for f in FORCED:
        argv += ["-o", f]
    argv += ["-o", f"ConnectTimeout={CONNECT_TIMEOUT_S}"]
    for opt in options:
        key, sep, value = opt.partition("=")
        k = key.strip().lower()
        if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", key.strip()) or not value.strip():
            raise UsageError(f"--ssh-option {opt!r} is not KEY=VALUE.", "e.g. --ssh-option Port=2222 --ssh-option IdentityFile=~/.ssh/db_key.")
        if k in REFUSED:
            why = REFUSED[k]
            raise UsageError(f"--ssh-option {key.strip()} is not allowed: {why}.",
                             "add the server's host key to ~/.ssh/known_hosts (check its fingerprint first), "
                             "or point UserKnownHostsFile at a file that has it.")
        argv += ["-o", f"{key.strip()}={value.strip()}"]
    argv += ["--", destination, "python3", "-"] + [shlex.quote(a) for a in remote_args]
    return argv


def gatherer_source() -> str:
    from importlib.resources import files

    return (files("advisor.collect") / "host_gather.py").read_text(encoding="utf-8")


def remote_args(dirs: Optional[dict[str, str]], pid_file: Optional[str]) -> list[str]:
    args: list[str] = []
    for d in (dirs or {}).values():
        args += ["--dir", d]
    if pid_file:
        args += ["--pid-file", pid_file]
    return args


def gather_remote(destination: str, dirs: Optional[dict[str, str]] = None, pid_file: Optional[str] = None,
                  options: Iterable[str] = (), timeout: float = SSH_TIMEOUT_S) -> dict[str, Any]:
    """Run the gatherer on the server; return its raw document or raise ConnectError / CollectionError."""
    ssh = shutil.which("ssh")
    if ssh is None:
        raise UsageError("--ssh needs the ssh client, which is not installed here.",
                         "install openssh-client, or use --host-facts FILE written on the server.")
    argv = ssh_command(destination, list(options), remote_args(dirs, pid_file), ssh)
    try:
        p = subprocess.run(argv, input=gatherer_source(), capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise ConnectError(f"ssh {destination} did not finish within {timeout:g} s.",
                           "check that the host is reachable and that `ssh " + destination + " true` works.") from None
    except OSError as e:
        raise ConnectError(f"cannot run ssh: {e}.", "check the ssh client installation.") from None
    err = " ".join(line.strip() for line in p.stderr.splitlines() if line.strip() and not line.startswith("@@@"))
    if p.returncode == 255:
        raise ConnectError(*_ssh_failure(destination, err))
    if p.returncode != 0:
        if p.returncode == 127 or "python3: not found" in err or "python3: command not found" in err:
            raise CollectionError(f"ssh {destination} worked, but python3 is not installed on the server, so the "
                                  "host-fact gatherer cannot run there.",
                                  "install python3 on the server, or run `advisor collect --host-facts-only -o "
                                  "host.json` there and pass --host-facts host.json.")
        raise CollectionError(f"the host-fact gatherer failed on {destination} (exit {p.returncode}): {err[:300]}.",
                              "run it by hand to see why: `ssh " + destination + " python3 - < host_gather.py`.")
    try:
        raw = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise CollectionError(f"the host-fact gatherer on {destination} printed no JSON (a login banner or shell "
                              "profile may print to standard output).",
                              "make the remote shell quiet for non-interactive sessions, or use --host-facts FILE.") from None
    from advisor.collect.host import raw_problem

    problem = "" if not isinstance(raw, dict) or not isinstance(raw.get("files"), dict) else raw_problem(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("files"), dict) or problem:
        raise CollectionError(f"the host-fact gatherer on {destination} returned an unexpected document"
                              f"{': ' + problem if problem else ''}.",
                              "check that python3 on the server runs the gatherer unchanged, or use --host-facts FILE.")
    return raw


def _ssh_failure(destination: str, err: str) -> tuple[str, str]:
    low = err.lower()
    if "host key verification failed" in low or "host identification has changed" in low or "no " in low and "host key is known" in low:
        changed = "has changed" in low
        msg = (f"ssh refused {destination}: its host key " + ("has CHANGED since it was recorded in known_hosts"
               if changed else "is not in known_hosts") + " (Host key verification failed).")
        tip = ("if the server was reinstalled, remove the old key with `ssh-keygen -R HOST` and add the new one; "
               if changed else "") + ("check the host's fingerprint and add it to ~/.ssh/known_hosts (connect once "
               "with `ssh " + destination + "`, or ssh-keyscan it and compare the fingerprint); the advisor never "
               "disables host-key checking.")
        return msg, tip
    if "permission denied" in low:
        return (f"ssh {destination}: authentication failed ({err[:200]}).",
                "the advisor uses key authentication without prompts (BatchMode): load the key into ssh-agent or "
                "give it with --ssh-option IdentityFile=PATH.")
    return (f"ssh {destination} failed: {err[:300] or 'exit 255'}.",
            "check that `ssh " + destination + " true` works from this machine.")
