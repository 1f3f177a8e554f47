"""The command line: a thin typer layer over advisor.api. The only place that prints errors and
chooses exit codes (see advisor.errors for the list)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional

# advisor uses no pydantic plugins; without this, pydantic scans every installed distribution's
# entry points at first use (~13 ms on a machine with many packages).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from advisor import __version__  # noqa: E402
from advisor.commands.params import Opt  # noqa: E402

if TYPE_CHECKING:
    import typer

_APP: Optional["typer.Typer"] = None


def _app() -> "typer.Typer":
    """The typer application, made on first use: a command in FAST_COMMANDS with a plain command
    line runs without importing typer (_run_fast)."""
    global _APP
    if _APP is None:
        import typer

        _APP = typer.Typer(
            name="advisor",
            help="Rule-based configuration advisor for MySQL, Percona Server, MariaDB and TiDB: findings with evidence, "
                 "a measured calibration, and a justified my.cnf.",
            no_args_is_help=True,
            add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
            pretty_exceptions_enable=False,
            context_settings={"help_option_names": ["--help"]},
        )
        _APP.callback()(typer_function(_root))
    return _APP


def __getattr__(name: str) -> Any:
    if name == "app":  # cli.app, as typer's tests and tests/support name it
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


VERSION_LINE = f"advisor {__version__}"


def _version(value: bool) -> None:
    if value:
        import typer

        typer.echo(VERSION_LINE)
        raise typer.Exit()


def _root(
    version: Annotated[bool, Opt("--version", "-V", callback=_version, is_eager=True,
                                 help="Print the version and exit.")] = False,
    quiet: Annotated[bool, Opt("--quiet", "-q", help="No warnings and no progress on standard error (errors "
                               "are still printed); also accepted after the command.")] = False,
) -> None:
    """advisor: find what makes a MySQL-family server slow or a benchmark misleading, show the evidence, write the fix."""


# Commands in help order: name -> (module, function). A run registers only the command it names
# (typer inspects every registered command's signature at start-up, ~20 ms for all of them);
# help and unknown commands get the full set.
COMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("advisor.commands.audit", "audit"),
    "collect": ("advisor.commands.collect", "collect"),
    "import": ("advisor.commands.import_dump", "import_"),
    "calibrate": ("advisor.commands.calibrate", "calibrate"),
    "explain": ("advisor.commands.rules_cmd", "explain"),
    "mycnf": ("advisor.commands.mycnf", "mycnf"),
    "verify": ("advisor.commands.verify", "verify"),
    "fleet": ("advisor.commands.fleet", "fleet"),
    "checklist": ("advisor.commands.checklist", "checklist"),
    "compare": ("advisor.commands.compare", "compare"),
    "schema": ("advisor.commands.schema", "schema"),
    "watch": ("advisor.commands.watch", "watch"),
}
GROUPS: dict[str, tuple[str, str]] = {
    "rules": ("advisor.commands.rules_cmd", "rules_app"),
}


# Commands whose module imports no typer (advisor.commands.params): a plain command line runs them
# without importing typer at all (_run_fast); tests/unit/test_import_guard.py holds audit to it.
FAST_COMMANDS = frozenset({"audit"})


def register(only: Optional[str] = None) -> "typer.Typer":
    """Register every command on the app, or only the named one."""
    import importlib

    app = _app()
    for name, (module, attr) in COMMANDS.items():
        if only is None or only == name:
            app.command(name)(typer_function(getattr(importlib.import_module(module), attr)))
    for name, (module, attr) in GROUPS.items():
        if only is None or only == name:
            sub = getattr(importlib.import_module(module), attr)
            for info in sub.registered_commands:
                info.callback = typer_function(info.callback)
            app.add_typer(sub, name=name)
    return app


def typer_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` as typer is to read it: every Annotated[T, Opt(...)] of its signature as
    Annotated[T, typer.Option(...)] with the same arguments (advisor.commands.params); `fn` itself
    when it declares no Opt."""
    import functools
    import inspect
    import typing

    import typer

    hints = typing.get_type_hints(fn, include_extras=True)
    changed: dict[str, Any] = {}
    for name, ann in hints.items():
        meta = getattr(ann, "__metadata__", ())
        if any(isinstance(m, Opt) for m in meta):
            made = tuple(typer.Option(*m.decls, **m.kwargs) if isinstance(m, Opt) else m for m in meta)
            changed[name] = Annotated[(ann.__origin__, *made)]  # type: ignore[valid-type]
    if not changed:
        return fn
    sig = inspect.signature(fn)
    params = [p.replace(annotation=changed.get(p.name, hints.get(p.name, p.annotation))) for p in sig.parameters.values()]

    @functools.wraps(fn)
    def command(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    del command.__wrapped__  # type: ignore[attr-defined]
    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {**hints, **changed}
    return command


# What each option's value is, for the help's placeholders (typer would print the Python type: <str>)
METAVARS: dict[str, str] = {
    "--host": "<host>", "--port": "<port>", "--socket": "<socket>", "--user": "<user>", "--password": "<password>",
    "--defaults-file": "<file>", "--defaults-extra-file": "<file>", "--login-path": "<name>",
    "--ssl-mode": "<mode>", "--ssl-ca": "<file>", "--ssl-cert": "<file>", "--ssl-key": "<file>", "--protocol": "<tcp|socket>",
    "--connect-timeout": "<seconds>", "--read-timeout": "<seconds>", "--sample-seconds": "<seconds>",
    "--calibrate-seconds": "<seconds>", "--seconds": "<seconds>", "--interval": "<seconds>",
    "--snapshot": "<file|dir>", "--snapshots": "<dir>", "--save-snapshot": "<file>", "--output": "<file>",
    "--save": "<file>", "--baseline": "<file>", "--validate": "<file>", "--status": "<file>",
    "--host-facts": "<file>", "--host-stream": "<file>", "--pid-file": "<file>", "--sysroot": "<dir>",
    "--rules": "<dir>", "--input-format": "<format>", "--flavor": "<flavor>", "--version": "<version>",
    "--about": "<what>", "--label": "<name>", "--load": "<workload>", "--ignore": "<rule,...>",
    "--ssh": "<[user@]host>", "--ssh-option": "<option>", "--sysbench": "<command>", "--ram": "<size>",
    "--cores": "<count>", "--jobs": "<count>", "--cnf": "<file>", "--variables": "<file>",
}
# Positional arguments, by parameter name: what they take ("…": repeatable); an argument with
# choices (schema NAME) keeps its list of choices
ARG_METAVARS: dict[str, str] = {
    "command": "<command>…", "inputs": "<snapshot|dump|server>…", "targets": "<inventory>", "directory": "<dir>",
    "rule_id": "<id>",
}
GENERIC = {"<str>", "<int>", "<float>", "<path>", "<text>"}


def _placeholders(cmd: object) -> None:
    """Name what every option of `cmd` (and its subcommands) takes, instead of its Python type."""
    for sub in getattr(cmd, "commands", {}).values():
        _placeholders(sub)
    for p in getattr(cmd, "params", []):
        if getattr(p, "is_flag", False) or getattr(p, "metavar", None):
            continue
        if getattr(p, "param_type_name", "") == "argument":
            shown = ARG_METAVARS.get(p.name or "")
            if shown and type(p.type).__name__ == "StringParamType":
                import copy

                # the name column and the usage line show the placeholder; the type column, where
                # typer prints <{type.name}> (<str>), stays empty
                p.metavar = shown
                named = copy.copy(p.type)
                named.__class__ = type("Placeholder", (type(p.type),), {"get_metavar": lambda self, *a, **k: ""})
                p.type = named
            continue
        name = next((o for o in getattr(p, "opts", []) if o.startswith("--")), None)
        if name in METAVARS:
            p.metavar = METAVARS[name]


def _command_named(argv: list[str]) -> Optional[str]:
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS or first in GROUPS else None


def _is(e: BaseException, name: str) -> bool:
    """Typer vendors click in recent versions and uses real click in older ones: match by class name."""
    return any(c.__name__ == name for c in type(e).__mro__)


def main(argv: Optional[list[str]] = None) -> None:
    from advisor.errors import EXIT_INTERRUPTED, EXIT_USAGE, AdvisorError

    args = sys.argv[1:] if argv is None else list(argv)
    for stream in (sys.stdout, sys.stderr):
        # a terminal whose encoding cannot show a character (a strict ASCII or UTF-8 terminal and a
        # file name or server value that is not UTF-8) gets an escape, never a UnicodeEncodeError
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
    try:
        rv = _run(args)
    except AdvisorError as e:
        _fail(str(e) if e.tip else f"{e.message} Tip: {_default_tip(e.exit_code, _command_named(args))}", e.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted.", EXIT_INTERRUPTED)
    except BrokenPipeError:
        _exit(0)
    except Exception as e:
        if _is(e, "Exit"):
            _exit(getattr(e, "exit_code", 0))
        if _is(e, "Abort"):
            _fail("interrupted.", EXIT_INTERRUPTED)
        if _is(e, "NoArgsIsHelpError"):
            _exit(0)  # help was printed
        if _is(e, "ClickException"):
            msg = e.format_message()  # type: ignore[attr-defined]
            ctx = getattr(e, "ctx", None)
            hint = f" Tip: `{ctx.command_path} --help` lists the options." if ctx is not None else ""
            code = EXIT_USAGE if _is(e, "UsageError") else getattr(e, "exit_code", 1)
            msg = msg.rstrip().rstrip(".")
            _fail(f"{msg}{'' if msg.endswith(('?', '!')) else '.'}{hint}", code)
        if isinstance(e, OSError) and _file_error(e):
            from advisor.inputs import clip

            # a path the system refuses (a name longer than it allows, a loop of links, no permission)
            # met where a command looks a file up: the value is bad, exit 2, naming the file
            _fail(f"cannot use the file {clip(os.fsdecode(e.filename), 120)}: {e.strerror}. Tip: give a path "
                  "the system can open (each name at most 255 bytes, the whole path at most 4,096) that "
                  "this user may read.", EXIT_USAGE)
        if os.environ.get("ADVISOR_DEBUG"):  # a bug: one paragraph, traceback only on request
            raise
        _fail(f"internal error: {type(e).__name__}: {e}. Tip: this is a bug in advisor; run again with "
              "ADVISOR_DEBUG=1 for the traceback and report it.", 70)
    if rv == EXIT_INTERRUPTED:  # typer returns Ctrl-C as exit code 130 (no exception) in non-standalone mode
        _fail("interrupted.", EXIT_INTERRUPTED)
    _exit(rv if isinstance(rv, int) else 0)


def _file_error(e: OSError) -> bool:
    """An OSError of looking up or opening a named file (not a socket's or a bug's)."""
    import errno

    return isinstance(e.filename, (str, bytes)) and e.errno in (errno.ENAMETOOLONG, errno.ELOOP, errno.EACCES, errno.EPERM,
                                                  errno.ENOTDIR, errno.EISDIR, errno.ENOENT)


QUIET_FLAGS = ("--quiet", "-q")


_TYPER: Any = object()  # _run_fast's answer when typer is to parse the command line


def _typer_wanted() -> bool:
    """Shell completion asks typer (its variables name the program)."""
    return any(k.endswith("_COMPLETE") or k == "_TYPER_COMPLETE_ARGS" for k in os.environ)


def _run_fast(name: str, args: list[str]) -> tuple[object, Optional[dict[str, Any]]]:
    """Run a FAST_COMMANDS command without importing typer when its command line is one that
    advisor.commands.params.parse takes: (its return value, None); else (_TYPER, the [advisor]
    defaults already read, so that typer does not read the option files again)."""
    import importlib

    from advisor.commands import options
    from advisor.commands.params import command_params, parse

    module, attr = COMMANDS[name]
    fn = getattr(importlib.import_module(module), attr)
    params = command_params(fn)
    at = args.index(name)
    pre, post = args[:at], args[at + 1:]
    if params is None or any(a not in QUIET_FLAGS for a in pre) or _typer_wanted():
        return _TYPER, None
    options.QUIET = bool(pre)
    post = _line_words(pre, post, {d for p in params for d in (*p.decls, *p.negative)})[len(pre):]
    table = {d: (p.name, [m.value for m in p.enum] if p.enum is not None else [])
             for p in params for d in p.decls if d.startswith("--")}
    defaults = options.defaults_from_files(post, name, table)
    from_files: dict[str, Any] = {}  # the [advisor] group's values, as typer's default_map converts them
    for key, text in defaults.items():
        p = next(p for p in params if p.name == key)
        try:
            if p.is_flag or p.multiple:
                raise ValueError(text)
            from_files[key] = p.convert(str(text))
        except ValueError:
            return _TYPER, defaults
    kwargs = parse(params, post, from_files)
    if kwargs is None:
        return _TYPER, defaults
    return fn(**kwargs), None


def _line_words(pre: list[str], post: list[str], opts: set[str]) -> list[str]:
    """The command line as the command's parser is to read it, both paths: --quiet is taken from
    anywhere (options.QUIET) and out of the command's words unless the command has its own (watch:
    no live table, which also silences warnings); `-p`/`--password` without a value asks for the
    password (options.expand_bare_password)."""
    from advisor.commands import options

    if any(a in QUIET_FLAGS for a in post):
        options.QUIET = True
        if "--quiet" not in opts:
            post = [a for a in post if a not in QUIET_FLAGS]
    args = pre + post
    return options.expand_bare_password(args) if "--password" in opts else args


def _run(args: list[str]) -> object:
    """Parse and run. Before parsing: `-p` without a value becomes --ask-password, --quiet is taken
    from anywhere on the line, and the [advisor] option group gives the command's defaults."""
    if args in (["--version"], ["-V"]):  # what typer's eager --version prints, without typer
        sys.stdout.write(VERSION_LINE + "\n")
        return 0
    name = _command_named(args)
    read: Optional[dict[str, Any]] = None
    if name in FAST_COMMANDS:
        rv, read = _run_fast(name, args)  # type: ignore[arg-type]
        if rv is not _TYPER:
            return rv
    from typer.main import get_command

    from advisor.commands import options

    register(name)
    group = get_command(_app())
    _placeholders(group)
    sub = group.commands.get(name) if name in COMMANDS else None  # type: ignore[attr-defined]
    opts = {o for p in getattr(sub, "params", []) for o in getattr(p, "opts", [])}
    at = args.index(name) if name in args else len(args)
    pre, post = args[:at], args[at:]
    options.QUIET = any(a in QUIET_FLAGS for a in pre)
    defaults: dict[str, object] = {}
    if sub is not None:
        args = _line_words(pre, post, opts)
        defaults = read if read is not None else options.advisor_defaults(args, sub)
    return group.main(args=args, standalone_mode=False, prog_name="advisor",
                      default_map={name: defaults} if defaults else None)
def _default_tip(code: int, command: Optional[str]) -> str:
    """The Tip of an error raised without one: what to look at for its exit code."""
    cmd = f"advisor {command}" if command else "advisor"
    return {2: f"`{cmd} --help` lists the options and which go together.",
            3: f"check the connection options (`{cmd} --help`) and that the server is reachable from here.",
            4: "check the file named above; docs/snapshot-format.md and docs/writing-rules.md describe the formats.",
            5: "check the server's error log (did it restart or stop?), then run the command again."}.get(
        code, f"`{cmd} --help` describes the command.")


MAX_MESSAGE = 2000  # characters of one error paragraph; long values inside it are cut first


def one_paragraph(message: str) -> str:
    """An error as printed: one line, every value longer than 120 characters cut (saying its length),
    the text before the Tip shortened when the whole would still pass MAX_MESSAGE."""
    from advisor.inputs import clip_words

    text = clip_words(" ".join(message.split()))
    room = MAX_MESSAGE - len("advisor: error: ")
    if len(text) > room:
        body, sep, tip = text.partition(" Tip: ")
        tip = tip[:600]
        text = f"{body[:room - len(' … (cut)') - len(sep) - len(tip)]} … (cut){sep}{tip}"
    return text


def _fail(message: str, code: int) -> None:
    try:
        sys.stderr.write(f"advisor: error: {one_paragraph(message)}\n")
    except UnicodeEncodeError:  # a strict terminal encoding and a value it cannot show
        sys.stderr.write("advisor: error: " + one_paragraph(message).encode("ascii", "backslashreplace").decode() + "\n")
    _exit(code)


def _exit(code: int) -> None:
    """Leave without tearing down the interpreter: every command has closed its files, connections
    and temp dirs (try/finally) by now, advisor registers no atexit handlers, and finalising the
    ~100k objects of typer and pydantic costs ~10 ms of a ~150 ms audit. Only when called as the
    console script; in-process callers (tests) get a normal SystemExit."""
    if ON_EXIT is not None:
        ON_EXIT(code)
    if _AS_SCRIPT:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (BrokenPipeError, ValueError):
            code = code or 0
        from advisor import codecache

        codecache.save()
        os._exit(code)
    sys.exit(code)


_AS_SCRIPT = False
# set by advisor.__main__ to save the help this run printed (called with the exit code)
ON_EXIT: Optional[Callable[[int], object]] = None


def script() -> None:
    """Console-script entry point (`advisor`, `python -m advisor`)."""
    global _AS_SCRIPT
    _AS_SCRIPT = True
    main()
