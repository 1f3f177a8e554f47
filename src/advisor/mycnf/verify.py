"""Compare a running server with a my.cnf: is every setting of the file in effect?

Each server option of the file (the groups the server reads, last occurrence winning) is
  applied         the server shows the value the file sets (units normalised: 2G = 2147483648, ON = 1)
  differs         the server shows another value (both are reported)
  not applicable  the option sets no variable the server shows (an option-only setting such as
                  `user`, a removed or plugin variable), so there is nothing to compare
Pure: the caller collects the server's variables (advisor.api.collect) and reads the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from advisor.mycnf.cnf import OptionLine, effective, option_to_variable, server_options
from advisor.knowledge.catalogue import SECRET_MASK, VariableCatalogue, is_secret_variable
from advisor.mycnf.compare import same_value, show, unit_of
from advisor.mycnf.model import set_global_statement
from advisor.versions import Version

VERIFY_SCHEMA = "advisor.verify/1"


@dataclass(frozen=True)
class VerifyItem:
    option: str
    where: str
    file_value: Optional[str]
    variable: Optional[str]
    server_value: Optional[str]
    status: str      # applied | differs | not_applicable
    note: str = ""


@dataclass
class VerifyResult:
    path: str
    flavor: str
    version: str
    server: str
    items: list[VerifyItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for i in self.items if i.status == status)

    @property
    def exit_code(self) -> int:
        return 1 if self.count("differs") else 0

    def to_dict(self) -> dict[str, Any]:
        return {"schema": VERIFY_SCHEMA, "file": self.path, "server": self.server,
                "target": {"flavor": self.flavor, "version": self.version},
                "summary": {s: self.count(s) for s in ("applied", "differs", "not_applicable")},
                "items": [i.__dict__ for i in self.items], "notes": list(self.notes)}


def _absent_note(key: str, flavor: str, version: Version, catalogue: VariableCatalogue) -> str:
    if catalogue.exists_on(key, flavor, version) is False:
        problems = catalogue.check_setting(key, "0", flavor, version)
        return problems[0] if problems else f"{key} does not exist on {flavor} {version}"
    return "the server shows no variable for this option (an option-only setting, or a plugin that is not loaded)"


def compare(options: list[OptionLine], variables: dict[str, str], flavor: str, version: Version,
            uptime_s: Optional[float] = None, file_age_s: Optional[float] = None, *,
            catalogue: VariableCatalogue) -> list[VerifyItem]:
    server = {k.lower(): v for k, v in variables.items()}
    items: list[VerifyItem] = []
    for key, o in effective(server_options(options, flavor, version)).items():
        mapped = option_to_variable(key, o.value, lambda n: n in server)
        if mapped is None:
            items.append(VerifyItem(o.name, o.where(), o.value, None, None, "not_applicable",
                                    _absent_note(key, flavor, version, catalogue)))
            continue
        var, want = mapped
        have = server[var]
        if is_secret_variable(var, want) or have == SECRET_MASK:
            # a secret: its value is shown nowhere, and the server's is masked in the snapshot
            items.append(VerifyItem(o.name, o.where(), SECRET_MASK, var, SECRET_MASK, "not_applicable",
                                    f"{var} holds a secret; its value is neither shown nor compared"))
            continue
        unit = unit_of(var, flavor, version, catalogue)
        if same_value(want, have, unit):
            items.append(VerifyItem(o.name, o.where(), o.value, var, have, "applied"))
            continue
        spec = catalogue.info(var, flavor, version)
        note = _differs_note(var, want, spec, uptime_s, file_age_s)
        items.append(VerifyItem(o.name, o.where(), o.value, var, have, "differs",
                                f"file {show(want, unit)}, server {show(have, unit)}" + (f"; {note}" if note else "")))
    return items


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _differs_note(var: str, want: str, spec: Any, uptime_s: Optional[float], file_age_s: Optional[float]) -> str:
    """Why a setting may differ: not read yet (no restart since the file was written), or read and
    then adjusted or overridden."""
    restarted = uptime_s is not None and file_age_s is not None and uptime_s < file_age_s
    if not restarted:
        if spec is not None and spec.dynamic:
            note = f"dynamic: {set_global_statement(var, want, spec.unit)} applies it now, or restart"
        else:
            note = "needs a restart to take effect"
        if uptime_s is not None and file_age_s is not None:
            note += (f"; the server has been up {_duration(uptime_s)}, longer than the file exists "
                     f"({_duration(file_age_s)}), so it has not read it yet")
        return note
    why = "another option file read later sets it, or the file is not where the server reads it (mysqld --print-defaults)"
    if var == "innodb_buffer_pool_size":
        why = "the server rounds it up to a multiple of innodb_buffer_pool_chunk_size × innodb_buffer_pool_instances; " + why
    elif var in ("table_open_cache", "max_connections", "open_files_limit"):
        why = "the server lowers it when open_files_limit (ulimit -n) cannot hold it; " + why
    return f"the server started after the file was written but shows another value: {why}"
