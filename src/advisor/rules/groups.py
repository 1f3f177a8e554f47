"""Cause groups (issue 23 §2): rules whose findings share one root cause are reported as one finding.

A group is data (rules/groups.toml): an id, a title, its member rules in a declared order, and how its
recommendation is chosen. The engine still gives every rule its own outcome; `group_findings` turns the
fired findings into the findings a report shows:

- the lead is the fired member with the highest severity, ties broken by the declared order;
- the group's severity is the lead's (so --fail-on sees the highest severity of the group);
- the recommendation has one value per variable: the lead's; with `recommend = "merge"` the other
  members' settings for variables the lead does not set are added, in the declared order;
- every other fired member is a consequence: its rule, severity and message, shown under the lead.

A fired rule in no group is a finding of its own. Pure: the groups are handed in (advisor.rules.loader
reads the file).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence

from advisor.rules.conditions import SEVERITY_RANK

GROUPS_FILE = "groups.toml"  # beside the rule directories in the built-in catalogue

# How a group becomes one finding, in words (docs/groups.md prints it; group_findings does it).
POLICY = (
    ("members", "A group lists at least two rules (by id; a renamed rule's alias still counts) in a declared "
                "order; a rule is in at most one group. Every rule is still evaluated on its own and keeps its own "
                "outcome."),
    ("lead", "Of the members that fired, the one with the highest severity leads; among equal severities, the "
             "one listed first. The report shows the lead's message, evidence, fix and notes."),
    ("severity", "The group's severity is the lead's, the highest of its fired members: the severity headings, "
                 "the Summary line's counts and `--fail-on` use it."),
    ("recommendation", "One value per variable. `recommend = \"lead\"` (the default): the lead's recommendation "
                       "only, as the other members' problems go away with the lead's fix. `recommend = \"merge\"`: "
                       "the lead's, then each other fired member's settings for variables the lead does not set, "
                       "in the declared order."),
    ("consequences", "Every other fired member is listed under the lead with its rule id, severity and message "
                     "(terminal: `also [rule] (severity): message`; Markdown and HTML: \"Also from the same "
                     "cause\"; SARIF: in the lead's message, the member's own result `informational`)."),
    ("title", "With two or more members fired the finding takes the group's title; with one, the rule's own."),
    ("JSON", "`advisor audit --format json` keeps every rule's finding and outcome with a `group` field (the "
             "group's id, or null), and adds `groups[]`, one entry per finding as the reports show them, and "
             "`summary.findings`, their number (docs/report-format.md)."),
)


@dataclass(frozen=True)
class Group:
    """One cause group as the report uses it (validated from rules/groups.toml by
    advisor.rules.groups_schema.GroupSpec, which the loader turns into this plain record)."""

    id: str
    title: str
    cause: str
    members: tuple[str, ...]
    recommend: str = "lead"


@dataclass(frozen=True)
class Consequence:
    """A fired member of a group other than its lead, as the report shows it under the lead."""

    rule: str
    severity: str
    title: str
    message: str


@dataclass(frozen=True)
class FindingGroup:
    """One finding of a report: a cause group's lead with its consequences, or a rule in no group
    (`id` None, no consequences)."""

    id: Optional[str]
    title: str
    lead: Any  # advisor.rules.engine.Finding
    members: tuple[Any, ...]  # every fired member's Finding, lead first, then in declared order
    recommendation: dict[str, str]

    @property
    def severity(self) -> str:
        return str(self.lead.severity)

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(f.rule for f in self.members)

    @property
    def consequences(self) -> tuple[Consequence, ...]:
        return tuple(Consequence(f.rule, f.severity, f.title, f.message) for f in self.members[1:])

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "severity": self.severity, "lead": self.lead.rule,
                "rules": list(self.rules), "recommendation": dict(self.recommendation),
                "consequences": [{"rule": c.rule, "severity": c.severity, "message": c.message}
                                 for c in self.consequences]}


def membership(groups: Iterable[Group], aliases: Mapping[str, str] = {}) -> dict[str, str]:
    """rule id -> group id (`aliases`: old id -> current id, so a renamed rule stays in its group)."""
    out: dict[str, str] = {}
    for g in groups:
        for m in g.members:
            out[aliases.get(m, m)] = g.id
    return out


def lead_of(members: Sequence[Any], order: Sequence[str]) -> Any:
    """The member with the highest severity; among equals, the one declared first."""
    rank = {r: i for i, r in enumerate(order)}
    return min(members, key=lambda f: (-SEVERITY_RANK[f.severity], rank.get(f.rule, len(rank))))


def group_findings(findings: Sequence[Any], groups: Sequence[Group],
                   aliases: Mapping[str, str] = {}) -> list[FindingGroup]:
    """The findings a report shows, most severe first: one per cause group with a fired member, one per
    fired rule in no group. `findings` are the fired rules' Findings (Report.findings)."""
    of = membership(groups, aliases)
    spec = {g.id: g for g in groups}
    fired: dict[str, list[Any]] = {}
    out: list[FindingGroup] = []
    for f in findings:
        gid = of.get(f.rule)
        if gid is None:
            out.append(FindingGroup(None, f.title, f, (f,), dict(f.recommendation)))
        else:
            fired.setdefault(gid, []).append(f)
    for gid, members in fired.items():
        g = spec[gid]
        order = [aliases.get(m, m) for m in g.members]
        lead = lead_of(members, order)
        rest = sorted((f for f in members if f is not lead), key=lambda f: order.index(f.rule))
        rec = dict(lead.recommendation)
        if g.recommend == "merge":
            for f in rest:
                for var, val in f.recommendation.items():
                    rec.setdefault(var, val)
        # one group with one fired member reads as that rule's own finding
        out.append(FindingGroup(gid, g.title if rest else lead.title, lead, (lead, *rest), rec))
    out.sort(key=lambda fg: (-SEVERITY_RANK[fg.severity], fg.lead.category, fg.lead.rule))
    return out
