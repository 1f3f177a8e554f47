"""Issue 16 acceptance: `advisor watch` on real runs here: sysbench 1.0.20 against throwaway mariadbd
servers, a tbf-shaped veth pair into a network namespace, real TLS certificates, a real sshd.

No test asserts a speed. Workloads are chosen so that the verdict does not depend on how fast this
(shared, 2-core) machine is:
- network: oltp_point_select moves ~216 bytes per query down the link; at 10 Mbit/s the link is full
  at ~5,800 queries/s, a sixth of what this machine does with both CPUs busy and other tests
  running (measured: 33,000-45,000/s over an unshaped veth). At 100 Mbit/s it would need ~58,000/s,
  which a 2-core machine cannot reach: the link then sits at ~70 % and the run is CPU-bound, so
  point_select at 100 Mbit/s is a bench (bench/watch_scenarios.py), not a test. At 100 Mbit/s the
  test uses oltp_read_only with 1000-row ranges (~390 KB per transaction: full at ~32 TPS, of the
  ~170 this machine makes unshaped).
- TLS: the verdict needs encrypted connections (counted: Ssl_accepts against Connections) and a
  busy CPU side; 8 point-select threads over loopback keep 2 CPUs busy on any machine of this size.
- buffer pool: a 138 MiB table read uniformly through a 32 MiB pool misses in ~25 % of page requests
  whatever the speed; the verdict's thresholds are 2 % and 100 reads/s.
- CPU: which process uses most of the CPU is checked against top's own per-process figures.
- idle: no statements at all; the watcher's own are not counted.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.units import format_number
from tests.integration.test_host_ssh import sshd, ssh_args  # noqa: F401  (fixture)
from tests.support.certs import make_certs
from tests.support.cli import default_interrupts, run_cli
from tests.support.netns import NetNS

pytestmark = [pytest.mark.requires_mariadbd]
SYSBENCH = "sysbench"


def conn(db) -> list[str]:
    return ["--host", db.host, "--port", str(db.port), "--user", "root", "--no-defaults"]


def sb(db, test: str = "oltp_point_select", size: int = 10000) -> list[str]:
    return [SYSBENCH, test, f"--mysql-host={db.host}", f"--mysql-port={db.port}", "--mysql-user=root",
            "--mysql-db=sbtest", "--tables=1", f"--table-size={size}"]


def prepare(db, test: str = "oltp_point_select", size: int = 10000) -> None:
    db.query("CREATE DATABASE sbtest")
    subprocess.run(sb(db, test, size) + ["prepare"], check=True, capture_output=True, timeout=300)


def watch_json(*args: str, timeout: float = 120, cwd: str | None = None) -> tuple[int, dict, str]:
    env = {**os.environ, "HOME": "/nonexistent-advisor-home"}
    p = subprocess.run([sys.executable, "-m", "advisor", "watch", "--format", "json", *args], capture_output=True,
                       text=True, timeout=timeout, env=env, cwd=cwd)
    assert p.stdout.strip(), p.stderr
    return p.returncode, json.loads(p.stdout), p.stderr


def fired(report: dict) -> list[str]:
    return report["verdict"]["fired"]


def finding(report: dict, vid: str) -> dict:
    return next(r["finding"] for r in report["results"] if r["verdict"] == vid)


def status(report: dict, vid: str) -> str:
    return next(r["status"] for r in report["results"] if r["verdict"] == vid)


@pytest.mark.requires_root
def test_point_select_over_a_shaped_link_is_network_bound(mariadb_factory):
    with NetNS(rate="10mbit") as ns:
        db = mariadb_factory(netns=ns)
        prepare(db)
        code, rep, err = watch_json(*conn(db), "--", *sb(db), "--threads=16", "--time=8", "--report-interval=1", "run")
        assert code == 0, err
        assert rep["verdict"]["primary"] == "network-bound", rep["verdict"]
        f = finding(rep, "network-bound")
        s = rep["summary"]
        print("\n" + f["message"])
        assert s["watch.net.interface"] == ns.ns_if  # the server's end, seen in mysqld's network namespace
        assert ns.ns_if in f["message"] and "10 Mb/s" in f["message"] and "tbf shaper" in f["message"]
        assert f"{s['watch.net.mbytes_per_s']:.1f} MB/s" in f["message"]
        assert 1.0 <= s["watch.net.mbytes_per_s"] <= 1.3  # 10 Mbit/s of frames is 1.25 MB/s
        setup = rep["run"]["setup"]["server_host"]
        nics = {n["interface"]: n for n in setup["nics"]}
        assert nics[ns.ns_if]["netns"] == "mysqld" and nics[ns.ns_if]["tx_ceiling_mbps"] == 10
        assert nics[ns.host_if]["speed_mbps"] == 10000 and nics[ns.host_if]["tx_ceiling_mbps"] == 10
        assert len(rep["run"]["intervals"]) >= 6


@pytest.mark.requires_root
def test_wide_ranges_fill_a_100mbit_link(mariadb_factory):
    """The rate the issue names, with a workload that fills it on 2 CPUs: oltp_read_only with
    1000-row ranges moves ~390 KB per transaction (four range queries of 1000 rows), so 100 Mbit/s
    is full at ~32 TPS; this machine makes ~170 unshaped while other tests run."""
    with NetNS(rate="100mbit") as ns:
        db = mariadb_factory(netns=ns)
        prepare(db, "oltp_read_only", 10000)
        code, rep, err = watch_json(*conn(db), "--", *sb(db, "oltp_read_only", 10000), "--range-size=1000",
                                    "--skip-trx=on", "--threads=8", "--time=8", "--report-interval=1", "run")
        assert code == 0, err
        assert rep["verdict"]["primary"] == "network-bound", rep["verdict"]
        f, s = finding(rep, "network-bound"), rep["summary"]
        print("\n" + f["message"])
        assert s["watch.net.interface"] == ns.ns_if and s["watch.net.ceiling_mbps"] == 100
        assert ns.ns_if in f["message"] and "100 Mb/s" in f["message"]
        assert f"{s['watch.net.mbytes_per_s']:.1f} MB/s" in f["message"] and 10 <= s["watch.net.mbytes_per_s"] <= 12.6


def test_tls_required_against_tls_disabled(mariadb_factory, tmp_path):
    certs = make_certs(tmp_path / "tls")
    db = mariadb_factory(tls=certs)
    prepare(db)
    run = sb(db) + ["--threads=8", "--time=8", "--report-interval=1"]
    plain = tmp_path / "plain.json"
    code, base, err = watch_json(*conn(db), "--save", str(plain), "--", *run, "--mysql-ssl=off", "run",
                                 cwd=str(certs.dir))
    assert code == 0, err
    assert base["summary"]["watch.tls.share"] == 0 and status(base, "tls-bound") == "passed"
    db.query("SET GLOBAL require_secure_transport = ON")
    code, rep, err = watch_json(*conn(db), "--baseline", str(plain), "--", *run, "--mysql-ssl=on", "run",
                                cwd=str(certs.dir))
    assert code == 0, err
    assert "tls-bound" in fired(rep), rep["verdict"]
    f, s = finding(rep, "tls-bound"), rep["summary"]
    print(f"\n{f['message']}\nplain {s['watch.baseline.tps']:,.0f} TPS, TLS {s['watch.tps']:,.0f} TPS; mysqld "
          f"{s['watch.baseline.mysqld_cpu_us_per_query']:.1f} vs {s['watch.server.mysqld.cpu_us_per_query']:.1f} µs/query")
    assert s["watch.tls.share"] == 1.0 and re.match(r"8 TLS handshakes for 8 connections", s["watch.tls.basis"])
    # both TPS side by side, and mysqld's CPU per query in both runs: on this shared machine TPS moves
    # with what else runs (TLS has come out 10-30 % slower and once faster), the CPU a query costs does not
    assert format_number(s["watch.tps"]) in f["message"] and format_number(s["watch.baseline.tps"]) in f["message"]
    assert f"{format_number(s['watch.server.mysqld.cpu_us_per_query'])} µs of CPU per query" in f["message"]
    if f["severity"] == "info":  # neither TPS nor CPU per query moved: the documented inconclusive outcome
        assert "inside the difference between the two runs" in f["message"], f["message"]
    else:
        # the JSON summary holds the share rounded to 3 decimals, so 0.145 may print as 14 % or 15 %
        pct = round(s["watch.server.cpu.system_of_busy"] * 100)
        shown = re.findall(r"(\d+)% (?:of that system time|of it system time|of the server's busy time)", f["message"])
        assert shown and abs(int(shown[0]) - pct) <= 1, f["message"]
        assert "system time" in f["message"] or "in the kernel" in f["message"], f["message"]
    causes = [c["rule"] for r in rep["results"] if r["verdict"] == "tls-bound" for c in r["causes"]]
    assert "require-secure-transport-benchmark" in causes


def test_read_only_on_a_dataset_larger_than_a_32m_pool(mariadb_factory):
    db = mariadb_factory(options={"innodb-buffer-pool-size": "32M"})
    prepare(db, "oltp_read_only", 600_000)
    code, rep, err = watch_json(*conn(db), "--", *sb(db, "oltp_read_only", 600_000), "--rand-type=uniform",
                                "--threads=8", "--time=10", "--report-interval=1", "run", timeout=180)
    assert code == 0, err
    hit = [v for v in fired(rep) if v in ("io-bound", "buffer-pool-bound")]
    assert hit, rep["verdict"]
    f, s = finding(rep, hit[0]), rep["summary"]
    print(f"\n{f['message']}")
    assert f"{s['watch.bp.miss_rate'] * 100:.0f}%" in f["message"] and s["watch.bp.miss_rate"] > 0.05
    causes = [c["rule"] for r in rep["results"] if r["verdict"] == hit[0] for c in r["causes"]]
    assert causes == ["buffer-pool-below-data-size"]


def _top(pids: dict[str, int], seconds: int) -> dict[str, float]:
    """top's own figures, in CPUs: each process's %CPU, and the busy share of all CPUs less those."""
    p = subprocess.run(["top", "-b", "-d", "1", "-n", str(seconds), "-p", ",".join(str(x) for x in pids.values())],
                       capture_output=True, text=True, timeout=seconds + 10, env={**os.environ, "COLUMNS": "200"})
    frames = p.stdout.split("\ntop - ")[1:]  # the first frame averages since boot
    per: dict[str, list[float]] = {k: [] for k in pids}
    busy: list[float] = []
    for fr in frames:
        m = re.search(r"%Cpu\(s\):\s*([\d.]+) us,\s*([\d.]+) sy,\s*([\d.]+) ni,.*?([\d.]+) hi,\s*([\d.]+) si", fr)
        if m:
            busy.append(sum(float(x) for x in m.groups()) / 100 * os.cpu_count())
        for name, pid in pids.items():
            line = next((ln for ln in fr.splitlines() if ln.split()[:1] == [str(pid)]), None)
            if line:
                per[name].append(float(line.split()[8]) / 100)
    out = {k: sum(v) / len(v) for k, v in per.items() if v}
    out["other"] = max(0.0, sum(busy) / len(busy) - sum(out.values())) if busy else 0.0
    return out


def test_cpu_bound_point_select_on_loopback_agrees_with_top(mariadb_factory):
    db = mariadb_factory()
    prepare(db)
    env = {**os.environ, "HOME": "/nonexistent-advisor-home"}
    w = subprocess.Popen([sys.executable, "-m", "advisor", "watch", "--format", "json", *conn(db), "--", *sb(db),
                          "--threads=8", "--time=10", "--report-interval=1", "run"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        bench = None
        deadline = time.monotonic() + 30
        while bench is None and time.monotonic() < deadline:
            kids = subprocess.run(["pgrep", "-P", str(w.pid), "sysbench"], capture_output=True, text=True).stdout.split()
            bench = int(kids[0]) if kids else None
            time.sleep(0.1)
        assert bench is not None, "sysbench did not start"
        time.sleep(1.5)
        top = _top({"mysqld": db.pid, "command": bench}, 6)
        out, err = w.communicate(timeout=60)
    finally:
        if w.poll() is None:
            w.kill()
    assert w.returncode == 0, err
    rep = json.loads(out)
    cpu_verdicts = {"server-cpu-bound": "mysqld", "client-cpu-bound": "command", "cpu-contention": "other"}
    named = [cpu_verdicts[v] for v in fired(rep) if v in cpu_verdicts]
    ranked = sorted(top, key=top.get, reverse=True)
    print(f"\ntop: {top}; watch: {rep['verdict']['fired']}; mysqld {rep['summary']['watch.server.mysqld.cores']:.2f}, "
          f"sysbench {rep['summary']['watch.client.command.cores']:.2f}, other {rep['summary']['watch.server.other.cores']:.2f}")
    assert named, rep["verdict"]
    close = [k for k in ranked if top[k] >= 0.8 * top[ranked[0]]]  # within 20 % of the largest: either may lead
    assert named[0] in close, (named, top)
    assert status(rep, "network-bound") == "not_applicable"
    assert rep["summary"]["watch.server.cpu.busy"] >= 0.85


def test_an_idle_server_is_no_load(mariadb):
    code, rep, err = watch_json(*conn(mariadb), "--seconds", "5")
    assert code == 0, err
    assert rep["verdict"]["primary"] == "no-load" and fired(rep) == ["no-load"]
    assert 4 <= len(rep["run"]["intervals"]) <= 6 and rep["summary"]["watch.load.qps"] == 0
    assert all(r["status"] == "not_applicable" for r in rep["results"] if r["kind"] != "no-load")
    print("\n" + finding(rep, "no-load")["message"])


def test_the_watch_ends_with_the_commands_exit_status(mariadb):
    p = run_cli("watch", *conn(mariadb), "--", "sh", "-c", "echo from-the-command; sleep 1.2; exit 7", timeout=60)
    assert p.returncode == 7, p.stderr
    assert "from-the-command" in p.stdout and "the command exited with status 7" in p.stdout
    code, rep, err = watch_json(*conn(mariadb), "--", *sb(mariadb), "--time=2", "run")  # no sbtest schema
    assert code == 7, err  # the benchmark failed (EXIT_BENCHMARK_FAILED), whatever sysbench's own status
    assert rep["verdict"]["primary"] == "benchmark-failed", rep["verdict"]
    cmd = rep["run"]["setup"]["command"]
    assert cmd["exit_status"] == 1 and any("FATAL" in x for x in cmd["summary"]["fatal"])


@pytest.mark.parametrize("how", ["process group", "advisor only"])
def test_ctrl_c_stops_everything_and_prints_the_partial_verdict(mariadb_factory, tmp_path, how):
    db = mariadb_factory()
    prepare(db)
    saved = tmp_path / "partial.json"
    env = {**os.environ, "HOME": "/nonexistent-advisor-home"}
    w = subprocess.Popen([sys.executable, "-m", "advisor", "watch", *conn(db), "--save", str(saved), "--", *sb(db),
                          "--threads=4", "--time=120", "--report-interval=1", "run"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, start_new_session=True, preexec_fn=default_interrupts)
    try:
        bench = None
        deadline = time.monotonic() + 30
        while bench is None and time.monotonic() < deadline:
            kids = subprocess.run(["pgrep", "-P", str(w.pid), "sysbench"], capture_output=True, text=True).stdout.split()
            bench = int(kids[0]) if kids else None
            time.sleep(0.1)
        assert bench is not None
        time.sleep(3)
        if how == "process group":  # what a terminal's Ctrl-C does: SIGINT to the foreground group
            os.killpg(w.pid, signal.SIGINT)
        else:
            os.kill(w.pid, signal.SIGINT)
        out, err = w.communicate(timeout=40)
    finally:
        if w.poll() is None:
            os.killpg(w.pid, signal.SIGKILL)
    assert w.returncode == 130, err
    assert "VERDICT (partial: the watch was interrupted)" in out and "interrupted (SIGINT)" in out
    assert err.strip() == "advisor: error: interrupted."
    assert not Path(f"/proc/{bench}").exists() or Path(f"/proc/{bench}/stat").read_text().split(")")[-1].split()[0] in "ZX"
    with pytest.raises(ProcessLookupError):
        os.killpg(bench, 0)  # sysbench's own process group is empty
    run = json.loads(saved.read_text())
    assert run["end_reason"] == "interrupted (SIGINT)" and run["setup"]["command"]["interrupted"] is True
    assert len(run["intervals"]) >= 2


def test_server_host_over_ssh(mariadb, sshd):  # noqa: F811
    code, rep, err = watch_json(*conn(mariadb), *ssh_args(sshd), "--seconds", "3")
    assert code == 0, err
    host = rep["run"]["setup"]["server_host"]
    assert host["source"] == "ssh" and host["mysqld_pid"] == mariadb.pid and host["datadir_devices"]
    ivs = [iv for iv in rep["run"]["intervals"] if iv["server_host"]]
    assert len(ivs) >= 1 and all(iv["server_host"]["mysqld"] for iv in ivs)
    assert rep["verdict"]["primary"] == "no-load"


def test_server_host_from_a_host_stream(mariadb, tmp_path):
    stream = tmp_path / "host.jsonl"
    sampler = subprocess.Popen([sys.executable, "-m", "advisor", "watch", "--host-only", "--interval", "0.5",
                                "--pid-file", str(mariadb.pid_file), "-o", str(stream)])
    try:
        deadline = time.monotonic() + 20
        while (not stream.exists() or stream.read_text().count("\n") < 2) and time.monotonic() < deadline:
            time.sleep(0.1)
        code, rep, err = watch_json(*conn(mariadb), "--host-stream", str(stream), "--seconds", "3")
    finally:
        sampler.send_signal(signal.SIGTERM)
        sampler.wait(10)
    assert sampler.returncode == 0
    assert code == 0, err
    host = rep["run"]["setup"]["server_host"]
    assert host["source"] == "stream" and host["mysqld_pid"] == mariadb.pid
    assert any(iv["server_host"] and iv["server_host"]["mysqld"] for iv in rep["run"]["intervals"])
    first = json.loads(stream.read_text().splitlines()[0])
    assert first["setup"]["format"] == "advisor.watch-host/1"


def test_the_watch_only_reads(mariadb_factory):
    db = mariadb_factory(general_log=True)
    code, rep, err = watch_json(*conn(db), "--seconds", "3")
    assert code == 0, err
    entries = db.general_log_entries()
    threads = {e.thread_id for e in entries if e.command == "Query" and "information_schema.PROCESSLIST" in e.argument}
    assert len(threads) == 1, "one connection for the audit and the sampling"
    statements = [e.argument for e in entries if e.thread_id in threads and e.command == "Query"]
    sampling = [s for s in statements if s.startswith("SHOW GLOBAL STATUS WHERE") or "PROCESSLIST" in s]
    assert len(sampling) == 2 * (len(rep["run"]["intervals"]) + 1)  # 2 per sample, one sample before the first interval
    for sql in statements:
        head = sql.lstrip().split(None, 1)[0].upper()
        assert head in ("SELECT", "SHOW") or sql.upper().startswith(("SET NAMES", "SET AUTOCOMMIT")), sql


def test_the_first_sample_comes_before_the_audit_and_the_report_keeps_both(mariadb, tmp_path):
    """Issue 25 item 4: the audit runs beside the sampling, after the first sample; the saved run says
    when the first sample came (from the process's start) and the report still has the audit and the
    setup. Orderings only, never a duration."""
    saved = tmp_path / "start.json"
    code, rep, err = watch_json(*conn(mariadb), "--save", str(saved), "--", "sleep", "2")
    assert code == 0, err
    run = json.loads(saved.read_text())
    st = run["startup"]
    assert st["first_sample_s"] > 0 and st["cpu_before_first_sample_s"] > 0 and st["audit_cpu_s"] > 0
    assert st["first_sample_s"] < st["audit_done_s"]  # the audit finished after the first sample
    assert run["started_at"] <= st["first_sample_at"] < run["intervals"][0]["at"]
    assert "audit read the server during this interval" in " ".join(run["intervals"][0]["notes"])
    audit = run["setup"]["audit"]
    assert audit["ran"] and audit["snapshot"]["server"]["variables"] and audit["findings"], audit["reason"]
    assert set(audit["statuses"]) >= {f["rule"] for f in audit["findings"]}
    assert rep["run"]["setup"]["audit"]["findings"] == audit["findings"]
    t = run["setup"]["target"]
    assert t["flavor"] == "mariadb" and t["version"] and t["port"] == mariadb.port
    host = run["setup"]["server_host"]
    assert run["setup"]["same_host"] and host["role"] == "server+client" and host["mysqld_pid"] == mariadb.pid
    assert host["nics"] and host["nics"][0]["interface"] == "lo" and host["cpus_available"]
    assert run["setup"]["command"]["pid"]
    # the audit's statements are not the workload: an idle server with a sleeping command reads as idle
    assert all(iv["server"]["rates"].get("Questions", 0) == 0 for iv in run["intervals"] if iv["server"]), \
        [iv["server"]["rates"].get("Questions") for iv in run["intervals"] if iv["server"]]


# ---------------------------------------------------------------------- issue 25 §1 items 2 and 3

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "series"


def _keep(saved: Path, name: str) -> None:
    """ADVISOR_RECORD_WATCH=1 refreshes the recorded series the unit tests judge (tests/fixtures/watch/series)."""
    if os.environ.get("ADVISOR_RECORD_WATCH") == "1":
        (FIXTURES / name).write_text(saved.read_text())


def test_sysbench_rate_is_the_verdict_when_the_run_reaches_it(mariadb_factory, tmp_path):
    db = mariadb_factory()
    prepare(db)
    saved = tmp_path / "rate.json"
    code, rep, err = watch_json(*conn(db), "--save", str(saved), "--", *sb(db), "--threads=2", "--rate=10", "--time=4",
                                "--report-interval=1", "run")
    assert code == 0, err
    assert rep["verdict"]["primary"] == "rate-limited", rep["verdict"]
    assert "cpu-contention" not in fired(rep) and "tls-bound" not in fired(rep)
    msg = finding(rep, "rate-limited")["message"]
    print("\n" + msg)
    assert "sysbench --rate=10 caps the run at 10 tps; the server had room: mysqld used" in msg
    # as root the processlist is read; paced sessions sleeping between transactions are not waiting
    assert status(rep, "lock-bound") == "passed", next(r for r in rep["results"] if r["verdict"] == "lock-bound")
    _keep(saved, "rate-limited.json")


def test_sysbench_that_cannot_connect_is_a_failed_benchmark(mariadb_factory, tmp_path):
    db = mariadb_factory()
    prepare(db)
    saved = tmp_path / "failed.json"
    wrong = [a if not a.startswith("--mysql-user=") else "--mysql-user=nosuchuser" for a in sb(db)]
    code, rep, err = watch_json(*conn(db), "--save", str(saved), "--", *wrong, "--mysql-password=s3cr3t-pw",
                                "--time=3", "run")
    assert code == 7, err
    assert rep["verdict"]["primary"] == "benchmark-failed", rep["verdict"]
    msg = finding(rep, "benchmark-failed")["message"]
    print("\n" + msg)
    assert "FATAL" in msg and "nosuchuser" in msg
    assert "s3cr3t-pw" not in json.dumps(rep) and "s3cr3t-pw" not in err
    _keep(saved, "cannot-connect.json")


def test_sysbench_pointed_at_another_port_says_so(mariadb_factory):
    db = mariadb_factory()
    other = mariadb_factory()
    prepare(other)
    code, rep, err = watch_json(*conn(db), "--", *sb(other), "--threads=1", "--time=3", "--report-interval=1", "run")
    assert code == 0, err
    assert rep["verdict"]["primary"] == "other-server", rep["verdict"]
    msg = finding(rep, "other-server")["message"]
    print("\n" + msg)
    assert f"sysbench connects to {other.host}:{other.port}, the watch reads" in msg and str(db.port) in msg


def test_sysbench_on_the_watched_server_is_not_another_server(mariadb_factory):
    db = mariadb_factory()
    prepare(db)
    code, rep, err = watch_json(*conn(db), "--", *sb(db), "--threads=1", "--time=3", "--report-interval=1", "run")
    assert code == 0, err
    assert status(rep, "other-server") == "passed" and status(rep, "benchmark-failed") == "passed"


@pytest.mark.requires_root
def test_a_server_that_dies_mid_run_makes_a_partial_verdict(mariadb_factory, tmp_path):
    db = mariadb_factory()
    prepare(db)
    saved = tmp_path / "lost.json"
    env = {**os.environ, "HOME": "/nonexistent-advisor-home"}
    w = subprocess.Popen([sys.executable, "-m", "advisor", "watch", "--format", "json", *conn(db), "--save", str(saved),
                          "--", *sb(db), "--threads=2", "--time=30", "--report-interval=1", "run"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not subprocess.run(["pgrep", "-P", str(w.pid), "sysbench"],
                                                                 capture_output=True).stdout:
            time.sleep(0.1)
        time.sleep(2.5)
        db.kill()
        out, err = w.communicate(timeout=60)
    finally:
        if w.poll() is None:
            os.killpg(w.pid, signal.SIGKILL)
    rep = json.loads(out)
    assert w.returncode == 5, err
    assert rep["verdict"]["partial"] is True and "server-went-away" in fired(rep), rep["verdict"]
    print("\n" + finding(rep, "server-went-away")["message"])
    _keep(saved, "server-killed.json")


def test_a_niced_cpu_hog_beside_the_benchmark_is_not_contention(mariadb_factory):
    db = mariadb_factory()
    prepare(db)
    hogs = [subprocess.Popen(["nice", "-n", "19", sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        code, rep, err = watch_json(*conn(db), "--", *sb(db), "--threads=1", "--time=4", "--report-interval=1", "run")
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert code == 0, err
    s = rep["summary"]
    print("\n", {k: s.get(k) for k in ("watch.server.cpu.busy", "watch.server.other.cores", "watch.benchmark.cpu_wait_share")})
    seen = (fired(rep), {k: v for k, v in s.items() if k.startswith(("watch.benchmark", "watch.server.cpu", "watch.cpu"))})
    assert "watch.benchmark.cpu_wait_share" in s, seen  # the run-queue delay was read from schedstat
    # the hogs are niced; on an otherwise quiet machine the benchmark's threads do not wait and the verdict
    # is not contention. This machine runs other suites too, so: contention is claimed only with the wait.
    assert ("cpu-contention" in fired(rep)) <= (s["watch.benchmark.cpu_wait_share"] >= 0.2), seen


# performance_schema on: the server then times its own binary log flushes, which the verdict prefers
DURABLE = {"log-bin": "mysql-bin", "server-id": 1, "sync-binlog": 1, "innodb-flush-log-at-trx-commit": 1,
           "performance-schema": "ON"}
RELAXED = {**DURABLE, "sync-binlog": 0, "innodb-flush-log-at-trx-commit": 2}


@pytest.mark.parametrize("durability", ["durable", "relaxed"])
def test_single_thread_write_only_is_judged_by_what_a_commit_waits_for(mariadb_factory, tmp_path, durability):
    """Issue 25 item 1: a durable single-thread oltp_write_only (binary log on, sync_binlog = 1,
    innodb_flush_log_at_trx_commit = 1) waits for two fdatasyncs per commit; the watch times one on the
    datadir's filesystem and counts the redo and binary log flushes, so the run is commit-bound (or
    uncertain when the probe's middle half spans the threshold), never CPU contention. The relaxed
    variant flushes about once a second and is not commit-bound."""
    db = mariadb_factory(options=DURABLE if durability == "durable" else RELAXED)
    prepare(db, "oltp_write_only")
    saved = tmp_path / "commit.json"
    code, rep, err = watch_json(*conn(db), "--save", str(saved), "--", *sb(db, "oltp_write_only"), "--threads=1",
                                "--time=6", "--report-interval=1", "run", timeout=180)
    assert code == 0, err
    s = rep["summary"]
    commit = next(r for r in rep["results"] if r["verdict"] == "commit-bound")
    print(f"\n{durability}: fired {fired(rep)}; commit-bound {commit['status']} ({commit['reason']}); "
          f"{s.get('watch.commit.syncs_per_s')} syncs/s, redo {s.get('watch.commit.sync_ms')} ms, binlog "
          f"{s.get('watch.commit.binlog_sync_ms')} ms; busy {s.get('watch.commit.busy_low')}-"
          f"{s.get('watch.commit.busy_high')}")
    assert s["watch.commit.sync_ms"] > 0  # the probe ran: the server's host is this machine
    if durability == "durable":
        assert s["watch.commit.binlog_syncs_per_s"] > 0 and s["watch.commit.redo_syncs_per_s"] > 0
        # Whether the commits' waiting reaches the rule's half a second per second depends on this machine's
        # fdatasync (3.57 ms on one machine here, 0.26 ms on another): the verdict must follow the measured
        # band, not the test's expectation of the disk.
        lo, hi = s["watch.commit.busy_low"], s["watch.commit.busy_high"]
        expected = "fired" if lo >= 0.5 else "passed" if hi < 0.5 else "unknown"
        assert commit["status"] == expected, (lo, hi, commit)
        if expected == "unknown":
            assert commit["reason"].startswith("uncertain"), commit
            assert "commit-bound" in rep["verdict"]["uncertain"] and rep["verdict"]["primary"] is None, rep["verdict"]
        elif expected == "fired":
            assert rep["verdict"]["primary"] == "commit-bound", rep["verdict"]
        else:
            assert "< 0.5" in commit["reason"], commit
        # the waiting counted both flushes a durable commit makes, each at its own measured time
        assert "redo flushes/s" in commit["checked"] and "binary log flushes/s" in commit["checked"], commit
        assert rep["verdict"]["primary"] != "cpu-contention", rep["verdict"]
        assert rep["run"]["setup"]["server_syncs"]["binlog"]["count"] > 0
        _keep(saved, "write-only-durable.json")
    else:
        assert s["watch.commit.binlog_syncs_per_s"] == 0
        assert commit["status"] == "passed", commit
