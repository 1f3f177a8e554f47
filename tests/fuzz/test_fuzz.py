"""The fuzz suite: 10,000 seeded mutants of every input surface (tests/fuzz/surfaces.py) through the
real CLI entry point in this process. Each surface runs in chunks (one test id per chunk, so xdist
spreads them); a chunk fails listing every input that broke a property — exit 70, a hang, a
traceback, an error paragraph without a Tip or over 2,000 characters — with its index, which
`python -m bench.fuzz --surface S --start I --count 1 --locate` replays with the crash site.
bench/fuzz.py runs the same surfaces with ten times the inputs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fuzz.harness import Tally, report, run_surface
from tests.fuzz.surfaces import CI_COUNTS, LIVE, OFFLINE

CHUNK = 500


def _chunks() -> list[tuple[str, int, int]]:
    out = []
    for name, total in CI_COUNTS.items():
        for start in range(0, total, CHUNK):
            out.append((name, start, min(CHUNK, total - start)))
    return out


def test_ci_counts_add_up_to_ten_thousand():
    assert sum(CI_COUNTS.values()) >= 10_000
    assert set(CI_COUNTS) == set(OFFLINE) | set(LIVE)


@pytest.fixture(scope="module")
def replay() -> Iterator[object]:
    from tests.support.wire_server import ReplayServer

    with ReplayServer.from_set("mysql-8.0.36") as srv:
        yield srv


@pytest.mark.parametrize("surface,start,count", _chunks(), ids=lambda v: str(v))
def test_fuzz_surface(surface: str, start: int, count: int, tmp_path: Path, request: pytest.FixtureRequest,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if surface in LIVE:
        make = LIVE[surface](tmp_path, request.getfixturevalue("replay"))
    else:
        make = OFFLINE[surface](tmp_path)
    tally = Tally()
    run_surface(surface, make, start, count, tally)
    assert tally.runs[surface] == count
    assert not tally.failures, report(tally)
    # every surface reaches past its parser: some inputs are accepted, some refused
    codes = tally.codes[surface]
    assert codes[0] + codes[1] > 0, report(tally)


# A quick sample of every surface (seeded: inputs 1,000,000 on, disjoint from the chunks above), for
# the quick loop: no exit 70, and standard error shaped as README documents for each exit status.
QUICK = {"snapshot": 40, "rules": 8, "sysbench": 40, "mycnf": 40, "paths": 22, "host-facts": 12, "option-file": 12,
         "fleet": 2, "server": 10}
QUICK_START = 1_000_000
DOCUMENTED_EXITS = {0, 1, 2, 3, 4, 5, 6, 7, 130}


def test_quick_sample_covers_every_surface():
    assert set(QUICK) == set(CI_COUNTS)


@pytest.mark.parametrize("surface", sorted(QUICK))
def test_fuzz_quick_sample(surface: str, tmp_path: Path, request: pytest.FixtureRequest,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    make = LIVE[surface](tmp_path, request.getfixturevalue("replay")) if surface in LIVE else OFFLINE[surface](tmp_path)
    tally = Tally()
    run_surface(surface, make, QUICK_START, QUICK[surface], tally)
    assert not tally.failures, report(tally)
    assert set(tally.codes[surface]) <= DOCUMENTED_EXITS, report(tally)
