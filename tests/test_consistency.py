"""One voice (issue 23 §3): the whole rule set, run on every snapshot the tests already have — the
bundled demo, the real public dumps of tests/fixtures/dumps/ (test_dumps_real.py) and the recorded
flavor sets of tests/fixtures/flavors/ (test_version_matrix.py, served over the real MySQL protocol
by tests/support/wire_server.py), the fuzz harness's snapshot seeds and the synthetic snapshots of
`mycnf --profile` for each profile flavor and a spread of releases, RAM, cores and disks — audited
with both purposes and turned into a my.cnf plan, must
speak with one voice. Each audit is checked for:

  (a) contradictions: two findings recommending different values or opposite directions for one
      variable, or a passed outcome that denies what a fired finding on the same variable claims;
  (b) broken message text: empty interpolation, "None", "nan", raw "{" / "}", doubled spaces or
      doubled punctuation;
  (c) one home per variable: at most one fired finding recommends a given variable;
  (d) fixes the target can take: every recommended value is accepted by the variable catalogue for
      the target's flavor and version (and TLS versions / collations by release; a variable the
      catalogue does not cover there is a violation too, as its value is unchecked), and a fix never
      calls a variable dynamic (SET GLOBAL / SET PERSIST) that is not, nor offers SET PERSIST
      where it does not exist;
  (e) mycnf never lists as "not changed" a variable that the same file changes, nor calls a variable
      the snapshot shows "an option the server does not know".

Each snapshot is evaluated once per purpose (module-level cache). A violation that is deliberate
is listed in KNOWN with its reason; anything else fails. `python tests/test_consistency.py` prints
the violations per check.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

import pytest

from advisor import api
from advisor.collect.connection import ConnectionOptions
from advisor.dumps import import_snapshot
from advisor.errors import UsageError
from advisor.mycnf.model import MycnfOptions
from advisor.render.mycnf import _standing_not_changed
from advisor.rules.schema import AllOf, AnyOf, Leaf
from advisor.units import parse_size
from advisor.versions import Version
from tests.support.wire_server import ReplayServer

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
DUMPS = HERE / "fixtures" / "dumps"
SETS_DIR = HERE / "fixtures" / "flavors"
DUMP_MANIFEST: dict[str, dict[str, Any]] = tomllib.loads((DUMPS / "manifest.toml").read_text(encoding="utf-8"))
SETS = sorted(p.name for p in SETS_DIR.iterdir() if (p / "variables.json").is_file())
# the fuzz harness's snapshot seeds (tests/fuzz/surfaces.py), as files users could hand to --snapshot
SEEDS = {p.name.split(".")[0]: p for p in (HERE.parent / "tests/fixtures/calibration/mariadb-10.11-tls-calibrated.snapshot.json",
                                            HERE.parent / "tests/fixtures/mycnf/mariadb-10.11-pitfalls.snapshot.json")}
# `mycnf --profile` inputs: (flavor, version, RAM, cores, disk), each release the profile accepts
PROFILES = {f"{f}-{v}-{ram >> 30}G-{disk}": (f, v, ram, cores, disk) for f, v, ram, cores, disk in (
    ("mysql", "5.7.44", 4 << 30, 2, "ssd"), ("mysql", "8.0.36", 64 << 30, 16, "nvme-plp"),
    ("mysql", "8.4.3", 16 << 30, 8, "hdd"), ("percona", "8.0.36", 32 << 30, 8, "ssd"),
    ("mariadb", "10.6", 8 << 30, 4, "nvme-client"), ("mariadb", "10.11", 64 << 30, 32, "nvme-plp"),
    ("mariadb", "11.4", 2 << 30, 2, "ssd"))}
CORPUS = (["demo"] + [f"dump:{n}" for n in sorted(DUMP_MANIFEST)] + [f"set:{n}" for n in SETS]
          + [f"seed:{n}" for n in sorted(SEEDS)] + [f"profile:{n}" for n in sorted(PROFILES)])
PURPOSES = ("production", "benchmark")
CHECKS = ("a", "b", "c", "d", "e")

# Deliberate exceptions: (check, corpus entry or "*", purpose or "*", a substring of the violation) -> reason.
KNOWN: dict[tuple[str, str, str, str], str] = {
    ("a", "*", "production", "binlog-retention-short passed (var.binlog_expire_logs_seconds is absent"):
        "not a contradiction: binlog-retention-short leaves expire_logs_days = 0 (never purged) to "
        "binlog-never-purged, and its pass reason names that 0; the check reads only the comparison's direction",
}


@lru_cache(maxsize=None)
def snapshot(name: str) -> Any:
    if name == "demo":
        return api.demo_snapshot()
    kind, _, rest = name.partition(":")
    if kind == "seed":
        return api.read_snapshot_file(str(SEEDS[rest]))
    if kind == "profile":
        from advisor.knowledge import default_catalogue
        from advisor.mycnf.profile import Profile, profile_snapshot

        flavor, version, ram, cores, disk = PROFILES[rest]
        return profile_snapshot(Profile(ram_bytes=ram, cores=cores, disk=disk, flavor=flavor, version=version,
                                        workload="oltp"), default_catalogue())
    if kind == "dump":
        m = DUMP_MANIFEST[rest]
        return import_snapshot(str(DUMPS / rest / m["variables"]), flavor=m.get("flavor_arg"),
                               version=m.get("version_arg"), now="2026-01-01T00:00:00Z")
    with ReplayServer.from_set(rest) as srv:
        return api.collect(ConnectionOptions(host="127.0.0.1", port=srv.port, user="root", password="",
                                             no_defaults=True), machine=False)


@lru_cache(maxsize=None)
def _catalogue() -> Any:
    return api.prepare("production")


@lru_cache(maxsize=None)
def audit(name: str, purpose: str) -> tuple[Any, Any]:
    """(assessment, my.cnf plan or None when mycnf does not support the flavor), made once."""
    a = api.assess(purpose, snapshot=snapshot(name).model_copy(deep=True), catalogue=_catalogue(), source="snapshot")
    try:
        plan = api.mycnf_of(a, MycnfOptions(purpose=purpose, source="snapshot"))
    except UsageError:  # mycnf refuses a flavor it does not write (TiDB): nothing to check there
        plan = None
    return a, plan


# --- helpers -------------------------------------------------------------------------------------------------

def _number(value: Any) -> Optional[float]:
    text = str(value).strip()
    try:
        return float(parse_size(text))
    except (ValueError, TypeError, Exception):
        pass
    if text.upper() in ("ON", "TRUE"):
        return 1.0
    if text.upper() in ("OFF", "FALSE"):
        return 0.0
    return None


def _norm(value: Any) -> str:
    n = _number(value)
    return repr(n) if n is not None else str(value).strip().lower()


def _direction(current: Any, value: Any) -> Optional[str]:
    a, b = _number(current), _number(value)
    if a is None or b is None or a == b:
        return None
    return "raise" if b > a else "lower"


def _fired(a: Any) -> list[Any]:
    return [o.finding for o in a.report.outcomes if o.status == "fired" and o.finding is not None]


def _current(a: Any, var: str) -> Any:
    return {k.lower(): v for k, v in a.snapshot.server.variables.items()}.get(var.lower())


# --- the checks: each returns a list of violation strings ---------------------------------------------------

def check_a(a: Any, plan: Any) -> list[str]:
    """Two findings recommending different values or opposite directions for one variable; a passed
    rule that declares a variable a fired finding recommends changing the same way it would."""
    out = []
    recs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for f in _fired(a):
        for var, val in f.recommendation.items():
            recs[var.lower()].append((f.rule, str(val)))
    for var, items in sorted(recs.items()):
        values = {_norm(v) for _, v in items}
        dirs = {_direction(_current(a, var), v) for _, v in items} - {None}
        if len(values) > 1 or len(dirs) > 1:
            out.append(f"{var}: " + "; ".join(f"{r} recommends {v}" for r, v in items))
    rules = {r.id: r for r in _catalogue().rules}
    for o in a.report.outcomes:
        rule = rules.get(o.rule)
        if o.status != "passed" or rule is None:
            continue
        for var, mine in _judged(rule.when):
            # the rule passed on this variable's value ("X is not too large") while a finding moves X
            # the way this rule would have ("lower X"): one says fine, the other says change it
            if var not in recs or f"var.{var}" not in o.reason.lower():
                continue
            for other, val in recs[var]:
                if _direction(_current(a, var), val) == mine:
                    out.append(f"{var}: {o.rule} passed ({o.reason}) while {other} recommends {val}")
    return out


def _judged(cond: Any) -> set[tuple[str, str]]:
    """(variable, the direction a fix would move it) for every var.X compared with gt/ge/lt/le outside a `not`."""
    if isinstance(cond, Leaf):
        if cond.fact.startswith("var.") and cond.op in ("gt", "ge", "lt", "le"):
            return {(cond.fact[4:].lower(), "lower" if cond.op in ("gt", "ge") else "raise")}
        return set()
    if isinstance(cond, (AllOf, AnyOf)):
        return set().union(*(_judged(i) for i in cond.items))
    return set()


_BAD_TEXT = [
    (re.compile(r"[{}]"), "raw brace"),
    (re.compile(r"\bNone\b"), "None"),
    (re.compile(r"\bnan\b", re.I), "nan"),
    (re.compile(r"\S  +\S"), "doubled space"),
    (re.compile(r"([,;:!?])\s*\1|(?<![.])\.\.(?![.])|[,;:]\s*\.(?!\.)|(?<![.])\.\s*[,;:]"), "doubled punctuation"),
    (re.compile(r"(?<!\w)\(\s*\)|=\s*[;,)]|=\s*\.(?!\.\.)|=\s*$|\b(of|to|from|than)\s*[,;.)]"), "empty interpolation"),
]
# quoted SQL, shell and regular-expression text (`...`, '...') is code, not prose: left out of the punctuation checks
_CODE = re.compile(r"`[^`]*`|'[^']*'")


def _texts(f: Any) -> list[tuple[str, str]]:
    out = [("title", f.title), ("message", f.message), ("fix", f.fix)]
    out += [(f"note:{n.kind}", n.text) for n in f.notes]
    return out


def check_b(a: Any, plan: Any) -> list[str]:
    out = []
    for f in _fired(a):
        for where, text in _texts(f):
            flat = " ".join(text.split("\n"))
            prose = _CODE.sub("CODE", flat)
            for pat, what in _BAD_TEXT:
                m = pat.search(flat if what in ("raw brace", "None", "nan") else prose)
                if m:
                    shown = flat if what in ("raw brace", "None", "nan") else prose
                    lo = max(0, m.start() - 40)
                    out.append(f"{f.rule} {where}: {what}: <{shown[lo:m.end() + 40]}>")
    return out


def check_c(a: Any, plan: Any) -> list[str]:
    by_var: dict[str, list[str]] = defaultdict(list)
    for f in _fired(a):
        for var in f.recommendation:
            by_var[var.lower()].append(f.rule)
    return [f"{var}: recommended by {', '.join(rules)}" for var, rules in sorted(by_var.items()) if len(rules) > 1]


_TLS13 = {"mysql": ((5, 7, 28), (8, 0, 16)), "percona": ((5, 7, 28), (8, 0, 16))}


def _release_problems(var: str, value: str, flavor: str, version: Version) -> list[str]:
    """What the catalogue does not (yet) encode: TLSv1.3 by release and the UCA 14.0.0 collations."""
    out = []
    v = (version.major, version.minor, version.patch)
    if var == "tls_version" and "tlsv1.3" in value.lower() and flavor in _TLS13:
        low57, low80 = _TLS13[flavor]
        if v < low57 or (v[:2] == (8, 0) and v < low80) or (v[:2] != (5, 7) and v < (8, 0, 0)):
            out.append(f"TLSv1.3 needs {flavor} 5.7.28 / 8.0.16 or later")
    if "uca1400" in value.lower() and (flavor != "mariadb" or v < (10, 10, 0)):
        out.append("the uca1400 collations need MariaDB 10.10 or later")
    if "_0900_" in value.lower() and (flavor not in ("mysql", "percona") or v < (8, 0, 0)):
        out.append("the 0900 collations need MySQL 8.0 or later")
    return out


# a fix text naming a collation or TLS version may qualify it by flavor ("... on MariaDB"); a mention
# qualified by another flavor family is not a claim about this server (one qualified by its own is)
_OTHER = re.compile(r"\bon (MySQL|Percona|MariaDB)\b[^,;)]*")


def check_d(a: Any, plan: Any) -> list[str]:
    out = []
    t = a.snapshot.target
    version = Version.parse(t.version)
    cat = _catalogue().variables
    for f in _fired(a):
        for var, val in f.recommendation.items():
            if cat.exists_on(var, t.flavor, version) is None:
                problems = [f"not in the variable catalogue for {t.flavor} {t.version}, so the value is unchecked"]
            else:
                problems = cat.check_setting(var, val, t.flavor, version)
            problems += _release_problems(var.lower(), str(val), t.flavor, version)
            out += [f"{f.rule}: {var} = {val}: {p}" for p in problems]
        fix = " ".join(f.fix.split())
        for m in re.finditer(r"\b(utf8mb4_\w+|TLSv1\.3)\b(?=([^,;)]*))", fix):
            q = _OTHER.match(m.group(2).strip())
            family = {"percona": "mysql"}.get(t.flavor, t.flavor)
            if q is None or {"percona": "mysql"}.get(q.group(1).lower(), q.group(1).lower()) == family:
                var = "tls_version" if m.group(1).startswith("TLS") else "collation_server"
                out += [f"{f.rule}: fix names {m.group(1)}: {p}" for p in _release_problems(var, m.group(1), t.flavor, version)]
        for m in re.finditer(r"SET\s+(GLOBAL|PERSIST)\s+(\w+)", fix, re.I):
            kind, var = m.group(1).upper(), m.group(2).lower()
            info = cat.info(var, t.flavor, version)
            if info is not None and not info.dynamic:
                out.append(f"{f.rule}: fix says SET {kind} {var}, but {var} is not dynamic on {t.flavor} {t.version}")
            if kind == "PERSIST" and not (t.flavor in ("mysql", "percona") and version.major >= 8):
                out.append(f"{f.rule}: fix says SET PERSIST {var}, which {t.flavor} {t.version} does not have")
    return out


_STANDING_VARS = {"Paths, ports and identity": ("datadir", "socket", "port", "server_id", "log_error", "log_bin", "tmpdir"),
                  "TLS settings": ("tls_version", "ssl_cipher", "ssl_ca", "ssl_cert", "ssl_key", "require_secure_transport",
                                   "tls_ciphersuites", "admin_tls_version")}


def check_e(a: Any, plan: Any) -> list[str]:
    if plan is None:
        return []
    changed = {s.variable.lower() for s in plan.changes}
    shown = {k.lower() for k in a.snapshot.server.variables}
    out = []
    lines = list(plan.not_changed) + _standing_not_changed(plan, _catalogue().variables)
    for line in lines:
        named: set[str] = set()
        m = re.match(r"(\w+)\s*(=|:)", line)
        if m and m.group(1).lower() in changed:
            named.add(m.group(1).lower())
        for head, vars_ in _STANDING_VARS.items():
            if line.startswith(head):
                named |= {v for v in vars_ if v in changed}
        m = re.match(r"([a-z0-9-]+) \((critical|warning|info)\): .*no my\.cnf setting fixes it", line)
        if m:
            f = next((f for f in _fired(a) if f.rule == m.group(1)), None)
            if f is not None:
                fixes = re.findall(r"\b([a-z_]+)\s*=", f.fix)
                named |= {v for v in fixes if v in changed}
                # a fix that points to another finding's recommendation by rule id ("as redo-log-undersized recommends")
                for other in _fired(a):
                    if other.rule != f.rule and re.search(rf"\b{re.escape(other.rule)}\b", f.fix):
                        named |= {v.lower() for v in other.recommendation if v.lower() in changed}
        out += [f"not changed claim for {v}, which the file sets: {line[:120]}" for v in sorted(named)]
        m = re.match(r"(\w+) = .*an option the server does not know", line)
        if m and m.group(1).lower() in shown:
            out.append(f"{m.group(1)} called an option the server does not know, but the snapshot shows it: {line[:120]}")
    return out


CHECK_FUNCS = {"a": check_a, "b": check_b, "c": check_c, "d": check_d, "e": check_e}


def violations(check: str, name: str, purpose: str) -> list[str]:
    a, plan = audit(name, purpose)
    found = CHECK_FUNCS[check](a, plan)
    return [v for v in found if not any(k[0] == check and k[1] in ("*", name) and k[2] in ("*", purpose) and k[3] in v
                                        for k in KNOWN)]


@pytest.mark.parametrize("check", CHECKS)
def test_consistency(check):
    """Every corpus entry, both purposes: no violation of this check outside KNOWN."""
    found = [f"{name} [{purpose}] {v}" for name in CORPUS for purpose in PURPOSES for v in violations(check, name, purpose)]
    assert found == [], f"check ({check}): {len(found)} violation(s):\n" + "\n".join(found)


def test_known_exceptions_still_happen():
    """A KNOWN entry that no longer matches anything is stale and must go."""
    for (check, name, purpose, text), reason in KNOWN.items():
        names = CORPUS if name == "*" else [name]
        purposes = PURPOSES if purpose == "*" else [purpose]
        hits = [v for n in names for p in purposes for v in CHECK_FUNCS[check](*audit(n, p)) if text in v]
        assert hits, f"KNOWN exception {(check, name, purpose, text)} ({reason}) matches nothing any more"


if __name__ == "__main__":  # the counts per check, and every violation
    for c in CHECKS:
        rows = [f"  {n} [{p}] {v}" for n in CORPUS for p in PURPOSES for v in CHECK_FUNCS[c](*audit(n, p))]
        print(f"check ({c}): {len(rows)}")
        print("\n".join(rows))


def test_the_checks_catch_what_they_describe():
    """The checks are not vacuous: findings written the way the checks forbid, added to the demo's real
    production audit, are each reported by their check."""
    import copy
    from dataclasses import replace

    from advisor.rules.engine import Finding, Outcome

    a, plan = audit("demo", "production")
    base = Finding(rule="x-one", severity="warning", category="memory", title="t", message="fine text.",
                   variables=["sort_buffer_size"], evidence={}, recommendation={"sort_buffer_size": "256K"},
                   references=["https://example.invalid/"], fix="Set it.")
    bad = [base,
           replace(base, rule="x-two", recommendation={"sort_buffer_size": "64M"}),
           replace(base, rule="x-three", recommendation={}, message="the value is  None, {var.x} set to ."),
           replace(base, rule="x-four", recommendation={"innodb_redo_log_capacity": "1G"},
                   fix="SET GLOBAL innodb_buffer_pool_instances = 4 and SET PERSIST it."),
           replace(base, rule="x-five", recommendation={}, fix="Use collation_server = utf8mb4_uca1400_ai_ci.")]
    report = copy.copy(a.report)
    report.outcomes = list(a.report.outcomes) + [Outcome(f.rule, "fired", "test", f) for f in bad]
    a2 = a._replace(report=report)
    assert any("x-one recommends 256K; x-two recommends 64M" in v for v in check_a(a2, plan))
    assert {w for v in check_b(a2, plan) if v.startswith("x-three") for w in ("None", "raw brace", "doubled space")
            if w in v} == {"None", "raw brace", "doubled space"}
    assert any(v.startswith("sort_buffer_size: recommended by") for v in check_c(a2, plan))
    d = check_d(a2, plan)
    assert any("innodb_redo_log_capacity = 1G" in v for v in d)
    assert any("not dynamic" in v and "innodb_buffer_pool_instances" in v for v in d)
    assert any("SET PERSIST" in v for v in d)
    assert any(v.startswith("x-five: fix names utf8mb4_uca1400_ai_ci") for v in d)
    assert _release_problems("tls_version", "TLSv1.2,TLSv1.3", "mysql", Version.parse("5.7.19"))
    assert not _release_problems("tls_version", "TLSv1.2,TLSv1.3", "mysql", Version.parse("5.7.28"))
    assert _release_problems("collation_server", "utf8mb4_uca1400_ai_ci", "mariadb", Version.parse("10.6.12"))
    assert _release_problems("collation_server", "utf8mb4_0900_ai_ci", "mysql", Version.parse("5.7.41"))
