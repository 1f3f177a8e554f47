"""One home per variable (issue 23 §1, STYLE.md §21): everything the advisor knows about a server variable
is its catalogue record (advisor/knowledge: variables.toml / generated-*.json, risky.toml, traits.toml),
read through advisor.knowledge.catalogue.VariableCatalogue. No module outside advisor/knowledge keeps a
Python table of per-variable facts: this test reads every module under src/advisor (outside knowledge/)
and fails on a dict, set, frozenset, tuple or list literal with three or more keys or items that are
catalogue variable names. A table that is not about the variables themselves stays only with its reason
in ALLOWED (keyed by file and the name the literal is bound to)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from advisor.knowledge import default_catalogue
from advisor.rules.schema import CATEGORIES

SRC = Path(__file__).resolve().parents[2] / "src" / "advisor"
MIN_NAMES = 3

# (path under src/advisor, the name the literal is bound to) -> why it is not a per-variable fact
ALLOWED: dict[tuple[str, str], str] = {
    ("watch/session.py", "START_VARIABLES"):
        "the variables one cheap query reads before the watch's first sample (locality and the live header): "
        "a statement's column list, not facts about the variables",
    ("dumps/rows.py", "VARIABLE_MARKERS"):
        "names that tell a variables dump from a status dump: a parsing heuristic over common names, not a fact "
        "about any of them",
    ("mycnf/trial.py", "PATH_OPTIONS"):
        "where the throwaway trial server puts each path inside its temp dir: the trial's mechanics",
    ("mycnf/trial.py", "ALWAYS"): "the paths the trial server always redirects into its temp dir",
    ("mycnf/trial.py", "TLS_PATH_OPTIONS"): "the certificate files the trial server drops (they are the target's)",
    ("mycnf/trial.py", "TLS_OPTIONS"): "the options the trial server tries without TLS",
    ("mycnf/trial.py", "MEMORY_OPTIONS"): "the buffers the trial server shrinks to start on this machine",
    ("mycnf/trial.py", "trial_overrides"): "the trial's own log files, which it always writes",
    ("mycnf/validate.py", "STARTUP_OPTIONS"): "validate's wording for start-up options and paths it does not check",
    ("mycnf/verify.py", "_differs_note"):
        "one mechanism (the descriptor limit) in one sentence, naming the three settings it lowers",
    ("compare/judge.py", "keys"): "the three facts that together identify one server instance",
    ("rules/checks/manual.py", "RECORDED_VARIABLES"): "the settings a benchmark report records: a check's content",
    ("rules/examples.py", "doc"): "keys of the snapshot's target model (port, version), not variables",
}


def _bound_name(parents: dict[ast.AST, ast.AST], node: ast.AST) -> str:
    """The assignment target a literal is bound to, else the enclosing function's name."""
    cur: ast.AST | None = node
    while cur is not None:
        if isinstance(cur, (ast.Assign, ast.AnnAssign)):
            target = cur.targets[0] if isinstance(cur, ast.Assign) else cur.target
            if isinstance(target, ast.Name):
                return target.id
        if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return cur.name
        cur = parents.get(cur)
    return "<module>"


def per_variable_tables() -> dict[tuple[str, str], list[str]]:
    names = set(default_catalogue().names())
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("knowledge/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                items = [k for k in node.keys if k is not None]
            elif isinstance(node, (ast.Set, ast.Tuple, ast.List)):
                items = list(node.elts)
            else:
                continue
            hits = [k.value for k in items if isinstance(k, ast.Constant) and isinstance(k.value, str)
                    and k.value.lower() in names]
            if len(hits) >= MIN_NAMES:
                found.setdefault((rel, _bound_name(parents, node)), []).extend(hits)
    return found


def test_no_module_keeps_its_own_table_of_variables():
    stray = {k: v for k, v in per_variable_tables().items() if k not in ALLOWED}
    assert not stray, ("tables of per-variable facts outside the catalogue; move them into "
                       "src/advisor/knowledge/traits.toml (VariableCatalogue.traits) or justify them in ALLOWED: "
                       + "; ".join(f"{p} {n}: {', '.join(v[:5])}" for (p, n), v in sorted(stray.items())))


def test_every_allowlist_entry_is_still_needed_and_justified():
    found = per_variable_tables()
    assert [k for k in ALLOWED if k not in found] == []
    assert all(len(why) >= 20 for why in ALLOWED.values())


def test_traits_use_the_catalogue_categories():
    cat = default_catalogue()
    bad = {n: cat.traits(n).category for n in cat.traits_names()
           if cat.traits(n).category not in CATEGORIES + ("uncategorised",)}
    assert bad == {}


def test_a_variable_without_a_category_says_why():
    cat = default_catalogue()
    t = cat.traits("no_such_variable_at_all")
    assert (t.category, t.category_reason) == ("uncategorised", "no_such_variable_at_all is not in the variable catalogue")
    known = next(n for n in cat.names() if not n.startswith("tidb_") and n not in cat.traits_names())
    assert "has no category" in cat.traits(known).category_reason
    assert cat.traits("innodb_flush_log_at_trx_commit").category_reason == ""


@pytest.mark.parametrize("name", ["build_id", "version_compile_os", "hostname", "datadir", "server_uuid"])
def test_read_only_identity_and_version_variables_are_never_fix_targets(name):
    t = default_catalogue().traits(name)
    assert not t.fix_target and t.not_written_why


def test_every_risky_variable_has_a_category():
    cat = default_catalogue()
    missing = [n for n, entries in cat.risky_entries().items()
               if any(not getattr(e, "category", None) for e in entries) and cat.traits(n).category not in CATEGORIES]
    assert missing == []


# ------------------------------------------------------------------ one opinion per variable (rules lint)

ROOT = SRC.parents[1]


def test_builtin_rules_give_no_second_opinion():
    from advisor.rules.catalogue import second_opinions
    from advisor.rules.loader import load_entries

    c = load_entries()
    made = set(c.generated)
    assert second_opinions([r for r in c.rules if r.id not in made], [r for r in c.rules if r.id in made]) == []


def test_lint_refuses_a_rule_judging_a_risky_variable_without_supersedes(tmp_path):
    from advisor.rules.lint import lint_rules

    src = (ROOT / "rules/memory/sort-buffer-oversized.toml").read_text()
    mine = src.replace('id = "sort-buffer-oversized"', 'id = "my-sort-check"')
    (tmp_path / "mine.toml").write_text(mine.replace('supersedes = ["sort_buffer_size"]\n', ""))
    ok, text = lint_rules(str(tmp_path))
    assert not ok
    assert "(my-sort-check)" in text and "judges sort_buffer_size, which risky.toml judges too" in text
    assert 'add supersedes = ["sort_buffer_size"]' in text
    (tmp_path / "mine.toml").write_text(mine)
    assert lint_rules(str(tmp_path))[0]
    (tmp_path / "mine.toml").write_text(mine.replace('supersedes = ["sort_buffer_size"]',
                                                     'supersedes = ["sort_buffer_size", "sort_buffer_size.nope"]'))
    ok, text = lint_rules(str(tmp_path))
    assert not ok and "supersedes 'sort_buffer_size.nope', which is no risky-values entry" in text


def test_a_superseding_rule_that_fired_takes_the_entry_s_place():
    from advisor.rules.loader import load_entries

    c = load_entries()
    made = [r for r in c.rules if r.id in set(c.generated) and r.variable == "sort_buffer_size"]
    assert made and all("sort-buffer-oversized" in r.defers_to for r in made)
