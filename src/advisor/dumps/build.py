"""Turn parsed dumps into a snapshot. Pure: the caller passes the time, the advisor version and
any host facts it read.

Target flavor and version come from the `version` and `version_comment` variables through the
same code as a live collection (advisor.collect.parse.parse_target); --flavor / --version override
them. Everything a dump cannot hold is marked missing with a reason that says what to supply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from advisor.collect.mysql import RawServer
from advisor.collect.parse import parse_target
from advisor.dumps.model import DumpError, Kind, Row, Section
from advisor.snapshot import (HostFacts, ImportInfo, ImportSource, Missing, ServerFacts, Snapshot, StatusInterval,
                              Target)
from advisor.versions import FLAVORS, Version, detect_flavor

# rates over a status interval need enough seconds for Uptime's one-second resolution
MIN_INTERVAL_SECONDS = 10

HOST_TIP = ("run `advisor collect --host-facts-only -o host.json` on the server host and pass --host-facts host.json "
            "to `advisor import`")


@dataclass
class Input:
    """One parsed file: where it came from, its format, the section used and the parser's notes."""

    path: str
    format: str
    section: Section
    notes: list[str] = field(default_factory=list)
    collected_at: Optional[str] = None


def _status_name(name: str) -> str:
    """information_schema.GLOBAL_STATUS writes names in upper case; SHOW STATUS writes `Com_select`.
    Rules look names up without regard to case, so this only makes evidence read as SHOW STATUS does."""
    if not name.isupper():
        return name
    low = name.lower()
    return low if low.startswith("wsrep") else low[:1].upper() + low[1:]


def clean_rows(rows: list[Row], kind: Kind, where: str) -> tuple[dict[str, str], list[str]]:
    """Names as the server's SHOW writes them, SQL NULL as '', duplicates folded. A name given twice
    with different values means two dumps in one file: DumpError."""
    out: dict[str, str] = {}
    seen_at: dict[str, int] = {}
    notes: list[str] = []
    nulls = dups = 0
    upper = sum(1 for n, _ in rows if n.isupper())
    for i, (name, value) in enumerate(rows):
        key = name.lower() if kind == "variables" else _status_name(name)
        if value == "NULL":
            value, nulls = "", nulls + 1
        if key in out:
            if out[key] != value:
                a, b = out[key], value
                raise DumpError(f"{where} gives {key} twice with different values (row {seen_at[key] + 1}: "
                                f"{_show(a)}, row {i + 1}: {_show(b)}); it may hold two dumps or two servers")
            dups += 1
            continue
        out[key], seen_at[key] = value, i
    if upper > len(rows) // 2:
        notes.append(f"{where}: names were upper case (information_schema); stored as SHOW {kind.upper()} writes them")
    if nulls:
        notes.append(f"{where}: {nulls} NULL value(s) stored as empty strings, as a live collection stores them")
    if dups:
        notes.append(f"{where}: {dups} row(s) repeated with the same value were read once")
    return out, notes


def _show(v: str) -> str:
    return repr(v if len(v) <= 40 else v[:37] + "...")


def _interval(section: Section) -> tuple[Optional[StatusInterval], Optional[str]]:
    """Rates between the first and last sample of a multi-sample status file, over the Uptime
    difference; None with the reason when the samples cannot give rates."""
    if len(section.samples) < 2:
        return None, None
    first, last = dict(section.samples[0]), dict(section.samples[-1])
    up0, up1 = _num(first.get("Uptime")), _num(last.get("Uptime"))
    if up0 is None or up1 is None:
        return None, "the status samples have no Uptime, so the time between them is unknown; rates are since start"
    seconds = up1 - up0
    if seconds < MIN_INTERVAL_SECONDS:
        return None, (f"the {len(section.samples)} status samples span {seconds:g} s of Uptime, too short for rates "
                      f"(at least {MIN_INTERVAL_SECONDS} s); rates are since start")
    rates: dict[str, float] = {}
    for k, v in last.items():
        a, b = _num(first.get(k)), _num(v)
        if a is not None and b is not None and b >= a:
            rates[k] = round((b - a) / seconds, 6)
    return StatusInterval.model_construct(seconds=float(seconds), rates=rates), None


def _num(v: Optional[str]) -> Optional[float]:
    try:
        return float(v) if v is not None and v.strip() else None
    except ValueError:
        return None


def build_snapshot(variables: Input, status: Optional[Input], *, advisor_version: str, now: str,
                   flavor: Optional[str] = None, version: Optional[str] = None,
                   host: Optional[HostFacts] = None) -> Snapshot:
    """A snapshot from a variables dump and an optional status dump."""
    if flavor is not None and flavor not in FLAVORS:
        raise DumpError(f"--flavor {flavor!r} is not one of {', '.join(FLAVORS)}")
    if version is not None:
        try:
            Version.parse(version)
        except ValueError:
            raise DumpError(f"--version {version!r} is not a version (write e.g. 8.0.36)") from None
    vars_, notes = clean_rows(variables.section.rows, "variables", variables.path)
    notes = list(variables.notes) + notes
    stat: dict[str, str] = {}
    if status is not None:
        stat, more = clean_rows(status.section.rows, "status", status.path)
        notes += status.notes + more

    raw = RawServer(variables=list(vars_.items()))
    target = parse_target(raw, None, None, None)
    has_version = bool(vars_.get("version", "").strip())
    if not has_version and version is None:
        raise DumpError(f"{variables.path} has no `version` variable, so the server's flavor and version are unknown; "
                        "pass --flavor (mysql, percona, mariadb or tidb) and --version (e.g. 8.0.36)")
    flavor_from = "version_comment" if has_version else "--flavor"
    version_from = "version" if has_version else "--version"
    if version is not None:
        target.version = str(Version.parse(version))
        if has_version and target.version != str(Version.parse(vars_["version"])):
            notes.append(f"--version {version} overrides the dump's version {vars_['version']}")
        if not has_version:
            target.version_string = version
        version_from = "--version"
        if flavor is None and not has_version:
            target.flavor = detect_flavor(version)  # type: ignore[assignment]
    if flavor is not None:
        if has_version and flavor != target.flavor:
            notes.append(f"--flavor {flavor} overrides the flavor the dump's version says ({target.flavor})")
        target.flavor = flavor  # type: ignore[assignment]
        flavor_from = "--flavor"
    elif not has_version:
        flavor_from = "--version"

    from advisor.knowledge.catalogue import mask_secret_variables

    server = ServerFacts.model_construct(variables=mask_secret_variables(vars_), status=stat, missing=[])
    if status is not None:
        interval, why = _interval(status.section)
        if interval is not None:
            server.interval = interval
            notes.append(f"rates measured between the first and last of {len(status.section.samples)} status samples "
                         f"({interval.seconds:g} s apart)")
        elif why:
            notes.append(why)
    _mark_server_missing(server, target, status is not None)

    sources = [ImportSource.model_construct(path=variables.path, format=variables.format, kind="variables",
                                            rows=len(vars_))]
    if status is not None:
        sources.append(ImportSource.model_construct(path=status.path, format=status.format, kind="status",
                                                    rows=len(stat)))
    collected = variables.collected_at or (status.collected_at if status else None)
    info = ImportInfo.model_construct(sources=sources, flavor_from=flavor_from, version_from=version_from,
                                      dump_time=collected, notes=notes)
    snap = Snapshot.model_construct(advisor_version=advisor_version, collected_at=now, target=target, server=server,
                                    host=host, client=None, calibration=None, missing=[], imported=info)
    if host is None:
        snap.missing.append(Missing.model_construct(fact="host", reason=(
            "imported from a dump, which holds no facts of the server host (CPU, memory and cgroup limit, swap, THP, "
            f"the storage behind the datadir), so the rules that need them report unknown. Tip: {HOST_TIP}")))
    snap.missing.append(Missing.model_construct(fact="client", reason=(
        "imported from a dump: the benchmark client's network path to the server was not read. Tip: run "
        "`advisor audit -h HOST` against the live server from the client machine")))
    snap.missing.append(Missing.model_construct(fact="calibration", reason=(
        "imported from a dump: no calibration ran against the server. Tip: run `advisor audit -h HOST --calibrate` "
        "against the live server")))
    return snap


def _mark_server_missing(server: ServerFacts, target: Target, has_status: bool) -> None:
    if not has_status:
        server.note_missing("server.status", (
            "no status dump was given, so counters, rates and Uptime are unknown. Tip: also save "
            "`mysql -NBe 'SHOW GLOBAL STATUS' > status.txt` and pass --status status.txt"))
    server.note_missing("server.connection", (
        "imported from a dump: the advisor made no connection of its own, so its TLS state is not known"))
    server.note_missing("server.tls_usage", (
        "imported from a dump: per-connection TLS state (performance_schema) is not part of SHOW VARIABLES/STATUS; "
        "Ssl_accepts / Connections since start is used instead"))
    server.note_missing("server.data_size", (
        "imported from a dump: data size per engine (information_schema.TABLES) is not part of it. Tip: audit the "
        "live server, or collect a snapshot with `advisor collect`"))
    for path, what in (("server.accounts", "accounts (mysql.user)"), ("server.schemas", "schemas (information_schema.SCHEMATA)"),
                       ("server.tables", "tables per schema (information_schema.TABLES)"),
                       ("server.plugins", "plugins (information_schema.PLUGINS)"),
                       ("server.time_zone_names", "time zone tables (mysql.time_zone_name)"),
                       ("server.transactions", "open transactions (information_schema.INNODB_TRX)")):
        server.note_missing(path, (
            f"imported from a dump: {what} are not part of SHOW VARIABLES/STATUS. Tip: audit the live server, or "
            "collect a snapshot with `advisor collect` (docs/privileges.md lists the grants)"))
    server.note_missing("server.tls_certificate", (
        "imported from a dump: when the dump was taken is not known, so the certificate's remaining days "
        "(Ssl_server_not_after) are not judged. Tip: audit the live server"))
    if target.flavor == "tidb":
        server.note_missing("server.tidb_config", (
            "imported from a dump: TiDB's SHOW CONFIG is not part of it. Tip: audit the live server"))
