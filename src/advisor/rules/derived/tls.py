"""Derived facts about TLS: whether the server offers it, whether clients use it, and what
calibration measured it to cost."""

from __future__ import annotations

from typing import Any

from advisor.rules.derived.common import ratio
from advisor.rules.facts import FactSet, FactView, Unknown, first_unknown

FACTS = FactSet()


@FACTS.define("own_connection_tls", "Whether the advisor's own connection negotiated TLS.")
def own_connection_tls(v: FactView) -> Any:
    return bool(v.snapshot.server.connection.tls_version)


@FACTS.define("server_offers_tls", "Whether the server accepts TLS: tls_channel_status mysql_main Enabled (MySQL 8), "
              "have_ssl = YES, or the advisor's own connection is encrypted.")
def server_offers_tls(v: FactView) -> Any:
    if v.snapshot.server.connection.tls_version:
        return True
    ch = v.snapshot.server.tls_channels
    if ch and "Enabled" in ch:
        return ch["Enabled"].strip().lower() in ("yes", "1", "on")
    have = v.get("var.have_ssl")
    if not isinstance(have, Unknown):
        return str(have).strip().upper() == "YES"
    return Unknown("neither have_ssl nor performance_schema.tls_channel_status is available, and the "
                   "advisor's own connection is not encrypted")


@FACTS.define("tls_session_share", "Share of client connections that use TLS: from performance_schema per-thread "
              "status when available, else Ssl_accepts / Connections since server start.", unit="fraction")
def tls_session_share(v: FactView) -> Any:
    usage = v.snapshot.server.tls_usage
    if usage and usage.source == "performance_schema" and usage.sessions_total > 0:
        return usage.sessions_tls / usage.sessions_total
    acc, conns = v.need_num("status.Ssl_accepts"), v.need_num("status.Connections")
    if conns <= 0:
        return Unknown("no connections counted yet")
    return min(1.0, acc / conns)


# Share of connections since start that must have used TLS before the clients count as using it: a few
# TLS handshakes among thousands of connections (a monitoring agent, an admin) say nothing about the
# clients that make the load (issue 14 §2.6: 4 of 3,253 connections on a Percona 8.0.32 server).
TLS_SHARE_THRESHOLD = 0.1


@FACTS.define("tls_in_use", "Whether client connections are encrypted: the advisor's own connection negotiated TLS "
              "with the client default, or at least a tenth of the connections since start (or of the sessions) "
              "did; a few TLS handshakes among many plain connections do not count.")
def tls_in_use(v: FactView) -> Any:
    if v.get("derived.own_connection_tls") is True:
        return True
    return v.need("derived.tls_session_share") >= TLS_SHARE_THRESHOLD


def _paired_spread(v: FactView) -> Any:
    """The per-round ratios' middle half, when the paired ratio is the figure used."""
    return v.spread("calibration.tls.query_ratio") if v.has("calibration.tls.query_ratio") else None


@FACTS.define("tls_query_latency_ratio", "How many times as long a trivial query takes over TLS as over a plain "
              "connection, as calibration measured it (the paired per-round ratio when recorded, else the medians' "
              "ratio); unknown when TLS measured faster, which is noise. Its spread: the middle half of the "
              "per-round ratios.", unit="ratio", spread=_paired_spread)
def tls_query_latency_ratio(v: FactView) -> Any:
    paired = v.num("calibration.tls.query_ratio")
    on, off = v.num("calibration.tls.query_ms.on"), v.num("calibration.tls.query_ms.off")
    if not isinstance(paired, Unknown):
        if paired < 1:
            return Unknown(f"small queries measured faster with TLS than without (paired ratio {paired:g}): the "
                           "scheduling noise on this machine is larger than the TLS cost")
        return paired
    u = first_unknown(on, off)
    if u is not None:
        return u
    if off <= 0:
        return Unknown("the plain query latency was 0 ms")
    if on < off:  # TLS adds work to every round trip; a lower figure is scheduling noise, not a saving
        return Unknown(f"small queries measured faster with TLS ({on:g} ms) than without ({off:g} ms): "
                       "the scheduling noise on this machine is larger than the TLS cost")
    return on / off


@FACTS.define("tls_handshake_ratio", "Median connect time with TLS ÷ without, as calibration measured it.", unit="ratio")
def tls_handshake_ratio(v: FactView) -> Any:
    return ratio(v.num("calibration.tls.handshake_ms.on"), v.num("calibration.tls.handshake_ms.off"),
                 "the plain handshake took 0 ms")
