"""A proposed setting: which variable, what value, who proposes it and why."""

from __future__ import annotations

from dataclasses import dataclass

KIND_RANK = {"guard": 0, "rule": 1, "sizing": 2}  # lower wins (see advisor.mycnf.model.resolve)


@dataclass(frozen=True)
class Proposal:
    variable: str
    value: str          # as my.cnf writes it
    source: str         # a rule id, or "sizing.<name>", "guard.<name>"
    kind: str           # rule | sizing | guard
    severity: str       # the rule's severity; "sizing" / "guard" otherwise
    reason: str         # one sentence with the numbers
    reference: str      # URL of the source

    @property
    def label(self) -> str:
        if self.kind == "rule":
            return f"rule {self.source} ({self.severity})"
        return f"{self.kind} {self.source}"
