"""Session facts: running sessions, lock waits, processlist states, TLS.
Pure; registered in advisor.watch.facts.base.FACTS."""

from __future__ import annotations

from typing import Any, Optional

from advisor.rules.facts import Unknown
from advisor.watch.facts.base import Series, _u, fact, median
from advisor.watch.facts.cpu import server_cpus


@fact("watch.lock.threads_running", "count", "Median Threads_running over the loaded intervals (the watcher's excluded).")
def lock_running(s: Series) -> Any:
    return _u(s.gauge("Threads_running"), "the server's status was not sampled")


@fact("watch.lock.running_per_cpu", "per CPU", "Threads_running per CPU mysqld may use.")
def running_per_cpu(s: Series) -> Any:
    r, c = lock_running(s), server_cpus(s)
    if isinstance(r, Unknown):
        return r
    if isinstance(c, Unknown):
        return c
    return r / c


@fact("watch.lock.row_lock_waiting", "sessions", "Average sessions waiting for row locks (Innodb_row_lock_time ms per second / 1000).")
def row_lock_waiting(s: Series) -> Any:
    v = s.rate("Innodb_row_lock_time")
    return _u(None if v is None else v / 1000.0, "the server's status was not sampled")


@fact("watch.lock.row_lock_waits_per_s", "per second", "Row lock waits per second.")
def row_lock_waits(s: Series) -> Any:
    return _u(s.rate("Innodb_row_lock_waits"), "the server's status was not sampled")


@fact("watch.lock.wait_share", "fraction", "Share of the running sessions that wait for row locks (row_lock_waiting / threads_running).")
def lock_wait_share(s: Series) -> Any:
    w, r = row_lock_waiting(s), lock_running(s)
    if isinstance(w, Unknown):
        return w
    if isinstance(r, Unknown):
        return r
    return min(1.0, w / r) if r > 0 else 0.0  # nobody running, nobody waiting


@fact("watch.lock.current_wait_share", "fraction", "Median share of the running sessions waiting for a row lock at the moment of each sample (Innodb_row_lock_current_waits / Threads_running).")
def current_wait_share(s: Series) -> Any:
    vals = []
    for iv in s.loaded:
        g = iv.server.gauges if iv.server is not None else {}
        if "Innodb_row_lock_current_waits" in g and "Threads_running" in g:
            r = g["Threads_running"]
            vals.append(min(1.0, g["Innodb_row_lock_current_waits"] / r) if r > 0 else 0.0)
    return _u(median(vals), "the server reports no Innodb_row_lock_current_waits")


LOCK_STATE_WORDS = ("lock", "waiting for")
NO_OTHER_SESSIONS = ("no session but the watch's own showed in the processlist while the load ran "
                     "(another user's sessions show only with the PROCESS privilege)")


def _states(s: Series) -> list[dict[str, int]]:
    return [iv.server.states for iv in s.loaded if iv.server is not None and iv.server.states]


@fact("watch.lock.state_share", "fraction", "Share of non-sleeping sessions in a lock-wait state (processlist).")
def lock_state_share(s: Series) -> Any:
    vals = []
    for st in _states(s):
        active = {k: n for k, n in st.items() if not k.startswith(("Sleep", "Daemon", "Binlog Dump"))}
        total = sum(active.values())
        # a sample that saw other sessions, all idle between statements, saw nobody waiting for a lock
        waiting = sum(n for k, n in active.items() if any(w in k.lower() for w in LOCK_STATE_WORDS))
        vals.append(waiting / total if total else 0.0)
    return _u(median(vals), NO_OTHER_SESSIONS)


@fact("watch.lock.top_state", "text", "The most frequent processlist state of non-sleeping sessions.")
def top_state(s: Series) -> Any:
    counts: dict[str, int] = {}
    for st in _states(s):
        for k, n in st.items():
            if not k.startswith(("Sleep", "Daemon")):
                counts[k] = counts.get(k, 0) + n
    if not counts:
        return Unknown("no active session was seen in the processlist")
    return max(counts.items(), key=lambda kv: kv[1])[0]


# ---------------------------------------------------------------------- TLS

@fact("watch.tls.connections", "count", "Connections opened while the watch ran.")
def tls_conns(s: Series) -> Any:
    xs = [iv.server.rates.get("Connections", 0.0) * iv.seconds for iv in s.run.intervals if iv.server]
    return round(sum(xs)) if xs else Unknown("the server's status was not sampled")


@fact("watch.tls.handshakes", "count", "TLS handshakes the server accepted while the watch ran (Ssl_accepts).")
def tls_handshakes(s: Series) -> Any:
    xs = [iv.server.rates.get("Ssl_accepts", 0.0) * iv.seconds for iv in s.run.intervals if iv.server]
    return round(sum(xs)) if xs else Unknown("the server's status was not sampled")


def _sysbench_ssl(s: Series) -> Optional[bool]:
    sb = s.setup.command.sysbench if s.setup.command else None
    if not sb:
        return None
    v = (sb.get("options") or {}).get("mysql-ssl")
    if v is None:
        return None
    return str(v).lower() in ("true", "on", "1", "required", "preferred", "verify_ca", "verify_identity")


@fact("watch.tls.share", "fraction", "Share of the benchmark's connections that use TLS: TLS handshakes per connection opened during the watch, else the sysbench command's --mysql-ssl.")
def tls_share(s: Series) -> Any:
    c, h = tls_conns(s), tls_handshakes(s)
    if not isinstance(c, Unknown) and c >= 1 and not isinstance(h, Unknown):
        return min(1.0, h / c)
    ssl = _sysbench_ssl(s)
    if ssl is not None:
        return 1.0 if ssl else 0.0
    return Unknown("no connection was opened while the watch ran and the command does not say whether it uses TLS")


@fact("watch.tls.basis", "text", "How watch.tls.share was found.")
def tls_basis(s: Series) -> Any:
    c, h = tls_conns(s), tls_handshakes(s)
    if not isinstance(c, Unknown) and c >= 1:
        return f"{h} TLS handshakes for {c} connections opened during the watch"
    if _sysbench_ssl(s) is not None:
        return "the sysbench command's --mysql-ssl option"
    return Unknown("nothing says whether the benchmark uses TLS")
