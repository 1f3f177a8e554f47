"""TLS on vs off against real throwaway mariadbd servers with and without real certificates."""

from __future__ import annotations

import pytest

from tests.support.cli import run_json

pytestmark = pytest.mark.requires_mariadbd


def calibrate(db, *extra: str) -> dict:
    code, cal, err = run_json("calibrate", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root",
                              "--no-defaults", "--format", "json", "--calibrate-seconds", "6", *extra, timeout=60)
    assert code == 0, err
    return cal


def test_tls_and_plain_both_measured(mariadb_factory, tls_certs):
    db = mariadb_factory(tls=tls_certs)
    cal = calibrate(db)
    tls = cal["tls"]
    print(f"\nTLS: handshake {tls['handshake_ms']} ms, SELECT 1 {tls['query_ms']} ms, "
          f"stream {tls['stream_mbytes_per_s']} MB/s, ratio {tls['throughput_ratio']}, {tls['tls_version']}")
    assert tls["available"] is True and tls["reason"] == ""
    assert tls["plain_possible"] is True and tls["tls_possible"] is True
    assert tls["tls_version"].startswith("TLSv1.")
    for key in ("handshake_ms", "query_ms", "stream_mbytes_per_s"):
        assert tls[key]["on"] > 0 and tls[key]["off"] > 0, key
    assert tls["throughput_ratio"] == pytest.approx(tls["stream_mbytes_per_s"]["on"] / tls["stream_mbytes_per_s"]["off"],
                                                    rel=1e-3)
    assert tls["samples"] >= 3 and tls["query_samples"] >= 10 and tls["stream_samples"] >= 2
    assert cal["connections_max"] == 2  # the main connection plus one probe connection, never more
    # a full TLS handshake (key exchange, certificate) costs more than a plain one on loopback
    assert tls["handshake_ms"]["on"] > tls["handshake_ms"]["off"]


def test_without_certificates_tls_unavailable_and_says_why(mariadb):
    cal = calibrate(mariadb)
    tls = cal["tls"]
    assert tls["available"] is False
    assert tls["plain_possible"] is True and tls["tls_possible"] is False
    assert "no TLS certificates (have_ssl = DISABLED)" in tls["reason"]
    assert tls["handshake_ms"]["off"] > 0 and tls["handshake_ms"]["on"] is None
    assert tls["throughput_ratio"] is None
    assert cal["verdicts"]["tls"]["verdict"] == "unavailable"


def test_require_secure_transport_measures_tls_only(mariadb_factory, tls_certs):
    db = mariadb_factory(tls=tls_certs, options={"require-secure-transport": "ON"})
    tls = calibrate(db, "--ssl-mode", "REQUIRED")["tls"]
    assert tls["available"] is False
    assert tls["plain_possible"] is False and tls["tls_possible"] is True
    assert "require_secure_transport is ON" in tls["reason"]
    assert tls["handshake_ms"]["on"] > 0 and tls["handshake_ms"]["off"] is None


def test_benchmark_audit_reports_measured_tls_cost(mariadb_factory, tls_certs):
    db = mariadb_factory(tls=tls_certs)
    code, report, err = run_json("audit", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root",
                                 "--no-defaults", "--purpose", "benchmark", "--format", "json",
                                 "--calibrate-seconds", "6", timeout=60)
    assert code == 0, err
    outcome = {o["rule"]: o for o in report["outcomes"]}["tls-measured-cost"]
    assert outcome["status"] in ("fired", "passed"), outcome  # measured either way: never unknown
    if outcome["status"] == "fired":
        f = next(f for f in report["findings"] if f["rule"] == "tls-measured-cost")
        print("\nfinding:", f["message"])
        assert f["evidence"]["calibration.tls.handshake_ms.on"] > 0 and "ms to open" in f["message"]
    else:
        assert "throughput_ratio" in outcome["reason"] or "tls_query_latency_ratio" in outcome["reason"]
