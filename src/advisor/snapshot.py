"""The snapshot: every fact the rules can read, as a versioned model (validated by pydantic when read from JSON).

A snapshot is a file (`advisor collect -o snap.json`), so an audit can be replayed offline and
gives the same findings as the live run. Every section records what could not be collected and
why (`missing`), so a rule that needs such a fact reports `unknown` with that reason instead of
guessing. Passwords are never part of a snapshot: the model has no field that could hold one.

Fact paths used by rules (see advisor.rules.facts) address this model with dots:
`server.variables.sort_buffer_size`, `host.memory.total_bytes`, `client.route.interface`, ...
"""


from typing import Literal, Optional

from advisor.versions import flavor_name

SCHEMA_VERSION = 1


from advisor.plainmodel import Field, SnapshotModel, field_validator, pydantic_twin  # noqa: F401 (re-exported)


class _Model(SnapshotModel):
    pass


class Missing(_Model):
    """A fact that could not be collected: its path from the snapshot root and why."""

    fact: str
    reason: str


class _Section(_Model):
    missing: list[Missing] = Field(default_factory=list)

    def note_missing(self, fact: str, reason: str) -> None:
        self.missing.append(Missing.model_construct(fact=fact, reason=reason))


# ---------------------------------------------------------------- target and server

Flavor = Literal["mysql", "percona", "mariadb", "tidb"]
Transport = Literal["tcp", "socket"]


class Target(_Model):
    host: Optional[str] = None
    port: Optional[int] = None
    socket: Optional[str] = None
    transport: Transport = "tcp"
    flavor: Flavor
    version: str = Field(description="normalised x.y.z; TiDB's own version for TiDB")
    version_string: str = Field(description="@@version as the server reports it")
    version_comment: str = ""

    @property
    def where(self) -> str:
        """'db1:3306', the socket path, or '' when the address is not known (a snapshot imported from a dump)."""
        if self.transport != "tcp":
            return self.socket or "socket"
        if not self.host:
            return ""
        return f"{self.host}:{self.port}" if self.port else self.host

    @property
    def title(self) -> str:
        """'MySQL 5.7.41 at db1:3306', or 'MySQL 5.7.41 (address not known)' for an imported dump."""
        name = f"{flavor_name(self.flavor)} {self.version}"
        return f"{name} at {self.where}" if self.where else f"{name} (address not known)"
    @field_validator("version")
    @classmethod
    def _parses(cls, v: str) -> str:
        from advisor.versions import Version

        Version.parse(v)  # ValueError -> a validation error naming target.version
        return v


class ConnectionInfo(_Model):
    """The advisor's own connection to the server."""

    transport: Transport = "tcp"
    user: Optional[str] = None
    thread_id: Optional[int] = None
    tls_version: Optional[str] = Field(None, description="None when the connection is not encrypted")
    tls_cipher: Optional[str] = None
    ssl_mode: Optional[str] = None


class TlsSession(_Model):
    thread_id: Optional[int] = None
    user: Optional[str] = None
    host: Optional[str] = None
    tls_version: Optional[str] = None
    tls_cipher: Optional[str] = None


class TlsUsage(_Model):
    """TLS state of the server's other client connections, where the server exposes it."""

    source: Literal["performance_schema", "none"]
    sessions_total: int = 0
    sessions_tls: int = 0
    sessions: list[TlsSession] = Field(default_factory=list)


class EngineSize(_Model):
    tables: int = 0
    data_bytes: int = 0
    index_bytes: int = 0


class StatusInterval(_Model):
    """Per-second rates of counters over a sampling interval (--sample-seconds)."""

    seconds: float
    rates: dict[str, float] = Field(default_factory=dict)


# ---------------------------------------------------------------- accounts and data dictionary (issue 15)

class Account(_Model):
    """One row of mysql.user (mysql.global_priv on MariaDB 10.4+). Never the hash itself: only
    whether the authentication string is empty."""

    user: str
    host: str
    plugin: str = Field("", description="authentication plugin ('' read as mysql_native_password)")
    empty_password: bool = Field(False, description="the authentication string (and MariaDB's Password) is ''")
    locked: Optional[bool] = Field(None, description="account_locked; None where the server has no such flag")
    password_expired: Optional[bool] = None
    is_role: bool = False
    ssl_type: str = Field("", description="REQUIRE clause: '', ANY, X509, SPECIFIED")
    global_privileges: list[str] = Field(default_factory=list,
                                         description="global privileges from mysql.user's *_priv columns, e.g. SUPER")


class SchemaInfo(_Model):
    name: str
    charset: str = ""
    collation: str = ""


class AutoIncrement(_Model):
    """A table's next AUTO_INCREMENT value against its column type's maximum."""

    table: str = Field(description="schema.table")
    column_type: str
    next_value: int
    max_value: int


class SchemaTables(_Model):
    """Base tables of one user schema (information_schema.TABLES)."""

    tables: int = 0
    engines: dict[str, int] = Field(default_factory=dict, description="engine -> number of tables")
    collations: dict[str, int] = Field(default_factory=dict, description="table collation -> number of tables")
    without_primary_key: int = Field(0, description="InnoDB tables with neither a PRIMARY KEY nor a UNIQUE key "
                                                    "over NOT NULL columns (which InnoDB would cluster on)")
    data_free_bytes: int = 0


class DataDictionary(_Model):
    """User schemas (not mysql, information_schema, performance_schema, sys)."""

    schemas: dict[str, SchemaTables] = Field(default_factory=dict)
    without_primary_key: list[str] = Field(default_factory=list,
                                           description="the first 20 such tables, schema.table, in name order")
    auto_increment: list[AutoIncrement] = Field(default_factory=list,
                                                description="the tables whose AUTO_INCREMENT is closest to its "
                                                            "type's maximum (at most 20, highest share first)")


class LongTransactions(_Model):
    """information_schema.INNODB_TRX: open InnoDB transactions at collection time."""

    count: int = 0
    oldest_seconds: Optional[int] = Field(None, description="age of the oldest open transaction; None when none is open")


class TlsCertificate(_Model):
    """The server certificate's expiry (status Ssl_server_not_after) against the collection time."""

    not_after: str = Field(description="ISO 8601 UTC")
    days_left: float = Field(description="days from the collection to not_after; negative once expired")


LATER_SERVER_SECTIONS = ("accounts", "schemas", "tables", "plugins", "time_zone_names", "transactions",
                         "tls_certificate")  # issue 15; left out of the JSON when None


class ServerFacts(_Section):
    variables: dict[str, str] = Field(default_factory=dict, description="SHOW GLOBAL VARIABLES; the values of "
                                      "variables that hold a secret (report_password, ...) are '***'")
    status: dict[str, str] = Field(default_factory=dict)

    @field_validator("variables")
    @classmethod
    def _masked(cls, v: dict[str, str]) -> dict[str, str]:
        """A snapshot written before masking (or by hand) is masked as it is read."""
        from advisor.knowledge.catalogue import mask_secret_variables

        return mask_secret_variables(v)
    interval: Optional[StatusInterval] = None
    data_size: Optional[dict[str, EngineSize]] = Field(None, description="per storage engine, user schemas only")
    connection: ConnectionInfo = Field(default_factory=ConnectionInfo.model_construct)
    tls_usage: Optional[TlsUsage] = None
    tls_channels: Optional[dict[str, str]] = Field(
        None, description="MySQL 8 performance_schema.tls_channel_status for mysql_main, PROPERTY -> VALUE")
    tidb_config: Optional[dict[str, str]] = Field(None, description="TiDB SHOW CONFIG items the rules read")
    accounts: Optional[list[Account]] = Field(None, description="mysql.user / mysql.global_priv, no password hashes")
    schemas: Optional[list[SchemaInfo]] = Field(None, description="information_schema.SCHEMATA, every schema")
    tables: Optional[DataDictionary] = Field(None, description="information_schema.TABLES per user schema")
    plugins: Optional[dict[str, str]] = Field(None, description="information_schema.PLUGINS name -> status")
    time_zone_names: Optional[int] = Field(None, description="rows of mysql.time_zone_name (named time zones loaded)")
    transactions: Optional[LongTransactions] = None
    tls_certificate: Optional[TlsCertificate] = None


# ---------------------------------------------------------------- host (issue: host facts)

DeviceClass = Literal["rotational", "ssd", "nvme_plp", "nvme_client", "virtual", "unknown"]


class Cpu(_Model):
    model: Optional[str] = None
    logical_count: Optional[int] = None
    numa_nodes: Optional[int] = None
    governor: Optional[str] = None


class Memory(_Model):
    total_bytes: Optional[int] = None
    cgroup_version: Optional[int] = None
    cgroup_limit_bytes: Optional[int] = Field(None, description="None when the cgroup has no limit")
    effective_limit_bytes: Optional[int] = Field(None, description="min(total, cgroup limit)")
    swap_total_bytes: Optional[int] = None
    swappiness: Optional[int] = None


class Thp(_Model):
    enabled: Optional[str] = None
    defrag: Optional[str] = None


class BlockDevice(_Model):
    name: str
    kind: Optional[str] = Field(None, description="nvme, sd, vd, xvd, md, dm, mmc, loop, ...")
    model: Optional[str] = None
    vendor: Optional[str] = None
    size_bytes: Optional[int] = None
    rotational: Optional[bool] = None
    write_cache: Optional[Literal["write back", "write through"]] = None
    scheduler: Optional[str] = None
    nvme_vwc: Optional[bool] = Field(None, description="NVMe volatile write cache present")
    transport: Optional[str] = None
    device_class: DeviceClass = "unknown"
    class_reason: str = ""


class Storage(_Model):
    path: str
    role: str = "datadir"
    mount_point: Optional[str] = None
    fstype: Optional[str] = None
    mount_options: list[str] = Field(default_factory=list)
    source: Optional[str] = None
    stack: list[str] = Field(default_factory=list, description="block devices from the mount down to the disks")
    devices: list[BlockDevice] = Field(default_factory=list, description="physical devices at the bottom")
    device_class: DeviceClass = "unknown"
    class_reason: str = ""


class HostFacts(_Section):
    source: Literal["local", "ssh", "file", "recorded"] = "local"
    origin: Optional[str] = Field(None, description="how these facts were obtained and why they are the server's host")
    hostname: Optional[str] = None
    kernel: Optional[str] = None
    cpu: Cpu = Field(default_factory=Cpu.model_construct)
    memory: Memory = Field(default_factory=Memory.model_construct)
    thp: Thp = Field(default_factory=Thp.model_construct)
    mysqld_open_files_limit: Optional[int] = None
    datadir: Optional[Storage] = None
    other_dirs: list[Storage] = Field(default_factory=list)


# ---------------------------------------------------------------- client network path

class Interface(_Model):
    name: str
    operstate: Optional[str] = None
    speed_mbps: Optional[int] = None
    duplex: Optional[str] = None
    mtu: Optional[int] = None
    addresses: list[str] = Field(default_factory=list)
    virtual: Optional[bool] = None
    rx_bytes: Optional[int] = None
    tx_bytes: Optional[int] = None
    kind: Optional[str] = Field(None, description="physical, loopback, vlan, bridge, bond, virtual, ... (uevent DEVTYPE)")
    lower: list[str] = Field(default_factory=list, description="interfaces this one sits on (lower_* links)")
    driver: Optional[str] = Field(None, description="kernel driver of the device behind it, when it has one")


class Route(_Model):
    destination: str
    kind: Literal["loopback", "socket", "interface"]
    interface: Optional[str] = None
    source_address: Optional[str] = None
    gateway: Optional[str] = None
    speed_mbps: Optional[int] = None
    duplex: Optional[str] = None
    mtu: Optional[int] = None
    destination_address: Optional[str] = Field(None, description="the IP address the destination resolved to")
    method: Optional[str] = Field(None, description="how the route was found: 'ip route get' or /proc/net/route")


class ClientFacts(_Section):
    source: Literal["local", "recorded"] = "local"
    hostname: Optional[str] = None
    route: Optional[Route] = None
    interfaces: list[Interface] = Field(default_factory=list)


# ---------------------------------------------------------------- calibration

class HistogramBin(_Model):
    lo: float = Field(description="lower edge, inclusive")
    hi: float = Field(description="upper edge, exclusive")
    count: int


class Histogram(_Model):
    """Log-bucket histogram of the samples (advisor.histogram): `buckets_per_decade` buckets per
    power of ten, non-empty ones only, ascending; the counts add up to the samples."""

    unit: Literal["ms"] = "ms"
    scale: Literal["log10"] = "log10"
    buckets_per_decade: int = 20
    bins: list[HistogramBin] = Field(default_factory=list)


class Distribution(_Model):
    p50: Optional[float] = None
    p99: Optional[float] = None
    p25: Optional[float] = Field(None, description="25th percentile: with p75, the middle half of the samples (the spread "
                                 "a verdict compares with its threshold)")
    p75: Optional[float] = Field(None, description="75th percentile")
    samples: int = 0
    min: Optional[float] = None
    max: Optional[float] = None
    mean: Optional[float] = None
    histogram: Optional[Histogram] = Field(None, description="the samples as a log-bucket histogram")


class StreamProbe(_Model):
    mbytes_per_s: Optional[float] = None
    bytes: int = 0
    seconds: float = 0.0
    client_cpu_bound: Optional[bool] = None
    client_cpu_fraction: Optional[float] = None
    link_speed_mbps: Optional[int] = None
    line_rate_fraction: Optional[float] = None
    method: Optional[str] = Field(None, description="row generator: sequence, recursive_cte or derived_digits")
    row_bytes: Optional[int] = None
    chunks: int = Field(0, description="queries that count towards mbytes_per_s (warm-up excluded)")
    basis: Optional[Literal["tcp_info", "rows"]] = Field(
        None, description="tcp_info: bytes received on the socket (TCP payload, kernel counter); rows: result bytes")
    tls: Optional[bool] = Field(None, description="whether the probe's connection was encrypted")
    transport: Optional[Transport] = None
    route_kind: Optional[Literal["loopback", "socket", "interface"]] = None
    payload_ceiling_mbytes_per_s: Optional[float] = Field(
        None, description="link Mb/s x 1e6/8 x 1460/1538, in MB/s (10^6 bytes/s)")
    server_mbytes_per_s: Optional[float] = Field(
        None, description="rate at which the server generates the same rows without sending them")


class OnOff(_Model):
    on: Optional[float] = None
    off: Optional[float] = None


class OnOffHistogram(_Model):
    on: Optional[Histogram] = None
    off: Optional[Histogram] = None


class TlsProbe(_Model):
    available: bool = False
    reason: str = ""
    handshake_ms: OnOff = Field(default_factory=OnOff.model_construct)
    throughput_ratio: Optional[float] = Field(None, description="TLS throughput / plain throughput")
    samples: int = 0
    plain_possible: Optional[bool] = None
    tls_possible: Optional[bool] = None
    tls_version: Optional[str] = None
    tls_cipher: Optional[str] = None
    stream_mbytes_per_s: OnOff = Field(default_factory=OnOff.model_construct)
    query_ms: OnOff = Field(default_factory=OnOff.model_construct, description="p50 of a trivial query on each connection")
    query_samples: int = 0
    query_ratio: Optional[float] = Field(
        None, description="median over rounds of (TLS ÷ plain) small-query medians, each round's pair run back to "
                          "back on the same CPU")
    query_ratio_p25: Optional[float] = Field(None, description="25th percentile of the per-round ratios: with "
                                             "query_ratio_p75, the ratio's spread")
    query_ratio_p75: Optional[float] = Field(None, description="75th percentile of the per-round ratios")
    stream_samples: int = 0
    handshake_histogram: Optional[OnOffHistogram] = Field(None, description="every connect time on each side")
    query_histogram: Optional[OnOffHistogram] = Field(
        None, description="every small-query latency on each side (the first of each connection excluded)")


class SortProbe(_Model):
    ratio: Optional[float] = Field(None, description="latency with the server's sort_buffer_size / with a small one")
    ratio_p25: Optional[float] = Field(None, description="25th percentile of the per-round ratios (each round's pair "
                                       "run back to back): with ratio_p75, the ratio's spread")
    ratio_p75: Optional[float] = Field(None, description="75th percentile of the per-round ratios")
    server_value: Optional[int] = Field(None, json_schema_extra={"unit": "bytes"}, description="the server's sort_buffer_size")
    small_value: Optional[int] = Field(None, json_schema_extra={"unit": "bytes"}, description="the small session value compared")
    server_ms: Optional[float] = None
    small_ms: Optional[float] = None
    samples: int = 0
    rows: Optional[int] = Field(None, description="rows the probe query sorts")
    method: Optional[str] = None


FlushClass = Literal["memory", "plp_like", "intermediate", "client_nvme_like", "slow"]


class FlushProbe(_Model):
    """Where and how the flush probe measured (fsync_ms holds the distribution)."""

    path: Optional[str] = Field(None, description="directory of the temporary file")
    fstype: Optional[str] = None
    write_bytes: int = 16384
    flush_class: Optional[FlushClass] = None
    class_reason: str = ""


class WriteProbe(_Model):
    """The opt-in commit probe's scratch schema (commit_ms holds the distribution)."""

    schema_name: str
    created: bool = False
    dropped: bool = False
    cleanup: str = Field("", description="how the schema was removed, or why it could not be")


class Calibration(_Section):
    duration_s: float = 0.0
    budget_s: Optional[float] = None
    rtt_ms: Optional[Distribution] = None
    stream: Optional[StreamProbe] = None
    tls: Optional[TlsProbe] = None
    sort_probe: Optional[SortProbe] = None
    fsync_ms: Optional[Distribution] = None
    commit_ms: Optional[Distribution] = None
    mode: Optional[Literal["full", "light"]] = Field(None, description="light: round trips only")
    connections_max: Optional[int] = Field(None, description="most connections the probes held open at once")
    local: Optional[bool] = Field(None, description="whether the advisor runs on the server's host")
    local_reason: str = ""
    flush: Optional[FlushProbe] = None
    write_probe: Optional[WriteProbe] = None


# ---------------------------------------------------------------- imported dumps

class ImportSource(_Model):
    """One file an imported snapshot was built from (`advisor import`)."""

    path: str
    format: str = Field(description="tab, table, vertical, json or csv (docs/snapshot-format.md)")
    kind: Literal["variables", "status"]
    rows: int = Field(description="distinct names read from the file")


class ImportInfo(_Model):
    """How a snapshot was imported from dumps rather than collected from a live server."""

    sources: list[ImportSource] = Field(default_factory=list)
    flavor_from: str = Field(description="version_comment, --flavor or --version")
    version_from: str = Field(description="version or --version")
    dump_time: Optional[str] = Field(None, description="when the dump was taken, as the dump says it (no time zone)")
    notes: list[str] = Field(default_factory=list, description="what the import skipped or changed, one sentence each")


# ---------------------------------------------------------------- the snapshot

class Snapshot(_Model):
    schema_version: Literal[1] = SCHEMA_VERSION
    advisor_version: str
    collected_at: str = Field(description="ISO 8601 UTC")
    target: Target
    server: ServerFacts = Field(default_factory=ServerFacts.model_construct)
    host: Optional[HostFacts] = None
    client: Optional[ClientFacts] = None
    calibration: Optional[Calibration] = None
    missing: list[Missing] = Field(default_factory=list, description="whole sections not collected, and why")
    imported: Optional[ImportInfo] = Field(None, description="set when the snapshot was built from dumps by "
                                                             "`advisor import`; None for a live collection")

    def to_json(self) -> str:
        # `imported` and the account / data-dictionary sections are written only when set, so a
        # snapshot without them reads as it did before the fields existed
        exclude: dict = {"imported": True} if self.imported is None else {}
        unset = {f for f in LATER_SERVER_SECTIONS if getattr(self.server, f) is None}
        if unset:
            exclude["server"] = unset
        return self.model_dump_json(indent=2, exclude_none=False, exclude=exclude or None) + "\n"


def load_snapshot(text: str, source: str = "snapshot") -> Snapshot:
    """Parse and validate a snapshot document. Raises SnapshotError with one clear paragraph."""
    import json

    from advisor.errors import SnapshotError
    from advisor.inputs import BadInput, clip, load_json

    tip = "collect a new one with `advisor collect -o snap.json`, or check that the file was copied whole."
    try:
        raw = load_json(text)
    except json.JSONDecodeError as e:
        raise SnapshotError(
            f"{source} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
            "it may be truncated or not a snapshot.", tip) from None
    except BadInput as e:
        raise SnapshotError(f"{source} cannot be read as a snapshot: {e}.", tip) from None
    if not isinstance(raw, dict):
        raise SnapshotError(f"{source} is JSON but not a snapshot object.", tip)
    sv = raw.get("schema_version")
    if sv != SCHEMA_VERSION:
        raise SnapshotError(
            f"{source} has schema_version {clip(sv, 40)}; this advisor reads schema_version {SCHEMA_VERSION}.",
            "use the advisor version that wrote it, or collect a new snapshot.")
    from advisor.plainmodel import Unsure, fast_validate

    try:
        return fast_validate(Snapshot, raw)  # every value already of its type: no pydantic import
    except Unsure:
        pass
    from pydantic import ValidationError

    try:
        return Snapshot.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        loc = clip(".".join(str(p) for p in first["loc"]), 200).strip("'")
        more = f" (and {e.error_count() - 1} more problems)" if e.error_count() > 1 else ""
        raise SnapshotError(f"{source} is not a valid snapshot: {loc}: {clip(first['msg'], 300).strip(chr(39))}{more}.",
                            tip) from None
