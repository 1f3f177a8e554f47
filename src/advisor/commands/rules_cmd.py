from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from advisor.commands.options import RulesDirs, write_output

rules_app = typer.Typer(help="List and check rules.", no_args_is_help=True, add_completion=False)


class ListFormat(str, Enum):
    text = "text"
    json = "json"


@rules_app.command("list")
def list_rules(
    rules: RulesDirs = None,
    fmt: Annotated[ListFormat, typer.Option("--format", "-f", help="text (default) or json.")] = ListFormat.text,
) -> None:
    """List every rule: id, severity, category, title."""
    import json

    from advisor.rules.loader import load_rules

    loaded = load_rules(rules or [])
    if fmt == ListFormat.json:
        items = [{"id": r.id, "title": r.spec.title, "severity": r.spec.severity, "category": r.spec.category,
                  "aliases": r.spec.aliases, "purpose": r.spec.applies_to.purpose, "flavors": r.spec.applies_to.flavors,
                  "references": r.spec.references, "examples": len(r.spec.examples), "file": r.path} for r in loaded]
        write_output(json.dumps({"rules": items}, indent=2) + "\n", None)
        return
    width = max((len(r.id) for r in loaded), default=10)
    lines = [f"{r.id:<{width}}  {r.spec.severity:<8} {r.spec.category:<12} {r.spec.title}" for r in loaded]
    write_output("\n".join(lines) + f"\n{len(loaded)} rules\n", None)


@rules_app.command("lint")
def lint(
    directory: Annotated[Optional[str], typer.Argument(help="Rule directory to check (default: the built-in catalogue).")] = None,
) -> None:
    """Validate rule files and run every embedded example; exit 4 on a malformed file, 1 on a failing example."""
    from advisor.rules.lint import lint_rules

    ok, text = lint_rules(directory)
    write_output(text, None)
    if not ok:
        raise typer.Exit(1)


def explain(
    rule_id: Annotated[str, typer.Argument(help="Rule id (see `advisor rules list`).")],
    rules: RulesDirs = None,
) -> None:
    """Explain a rule or a watch verdict: what it checks, why it matters, an example, the fix, references."""
    from advisor.rules.docs import render_rule_doc
    from advisor.rules.loader import load_rules
    from advisor.errors import UsageError

    loaded = load_rules(rules or [])
    for r in loaded:
        if rule_id == r.id or rule_id in r.spec.aliases:
            write_output(render_rule_doc(r), None)
            return
    from advisor.watch.verdicts import load_verdicts

    verdicts = load_verdicts()
    for v in verdicts:
        if rule_id == v.id:
            from advisor.watch.docs import render_verdict_doc

            write_output(render_verdict_doc(v), None)
            return
    import difflib

    close = difflib.get_close_matches(rule_id, [r.id for r in loaded] + [v.id for v in verdicts], n=3)
    raise UsageError(f"no rule with id {rule_id!r}.",
                     (f"did you mean {', '.join(close)}? " if close else "") + "`advisor rules list` shows every id.")
