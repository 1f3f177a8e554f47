"""A FactView over a snapshot made of the given facts, as rule examples make them
(advisor.rules.examples.example_snapshot: "var.x" = "32M" stands for what the server prints)."""

from __future__ import annotations

from typing import Any

from advisor.knowledge import default_catalogue
from advisor.rules.engine import fact_view
from advisor.rules.examples import example_snapshot
from advisor.rules.facts import FactView
from advisor.rules.schema import Example


def view(facts: dict[str, Any] | None = None, target: str = "mysql 8.0.36", purpose: str = "production") -> FactView:
    ex = Example(name="x", expect="passed", target=target, purpose=purpose, facts=facts or {})  # type: ignore[arg-type]
    return fact_view(example_snapshot(ex), purpose, default_catalogue())
