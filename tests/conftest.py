"""Shared fixtures: real throwaway mariadbd servers, real TLS certificates, real network namespaces.

The machinery lives in tests/support/; this file only wires it into pytest.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:  # `pytest` (not `python -m pytest`) does not put the repo root on sys.path
    sys.path.insert(0, _ROOT)

from tests.support.certs import Certs, make_certs  # noqa: E402
from tests.support.mariadb import MariaDB, MariaDBNotFound, find_binary  # noqa: E402
from tests.support.netns import NetNS  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "requires_mariadbd: starts real throwaway mariadbd servers (fails, never skips, without one)"
    )


def _require_mariadbd() -> None:
    try:
        find_binary("mariadbd")
        find_binary("mariadb-install-db")
    except MariaDBNotFound as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def mariadb_factory() -> Iterator[Callable[..., MariaDB]]:
    """``start(**kw)`` starts a ``MariaDB(**kw)`` and returns it; every one is stopped and removed at teardown."""
    _require_mariadbd()
    started: list[MariaDB] = []

    def start(**kw: object) -> MariaDB:
        db = MariaDB(**kw)  # type: ignore[arg-type]
        started.append(db)
        return db.start()

    yield start
    for db in reversed(started):
        db.close()


@pytest.fixture
def mariadb(mariadb_factory: Callable[..., MariaDB]) -> MariaDB:
    """A default server: 127.0.0.1, free port, root with an empty password."""
    return mariadb_factory()


@pytest.fixture(scope="session")
def tls_certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    """CA, server (CN/SAN 127.0.0.1, localhost) and client certificates, made once per session."""
    return make_certs(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def netns() -> Iterator[NetNS]:
    """An unshaped namespace joined to the host by a veth pair; removed at teardown."""
    with NetNS() as ns:
        yield ns
