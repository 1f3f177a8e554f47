"""What the server collector read, unparsed: the hand-over from advisor.collect.mysql (reading) to
advisor.collect.parse (parsing). Plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class QueryError:
    """A statement the server refused while collecting: the statement, its error code and message."""

    query: str
    code: int
    message: str


@dataclass
class RawServer:
    """Everything read from the server, unparsed."""

    variables: list[tuple[str, Any]] = field(default_factory=list)
    status: list[tuple[str, Any]] = field(default_factory=list)
    status_after: Optional[list[tuple[str, Any]]] = None
    interval_seconds: Optional[float] = None
    session_ssl: list[tuple[str, Any]] = field(default_factory=list)
    connection_id: Optional[int] = None
    data_size: Optional[list[tuple[Any, ...]]] = None
    ps_tls: Optional[list[tuple[Any, ...]]] = None
    tls_channels: Optional[list[tuple[Any, ...]]] = None
    tidb_config: Optional[list[tuple[Any, ...]]] = None
    tidb_bench_config: Optional[list[tuple[Any, ...]]] = None
    # accounts and the data dictionary (advisor.collect.dictionary)
    current_user: Optional[str] = None
    own_privileges: Optional[list[tuple[Any, ...]]] = None
    accounts: Optional[list[tuple[Any, ...]]] = None
    schemas: Optional[list[tuple[Any, ...]]] = None
    tables: Optional[list[tuple[Any, ...]]] = None
    innodb_tables: Optional[list[tuple[Any, ...]]] = None
    unique_keys: Optional[list[tuple[Any, ...]]] = None
    auto_increment: Optional[list[tuple[Any, ...]]] = None
    auto_increment_columns: Optional[list[tuple[Any, ...]]] = None
    plugins: Optional[list[tuple[Any, ...]]] = None
    time_zones: Optional[list[tuple[Any, ...]]] = None
    transactions: Optional[list[tuple[Any, ...]]] = None
    read_at: Optional[float] = None  # epoch seconds when SHOW GLOBAL STATUS was read (certificate expiry)
    errors: dict[str, QueryError] = field(default_factory=dict)
    cuts: dict[str, str] = field(default_factory=dict)  # statement key -> what advisor.collect.limits cut
    queries: list[str] = field(default_factory=list)
