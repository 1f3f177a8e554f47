"""The system tools the tests run, and the Debian package each comes from.

A test that needs an optional tool calls ``require_tool("sshd")`` (or carries
``@pytest.mark.requires_tool("sshd")``): without the tool it is skipped with a one-line reason that
names the package to install, except under ``CI=true``, where ``.ci/run`` installs every package
below and a missing tool is a failure. mariadbd is not optional: the integration tests fail without
it (tests/conftest.py).

TOOLS is the one list: the README's prerequisites and ``.ci/run`` name every package in it
(tests/unit/test_packaging.py checks both). A test that starts using a new tool adds it here.
"""

from __future__ import annotations

import os
import shutil

import pytest

# tool -> Debian package
TOOLS: dict[str, str] = {
    "mariadbd": "mariadb-server",
    "mariadb-install-db": "mariadb-server",
    "mariadb": "mariadb-client",  # the client the Ansible role runs on each database host
    "ip": "iproute2",
    "tc": "iproute2",
    "openssl": "openssl",
    "sysbench": "sysbench",
    "sshd": "openssh-server",
    "ssh": "openssh-client",
    "ssh-keygen": "openssh-client",
    "chromium": "chromium",
    "my_print_defaults": "mariadb-client-core",  # installed with mariadb-server
}
SBIN = ("/usr/sbin", "/sbin", "/usr/local/sbin")  # not on a non-root PATH, but where Debian puts daemons


def find_tool(name: str) -> str | None:
    """The tool's path: PATH first, then the sbin directories."""
    return shutil.which(name) or shutil.which(name, path=os.pathsep.join(SBIN))


def require_tool(name: str, package: str | None = None) -> str:
    """The path of `name`; otherwise skip the test (fail under CI=true) with a reason naming the package.
    Ansible's programs (ANSIBLE_TOOLS) come from PyPI: require_ansible."""
    if name in ANSIBLE_TOOLS:
        return require_ansible(name)
    found = find_tool(name)
    if found is not None:
        return found
    package = package or TOOLS[name]
    reason = f"{name} is not installed (looked on PATH and in {', '.join(SBIN)}): apt-get install {package}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; under CI=true .ci/run installs it, so a missing {name} is a failure", pytrace=False)
    pytest.skip(reason)


# Ansible's programs come from PyPI (ansible-core, in the test extras), not from a Debian package.
ANSIBLE_TOOLS = ("ansible-playbook", "ansible-inventory", "ansible-vault")


def require_ansible(name: str = "ansible-playbook") -> str:
    """The path of an ansible-core program: next to this interpreter (the venv), else on PATH; otherwise
    skip (fail under CI=true) naming the pip command that installs it."""
    import sys
    from pathlib import Path

    assert name in ANSIBLE_TOOLS, name
    here = Path(sys.executable).parent / name
    found = str(here) if here.is_file() else shutil.which(name)
    if found is not None:
        return found
    reason = f"{name} is not installed: pip install -e '.[test]' (it brings ansible-core)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; under CI=true the test extras are installed, so a missing {name} is a failure",
                    pytrace=False)
    pytest.skip(reason)
