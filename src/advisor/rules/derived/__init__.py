"""Derived facts: named, pure computations over other facts (`derived.<name>` in rules).

One module per rule category; each defines its facts on its own FactSet (`FACTS`) and DERIVED merges
them here, the only place the registry is assembled. The engine, the loader and the checklist are
handed DERIVED (advisor.rules.engine.fact_view); nothing registers by import side effect.

Each fact returns a value or Unknown(reason); inside a fact, FactView.need*() reads an input and
turns a missing one into the fact's Unknown. Version-aware arithmetic lives here, not in rule files:
a rule says `derived.redo_capacity_bytes le 128M` and does not care which variables make up the redo
log on its target. Adding a fact: docs/architecture.md, "How to add a derived fact".
"""

from __future__ import annotations

from advisor.rules.derived import (accounts, concurrency, dictionary, durability, engine, memory, network, redo,
                                   storage, tidb, tls, version)
from advisor.rules.facts import Derived, FactSet

MODULES = (redo, tls, network, storage, memory, concurrency, durability, tidb, version, engine, accounts, dictionary)

DERIVED: dict[str, Derived] = FactSet.merge(*(m.FACTS for m in MODULES))
