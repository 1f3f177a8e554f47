"""Golden files for the seed scenarios and hardware profiles (tests/golden/mycnf/*.cnf).

Regenerate only on purpose: python3 -m pytest tests/unit/test_mycnf_golden.py --update-golden
The seed scenarios: the bundled demo snapshot (seed 000) and a throwaway mariadbd with the seed's
pitfalls (sort_buffer_size=32M, innodb_log_file_size=48M, 128M buffer pool), recorded in
tests/fixtures/mycnf/ by tests/integration/test_mycnf_live.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest

from advisor import api
from advisor.mycnf.model import MycnfOptions
from advisor.mycnf.profile import Profile
from advisor.knowledge import default_catalogue
from advisor.render.mycnf import render as render_plan

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "mycnf"
PITFALLS = ROOT / "tests" / "fixtures" / "mycnf" / "mariadb-10.11-pitfalls.snapshot.json"
GiB = 1 << 30


def render(plan) -> str:
    return render_plan(plan, default_catalogue())


def _demo(purpose: str, mode: str) -> str:
    return render(api.mycnf_plan(api.demo_snapshot(), MycnfOptions(purpose=purpose, mode=mode,
                                                               source="the bundled demo snapshot (seed 000)")))


def _pitfalls() -> str:
    snap = api.read_snapshot_file(str(PITFALLS))
    return render(api.mycnf_plan(snap, MycnfOptions(purpose="benchmark",
                                                source="a throwaway mariadbd with the seed's pitfalls (recorded)")))


def _profile(ram: int, cores: int, disk: str, flavor: str, version: str, workload: str, purpose: str | None = None,
             mode: str = "changes", unsafe: bool = False) -> Callable[[], str]:
    def make() -> str:
        p = Profile(ram * GiB, cores, disk, flavor, version, workload)
        pur = purpose or ("benchmark" if workload == "benchmark" else "production")
        return render(api.mycnf_profile(p, purpose=pur, mode=mode, allow_unsafe_durability=unsafe))
    return make


CASES: dict[str, Callable[[], str]] = {
    "seed-000-benchmark": lambda: _demo("benchmark", "changes"),
    "seed-000-production-full": lambda: _demo("production", "full"),
    "mariadb-10.11-pitfalls-benchmark": _pitfalls,
    "profile-mysql-8.0.36-64G-16c-nvme-plp-oltp": _profile(64, 16, "nvme-plp", "mysql", "8.0.36", "oltp"),
    "profile-mysql-8.0.20-64G-16c-nvme-plp-oltp": _profile(64, 16, "nvme-plp", "mysql", "8.0.20", "oltp"),
    "profile-mariadb-10.11-64G-16c-nvme-plp-oltp": _profile(64, 16, "nvme-plp", "mariadb", "10.11", "oltp"),
    "profile-percona-8.0.36-32G-8c-ssd-bulk-load": _profile(32, 8, "ssd", "percona", "8.0.36", "bulk-load"),
    "profile-mysql-8.4.3-16G-8c-hdd-oltp-full": _profile(16, 8, "hdd", "mysql", "8.4.3", "oltp", mode="full"),
    "profile-mysql-5.7.44-8G-4c-nvme-client-benchmark": _profile(8, 4, "nvme-client", "mysql", "5.7.44", "benchmark"),
    "profile-mariadb-10.6-2G-2c-hdd-benchmark-unsafe": _profile(2, 2, "hdd", "mariadb", "10.6", "benchmark", unsafe=True),
    "profile-mariadb-11.4-16G-4c-ssd-oltp-full": _profile(16, 4, "ssd", "mariadb", "11.4", "oltp", mode="full"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name, golden):
    golden.check(GOLDEN / f"{name}.cnf", CASES[name]())


def test_no_stale_golden_files(golden):
    golden.stale(GOLDEN.glob("*.cnf"), [GOLDEN / f"{name}.cnf" for name in CASES])


SETTING = re.compile(r"^([a-z0-9_]+) = (\S.*)$")


def justification_problems(text: str) -> list[str]:
    """Every line is a comment, blank, the [mysqld] header, or a setting whose comment block above
    names its origin (rule id, sizing step, guard or kept), the previous value, the reason and an
    https source."""
    problems = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line or line.startswith("#") or line == "[mysqld]":
            continue
        m = SETTING.match(line)
        if not m:
            problems.append(f"line {i + 1}: not a comment, section or setting: {line!r}")
            continue
        block = []
        j = i - 1
        while j >= 0 and lines[j].startswith("#"):
            block.insert(0, lines[j])
            j -= 1
        head = block[0] if block else ""
        text_block = "\n".join(block)
        if not head.startswith(f"# {m.group(1)}: "):
            problems.append(f"line {i + 1}: {m.group(1)} has no comment block naming it")
            continue
        if not re.search(r": (rule [a-z0-9-]+ \((critical|warning|info)\)|sizer sizing\.[a-z-]+|guard [a-z.-]+|kept);", head):
            problems.append(f"line {i + 1}: {m.group(1)}: no rule id / sizing step / guard / kept in {head!r}")
        if "; was " not in head and "unchanged (" not in head:
            problems.append(f"line {i + 1}: {m.group(1)}: no previous value")
        if "\n#   Why: " not in "\n" + text_block:
            problems.append(f"line {i + 1}: {m.group(1)}: no reason")
        if not re.search(r"\n#   Source: https://\S+", "\n" + text_block):
            problems.append(f"line {i + 1}: {m.group(1)}: no source URL")
    return problems


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.cnf")), ids=lambda p: p.stem)
def test_every_line_of_every_golden_file_is_justified(path):
    text = path.read_text()
    assert "[mysqld]" in text
    assert any(SETTING.match(line) for line in text.splitlines())
    assert justification_problems(text) == []


def test_the_justification_check_catches_a_bare_setting():
    assert justification_problems("[mysqld]\nsort_buffer_size = 2M\n")
    assert justification_problems("[mysqld]\n# sort_buffer_size: rule x-y (info); was 1\nsort_buffer_size = 2M\n")


def test_golden_profiles_meet_the_acceptance():
    def settings(name: str) -> dict[str, str]:
        return {m.group(1): m.group(2) for m in map(SETTING.match, (GOLDEN / f"{name}.cnf").read_text().splitlines()) if m}

    s = settings("profile-mysql-8.0.36-64G-16c-nvme-plp-oltp")
    assert "innodb_redo_log_capacity" in s and "innodb_log_file_size" not in s
    s = settings("profile-mysql-8.0.20-64G-16c-nvme-plp-oltp")
    assert "innodb_log_file_size" in s and "innodb_redo_log_capacity" not in s
    text = (GOLDEN / "profile-mariadb-10.11-64G-16c-nvme-plp-oltp.cnf").read_text()
    assert "innodb_log_files_in_group" not in text
    unsafe = (GOLDEN / "profile-mariadb-10.6-2G-2c-hdd-benchmark-unsafe.cnf").read_text()
    assert "UNSAFE DURABILITY" in unsafe.splitlines()[1]
    for p in GOLDEN.glob("*.cnf"):
        if "unsafe" in p.stem:
            continue
        s = {m.group(1): m.group(2) for m in map(SETTING.match, p.read_text().splitlines()) if m}
        assert s.get("innodb_flush_log_at_trx_commit", "1") == "1", p.name
        assert s.get("sync_binlog", "1") == "1", p.name
        assert s.get("innodb_doublewrite", "ON") == "ON", p.name
