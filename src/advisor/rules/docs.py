"""Rule documentation generated from the rule files: docs/rules/<id>.md and `advisor explain`.

Fixed sections, as ruff's rule pages: what it checks, why it matters, example, recommendation,
applies to, references. Regenerate them with every other golden file: `python3 -m pytest
--update-golden` (tests/unit/test_rule_catalogue.py, which fails when a page is stale; running this
module writes the same pages).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from advisor.rules.examples_run import run_example
from advisor.rules.formulas import FORMULAS
from advisor.rules.schema import AllOf, AnyOf, Condition, Leaf, NotOf, Rule

HEADER = "<!-- generated from {path} by `python -m advisor.rules.docs docs/rules`; do not edit -->"


def describe(cond: Condition, indent: int = 0) -> str:
    pad = "  " * indent
    if isinstance(cond, Leaf):
        sym = {"eq": "=", "ne": "≠", "lt": "<", "le": "≤", "gt": ">", "ge": "≥"}
        if cond.op == "exists":
            return f"{pad}- `{cond.fact}` is present"
        if cond.ref:
            f = f"{cond.factor:g} × " if cond.factor != 1 else ""
            return f"{pad}- `{cond.fact}` {sym[cond.op]} {f}`{cond.ref}`"
        vals = ", ".join(f"`{lit.written}`" for lit in cond.literals)
        if cond.op in sym:
            return f"{pad}- `{cond.fact}` {sym[cond.op]} {vals}"
        return f"{pad}- `{cond.fact}` {cond.op.replace('_', ' ')} {vals}"
    if isinstance(cond, NotOf):
        return f"{pad}- not:\n{describe(cond.item, indent + 1)}"
    word = "all of" if isinstance(cond, AllOf) else "any of"
    assert isinstance(cond, (AllOf, AnyOf))
    return f"{pad}- {word}:\n" + "\n".join(describe(c, indent + 1) for c in cond.items)


def _para(text: str) -> str:
    import re

    text = re.sub(r"\{rec\.[a-z0-9_]+\}|\{recommendation\}", "the recommended value", text)
    text = re.sub(r"\{([A-Za-z0-9_.]+)(\|[a-z_]+)?\}", r"<\1>", text)
    return "\n\n".join(" ".join(p.split()) for p in text.strip().split("\n\n"))


def render_rule_doc(rule: Rule) -> str:
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
    out += ["## Why it matters", "", _para(s.rationale), ""]
    fired = next((ex for ex in s.examples if ex.expect == "fired"), None)
    if fired is not None:
        res = run_example(rule, fired)
        f = res.outcome.finding
        out += ["## Example", "", f"With these facts ({fired.target}, purpose {fired.purpose}):", "", "```toml"]
        for k, v in fired.facts.items():
            out.append(f'"{k}" = {_toml(v)}')
        out += ["```", ""]
        if f is not None:
            out += [f"the audit reports ({f.severity}):", "", "> " + f.message, ""]
    quiet = next((ex for ex in s.examples if ex.expect in ("passed", "not_applicable")), None)
    if quiet is not None:
        res = run_example(rule, quiet)
        out += [f"It stays quiet for example `{quiet.name}` ({quiet.target}): {res.outcome.reason}.", ""]
    out += ["## Recommendation", ""]
    if s.fix:
        out += [_para(s.fix), ""]
    for rec in s.recommend:
        if rec.formula:
            out.append(f"- computed by formula `{rec.formula}`: {FORMULAS[rec.formula].doc}")
        else:
            out.append(f"- `{rec.variable} = {rec.value}`")
    if s.recommend:
        out.append("")
    out += _variables_section(s.variables)
    out += ["## Applies to", ""]
    out.append(f"- purpose: {', '.join(s.applies_to.purpose)}")
    out.append("- flavors: " + ", ".join(f"{k} {v}" for k, v in s.applies_to.flavors.items()))
    if rule.applies_when is not None:
        out += ["- only when:", textwrap.indent(describe(rule.applies_when), "  ")]
    out += ["", "## References", ""]
    out += [f"- <{r}>" for r in s.references]
    return "\n".join(out).rstrip() + "\n"


def _variables_section(names: list[str]) -> list[str]:
    """The defaults of the rule's variables per flavor and version, from the variable catalogue."""
    from advisor.knowledge import catalogue
    from advisor.units import format_size

    cat = catalogue()
    lines: list[str] = []
    for name in names:
        var = cat.get(name.lower())
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


def render_reference() -> str:
    """Fact namespaces, operators, filters, derived facts, formulas and the variable catalogue, from
    the registries themselves (docs/rules/_reference.md)."""
    from advisor.knowledge import catalogue
    from advisor.rules import ops
    from advisor.rules.facts import DERIVED, FILTERS, NAMESPACES

    out = ["<!-- generated by `python -m advisor.rules.docs docs/rules`; do not edit -->", "",
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
    cat = catalogue()
    curated = cat.curated_names() if hasattr(cat, "curated_names") else sorted(cat)
    out += ["", "## Variable catalogue", "",
            "The hand-curated entries of src/advisor/knowledge/variables.toml (defaults per version: see each rule "
            "page, or `advisor.knowledge.info(name, flavor, version)`). The catalogue also holds "
            f"{len(cat) - len(curated)} more variables generated from the servers' own lists "
            "(src/advisor/knowledge/generated-*.json, tools/catalogue/).", "",
            "| variable | unit | scope | dynamic | flavors | deprecated / removed | sources |", "|---|---|---|---|---|---|---|"]
    for name in curated:
        var = cat[name]
        fls = sorted({fl for e in var.versions for fl in e.flavors})
        life = [f"deprecated {fl} {v}" for fl, v in var.deprecated.items()]
        life += [f"removed {fl} {v}" for fl, v in var.removed.items()]
        out.append(f"| `{name}` | {var.unit} | {var.scope} | {'yes' if var.dynamic else 'no'} | {', '.join(fls)} | "
                   f"{'; '.join(life)} | {len(var.sources)} |")
    return "\n".join(out) + "\n"


def _toml(v: object) -> str:
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml(x)}" for k, x in v.items()) + " }"
    return json.dumps(str(v))


def render_index(rules: list[Rule]) -> str:
    """docs/rules/README.md: one table row per rule."""
    index = ["<!-- generated by `python -m advisor.rules.docs docs/rules`; do not edit -->", "", "# Rules", "",
             "| id | severity | category | title |", "|---|---|---|---|"]
    index += [f"| [{r.id}]({r.id}.md) | {r.spec.severity} | {r.spec.category} | {r.spec.title} |" for r in rules]
    return "\n".join(index) + "\n"


def write_docs(out_dir: str) -> list[Path]:
    from advisor.rules.loader import load_rules

    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written = []
    rules = load_rules()
    for r in rules:
        p = d / f"{r.id}.md"
        p.write_text(render_rule_doc(r), encoding="utf-8")
        written.append(p)
    (d / "README.md").write_text(render_index(rules), encoding="utf-8")
    (d / REFERENCE).write_text(render_reference(), encoding="utf-8")
    keep = {p.name for p in written} | {"README.md", REFERENCE}
    for stale in d.glob("*.md"):
        if stale.name not in keep:
            stale.unlink()
    return written


if __name__ == "__main__":
    paths = write_docs(sys.argv[1] if len(sys.argv) > 1 else "docs/rules")
    print(f"wrote {len(paths)} rule pages")
