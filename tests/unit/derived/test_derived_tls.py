"""Derived facts of advisor.rules.derived.tls."""

from __future__ import annotations

import pytest

from advisor.rules.facts import Unknown
from tests.support.facts import view


def test_own_connection_tls():
    assert view({"server.connection": {"tls_version": "TLSv1.3"}}).get("derived.own_connection_tls") is True
    assert view({}).get("derived.own_connection_tls") is False


@pytest.mark.parametrize("facts,want", [
    ({"server.connection": {"tls_version": "TLSv1.2"}}, True),
    ({"server.tls_channels": {"Enabled": "Yes"}}, True),
    ({"server.tls_channels": {"Enabled": "No"}, "var.have_ssl": "YES"}, False),  # the channel status wins
    ({"var.have_ssl": "YES"}, True),
    ({"var.have_ssl": "DISABLED"}, False),
])
def test_server_offers_tls(facts, want):
    assert view(facts).get("derived.server_offers_tls") is want


def test_server_offers_tls_unknown_without_any_sign():
    assert "have_ssl" in view({}).get("derived.server_offers_tls").reason


def test_tls_session_share():
    ps = {"server.tls_usage": {"source": "performance_schema", "sessions_total": 4, "sessions_tls": 1}}
    assert view(ps).get("derived.tls_session_share") == 0.25
    assert view({"status.Ssl_accepts": 50, "status.Connections": 100}).get("derived.tls_session_share") == 0.5
    assert view({"status.Ssl_accepts": 150, "status.Connections": 100}).get("derived.tls_session_share") == 1.0
    assert "no connections" in view({"status.Ssl_accepts": 0, "status.Connections": 0}).get(
        "derived.tls_session_share").reason
    assert isinstance(view({}).get("derived.tls_session_share"), Unknown)


def test_tls_in_use():
    assert view({"server.connection": {"tls_version": "TLSv1.3"}}).get("derived.tls_in_use") is True
    assert view({"status.Ssl_accepts": 0, "status.Connections": 100}).get("derived.tls_in_use") is False
    # a few TLS handshakes among many plain connections (a monitoring agent) are not "the clients use TLS"
    assert view({"status.Ssl_accepts": 3, "status.Connections": 100}).get("derived.tls_in_use") is False
    assert view({"status.Ssl_accepts": 4, "status.Connections": 3253}).get("derived.tls_in_use") is False
    assert view({"status.Ssl_accepts": 10, "status.Connections": 100}).get("derived.tls_in_use") is True
    assert isinstance(view({}).get("derived.tls_in_use"), Unknown)


def _tls(**probe):
    return {"calibration": {"mode": "full", "tls": {"available": True, **probe}}}


def test_tls_query_latency_ratio():
    assert view(_tls(query_ratio=1.3)).get("derived.tls_query_latency_ratio") == 1.3
    assert "noise" in view(_tls(query_ratio=0.9)).get("derived.tls_query_latency_ratio").reason
    assert view(_tls(query_ms={"on": 0.2, "off": 0.1})).get("derived.tls_query_latency_ratio") == pytest.approx(2.0)
    assert "noise" in view(_tls(query_ms={"on": 0.1, "off": 0.2})).get("derived.tls_query_latency_ratio").reason
    assert isinstance(view({}).get("derived.tls_query_latency_ratio"), Unknown)


def test_tls_handshake_ratio():
    assert view(_tls(handshake_ms={"on": 3.0, "off": 1.0})).get("derived.tls_handshake_ratio") == 3.0
    assert "0 ms" in view(_tls(handshake_ms={"on": 3.0, "off": 0.0})).get("derived.tls_handshake_ratio").reason
