"""Property tests over generated hardware profiles: whatever the machine, flavor, version and
workload, the generated file's worst-case memory stays within the memory given, and durability is
never weakened without --allow-unsafe-durability.

The budget is recomputed from the rendered file (parsed back, laid over the profile's defaults),
not taken from the plan, so the test checks what a DBA would install.

The number of profiles comes from the hypothesis profile (tests/conftest.py): 500 in the full suite,
50 in the inner loop (--hypothesis-profile=quick); the same fixed seed either way.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor import api
from advisor.knowledge import default_catalogue
from advisor.mycnf.cnf import effective, option_to_variable, parse_option_text
from advisor.mycnf.profile import Profile, profile_snapshot
from advisor.render.mycnf import render
from advisor.rules.memory import TARGET_FRACTION, PlannedValues, compute_budget
from advisor.versions import Version

VERSIONS = {
    "mysql": ["5.7.44", "8.0.20", "8.0.28", "8.0.36", "8.4.3", "9.1.0"],
    "percona": ["5.7.44", "8.0.36", "8.4.0"],
    "mariadb": ["10.4", "10.5", "10.6", "10.11", "11.4"],
}


@st.composite
def profiles(draw):
    flavor = draw(st.sampled_from(sorted(VERSIONS)))
    version = draw(st.sampled_from(VERSIONS[flavor]))
    # 1 GiB .. 1 TiB, half of the draws below 16 GiB where the budget is tight
    ram = draw(st.one_of(st.integers(min_value=1 << 30, max_value=16 << 30), st.integers(min_value=16 << 30, max_value=1 << 40)))
    cores = draw(st.integers(min_value=1, max_value=256))
    disk = draw(st.sampled_from(["nvme-plp", "nvme-client", "ssd", "hdd"]))
    workload = draw(st.sampled_from(["oltp", "bulk-load", "benchmark"]))
    purpose = draw(st.sampled_from(["production", "benchmark"]))
    unsafe = purpose == "benchmark" and draw(st.booleans())
    mode = draw(st.sampled_from(["changes", "full"]))
    return Profile(ram, cores, disk, flavor, version, workload), purpose, unsafe, mode


def file_settings(text: str, flavor: str, version: Version) -> dict[str, str]:
    from advisor import knowledge

    known = set(knowledge.names())
    out = {}
    for key, o in effective(parse_option_text(text).options).items():
        m = option_to_variable(key, o.value, known.__contains__)
        assert m is not None, f"{key} is not a catalogued variable"
        out[m[0]] = m[1]
    return out


def test_memory_budget_never_exceeds_the_memory_given_over_500_profiles():
    seen: list[Profile] = []
    examples = settings().max_examples  # 500, or 50 with --hypothesis-profile=quick

    @settings(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(profiles())
    def check(case):
        prof, purpose, unsafe, mode = case
        seen.append(prof)
        plan = api.mycnf_profile(prof, purpose=purpose, mode=mode, allow_unsafe_durability=unsafe)
        text = render(plan, default_catalogue())
        v = prof.parsed_version
        written = file_settings(text, prof.flavor, v)
        effective_values = dict(profile_snapshot(prof, default_catalogue()).server.variables)
        effective_values.update(written)
        # the connections the workload runs at once count with all their buffers (issue 14 §2.16); the worst
        # case of every max_connections doing so is shown, and a WARNING when it passes the limit, not spent
        budget = compute_budget(PlannedValues(prof.flavor, v, effective_values, default_catalogue(), prof.cores),
                                prof.ram_bytes, plan.budget.active)
        assert budget.total <= prof.ram_bytes, (prof, budget.total)
        assert budget.total <= prof.ram_bytes * TARGET_FRACTION + 1, (prof, budget.total)
        assert plan.budget.total == budget.total
        if budget.worst_case is not None and budget.worst_case > prof.ram_bytes:
            assert "WARNING: worst case" in text, prof
        if not unsafe:
            assert written.get("innodb_flush_log_at_trx_commit", "1") == "1", prof
            assert written.get("sync_binlog", "1") == "1", prof
            assert written.get("innodb_doublewrite", "ON").upper() == "ON", prof
            assert "UNSAFE" not in text
        else:
            assert ("UNSAFE DURABILITY" in text) == bool(plan.unsafe)

    check()
    assert len(seen) >= examples
    assert sum(1 for p in seen if p.ram_bytes < 4 << 30) >= examples // 10
    assert {p.flavor for p in seen} == set(VERSIONS)
