"""Pages generated from the catalogue, one per entry of every kind: docs/rules/<id>.md,
docs/sizers/<id>.md, docs/checks/<id>.md, an index per kind and the rule reference; `advisor explain
ID` prints the same text. Fixed sections, as ruff's rule pages: what it checks, why it matters, an
example run through the real code, the fix, where it applies, references.

The watch verdicts' pages (advisor.render.watch_pages) are written with them: all_pages. Regenerate with
`python -m advisor.render.pages docs` or `python3 -m pytest --update-golden` (the mechanism of every
golden file); a test fails when a page is stale. Pages return strings; only write_pages writes files.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.rules.catalogue import Catalogue
from advisor.rules.entries import KINDS, CheckEntry, SizerEntry, kind_of
from advisor.rules.examples_run import run_check_example, run_example, run_sizer_example, sizer_workload
from advisor.rules.formulas import FORMULAS
from advisor.rules.symptoms import is_symptom
from advisor.rules.schema import Rule
from advisor.units import format_size

from advisor.render.page_text import GENERATED, HEADER, describe, has_placeholders, paragraph, toml_value  # noqa: F401  (re-exported)


def rule_page(rule: Rule, catalogue: VariableCatalogue) -> str:
    s = rule.spec
    out = [HEADER.format(path=rule.path), "", f"# {s.id}: {s.title}", "",
           f"Severity **{s.severity}** · category `{s.category}`" + (f" · aliases {', '.join(s.aliases)}" if s.aliases else ""),
           "", "## What it checks", "", "Fires when:", "", describe(rule.when), ""]
    if s.overrides:
        out += ["Severity or wording changes when:", ""]
        for o, c in zip(s.overrides, rule.override_whens):
            change = []
            if o.severity:
                change.append(f"severity {o.severity}")
            if o.message:
                change.append("message")
            if o.fix:
                change.append("fix")
            out.append(describe(c).replace("- ", f"- ({', '.join(change)}) ", 1))
        out.append("")
    out += ["## Why it matters", "", paragraph(s.rationale), ""]
    fired = next((ex for ex in s.examples if ex.expect == "fired"), None)
    f = None
    if fired is not None:
        res = run_example(rule, fired, catalogue)
        f = res.outcome.finding
        out += ["## Example", "", f"With these facts ({fired.target}, purpose {fired.purpose}):", "", "```toml"]
        for k, v in fired.facts.items():
            out.append(f'"{k}" = {toml_value(v)}')
        out += ["```", ""]
        if f is not None:
            out += [f"the audit reports ({f.severity}):", "", "> " + f.message, ""]
    quiet = next((ex for ex in s.examples if ex.expect in ("passed", "not_applicable")), None)
    if quiet is not None:
        res = run_example(rule, quiet, catalogue)
        out += [f"It stays quiet for example `{quiet.name}` ({quiet.target}): {res.outcome.reason}.", ""]
    out += ["## Recommendation", ""]
    if s.fix and has_placeholders(s.fix) and f is not None and f.fix:
        out += ["For the example above, the audit's fix reads:", "", "> " + f.fix, ""]
    elif s.fix:
        out += [paragraph(s.fix), ""]
    for rec in s.recommend:
        if rec.formula:
            out.append(f"- computed by formula `{rec.formula}`: {FORMULAS[rec.formula].doc}")
        else:
            out.append(f"- `{rec.variable} = {rec.value}`")
    if s.recommend:
        out.append("")
    out += _variables_section(s.variables, catalogue)
    out += ["## Applies to", ""]
    out.append(f"- purpose: {', '.join(s.applies_to.purpose)}")
    out.append("- flavors: " + ", ".join(f"{k} {v}" for k, v in s.applies_to.flavors.items()))
    if rule.applies_when is not None:
        out += ["- only when:", textwrap.indent(describe(rule.applies_when), "  ")]
    if rule.variable is not None:
        out.append(f"- only where `{rule.variable}` exists: not applicable on a release the variable catalogue "
                   "says lacks it (the Variables section above lists where it exists)")
    if rule.defers_to:
        out.append("- a hand-written rule about the same variable reports first: when "
                   + ", ".join(f"[{d}]({d}.md)" for d in rule.defers_to)
                   + " fired, this rule is not applicable (one finding per setting)")
    out += ["", "## References", ""]
    out += [f"- <{r}>" for r in s.references]
    return "\n".join(out).rstrip() + "\n"


def _variables_section(names: list[str], catalogue: VariableCatalogue) -> list[str]:
    """The defaults of the entry's variables per flavor and version, from the variable catalogue."""
    lines: list[str] = []
    for name in names:
        var = catalogue.get(name)
        if var is None:
            continue
        parts = []
        for e in var.versions:
            where = f"{'/'.join(e.flavors)} {e.range}"
            if e.default_formula:
                d = f"formula `{e.default_formula}`"
            elif e.default is None:
                d = "no fixed default"
            elif var.unit == "bytes" and str(e.default).isdigit() and int(e.default) >= 1024:
                d = f"{e.default} ({format_size(int(e.default))})"
            else:
                d = f"{e.default!s}" if str(e.default) != "" else "(empty)"
            parts.append(f"{where}: {d}")
        life = [f"deprecated in {fl} {v}" for fl, v in var.deprecated.items()]
        life += [f"removed in {fl} {v}" for fl, v in var.removed.items()]
        if var.replaced_by:
            life.append(f"replaced by {', '.join(var.replaced_by)}")
        kind = f"{var.unit}, {var.scope}, {'dynamic' if var.dynamic else 'restart'}"
        lines.append(f"- `{name}` ({kind}): " + "; ".join(parts) + (f". {'; '.join(life).capitalize()}." if life else ""))
    if not lines:
        return []
    return ["## Variables", "", "Defaults by flavor and version (from the variable catalogue):", ""] + lines + [""]


REFERENCE = "_reference.md"

OP_TEXT = {
    "eq": "equal (numbers and sizes numerically, booleans as ON/OFF, strings case-insensitively, versions as versions)",
    "ne": "not equal", "lt": "less than", "le": "at most", "gt": "greater than", "ge": "at least",
    "in": "equal to one of `values`", "not_in": "equal to none of `values`",
    "between": "within `values = [low, high]`, inclusive", "matches": "matches the regular expression `value` (case-insensitive)",
    "exists": "the fact is present (takes no value; never unknown)",
    "contains": "a list fact has the element `value`, or a string fact contains it",
}


def reference_page(catalogue: VariableCatalogue) -> str:
    """Fact namespaces, operators, filters, derived facts, formulas and the variable catalogue, from
    the registries themselves (docs/rules/_reference.md)."""
    from advisor.rules import ops
    from advisor.rules.derived import DERIVED
    from advisor.rules.facts import FILTERS, NAMESPACES

    out = [GENERATED, "",
           "# Rule reference: facts, operators, derived facts, formulas, variables", "",
           "See docs/writing-rules.md for how to write a rule; this page lists what a rule can use.", "",
           "## Fact namespaces", "", ", ".join(f"`{n}`" for n in NAMESPACES), "",
           "## Operators", "", "| op | holds when the fact is ... |", "|---|---|"]
    out += [f"| `{o}` | {OP_TEXT.get(o, '')} |" for o in ops.OPS]
    out += ["", "## Message filters", "", ", ".join(f"`|{f}`" for f in FILTERS), "",
            "## Derived facts (`derived.<name>`)", "", "| name | unit | what |", "|---|---|---|"]
    out += [f"| `{d.name}` | {d.unit} | {' '.join(d.doc.split())} |" for d in sorted(DERIVED.values(), key=lambda d: d.name)]
    out += ["", "## Formulas (`recommend = [{ formula = ... }]`)", "", "| name | what |", "|---|---|"]
    out += [f"| `{f.name}` | {' '.join(f.doc.split())} |" for f in sorted(FORMULAS.values(), key=lambda f: f.name)]
    curated = catalogue.curated_names()
    out += ["", "## Variable catalogue", "",
            "The hand-curated entries of src/advisor/knowledge/variables.toml (defaults per version: see each rule "
            "page, or `advisor.knowledge.info(name, flavor, version)`). The catalogue also holds "
            f"{len(catalogue.names()) - len(curated)} more variables generated from the servers' own lists "
            "(src/advisor/knowledge/generated-*.json, tools/catalogue/).", "",
            "| variable | unit | scope | dynamic | flavors | deprecated / removed | sources |", "|---|---|---|---|---|---|---|"]
    for name in curated:
        var = catalogue.get(name)
        fls = sorted({fl for e in var.versions for fl in e.flavors})
        life = [f"deprecated {fl} {v}" for fl, v in var.deprecated.items()]
        life += [f"removed {fl} {v}" for fl, v in var.removed.items()]
        out.append(f"| `{name}` | {var.unit} | {var.scope} | {'yes' if var.dynamic else 'no'} | {', '.join(fls)} | "
                   f"{'; '.join(life)} | {len(var.sources)} |")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- sizers

STAGE_TEXT = {"propose": "runs on every plan", "whole-plan": "runs after the other sizers, on the whole plan",
              "full-mode": "runs in --mode full"}


def _facts_block(facts: dict[str, Any]) -> list[str]:
    return ["```toml"] + [f'"{k}" = {toml_value(v)}' for k, v in facts.items()] + ["```", ""]


def sizer_page(entry: SizerEntry, catalogue: VariableCatalogue) -> str:
    from advisor.rules.sizers import SIZERS

    s = entry.spec
    out = [HEADER.format(path=entry.path), "", f"# {s.id}: {s.title}", "",
           f"Sizer · writes {', '.join(f'`{v}`' for v in s.variables)} · {STAGE_TEXT[SIZERS[s.id].stage]}", "",
           "## Why", "", paragraph(s.rationale), ""]
    fired = next((ex for ex in s.examples if ex.expect == "fired"), None)
    if fired is not None:
        res = run_sizer_example(entry, fired, catalogue)
        out += ["## Example", "", f"With these facts ({fired.target}, purpose {fired.purpose}, workload "
                f"{sizer_workload(fired)}):", ""] + _facts_block(fired.facts)
        out += ["`advisor mycnf` writes:", "", "```ini"] + [f"{p.variable} = {p.value}" for p in res.outcome.proposals]
        out += ["```", "", "> " + res.outcome.proposals[0].reason, ""]
    quiet = next((ex for ex in s.examples if ex.expect in ("passed", "not_applicable")), None)
    if quiet is not None:
        res = run_sizer_example(entry, quiet, catalogue)
        out += [f"It writes nothing for example `{quiet.name}` ({quiet.target}): {res.outcome.reason}.", ""]
    out += ["## Examples", "", "| example | target | purpose, workload | outcome |", "|---|---|---|---|"]
    for ex in s.examples:
        lines = ", ".join(f"{k} = {v}" for k, v in (ex.proposals or {}).items())
        out.append(f"| `{ex.name}` | {ex.target} | {ex.purpose}, {sizer_workload(ex)} | {ex.expect}"
                   + (f": {lines}" if lines else "") + " |")
    out += [""] + _variables_section(s.variables, catalogue)
    out += ["## References", ""] + [f"- <{r}>" for r in s.references]
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------- checklist checks

def check_page(entry: CheckEntry, catalogue: VariableCatalogue) -> str:
    s = entry.spec
    kind = "a standing reminder (no snapshot can decide it)" if s.reminder else "checklist check"
    out = [HEADER.format(path=entry.path), "", f"# {s.id}: {s.title}", "",
           f"Checklist check · phase `{s.phase}`" + (f" · {kind}" if s.reminder else ""), "",
           "## Why it matters", "", paragraph(s.rationale), ""]
    shown = next((ex for ex in s.examples if ex.expect in ("fail", "manual", "unknown", "note")), None)
    if shown is not None:
        out += _check_example(entry, shown, catalogue)
    quiet = next((ex for ex in s.examples if ex.expect in ("pass", "omitted")), None)
    if quiet is not None:
        res = run_check_example(entry, quiet, catalogue)
        what = ("it is left out" if res.outcome is None else f"it passes: {res.outcome.evidence}")
        out += [f"For example `{quiet.name}`" + (f" (`{quiet.sysbench}`)" if quiet.sysbench else "") + f", {what}", ""]
    out += ["## Examples", "", "| example | sysbench command | outcome |", "|---|---|---|"]
    out += [f"| `{ex.name}` | {('`' + ex.sysbench + '`') if ex.sysbench else '(none)'} | {ex.expect} |"
            for ex in s.examples]
    out += ["", "## References", ""] + [f"- <{r}>" for r in s.references]
    return "\n".join(out).rstrip() + "\n"


def _check_example(entry: CheckEntry, ex: Any, catalogue: VariableCatalogue) -> list[str]:
    res = run_check_example(entry, ex, catalogue)
    r = res.outcome
    head = f"With {f'`{ex.sysbench}`' if ex.sysbench else 'no sysbench command'} against {ex.target}"
    if ex.local:
        head += f" (sysbench {ex.local.get('version')} with {ex.local.get('library_file')} on this machine)"
    out = ["## Example", "", head + (" and these facts:" if ex.facts else ":"), ""]
    if ex.facts:
        out += _facts_block(ex.facts)
    out += [f"the checklist says ({r.status}):", "", "> " + " ".join(r.evidence.split()), ""]
    if r.fix:
        out += ["Fix: " + " ".join(r.fix.split()), ""]
    if r.command:
        out += ["```sh", r.command, "```", ""]
    return out


# ---------------------------------------------------------------- any entry, the index, writing

def entry_page(entry: Any, catalogue: VariableCatalogue) -> str:
    return {"rule": rule_page, "sizer": sizer_page, "check": check_page}[kind_of(entry)](entry, catalogue)


def index_page(kind: str, entries: list[Any], generated: tuple[str, ...] = ()) -> str:
    k = KINDS[kind]
    out = [GENERATED, "", f"# {k.heading}", ""]
    if kind == "rule":
        signs = [r for r in entries if r.id in generated and is_symptom(r)]
        made = [r for r in entries if r.id in generated and not is_symptom(r)]
        out += ["| id | severity | category | title |", "|---|---|---|---|"]
        out += [f"| [{r.id}]({r.id}.md) | {r.spec.severity} | {r.spec.category} | {r.spec.title} |"
                for r in entries if r.id not in generated]
        if made:
            out += ["", "## Risky values", "",
                    f"{len(made)} rules generated from the risky-values entries of "
                    f"{len({r.variable for r in made})} server variables (src/advisor/knowledge/risky.toml, "
                    "advisor.rules.risky): each fires when its variable is set to a risky value, from the "
                    "configuration alone, unless a hand-written rule about the same variable already reported it.",
                    "", "| id | severity | category | title |", "|---|---|---|---|"]
            out += [f"| [{r.id}]({r.id}.md) | {r.spec.severity} | {r.spec.category} | {r.spec.title} |" for r in made]
        if signs:
            out += ["", "## Symptoms", "",
                    f"{len(signs)} rules generated from the symptoms entries (src/advisor/knowledge/symptoms.toml, "
                    "advisor.rules.symptoms): each judges one status counter or ratio against a sourced threshold "
                    "once the sample is large enough, and is unknown below it.",
                    "", "| id | severity | category | counter | title |", "|---|---|---|---|---|"]
            out += [f"| [{r.id}]({r.id}.md) | {r.spec.severity} | {r.spec.category} | "
                    f"{r.when.facts()[0].split('.', 1)[1]} | {r.spec.title} |" for r in signs]
    elif kind == "sizer":
        out += ["| id | writes | title |", "|---|---|---|"]
        out += [f"| [{e.id}]({e.id}.md) | {', '.join(e.spec.variables)} | {e.title} |" for e in entries]
    else:
        out += ["| id | phase | title |", "|---|---|---|"]
        out += [f"| [{e.id}]({e.id}.md) | {e.spec.phase} | {e.title} |" for e in entries]
    return "\n".join(out) + "\n"


def pages(catalogue: Catalogue) -> dict[str, str]:
    """Every generated page, by its path under docs/."""
    out: dict[str, str] = {}
    for kind in KINDS:
        entries = list(catalogue.of(kind))
        d = KINDS[kind].plural
        for e in entries:
            out[f"{d}/{e.id}.md"] = entry_page(e, catalogue.variables)
        out[f"{d}/README.md"] = index_page(kind, entries, catalogue.generated)
    out[f"rules/{REFERENCE}"] = reference_page(catalogue.variables)
    return out


PAGE_DIRS = tuple(k.plural for k in KINDS.values()) + ("watch",)


def all_pages(catalogue: Catalogue) -> dict[str, str]:
    """The catalogue's pages and the watch verdicts' pages (docs/watch/)."""
    from advisor.render.groups_page import groups_page
    from advisor.render.severity_page import severity_page
    from advisor.render.watch_pages import verdict_pages
    from advisor.watch.verdicts import load_verdicts

    return {**pages(catalogue), **verdict_pages(), "severity.md": severity_page(catalogue.of("rule"), load_verdicts()),
            "groups.md": groups_page(catalogue.cause_groups(), catalogue.of("rule"))}


def write_pages(docs_dir: str, catalogue: Catalogue) -> list[Path]:
    """Write every page under docs_dir and remove pages of entries that no longer exist."""
    root = Path(docs_dir)
    written = []
    generated = all_pages(catalogue)
    for rel, text in generated.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        written.append(p)
    for d in PAGE_DIRS:
        for stale in (root / d).glob("*.md"):
            if f"{d}/{stale.name}" not in generated:
                stale.unlink()
    return written


def main(argv: list[str]) -> int:
    from advisor.rules.loader import load_entries

    paths = write_pages(argv[0] if argv else "docs", load_entries())
    print(f"wrote {len(paths)} pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
