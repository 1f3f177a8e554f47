"""docs/severity.md: the severity policy and, per rule, its severity per purpose, its basis and why,
generated from advisor.severity and the catalogue (`python -m advisor.render.pages`)."""

from __future__ import annotations

from typing import Any, Iterable

from advisor import severity as policy
from advisor.render.page_text import GENERATED
from advisor.rules.schema import PURPOSES, SEVERITY_RANK


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def row(spec: Any, purposes: Iterable[str], link: str) -> str:
    raised = sorted({o.severity for o in getattr(spec, "overrides", []) if o.severity
                     and SEVERITY_RANK[o.severity] > SEVERITY_RANK[spec.severity]}, key=SEVERITY_RANK.get)
    lowered = sorted({o.severity for o in getattr(spec, "overrides", []) if o.severity
                      and SEVERITY_RANK[o.severity] < SEVERITY_RANK[spec.severity]}, key=SEVERITY_RANK.get)
    sev = spec.severity + (f" (↑ {', '.join(raised)})" if raised else "") + (f" (↓ {', '.join(lowered)})" if lowered else "")
    per = [sev if p in purposes else "—" for p in PURPOSES]
    basis = spec.severity_basis or "(none)"
    reason = f"{spec.title}: {policy.LEVELS[spec.severity].get(basis, 'no basis given')}"
    return f"| [{spec.id}]({link}) | " + " | ".join(per) + f" | {basis} | {_cell(reason)} |"


def severity_page(rules: Iterable[Any], verdicts: Iterable[Any] = ()) -> str:
    rules = sorted(rules, key=lambda r: (-SEVERITY_RANK[r.spec.severity], r.id))
    out = [GENERATED, "", "# Severity policy", "",
           "From src/advisor/severity.py and each rule's `severity` and `severity_basis`.", "", policy.POLICY, "", "## Bases", "",
           "| severity | basis | meaning |", "|---|---|---|"]
    for lvl, bases in policy.LEVELS.items():
        out += [f"| {lvl} | {b} | {m} |" for b, m in bases.items()]
    out += ["", "Rules generated from risky values (src/advisor/knowledge/risky.toml) take `basis` from their entry; "
            "an entry without one gets, by severity and category:", ""]
    for lvl, table in policy.DEFAULT_BASIS.items():
        out.append(f"- {lvl}: " + ", ".join(f"{cat} → {b}" for cat, b in table.items() if cat != "*")
                   + f", any other category → {table['*']}")
    out += ["", f"## Rules ({len(rules)})", "",
            "Severity per purpose (— where the rule does not apply); ↑/↓ an override raises or lowers it on its evidence.",
            "", "| id | " + " | ".join(PURPOSES) + " | basis | reason |", "|---|" + "---|" * len(PURPOSES) + "---|---|"]
    out += [row(r.spec, r.spec.applies_to.purpose, f"rules/{r.id}.md") for r in rules]
    verdicts = sorted(verdicts, key=lambda v: (-SEVERITY_RANK[v.spec.severity], v.spec.id))
    if verdicts:
        out += ["", f"## Watch verdicts ({len(verdicts)})", "",
                "| id | " + " | ".join(PURPOSES) + " | basis | reason |", "|---|" + "---|" * len(PURPOSES) + "---|---|"]
        out += [row(v.spec, PURPOSES, f"watch/{v.spec.id}.md") for v in verdicts]
    return "\n".join(out) + "\n"
