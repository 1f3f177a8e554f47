"""Parse what advisor.collect.dictionary read into the accounts, schemas, tables and plugins
sections of the snapshot. Pure: no I/O.

A refused statement becomes a `missing` record whose reason names the grant that would let the
advisor read it (docs/privileges.md), so a rule that needs the fact reports `unknown` with that
grant. So does a result that is complete only with a privilege the account lacks:
information_schema.SCHEMATA lists every schema only with SHOW DATABASES, and
information_schema.TABLES every table only with a privilege on it (global SELECT for all).
"""

from __future__ import annotations

import re
from typing import Any, Optional

from advisor.collect.raw import QueryError, RawServer
from advisor.snapshot import (Account, AutoIncrement, DataDictionary, LongTransactions, SchemaInfo, SchemaTables,
                              ServerFacts)
from advisor.units import parse_bool
from advisor.versions import Version, detect_flavor

# mysql.user columns (MySQL 5.7+, MariaDB) -> the privilege as GRANT names it
PRIVILEGE_COLUMNS = (
    ("Select_priv", "SELECT"), ("Insert_priv", "INSERT"), ("Update_priv", "UPDATE"), ("Delete_priv", "DELETE"),
    ("Create_priv", "CREATE"), ("Drop_priv", "DROP"), ("Alter_priv", "ALTER"), ("Reload_priv", "RELOAD"),
    ("Shutdown_priv", "SHUTDOWN"), ("Process_priv", "PROCESS"), ("File_priv", "FILE"), ("Grant_priv", "GRANT OPTION"),
    ("Super_priv", "SUPER"), ("Repl_slave_priv", "REPLICATION SLAVE"), ("Repl_client_priv", "REPLICATION CLIENT"),
    ("Create_user_priv", "CREATE USER"),
)
NO_PK_EXAMPLES = 20
AUTO_INCREMENT_KEPT = 20

# Largest value of each integer type (signed, unsigned): the manual's "Integer Types" table.
INTEGER_MAX = {
    "tinyint": (2**7 - 1, 2**8 - 1), "smallint": (2**15 - 1, 2**16 - 1), "mediumint": (2**23 - 1, 2**24 - 1),
    "int": (2**31 - 1, 2**32 - 1), "integer": (2**31 - 1, 2**32 - 1), "bigint": (2**63 - 1, 2**64 - 1),
}


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, (bytes, bytearray)):
        return v.decode("utf-8", errors="replace")
    return str(v)


def _flavor_version(variables: dict[str, Any]) -> tuple[str, Optional[Version]]:
    vs = _text(variables.get("version"))
    flavor = detect_flavor(vs, _text(variables.get("version_comment")))
    try:
        return flavor, Version.parse(vs)
    except ValueError:
        return flavor, None


def reads_dictionary(variables: dict[str, Any]) -> bool:
    """Accounts and the data dictionary are read on MySQL, Percona and MariaDB (TiDB keeps its
    accounts and schema in TiKV with other tables and privileges; not read)."""
    return _flavor_version(variables)[0] in ("mysql", "percona", "mariadb")


def accounts_query(variables: dict[str, Any]) -> str:
    """The account statement for this flavor and version; its columns are always User, Host,
    plugin, empty_password, account_locked, password_expired, ssl_type, is_role, then
    PRIVILEGE_COLUMNS in order."""
    flavor, version = _flavor_version(variables)
    if flavor == "mariadb":
        privs = ", ".join(f"u.{c}" for c, _ in PRIVILEGE_COLUMNS)
        if version is None or version >= Version(10, 4, 0):  # mysql.user is a view over mysql.global_priv
            return ("SELECT u.User, u.Host, u.plugin, u.authentication_string = '' AND u.Password = '', "
                    "COALESCE(JSON_VALUE(g.Priv, '$.account_locked'), 'false'), u.password_expired, u.ssl_type, "
                    f"u.is_role, {privs} FROM mysql.user u "
                    "LEFT JOIN mysql.global_priv g ON g.Host = u.Host AND g.User = u.User")
        return ("SELECT u.User, u.Host, u.plugin, u.authentication_string = '' AND u.Password = '', NULL, "
                f"u.password_expired, u.ssl_type, u.is_role, {privs} FROM mysql.user u")
    privs = ", ".join(c for c, _ in PRIVILEGE_COLUMNS)
    locked = "account_locked" if version is None or version >= Version(5, 7, 6) else "NULL"
    return (f"SELECT User, Host, plugin, authentication_string = '', {locked}, password_expired, ssl_type, 'N', "
            f"{privs} FROM mysql.user")


def account_name(current_user: Optional[str]) -> str:
    """CURRENT_USER() ('advisor@%') as a GRANT names it ('advisor'@'%')."""
    if not current_user or "@" not in current_user:
        return "the advisor's account"
    user, _, host = current_user.rpartition("@")
    return f"'{user}'@'{host}'"


def _yes(v: Any) -> Optional[bool]:
    if v is None:
        return None
    t = _text(v).strip().lower()
    if t in ("y", "true"):
        return True
    if t in ("n", "false", ""):
        return False
    return parse_bool(t)


def _refused(e: QueryError, what: str, grant: str) -> str:
    if e.code in (1142, 1143, 1227, 1044, 1045, 1370):
        return f"{what}: permission denied ({e.code} {e.message}); {grant} (docs/privileges.md)"
    if e.code in (1146, 1109, 1054):
        return f"{what}: not available on this server ({e.code} {e.message})"
    return f"{what}: query failed ({e.code} {e.message})"


def own_privileges(raw: RawServer) -> Optional[set[str]]:
    """The advisor account's global privileges (information_schema.USER_PRIVILEGES), or None."""
    if raw.own_privileges is None:
        return None
    me = account_name(raw.current_user)
    return {_text(p).upper() for grantee, p in raw.own_privileges if _text(grantee) == me}


def parse_accounts(raw: RawServer, facts: ServerFacts, flavor: str, version: Optional[Version]) -> None:
    who = account_name(raw.current_user)
    if raw.accounts is None:
        if "accounts" in raw.errors:
            tables = "mysql.user and mysql.global_priv" if flavor == "mariadb" and (
                version is None or version >= Version(10, 4, 0)) else "mysql.user"
            grants = " and ".join(f"`GRANT SELECT ON {t} TO {who}`" for t in tables.split(" and "))
            facts.note_missing("server.accounts", _refused(raw.errors["accounts"], tables,
                               f"to let the advisor read accounts (never password hashes) run {grants}"))
        return
    accounts = []
    for row in raw.accounts:
        user, host, plugin, empty, locked, expired, ssl_type, is_role, *privs = row
        accounts.append(Account.model_construct(
            user=_text(user), host=_text(host), plugin=_text(plugin) or "mysql_native_password",
            empty_password=True if empty is None else bool(int(empty)), locked=_yes(locked),
            password_expired=_yes(expired), is_role=bool(_yes(is_role)), ssl_type=_text(ssl_type).upper(),
            global_privileges=[name for (_, name), v in zip(PRIVILEGE_COLUMNS, privs) if _yes(v)]))
    facts.accounts = sorted(accounts, key=lambda a: (a.user, a.host))


def parse_schemas(raw: RawServer, facts: ServerFacts, privs: Optional[set[str]]) -> None:
    who = account_name(raw.current_user)
    if raw.schemas is None:
        if "schemas" in raw.errors:
            facts.note_missing("server.schemas", _refused(raw.errors["schemas"], "information_schema.SCHEMATA",
                                                          f"run `GRANT SHOW DATABASES ON *.* TO {who}`"))
        return
    if privs is not None and "SHOW DATABASES" not in privs:
        facts.note_missing("server.schemas", "information_schema.SCHEMATA lists only the schemas the advisor's "
                           f"account has a privilege on; run `GRANT SHOW DATABASES ON *.* TO {who}` to see every schema "
                           "(docs/privileges.md)")
        return
    facts.schemas = [SchemaInfo.model_construct(name=_text(n), charset=_text(cs), collation=_text(co))
                     for n, cs, co in sorted(raw.schemas, key=lambda r: _text(r[0]))]


def integer_max(column_type: str) -> Optional[int]:
    """The largest value of an integer column type ('int(11) unsigned' -> 4294967295)."""
    m = re.match(r"\s*([a-z]+)", column_type.lower())
    if not m or m.group(1) not in INTEGER_MAX:
        return None
    signed, unsigned = INTEGER_MAX[m.group(1)]
    return unsigned if "unsigned" in column_type.lower() else signed


def without_clustering_key(innodb_tables: list[tuple[Any, ...]], unique_keys: list[tuple[Any, ...]]) -> list[str]:
    """InnoDB tables (schema, table) with no unique index whose columns are all NOT NULL (the
    PRIMARY KEY is one), as schema.table in name order."""
    nullable: dict[tuple[str, str, str], bool] = {}
    for schema, table, index, null in unique_keys:
        key = (_text(schema), _text(table), _text(index))
        nullable[key] = nullable.get(key, False) or _text(null).upper() == "YES"
    keyed = {(s, t) for (s, t, _), has_null in nullable.items() if not has_null}
    return sorted(f"{_text(s)}.{_text(t)}" for s, t in innodb_tables if (_text(s), _text(t)) not in keyed)


def _auto_increment(tables: list[tuple[Any, ...]], columns: list[tuple[Any, ...]]) -> list[AutoIncrement]:
    ctypes = {(_text(s), _text(t)): _text(c) for s, t, c in columns}
    out = []
    for schema, table, nxt in tables:
        ctype = ctypes.get((_text(schema), _text(table)))
        if ctype is None:
            continue
        top = integer_max(ctype)
        if top is None or nxt is None:
            continue
        out.append(AutoIncrement.model_construct(table=f"{_text(schema)}.{_text(table)}", column_type=_text(ctype),
                                                 next_value=int(nxt), max_value=top))
    out.sort(key=lambda a: (-a.next_value / a.max_value, a.table))
    return out[:AUTO_INCREMENT_KEPT]


def parse_tables(raw: RawServer, facts: ServerFacts, privs: Optional[set[str]]) -> None:
    who = account_name(raw.current_user)
    grant = f"run `GRANT SELECT ON *.* TO {who}` (or SELECT on each schema)"
    if raw.tables is None:
        if "tables" in raw.errors:
            facts.note_missing("server.tables", _refused(raw.errors["tables"], "information_schema.TABLES", grant))
        return
    if privs is not None and "SELECT" not in privs:
        facts.note_missing("server.tables", "information_schema.TABLES lists only the tables the advisor's account "
                           f"has a privilege on; {grant} to see every table (docs/privileges.md)")
        return
    schemas: dict[str, SchemaTables] = {}
    for schema, engine, collation, count, free in raw.tables:
        st = schemas.setdefault(_text(schema), SchemaTables.model_construct(
            tables=0, engines={}, collations={}, without_primary_key=0, data_free_bytes=0))
        n = int(count or 0)
        st.tables += n
        st.data_free_bytes += int(free or 0)
        if _text(engine):
            st.engines[_text(engine)] = st.engines.get(_text(engine), 0) + n
        if _text(collation):
            st.collations[_text(collation)] = st.collations.get(_text(collation), 0) + n
    dd = DataDictionary.model_construct(schemas=dict(sorted(schemas.items())), without_primary_key=[],
                                        auto_increment=[])
    for name, what in (("innodb_tables", "information_schema.TABLES (InnoDB tables)"),
                       ("unique_keys", "information_schema.STATISTICS (unique keys)"),
                       ("auto_increment", "information_schema.TABLES (AUTO_INCREMENT)"),
                       ("auto_increment_columns", "information_schema.COLUMNS (auto-increment columns)")):
        if getattr(raw, name) is None:
            e = raw.errors.get(name)
            facts.note_missing("server.tables", _refused(e, what, grant) if e else f"{what} was not read")
            return
    for name in without_clustering_key(raw.innodb_tables or [], raw.unique_keys or []):
        st = dd.schemas.get(name.split(".", 1)[0])
        if st is not None:
            st.without_primary_key += 1
        if len(dd.without_primary_key) < NO_PK_EXAMPLES:
            dd.without_primary_key.append(name)
    dd.auto_increment = _auto_increment(raw.auto_increment or [], raw.auto_increment_columns or [])
    facts.tables = dd


def parse_plugins(raw: RawServer, facts: ServerFacts) -> None:
    if raw.plugins is not None:
        facts.plugins = {_text(n): _text(s) for n, s in raw.plugins}
    elif "plugins" in raw.errors:
        facts.note_missing("server.plugins", _refused(raw.errors["plugins"], "information_schema.PLUGINS",
                                                      "a login needs no grant for it"))


def parse_time_zones_and_transactions(raw: RawServer, facts: ServerFacts) -> None:
    who = account_name(raw.current_user)
    if raw.time_zones:
        facts.time_zone_names = int(raw.time_zones[0][0] or 0)
    elif "time_zones" in raw.errors:
        facts.note_missing("server.time_zone_names", _refused(raw.errors["time_zones"], "mysql.time_zone_name",
                                                              f"run `GRANT SELECT ON mysql.time_zone_name TO {who}`"))
    if raw.transactions:
        count, oldest = raw.transactions[0]
        facts.transactions = LongTransactions.model_construct(count=int(count or 0),
                                                              oldest_seconds=None if oldest is None else int(oldest))
    elif "transactions" in raw.errors:
        facts.note_missing("server.transactions", _refused(raw.errors["transactions"], "information_schema.INNODB_TRX",
                                                           f"run `GRANT PROCESS ON *.* TO {who}`"))


def parse_dictionary(raw: RawServer, facts: ServerFacts) -> None:
    variables = {k.lower(): v for k, v in raw.variables}
    flavor, version = _flavor_version(variables)
    if not reads_dictionary(variables):
        for path in ("server.accounts", "server.schemas", "server.tables", "server.plugins", "server.time_zone_names",
                     "server.transactions"):
            facts.note_missing(path, f"not read on {flavor}: accounts and the data dictionary are read on MySQL, "
                               "Percona Server and MariaDB")
        return
    privs = own_privileges(raw)
    parse_accounts(raw, facts, flavor, version)
    parse_schemas(raw, facts, privs)
    parse_tables(raw, facts, privs)
    parse_plugins(raw, facts)
    parse_time_zones_and_transactions(raw, facts)
