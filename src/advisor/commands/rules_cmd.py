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
    everything: Annotated[bool, typer.Option("--all", help="Also list the sizers, the checklist checks and the watch verdicts.")] = False,
) -> None:
    """List every rule: id, severity, category, title (with --all also every sizer, checklist check and watch verdict)."""
    import json

    from advisor.rules.loader import load_entries

    catalogue = load_entries(rules or [])
    loaded = list(catalogue.rules)
    if everything:
        write_output(_list_all(catalogue, fmt == ListFormat.json), None)
        return
    if fmt == ListFormat.json:
        items = [{"id": r.id, "title": r.spec.title, "severity": r.spec.severity, "category": r.spec.category,
                  "aliases": r.spec.aliases, "purpose": r.spec.applies_to.purpose, "flavors": r.spec.applies_to.flavors,
                  "references": r.spec.references, "examples": len(r.spec.examples), "file": r.path,
                  "generated": r.id in catalogue.generated} for r in loaded]
        write_output(json.dumps({"rules": items}, indent=2) + "\n", None)
        return
    from advisor.commands.options import terminal_width
    from advisor.render.layout import table

    lines = table(["ID", "SEVERITY", "CATEGORY", "TITLE"],
                  [[r.id, r.spec.severity, r.spec.category, r.spec.title] for r in loaded], terminal_width(), ("  ",))
    from advisor.rules.symptoms import is_symptom

    symptoms = sum(1 for r in loaded if r.id in catalogue.generated and is_symptom(r))
    risky = len(catalogue.generated) - symptoms
    made = f" ({risky} generated from risky values, {symptoms} from symptoms)" if catalogue.generated else ""
    from advisor.render.layout import wrap

    write_output("\n".join(lines) + "\n" + wrap(f"{len(loaded)} rules{made}", width=terminal_width()) + "\n", None)


@rules_app.command("lint")
def lint(
    directory: Annotated[Optional[str], typer.Argument(help="Rule directory to check (default: the built-in catalogue).")] = None,
) -> None:
    """Validate catalogue files (rules, sizers, checks) and run every embedded example; exit 4 on a malformed file, 1 on a failing example."""
    from advisor.rules.lint import lint_rules

    ok, text = lint_rules(directory)
    write_output(text, None)
    if not ok:
        raise typer.Exit(1)


class PageFormat(str, Enum):
    text = "text"
    markdown = "markdown"


def _page(markdown: str, fmt: "PageFormat") -> str:
    """The page for a terminal (text: no Markdown syntax, wrapped to the terminal's width), or the
    Markdown of docs/ as it is."""
    if fmt == PageFormat.markdown:
        return markdown
    from advisor.commands.options import terminal_width, use_color
    from advisor.render.page_terminal import to_terminal

    return to_terminal(markdown, width=terminal_width(), color=use_color())


def explain(
    rule_id: Annotated[str, typer.Argument(help="The id of a rule, a sizer (sizing.buffer-pool) or a checklist check "
                                                "(sysbench-tls); `advisor rules list --all` lists them.")],
    rules: RulesDirs = None,
    fmt: Annotated[PageFormat, typer.Option("--format", "-f", help="text (default: for a terminal) or markdown (the page "
                                                                   "as in docs/).")] = PageFormat.text,
) -> None:
    """Explain a rule, sizer, checklist check or watch verdict: what it checks, why, an example, the fix."""
    import difflib

    from advisor.errors import UsageError
    from advisor.render.pages import entry_page
    from advisor.rules.loader import load_entries

    catalogue = load_entries(rules or [])
    entry = catalogue.find(rule_id)
    if entry is not None:
        write_output(_page(entry_page(entry, catalogue.variables), fmt), None)
        return
    from advisor.watch.verdicts import load_verdicts

    verdicts = load_verdicts()
    for v in verdicts:
        if rule_id == v.id:
            from advisor.render.watch_pages import render_verdict_doc

            write_output(_page(render_verdict_doc(v), fmt), None)
            return
    close = difflib.get_close_matches(rule_id, [e.id for e in catalogue.entries()] + [v.id for v in verdicts], n=3)
    raise UsageError(f"no rule, sizer, checklist check or watch verdict with id {rule_id!r}.",
                     (f"did you mean {', '.join(close)}? " if close else "") + "`advisor rules list --all` shows every id.")


def _list_all(catalogue, as_json: bool) -> str:  # type: ignore[no-untyped-def]
    import json

    from advisor.rules.entries import kind_of
    from advisor.watch.verdicts import load_verdicts

    rows = [(kind_of(e), e.id, e.title, e.path) for e in catalogue.entries()]
    rows += [("verdict", v.id, v.spec.title, v.path) for v in load_verdicts()]
    if as_json:
        return json.dumps({"entries": [{"kind": k, "id": i, "title": t, "file": p} for k, i, t, p in rows]}, indent=2) + "\n"
    from advisor.commands.options import terminal_width
    from advisor.render.layout import table

    lines = table(["KIND", "ID", "TITLE"], [[k, i, t] for k, i, t, _ in rows], terminal_width(), (" ", "  "), key=1)
    counts = {k: sum(1 for r in rows if r[0] == k) for k in ("rule", "sizer", "check", "verdict")}
    return "\n".join(lines) + (f"\n{counts['rule']} rules, {counts['sizer']} sizers, {counts['check']} checklist checks, "
                               f"{counts['verdict']} watch verdicts\n")
