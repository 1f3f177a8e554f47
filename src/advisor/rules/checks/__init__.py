"""Checklist checks: the pre-benchmark items that are not rules over a snapshot alone, because they
judge a sysbench command line against the server (sysbench_server, sysbench_run) or remind of what no
snapshot can decide (manual).

Each check is one small named function registered with its id on its module's CheckSet; CHECKS holds
them all in the order the checklist lists them. A check takes a CheckContext and returns a
CheckResult (pass / fail / unknown / manual, with evidence, fix, command and facts), or None when it
does not apply to this command. Its id, phase, title, rationale, references and examples are a
catalogue entry (rules/checklist/<id>.toml, advisor.rules.entries), documented like a rule
(`advisor explain <id>`). Adding one: docs/architecture.md, "How to add a checklist check".
"""

from __future__ import annotations

from advisor.rules.checks import manual, sysbench_run, sysbench_server
from advisor.rules.checks.base import (CheckContext, CheckLogic, CheckResult, check_context, sysbench_era)

__all__ = ["CHECKS", "CheckContext", "CheckLogic", "CheckResult", "check_context", "sysbench_era"]

MODULES = (sysbench_server, sysbench_run, manual)


def _merge() -> dict[str, CheckLogic]:
    out: dict[str, CheckLogic] = {}
    for module in MODULES:
        for cid, c in module.CHECKS.checks.items():
            if cid in out:
                raise ValueError(f"checklist check {cid} defined twice")
            out[cid] = c
    return out


CHECKS: dict[str, CheckLogic] = _merge()
