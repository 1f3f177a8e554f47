"""Types shared by the checklist checks: what a check reads (CheckContext), what it returns
(CheckResult), and the CheckSet each module defines its checks on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from advisor.rules.facts import FactView
from advisor.rules.schema import ItemStatus
from advisor.sysbench import LocalSysbench, SysbenchCommand


@dataclass(frozen=True)
class CheckResult:
    status: ItemStatus
    evidence: str
    fix: str = ""
    command: str = ""                                   # for manual items: what to run
    facts: dict[str, Any] = field(default_factory=dict)
    title: Optional[str] = None                         # when this case needs its own title


@dataclass(frozen=True)
class CheckContext:
    """What a check reads: the snapshot (purpose benchmark), the sysbench command when one was given,
    what sysbench on this machine is, and which sysbench era (1.0 / 1.1) the run will use and why."""

    view: FactView
    cmd: Optional[SysbenchCommand] = None
    local: Optional[LocalSysbench] = None
    era: Optional[str] = None
    era_why: str = "no sysbench command was given"

    @property
    def queries_the_server(self) -> bool:
        """A database test whose command sends queries (not cleanup or help)."""
        return (self.cmd is not None and self.cmd.is_database_test
                and self.cmd.effective_command not in ("cleanup", "help"))


CheckFn = Callable[[CheckContext], Optional[CheckResult]]


@dataclass(frozen=True)
class CheckLogic:
    id: str
    fn: CheckFn


class CheckSet:
    """The checks one module defines, in the order the checklist lists them."""

    def __init__(self) -> None:
        self.checks: dict[str, CheckLogic] = {}

    def define(self, check_id: str) -> Callable[[CheckFn], CheckFn]:
        """Register the function of the check whose catalogue entry is rules/checklist/<check_id>.toml."""
        def deco(fn: CheckFn) -> CheckFn:
            if check_id in self.checks:
                raise ValueError(f"checklist check {check_id} defined twice")
            self.checks[check_id] = CheckLogic(check_id, fn)
            return fn
        return deco


def sysbench_era(cmd: Optional[SysbenchCommand], local: Optional[LocalSysbench]) -> tuple[Optional[str], str]:
    """Which sysbench (1.0 or 1.1) the run will use, and how we know."""
    if local is not None and local.era:
        return local.era, f"sysbench {local.version} on this machine"
    if cmd is not None:
        era, why = cmd.era_hint()
        if era:
            return era, why
        return None, ("sysbench is not installed here and " + why) if local is not None and not local.path else why
    return None, "no sysbench command was given"


def check_context(view: FactView, cmd: Optional[SysbenchCommand] = None,
                  local: Optional[LocalSysbench] = None) -> CheckContext:
    era, why = sysbench_era(cmd, local)
    return CheckContext(view, cmd, local, era, why)


def data_cache(view: FactView) -> str:
    """What holds the hot data in memory on the target, for a sentence: InnoDB's buffer pool, or on TiDB
    the block cache of TiKV, its storage nodes (TiDB has no InnoDB)."""
    return "TiKV block cache" if view.snapshot.target.flavor == "tidb" else "buffer pool"


def stats_sampler(view: FactView) -> str:
    """Who samples index statistics after a load: InnoDB, or TiDB's auto-analyze."""
    return "TiDB's auto-analyze runs" if view.snapshot.target.flavor == "tidb" else "InnoDB samples them again"
