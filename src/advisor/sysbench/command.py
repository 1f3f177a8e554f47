"""A parsed sysbench command line as a typed model: the test, the command, every option with its
typed value and where it came from (command line or --config-file), and what sysbench would reject or
silently ignore. advisor.sysbench.parse builds it. Passwords are masked everywhere in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

from advisor.sysbench.options import (ALL_OPTIONS, DEFAULTS_11, LUA_SCRIPTS, MASK, OLTP_OPTIONS, ONLY_10, ONLY_11,
                                      SSL_MODES_11, is_secret_name)


@dataclass(frozen=True)
class Unresolved:
    """A value the command line leaves open: a shell variable, or an option that may sit in an unread
    config file. `why` says which."""

    text: str
    why: str

    def __str__(self) -> str:
        return self.text


Value = Union[int, float, bool, str, tuple, None, Unresolved]


@dataclass(frozen=True)
class Option:
    name: str           # canonical (dashes), as in the catalogue; as written for unknown options
    written: str        # the token as written, password masked
    raw: Optional[str]  # value as written (None for a bare boolean); never a password
    value: Value        # typed
    source: Literal["command line", "config file"] = "command line"
    form: Literal["eq", "space", "bare"] = "eq"
    known: bool = True


@dataclass
class SysbenchCommand:
    """A parsed sysbench command line. Passwords are masked everywhere in it."""

    display: str                       # the whole command, one line, password masked
    program: str                       # the sysbench token as written (path or name)
    test: Optional[str]                # canonical name: oltp_read_write, cpu, or the custom script's stem
    test_written: Optional[str]        # as written (name or path)
    test_kind: Literal["lua", "builtin", "custom", "unresolved"]
    command: Optional[str]             # prepare | prewarm | warmup | run | cleanup | help, or None
    command_unresolved: Optional[str] = None
    options: dict[str, Option] = field(default_factory=dict)
    config_file: Optional[str] = None
    config_read: bool = False
    config_problem: Optional[str] = None   # why the config file could not be read
    problems: list[str] = field(default_factory=list)   # things sysbench would reject or silently ignore
    notes: list[str] = field(default_factory=list)      # deprecated forms that still work
    password_given: bool = False
    legacy_test_option: bool = False
    # unquoted shell variables between the test and the command ($conn in `sysbench oltp_read_write $conn
    # run`): valid shell that expands to words, typically several options, which the advisor cannot see
    expanded_words: list[str] = field(default_factory=list)
    migration: Optional[str] = None    # what to write instead of a sysbench 0.4 built-in test (--test=oltp)

    # ------------------------------------------------------------ typed access
    def given(self, name: str) -> bool:
        return name in self.options

    def get(self, name: str, era: Optional[str] = None) -> Value:
        """The option's value: as given, else (when a config file went unread) Unresolved, else the
        default of the given era ('1.0' when unknown; see DEFAULTS_11)."""
        spec = ALL_OPTIONS.get(name)
        for alias in [name] + [a.name for a in ALL_OPTIONS.values() if a.alias_of == name]:
            if alias in self.options:
                return self.options[alias].value
        if self.config_file and not self.config_read:
            return Unresolved(f"--{name}?", f"--{name} may be set in the config file {self.config_file}, which was "
                                            f"not read ({self.config_problem})")
        if self.expanded_words:
            return Unresolved(f"--{name}?", f"--{name} may be among the options the shell expands "
                                            f"{' '.join(self.expanded_words)} to (an unquoted variable)")
        if era == "1.1" and name in DEFAULTS_11:
            return DEFAULTS_11[name]
        return spec.default if spec else None

    @property
    def uses_sbtest(self) -> bool:
        if self.test_kind == "lua":
            return LUA_SCRIPTS[self.test][0]  # type: ignore[index]
        return self.test_kind == "unresolved" and any(n in OLTP_OPTIONS for n in self.options)

    @property
    def writes(self) -> Optional[bool]:
        if self.test_kind == "lua":
            return LUA_SCRIPTS[self.test][1]  # type: ignore[index]
        return None

    @property
    def is_database_test(self) -> bool:
        """Built-in tests (cpu, fileio, ...) and bulk_insert's own table aside, everything else talks to the
        server; a custom script is assumed to (it is run against one, or there is no point in a checklist)."""
        return self.test_kind != "builtin"

    @property
    def effective_command(self) -> Optional[str]:
        """The command, with `warmup` (1.1) folded into `prewarm`; None when unresolved."""
        if self.command == "warmup":
            return "prewarm"
        return self.command

    def era_hint(self) -> tuple[Optional[str], str]:
        """Which sysbench the command line was written for, from the options it uses."""
        only11 = sorted(n for n, o in self.options.items() if o.known and ALL_OPTIONS[n].eras == ONLY_11)
        ssl = self.options.get("mysql-ssl")
        if ssl is not None and isinstance(ssl.value, str) and ssl.value in SSL_MODES_11:
            only11.append(f"mysql-ssl={ssl.value}")
        if self.options.get("rand-type") is not None and self.options["rand-type"].value == "zipfian":
            only11.append("rand-type=zipfian")
        if self.command == "warmup":
            only11.append("the warmup command")
        only10 = sorted(n for n, o in self.options.items() if o.known and ALL_OPTIONS[n].eras == ONLY_10)
        if self.legacy_test_option:
            only10.append("test")
        if only11 and not only10:
            return "1.1", "the command uses " + ", ".join(f"--{x}" if not x.startswith("the ") else x for x in only11) + \
                ", which only sysbench 1.1 (master) has"
        if only10 and not only11:
            return "1.0", "the command uses " + ", ".join(f"--{x}" for x in only10) + \
                ", which sysbench 1.1 (master) no longer has"
        return None, "the options used exist in both sysbench 1.0 and 1.1"

    def hosts(self) -> list[Union[str, Unresolved]]:
        v = self.get("mysql-host")
        if isinstance(v, Unresolved):
            return [v]
        return list(v) if isinstance(v, tuple) else [str(v)]

    def ports(self) -> list[Union[int, Unresolved]]:
        v = self.get("mysql-port")
        if isinstance(v, Unresolved):
            return [v]
        out: list[Union[int, Unresolved]] = []
        for p in (v if isinstance(v, tuple) else (v,)):
            out.append(p if isinstance(p, Unresolved) else int(p))
        return out

    def socket(self) -> Optional[Union[str, Unresolved]]:
        v = self.get("mysql-socket")
        if isinstance(v, tuple):
            return v[0] if v else None
        return v  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        def show(v: Value) -> Any:
            if isinstance(v, Unresolved):
                return v.text
            if isinstance(v, tuple):
                return [show(x) for x in v]
            return v
        return {
            "command_line": self.display, "test": self.test, "test_kind": self.test_kind,
            "command": self.command if self.command is not None else self.command_unresolved,
            "options": {n: (MASK if is_secret_name(n) else show(o.value)) for n, o in self.options.items()},
            "config_file": self.config_file, "config_read": self.config_read,
            "expanded_words": list(self.expanded_words),
            "problems": list(self.problems), "notes": list(self.notes),
        }
