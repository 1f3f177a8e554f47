"""Derived facts about connections, threads and the table cache."""

from __future__ import annotations

from typing import Any

from advisor.rules.derived.common import ratio
from advisor.rules.facts import FactSet, FactView, Unknown

FACTS = FactSet()


@FACTS.define("connections_used_ratio", "Max_used_connections / max_connections.", unit="fraction")
def connections_used_ratio(v: FactView) -> Any:
    return ratio(v.num("status.Max_used_connections"), v.num("var.max_connections"), "max_connections is 0")


@FACTS.define("connections_per_cpu", "Max_used_connections per logical CPU of the database host.", unit="ratio")
def connections_per_cpu(v: FactView) -> Any:
    return ratio(v.num("status.Max_used_connections"), v.num("host.cpu.logical_count"), "logical CPU count is 0")


TABLE_OPEN_CACHE_MIN = 400  # the least table cache the server keeps when it shrinks it to the file limit


def _cut_at_start(v: FactView) -> bool:
    """Whether table_open_cache is the value the server shrinks it to when open_files_limit is too small:
    max((open_files_limit − 10 − max_connections) / 2, 400), below the release's default."""
    ofl, mc = v.num("var.open_files_limit"), v.need_num("var.max_connections")
    toc = int(v.need_num("var.table_open_cache"))
    if isinstance(ofl, Unknown):
        return False  # without the limit nothing shows a cut: the value is taken as configured
    fitted = max(int((ofl - 10 - mc) // 2), TABLE_OPEN_CACHE_MIN)
    d = v.catalogue.default_for("table_open_cache", v.flavor, v.version)
    return toc == fitted and d is not None and toc < int(d)


@FACTS.define("table_open_cache_cut_at_start", "Whether the server shrank table_open_cache at start-up to fit "
              "open_files_limit: its value is max((open_files_limit − 10 − max_connections) / 2, 400) and below the "
              "release's default, so SHOW VARIABLES shows the cut value, not the configured one.")
def table_open_cache_cut_at_start(v: FactView) -> Any:
    return _cut_at_start(v)


@FACTS.define("table_open_cache_intended", "The table cache the configuration asks for: table_open_cache, or, when "
              "the server cut it at start-up, at least the release's default (the value before the cut is not "
              "shown anywhere).", unit="count")
def table_open_cache_intended(v: FactView) -> Any:
    toc = int(v.need_num("var.table_open_cache"))
    if not _cut_at_start(v):
        return toc
    return max(toc, int(v.catalogue.default_for("table_open_cache", v.flavor, v.version) or toc))


@FACTS.define("open_files_needed", "File descriptors the server asks for: 10 + max_connections + 2 × the intended "
              "table_open_cache (the manual's formula for the effective open_files_limit; the intended cache, "
              "not the one the server already cut to fit).", unit="count")
def open_files_needed(v: FactView) -> Any:
    mc, toc = v.need_num("var.max_connections"), v.need_num("derived.table_open_cache_intended")
    return int(10 + mc + 2 * toc)


@FACTS.define("table_open_cache_effective", "The table cache the file limit allows: max((open_files_limit − 10 − "
              "max_connections) / 2, 400), capped by table_open_cache.", unit="count")
def table_open_cache_effective(v: FactView) -> Any:
    ofl, mc = v.need_num("var.open_files_limit"), v.need_num("var.max_connections")
    toc = v.need_num("var.table_open_cache")
    return int(min(toc, max((ofl - 10 - mc) / 2, TABLE_OPEN_CACHE_MIN)))


@FACTS.define("table_cache_fill_ratio", "Open_tables / table_open_cache.", unit="fraction")
def table_cache_fill_ratio(v: FactView) -> Any:
    return ratio(v.num("status.Open_tables"), v.num("var.table_open_cache"), "table_open_cache is 0")


@FACTS.define("thread_create_ratio", "Threads_created / Connections: the share of connections that needed a new "
              "thread because the thread cache had none.", unit="fraction")
def thread_create_ratio(v: FactView) -> Any:
    tc, conns = v.need_num("status.Threads_created"), v.need_num("status.Connections")
    if conns < 100:
        return Unknown(f"only {int(conns)} connections since start; too few to judge the thread cache")
    return tc / conns
