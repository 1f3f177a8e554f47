"""Host facts of the server's machine: where they come from (this machine, ssh, a host-facts file,
a recorded tree), which server directories to resolve, and whether the server is local at all.

Reading is done by advisor.collect.host_gather (self-contained, also shipped over ssh); parsing by
advisor.collect.host_parse. This module holds the decisions between them.
"""

from __future__ import annotations

from advisor.collect.clock import now_iso
import json
import os
import posixpath
import socket as _socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from advisor.collect.host_gather import FORMAT as RAW_FORMAT
from advisor.collect.host_gather import Gatherer
from advisor.collect.host_parse import parse_host
from advisor.errors import InvalidInputError
from advisor.snapshot import HostFacts

HOST_FACTS_SCHEMA = "advisor.host-facts/1"
DEFAULT_DATADIR = "/var/lib/mysql"
NO_HOST_TIP = ("add --ssh USER@HOST to read them over ssh (host keys are verified), or run "
               "`advisor collect --host-facts-only -o host.json` on the server and pass --host-facts host.json")


# ---------------------------------------------------------------------- server directories

def server_dirs(variables: dict[str, str]) -> dict[str, str]:
    """Role -> absolute path for the datadir and the InnoDB directories that live elsewhere.
    innodb_log_group_home_dir and innodb_data_home_dir are relative to the datadir when relative
    (their defaults, './' and '', mean the datadir itself)."""
    v = {k.lower(): (val or "") for k, val in variables.items()}
    datadir = v.get("datadir", "").strip()
    if not datadir:
        return {}
    datadir = posixpath.normpath(datadir)
    out = {"datadir": datadir}
    for role in ("innodb_log_group_home_dir", "innodb_data_home_dir"):
        raw = v.get(role, "").strip()
        if not raw or raw in (".", "./"):
            continue
        p = posixpath.normpath(raw if raw.startswith("/") else posixpath.join(datadir, raw))
        if p != datadir:
            out[role] = p
    return out


def pid_file(variables: dict[str, str]) -> Optional[str]:
    v = {k.lower(): val for k, val in variables.items()}
    pf = (v.get("pid_file") or "").strip()
    if not pf:
        return None
    if not pf.startswith("/") and v.get("datadir"):
        pf = posixpath.join(v["datadir"], pf)
    return pf


# ---------------------------------------------------------------------- gathering

def gather_local(sysroot: str = "/", dirs: Optional[dict[str, str]] = None, pid_file_path: Optional[str] = None,
                 pid: Optional[int] = None) -> dict[str, Any]:
    return Gatherer(sysroot or "/").host(list((dirs or {}).values()), pid_file_path, pid)


def host_facts(raw: dict[str, Any], dirs: Optional[dict[str, str]], source: str) -> HostFacts:
    return parse_host(raw, dirs or None, source)


# ---------------------------------------------------------------------- is the server on this machine?

@dataclass(frozen=True)
class Locality:
    """Whether the server runs on this machine, and why the collector thinks so."""

    local: bool
    reason: str


def local_addresses() -> set[str]:
    """Addresses assigned to this machine (from /proc/net, no subprocess)."""
    from advisor.collect.host_parse import RawTree
    from advisor.collect.network_parse import local_addresses as addresses_in_tree

    raw = Gatherer("/")
    for p in ("/proc/net/route", "/proc/net/fib_trie", "/proc/net/if_inet6"):
        raw.read(p)
    return {str(a) for a in addresses_in_tree(RawTree(raw.raw)).all}


def decide_locality(host: Optional[str], transport: str, variables: dict[str, str],
                    addresses: Optional[set[str]] = None) -> Locality:
    """Local when connected over a unix socket, when the server address is loopback or assigned
    to a local interface, or when @@hostname is this machine's name and the datadir exists here."""
    if transport == "socket":
        return Locality(True, "connected over a unix socket, so the server runs on this machine")
    from advisor.collect.network import resolve_address

    addr, _ = resolve_address(host or "localhost")
    if addr is not None:
        if addr.is_loopback:
            same = host is None or str(addr) == host
            return Locality(True, f"{host or 'localhost'} is a loopback address" + ("" if same else f" ({addr})"))
        mine = addresses if addresses is not None else local_addresses()
        if str(addr) in mine:
            return Locality(True, f"{host} ({addr}) is an address of this machine")
    v = {k.lower(): val for k, val in variables.items()}
    server_name = (v.get("hostname") or "").strip()
    me = _socket.gethostname()
    datadir = (v.get("datadir") or "").strip()
    if server_name and server_name.split(".")[0] == me.split(".")[0] and datadir and os.path.isdir(datadir):
        return Locality(True, f"the server's @@hostname {server_name!r} is this machine and its datadir {datadir} exists here")
    where = f"{host} ({addr})" if addr is not None else repr(host)
    return Locality(False, f"the server at {where} is not on this machine (not a loopback or local address"
                           + (f", and @@hostname {server_name!r} is not {me!r})" if server_name else ")"))


# ---------------------------------------------------------------------- host-facts files

def host_facts_document(raw: dict[str, Any], facts: HostFacts) -> str:
    from advisor import __version__

    doc = {"schema": HOST_FACTS_SCHEMA, "advisor_version": __version__, "collected_at": now_iso(),
           "host": json.loads(facts.model_dump_json()), "raw": raw}
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"


def load_host_facts_file(path: str) -> dict[str, Any]:
    """The raw document inside a host-facts file written by `advisor collect --host-facts-only`, or the
    raw document itself as host_gather.py prints it (`python3 host_gather.py --dir DATADIR > host.json`)."""
    tip = "write it on the server with `advisor collect --host-facts-only -o host.json` and copy the file whole."
    p = Path(path)
    if not p.is_file():
        raise InvalidInputError(f"host-facts file {p} does not exist.", tip)
    from advisor.inputs import BadInput, clip, load_json

    try:
        doc = load_json(p.read_bytes())
    except OSError as e:
        raise InvalidInputError(f"cannot read host-facts file {p}: {e.strerror}.", tip) from None
    except json.JSONDecodeError as e:
        raise InvalidInputError(f"host-facts file {p} is not valid JSON (line {e.lineno}, column {e.colno}: "
                                f"{e.msg}); it may be truncated.", tip) from None
    except BadInput as e:
        raise InvalidInputError(f"host-facts file {p} cannot be read: {e}.", tip) from None
    if isinstance(doc, dict) and doc.get("format") == RAW_FORMAT and isinstance(doc.get("files"), dict):
        return doc  # the gatherer's own output (host_gather.py run on the server, e.g. by the Ansible role)
    if not isinstance(doc, dict) or doc.get("schema") != HOST_FACTS_SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise InvalidInputError(f"{p} is not a host-facts file (schema {clip(got, 60)}, expected "
                                f"{HOST_FACTS_SCHEMA!r}).", tip)
    raw = doc.get("raw")
    if not isinstance(raw, dict) or raw.get("format") != RAW_FORMAT or not isinstance(raw.get("files"), dict):
        raise InvalidInputError(f"host-facts file {p} has no raw section in format {RAW_FORMAT}.", tip)
    problem = raw_problem(raw)
    if problem:
        raise InvalidInputError(f"host-facts file {p} is damaged: {problem}.", tip)
    return raw


# The shape of each section of a raw host document (host_gather.Gatherer.raw): a mapping from a
# path to a value of this type ("list" = a list of names).
_RAW_SECTIONS = {"files": str, "links": str, "dirs": list, "errors": str, "paths": dict}
# the fields of one raw.paths entry (host_gather.Gatherer.path_info)
_PATH_FIELDS = {"realpath": str, "dev": str, "exists": bool, "error": str}


def raw_problem(raw: dict[str, Any]) -> str:
    """What is wrong with the shape of a raw host document (a file, or the gatherer's output over ssh),
    or ''. The parser trusts these shapes, so a document that breaks them is refused whole."""
    from advisor.inputs import clip

    for section, kind in _RAW_SECTIONS.items():
        value = raw.get(section)
        if value is None:
            continue
        if not isinstance(value, dict):
            return f"raw.{section} is {type(value).__name__}, expected an object of paths"
        for key, item in value.items():
            if not isinstance(item, kind) or (kind is list and not all(isinstance(x, str) for x in item)):
                want = {str: "text", list: "a list of names", dict: "an object"}[kind]
                return f"raw.{section}[{clip(key, 80)}] is {type(item).__name__}, expected {want}"
    for key, item in (raw.get("paths") or {}).items():
        for name, kind in _PATH_FIELDS.items():
            if item.get(name) is not None and not isinstance(item[name], kind):
                want = {str: "text", bool: "true or false"}[kind]
                return f"raw.paths[{clip(key, 80)}].{name} is {type(item[name]).__name__}, expected {want}"
    info = raw.get("mysqld")
    if info is not None and not isinstance(info, dict):
        return f"raw.mysqld is {type(info).__name__}, expected an object"
    pid = (info or {}).get("pid")
    if pid is not None and (isinstance(pid, bool) or not isinstance(pid, int) or pid < 0):
        return f"raw.mysqld.pid is {clip(pid, 40)}, expected a process id"
    return ""


def host_facts_only(sysroot: str = "/", datadir: Optional[str] = None) -> tuple[dict[str, Any], HostFacts]:
    """For `advisor collect --host-facts-only`: gather this machine without a server connection.
    The datadir is the given one, else the working directory of the mariadbd/mysqld process
    (mysqld runs in its datadir), else /var/lib/mysql when it exists."""
    g = Gatherer(sysroot or "/")
    dirs: dict[str, str] = {}
    if datadir:
        dirs["datadir"] = datadir
    raw = g.host(list(dirs.values()))
    if not dirs:
        info = raw.get("mysqld") or {}
        cwd = raw["links"].get(f"/proc/{info.get('pid')}/cwd") if info.get("pid") else None
        if cwd:
            dirs["datadir"] = cwd
        elif os.path.isdir(os.path.join(sysroot or "/", DEFAULT_DATADIR.lstrip("/"))):
            dirs["datadir"] = DEFAULT_DATADIR
        for d in dirs.values():
            g.path_info(d)
        g.mount_devices()
    facts = parse_host(raw, dirs or None, "local")
    return raw, facts
