"""Shared fixtures: real throwaway mariadbd servers, real TLS certificates, real network namespaces,
golden files (--update-golden), optional system tools (@pytest.mark.requires_tool) and the
hypothesis profiles of the two tiers.

The machinery lives in tests/support/; this file only wires it into pytest.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:  # `pytest` (not `python -m pytest`) does not put the repo root on sys.path
    sys.path.insert(0, _ROOT)

from tests.support.certs import Certs, make_certs  # noqa: E402
from tests.support.golden import Golden  # noqa: E402
from tests.support.mariadb import MariaDB, MariaDBNotFound, find_binary  # noqa: E402
from tests.support.netns import NetNS  # noqa: E402
from tests.support.tools import require_tool  # noqa: E402

# Property tests draw `max_examples` from the loaded profile: "full" (the default, the README's test
# command) or "quick" for the inner loop: python3 -m pytest tests/unit -n 2 --hypothesis-profile=quick.
# No per-example deadline and no too_slow health check: both time this machine, not the code.
_NOT_TIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("full", max_examples=500, **_NOT_TIMED)
settings.register_profile("quick", max_examples=50, **_NOT_TIMED)
settings.load_profile("full")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite every golden file, expected-findings file and generated page the selected tests "
                          "check (and remove stale ones) instead of comparing; review the diff before committing")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "requires_mariadbd: starts real throwaway mariadbd servers (fails, never skips, without one)"
    )
    config.addinivalue_line(
        "markers", "requires_tool(*names): system tools the test runs (tests/support/tools.py); without one the "
                   "test is skipped naming the package, and fails under CI=true"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("requires_tool"):
        for name in mark.args:
            require_tool(name)


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    """Compare with a committed golden file, or rewrite it under --update-golden (tests/support/golden.py)."""
    return Golden(bool(request.config.getoption("--update-golden")))


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
    require_tool("openssl")
    return make_certs(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def netns() -> Iterator[NetNS]:
    """An unshaped namespace joined to the host by a veth pair; removed at teardown."""
    require_tool("ip")
    with NetNS() as ns:
        yield ns
