"""Fact paths: how rules read a snapshot. Pure: no I/O, no clock.

Namespaces
  var.<name>          a server variable, as SHOW GLOBAL VARIABLES printed it (name case-insensitive)
  status.<Name>       a SHOW GLOBAL STATUS counter
  rate.<Name>         per-second rate of a counter: over the sampled interval when the snapshot has
                      one (--sample-seconds), else averaged since server start (status / Uptime),
                      which needs MIN_UPTIME_FOR_RATES (15 minutes) of uptime, else it is Unknown
  target.<field>      host, port, flavor, transport, version (compares as a version)
  purpose             'production' or 'benchmark' (an audit parameter, not a snapshot fact)
  server.* host.* client.* calibration.*   any field of the snapshot model, by dotted path
  derived.<name>      a named, unit-tested computation over other facts (the DERIVED registry)

A fact that is absent resolves to Unknown(reason); the reason says why it is missing, using
what the collector recorded in the snapshot's `missing` lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional, get_args, get_origin

from advisor.measure import calibration_spread
from advisor.knowledge.catalogue import VariableCatalogue
from advisor.snapshot import Snapshot, SnapshotModel
from advisor.units import format_number, format_size, parse_bool, try_number
from advisor.versions import Version, flavor_name

# A rate averaged since start needs this much uptime: right after a start (and a load) the counters
# describe the start-up, not the workload (a MariaDB 10.6 dump 61 s after a load read as 16 GiB/h of redo).
MIN_UPTIME_FOR_RATES = 900

NAMESPACES = ("var", "status", "rate", "target", "purpose", "server", "host", "client", "calibration", "derived")


@dataclass(frozen=True)
class Unknown:
    """A fact that is not available, and why."""

    reason: str

    def __bool__(self) -> bool:  # guard against accidental truthiness
        raise TypeError("Unknown has no truth value; check isinstance(x, Unknown)")


class FactMissing(Exception):
    """Raised by FactView.need*() when a fact a computation needs is unknown; the view turns it back
    into that Unknown, so a derived fact or formula reads its inputs without checking each one."""

    def __init__(self, unknown: Unknown):
        super().__init__(unknown.reason)
        self.unknown = unknown


DerivedFn = Callable[["FactView"], Any]


# The units a fact can have: the variable catalogue's (bytes, count, seconds, float, bool, enum, string,
# set), and these for derived facts and snapshot fields. Messages, evidence and pages ask
# FactView.unit(path) / fact_unit(...), never a variable's name.
DERIVED_UNITS = ("", "bytes", "count", "seconds", "ms", "h", "fraction", "ratio", "Mb/s", "MB/s", "1/s")


SpreadFn = Callable[["FactView"], Optional[tuple[float, float]]]


@dataclass(frozen=True)
class Derived:
    """A derived fact: its name, the function computing it from a snapshot, its unit and spread."""

    name: str
    fn: DerivedFn
    doc: str
    unit: str = ""
    spread: Optional[SpreadFn] = None  # a fact computed from a measurement: the range its spread maps to


class FactSet:
    """The derived facts one module defines. Each module of advisor.rules.derived has one (`FACTS`);
    advisor.rules.derived merges them into the registry the engine is handed (no import side effects)."""

    def __init__(self) -> None:
        self.facts: dict[str, Derived] = {}

    def define(self, name: str, doc: str, unit: str = "",
               spread: Optional[SpreadFn] = None) -> Callable[[DerivedFn], DerivedFn]:
        if unit not in DERIVED_UNITS:
            raise ValueError(f"derived fact {name}: unit {unit!r} is not one of {', '.join(DERIVED_UNITS)}")

        def deco(fn: DerivedFn) -> DerivedFn:
            if name in self.facts:
                raise ValueError(f"derived fact {name} defined twice")
            self.facts[name] = Derived(name, fn, " ".join(doc.split()), unit, spread)
            return fn
        return deco

    @staticmethod
    def merge(*sets: "FactSet") -> dict[str, Derived]:
        out: dict[str, Derived] = {}
        for fs in sets:
            for name, d in fs.facts.items():
                if name in out:
                    raise ValueError(f"derived fact {name} defined twice")
                out[name] = d
        return out


class FactView:
    """Read-only view of a snapshot for one audit purpose. `catalogue` is the variable catalogue
    (advisor.knowledge.catalogue.VariableCatalogue) and `derived` the derived-fact registry
    (advisor.rules.derived.DERIVED); both are handed in, so the view reads no file."""

    def __init__(self, snapshot: Snapshot, purpose: str = "production", *, catalogue: Optional[VariableCatalogue] = None,
                 derived: Optional[Mapping[str, Derived]] = None):
        self.snapshot = snapshot
        self.purpose = purpose
        self.catalogue = catalogue if catalogue is not None else VariableCatalogue.empty()
        self.derived: Mapping[str, Derived] = derived or {}
        self._version: Optional[Version] = None
        self._version_text = ""
        self._vars = {k.lower(): v for k, v in snapshot.server.variables.items()}
        self._status = {k.lower(): v for k, v in snapshot.server.status.items()}
        self._rates = ({k.lower(): v for k, v in snapshot.server.interval.rates.items()}
                       if snapshot.server.interval else {})
        self._cache: dict[str, Any] = {}
        self._stack: list[str] = []

    # -------------------------------------------------------------- public
    def get(self, path: str) -> Any:
        if path in self._cache:
            return self._cache[path]
        val = self._resolve(path)
        self._cache[path] = val
        return val

    def has(self, path: str) -> bool:
        return not isinstance(self.get(path), Unknown)

    def num(self, path: str) -> Any:
        """The fact as a number, or Unknown."""
        v = self.get(path)
        if isinstance(v, Unknown):
            return v
        n = try_number(v) if not isinstance(v, (int, float)) or isinstance(v, bool) else v
        if n is None:
            return Unknown(f"{path} is {v!r}, not a number")
        return n

    def flag(self, path: str) -> Any:
        """The fact as a boolean (ON/OFF, YES/NO, 1/0), or Unknown."""
        v = self.get(path)
        if isinstance(v, Unknown):
            return v
        b = parse_bool(v)
        if b is None:
            return Unknown(f"{path} is {v!r}, not ON/OFF")
        return b

    def need(self, path: str) -> Any:
        """The fact, or FactMissing (inside a derived fact or formula: the result is that Unknown)."""
        return _known(self.get(path))

    def need_num(self, path: str) -> Any:
        return _known(self.num(path))

    def need_flag(self, path: str) -> bool:
        return _known(self.flag(path))

    def num_or(self, path: str, default: float) -> Any:
        """The fact as a number, or `default` when it is unknown."""
        n = self.num(path)
        return default if isinstance(n, Unknown) else n

    def known(self, path: str) -> Any:
        """The fact, or None when it is unknown."""
        v = self.get(path)
        return None if isinstance(v, Unknown) else v

    def variables(self) -> Mapping[str, Any]:
        """The server's variables, names lower-cased (read-only)."""
        return MappingProxyType(self._vars)

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """compute() once per view (for work that several derived facts share)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def spread(self, path: str) -> Optional[tuple[float, float]]:
        """How much a measured fact varied, as (low, high): the middle half of a calibration probe's
        samples (advisor.measure.calibration_spread), or what a derived fact computed from one declares;
        None for facts that are no measurement or whose spread was not recorded. The engine calls a
        comparison whose answer differs between low and high uncertain (STYLE 23)."""
        if path.startswith("calibration."):
            return calibration_spread(self.snapshot.calibration, path[len("calibration."):])
        if path.startswith("derived."):
            d = self.derived.get(path[len("derived."):])
            if d is not None and d.spread is not None:
                return self.memo("spread:" + path, lambda: d.spread(self))  # type: ignore[misc]
        return None

    def unit(self, path: str) -> Optional[str]:
        """The unit of a fact: the catalogue's for var.*, the declared one for derived.*, count for
        status counters and rates, the field's for the snapshot (None: not a quantity, or not known)."""
        return fact_unit(path, self.catalogue, self.derived)

    @property
    def flavor(self) -> str:
        return self.snapshot.target.flavor

    @property
    def version(self) -> Version:
        v = self._version
        if v is None or self._version_text != self.snapshot.target.version:  # parsed once per target text
            self._version_text = self.snapshot.target.version
            v = self._version = Version.parse(self._version_text)
        return v

    # -------------------------------------------------------------- resolution
    def _resolve(self, path: str) -> Any:
        root, _, rest = path.partition(".")
        if root == "purpose" and not rest:
            return self.purpose
        if root == "var":
            v = self._vars.get(rest.lower())
            return v if v is not None else Unknown(self.missing_reason(f"server.variables.{rest}",
                   f"the server reports no variable {rest} ({self.flavor} {self.snapshot.target.version})"))
        if root == "status":
            v = self._status.get(rest.lower())
            return v if v is not None else Unknown(self.missing_reason(f"server.status.{rest}",
                   f"the server reports no status counter {rest}"))
        if root == "rate":
            return self._rate(rest)
        if root == "target":
            if rest == "version":
                return self.version
            return self._walk(self.snapshot.target, rest.split("."), path)
        if root == "derived":
            d = self.derived.get(rest)
            if d is None:
                return Unknown(f"no derived fact named {rest}")
            if rest in self._stack:
                return Unknown(f"derived fact {rest} depends on itself")
            self._stack.append(rest)
            try:
                return d.fn(self)
            except FactMissing as e:
                return e.unknown
            finally:
                self._stack.pop()
        if root in ("server", "host", "client", "calibration"):
            return self._walk(self.snapshot, path.split("."), path)
        return Unknown(f"unknown fact namespace {root!r}")

    def _rate(self, name: str) -> Any:
        key = name.lower()
        if key in self._rates:
            return self._rates[key]
        count = self.num(f"status.{name}")
        if isinstance(count, Unknown):
            return count
        up = self.num("status.Uptime")
        if isinstance(up, Unknown):
            return Unknown("status.Uptime is missing, so no rate can be computed")
        if up <= 0:
            return Unknown("Uptime is 0 seconds; no rate yet")
        if up < MIN_UPTIME_FOR_RATES:
            return Unknown(f"the server has been up only {format_number(up)} s; a rate averaged over less than "
                           f"{MIN_UPTIME_FOR_RATES // 60} minutes since start mostly reflects start-up and whatever ran "
                           "right after it (a load, a warm-up), so no rate since start is used. Tip: sample an interval "
                           "with `advisor collect --sample-seconds 60` under the usual load")
        return count / up

    def rate_basis(self) -> str:
        iv = self.snapshot.server.interval
        if iv:
            return f"measured over {iv.seconds:g} s"
        return "averaged since server start"

    def _walk(self, obj: Any, parts: list[str], full: str) -> Any:
        cur = obj
        walked: list[str] = []
        for p in parts:
            walked.append(p)
            if cur is None:
                return Unknown(self.missing_reason(".".join(walked[:-1]), f"{'.'.join(walked[:-1])} was not collected"))
            if isinstance(cur, SnapshotModel):
                if p not in type(cur).model_fields:
                    return Unknown(f"{full}: no field {p!r}")
                cur = getattr(cur, p)
            elif isinstance(cur, dict):
                if p in cur:
                    cur = cur[p]
                else:
                    low = {str(k).lower(): v for k, v in cur.items()}
                    if p.lower() not in low:
                        return Unknown(self.missing_reason(".".join(walked), f"{'.'.join(walked)} is not in the snapshot"))
                    cur = low[p.lower()]
            else:
                return Unknown(f"{full}: {'.'.join(walked[:-1])} has no field {p!r}")
        if cur is None:
            return Unknown(self.missing_reason(full, f"{full} was not collected"))
        return cur

    def missing_reason(self, path: str, default: str) -> str:
        """The collector's recorded reason for a missing fact, searching the path and its parents."""
        snap = self.snapshot
        entries = list(snap.missing)
        for section in (snap.server, snap.host, snap.client, snap.calibration):
            if section is not None:
                entries.extend(section.missing)
        best: Optional[str] = None
        best_len = -1
        for m in entries:
            if path == m.fact or path.startswith(m.fact + "."):
                if len(m.fact) > best_len:
                    best, best_len = f"{m.fact}: {m.reason}", len(m.fact)
        return best or default


# ---------------------------------------------------------------- path validation (load time)

def _model_field_type(model: type[SnapshotModel], name: str) -> Any:
    f = model.model_fields.get(name)
    return None if f is None else f.annotation


def _unwrap(t: Any) -> Any:
    """Optional[X] -> X."""
    args = get_args(t)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return rest[0] if len(rest) == 1 else t
    return t


def validate_path(path: str, derived: Mapping[str, Derived]) -> Optional[str]:
    """None if the path can exist in a snapshot, else why not (used when loading rules)."""
    root, _, rest = path.partition(".")
    if root not in NAMESPACES:
        return f"unknown fact namespace {root!r} (use one of {', '.join(NAMESPACES)})"
    if root == "purpose":
        return None if not rest else "purpose has no sub-fields"
    if root in ("var", "status", "rate"):
        return None if re.fullmatch(r"[A-Za-z0-9_]+", rest) else f"{path}: expected {root}.<name>"
    if root == "derived":
        if rest not in derived:
            return f"no derived fact named {rest!r} (known: {', '.join(sorted(derived))})"
        return None
    t: Any = Snapshot
    parts = path.split(".") if root != "target" else ["target"] + rest.split(".")
    for i, p in enumerate(parts):
        t = _unwrap(t)
        if isinstance(t, type) and issubclass(t, SnapshotModel):
            ft = _model_field_type(t, p)
            if ft is None:
                return f"{path}: {'.'.join(parts[:i]) or 'snapshot'} has no field {p!r}"
            t = ft
        elif get_origin(t) is dict:
            t = get_args(t)[1]
        else:
            return f"{path}: {'.'.join(parts[:i])} has no sub-field {p!r}"
    return None


# ---------------------------------------------------------------- units

# Snapshot fields name their unit by suffix (total_bytes, p50 under fsync_ms, speed_mbps); a field whose
# name does not say it carries json_schema_extra={"unit": ...} (see advisor.snapshot).
_FIELD_SUFFIXES = (("mbytes_per_s", "MB/s"), ("_bytes", "bytes"), ("_ms", "ms"), ("_mbps", "Mb/s"),
                   ("_fraction", "fraction"), ("ratio", "ratio"), ("_s", "seconds"), ("_count", "count"))
_FIELD_NAMES = {"bytes": "bytes", "seconds": "seconds", "samples": "count", "chunks": "count", "rows": "count",
                "tables": "count", "sessions_total": "count", "sessions_tls": "count", "connections_max": "count",
                "query_samples": "count", "stream_samples": "count", "swappiness": "count", "numa_nodes": "count",
                "mtu": "count"}


def fact_unit(path: str, catalogue: VariableCatalogue, derived: Mapping[str, Derived]) -> Optional[str]:
    """The unit of a fact path (see FactView.unit)."""
    root, _, rest = path.partition(".")
    if root == "var" or path.startswith("server.variables."):
        return catalogue.unit(rest if root == "var" else path.split(".", 2)[2])
    if root in ("status", "rate") or path.startswith("server.status."):
        return "count"
    if root == "derived":
        d = derived.get(rest)
        return (d.unit or None) if d is not None else None
    if root in ("server", "host", "client", "calibration", "target"):
        return _field_unit(path.split(".") if root != "target" else ["target"] + rest.split("."))
    return None


def _field_unit(parts: list[str]) -> Optional[str]:
    declared = _declared_unit(parts)
    if declared:
        return declared
    for seg in reversed(parts):
        if seg in _FIELD_NAMES:
            return _FIELD_NAMES[seg]
        for suffix, unit in _FIELD_SUFFIXES:
            if seg.endswith(suffix):
                return unit
    return None


def _declared_unit(parts: list[str]) -> Optional[str]:
    """The unit a snapshot field declares in its metadata, if the path ends on such a field."""
    t: Any = Snapshot
    field_info = None
    for p in parts:
        t = _unwrap(t)
        if isinstance(t, type) and issubclass(t, SnapshotModel):
            field_info = t.model_fields.get(p)
            if field_info is None:
                return None
            t = field_info.annotation
        elif get_origin(t) is dict:
            t, field_info = get_args(t)[1], None
        else:
            return None
    extra = getattr(field_info, "json_schema_extra", None)
    return extra.get("unit") if isinstance(extra, dict) else None


# ---------------------------------------------------------------- message templates

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?:\|([a-z_]+))?\}")


def _fmt_pct(v: Any) -> str:
    """0.42 -> '42%'; a share below 1 % keeps two significant digits (0.0012 -> '0.12%') so that a
    small non-zero share does not read as 0 %."""
    pct = float(v) * 100
    if pct != 0 and abs(pct) < 1:
        return f"{pct:.2g}%"
    return f"{pct:.0f}%"


FILTERS: dict[str, Callable[[Any], str]] = {
    "size": lambda v: format_size(try_number(v) if not isinstance(v, (int, float)) else v),
    "num": lambda v: format_number(try_number(v) if not isinstance(v, (int, float)) else v),
    "pct": _fmt_pct,
    "delta": lambda v: f"{float(v) * 100:+.0f}%",  # a change: -0.09 -> -9%, 0.21 -> +21%
    "ms": lambda v: f"{float(v):.2f} ms" if float(v) < 10 else f"{float(v):.0f} ms",
    "mbps": lambda v: f"{int(v):,} Mb/s",
    "mbytes": lambda v: f"{float(v):.1f} MB/s",
    "onoff": lambda v: "ON" if parse_bool(v) else "OFF",
    "x": lambda v: f"{float(v):.1f}×",
    "quoted": lambda v: f"'{v}'" if str(v) != "" else "empty",  # a string setting that may be empty
    "raw": str,
}


EMPTY_VALUE = "'' (empty)"  # an empty value in a sentence, as the evidence shows it (advisor.units.format_evidence)


def template_paths(template: str) -> list[tuple[str, Optional[str]]]:
    return [(m.group(1), m.group(2)) for m in _PLACEHOLDER.finditer(template)]


def render_template(template: str, view: FactView, extra: Optional[dict[str, Any]] = None) -> str:
    """Replace {path|filter} with fact values. `extra` supplies `rec.<variable>` values."""
    extra = extra or {}

    def sub(m: re.Match[str]) -> str:
        path, flt = m.group(1), m.group(2)
        if path == "recommendation":
            recs = [f"{k[4:]} = {v}" for k, v in extra.items() if k.startswith("rec.")]
            return ", ".join(recs) if recs else "(no computed value)"
        if path.startswith("rec.") and path not in extra:
            return "(no computed value)"
        v = extra[path] if path in extra else view.get(path)
        if isinstance(v, Unknown) or v is None:
            return "unknown"
        if path == "target.flavor" and flt in (None, "raw"):
            return flavor_name(str(v))
        if isinstance(v, str) and v.strip() == "" and flt in (None, "raw"):
            return EMPTY_VALUE
        try:
            return FILTERS[flt or "raw"](v)
        except (TypeError, ValueError):
            return str(v)
    return _PLACEHOLDER.sub(sub, template)


def _known(v: Any) -> Any:
    if isinstance(v, Unknown):
        raise FactMissing(v)
    return v


def first_unknown(*vals: Any) -> Optional[Unknown]:
    """The first Unknown among the values, or None."""
    return next((v for v in vals if isinstance(v, Unknown)), None)


def json_value(v: Any) -> Any:
    """A fact value as evidence in a JSON report."""
    if isinstance(v, Version):
        return str(v)
    if hasattr(v, "model_dump"):  # a snapshot section (or another model)
        return v.model_dump()
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    return v
