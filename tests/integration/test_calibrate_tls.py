"""TLS on vs off against real throwaway mariadbd servers with and without real certificates.

The TLS probe runs alone with a budget of its own (tests/support/calibrate.py); the tests check what
it guarantees once it runs (a handshake per side, the other figures or a reason for each one
missing). How much TLS costs here is measured by bench/calibrate_stability.py --tls."""

from __future__ import annotations

import pytest

from tests.support.calibrate import calibrate_only
from tests.support.cli import run_json

pytestmark = pytest.mark.requires_mariadbd


def calibrate(db, **options) -> dict:
    return calibrate_only("127.0.0.1", db.port, "tls", budget=3.0, **options)[0]


def measured_or_missing(cal: dict, key: str) -> bool:
    """Both sides of tls.<key> measured (True), or a reason for it in `missing` (False)."""
    v = cal["tls"][key]
    if v["on"] is not None and v["off"] is not None:
        assert v["on"] > 0 and v["off"] > 0, (key, v)
        return True
    missing = {m["fact"]: m["reason"] for m in cal["missing"]}
    assert "budget" in missing[f"calibration.tls.{key}"], (key, missing)
    return False


def test_tls_and_plain_both_measured(mariadb_factory, tls_certs):
    db = mariadb_factory(tls=tls_certs)
    cal = calibrate(db)
    tls = cal["tls"]
    print(f"\nTLS: handshake {tls['handshake_ms']} ms, SELECT 1 {tls['query_ms']} ms, "
          f"stream {tls['stream_mbytes_per_s']} MB/s, ratio {tls['throughput_ratio']}, {tls['tls_version']}")
    assert tls["available"] is True and tls["reason"] == ""
    assert tls["plain_possible"] is True and tls["tls_possible"] is True
    assert tls["tls_version"].startswith("TLSv1.")
    assert tls["handshake_ms"]["on"] > 0 and tls["handshake_ms"]["off"] > 0 and tls["samples"] >= 1
    if measured_or_missing(cal, "query_ms"):
        assert tls["query_samples"] >= 1 and tls["query_ratio"] > 0
    if measured_or_missing(cal, "stream_mbytes_per_s"):
        assert tls["stream_samples"] >= 1
        assert tls["throughput_ratio"] == pytest.approx(
            tls["stream_mbytes_per_s"]["on"] / tls["stream_mbytes_per_s"]["off"], rel=1e-3)
    assert cal["connections_max"] == 2  # the main connection plus one probe connection, never more


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
    tls = calibrate(db, ssl_mode="REQUIRED")["tls"]
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
    if outcome["status"] == "unknown":  # neither ratio usable (out of budget, or noise on a busy machine): it says which
        assert "calibration.tls" in outcome["reason"] or "tls_query_latency_ratio" in outcome["reason"], outcome
        return
    assert outcome["status"] in ("fired", "passed"), outcome
    if outcome["status"] == "fired":
        f = next(f for f in report["findings"] if f["rule"] == "tls-measured-cost")
        print("\nfinding:", f["message"])
        assert f["evidence"]["calibration.tls.handshake_ms.on"] > 0 and "ms to open" in f["message"]
    else:
        assert "throughput_ratio" in outcome["reason"] or "tls_query_latency_ratio" in outcome["reason"]
