"""Helpers shared by the derived-fact modules. Pure."""

from __future__ import annotations

from typing import Any

from advisor.rules.facts import FactView, Unknown, first_unknown

MiB = 1 << 20
GiB = 1 << 30


def ratio(num: Any, den: Any, zero_reason: str) -> Any:
    """num / den, or the first unknown operand, or Unknown(zero_reason) when den is not positive."""
    u = first_unknown(num, den)
    if u is not None:
        return u
    if den <= 0:
        return Unknown(zero_reason)
    return num / den


def default_inputs(v: FactView) -> dict[str, Any]:
    """Inputs of the catalogue's default formulas, from the snapshot (None where not collected)."""
    cpus = v.known("host.cpu.logical_count")
    ram = v.known("derived.memory_limit_bytes")
    bp = v.num("var.innodb_buffer_pool_size")
    return {"cpus": None if cpus is None else int(cpus),
            "ram_bytes": None if ram is None else int(ram),
            "buffer_pool_bytes": None if isinstance(bp, Unknown) else int(bp)}


def no_host_facts(v: FactView) -> Unknown:
    return Unknown(v.missing_reason("host", "host facts were not collected"))
