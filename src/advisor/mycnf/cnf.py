"""MySQL/MariaDB option files (my.cnf): the groups a server reads, and mapping options to server
variables. Parsing and following includes is advisor.optionfile's (`parse_option_text`,
`read_option_file`), the one reader the client's connection options use too; its docstring has the
syntax. Dashes and underscores in names are the same, and a `loose-` prefix makes an unknown option
a warning instead of an error.
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional

# The parser is shared with the client's connection options (advisor.optionfile); these names
# stay importable from here.
from advisor.optionfile import (MAX_INCLUDE_DEPTH, OptionFile, OptionLine, parse_option_text,  # noqa: F401
                                read_option_file)
from advisor.versions import Version


def server_groups(flavor: str, version: Version | None) -> tuple[str, ...]:
    """Option groups the server reads (refman option-files; MariaDB option-files page)."""
    mm = f"{version.major}.{version.minor}" if version else None
    groups = ["mysqld", "server"]
    if mm:
        groups.append(f"mysqld-{mm}")
    if flavor == "mariadb":
        groups += ["mariadb", "mariadbd", "client-server", "galera"]
        if mm:
            groups += [f"mariadb-{mm}", f"mariadbd-{mm}"]
    return tuple(groups)


def server_options(options: Iterable[OptionLine], flavor: str, version: Version | None) -> list[OptionLine]:
    groups = set(server_groups(flavor, version))
    return [o for o in options if o.group in groups]


def effective(options: Iterable[OptionLine]) -> dict[str, OptionLine]:
    """Last occurrence wins (the server reads files and lines in order); keyed by underscore name
    without a `loose_` prefix."""
    out: dict[str, OptionLine] = {}
    for o in options:
        key = o.key[len("loose_"):] if o.key.startswith("loose_") else o.key
        out.pop(key, None)  # keep file order of the last occurrence
        out[key] = o
    return out


# Options whose variable has another name on some servers: MariaDB before 11.1 takes --transaction-isolation
# and --transaction-read-only for tx_isolation and tx_read_only (its manual lists them as their command-line
# forms); MySQL 5.7 before 5.7.20 the same. Used when the option's own name is no variable on the target.
OPTION_VARIABLE_ALIASES = {"transaction_isolation": "tx_isolation", "transaction_read_only": "tx_read_only"}


def option_to_variable(key: str, value: Optional[str], is_variable: Callable[[str], bool]) -> Optional[tuple[str, str]]:
    """The server variable an option sets and the value it should show, or None when the option
    sets no variable of that name. `is_variable(name)` says whether the server has a variable.

      skip_name_resolve          -> (skip_name_resolve, ON)   (a variable itself)
      skip_log_bin, disable_X    -> (log_bin, OFF), (X, OFF)
      enable_X                   -> (X, ON)
      log_bin[=basename]         -> (log_bin, ON)             (the value is a file name)
      bare option                -> (name, ON)
    """
    if key == "log_bin":
        return ("log_bin", "ON")
    if is_variable(key):
        return (key, "ON" if value is None else value)
    alias = OPTION_VARIABLE_ALIASES.get(key)
    if alias is not None and is_variable(alias):
        return (alias, "ON" if value is None else value)
    for prefix, forced in (("skip_", "OFF"), ("disable_", "OFF"), ("enable_", "ON")):
        if key.startswith(prefix) and is_variable(key[len(prefix):]):
            if value is not None and forced == "ON":
                return (key[len(prefix):], value)
            return (key[len(prefix):], forced)
    return None
