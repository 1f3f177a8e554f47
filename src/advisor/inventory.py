"""Read the list of servers `advisor fleet` audits: Ansible inventories (the JSON `ansible-inventory
--list` prints, INI and YAML inventory files), Percona DSNs (`h=db1,P=3306,u=bench,S=/run/mysqld.sock,
F=/etc/my.cnf`, one per line) and plain `[user@]host[:port]` lines.

From an inventory each host becomes one target: the address is `ansible_host` (else the inventory
name), and `mysql_port`, `mysql_user`, `mysql_socket`, `mysql_password` and `mysql_defaults_file`
say how to reach its server (a group's vars apply to its hosts, a child group's over its parent's,
host vars last, as Ansible merges them). The groups a host belongs to (directly or through
`children`, without `all` and `ungrouped`) are kept for the drift report. A YAML inventory is read
with PyYAML when it is installed, else through `ansible-inventory --list`; INI and JSON need nothing.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from advisor.collect.clientopts import is_dsn, mask_dsn, parse_dsn
from advisor.errors import InvalidInputError, UsageError

FORMATS = ("list", "dsn", "ini", "yaml", "json")
HOST_VARS = ("ansible_host", "mysql_port", "mysql_user", "mysql_socket", "mysql_password", "mysql_defaults_file")
_TARGET = re.compile(r"^(?:(?P<user>[^@\s]+)@)?(?P<host>\[[0-9a-fA-F:]+\]|[^:\s]+)(?::(?P<port>\d+))?$")
_RANGE = re.compile(r"\[([0-9a-z]+):([0-9a-z]+)(?::(\d+))?\]")


@dataclass(frozen=True)
class FleetTarget:
    """One server to audit. `text` is how it is shown (never with a password); `name` the inventory
    host name (the address when there is no inventory); `groups` its inventory groups."""

    line: int
    text: str
    host: str
    port: Optional[int]
    user: Optional[str]
    socket: Optional[str] = None
    defaults_file: Optional[str] = None
    password: Optional[str] = field(default=None, repr=False, compare=False)
    name: str = ""
    groups: tuple[str, ...] = ()
    ssh: Optional[str] = None  # [user@]host to read the host facts over ssh (from the inventory)
    ssh_options: tuple[str, ...] = ()  # KEY=VALUE for the ssh client (Port, IdentityFile, -o options)
    password_source: Optional[str] = None  # where `password` came from, for the error that rejects it

    @property
    def label(self) -> str:
        return self.name or self.text


# ---------------------------------------------------------------------- detection

def detect(text: str, suffix: str = "") -> str:
    """Which of FORMATS a target file is in."""
    lines = [ln for ln in (raw.split("#", 1)[0].rstrip() for raw in text.splitlines()) if ln.strip()]
    head = text.lstrip()
    if head.startswith("{"):
        return "json"
    if suffix in (".yml", ".yaml") or (lines and re.fullmatch(r"[A-Za-z_][\w.-]*:\s*", lines[0])) or head.startswith("---"):
        return "yaml"
    if suffix == ".ini" or any(re.fullmatch(r"\s*\[[^\]\s]+\]\s*", ln) and not _RANGE.search(ln) for ln in lines):
        return "ini"
    if lines and all(re.match(r"\s*[A-Za-z]=", ln) for ln in lines):
        return "dsn"
    if any(re.search(r"\s[A-Za-z_]\w*=", ln) for ln in lines if not is_dsn(ln.strip())):
        return "ini"
    return "list"


def parse(text: str, source: str = "targets", fmt: Optional[str] = None, suffix: str = "") -> list[FleetTarget]:
    """The targets in `text` (a file's content), in the format given or detected."""
    fmt = fmt or detect(text, suffix)
    if fmt not in FORMATS:
        raise UsageError(f"--inventory-format {fmt!r} is not one of {', '.join(FORMATS)}.", "leave it out to detect it.")
    if fmt == "list":
        out = parse_list(text, source)
    elif fmt == "dsn":
        out = parse_dsns(text, source)
    elif fmt == "json":
        out = from_inventory(_load_json(text, source), source)
    elif fmt == "ini":
        out = from_inventory(ini_to_inventory(text, source), source)
    else:
        out = from_inventory(yaml_to_inventory(text, source), source)
    if not out:
        raise UsageError(f"{source} lists no targets.", "write one [user@]host[:port] per line, a Percona DSN per "
                         "line, or give an Ansible inventory with hosts in it.")
    return out


def read(path: str, fmt: Optional[str] = None) -> list[FleetTarget]:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"target list {p} does not exist.", "pass a file with one [user@]host[:port] per line, Percona "
                         "DSNs, or an Ansible inventory (INI, YAML, or the JSON of `ansible-inventory --list`).")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInputError(f"cannot read the target list {p}: {e}.", "check the file and its permissions.") from None
    return parse(text, str(p), fmt, p.suffix.lower())


# ---------------------------------------------------------------------- plain lists and DSNs

def parse_list(text: str, source: str, dsn_only: bool = False) -> list[FleetTarget]:
    """One target per line, each read by its own syntax: a Percona DSN (`h=db1,P=3306,u=app,p=…`, read
    by `advisor.collect.clientopts.parse_dsn`, the one DSN parser) or [user@]host[:port]; '#' starts
    a comment (on a DSN line only at its start: a password may hold '#'); blank lines are skipped.
    With `dsn_only` every line must be a DSN."""
    out: list[FleetTarget] = []
    for n, raw in enumerate(text.splitlines(), 1):
        whole = raw.strip()
        if not whole or whole.startswith("#"):
            continue
        if is_dsn(whole) or dsn_only:
            out.append(_dsn_target(n, whole, f"{source}:{n}"))
            continue
        line = raw.split("#", 1)[0].strip()
        m = _TARGET.match(line)
        if not m or "=" in line:
            raise UsageError(f"{source}:{n}: {mask_dsn(line)!r} is not a target; write [user@]host[:port], a Percona "
                             "DSN (h=HOST,P=PORT,u=USER) or an Ansible inventory.",
                             "--inventory-format names the format when it is not detected.")
        port = _port(m.group("port"), f"{source}:{n}")
        host = m.group("host").strip("[]")
        out.append(FleetTarget(n, line, host, port, m.group("user"), name=line))
    return out


def parse_dsns(text: str, source: str) -> list[FleetTarget]:
    """Percona toolkit DSNs, one per line (see parse_list)."""
    return parse_list(text, source, dsn_only=True)


def _dsn_target(n: int, line: str, where: str) -> FleetTarget:
    """The target a DSN line names; its u= beats the command's --user for it (as pt tools do), its
    p= is never shown (the line is kept with `p=…`)."""
    try:
        parts = parse_dsn(line)
    except UsageError as e:
        raise UsageError(f"{where}: {e.message}", e.tip) from None
    if not parts.get("host") and not parts.get("socket"):
        raise UsageError(f"{where}: the DSN {mask_dsn(line)!r} names no host (h=) and no socket (S=).", "add h=HOST.")
    shown = mask_dsn(line)
    password = parts.get("password")
    return FleetTarget(n, shown, parts.get("host") or "localhost", _port(parts.get("port"), where),
                       parts.get("user") or None, socket=parts.get("socket") or None,
                       defaults_file=parts.get("defaults_file") or None, password=password, name=shown,
                       password_source=f"p= in the DSN at {where}" if password is not None else None)


def _port(value: Any, where: str) -> Optional[int]:
    if value in (None, ""):
        return None
    try:
        port = int(str(value))
    except ValueError:
        raise UsageError(f"{where}: port {value!r} is not a number.", "write the port as digits, e.g. 3306.") from None
    if not 0 < port < 65536:
        raise UsageError(f"{where}: port {port} is out of range.", "use a TCP port between 1 and 65535.")
    return port


# ---------------------------------------------------------------------- Ansible inventories

def _load_json(text: str, source: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidInputError(f"{source} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}).",
                                "write it with `ansible-inventory -i INVENTORY --list > inventory.json`.") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("_meta", {}), dict):
        raise InvalidInputError(f"{source} is JSON but not an Ansible inventory (no groups with hosts).",
                                "write it with `ansible-inventory -i INVENTORY --list > inventory.json`.")
    return doc


def from_inventory(doc: dict[str, Any], source: str) -> list[FleetTarget]:
    """Targets from an inventory in the shape `ansible-inventory --list` prints: groups with hosts,
    children and vars, and _meta.hostvars."""
    groups = {k: v for k, v in doc.items() if k != "_meta" and isinstance(v, dict)}
    hostvars = (doc.get("_meta") or {}).get("hostvars") or {}
    parents: dict[str, set[str]] = {}
    for g, body in groups.items():
        for child in body.get("children") or []:
            parents.setdefault(child, set()).add(g)
    order: list[str] = []
    direct: dict[str, set[str]] = {}
    for g, body in groups.items():
        hosts = body.get("hosts") or []
        for h in (hosts if isinstance(hosts, list) else list(hosts)):
            if h not in direct:
                order.append(h)
            direct.setdefault(h, set()).add(g)
    for h in hostvars:
        if h not in direct:
            order.append(h)
            direct[h] = set()
    out = []
    for n, h in enumerate(order, 1):
        member = _ancestors(direct[h], parents)
        v: dict[str, Any] = {}
        for g in sorted(member | {"all"}, key=lambda g: (_depth(g, parents), g)):
            v.update((groups.get(g) or {}).get("vars") or {})
        v.update(hostvars.get(h) or {})
        out.append(_inventory_target(n, h, v, tuple(sorted(member - {"all", "ungrouped"})), source))
    return out


def _ancestors(gs: set[str], parents: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), list(gs)
    while todo:
        g = todo.pop()
        if g not in seen:
            seen.add(g)
            todo.extend(parents.get(g, ()))
    return seen


def _depth(g: str, parents: dict[str, set[str]], seen: frozenset[str] = frozenset()) -> int:
    ps = parents.get(g, set()) - seen
    return 0 if not ps else 1 + max(_depth(p, parents, seen | {g}) for p in ps)


def _inventory_target(n: int, name: str, v: dict[str, Any], groups: tuple[str, ...], source: str) -> FleetTarget:
    def plain(key: str) -> Optional[str]:
        val = v.get(key)
        if val is None or val == "":
            return None
        if isinstance(val, dict):  # a vaulted value ansible-inventory could not decrypt
            raise InvalidInputError(f"{source}: host {name}: {key} is vault-encrypted (`ansible-inventory --list` "
                                    "does not decrypt vault values).",
                                    "give the credentials in an option file (host var mysql_defaults_file, or "
                                    "--defaults-extra-file), or collect with the playbook in ansible/, which decrypts "
                                    "them on the way to each host.")
        return str(val)

    host = plain("ansible_host") or name
    port = _port(plain("mysql_port"), f"{source}: host {name}")
    user = plain("mysql_user")
    text = name if host == name else f"{name} ({host})"
    ssh_user = plain("ansible_user") or plain("ansible_ssh_user")
    options = [f"Port={p}" for p in [plain("ansible_port") or plain("ansible_ssh_port")] if p]
    options += [f"IdentityFile={k}" for k in [plain("ansible_ssh_private_key_file") or plain("ansible_private_key_file")] if k]
    for key in ("ansible_ssh_common_args", "ansible_ssh_extra_args"):
        options += ssh_o_options(plain(key) or "")
    local = plain("ansible_connection") in ("local", "docker", "community.docker.docker")
    return FleetTarget(n, text, host, port, user, socket=plain("mysql_socket"),
                       defaults_file=plain("mysql_defaults_file"), password=plain("mysql_password"),
                       name=name, groups=groups, ssh=None if local else (f"{ssh_user}@{host}" if ssh_user else host),
                       ssh_options=tuple(options),
                       password_source=f"mysql_password for {name} in {source}" if plain("mysql_password") else None)


def ssh_o_options(args: str) -> list[str]:
    """The `-o KEY=VALUE` (and `-oKEY=VALUE`) options of an ssh argument string such as
    ansible_ssh_common_args; other arguments are left to ~/.ssh/config."""
    words, out = shlex.split(args), []
    for i, w in enumerate(words):
        if w == "-o" and i + 1 < len(words):
            out.append(words[i + 1])
        elif w.startswith("-o") and len(w) > 2:
            out.append(w[2:])
    opts = [o.replace(" ", "=", 1) if "=" not in o else o for o in out]
    # what the advisor forces anyway is dropped; anything weakening it stays, for ssh_command to refuse
    return [o for o in opts if o.replace(" ", "").lower() not in ("stricthostkeychecking=yes", "batchmode=yes")]


def ini_to_inventory(text: str, source: str) -> dict[str, Any]:
    """An INI inventory ([group], [group:vars], [group:children], host lines with KEY=VALUE and numeric
    or alphabetic ranges such as db[01:10]) in the shape of `ansible-inventory --list`."""
    groups: dict[str, dict[str, Any]] = {"all": {"children": []}, "ungrouped": {"hosts": []}}
    hostvars: dict[str, dict[str, Any]] = {}
    section, kind = "ungrouped", "hosts"
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        m = re.fullmatch(r"\[([^\]:\s]+)(?::(vars|children))?\]", line)
        if m:
            section, kind = m.group(1), m.group(2) or "hosts"
            groups.setdefault(section, {})
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            raise InvalidInputError(f"{source}:{n}: cannot read {line!r} ({e}).", "check its quotes.") from None
        if not words:
            continue
        body = groups[section]
        if kind == "vars":
            key, sep, value = line.partition("=")
            if not sep:
                raise InvalidInputError(f"{source}:{n}: {line!r} in [{section}:vars] is not KEY=VALUE.", None)
            body.setdefault("vars", {})[key.strip()] = _ini_value(value.strip())
        elif kind == "children":
            body.setdefault("children", []).append(words[0])
            groups.setdefault(words[0], {})
        else:
            hv = {}
            for w in words[1:]:
                key, sep, value = w.partition("=")
                if not sep:
                    raise InvalidInputError(f"{source}:{n}: {w!r} after host {words[0]} is not KEY=VALUE.", None)
                hv[key] = _ini_value(value)
            name, ssh_port = _split_ssh_port(words[0])
            if ssh_port:
                hv.setdefault("ansible_port", ssh_port)
            for h in expand_range(name, f"{source}:{n}"):
                body.setdefault("hosts", [])
                if h not in body["hosts"]:
                    body["hosts"].append(h)
                hostvars.setdefault(h, {}).update(hv)
    children = {c for g in groups.values() for c in g.get("children", [])}
    groups["all"]["children"] = [g for g in groups if g != "all" and g not in children]
    return {**groups, "_meta": {"hostvars": hostvars}}


def _split_ssh_port(word: str) -> tuple[str, Optional[str]]:
    """`db1:2222` in an INI inventory is the ssh port (ansible_port), not the server's."""
    i = word.rfind(":")
    if i > word.rfind("]") and word[i + 1:].isdigit() and word.count(":") - word[:word.rfind("]") + 1].count(":") == 1:
        return word[:i], word[i + 1:]
    return word, None


def _ini_value(v: str) -> Any:
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def expand_range(pattern: str, where: str) -> list[str]:
    """Ansible host ranges: db[01:03] → db01, db02, db03; [a:c] letters; [1:9:2] a stride."""
    m = _RANGE.search(pattern)
    if not m:
        return [pattern]
    lo, hi, step = m.group(1), m.group(2), int(m.group(3) or 1)
    if lo.isdigit() and hi.isdigit():
        width = len(lo) if lo.startswith("0") else 0
        items = [str(i).zfill(width) for i in range(int(lo), int(hi) + 1, step)]
    elif lo.isalpha() and hi.isalpha() and len(lo) == len(hi) == 1:
        items = [chr(c) for c in range(ord(lo), ord(hi) + 1, step)]
    else:
        raise InvalidInputError(f"{where}: {pattern!r} is not a host range ([01:10] or [a:f]).", None)
    out = []
    for item in items:
        out += expand_range(pattern[:m.start()] + item + pattern[m.end():], where)
    return out


def yaml_to_inventory(text: str, source: str) -> dict[str, Any]:
    """A YAML inventory in the shape of `ansible-inventory --list`: with PyYAML when it is installed,
    else by running ansible-inventory."""
    try:
        import yaml
    except ImportError:
        return _ansible_inventory_list(text, source)
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InvalidInputError(f"{source} is not valid YAML ({str(e).splitlines()[0]}).", None) from None
    if not isinstance(doc, dict):
        raise InvalidInputError(f"{source} is YAML but not an Ansible inventory (no top-level group).", None)
    groups: dict[str, dict[str, Any]] = {}
    hostvars: dict[str, dict[str, Any]] = {}

    def walk(name: str, body: Any) -> None:
        body = body or {}
        if not isinstance(body, dict):
            raise InvalidInputError(f"{source}: group {name} is not a mapping of hosts, vars and children.", None)
        g = groups.setdefault(name, {})
        for h, hv in (body.get("hosts") or {}).items():
            for host in expand_range(str(h), f"{source}: group {name}"):
                g.setdefault("hosts", [])
                if host not in g["hosts"]:
                    g["hosts"].append(host)
                hostvars.setdefault(host, {}).update(hv or {})
        if body.get("vars"):
            g.setdefault("vars", {}).update(body["vars"])
        for child, cbody in (body.get("children") or {}).items():
            g.setdefault("children", []).append(str(child))
            walk(str(child), cbody)

    for name, body in doc.items():
        walk(str(name), body)
    return {**groups, "_meta": {"hostvars": hostvars}}


def _ansible_inventory_list(text: str, source: str) -> dict[str, Any]:
    import sys

    beside = Path(sys.executable).parent / "ansible-inventory"  # installed in the same environment as the advisor
    exe = shutil.which("ansible-inventory") or (str(beside) if beside.is_file() else None)
    if exe is None:
        raise UsageError(f"{source} is a YAML inventory, and neither PyYAML nor ansible-inventory is installed to read it.",
                         "pip install PyYAML (or ansible-core), or give `ansible-inventory -i INVENTORY --list` JSON.")
    p = subprocess.run([exe, "-i", source, "--list"], capture_output=True, text=True, timeout=120, check=False)
    if p.returncode != 0:
        raise InvalidInputError(f"ansible-inventory could not read {source}: {p.stderr.strip()[:300]}.", None)
    return _load_json(p.stdout, f"ansible-inventory --list of {source}")
