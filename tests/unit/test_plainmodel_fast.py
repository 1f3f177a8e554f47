"""advisor.plainmodel.fast_validate (the exact check that spares an offline audit pydantic's import)
against the pydantic twin, the validator of record: on every snapshot document the repository holds
(snapshot files, every rule example's snapshot, every real dump imported and written out) and on
mutations of them, whatever the fast check accepts the twin accepts too, with the same values of
the same types; whatever it does not decide goes to the twin (Unsure), never a different answer."""

from __future__ import annotations

import copy
import json
import random
import tomllib
from pathlib import Path
from typing import Any, Iterator

import pytest

from advisor.dumps import import_snapshot
from advisor.plainmodel import SnapshotModel, Unsure, _from_twin, fast_validate, pydantic_twin
from advisor.rules.examples import example_doc
from advisor.rules.loader import load_entries
from advisor.snapshot import Snapshot

ROOT = Path(__file__).resolve().parents[2]
DUMPS = ROOT / "tests" / "fixtures" / "dumps"


def _files() -> list[Path]:
    out = []
    for top in ("src", "tests"):
        for p in sorted((ROOT / top).rglob("*.json")):
            try:
                doc = json.loads(p.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(doc, dict) and doc.get("schema_version") == 1 and "target" in doc:
                out.append(p)
    return out


def _imported() -> Iterator[tuple[str, dict[str, Any]]]:
    manifest = tomllib.loads((DUMPS / "manifest.toml").read_text(encoding="utf-8"))
    for name, m in manifest.items():
        base = DUMPS / name
        status = str(base / m["status"]) if "status" in m else None
        snap = import_snapshot(str(base / m["variables"]), status, flavor=m.get("flavor_arg"),
                               version=m.get("version_arg"), now="2026-01-01T00:00:00Z")
        yield f"import:{name}", json.loads(snap.to_json())


def _examples() -> Iterator[tuple[str, dict[str, Any]]]:
    for rule in load_entries().rules:
        for ex in rule.spec.examples or []:
            yield f"example:{rule.id}:{ex.name}", example_doc(ex)


def _documents() -> list[tuple[str, dict[str, Any]]]:
    docs = [(str(p.relative_to(ROOT)), json.loads(p.read_text(encoding="utf-8"))) for p in _files()]
    return docs + list(_imported()) + list(_examples())


DOCS = _documents()


def _typed(v: Any) -> Any:
    """A value with the type of every leaf, so 1 and 1.0 and True differ."""
    if isinstance(v, SnapshotModel):
        return (type(v).__name__, {k: _typed(x) for k, x in v.__dict__.items()})
    if isinstance(v, list):
        return [_typed(x) for x in v]
    if isinstance(v, dict):
        return {k: _typed(x) for k, x in v.items()}
    return (type(v).__name__, repr(v))


def _twin(doc: dict[str, Any]) -> Any:
    return _from_twin(pydantic_twin(Snapshot).model_validate(doc))


def test_the_corpus_is_what_the_repository_holds():
    kinds = {name.split(":")[0] if ":" in name else "file" for name, _ in DOCS}
    assert kinds == {"file", "import", "example"}
    assert sum(1 for n, _ in DOCS if n.startswith("example:")) >= 400  # one or more per rule, sizer and check


@pytest.mark.parametrize("name", [n for n, _ in DOCS if not n.startswith("example:")])
def test_a_snapshot_the_repository_holds_is_decided_by_the_fast_check_as_the_twin_decides(name):
    doc = dict(DOCS)[name]
    fast = fast_validate(Snapshot, copy.deepcopy(doc))  # these are all well-typed: none goes to the twin
    assert _typed(fast) == _typed(_twin(copy.deepcopy(doc)))
    assert fast == Snapshot.model_validate(copy.deepcopy(doc))


def test_every_rule_example_is_decided_by_the_fast_check_or_left_to_the_twin():
    decided = 0
    for name, doc in DOCS:
        if not name.startswith("example:"):
            continue
        try:
            fast = fast_validate(Snapshot, copy.deepcopy(doc))
        except Unsure:
            continue
        decided += 1
        assert _typed(fast) == _typed(_twin(copy.deepcopy(doc))), name
    assert decided >= 400


# what a leaf is changed to: the other JSON types, and the conversions pydantic makes (int for a
# float, 1 for True, "1" for 1, 1.0 for 1, huge ints)
def _variants(v: Any) -> list[Any]:
    base: list[Any] = [None, "", "x", 0, 1, -1, 1.0, 2.5, True, False, [], {}, 2 ** 60, "1", "ON"]
    if isinstance(v, bool):
        base += [int(v), str(v).lower()]
    elif isinstance(v, int):
        base += [float(v), str(v), v + 1]
    elif isinstance(v, float):
        base += [int(v), str(v)]
    elif isinstance(v, str):
        base += [v.upper(), v + " ", 5]
    return base


def _paths(doc: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(doc, dict):
        for k, x in doc.items():
            yield from _paths(x, at + (k,))
    elif isinstance(doc, list):
        for i, x in enumerate(doc):
            yield from _paths(x, at + (i,))


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def _mutations(doc: dict[str, Any], rng: random.Random, count: int) -> Iterator[dict[str, Any]]:
    paths = [p for p in _paths(doc) if p]
    for _ in range(count):
        path = rng.choice(paths)
        out = copy.deepcopy(doc)
        parent = _get(out, path[:-1])
        roll = rng.random()
        if roll < 0.15 and isinstance(parent, dict):
            del parent[path[-1]]  # a missing field (required or defaulted)
        elif roll < 0.25 and isinstance(parent, dict):
            parent[rng.choice(["extra", "Variables", "hostname2"])] = 1  # an unknown key
        else:
            parent[path[-1]] = rng.choice(_variants(_get(out, path)))
        yield out


def test_on_mutated_snapshots_the_fast_check_never_gives_another_answer_than_the_twin():
    from pydantic import ValidationError

    rng = random.Random(26)
    seeds = [doc for name, doc in DOCS if not name.startswith("example:")]
    seeds += [doc for name, doc in DOCS if name.startswith("example:")][::25]
    decided = unsure = 0
    for doc in seeds:
        for mutated in _mutations(doc, rng, 60):
            try:
                fast = fast_validate(Snapshot, copy.deepcopy(mutated))
            except Unsure:
                unsure += 1
                continue
            decided += 1
            try:
                twin = _twin(copy.deepcopy(mutated))
            except ValidationError as e:
                pytest.fail(f"the fast check accepted what the twin rejects: {e.errors()[0]}")
            assert _typed(fast) == _typed(twin)
    assert decided > 0 and unsure > 0  # both sides of the check were exercised


def test_a_document_the_fast_check_does_not_decide_still_gets_pydantics_error():
    from advisor.errors import SnapshotError
    from advisor.snapshot import load_snapshot

    doc = copy.deepcopy(dict(DOCS)["src/advisor/data/demo-seed-000.json"])
    doc["target"]["port"] = "not a port"
    with pytest.raises(Unsure):
        fast_validate(Snapshot, copy.deepcopy(doc))
    with pytest.raises(SnapshotError, match=r"target\.port: Input should be a valid integer"):
        load_snapshot(json.dumps(doc), "snap.json")
    doc["target"]["port"] = 3306.0  # pydantic converts this one: so does model_validate
    assert Snapshot.model_validate(copy.deepcopy(doc)).target.port == 3306
