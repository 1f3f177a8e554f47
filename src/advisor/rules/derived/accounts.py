"""Derived facts about accounts (server.accounts: mysql.user / mysql.global_priv, never a hash) and
the password policy. Lists are rendered as the server names accounts: 'user'@'host', comma-separated,
so that a message names every account a DBA has to change."""

from __future__ import annotations

from typing import Any, Callable

from advisor.rules.facts import FactSet, FactView
from advisor.snapshot import Account

FACTS = FactSet()

# Plugins that authenticate without a password the server stores: the OS user (unix_socket,
# auth_socket), PAM, GSSAPI/Kerberos, LDAP, Windows. An empty authentication string means something
# else for them (for unix_socket: no other OS user may log in), so they never count as "no password".
EXTERNAL_AUTH = {
    "unix_socket", "auth_socket", "pam", "auth_pam", "auth_pam_compat", "authentication_pam", "gssapi",
    "auth_gssapi", "authentication_kerberos", "authentication_ldap_sasl", "authentication_ldap_simple",
    "authentication_windows", "authentication_fido", "authentication_webauthn", "authentication_oci",
}
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
# Where a password-validation plugin or component registers its variables.
PASSWORD_CHECK_PREFIXES = ("validate_password", "simple_password_check", "cracklib_password_check")
PASSWORD_CHECK_PLUGINS = ("validate_password", "simple_password_check", "cracklib_password_check")


def account_label(a: Account) -> str:
    return f"'{a.user}'@'{a.host}'"


def _usable(v: FactView) -> list[Account]:
    """Accounts a client can log in with: not locked and not roles."""
    accounts = v.need("server.accounts")
    return [a for a in accounts if not a.locked and not a.is_role]


def _pick(v: FactView, keep: Callable[[Account], bool]) -> list[Account]:
    return [a for a in _usable(v) if keep(a)]


def no_password(a: Account) -> bool:
    return a.empty_password and a.plugin.lower() not in EXTERNAL_AUTH


def remote(a: Account) -> bool:
    return a.host.lower() not in LOCAL_HOSTS


def administrative(a: Account) -> bool:
    """The accounts an install creates for the administrator: root, and on MariaDB 10.4+ also
    'mysql'@'localhost' (mariadb-install-db makes it beside root, with every privilege, for the OS user
    that runs the server, through unix_socket)."""
    return a.user == "root" or (a.user == "mysql" and a.host.lower() in LOCAL_HOSTS)


def superuser(a: Account) -> bool:
    return a.user == "root" or "SUPER" in a.global_privileges


def _listing(name: str, doc: str, keep: Callable[[Account], bool]) -> None:
    """Two facts per account filter: the accounts (comma-separated) and how many there are."""
    def listed(v: FactView) -> Any:
        return ", ".join(account_label(a) for a in _pick(v, keep))

    def counted(v: FactView) -> Any:
        return len(_pick(v, keep))

    FACTS.define(name, doc)(listed)
    FACTS.define(f"{name}_count", f"How many accounts derived.{name} lists.", unit="count")(counted)


_listing("accounts_without_password", "Accounts that are not locked, not roles, authenticate with a password "
         "plugin (not unix_socket, PAM, GSSAPI, LDAP, ...) and have an empty authentication string.", no_password)
_listing("anonymous_accounts", "Accounts with an empty user name (they match any user name from their host), "
         "not locked.", lambda a: a.user == "")
_listing("remote_superusers", "root accounts, and accounts with the global SUPER privilege, whose host is not "
         "localhost, 127.0.0.1 or ::1 (not locked).", lambda a: superuser(a) and remote(a))
_listing("any_host_accounts", "Accounts whose host is '%' (any host), not locked.", lambda a: a.host == "%")
_listing("any_host_privileged_accounts", "Accounts whose host is '%' and that hold global privileges (on *.*), "
         "not locked.", lambda a: a.host == "%" and bool(a.global_privileges))
_listing("native_password_accounts", "Accounts still authenticating with mysql_native_password, not locked.",
         lambda a: a.plugin.lower() == "mysql_native_password")
_listing("remote_accounts_without_tls", "Accounts reachable from other hosts (host not localhost, 127.0.0.1, ::1) "
         "with no REQUIRE SSL/X509 clause (ssl_type empty), not locked.", lambda a: remote(a) and not a.ssl_type)


WRITE_PRIVILEGES = ("INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "SUPER", "FILE", "GRANT OPTION")
_listing("replication_accounts_with_writes", "Accounts with the global REPLICATION SLAVE privilege that also hold "
         "global privileges to change data or the server (INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, SUPER, FILE, "
         "GRANT OPTION), not locked; the administrative accounts an install creates (root, and MariaDB's "
         "'mysql'@'localhost') are left out.",
         lambda a: "REPLICATION SLAVE" in a.global_privileges and not administrative(a)
         and any(p in a.global_privileges for p in WRITE_PRIVILEGES))


@FACTS.define("password_check", "The password-validation plugin or component the server has loaded "
              "(validate_password on MySQL/Percona, simple_password_check or cracklib_password_check on "
              "MariaDB), from the variables it registers or information_schema.PLUGINS; '' when neither shows "
              "one (unknown when no variable shows one and the plugin list was not collected).")
def password_check(v: FactView) -> Any:
    for name in sorted(v.variables()):
        if name.startswith(PASSWORD_CHECK_PREFIXES):
            return next(p for p in PASSWORD_CHECK_PREFIXES if name.startswith(p))
    plugins = v.need("server.plugins")  # no such variable: only the plugin list can confirm there is none
    for name, status in plugins.items():
        if name.lower() in PASSWORD_CHECK_PLUGINS and status.upper() == "ACTIVE":
            return name.lower()
    return ""


@FACTS.define("test_schemas", "Schemas named test or test_...: the names mysql_install_db used to open to "
              "every account (mysql.db rows for `test` and `test\\_%`), comma-separated.")
def test_schemas(v: FactView) -> Any:
    schemas = v.need("server.schemas")
    return ", ".join(s.name for s in schemas if s.name.lower() == "test" or s.name.lower().startswith("test_"))
