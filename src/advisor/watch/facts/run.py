"""Facts about how the run went: sysbench's own rate limit, its FATAL lines, the server going away,
and whether the benchmark talks to the server the watch reads. Pure; registered in
advisor.watch.facts.base.FACTS."""

from __future__ import annotations

from typing import Any, Optional

from advisor.rules.facts import Unknown
from advisor.watch.facts.base import Series, fact, median

RATE_REACHED = 0.8   # achieved TPS at least this share of --rate (less for short runs, see rate_threshold)
SB_DEFAULT_PORT = 3306
LOOPBACK = {"localhost", "127.0.0.1", "::1", "", None}


def _options(s: Series) -> Optional[dict[str, Any]]:
    cmd = s.setup.command
    if cmd is None or not cmd.sysbench:
        return None
    return cmd.sysbench.get("options") or {}


def _one(v: Any) -> Any:
    """sysbench list options (--mysql-host=a,b) connect to the first one first."""
    return v[0] if isinstance(v, (list, tuple)) and v else v


def _num(v: Any) -> Optional[float]:
    v = _one(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


@fact("watch.sysbench.rate", "per second", "sysbench's --rate (its own cap on transactions per second); 0 when unlimited.")
def sb_rate(s: Series) -> Any:
    o = _options(s)
    if o is None:
        return Unknown("no sysbench command ran under the watch")
    r = _num(o.get("rate"))
    return r if r is not None and r > 0 else 0.0


@fact("watch.sysbench.has_rate", "bool", "Whether a sysbench command with --rate above 0 ran under the watch.")
def sb_has_rate(s: Series) -> Any:
    r = sb_rate(s)
    return not isinstance(r, Unknown) and r > 0


def _achieved(s: Series) -> Optional[float]:
    summary = s.setup.command.summary if s.setup.command else None
    if summary is not None and summary.tps is not None:
        return summary.tps
    return median([r.tps for iv in s.run.intervals for r in iv.sysbench])


@fact("watch.sysbench.rate_reached", "fraction", "Achieved TPS (sysbench's summary, else its report lines) as a share of its --rate.")
def sb_rate_reached(s: Series) -> Any:
    rate = sb_rate(s)
    if isinstance(rate, Unknown):
        return rate
    if not rate:
        return Unknown("sysbench ran without --rate")
    tps = _achieved(s)
    return Unknown("sysbench reported no TPS") if tps is None else tps / rate


def rate_threshold(rate: float, seconds: float) -> float:
    """sysbench --rate starts transactions as a Poisson process: over T s it starts N ~ rate*T of them
    with a spread of sqrt(rate*T). A run reaching its rate lands within 3 spreads of it; 80 % at most."""
    n = max(1.0, rate * max(seconds, 0.0))
    return max(0.0, min(RATE_REACHED, 1.0 - 3.0 / n ** 0.5))


@fact("watch.sysbench.rate_limited", "bool", "Whether sysbench's --rate is what the run reached (its TPS within the "
      "Poisson spread of the rate: at least 80 %, less for a short run at a low rate).")
def sb_rate_limited(s: Series) -> Any:
    r = sb_rate_reached(s)
    if not isinstance(r, float):
        return False
    summary = s.setup.command.summary if s.setup.command else None
    seconds = summary.total_time_s if summary is not None and summary.total_time_s else s.run.duration_s
    return r >= rate_threshold(float(sb_rate(s)), seconds)


@fact("watch.sysbench.tps_achieved", "per second", "TPS sysbench reported for the whole run (its summary, else the median of its report lines).")
def sb_tps(s: Series) -> Any:
    v = _achieved(s) if s.setup.command else None
    return Unknown("sysbench reported no TPS") if v is None else v


@fact("watch.server.mysqld.cores_all", "CPUs", "Median CPU mysqld used over every interval (loaded or not).")
def mysqld_cores_all(s: Series) -> Any:
    v = median([iv.server_host.mysqld.cores for iv in s.run.intervals
                if iv.server_host is not None and iv.server_host.mysqld is not None])
    return Unknown("mysqld's CPU was not sampled") if v is None else v


@fact("watch.benchmark.failed", "bool", "Whether the benchmark failed: sysbench printed a FATAL line, or the command exited non-zero.")
def bench_failed(s: Series) -> Any:
    cmd = s.setup.command
    if cmd is None:
        return False
    if cmd.summary is not None and cmd.summary.fatal:
        return True
    return bool(cmd.exit_status) and not cmd.interrupted and s.run.end_reason.startswith("the command exited")


@fact("watch.benchmark.failure", "text", "What the benchmark said when it failed: its first FATAL line, else its exit status.")
def bench_failure(s: Series) -> Any:
    cmd = s.setup.command
    if cmd is None or bench_failed(s) is not True:
        return Unknown("the benchmark did not fail")
    if cmd.summary is not None and cmd.summary.fatal:
        # sysbench says what failed, then why (`FATAL: error 1045: Access denied for user ...`)
        lines = list(dict.fromkeys(x.rstrip(". ") for x in cmd.summary.fatal))
        return "; ".join(lines[:3])
    return f"it exited with status {cmd.exit_status}"


LOST_PREFIX = "SHOW GLOBAL STATUS failed"


def lost_at(s: Series) -> Optional[float]:
    """Seconds into the watch when the server stopped answering (and never answered again), or None."""
    ivs = s.run.intervals
    if not ivs or ivs[-1].server is not None or not any(n.startswith(LOST_PREFIX) for n in ivs[-1].notes):
        return None
    at = ivs[-1].start_s
    for iv in reversed(ivs):
        if iv.server is not None:
            break
        at = iv.start_s
    return at


@fact("watch.server.lost", "bool", "Whether the server stopped answering during the watch and did not come back.")
def server_lost(s: Series) -> Any:
    return lost_at(s) is not None


@fact("watch.server.lost_at_s", "s", "Seconds into the watch when the server stopped answering.")
def server_lost_at(s: Series) -> Any:
    v = lost_at(s)
    return Unknown("the server answered to the end") if v is None else round(v, 1)


@fact("watch.server.lost_error", "text", "The error the watch got when the server stopped answering.")
def server_lost_error(s: Series) -> Any:
    if lost_at(s) is None:
        return Unknown("the server answered to the end")
    return next(n for n in s.run.intervals[-1].notes if n.startswith(LOST_PREFIX))


def sysbench_endpoint(o: dict[str, Any]) -> tuple[str, Optional[str], Optional[int], Optional[str]]:
    """(description, host, port, socket) of where sysbench connects, from its options."""
    sock = _one(o.get("mysql-socket"))
    if sock:
        return f"the socket {sock}", None, None, str(sock)
    host = str(_one(o.get("mysql-host")) or "localhost")
    port_v = _num(o.get("mysql-port"))
    port = int(port_v) if port_v is not None else SB_DEFAULT_PORT
    return f"{host}:{port}", host, port, None


def _same_target(s: Series, o: dict[str, Any]) -> Optional[bool]:
    """Whether sysbench's options name the watched server; None when it cannot be told."""
    t = s.setup.target
    _, host, port, sock = sysbench_endpoint(o)
    server = (s.setup.audit.snapshot or {}).get("server") or {}
    variables = server.get("variables") or {}
    own_port = _num(variables.get("port"))
    own_socket = variables.get("socket")
    ports = {p for p in (t.port, int(own_port) if own_port else None) if p}
    if sock is not None:
        if t.socket and sock == t.socket or own_socket and sock == own_socket:
            return True
        return False if (t.socket or own_socket) else None
    # a TCP connection: localhost without a port means sysbench's default socket in libmysqlclient, but
    # sysbench 1.0 passes the port, so host+port decide. An address that differs (a veth into the
    # server's network namespace) can be the same machine: the port and the server's own @@port decide.
    if ports and port not in ports:
        return False
    own_host = variables.get("hostname")
    if host in LOOPBACK or host == t.host or (own_host and host == own_host):
        return True
    return True if ports and port in ports and t.transport != "socket" else None


@fact("watch.sysbench.target", "text", "Where the sysbench command connects (its --mysql-host/--mysql-port/--mysql-socket).")
def sb_target(s: Series) -> Any:
    o = _options(s)
    if o is None:
        return Unknown("no sysbench command ran under the watch")
    return sysbench_endpoint(o)[0]


@fact("watch.sysbench.other_server", "bool", "Whether the sysbench command connects to another server than the watched one (port, socket or address differ).")
def sb_other(s: Series) -> Any:
    o = _options(s)
    if o is None:
        return Unknown("no sysbench command ran under the watch")
    same = _same_target(s, o)
    return Unknown("cannot tell from the options whether sysbench reaches the watched server") if same is None else not same


@fact("watch.target", "text", "The server the watch reads (its endpoint and, where known, its own port).")
def target(s: Series) -> Any:
    t = s.setup.target
    variables = ((s.setup.audit.snapshot or {}).get("server") or {}).get("variables") or {}
    if t.transport == "socket" and t.socket:
        where = f"the socket {t.socket}"
    elif t.port:
        where = f"{t.host}:{t.port}"
    else:
        where = t.endpoint or "the server"
    own = variables.get("port")
    return where + (f" (@@port {own})" if own and str(own) != str(t.port) else "")
