"""The roll-up of a fleet audit, built one host at a time as results arrive (pure: handed plain data).

- per rule: how many hosts fire it, and which;
- per host: finding counts by severity (or the error that kept it from being audited);
- unreachable hosts with their error and exit code;
- configuration drift: per inventory group, the server variables whose values differ between the
  group's audited hosts (a value with the hosts that have it). Variables that name the host itself
  (server_id, hostname, the socket, the paths under its datadir, GTID positions, ...: the variable
  catalogue's role 'identity', handed in as `identity`) are expected to differ and are left out. Hosts
  without a group form the group `all`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

SEVERITIES = ("critical", "warning", "info")

@dataclass
class HostOutcome:
    """What the roll-up needs of one host: its name and groups, its findings (rule, severity, title)
    or the error that kept it from being audited, and its server variables (for drift)."""

    name: str
    groups: tuple[str, ...] = ()
    findings: list[tuple[str, str, str]] = field(default_factory=list)
    error: Optional[str] = None
    exit_code: int = 0
    flavor: str = ""
    version: str = ""
    variables: Optional[dict[str, str]] = None


class Rollup:
    def __init__(self, identity: frozenset[str] = frozenset()) -> None:
        self.identity = identity  # the variables that name the host (VariableCatalogue.names_with("role", "identity"))
        self.rules: dict[str, dict[str, Any]] = {}
        self.hosts: dict[str, dict[str, Any]] = {}
        self.unreachable: list[dict[str, Any]] = []
        # group -> variable -> value -> host names
        self._values: dict[str, dict[str, dict[str, list[str]]]] = {}
        self._members: dict[str, int] = {}

    def add(self, h: HostOutcome) -> None:
        if h.error is not None:
            self.unreachable.append({"host": h.name, "error": h.error, "exit_code": h.exit_code})
            self.hosts[h.name] = {"audited": False, "groups": list(h.groups), **{s: 0 for s in SEVERITIES}}
            return
        counts = {s: 0 for s in SEVERITIES}
        for rule, severity, title in h.findings:
            counts[severity] = counts.get(severity, 0) + 1
            r = self.rules.setdefault(rule, {"rule": rule, "severity": severity, "title": title, "hosts": []})
            r["hosts"].append(h.name)
        self.hosts[h.name] = {"audited": True, "groups": list(h.groups), "flavor": h.flavor, "version": h.version,
                              **counts}
        if h.variables is not None:
            for g in h.groups or ("all",):
                self._members[g] = self._members.get(g, 0) + 1
                per = self._values.setdefault(g, {})
                for k, v in h.variables.items():
                    k = k.lower()
                    if k not in self.identity:
                        per.setdefault(k, {}).setdefault(v, []).append(h.name)

    def drift(self) -> dict[str, list[dict[str, Any]]]:
        """group -> [{variable, hosts, values: [{value, hosts}]}] for the variables with more than one value
        (a host that lacks the variable is not counted); values most common first."""
        out: dict[str, list[dict[str, Any]]] = {}
        for g in sorted(self._values):
            if self._members.get(g, 0) < 2:
                continue
            rows = []
            for var in sorted(self._values[g]):
                vals = self._values[g][var]
                if len(vals) < 2:
                    continue
                ranked = sorted(vals.items(), key=lambda kv: (-len(kv[1]), kv[0]))
                rows.append({"variable": var, "hosts": sum(len(hs) for _, hs in ranked),
                             "values": [{"value": v, "hosts": sorted(hs)} for v, hs in ranked]})
            out[g] = rows
        return out

    def to_dict(self) -> dict[str, Any]:
        audited = sum(1 for h in self.hosts.values() if h["audited"])
        order = {s: i for i, s in enumerate(SEVERITIES)}
        rules = sorted(self.rules.values(), key=lambda r: (order.get(r["severity"], 9), -len(r["hosts"]), r["rule"]))
        return {
            "hosts_total": len(self.hosts),
            "hosts_audited": audited,
            "hosts_unreachable": len(self.unreachable),
            "rules": [{**r, "hosts": sorted(r["hosts"]), "count": len(r["hosts"])} for r in rules],
            "hosts": [{"host": name, **self.hosts[name]} for name in sorted(self.hosts)],
            "unreachable": sorted(self.unreachable, key=lambda u: u["host"]),
            "drift": self.drift(),
            "drift_ignored": sorted(self.identity),
        }
