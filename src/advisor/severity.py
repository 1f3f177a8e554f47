"""The severity policy (docs/severity.md is generated from this module and the catalogue).

Every rule states why it has its severity with a `severity_basis` from a small fixed vocabulary; each
basis belongs to one severity level, so a basis and a severity that disagree are a load error. Rules
generated from risky values take their basis from the entry (`basis`), or else from DEFAULT_BASIS by
severity and category; a critical entry must name its basis."""

from __future__ import annotations

from typing import Literal

Basis = Literal["data-loss", "access", "outage", "app-errors",
                "throughput", "latency", "stability", "security", "recoverability", "integrity",
                "context", "choice"]

LEVELS: dict[str, dict[str, str]] = {
    "critical": {
        "data-loss": "loses committed data or corrupts it",
        "access": "lets others in (no password, no privilege checks)",
        "outage": "stops the server or leaves it unable to serve (refuses to start, one thread for all)",
        "app-errors": "makes application statements fail or return wrong results",
    },
    "warning": {
        "throughput": "caps how much work the server does",
        "latency": "adds time to each statement or connection",
        "stability": "risks running out of memory, connections or files, or stalls under load",
        "security": "weakens protection a senior DBA would restore",
        "recoverability": "makes a crash, failover or restore lose more or take longer",
        "integrity": "lets invalid or inconsistent data be stored without an error",
    },
    "info": {
        "context": "context to record with the results",
        "choice": "a legitimate choice, worth stating",
    },
}

POLICY = """\
- **critical**: the setting loses committed data, lets others in, or stops the server (it refuses to
  start, or the application gets errors). Basis: `data-loss`, `access`, `outage`, `app-errors`.
- **warning**: a senior DBA changes it on this server for this purpose: throughput, latency,
  stability, security, recoverability, integrity. Basis: one of those words.
- **info**: context to record with the results, or a legitimate choice. Basis: `context`, `choice`.

Nothing that makes application statements fail is below critical; an override may raise a rule's
severity when its evidence is stronger, and lowers it only where the same finding then matters less
(its basis still names the rule's own level)."""

LEVEL_OF: dict[str, str] = {b: lvl for lvl, bases in LEVELS.items() for b in bases}

# generated (risky-value) rules without an explicit `basis`: by severity, then by category
DEFAULT_BASIS: dict[str, dict[str, str]] = {
    "warning": {"security": "security", "tls": "security", "durability": "recoverability",
                "replication": "recoverability", "correctness": "integrity", "transactions": "integrity",
                "memory": "stability", "limits": "stability", "concurrency": "latency",
                "network": "latency", "*": "throughput"},
    "info": {"benchmark": "context", "instrumentation": "context", "logging": "context",
             "version": "context", "*": "choice"},
}


def basis_for(severity: str, category: str, given: str | None, where: str) -> str:
    """The basis of a generated rule (ValueError naming the entry when none follows)."""
    if given:
        return given
    table = DEFAULT_BASIS.get(severity)
    if table is None:
        raise ValueError(f"{where}: a {severity} entry names its `basis` ({', '.join(LEVELS[severity])})")
    return table.get(category, table["*"])


def check(severity: str, basis: str) -> None:
    if LEVEL_OF.get(basis) != severity:
        raise ValueError(f"severity_basis {basis!r} belongs to {LEVEL_OF.get(basis, 'no level')}, not {severity} "
                         f"(a {severity} rule's basis is one of {', '.join(LEVELS[severity])})")
