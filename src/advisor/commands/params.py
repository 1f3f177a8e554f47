"""A command's options declared without importing typer, and the one parser that reads them on the
fast path (advisor.cli).

An option is declared once, in the command's signature, as typer declares it but with `Opt` in
place of `typer.Option`: ``host: Annotated[Optional[str], Opt("--host", "-h", help=...)] = None``.
When typer parses the command line (help, completion, errors, anything unusual), advisor.cli turns
every `Opt` into the `typer.Option` with the same arguments before typer reads the signature
(`typer_function`), so typer sees what it always saw. A command whose module imports no typer
(FAST_COMMANDS in advisor.cli) is also run without it when its command line is plain: `parse` below
reads the same declarations and builds the same keyword arguments typer's wrapper would pass, or
answers None, and typer parses instead (tests/unit/test_cli_fast.py checks both paths give the same
arguments over generated command lines). typer and click cost ~15 ms of a ~100 ms audit.

What `parse` takes: after the command name, options only (no arguments, no ``--``); ``--name value``,
``--name=value`` and ``-x value``; a flag, or either side of a ``--flag/--no-flag`` pair; a value
that does not start with ``-`` and is not empty; int and float values in their plain decimal
spelling; an Enum's exact value; a repeated option (the last wins; each one of a list). Anything
else, including ``--help`` and a short option with its value attached, is typer's.
"""

from __future__ import annotations

import re
import typing
from enum import Enum
from typing import Any, Callable, Optional


class Opt:
    """typer.Option's arguments, kept until typer is wanted: the option's names and its keywords
    (help, rich_help_panel, ...)."""

    __slots__ = ("decls", "kwargs")

    def __init__(self, *decls: str, **kwargs: Any) -> None:
        self.decls = decls
        self.kwargs = kwargs

    def __repr__(self) -> str:
        return f"Opt({', '.join(map(repr, self.decls))})"


class Exit(Exception):
    """Leave with this exit code (as typer.Exit; advisor.cli matches either by the class name)."""

    def __init__(self, code: int = 0) -> None:
        super().__init__(code)
        self.exit_code = code


_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


class Param:
    """One option of a command as the fast parser reads it."""

    __slots__ = ("name", "decls", "negative", "kind", "enum", "multiple", "default", "is_flag")

    def __init__(self, name: str, decls: tuple[str, ...], negative: tuple[str, ...], kind: Any, enum: Any,
                 multiple: bool, default: Any, is_flag: bool) -> None:
        self.name, self.decls, self.negative, self.kind, self.enum = name, decls, negative, kind, enum
        self.multiple, self.default, self.is_flag = multiple, default, is_flag

    def convert(self, text: str) -> Any:
        """The value typer would pass for `text`, or raise ValueError when that is typer's to say."""
        if not text or text.startswith("-"):
            raise ValueError(text)
        if self.enum is not None:
            for member in self.enum:
                if member.value == text:
                    return member
            raise ValueError(text)
        if self.kind is str:
            return text
        if self.kind is int and _INT.fullmatch(text):
            return int(text)
        if self.kind is float and _FLOAT.fullmatch(text):
            return float(text)
        raise ValueError(text)


def _unwrap(ann: Any) -> tuple[Any, bool]:
    """(the base type, repeated) of an option's annotation: Optional[X] -> X, List[X] -> X, True."""
    if typing.get_origin(ann) is typing.Union:
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(ann)
        ann = args[0]
    if typing.get_origin(ann) in (list, typing.List):
        (item,) = typing.get_args(ann)
        return item, True
    return ann, False


def command_params(fn: Callable[..., Any]) -> Optional[list[Param]]:
    """The options of a command function declared with Opt, or None when one of its parameters is
    not something the fast parser reads (then the command is always typer's)."""
    import inspect

    out = []
    for name, p in inspect.signature(fn).parameters.items():
        ann = p.annotation
        meta = [m for m in getattr(ann, "__metadata__", ()) if isinstance(m, Opt)]
        if len(meta) != 1 or p.default is inspect.Parameter.empty or set(meta[0].kwargs) - {"help", "rich_help_panel"}:
            return None
        opt = meta[0]
        base, multiple = _unwrap(ann.__origin__)
        decls: list[str] = []
        negative: list[str] = []
        for d in opt.decls:
            if "/" in d:
                on, _, off = d.partition("/")
                decls.append(on.strip())
                negative.append(off.strip())
            else:
                decls.append(d)
        enum = base if isinstance(base, type) and issubclass(base, Enum) else None
        if enum is None and base not in (str, int, float, bool):
            return None
        if base is bool and multiple:
            return None
        out.append(Param(name, tuple(decls), tuple(negative), base, enum, multiple, p.default, base is bool))
    return out


def parse(params: list[Param], args: list[str], defaults: Optional[dict[str, Any]] = None) -> Optional[dict[str, Any]]:
    """The keyword arguments typer would call the command with for `args` (the words after the
    command's name), or None when the command line is not one this parser takes. `defaults`: values
    (by parameter name) that replace the declared defaults of options the line does not give, as
    typer's default_map does (the [advisor] option group)."""
    by_name: dict[str, tuple[Param, bool]] = {}
    for p in params:
        for d in p.decls:
            by_name[d] = (p, True)
        for d in p.negative:
            by_name[d] = (p, False)
    values: dict[str, Any] = {}
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        name, eq, attached = word.partition("=") if word.startswith("--") else (word, "", "")
        found = by_name.get(name)
        if found is None or (eq and not name.startswith("--")):
            return None  # an argument, --, --help, an unknown option, an attached short value: typer's
        p, positive = found
        if p.is_flag:
            if eq:
                return None
            values[p.name] = positive
            continue
        if eq:
            text = attached
        elif i < len(args):
            text = args[i]
            i += 1
        else:
            return None  # a value is missing: typer says so
        try:
            value = p.convert(text)
        except ValueError:
            return None
        if p.multiple:
            values.setdefault(p.name, []).append(value)
        else:
            values[p.name] = value
    defaults = defaults or {}
    return {p.name: values[p.name] if p.name in values else defaults.get(p.name, p.default) for p in params}
