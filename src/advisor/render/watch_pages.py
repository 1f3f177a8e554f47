"""Verdict pages generated from rules/watch/*.toml: docs/watch/<id>.md, docs/watch/README.md,
docs/watch/_reference.md (the watch facts), and `advisor explain <verdict id>`. Written with every
other generated page by `python -m advisor.render.pages docs` (advisor.render.pages.pages takes them
from verdict_pages) or `python3 -m pytest --update-golden`; a test fails when a page is stale."""

from __future__ import annotations

from typing import Optional

from advisor.render.page_text import GENERATED, describe, paragraph, toml_value
from advisor.watch.verdicts import EVALUATOR_FACTS, Verdict, load_verdicts, run_example

HEADER = "<!-- generated from {path} by `python -m advisor.render.pages`; do not edit -->"
KIND_TEXT = {"bottleneck": "a bottleneck", "no-load": "no load to judge", "none-found": "no bottleneck found"}


def render_verdict_doc(v: Verdict) -> str:
    s = v.spec
    out = [HEADER.format(path=v.path), "", f"# {s.id}: {s.title}", "",
           f"Watch verdict ({KIND_TEXT[s.kind]}) · severity **{s.severity}** · rank {s.rank} (lower ranks lead when "
           "several verdicts fire)", "", "## What it checks", ""]
    if v.applies_when is not None:
        out += ["Judged only when:", "", describe(v.applies_when), ""]
    out += ["Fires when:", "", describe(v.when), ""]
    if s.overrides:
        out += ["The wording changes when:", ""] + [describe(c) for c in v.override_whens] + [""]
    out += ["## Why it matters", "", paragraph(s.rationale), ""]
    fired = next((ex for ex in s.examples if ex.expect == "fired"), None)
    if fired is not None:
        res = run_example(v, fired)
        out += ["## Example", "", "With these facts of a watch:", "", "```toml"]
        out += [f'"{k}" = {toml_value(x)}' for k, x in fired.facts.items()]
        out += ["```", ""]
        f = res.result.outcome.finding
        if f is not None:
            out += ["the watch reports:", "", "> " + f.message, ""]
    quiet = next((ex for ex in s.examples if ex.expect in ("passed", "not_applicable")), None)
    if quiet is not None:
        res = run_example(v, quiet)
        out += [f"It stays quiet for example `{quiet.name}`: {res.result.outcome.reason}.", ""]
    out += ["## Fix", "", paragraph(s.fix), ""]
    if s.causes:
        out += ["## Configuration causes", "",
                "Audit rules whose findings, when the audit at the start of the watch fires them, are shown under "
                "this verdict as its likely cause:", ""]
        out += [f"- [`{c}`](../rules/{c}.md)" for c in s.causes] + [""]
    out += ["## References", ""] + [f"- <{r}>" for r in s.references]
    return "\n".join(out).rstrip() + "\n"


def render_reference() -> str:
    from advisor.watch.facts import FACTS

    out = [GENERATED, "",
           "# Watch facts", "",
           "What a verdict's `when`, `message`, `fix` and `checks` can name (besides every audit fact: `var.*`, "
           "`status.*`, `host.*`, ...). Computed over the loaded intervals of a series by advisor.watch.facts; "
           "values are medians over those intervals unless the description says otherwise.", "",
           "| fact | unit | what |", "|---|---|---|"]
    out += [f"| `{f.name}` | {f.unit} | {' '.join(f.doc.split())} |" for f in FACTS.values()]
    out += [f"| `{name}` | | {doc} |" for name, doc in EVALUATOR_FACTS.items()]
    out += ["| `audit.fired` | list | ids of the audit rules that fired at the start of the watch |"]
    return "\n".join(out) + "\n"


def index_page(verdicts: list[Verdict]) -> str:
    index = [GENERATED, "", "# Watch verdicts", "",
             "In the order they lead when several fire (rank). See ../watch.md for the command.", "",
             "| id | kind | title |", "|---|---|---|"]
    index += [f"| [{v.id}]({v.id}.md) | {v.spec.kind} | {v.spec.title} |" for v in verdicts]
    return "\n".join(index) + "\n"


def verdict_pages(verdicts: Optional[list[Verdict]] = None) -> dict[str, str]:
    """Every page of the watch verdicts, by its path under docs/."""
    verdicts = load_verdicts() if verdicts is None else verdicts
    out = {f"watch/{v.id}.md": render_verdict_doc(v) for v in verdicts}
    out["watch/README.md"] = index_page(verdicts)
    out["watch/_reference.md"] = render_reference()
    return out

