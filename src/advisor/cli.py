"""The command line: a thin typer layer over advisor.api. The only place that prints errors and
chooses exit codes (see advisor.errors for the list)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

# advisor uses no pydantic plugins; without this, pydantic scans every installed distribution's
# entry points at first use (~13 ms on a machine with many packages).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer  # noqa: E402

from advisor import __version__

app = typer.Typer(
    name="advisor",
    help="Rule-based configuration advisor for MySQL, Percona Server, MariaDB and TiDB: findings with evidence, "
         "a measured calibration, and a justified my.cnf.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"advisor {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """advisor: find what makes a MySQL-family server slow or a benchmark misleading, show the evidence, write the fix."""


from advisor.commands.audit import audit  # noqa: E402
from advisor.commands.calibrate import calibrate  # noqa: E402
from advisor.commands.checklist import checklist  # noqa: E402
from advisor.commands.collect import collect  # noqa: E402
from advisor.commands.fleet import fleet  # noqa: E402
from advisor.commands.rules_cmd import explain, rules_app  # noqa: E402
from advisor.commands.mycnf import mycnf  # noqa: E402
from advisor.commands.verify import verify  # noqa: E402

app.command("audit")(audit)
app.command("collect")(collect)
app.command("calibrate")(calibrate)
app.command("explain")(explain)
app.command("mycnf")(mycnf)
app.command("verify")(verify)
app.command("fleet")(fleet)
app.add_typer(rules_app, name="rules")
app.command("checklist")(checklist)


def _is(e: BaseException, name: str) -> bool:
    """Typer vendors click in recent versions and uses real click in older ones: match by class name."""
    return any(c.__name__ == name for c in type(e).__mro__)


def main(argv: Optional[list[str]] = None) -> None:
    from advisor.errors import EXIT_INTERRUPTED, EXIT_USAGE, AdvisorError

    try:
        rv = app(args=argv, standalone_mode=False, prog_name="advisor")
    except AdvisorError as e:
        _fail(str(e), e.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted.", EXIT_INTERRUPTED)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as e:
        if _is(e, "Exit"):
            sys.exit(getattr(e, "exit_code", 0))
        if _is(e, "Abort"):
            _fail("interrupted.", EXIT_INTERRUPTED)
        if _is(e, "NoArgsIsHelpError"):
            sys.exit(0)  # help was printed
        if _is(e, "ClickException"):
            msg = e.format_message()  # type: ignore[attr-defined]
            ctx = getattr(e, "ctx", None)
            hint = f" Tip: `{ctx.command_path} --help` lists the options." if ctx is not None else ""
            code = EXIT_USAGE if _is(e, "UsageError") else getattr(e, "exit_code", 1)
            _fail(f"{msg.rstrip('.')}.{hint}", code)
        if os.environ.get("ADVISOR_DEBUG"):  # a bug: one paragraph, traceback only on request
            raise
        _fail(f"internal error: {type(e).__name__}: {e}. Tip: this is a bug in advisor; run again with "
              "ADVISOR_DEBUG=1 for the traceback and report it.", 70)
    if rv == EXIT_INTERRUPTED:  # typer returns Ctrl-C as exit code 130 (no exception) in non-standalone mode
        _fail("interrupted.", EXIT_INTERRUPTED)
    sys.exit(rv if isinstance(rv, int) else 0)


def _fail(message: str, code: int) -> None:
    sys.stderr.write(f"advisor: error: {' '.join(message.split())}\n")
    sys.exit(code)
