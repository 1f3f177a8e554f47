"""Parse what the server collector read into snapshot sections. Pure: no I/O."""

from __future__ import annotations

from typing import Any, Optional

from advisor.collect.dictionary_parse import parse_dictionary
from advisor.collect.raw import RawServer
from advisor.knowledge.catalogue import mask_secret_variables
from advisor.snapshot import (ConnectionInfo, EngineSize, ServerFacts, StatusInterval, Target, TlsCertificate,
                              TlsSession, TlsUsage)
from advisor.units import parse_bool, try_number
from advisor.versions import Version, detect_flavor


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, (bytes, bytearray)):
        return v.decode("utf-8", errors="replace")
    return str(v)


def _flavor_of(variables: dict[str, Any]) -> str:
    return detect_flavor(_text(variables.get("version")), _text(variables.get("version_comment")))


def needs_ps_tls(variables: dict[str, Any]) -> bool:
    """Per-connection TLS is visible in performance_schema.status_by_thread when P_S is on (not TiDB)."""
    return _flavor_of(variables) != "tidb" and parse_bool(_text(variables.get("performance_schema"))) is True


def needs_tls_channels(variables: dict[str, Any]) -> bool:
    """performance_schema.tls_channel_status exists on MySQL/Percona from 8.0.21."""
    if _flavor_of(variables) not in ("mysql", "percona") or parse_bool(_text(variables.get("performance_schema"))) is not True:
        return False
    try:
        return Version.parse(_text(variables.get("version"))) >= Version(8, 0, 21)
    except ValueError:
        return False


def needs_tidb_config(variables: dict[str, Any]) -> bool:
    return _flavor_of(variables) == "tidb"


def _why(code: int, message: str, what: str) -> str:
    if code in (1142, 1227, 1044, 1045, 1143):
        return f"{what}: permission denied ({code} {message}); grant the advisor user SELECT on it (docs/privileges.md)"
    if code in (1146, 1109, 1054):
        return f"{what}: not available on this server ({code} {message})"
    return f"{what}: query failed ({code} {message})"


def parse_target(raw: RawServer, host: Optional[str], port: Optional[int], socket: Optional[str]) -> Target:
    variables = {k.lower(): _text(v) for k, v in raw.variables}
    vs = variables.get("version", "")
    vc = variables.get("version_comment", "")
    flavor = detect_flavor(vs, vc)
    try:
        version = str(Version.parse(vs))
    except ValueError:
        version = "0.0.0"
    return Target.model_construct(host=None if socket else host, port=None if socket else port, socket=socket,
                  transport="socket" if socket else "tcp", flavor=flavor, version=version,
                  version_string=vs, version_comment=vc)


def interval_rates(before: list[tuple[str, Any]], after: list[tuple[str, Any]], seconds: float) -> dict[str, float]:
    """Per-second deltas of numeric counters that did not go backwards."""
    if seconds <= 0:
        return {}
    b = {k: try_number(_text(v)) for k, v in before}
    out: dict[str, float] = {}
    for k, v in after:
        n1, n0 = try_number(_text(v)), b.get(k)
        if isinstance(n1, (int, float)) and isinstance(n0, (int, float)) and n1 >= n0:
            out[k] = round((n1 - n0) / seconds, 6)
    return out


def _count(v: Any) -> Optional[int]:
    """A whole non-negative number from a result cell (int, Decimal or text), or None."""
    if v is None or isinstance(v, bool):
        return None
    n = try_number(_text(v)) if not isinstance(v, int) else v
    if n is None or isinstance(n, float) and not n.is_integer() or n < 0:
        return None
    return int(n)


def _data_sizes(rows: list[tuple[Any, ...]]) -> tuple[dict[str, EngineSize], str]:
    """Engine -> sizes from the information_schema.TABLES query, or ({}, what was odd)."""
    sizes: dict[str, EngineSize] = {}
    for row in rows:
        if len(row) != 4:
            return {}, f"a row of {len(row)} columns"
        engine, *cells = row
        nums = [0 if c is None else _count(c) for c in cells]
        if any(n is None for n in nums):
            odd = next(c for c, n in zip(cells, nums) if n is None)
            return {}, f"{_text(odd)[:60]!r} for engine {_text(engine)[:60]}"
        sizes[_text(engine)] = EngineSize.model_construct(tables=nums[0], data_bytes=nums[1], index_bytes=nums[2])
    return sizes, ""


def parse_server(raw: RawServer, user: Optional[str], ssl_mode: Optional[str], transport: str) -> ServerFacts:
    # model_construct: the parser produces correctly typed values, and skipping validation keeps
    # pydantic from building schemas on the audit's hot path (~15 ms). A test checks that every
    # collected snapshot survives a validating JSON round trip unchanged.
    facts = ServerFacts.model_construct(
        variables=mask_secret_variables({k: _text(v) for k, v in raw.variables}),
        status={k: _text(v) for k, v in raw.status},
        missing=[],
    )
    if raw.status_after is not None and raw.interval_seconds:
        facts.interval = StatusInterval.model_construct(seconds=round(raw.interval_seconds, 3),
                                        rates=interval_rates(raw.status, raw.status_after, raw.interval_seconds))
        facts.status = {k: _text(v) for k, v in raw.status_after}

    ssl = {k.lower(): _text(v) for k, v in raw.session_ssl}
    facts.connection = ConnectionInfo.model_construct(
        transport=transport,  # type: ignore[arg-type]
        user=user, thread_id=raw.connection_id,
        tls_version=ssl.get("ssl_version") or None, tls_cipher=ssl.get("ssl_cipher") or None,
        ssl_mode=ssl_mode,
    )
    if "session_ssl" in raw.errors:
        e = raw.errors["session_ssl"]
        facts.note_missing("server.connection.tls_version", _why(e.code, e.message, "session Ssl_% status"))

    if raw.data_size is not None:
        sizes, bad = _data_sizes(raw.data_size)
        if bad:
            facts.note_missing("server.data_size", f"information_schema.TABLES answered {bad}, not a number of "
                                                   "tables or bytes")
        else:
            facts.data_size = sizes
    elif "data_size" in raw.errors:
        e = raw.errors["data_size"]
        facts.note_missing("server.data_size", _why(e.code, e.message, "information_schema.TABLES"))

    if raw.ps_tls is not None:
        sessions = []
        for pid, puser, phost, ver, cipher in raw.ps_tls:
            tid = _count(pid)
            if raw.connection_id is not None and tid is not None and tid == raw.connection_id:
                continue  # the advisor's own connection is reported separately
            sessions.append(TlsSession.model_construct(thread_id=tid, user=_text(puser) or None,
                                       host=_text(phost) or None, tls_version=_text(ver) or None,
                                       tls_cipher=_text(cipher) or None))
        facts.tls_usage = TlsUsage.model_construct(source="performance_schema", sessions_total=len(sessions),
                                   sessions_tls=sum(1 for s in sessions if s.tls_version), sessions=sessions)
    elif "ps_tls" in raw.errors:
        e = raw.errors["ps_tls"]
        facts.note_missing("server.tls_usage", _why(e.code, e.message, "performance_schema.status_by_thread"))
    else:
        facts.note_missing("server.tls_usage", "performance_schema is OFF (or this is TiDB), so per-connection TLS "
                           "state is not visible; Ssl_accepts / Connections since start is used instead")

    if raw.tls_channels is not None:
        facts.tls_channels = {_text(prop): _text(val) for ch, prop, val in raw.tls_channels if _text(ch) == "mysql_main"}
    elif "tls_channels" in raw.errors:
        e = raw.errors["tls_channels"]
        facts.note_missing("server.tls_channels", _why(e.code, e.message, "performance_schema.tls_channel_status"))

    if raw.tidb_config is not None:
        cfg: dict[str, str] = {}
        for row in raw.tidb_config:
            # SHOW CONFIG columns: Type, Instance, Name, Value
            if len(row) >= 4:
                cfg[_text(row[2])] = _text(row[3])
        facts.tidb_config = cfg
    elif "tidb_config" in raw.errors:
        e = raw.errors["tidb_config"]
        facts.note_missing("server.tidb_config", _why(e.code, e.message, "SHOW CONFIG"))
    _bench_config(raw, facts)
    parse_dictionary(raw, facts)
    parse_certificate(raw, facts)
    return facts


def _bench_config(raw: RawServer, facts: ServerFacts) -> None:
    """The benchmark-relevant TiDB and TiKV items: TiKV's under 'tikv.'; one value when every instance
    agrees, else each instance's."""
    if raw.tidb_bench_config is None:
        if "tidb_bench_config" in raw.errors:
            e = raw.errors["tidb_bench_config"]
            facts.note_missing("server.tidb_config.tikv", _why(e.code, e.message, "SHOW CONFIG (TiDB and TiKV items)"))
        return
    per: dict[str, dict[str, str]] = {}
    for row in raw.tidb_bench_config:
        if len(row) >= 4:
            kind, inst, name, value = (_text(x) for x in row[:4])
            key = name if kind.lower() == "tidb" else f"{kind.lower()}.{name}"
            per.setdefault(key, {})[inst] = value
    cfg = dict(facts.tidb_config or {})
    for key, by_inst in per.items():
        values = set(by_inst.values())
        cfg[key] = values.pop() if len(values) == 1 else "; ".join(f"{v} on {i}" for i, v in sorted(by_inst.items()))
    facts.tidb_config = cfg
    if not any(k.startswith("tikv.") for k in per):
        facts.note_missing("server.tidb_config.tikv", "SHOW CONFIG returned no TiKV item (no TiKV instance answered)")


def certificate_expiry(not_after: str, read_at: float) -> Optional[TlsCertificate]:
    """Ssl_server_not_after as OpenSSL prints it ('Dec  1 12:00:00 2027 GMT') against the time the
    status was read; None when it does not parse."""
    import datetime as dt

    try:
        when = dt.datetime.strptime(" ".join(not_after.split()), "%b %d %H:%M:%S %Y GMT").replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return None
    return TlsCertificate.model_construct(not_after=when.isoformat().replace("+00:00", "Z"),
                                          days_left=round((when.timestamp() - read_at) / 86400, 2))


def parse_certificate(raw: RawServer, facts: ServerFacts) -> None:
    status = {k.lower(): _text(v) for k, v in raw.status}
    not_after = status.get("ssl_server_not_after", "").strip()
    if not not_after:
        facts.note_missing("server.tls_certificate", "the server reports no certificate (Ssl_server_not_after is "
                           "empty or absent: TLS is off, or the flavor does not report it)")
        return
    cert = certificate_expiry(not_after, raw.read_at) if raw.read_at is not None else None
    if cert is None:
        facts.note_missing("server.tls_certificate", f"Ssl_server_not_after {not_after!r} is not a date the advisor reads")
        return
    facts.tls_certificate = cert
