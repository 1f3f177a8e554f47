"""Typed errors. Domain code raises these; only the CLI turns them into exit codes.

Exit codes (documented in README.md):
  0  no finding at or above --fail-on
  1  a finding at or above --fail-on (or a failed checklist item with --fail-on-fail, or a confounding
     difference with `compare --fail-on-confounding`)
  2  usage error: bad option, bad value, unknown rule id, malformed sysbench command
  3  cannot connect or authenticate to the server
  4  invalid input file: snapshot, rule file, host-facts file, my.cnf
  5  collection failed after connecting: the server went away, a query failed fatally; also a
     calibration that failed after the facts were collected (the report is still written)
  6  fleet: at least one host could not be audited (whatever --fail-on says)
  130 interrupted (Ctrl-C)
"""

from __future__ import annotations


class AdvisorError(Exception):
    """An error the user can act on. `str(err)` is one paragraph; `tip` says what to do."""

    exit_code = 1

    def __init__(self, message: str, tip: str | None = None):
        super().__init__(message)
        self.message = message
        self.tip = tip

    def __str__(self) -> str:  # one paragraph, tip last
        return f"{self.message} Tip: {self.tip}" if self.tip else self.message


class UsageError(AdvisorError):
    exit_code = 2


class ConnectError(AdvisorError):
    exit_code = 3


class InvalidInputError(AdvisorError):
    exit_code = 4


class RuleLoadError(InvalidInputError):
    """A rule file failed to parse or validate; message names file and field."""


class SnapshotError(InvalidInputError):
    pass


class CollectionError(AdvisorError):
    exit_code = 5


EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_CONNECT = 3
EXIT_INVALID_INPUT = 4
EXIT_COLLECTION = 5
EXIT_FLEET_INCOMPLETE = 6
EXIT_BENCHMARK_FAILED = 7  # watch: the benchmark under it failed (sysbench FATAL, or a non-zero exit with no load)
EXIT_INTERRUPTED = 130
