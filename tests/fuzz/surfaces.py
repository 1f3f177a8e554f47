"""The input surfaces of the advisor, each as `make(i) -> (argv, env)`: write the i-th mutant of the
surface's seeds into a work directory and return the command line that reads it.

Surfaces without a server: snapshot JSON, rule TOML, sysbench command lines, my.cnf files.
Surfaces with a server (a ReplayServer speaking the real wire protocol, started once and handed in):
host-facts files, option files, fleet files, and odd values served by the server itself.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any, Callable, Optional

from tests.fuzz.mutate import (HUGE_DIGITS, LONG_TEXT, ODD_BYTES, ODD_TOKENS, damage_text, mutate_json,
                               mutate_lines, mutate_toml, mutate_words)

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_SEEDS = [ROOT / "src/advisor/data/demo-seed-000.json",
                  ROOT / "tests/fixtures/calibration/mariadb-10.11-tls-calibrated.snapshot.json",
                  ROOT / "tests/fixtures/mycnf/mariadb-10.11-pitfalls.snapshot.json"]
HOST_TREE = ROOT / "tests/fixtures/hosts/seed-003-pm981"
SYSBENCH_OPTIONS = ["--mysql-host", "--mysql-port", "--mysql-user", "--mysql-password", "--pgsql-password",
                    "--mysql-socket", "--threads", "--time", "--tables", "--table-size", "--rate", "--events",
                    "--report-interval", "--mysql-ssl", "--db-driver", "--config-file", "--warmup-time",
                    "--mysql-db", "--percentile", "--histogram", "--mysql-ignore-errors", "--range-size"]
ODD_SERVER_VALUES: list[Any] = ODD_TOKENS + ODD_BYTES + [b"ok\xffthen", "ON\x00"]
Make = Callable[[int], tuple[tuple[str, ...], Optional[dict[str, str]]]]
ENV = {"COLUMNS": "100"}


def _rng(surface: str, i: int) -> random.Random:
    return random.Random(f"{surface}-{i}")


def _slot(work: Path, i: int) -> Path:
    """A fresh directory per input (the previous one removed): no input sees another's files."""
    prev = work / f"in-{i - 1}"
    if prev.exists():
        shutil.rmtree(prev, ignore_errors=True)
    d = work / f"in-{i}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def snapshot_surface(work: Path) -> Make:
    seeds = [json.loads(p.read_text()) for p in SNAPSHOT_SEEDS]
    commands = [("audit", "--snapshot"), ("audit", "-f", "json", "--snapshot"), ("mycnf", "--snapshot"),
                ("checklist", "--no-detect-sysbench", "--snapshot"), ("audit", "-f", "html", "--snapshot"),
                ("audit", "-f", "sarif", "--snapshot")]

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("snapshot", i)
        f = _slot(work, i) / "snap.json"
        f.write_bytes(mutate_json(rng.choice(seeds), rng))
        return (*commands[i % len(commands)], str(f)), ENV

    return make


def rule_surface(work: Path) -> Make:
    files = sorted(p for p in (ROOT / "rules").rglob("*.toml"))

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("rules", i)
        seed = rng.choice(files)
        text = re.sub(r'^id = "([^"]+)"', r'id = "fuzz-\1"', seed.read_text(), count=1, flags=re.M)
        d = _slot(work, i) / "rules" / seed.parent.name
        d.mkdir(parents=True)
        (d / f"fuzz-{seed.name}").write_bytes(mutate_toml(text, rng))
        if i % 25 == 24:  # an audit with an extra rule directory revalidates the whole catalogue (~0.5 s)
            return ("audit", "--demo", "--rules", str(d.parent)), ENV
        return ("rules", "lint", str(d.parent)), ENV

    return make


def _sysbench_seeds() -> list[str]:
    out = []
    for p in sorted((ROOT / "rules" / "checklist").glob("*.toml")):
        out += re.findall(r'^sysbench = "(.*)"$', p.read_text(), flags=re.M)
    return [s.replace('\\"', '"') for s in out] or ["sysbench oltp_read_write --threads=8 run"]


def sysbench_surface(work: Path) -> Make:
    seeds = _sysbench_seeds()

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("sysbench", i)
        line = mutate_words(rng.choice(seeds), rng, SYSBENCH_OPTIONS)
        if rng.random() < 0.1:
            line = damage_text(line.encode(), rng).decode("utf-8", "surrogateescape")
        fmt = ("-f", "json") if i % 2 else ()
        return ("checklist", "--demo", "--no-detect-sysbench", *fmt, "--sysbench", line), ENV

    return make


def mycnf_surface(work: Path) -> Make:
    seeds = sorted((ROOT / "tests" / "golden" / "mycnf").glob("*.cnf"))
    targets = [("mariadb", "10.11"), ("mysql", "8.0.36"), ("mysql", "5.7.44"), ("percona", "8.0.36"),
               ("mariadb", "x"), ("mysql", HUGE_DIGITS)]
    extra = ["[mysqld]", "innodb_buffer_pool_size = 1.0e309", f"max_connections = {HUGE_DIGITS}",
             "sort_buffer_size = -1", "!include /etc/passwd", f"datadir = {LONG_TEXT}"]

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("mycnf", i)
        f = _slot(work, i) / "my.cnf"
        f.write_bytes(mutate_lines(rng.choice(seeds).read_text(), rng, extra))
        flavor, version = targets[0] if rng.random() < 0.7 else rng.choice(targets)
        ram = ("--ram", rng.choice(["0", "64G", "-1", "1.0e309", "x", HUGE_DIGITS])) if rng.random() < 0.2 else ()
        return ("mycnf", "--validate", str(f), "--no-server-check", "--flavor", flavor, "--version", version,
                *ram), ENV

    return make


def _live(srv: Any) -> tuple[str, ...]:
    return ("-h", str(srv.host), "-P", str(srv.port), "-u", "root", "--no-defaults", "--connect-timeout", "3",
            "--read-timeout", "10")


def host_facts_seed(work: Path) -> bytes:
    """A real host-facts file, written by the real command from a recorded host tree."""
    from tests.support.cli import invoke

    out = work / "host-seed.json"
    p = invoke("collect", "--host-facts-only", "--sysroot", str(HOST_TREE), "-o", str(out))
    assert p.returncode == 0, p.stderr
    return out.read_bytes()


def host_facts_surface(work: Path, srv: Any) -> Make:
    seed = json.loads(host_facts_seed(work))
    # a recorded tree has no resolved paths (path_info runs on a live root only): give the seed the
    # entry a live host writes for the server's datadir, so mutations reach its fields
    seed["raw"]["paths"] = {str(srv.variables.get("datadir") or "/var/lib/mysql/"):
                            {"realpath": "/var/lib/mysql", "dev": "259:2", "exists": True}}

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("host-facts", i)
        f = _slot(work, i) / "host.json"
        f.write_bytes(mutate_json(seed, rng))
        cmd = ("audit", "--no-calibrate") if i % 2 else ("collect",)
        return (*cmd, *_live(srv), "--host-facts", str(f)), ENV

    return make


def option_file_surface(work: Path, srv: Any) -> Make:
    seed = (f"[client]\nhost = {srv.host}\nport = {srv.port}\nuser = root\npassword =\n"
            f"connect-timeout = 3\n# a comment\n[advisor]\nssl-mode = PREFERRED\n[mysqld]\nport = 1\n")
    extra = ["ssl-mode = VERIFY_CA", "ssl-ca = /etc/hostname", "socket = /nonexistent.sock", "port = 0",
             f"host = {'a' * 64}.example", "host = ,,,", "!includedir .", "!include my.cnf"]

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("option-file", i)
        f = _slot(work, i) / "my.cnf"
        f.write_bytes(mutate_lines(seed, rng, extra))
        return ("audit", "--no-calibrate", "--defaults-file", str(f), "--connect-timeout", "3"), ENV

    return make


def fleet_surface(work: Path, srv: Any) -> Make:
    seed = (f"# fleet\nroot@{srv.host}:{srv.port}\n{srv.host}:{srv.port}  # same server\n\n"
            f"root@{srv.host}:{srv.port}\n")
    extra = [f"{'a' * 64}:3306", "user@:1", ":", "@", f"root@{srv.host}:99999", f"[{srv.host}]:{srv.port}",
             f"root@{srv.host}:{HUGE_DIGITS}"]

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("fleet", i)
        f = _slot(work, i) / "fleet.txt"
        f.write_bytes(mutate_lines(seed, rng, extra))
        fmt = ("-f", "json") if i % 2 else ()
        return ("fleet", str(f), "-u", "root", "--no-defaults", "--no-calibrate", "--connect-timeout", "3",
                "-j", "2", *fmt), ENV

    return make


COLLECTOR_VARIABLES = ["datadir", "innodb_data_home_dir", "innodb_log_group_home_dir", "tmpdir", "log_bin_basename",
                       "version", "version_comment", "performance_schema", "max_connections",
                       "innodb_buffer_pool_size", "innodb_log_files_in_group", "innodb_redo_log_capacity",
                       "innodb_log_file_size", "port", "hostname", "sql_mode"]
SIZE_QUERY = r"SUM\(DATA_LENGTH\)"
ID_QUERY = r"^SELECT CONNECTION_ID\(\)"


def server_surface(work: Path, srv: Any) -> Make:
    """Odd variable and status values (and odd answers to the collector's own queries) served over the
    wire; the server's recorded values are restored before each input."""
    base_vars, base_status, base_canned = dict(srv.variables), dict(srv.status), list(srv.canned)
    var_names, status_names = sorted(base_vars), sorted(base_status)
    commands = [("audit", "--no-calibrate"), ("collect",), ("audit", "--no-calibrate", "-f", "json"),
                ("mycnf",), ("checklist", "--no-detect-sysbench", "--no-calibrate")]

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("server", i)
        srv.variables.clear()
        srv.variables.update(base_vars)
        srv.status.clear()
        srv.status.update(base_status)
        canned = list(base_canned)
        for _ in range(rng.randint(1, 6)):
            value = rng.choice(ODD_SERVER_VALUES)
            if rng.random() < 0.3:  # a variable the collector itself reads (directories, version, sizes)
                srv.variables[rng.choice(COLLECTOR_VARIABLES)] = value
            elif rng.random() < 0.6:
                srv.variables[rng.choice(var_names)] = value
            else:
                srv.status[rng.choice(status_names)] = value
        if rng.random() < 0.15:
            canned.insert(0, {"match": ID_QUERY, "columns": ["CONNECTION_ID()"],
                              "rows": [[rng.choice([None, "x", -1, HUGE_DIGITS])]]})
        if rng.random() < 0.15:
            canned.insert(0, {"match": SIZE_QUERY, "columns": ["ENGINE", "COUNT(*)", "SUM(DATA_LENGTH)",
                                                               "SUM(INDEX_LENGTH)"],
                              "rows": [["InnoDB", rng.choice(["3", None, "x"]), rng.choice(ODD_SERVER_VALUES),
                                        rng.choice([None, "1.0e309", "12"])]]})
        srv.set_canned(canned)
        return (*commands[i % len(commands)], *_live(srv)), ENV

    return make


LONG_NAMES = ["a" * 256, "a" * 300, "/".join(["d"] * 2100), "x\x00y"]


def paths_surface(work: Path) -> Make:
    """File names the system refuses (a name over 255 bytes, a path over 4,096, a loop of links) in
    every option and directive that names a file."""
    loop = work / "loop"
    if not loop.is_symlink():
        loop.symlink_to(loop)
    snap = str(SNAPSHOT_SEEDS[0])

    def make(i: int) -> tuple[tuple[str, ...], Optional[dict[str, str]]]:
        rng = _rng("paths", i)
        d = _slot(work, i)
        name = rng.choice([*LONG_NAMES, str(loop / "x"), str(loop)])
        bad = name if name.startswith("/") else str(d / name)
        bad = bad.replace("\x00", "")  # argv cannot hold a NUL; an option file can
        cnf = d / "my.cnf"
        cnf.write_text(f"[client]\nhost = 127.0.0.1\nport = 1\n{rng.choice(['!include ', '!includedir ', 'ssl-ca = '])}"
                       f"{name if rng.random() < 0.5 else bad}\n")
        commands = [("audit", "--snapshot", bad), ("audit", "--snapshot", snap, "--rules", bad),
                    ("mycnf", "--validate", bad, "--no-server-check"), ("verify", "--cnf", bad, "--snapshot", snap),
                    ("audit", "--no-calibrate", "--defaults-file", bad, "--connect-timeout", "1"),
                    ("audit", "--no-calibrate", "--defaults-extra-file", bad, "--connect-timeout", "1"),
                    ("audit", "--no-calibrate", "--defaults-file", str(cnf), "--connect-timeout", "1"),
                    ("audit", "--snapshot", snap, "-o", bad), ("collect", "--host-facts-only", "--sysroot", bad),
                    ("mycnf", "--snapshot", snap, "-o", bad), ("compare", snap, bad)]
        return commands[i % len(commands)], ENV

    return make


OFFLINE = {"snapshot": snapshot_surface, "rules": rule_surface, "sysbench": sysbench_surface,
           "mycnf": mycnf_surface, "paths": paths_surface}
LIVE = {"host-facts": host_facts_surface, "option-file": option_file_surface, "fleet": fleet_surface,
        "server": server_surface}
# inputs per surface in the test suite (10,000 in all); bench/fuzz.py multiplies them
# weighted by cost: a sysbench line or a my.cnf costs ~20 ms, a rule file ~100 ms (the lint runs its
# examples), a fleet file ~400 ms (one audit per target)
CI_COUNTS = {"snapshot": 2000, "rules": 800, "sysbench": 3700, "mycnf": 2600, "host-facts": 250,
             "option-file": 300, "fleet": 60, "server": 300, "paths": 110}
