"""Imports go down, never around (STYLE 17; docs/architecture.md draws the floors).

Reads every import of every module under src/advisor with `ast`, function-local and TYPE_CHECKING ones
included (and the module names a module hands to importlib.import_module), and checks:

- no import cycle between modules;
- the core (the rules engine, derived facts, formulas, operators, schema, sizing, checklist checks, the
  variable catalogue's query model, the sysbench model) reaches no I/O: not advisor.collect, not the
  loaders or their cache, not PyMySQL, subprocess, socket, files, clocks, through any chain of imports,
  and calls no builtin open();
- renderers (advisor.render) never reach advisor.collect;
- collectors (advisor.collect) never reach the rules;
- nothing imports the CLI (advisor.cli, advisor.commands) except the CLI;
- every module sits on a floor of FLOORS and imports only its own floor and those below.

A module that is on no floor yet (a new package) fails the last test with the floor to add it to.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PKG = SRC / "advisor"

# Lowest first. A module may import modules of its own floor and of the floors below it.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("advisor", "advisor.errors", "advisor.inputs", "advisor.units", "advisor.versions", "advisor.severity", "advisor.measure", "advisor.histogram")),
    ("model", ("advisor.snapshot", "advisor.plainmodel", "advisor.sysbench", "advisor.knowledge.schema", "advisor.knowledge.defaults",
               "advisor.knowledge.catalogue", "advisor.knowledge.rulecheck", "advisor.knowledge.values",
               "advisor.knowledge.merged", "advisor.knowledge.plain", "advisor.data")),
    ("core", ("advisor.rules", "advisor.report", "advisor.checklist", "advisor.mycnf",
              "advisor.compare",  # judging the differences between snapshots handed in
              "advisor.rollup",  # the fleet roll-up over results handed in
              # watch: the series' facts and the sysbench-output parser are judgements over data handed in
              "advisor.watch.model", "advisor.watch.facts", "advisor.watch.sysbench_out")),
    ("edge", ("advisor.cache", "advisor.codecache", "advisor.resources", "advisor.knowledge", "advisor.rules.loader", "advisor.rules.lint", "advisor.collect",
              "advisor.optionfile",  # the one option-file reader (client options and mycnf)
              "advisor.mycnf.cnf", "advisor.mycnf.verify", "advisor.mycnf.validate", "advisor.mycnf.trial",
              "advisor.dumps",  # reading a dump into a Snapshot is a collector
              "advisor.inventory",  # reading Ansible inventories and DSNs (may run ansible-inventory)
              # watch: loading the verdicts, and sampling a server and its hosts
              "advisor.watch.verdicts", "advisor.watch.procfs", "advisor.watch.counters", "advisor.watch.sampler",
              "advisor.watch.server", "advisor.watch.hosts", "advisor.watch.hostsetup", "advisor.watch.command")),
    ("orchestration", ("advisor.api", "advisor.fleet", "advisor.compare.run",
                       "advisor.watch")),  # a watch session: audit at the start, sample, judge
    ("render", ("advisor.render", "advisor.schemas")),
    ("cli", ("advisor.cli", "advisor.commands", "advisor.__main__")),
]

# The pure core: evaluating rules, sizers and checks over a snapshot that was handed in.
CORE = ("advisor.rules", "advisor.knowledge.catalogue", "advisor.knowledge.schema", "advisor.knowledge.defaults",
        "advisor.knowledge.rulecheck", "advisor.measure", "advisor.sysbench", "advisor.checklist", "advisor.report",
        "advisor.snapshot", "advisor.units", "advisor.versions", "advisor.mycnf.model", "advisor.mycnf.plan",
        "advisor.mycnf.compare", "advisor.mycnf.profile", "advisor.knowledge.values", "advisor.knowledge.merged",
        "advisor.watch.model", "advisor.watch.facts", "advisor.watch.sysbench_out", "advisor.compare",
        "advisor.rollup", "advisor.severity")
NOT_CORE = ("advisor.rules.loader", "advisor.rules.lint", "advisor.compare.run")
# What the core must not reach: I/O modules of advisor and of the standard library, drivers, clocks.
CORE_FORBIDDEN = ("advisor.collect", "advisor.cache", "advisor.api", "advisor.fleet", "advisor.render",
                  "advisor.commands", "advisor.cli", "advisor.rules.loader", "advisor.rules.lint",
                  "pymysql", "subprocess", "socket", "ssl", "os", "pathlib", "shutil", "tempfile", "pickle", "io",
                  "glob", "tomllib", "tomli", "importlib", "time", "datetime", "urllib", "http", "threading",
                  "concurrent", "select", "signal")


def _name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    return {_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _targets(module: str, path: Path, tree: ast.AST) -> set[str]:
    known = modules()
    out: set[str] = set()
    dynamic = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node, path.name == "__init__.py")
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.add(arg.value)
            else:
                dynamic = True
    if dynamic:  # module names kept in data (advisor.cli's command table) count as imports
        out.update(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                   and n.value in known)
    out.discard(module)
    return out


@lru_cache(maxsize=1)
def graph() -> dict[str, frozenset[str]]:
    """module -> every module it imports (advisor modules and top-level names of the others)."""
    known = modules()
    g: dict[str, frozenset[str]] = {}
    for name, path in known.items():
        targets = _targets(name, path, ast.parse(path.read_text(encoding="utf-8")))
        g[name] = frozenset(t if t in known or not t.startswith("advisor") else _owner(t) for t in targets)
    return g


def _owner(dotted: str) -> str:
    """The module that defines `dotted` (advisor.x.y.Name -> advisor.x.y)."""
    known = modules()
    while dotted and dotted not in known:
        dotted = dotted.rpartition(".")[0]
    return dotted


def _top(name: str) -> str:
    return name if name.startswith("advisor") else name.split(".")[0]


def reach(module: str) -> dict[str, list[str]]:
    """Every module `module` reaches through imports, with one chain that gets there."""
    g = graph()
    seen: dict[str, list[str]] = {module: [module]}
    todo = [module]
    while todo:
        cur = todo.pop()
        for nxt in sorted(g.get(cur, ())):
            nxt = _top(nxt)
            if nxt not in seen:
                seen[nxt] = seen[cur] + [nxt]
                if nxt in g:
                    todo.append(nxt)
    return seen


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def floor_of(name: str) -> int | None:
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(FLOORS):
        for p in prefixes:  # "advisor" itself is the package's __init__, not a prefix of every module
            if (name == p or (p != "advisor" and name.startswith(p + "."))) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def core_modules() -> list[str]:
    return [m for m in modules() if _under(m, CORE) and not _under(m, NOT_CORE)]


# ---------------------------------------------------------------- the tests

def _cycles() -> list[list[str]]:
    g = {m: {t for t in ts if t in modules()} for m, ts in graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_every_kind_of_import():
    g = graph()
    assert "advisor.rules.engine" in g["advisor.api"] or "advisor.rules.engine" in reach("advisor.api")
    assert "advisor.commands.audit" in g["advisor.cli"], "module names in advisor.cli's command table are imports"
    assert "pymysql" in {_top(t) for t in g["advisor.collect.mysql"]}, "function-local imports count"


def test_no_import_cycles():
    assert _cycles() == []


@pytest.mark.parametrize("module", core_modules())
def test_core_reaches_no_io(module):
    bad = {m: chain for m, chain in reach(module).items() if _under(m, CORE_FORBIDDEN)}
    assert not bad, "\n".join(f"{module} reaches {m}: {' -> '.join(chain)}" for m, chain in sorted(bad.items()))
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    opens = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "open"]
    assert not opens, f"{module} calls open() at line(s) {opens}"


def test_importing_the_core_loads_no_io_module():
    """The same at run time: importing every core module loads no collector, cache, driver or subprocess."""
    # What the third-party libraries the core stands on load by themselves is not the core's doing:
    # some pydantic_core releases load asyncio and with it subprocess. socket is not on the list:
    # pydantic's validators load it when a model needs them; the static test keeps our own code off it.
    code = ("import sys\nimport pydantic, pydantic_core\nbase = set(sys.modules)\n"
            + "".join(f"import {m}\n" for m in core_modules())
            + "print('\\n'.join(sorted(set(sys.modules) - base)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    loaded = [m for m in out if _under(m, ("advisor.collect", "advisor.cache", "advisor.api", "advisor.render",
                                           "pymysql", "subprocess"))]
    assert loaded == []


@pytest.mark.parametrize("module", [m for m in modules() if _under(m, ("advisor.render",))])
def test_renderers_reach_no_collector(module):
    bad = {m: chain for m, chain in reach(module).items() if _under(m, ("advisor.collect",))}
    assert not bad, "\n".join(" -> ".join(chain) for chain in bad.values())


@pytest.mark.parametrize("module", [m for m in modules() if _under(m, ("advisor.collect",))])
def test_collectors_reach_no_rules(module):
    bad = {m: chain for m, chain in reach(module).items() if _under(m, ("advisor.rules",))}
    assert not bad, "\n".join(" -> ".join(chain) for chain in bad.values())


def test_only_the_cli_imports_the_cli():
    cli = ("advisor.cli", "advisor.commands", "advisor.__main__")
    bad = [(m, t) for m, ts in graph().items() if not _under(m, cli) for t in ts if _under(t, cli)]
    assert bad == []


def test_every_module_imports_only_its_floor_and_below():
    problems = []
    for m, ts in sorted(graph().items()):
        f = floor_of(m)
        if f is None:
            problems.append(f"{m} is on no floor: add it to FLOORS in tests/unit/test_layering.py "
                            "(and to the picture in docs/architecture.md)")
            continue
        for t in sorted(ts):
            tf = floor_of(t) if t.startswith("advisor") else None
            if tf is not None and tf > f:
                problems.append(f"{m} ({FLOORS[f][0]}) imports {t} ({FLOORS[tf][0]})")
    assert problems == [], "\n".join(problems)


def test_floors_match_the_picture_in_the_docs():
    doc = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for name, _ in FLOORS:
        assert re.search(rf"\b{name}\b", doc), f"docs/architecture.md does not name the floor {name!r}"


def test_an_audit_from_the_cache_loads_no_sizer_or_check_code(tmp_path):
    """Start-up: an audit reads the rules from the cache and never imports the other kinds' schemas and
    code (the sizers, the checklist checks, the sysbench model); they load on first use."""
    code = ("import sys\nfrom advisor import api\napi.audit(api.demo_snapshot(), 'production')\n"
            "print('\\n'.join(sorted(sys.modules)))\n")
    env = {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(SRC)}
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)  # fills it
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    loaded = [m for m in out.split() if _under(m, ("advisor.rules.entries", "advisor.rules.sizers",
                                                    "advisor.rules.checks", "advisor.sysbench", "advisor.checklist"))]
    assert loaded == []


MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def test_no_module_over_600_lines_and_no_function_over_80():
    problems = []
    for name, path in sorted(modules().items()):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MAX_MODULE_LINES:
            problems.append(f"{name}: {text.count(chr(10))} lines (at most {MAX_MODULE_LINES}; split it by topic)")
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES:
                problems.append(f"{name}.{n.name} (line {n.lineno}): {n.end_lineno - n.lineno + 1} lines "
                                f"(at most {MAX_FUNCTION_LINES})")
    assert problems == [], "\n".join(problems)
