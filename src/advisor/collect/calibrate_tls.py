"""The TLS probe: handshake time, small-query latency and stream MB/s with and without TLS, measured in
alternating rounds so that load on the machine hits both sides alike."""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import replace
from typing import Any, Optional

from advisor.collect import calibrate_stats
from advisor.collect.calibrate_base import (ProbeContext, ProbeSkipped, StreamChunk, check_statement, chunk_rate,
                                            close_conn, error_text, stream_chunk, time_left)
from advisor.collect.calibrate_probes import is_tls, pick_generator
from advisor.collect.connection import Endpoint, _ssl_args, scrub
from advisor.histogram import log_histogram
from advisor.snapshot import Histogram, OnOff, OnOffHistogram, TlsProbe


def _tls_kwargs(ep: Endpoint, want_tls: bool) -> dict[str, Any]:
    kw: dict[str, Any] = dict(user=ep.user, password=ep.password, connect_timeout=ep.connect_timeout,
                              read_timeout=ep.read_timeout, write_timeout=ep.read_timeout, autocommit=True,
                              charset="utf8mb4")
    kw.update(host=ep.host, port=ep.port)
    if not want_tls:
        kw["ssl_disabled"] = True
    else:
        mode = ep.ssl_mode if ep.ssl_mode in ("VERIFY_CA", "VERIFY_IDENTITY") else "REQUIRED"
        kw.update(_ssl_args(replace(ep, ssl_mode=mode)))  # the context is built once, outside the timing
    return kw


def _probe_connect(ctx: ProbeContext, kw: dict[str, Any], want_tls: bool) -> tuple[Any, float]:
    """Open a probe connection; (connection, handshake ms). Raises pymysql errors / OSError."""
    import pymysql

    t = time.perf_counter()
    conn = pymysql.connect(**kw)
    ms = (time.perf_counter() - t) * 1000.0
    ctx.opened()
    if want_tls and not is_tls(conn._sock):
        close_conn(ctx, conn)
        raise _NoTls()
    return conn, ms


class _NoTls(Exception):
    pass


def _tls_reasons(ctx: ProbeContext, plain_err: Optional[str], tls_err: Optional[str]) -> str:
    if tls_err is not None:
        have = (ctx.var("have_ssl") or "").upper()
        ch = ctx.snap.server.tls_channels or {}
        if have in ("DISABLED", "NO"):
            why = f"the server has no TLS certificates (have_ssl = {have})"
        elif ch.get("Enabled", "").strip().lower() in ("no", "0", "off"):
            why = "the server's TLS channel is disabled (tls_channel_status mysql_main Enabled = No)"
        else:
            why = f"the server does not offer TLS ({tls_err})"
        return why + "; only plain connections were measured"
    if plain_err is not None:
        rst = (ctx.var("require_secure_transport") or "").upper()
        if rst in ("ON", "1"):
            why = "require_secure_transport is ON: the server refuses unencrypted connections"
        else:
            why = f"a plain-text connection was refused ({plain_err}); the account may require TLS"
        return why + "; only TLS connections were measured"
    return ""


def probe_tls(ctx: ProbeContext, deadline: float) -> None:
    if ctx.ep.socket:
        raise ProbeSkipped("the advisor connects over a unix socket, where TLS is not used; connect with --host "
                           "and --port to measure TLS on the network path")
    start = time.monotonic()
    share = time_left(deadline, 0.4, "the TLS probe")
    kws = {False: _tls_kwargs(ctx.ep, False), True: _tls_kwargs(ctx.ep, True)}
    errs, hs, version, cipher = _first_connections(ctx, kws)
    probe = TlsProbe(available=errs[False] is None and errs[True] is None,
                     plain_possible=errs[False] is None, tls_possible=errs[True] is None,
                     tls_version=version, tls_cipher=cipher)
    ctx.cal.tls = probe
    if errs[False] is not None and errs[True] is not None:
        probe.reason = f"neither a plain ({errs[False]}) nor a TLS ({errs[True]}) probe connection could be made"
        raise ProbeSkipped(probe.reason)
    modes = [m for m in (False, True) if errs[m] is None]
    if not probe.available:
        probe.reason = _tls_reasons(ctx, errs[False], errs[True])
    q_rounds, q_count, q_all = _query_rounds(ctx, kws, modes, hs, start, share)
    chunks, method = _interleaved_streams(ctx, kws, modes, deadline)
    _summarise(probe, errs, modes, hs, q_rounds, q_count, chunks)
    probe.handshake_histogram = OnOffHistogram(**{k: Histogram(**log_histogram(hs[m])) if hs[m] else None
                                                  for k, m in (("on", True), ("off", False))})
    probe.query_histogram = OnOffHistogram(**{k: Histogram(**log_histogram(q_all[m])) if q_all[m] else None
                                              for k, m in (("on", True), ("off", False))})
    if not all(q_rounds[m] for m in modes):
        ctx.cal.note_missing("calibration.tls.query_ms",
                             f"the TLS probe's share of the budget ({share:.2f} s) ran out before a round of small "
                             "queries on each side")
    if method and not all(chunks[m] for m in modes):
        ctx.cal.note_missing("calibration.tls.stream_mbytes_per_s",
                             f"the TLS probe's share of the budget ({share:.2f} s) ran out before a stream query on "
                             "each side")


def _first_connections(ctx: ProbeContext, kws: dict[bool, dict[str, Any]]) -> tuple[Any, Any, Any, Any]:
    """One plain and one TLS connection: (errors, handshake samples, TLS version, cipher)."""
    import pymysql

    errs: dict[bool, Optional[str]] = {False: None, True: None}
    hs: dict[bool, list[float]] = {False: [], True: []}
    version = cipher = None
    for mode in (False, True):
        try:
            conn, ms = _probe_connect(ctx, kws[mode], mode)
        except _NoTls:
            errs[mode] = "the connection was not encrypted"
            continue
        except pymysql.MySQLError as e:
            errs[mode] = error_text(e, ctx.ep)
            continue
        except OSError as e:
            errs[mode] = scrub(str(e), ctx.ep)
            continue
        hs[mode].append(ms)
        if mode:
            with contextlib.suppress(Exception):
                version, cipher = conn._sock.version(), conn._sock.cipher()[0]
        close_conn(ctx, conn)
    return errs, hs, version, cipher


def _query_rounds(ctx: ProbeContext, kws: dict[bool, dict[str, Any]], modes: list[bool], hs: dict[bool, list[float]],
                  start: float, share: float) -> tuple[dict[bool, list[float]], dict[bool, int], dict[bool, list[float]]]:
    """Handshakes and small-query latency in alternating rounds: (per-round medians, samples, every
    latency) per side."""
    # 1. Fresh connections, alternating plain / TLS: each connect is a handshake sample, then a burst of
    #    SELECT 1 on it. Where the server's thread runs relative to this process matters more than the
    #    TLS record work (a wake-up across cores costs ~10-15 us here, TLS ~4-5 us), and the server keeps
    #    its threads where they are, so one connection per side would compare placements. So each round
    #    pins this process to the next CPU (both sides alike; restored afterwards), runs plain then TLS
    #    back to back, and the ratio is the median over rounds of TLS ÷ plain: rounds where the two
    #    connections landed differently err both ways and cancel out in the median.
    rounds_phase = start + share * 0.4
    per_mode = 24
    slot = share * 0.4 / (per_mode * len(modes))
    q_rounds: dict[bool, list[float]] = {False: [], True: []}
    q_count: dict[bool, int] = {False: 0, True: 0}
    q_all: dict[bool, list[float]] = {False: [], True: []}  # every small-query latency, for the histogram
    sql = check_statement("SELECT 1")
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    r = 0
    try:
        while time.monotonic() < rounds_phase and min(len(hs[m]) for m in modes) < per_mode + 1:
            if len(cpus) > 1:
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(0, {cpus[r % len(cpus)]})
            r += 1
            for m in modes:
                conn, ms = _probe_connect(ctx, kws[m], m)
                try:
                    hs[m].append(ms)
                    cur = conn.cursor()
                    lat: list[float] = []
                    until = time.monotonic() + slot
                    while time.monotonic() < until and len(lat) < 300:
                        t = time.perf_counter()
                        cur.execute(sql)
                        cur.fetchall()
                        lat.append((time.perf_counter() - t) * 1000.0)
                    cur.close()
                finally:
                    close_conn(ctx, conn)
                lat = lat[1:] if len(lat) > 1 else lat
                if lat:
                    q_rounds[m].append(calibrate_stats.median(lat))  # type: ignore[arg-type]
                    q_count[m] += len(lat)
                    q_all[m] += lat
            ctx.tick("TLS")
    finally:
        if len(cpus) > 1:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, set(cpus))
    return q_rounds, q_count, q_all


def _interleaved_streams(ctx: ProbeContext, kws: dict[bool, dict[str, Any]], modes: list[bool],
                         deadline: float) -> tuple[dict[bool, list[StreamChunk]], Optional[str]]:
    # 2. Streams, interleaved chunk by chunk on one plain and one TLS connection, so that load changes on
    #    the machine hit both sides alike. The main connection serves as the side its own encryption
    #    matches; the other is the one probe connection.
    chunks: dict[bool, list[StreamChunk]] = {False: [], True: []}
    main_tls = bool(is_tls(getattr(ctx.conn, "_sock", None)))
    conns: dict[bool, Any] = {}
    opened: list[Any] = []
    method: Optional[str] = None
    try:
        for m in modes:
            if m == main_tls:
                conns[m] = ctx.conn
            else:
                conns[m], _ = _probe_connect(ctx, kws[m], m)
                opened.append(conns[m])
        method = ctx.generator
        if method is None:
            try:
                method, _ = pick_generator(ctx, conns[modes[0]], "TLS")
            except ProbeSkipped as e:  # handshakes and small queries still stand
                ctx.cal.note_missing("calibration.tls.stream_mbytes_per_s", e.reason)
        limit = calibrate_stats.max_rows(method) if method else 0
        rows = {m: 8 for m in modes}
        stop = deadline - 0.01
        while method and time.monotonic() < stop and all(rows[m] > 0 for m in modes):
            for m in modes:
                c = stream_chunk(ctx, conns[m], calibrate_stats.stream_sql(calibrate_stats.source_for(method, rows[m]), rows[m]), "TLS")
                chunks[m].append(c)
                # each side aims at half the time left, so a pair of chunks fits
                rows[m] = calibrate_stats.next_chunk_rows(c.rows, c.seconds, c.payload, (stop - time.monotonic()) / 2, limit=limit)
    finally:
        for c in opened:
            close_conn(ctx, c)
    return chunks, method


def _summarise(probe: TlsProbe, errs: dict[bool, Optional[str]], modes: list[bool], hs: dict[bool, list[float]],
               q_rounds: dict[bool, list[float]], q_count: dict[bool, int], chunks: dict[bool, list[StreamChunk]]) -> None:
    def hs_p50(m: bool) -> Optional[float]:
        vals = hs[m][1:] if len(hs[m]) > 1 else hs[m]
        v = calibrate_stats.median(vals)
        return None if v is None else round(v, 4)

    def stream_mb(m: bool) -> Optional[float]:
        rate = chunk_rate(chunks[m])[0]
        return None if rate is None else round(rate / 1e6, 3)

    def q_p50(m: bool) -> Optional[float]:
        v = calibrate_stats.median(q_rounds[m])
        return None if v is None else round(v, 4)

    probe.handshake_ms = OnOff(on=hs_p50(True) if errs[True] is None else None,
                               off=hs_p50(False) if errs[False] is None else None)
    probe.query_ms = OnOff(on=q_p50(True) if errs[True] is None else None,
                           off=q_p50(False) if errs[False] is None else None)
    probe.stream_mbytes_per_s = OnOff(on=stream_mb(True) if errs[True] is None else None,
                                      off=stream_mb(False) if errs[False] is None else None)
    probe.samples = min(len(hs[m]) for m in modes)
    probe.query_samples = min(q_count[m] for m in modes)
    if probe.available:
        pairs = [t / p for p, t in zip(q_rounds[False], q_rounds[True]) if p > 0]
        r = calibrate_stats.median(pairs)
        probe.query_ratio = None if r is None else round(r, 4)
        lo, hi = calibrate_stats.percentile(pairs, 25), calibrate_stats.percentile(pairs, 75)
        probe.query_ratio_p25 = None if lo is None else round(lo, 4)
        probe.query_ratio_p75 = None if hi is None else round(hi, 4)
    probe.stream_samples = min(len(chunks[m]) for m in modes)
    if probe.available and probe.stream_mbytes_per_s.on and probe.stream_mbytes_per_s.off:
        probe.throughput_ratio = round(probe.stream_mbytes_per_s.on / probe.stream_mbytes_per_s.off, 4)


