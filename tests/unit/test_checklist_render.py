"""Rendering the checklist: golden files (tests/golden/checklist/*.md, *.json), the Markdown is a real
checklist (parsed with markdown-it-py), and the template holds no logic and fails on undefined values.

Regenerate the golden files only on purpose:  python3 -m pytest tests/unit/test_checklist_render.py --update-golden
The golden cases use the five seed rules only (GOLDEN_RULES), so rules added to the catalogue later do
not change them; test_checklist_rules.py covers every rule.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2
import pytest
from markdown_it import MarkdownIt

from advisor.checklist import build
from advisor.knowledge import default_catalogue
from advisor.render.checklist import TEMPLATE, render_json, render_markdown, view_model
from advisor.render.templates import environment
from advisor.report import Report
from advisor.rules.engine import evaluate
from advisor.rules.loader import load_entries, load_rules
from advisor.snapshot import Snapshot
from advisor.sysbench import LocalSysbench, parse_command

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "checklist"
INPUTS = GOLDEN / "inputs"
GOLDEN_RULES = ("network-route-slow-link", "nvme-client-no-plp", "redo-log-undersized", "sort-buffer-oversized",
                "tls-in-use")
DEBIAN = LocalSysbench(path="/usr/bin/sysbench", version="1.0.20", library="libmariadb",
                       library_file="libmariadb.so.3", library_version="3.3.20")
MYSQL_1020 = LocalSysbench(path="/usr/bin/sysbench", version="1.0.20", library="libmysqlclient",
                           library_file="libmysqlclient.so.21", library_version="8.0.36")
GUIDE_CONFIG = ("mysql-host=172.16.30.33\nmysql-port=4000\nmysql-user=root\nmysql-password=password\n"
                "mysql-db=sbtest\ntime=600\nthreads=16\nreport-interval=10\ndb-driver=mysql\n")

CASES = {
    # name: (snapshot, sysbench command or None ("PORT" = the snapshot's port), local sysbench, config text)
    "default-acceptance": ("default", "sysbench oltp_read_write --threads=200 --mysql-host=127.0.0.1 --mysql-port=PORT "
                                      "--tables=10 --table-size=10000000 --time=600 run", DEBIAN, None),
    "default-no-sysbench": ("default", None, None, None),
    "tls-seed-libmysqlclient": ("tls", "sysbench oltp_read_write --mysql-host=127.0.0.1 --mysql-port=PORT "
                                       "--mysql-user=sbtest --mysql-password=Sb-pass-9x --tables=8 --table-size=1000000 "
                                       "--threads=64 --time=300 --report-interval=10 --rand-type=uniform run",
                                MYSQL_1020, None),
    "prepared-point-select": ("prepared", "sysbench oltp_point_select --threads=16 --mysql-host=127.0.0.1 "
                                          "--mysql-port=PORT --mysql-user=root --tables=2 --table-size=100000 --time=300 "
                                          "--report-interval=1 --rand-type=uniform run", DEBIAN, None),
    "pingcap-guide-config": ("default", "sysbench --config-file=config oltp_point_select --tables=32 "
                                        "--table-size=10000000 run", DEBIAN, GUIDE_CONFIG),
}


def _rules():
    rules = [r for r in load_rules() if r.id in GOLDEN_RULES]
    assert sorted(r.id for r in rules) == sorted(GOLDEN_RULES), "a seed rule was renamed or removed: update GOLDEN_RULES"
    return rules


def make(case: str):
    name, line, local, config = CASES[case]
    snap = Snapshot.model_validate(json.loads((INPUTS / f"mariadb-10.11-{name}.json").read_text()))
    rules = _rules()
    outcomes = evaluate(snap, rules, "benchmark", catalogue=default_catalogue())
    report = Report(target=snap.target, purpose="benchmark", outcomes=outcomes, missing=list(snap.missing),
                    source=f"snapshot inputs/mariadb-10.11-{name}.json", collected_at=snap.collected_at)
    cmd = parse_command(line.replace("PORT", str(snap.target.port)), config_text=config) if line else None
    return build(snap, report, load_entries().with_rules(rules), cmd, local, source=report.source)


def _normalised_json(cl) -> str:
    d = json.loads(render_json(cl))
    d.pop("advisor_version")
    return json.dumps(d, indent=2, ensure_ascii=False) + "\n"


JSON_CASES = ("default-acceptance", "pingcap-guide-config")


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_markdown(case, golden):
    golden.check(GOLDEN / f"{case}.md", render_markdown(make(case)))


@pytest.mark.parametrize("case", JSON_CASES)
def test_golden_json(case, golden):
    golden.check(GOLDEN / f"{case}.json", _normalised_json(make(case)))


def test_no_stale_golden_files(golden):
    golden.stale([*GOLDEN.glob("*.md"), *GOLDEN.glob("*.json")],
                 [GOLDEN / "README.md"] + [GOLDEN / f"{c}.md" for c in CASES] + [GOLDEN / f"{c}.json" for c in JSON_CASES])


# ---------------------------------------------------------------- the Markdown is a checklist

_BOX = re.compile(r"^\[( |x)\] \*\*.+\*\* \((pass|FAIL|unknown|manual)\)$")


def checklist_items(md: str) -> list[dict]:
    """Top-level items of the phase sections, parsed with markdown-it: their first line and sub-bullets."""
    tokens = MarkdownIt("commonmark").parse(md)
    out: list[dict] = []
    section = None
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open" and t.tag == "h2":
            section = tokens[i + 1].content
        if t.type == "list_item_open" and t.level == 1 and section != "Notes":
            first = tokens[i + 2].content  # paragraph_open, inline
            subs: list[str] = []
            depth = 1
            j = i + 1
            while depth:
                if tokens[j].type == "list_item_open":
                    depth += 1
                elif tokens[j].type == "list_item_close":
                    depth -= 1
                elif tokens[j].type == "inline" and tokens[j].level > 2:
                    subs.append(tokens[j].content)
                j += 1
            out.append({"section": section, "first": first, "subs": subs})
            i = j
            continue
        i += 1
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_markdown_is_a_checklist_with_evidence_or_instruction(case):
    cl = make(case)
    md = render_markdown(cl)
    items = checklist_items(md)
    assert len(items) == len(cl.items)
    for it, model in zip(items, cl.items):
        m = _BOX.match(it["first"])
        assert m, it["first"]
        assert (m.group(1) == "x") == (model.status == "pass")
        assert any(s.startswith("Evidence: ") and len(s) > 12 for s in it["subs"]) or (
            model.status == "manual" and any(s.startswith("Command: ") for s in it["subs"])), it
        if model.status == "manual":
            assert any(s.startswith("Command: ") for s in it["subs"]) and any(s.startswith("Do: ") for s in it["subs"])
    sections = [t.content for t in MarkdownIt().parse(md) if t.type == "inline" and t.map and md.splitlines()[t.map[0]].startswith("## ")]
    assert sections[:1] and all(s in ("Environment (hosts, OS, network)", "Server configuration", "Data", "The run",
                                      "Notes") for s in sections)


def test_password_is_masked_in_every_rendering():
    cl = make("tls-seed-libmysqlclient")
    for text in (render_markdown(cl), render_json(cl)):
        assert "Sb-pass-9x" not in text and "--mysql-password=***" in text
    cl = make("pingcap-guide-config")
    for text in (render_markdown(cl), render_json(cl)):
        assert "=password" not in text and '"password"' not in text


def test_json_contract():
    d = json.loads(render_json(make("default-acceptance")))
    assert d["schema"] == "advisor.checklist/1"
    for it in d["items"]:
        assert {"id", "phase", "status", "title", "evidence", "fix"} <= set(it)
        assert it["status"] in ("pass", "fail", "unknown", "manual", "note")
        assert it["phase"] in ("environment", "server", "data", "run")
    assert d["summary"] == {s: sum(1 for it in d["items"] if it["status"] == s) for s in ("pass", "fail", "unknown", "manual", "note")}


# ---------------------------------------------------------------- the template

def test_template_has_no_logic_beyond_loops():
    from importlib.resources import files

    text = (files("advisor.templates") / TEMPLATE).read_text(encoding="utf-8")
    statements = re.findall(r"{%-?\s*(\w+)", text)
    assert set(statements) <= {"for", "endfor"}, statements


def test_template_fails_on_undefined_values():
    vm = view_model(make("default-no-sysbench"))
    del vm["footer"]
    with pytest.raises(jinja2.UndefinedError):
        environment().get_template(TEMPLATE).render(**vm)
    vm = view_model(make("default-no-sysbench"))
    del vm["phases"][0]["entries"][0]["box"]
    with pytest.raises(jinja2.UndefinedError):
        environment().get_template(TEMPLATE).render(**vm)
