"""The command's outcome and a baseline series to compare with.
Pure; registered in advisor.watch.facts.base.FACTS."""

from __future__ import annotations

from typing import Any, Callable

from advisor.rules.facts import Unknown
from advisor.watch.facts.base import Series, _u, fact
from advisor.watch.facts.cpu import mysqld_us_per_query, server_system_of_busy
from advisor.watch.facts.load import tps
from advisor.watch.facts.sessions import tls_share


@fact("watch.command.exit_status", "status", "The command's exit status.")
def exit_status(s: Series) -> Any:
    c = s.setup.command
    if c is None:
        return Unknown("no command ran under the watch")
    return _u(c.exit_status, "the command did not finish")


@fact("watch.command.interrupted", "bool", "Whether the watch was interrupted (Ctrl-C) before the end.")
def interrupted(s: Series) -> Any:
    return s.run.end_reason.startswith("interrupted")


def _base(s: Series, fn: Callable[[Series], Any]) -> Any:
    if s.baseline is None:
        return Unknown("no baseline series was given (--baseline FILE)")
    return fn(s.baseline)


@fact("watch.baseline.name", "text", "The baseline series' file.")
def baseline_name(s: Series) -> Any:
    return s.baseline_name if s.baseline is not None else Unknown("no baseline series was given (--baseline FILE)")


@fact("watch.baseline.tps", "per second", "watch.tps of the baseline.")
def baseline_tps(s: Series) -> Any:
    return _base(s, tps)


@fact("watch.baseline.tls_share", "fraction", "watch.tls.share of the baseline.")
def baseline_tls(s: Series) -> Any:
    return _base(s, tls_share)


@fact("watch.baseline.server_system_of_busy", "fraction", "watch.server.cpu.system_of_busy of the baseline.")
def baseline_sys(s: Series) -> Any:
    return _base(s, server_system_of_busy)


@fact("watch.baseline.tps_ratio", "ratio", "watch.tps / the baseline's.")
def baseline_ratio(s: Series) -> Any:
    a, b = tps(s), baseline_tps(s)
    if isinstance(a, Unknown):
        return a
    if isinstance(b, Unknown):
        return b
    return a / b if b else Unknown("the baseline's TPS is 0")


@fact("watch.baseline.tps_change", "fraction", "watch.tps against the baseline's, as a change (-0.25 = 25 % fewer).")
def baseline_change(s: Series) -> Any:
    r = baseline_ratio(s)
    return r if isinstance(r, Unknown) else r - 1.0


@fact("watch.baseline.mysqld_cpu_us_per_query", "µs", "watch.server.mysqld.cpu_us_per_query of the baseline.")
def baseline_us_per_query(s: Series) -> Any:
    return _base(s, mysqld_us_per_query)


@fact("watch.baseline.mysqld_cpu_change", "fraction", "mysqld's CPU per query against the baseline's, as a change (+0.28 = 28 % more); unlike TPS it does not move with what else runs on the host.")
def baseline_cpu_change(s: Series) -> Any:
    a, b = mysqld_us_per_query(s), baseline_us_per_query(s)
    if isinstance(a, Unknown):
        return a
    if isinstance(b, Unknown):
        return b
    return a / b - 1.0 if b else Unknown("the baseline's mysqld used no CPU")
