"""CPU facts: the server's CPUs and mysqld's share, the client's host and the command, who used the most.
Pure; registered in advisor.watch.facts.base.FACTS."""

from __future__ import annotations

from typing import Any, Optional

from advisor.rules.facts import Unknown
from advisor.watch.facts.base import Series, _u, fact, median
from advisor.watch.model import HostInterval


def _cpu(hosts: list[HostInterval], attr: str) -> Optional[float]:
    return median([getattr(h.cpu, attr) if attr != "busy" else h.cpu.busy for h in hosts])


@fact("watch.server.cpus", "CPUs", "CPUs mysqld may use: its affinity, capped by its cgroup quota.")
def server_cpus(s: Series) -> Any:
    h = s.setup.server_host
    if h is None:
        return Unknown(s.why_no_server_host())
    return _u(h.cpus_available, "the CPUs mysqld may use are unknown")


@fact("watch.server.cpu.busy", "fraction", "Busy share (user + system + interrupts) of the CPUs mysqld may use.")
def server_busy(s: Series) -> Any:
    return _u(_cpu(s.server_hosts(), "busy"), s.why_server())


@fact("watch.server.cpu.user", "fraction", "User share of the CPUs mysqld may use.")
def server_user(s: Series) -> Any:
    return _u(_cpu(s.server_hosts(), "user"), s.why_server())


@fact("watch.server.cpu.system", "fraction", "System share (kernel, interrupts included) of the CPUs mysqld may use.")
def server_system(s: Series) -> Any:
    hs = s.server_hosts()
    return _u(median([h.cpu.system + h.cpu.irq for h in hs]), s.why_server())


@fact("watch.server.cpu.system_of_busy", "fraction", "System time as a share of busy time on the server's CPUs.")
def server_system_of_busy(s: Series) -> Any:
    hs = s.server_hosts()
    return _u(median([(h.cpu.system + h.cpu.irq) / h.cpu.busy if h.cpu.busy > 0 else None for h in hs]),
              s.why_server())


@fact("watch.server.cpu.iowait", "fraction", "I/O-wait share of the CPUs mysqld may use.")
def server_iowait(s: Series) -> Any:
    return _u(_cpu(s.server_hosts(), "iowait"), s.why_server())


@fact("watch.server.cpu.steal", "fraction", "Share of the server's CPU time the hypervisor gave to other guests.")
def server_steal(s: Series) -> Any:
    return _u(_cpu(s.server_hosts(), "steal"), s.why_server())


@fact("watch.server.cpu.hottest", "fraction", "Median busy share of the busiest single CPU mysqld may use.")
def server_hottest(s: Series) -> Any:
    allowed = set(str(c) for c in (s.setup.server_host.allowed_cpus if s.setup.server_host else []))
    vals = [max((c[0] + c[1] + c[2] for n, c in h.per_cpu.items() if not allowed or n in allowed), default=None)
            for h in s.server_hosts()]
    return _u(median(vals), s.why_server())


def _mysqld(s: Series) -> list[Any]:
    return [h.mysqld for h in s.server_hosts() if h.mysqld is not None]


@fact("watch.server.mysqld.cores", "CPUs", "CPU mysqld used (user + system, all threads).")
def mysqld_cores(s: Series) -> Any:
    ps = _mysqld(s)
    if not ps:
        h = s.setup.server_host
        return Unknown(f"mysqld's CPU was not sampled: {h.mysqld_how}" if h else s.why_no_server_host())
    return median([p.cores for p in ps])


@fact("watch.server.mysqld.share", "fraction", "mysqld's CPU as a share of the CPUs it may use.")
def mysqld_share(s: Series) -> Any:
    cores, cpus = mysqld_cores(s), server_cpus(s)
    if isinstance(cores, Unknown):
        return cores
    if isinstance(cpus, Unknown):
        return cpus
    return cores / cpus if cpus else Unknown("mysqld may use no CPU?")


@fact("watch.server.mysqld.system_of_busy", "fraction", "System time as a share of mysqld's own CPU time.")
def mysqld_system(s: Series) -> Any:
    ps = _mysqld(s)
    return _u(median([p.system_cores / p.cores if p.cores > 0 else None for p in ps]), "mysqld's CPU was not sampled")


@fact("watch.server.mysqld.faults_per_query", "per query", "mysqld's minor page faults per query.")
def mysqld_faults(s: Series) -> Any:
    vals = []
    for iv in s.loaded:
        h = iv.server_host
        if h is None or h.mysqld is None or iv.server is None:
            continue
        q = iv.server.rates.get("Questions")
        if q:
            vals.append(h.mysqld.minor_faults_per_s / q)
    return _u(median(vals), "mysqld's page faults or the server's query counters were not sampled")


def _per_query(s: Series, attr: str) -> Any:
    vals = []
    for iv in s.loaded:
        h = iv.server_host if attr == "mysqld" or s.setup.same_host else iv.client_host
        p = getattr(h, attr) if h is not None else None
        q = iv.server.rates.get("Questions") if iv.server is not None else None
        if p is not None and q:
            vals.append(p.cores / q * 1e6)
    return _u(median(vals), f"{'mysqld' if attr == 'mysqld' else 'the command'}'s CPU or the server's query counter was not sampled")


@fact("watch.server.mysqld.cpu_us_per_query", "µs", "mysqld's CPU time per query, in microseconds (cores / queries per second).")
def mysqld_us_per_query(s: Series) -> Any:
    return _per_query(s, "mysqld")


@fact("watch.client.command.cpu_us_per_query", "µs", "The benchmark command's CPU time per server query, in microseconds.")
def command_us_per_query(s: Series) -> Any:
    return _per_query(s, "command")


@fact("watch.server.mysqld.faults_per_s", "per second", "mysqld's minor page faults per second.")
def mysqld_faults_s(s: Series) -> Any:
    return _u(median([p.minor_faults_per_s for p in _mysqld(s)]), "mysqld was not sampled")


@fact("watch.server.other.cores", "CPUs", "CPU used on the server's CPUs by neither mysqld nor the benchmark command.")
def other_cores(s: Series) -> Any:
    vals = []
    for h in s.server_hosts():
        if h.mysqld is None:
            continue
        used = h.cpu.busy * h.cpu.cpus - h.mysqld.cores - (h.command.cores if h.command is not None else 0.0)
        vals.append(max(0.0, used))
    return _u(median(vals), "mysqld's CPU was not sampled")


@fact("watch.same_host", "bool", "Whether the benchmark client runs on the server's host (they share its CPUs).")
def same_host(s: Series) -> Any:
    if s.setup.command is None:
        return Unknown("no command ran under the watch, so the benchmark client is not known")
    return s.setup.same_host


@fact("watch.client.cpus", "CPUs", "CPUs of the benchmark client's host.")
def client_cpus(s: Series) -> Any:
    h = s.client_setup()
    return _u(h.cpu_count if h else None, s.why_no_client_host())


@fact("watch.client.cpu.busy", "fraction", "Busy share of all CPUs of the client's host.")
def client_busy(s: Series) -> Any:
    return _u(median([h.all_cpus.busy for h in s.client_hosts()]), s.why_no_client_host())


@fact("watch.client.cpu.system_of_busy", "fraction", "System time as a share of busy time on the client's host.")
def client_system_of_busy(s: Series) -> Any:
    return _u(median([(h.all_cpus.system + h.all_cpus.irq) / h.all_cpus.busy if h.all_cpus.busy > 0 else None
                      for h in s.client_hosts()]), s.why_no_client_host())


@fact("watch.client.command.cores", "CPUs", "CPU the benchmark command (with its child processes) used.")
def command_cores(s: Series) -> Any:
    vals = [h.command.cores for h in s.client_hosts() if h.command is not None]
    if s.setup.command is None:
        return Unknown("no command ran under the watch")
    return _u(median(vals), s.why_no_client_host())


@fact("watch.client.command.share", "fraction", "The command's CPU as a share of its host's CPUs.")
def command_share(s: Series) -> Any:
    c, n = command_cores(s), client_cpus(s)
    if isinstance(c, Unknown):
        return c
    if isinstance(n, Unknown):
        return n
    return c / n


@fact("watch.client.command.name", "text", "The benchmark command's process name.")
def command_name(s: Series) -> Any:
    names = [h.command.name for h in s.client_hosts() if h.command is not None]
    return names[0] if names else Unknown("the command's process was not sampled")


@fact("watch.cpu.top", "text", "Which consumer used the most CPU on the server's host: mysqld, the command or other processes.")
def cpu_top(s: Series) -> Any:
    m = mysqld_cores(s)
    if isinstance(m, Unknown):
        return m
    c = command_cores(s) if s.setup.same_host else 0.0
    c = 0.0 if isinstance(c, Unknown) else c
    o = other_cores(s)
    o = 0.0 if isinstance(o, Unknown) else o
    return max((m, "mysqld"), (c, "command"), (o, "other"))[1]


CONTENTION_WAIT = 0.2  # threads runnable but waiting for a CPU this share of their runnable time: contention


@fact("watch.benchmark.cpu_wait_share", "fraction", "Share of their runnable time mysqld's and the benchmark's threads "
      "waited on a run queue for a CPU (schedstat run delay / (run delay + CPU time)); what contention means.")
def benchmark_cpu_wait(s: Series) -> Any:
    vals = []
    for h in s.server_hosts():
        procs = [p for p in (h.mysqld, h.command) if p is not None]
        waits = [p.run_wait_cores for p in procs]
        if not procs or any(w is None for w in waits):
            continue
        wait, run = sum(waits), sum(p.cores for p in procs)  # type: ignore[arg-type]
        if wait + run > 0:
            vals.append(wait / (wait + run))
    return _u(median(vals), "the run-queue delay of mysqld's and the benchmark's threads was not sampled "
              "(/proc/PID/task/*/schedstat; kernels without CONFIG_SCHEDSTATS, or a series recorded before it was)")
