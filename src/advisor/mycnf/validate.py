"""Validate a my.cnf before a restart: against the variable catalogue, and, when a server binary
of the same flavor and version is installed, against the server itself.

  catalogue  every server option of the file: does the variable exist on the target, is the value
             within its limits and one of its values (VariableCatalogue.check_setting); deprecated
             and no-op settings are warnings; options the catalogue does not know are left to the
             server check. With a memory limit (snapshot host facts or --ram), the memory budget.
  server     (advisor.mycnf.trial) MySQL/Percona >= 8.0.16: `mysqld --defaults-file=FILE --validate-config`.
             MariaDB: a throwaway mariadbd on a temporary datadir (mariadb-install-db --no-defaults),
             started with a generated --defaults-file that !includes FILE, bound to no TCP port
             (--skip-networking, socket in the temp dir), every path option pointed into the temp
             dir, run as `nobody` when started as root so it cannot write anywhere else; its
             variables are read back and compared with the file; then it is stopped and the temp
             dir removed, also on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from advisor.knowledge.catalogue import VariableCatalogue
from advisor.mycnf.cnf import (OPTION_VARIABLE_ALIASES, OptionLine, effective, option_to_variable, read_option_file,
                               server_options)
from advisor.mycnf.trial import ServerCheck, find_server_binary, mariadb_trial, mysql_validate_config
from advisor.rules.memory import TARGET_FRACTION, PlannedValues, compute_budget
from advisor.units import format_size
from advisor.versions import Version


@dataclass(frozen=True)
class CheckItem:
    where: str
    option: str
    value: Optional[str]
    status: str          # ok | problem | warning | not_checked
    message: str = ""


@dataclass
class ValidationResult:
    path: str
    flavor: str
    version: Version
    target_source: str
    items: list[CheckItem] = field(default_factory=list)
    file_errors: list[str] = field(default_factory=list)
    server: ServerCheck = field(default_factory=ServerCheck)
    budget_lines: list[str] = field(default_factory=list)
    budget_ok: Optional[bool] = None

    @property
    def unconfirmed(self) -> list[CheckItem]:
        """Options neither the catalogue nor a server that started with the file could check: a removed or
        misspelt option stops MySQL 8 and MariaDB ("unknown variable"), so the file is not confirmed valid."""
        return [i for i in self.items if i.status == "not_checked"] if self.server.ok is not True else []

    @property
    def ok(self) -> bool:
        return (not self.file_errors and all(i.status != "problem" for i in self.items)
                and self.server.ok is not False and self.budget_ok is not False and not self.unconfirmed)

    @property
    def verdict(self) -> str:
        """valid | valid with warnings | not confirmed | NOT valid."""
        if not (not self.file_errors and all(i.status != "problem" for i in self.items)
                and self.server.ok is not False and self.budget_ok is not False):
            return "NOT valid"
        if self.unconfirmed:
            return "not confirmed"
        if any(i.status == "warning" for i in self.items) or self.server.warnings:
            return "valid with warnings"
        return "valid"


# ---------------------------------------------------------------- catalogue

def catalogue_check(options: list[OptionLine], flavor: str, version: Version,
                    catalogue: VariableCatalogue) -> list[CheckItem]:
    known = set(catalogue.names())
    items: list[CheckItem] = []
    server_opts = server_options(options, flavor, version)
    last = effective(server_opts)
    for o in server_opts:
        key = o.key[len("loose_"):] if o.key.startswith("loose_") else o.key
        if last.get(key) is not o:
            w = last[key]
            items.append(CheckItem(o.where(), o.name, o.value, "warning", f"set again at {w.where()}; the last one wins"))
            continue
        mapped = option_to_variable(key, o.value, lambda n: n in known)
        if mapped is None and key in STARTUP_OPTIONS:
            items.append(CheckItem(o.where(), o.name, o.value, "ok", STARTUP_OPTIONS[key]))
            continue
        if mapped is None and o.key.startswith("loose_"):
            items.append(CheckItem(o.where(), o.name, o.value, "warning", LOOSE_UNKNOWN))
            continue
        if mapped is None:
            items.append(CheckItem(o.where(), o.name, o.value, "not_checked",
                                   "not in the variable catalogue; only the server check can tell whether it is valid"))
            continue
        var, value = mapped
        alias = OPTION_VARIABLE_ALIASES.get(var)
        if alias is not None and catalogue.exists_on(var, flavor, version) is False \
                and catalogue.exists_on(alias, flavor, version):
            var = alias  # --transaction-isolation sets tx_isolation on MariaDB before 11.1
        if catalogue.exists_on(var, flavor, version) is None and var in STARTUP_OPTIONS:
            items.append(CheckItem(o.where(), o.name, o.value, "ok", STARTUP_OPTIONS[var]))
            continue
        if catalogue.exists_on(var, flavor, version) is None and o.key.startswith("loose_"):
            items.append(CheckItem(o.where(), o.name, o.value, "warning", LOOSE_UNKNOWN))
            continue
        if catalogue.exists_on(var, flavor, version) is None:
            items.append(CheckItem(o.where(), o.name, o.value, "not_checked",
                                   f"{var} is not catalogued for {flavor}; only the server check can tell"))
            continue
        problems = catalogue.check_setting(var, value, flavor, version)
        if not problems:
            spec = catalogue.info(var, flavor, version)
            if spec is not None and spec.deprecated:
                repl = f"; use {', '.join(spec.replaced_by)}" if spec.replaced_by else ""
                items.append(CheckItem(o.where(), o.name, o.value, "warning",
                                       f"{var} is {spec.deprecation}{repl}"))
            else:
                items.append(CheckItem(o.where(), o.name, o.value, "ok"))
            continue
        hard = [p for p in problems if "has no effect" not in p]
        if hard and all(" below the minimum " in p or " above the maximum " in p for p in hard):
            # out of range in an option file: the server starts and adjusts the value to the limit, with a warning
            # ("option 'innodb-log-buffer-size': unsigned value 1048576 adjusted to 2097152")
            items.append(CheckItem(o.where(), o.name, o.value, "warning",
                                   hard[0] + "; the server adjusts it to that limit at start-up (with a warning)"))
            continue
        loose = o.key.startswith("loose_")
        status = "problem" if hard and not (loose and "does not exist" in hard[0]) else "warning"
        items.append(CheckItem(o.where(), o.name, o.value, status, (hard or problems)[0]
                               + (" (loose- prefix: the server only warns)" if loose and status == "warning" and hard else "")))
    return items


LOOSE_UNKNOWN = ("not in the variable catalogue; with the loose_ prefix the server skips an option it does not know "
                 "(with a warning), so it cannot stop the server")


# Server options that are no system variable, so the variable catalogue cannot hold them, and that every
# supported flavor and version takes (mysqld --help --verbose of MySQL 8.4 and MariaDB 10.11).
STARTUP_OPTIONS = {
    "user": "the account mysqld runs as (a start-up option, no variable)",
    "plugin_load": "plugins to load at start-up (a start-up option, no variable)",
    "plugin_load_add": "a plugin to load at start-up (a start-up option, no variable)",
    **{n: "a path or identity option every server takes (not sized by the advisor, so not catalogued)"
       for n in ("port", "socket", "datadir", "basedir", "tmpdir", "pid_file", "bind_address", "server_id", "log_error")},
}


def confirm_by_server(items: list[CheckItem], server: ServerCheck) -> list[CheckItem]:
    """After a server started with the file: an option the catalogue could not check was accepted (MariaDB
    and MySQL 8 refuse unknown options), or the server's warning about it says what it did; an option the
    catalogue says does not exist was accepted and is ignored."""
    out = []
    for i in items:
        said = next((w for w in server.warnings if _names(w, i.option)), None)
        if i.status == "not_checked":
            out.append(CheckItem(i.where, i.option, i.value, "warning" if said else "ok",
                                 f"the server warned: {said}" if said else "accepted by the server (not in the catalogue)"))
        elif i.status == "problem" and "does not exist" in i.message:
            out.append(CheckItem(i.where, i.option, i.value, "warning",
                                 f"{i.message}; the server only warns: {said}" if said else
                                 f"{i.message}; the server accepted the option and ignores it"))
        else:
            out.append(i)
    return out


def _names(line: str, option: str) -> bool:
    o = option[len("loose-"):] if option.startswith(("loose-", "loose_")) else option
    return any(f"'{v}" in line for v in {o, o.replace("_", "-"), o.replace("-", "_")})


# ---------------------------------------------------------------- server binaries

# ---------------------------------------------------------------- entry point

def validate_file(path: str, flavor: str, version: Version, target_source: str, limit: Optional[int] = None,
                  base_variables: Optional[dict[str, str]] = None, server_check: bool = True, *,
                  catalogue: VariableCatalogue) -> ValidationResult:
    """Validate `path` for flavor/version. Raises OSError when the file cannot be read."""
    f = read_option_file(path)
    res = ValidationResult(path=path, flavor=flavor, version=version, target_source=target_source,
                           file_errors=list(f.errors))
    res.items = catalogue_check(f.options, flavor, version, catalogue)
    opts = effective(server_options(f.options, flavor, version))
    if not opts:
        res.file_errors.append(f"{path} sets no option in a group the server reads "
                               f"({', '.join('[' + g + ']' for g in ('mysqld', 'server', 'mariadb') if flavor == 'mariadb' or g != 'mariadb')})")
    # memory budget: the file over the server's variables (or the catalogue's defaults)
    values = dict(base_variables or {})
    known = set(catalogue.names())
    for key, o in opts.items():
        m = option_to_variable(key, o.value, lambda n: n in known or n in values)
        if m is not None:
            values[m[0]] = m[1]
    budget = compute_budget(PlannedValues(flavor, version, values, catalogue), limit)
    res.budget_lines.append(f"worst-case memory {format_size(budget.total)} (buffer pool, caches, "
                            f"{budget.max_connections} connections × {format_size(budget.per_connection)}, overhead)")
    if limit is not None:
        res.budget_ok = budget.total <= limit
        pct = budget.total / limit * 100
        res.budget_lines.append(f"= {pct:.1f} % of the {format_size(limit)} memory limit: "
                                + ("within the limit" if res.budget_ok else "EXCEEDS the limit")
                                + ("" if budget.total <= limit * TARGET_FRACTION else " (above the 90 % target)"))
    else:
        res.budget_lines.append("memory limit unknown: not checked (pass --ram, --snapshot or connection options)")
    if not server_check:
        res.server.reason = "not run (--no-server-check)"
        return res
    if flavor in ("mysql", "percona") and version < Version(8, 0, 16):
        res.server.reason = f"mysqld --validate-config needs MySQL 8.0.16 or later (target {flavor} {version})"
        return res
    binary, bver, why = find_server_binary(flavor, version)
    if binary is None:
        res.server.reason = f"not run: {why}; only the catalogue checked the file"
        return res
    if flavor == "mariadb":
        res.server = mariadb_trial(binary, bver or "", path, f.options, flavor, version, catalogue)
    else:
        res.server = mysql_validate_config(binary, bver or "", path)
    if res.server.ok:
        res.items = confirm_by_server(res.items, res.server)
    elif res.server.ran:
        res.items = [_from_refusal(i, res.server) for i in res.items]
    return res


def _from_refusal(item: CheckItem, server: ServerCheck) -> CheckItem:
    """An option the catalogue could not check, after a trial that refused the file: the option it refused
    ("unknown variable 'innodb_additional_mem_pool_size=20M'") is a problem; one it only warned about, a warning."""
    if item.status == "problem" and "does not exist" in item.message:
        # MariaDB keeps some removed options for compatibility (innodb_log_files_in_group since 10.6): the trial
        # server's word decides, and a warning about the option that it did not refuse is only a warning
        if not any(_names(p, item.option) for p in server.problems):
            said = next((w for w in server.warnings if _names(w, item.option)), None)
            if said is not None:
                return CheckItem(item.where, item.option, item.value, "warning",
                                 f"{item.message}; the server only warns: {said}")
        return item
    if item.status != "not_checked":
        return item
    refused = next((p for p in server.problems if _names(p, item.option)), None)
    if refused is not None:
        return CheckItem(item.where, item.option, item.value, "problem", f"the server refused it: {refused}")
    said = next((w for w in server.warnings if _names(w, item.option)), None)
    if said is not None:
        return CheckItem(item.where, item.option, item.value, "warning", f"the server warned: {said}")
    return item


