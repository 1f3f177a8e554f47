"""Throwaway sshd instances on loopback ports: a generated host key the client trusts through its own
known_hosts file, root login with a generated client key (no password, no PAM). Used by the --ssh
tests and by the Ansible tests, where each sshd is one "host" of an inventory.

    with Sshd(tmp_path / "ssh1") as s:
        s.port, s.known_hosts, s.client_key
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.tools import require_tool


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(path: Path) -> str:
    subprocess.run([require_tool("ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "advisor-test", "-f", str(path)],
                   check=True, capture_output=True)
    return path.with_suffix(".pub").read_text().strip()


class Sshd:
    """One sshd -D on 127.0.0.1:port with its own keys under `directory`."""

    def __init__(self, directory: Path, client_key: Path | None = None) -> None:
        self.dir = directory
        self.port = 0
        self._client_key = client_key
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def known_hosts(self) -> Path:
        return self.dir / "known_hosts"

    @property
    def client_key(self) -> Path:
        return self._client_key or self.dir / "id_client"

    def start(self) -> "Sshd":
        if os.geteuid() != 0:
            pytest.fail("the ssh tests log in as root to a throwaway sshd; run the tests as root", pytrace=False)
        sshd = require_tool("sshd")
        d = self.dir
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        host_pub = keygen(d / "host_key")
        if self._client_key is None:
            keygen(d / "id_client")
        (d / "authorized_keys").write_text(self.client_key.with_suffix(".pub").read_text())
        self.port = free_port()
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {' '.join(host_pub.split()[:2])}\n")
        (d / "empty_known_hosts").write_text("")
        cfg = d / "sshd_config"
        cfg.write_text("\n".join([
            f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {d / 'host_key'}", "PidFile none",
            f"AuthorizedKeysFile {d / 'authorized_keys'}", "PermitRootLogin prohibit-password",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
            "LogLevel ERROR", "MaxStartups 30", "MaxSessions 30", "Subsystem sftp internal-sftp", "",
        ]))
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's compiled-in privilege separation directory
        self.proc = subprocess.Popen([sshd, "-D", "-e", "-f", str(cfg)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.proc.kill()
                    err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                    raise AssertionError(f"sshd did not start: {err}") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def __enter__(self) -> "Sshd":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
