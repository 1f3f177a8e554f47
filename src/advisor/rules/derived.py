"""Derived facts: named, pure computations over other facts (`derived.<name>` in rules).

Each returns a value or Unknown(reason). Version-aware arithmetic lives here, not in rule
files: a rule says `derived.redo_capacity_bytes le 128M` and does not care which variables
make up the redo log on its target.
"""

from __future__ import annotations

from typing import Any

from advisor.rules.facts import FactView, Unknown, derived
from advisor.versions import Version

MiB = 1 << 20
GiB = 1 << 30


def _first_unknown(*vals: Any) -> Unknown | None:
    for v in vals:
        if isinstance(v, Unknown):
            return v
    return None


def _ratio(num: Any, den: Any, zero_reason: str) -> Any:
    """num / den, or the first unknown operand, or Unknown(zero_reason) when den is not positive."""
    u = _first_unknown(num, den)
    if u is not None:
        return u
    if den <= 0:
        return Unknown(zero_reason)
    return num / den


# ---------------------------------------------------------------- redo

@derived("redo_capacity_bytes", "Total InnoDB redo log capacity: innodb_redo_log_capacity on MySQL/Percona "
         "≥ 8.0.30; innodb_log_file_size × innodb_log_files_in_group before; innodb_log_file_size alone on "
         "MariaDB ≥ 10.5 (one ib_logfile0).", unit="bytes")
def redo_capacity_bytes(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    if v.flavor in ("mysql", "percona") and v.version >= Version(8, 0, 30):
        cap = v.num("var.innodb_redo_log_capacity")
        if not isinstance(cap, Unknown):
            return int(cap)
    size = v.num("var.innodb_log_file_size")
    if isinstance(size, Unknown):
        return size
    if v.flavor == "mariadb" and v.version >= Version(10, 5, 0):
        return int(size)
    files = v.num("var.innodb_log_files_in_group")
    if isinstance(files, Unknown):
        files = 2  # the default on MySQL < 8.0.30 and MariaDB < 10.5
    return int(size) * int(files)


@derived("redo_variable", "The variable that sizes the redo log on this target: innodb_redo_log_capacity "
         "(MySQL/Percona ≥ 8.0.30) or innodb_log_file_size.")
def redo_variable(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no InnoDB redo log")
    if v.flavor in ("mysql", "percona") and v.version >= Version(8, 0, 30):
        return "innodb_redo_log_capacity"
    return "innodb_log_file_size"


@derived("redo_bytes_per_hour", "Redo written per hour: rate of Innodb_os_log_written × 3600 "
         "(over the sampled interval when there is one, else since server start).", unit="bytes")
def redo_bytes_per_hour(v: FactView) -> Any:
    r = v.get("rate.Innodb_os_log_written")
    if isinstance(r, Unknown):
        return r
    return float(r) * 3600.0


@derived("redo_hours_of_writes", "How many hours of the measured redo write rate the redo log holds.", unit="h")
def redo_hours_of_writes(v: FactView) -> Any:
    return _ratio(v.get("derived.redo_capacity_bytes"), v.get("derived.redo_bytes_per_hour"),
                  "no redo writes measured yet (Innodb_os_log_written rate is 0)")


# ---------------------------------------------------------------- TLS

@derived("own_connection_tls", "Whether the advisor's own connection negotiated TLS.")
def own_connection_tls(v: FactView) -> Any:
    return bool(v.snapshot.server.connection.tls_version)


@derived("server_offers_tls", "Whether the server accepts TLS: tls_channel_status mysql_main Enabled (MySQL 8), "
         "have_ssl = YES, or the advisor's own connection is encrypted.")
def server_offers_tls(v: FactView) -> Any:
    if v.snapshot.server.connection.tls_version:
        return True
    ch = v.snapshot.server.tls_channels
    if ch and "Enabled" in ch:
        return ch["Enabled"].strip().lower() in ("yes", "1", "on")
    have = v.get("var.have_ssl")
    if not isinstance(have, Unknown):
        return str(have).strip().upper() == "YES"
    return Unknown("neither have_ssl nor performance_schema.tls_channel_status is available, and the "
                   "advisor's own connection is not encrypted")


@derived("tls_session_share", "Share of client connections that use TLS: from performance_schema per-thread "
         "status when available, else Ssl_accepts / Connections since server start.", unit="fraction")
def tls_session_share(v: FactView) -> Any:
    usage = v.snapshot.server.tls_usage
    if usage and usage.source == "performance_schema" and usage.sessions_total > 0:
        return usage.sessions_tls / usage.sessions_total
    acc, conns = v.num("status.Ssl_accepts"), v.num("status.Connections")
    u = _first_unknown(acc, conns)
    if u is not None:
        return u
    if conns <= 0:
        return Unknown("no connections counted yet")
    return min(1.0, acc / conns)


@derived("tls_in_use", "Whether client connections are encrypted: the advisor's own connection negotiated TLS "
         "with the client default, or other sessions use it.")
def tls_in_use(v: FactView) -> Any:
    if v.get("derived.own_connection_tls") is True:
        return True
    share = v.get("derived.tls_session_share")
    if isinstance(share, Unknown):
        return share
    return share > 0


# ---------------------------------------------------------------- network path

def _route(v: FactView) -> Any:
    c = v.snapshot.client
    if c is None:
        return Unknown(v._missing_reason("client", "the client's network path was not collected"))
    if c.route is None:
        return Unknown(v._missing_reason("client.route", "the route to the server is unknown"))
    return c.route


@derived("route_speed_mbps", "Link speed of the interface the client's route to the server leaves by.", unit="Mb/s")
def route_speed_mbps(v: FactView) -> Any:
    r = _route(v)
    if isinstance(r, Unknown):
        return r
    if r.kind != "interface":
        return Unknown(f"the route is {r.kind}; no NIC is involved")
    if r.speed_mbps is None or r.speed_mbps <= 0:
        return Unknown(v._missing_reason("client.route.speed_mbps",
                       f"interface {r.interface} reports no link speed (virtual NIC?)"))
    return r.speed_mbps


def _fastest_other(v: FactView) -> Any:
    r = _route(v)
    if isinstance(r, Unknown):
        return r
    best = None
    for i in v.snapshot.client.interfaces:  # type: ignore[union-attr]
        if i.name == r.interface or i.name == "lo" or (i.operstate or "up").lower() not in ("up", "unknown"):
            continue
        if i.speed_mbps is None or i.speed_mbps <= 0:
            continue
        # at equal speed prefer an interface with an address (vlan2 over the bare NIC it rides on)
        if best is None or (i.speed_mbps, bool(i.addresses)) > (best.speed_mbps, bool(best.addresses)):
            best = i
    return best


@derived("fastest_other_interface_speed_mbps", "Speed of the fastest other up interface on the client (0 if none "
         "reports a speed).", unit="Mb/s")
def fastest_other_interface_speed_mbps(v: FactView) -> Any:
    b = _fastest_other(v)
    if isinstance(b, Unknown):
        return b
    return 0 if b is None else b.speed_mbps


@derived("fastest_other_interface", "Name of the fastest other up interface on the client ('' if none).")
def fastest_other_interface(v: FactView) -> Any:
    b = _fastest_other(v)
    if isinstance(b, Unknown):
        return b
    return "" if b is None else b.name


# ---------------------------------------------------------------- storage and memory

@derived("datadir_device_class", "Class of the weakest physical device behind the datadir.")
def datadir_device_class(v: FactView) -> Any:
    return v.get("host.datadir.device_class")


@derived("datadir_models", "Models of the physical devices behind the datadir, comma-separated.")
def datadir_models(v: FactView) -> Any:
    st = v.get("host.datadir")
    if isinstance(st, Unknown):
        return st
    models = [d.model or d.name for d in st.devices]
    if not models:
        return Unknown(v._missing_reason("host.datadir.devices", "no physical device was resolved for the datadir"))
    return ", ".join(dict.fromkeys(models))


@derived("memory_limit_bytes", "Memory the server may use: the cgroup limit when lower than RAM, else RAM.", unit="bytes")
def memory_limit_bytes(v: FactView) -> Any:
    eff = v.get("host.memory.effective_limit_bytes")
    if not isinstance(eff, Unknown):
        return eff
    return v.get("host.memory.total_bytes")


@derived("data_bytes", "Data plus index bytes in user schemas, all engines.", unit="bytes")
def data_bytes(v: FactView) -> Any:
    ds = v.snapshot.server.data_size
    if ds is None:
        return Unknown(v._missing_reason("server.data_size", "data size per engine was not collected"))
    return sum(e.data_bytes + e.index_bytes for e in ds.values())


@derived("innodb_data_bytes", "InnoDB data plus index bytes in user schemas.", unit="bytes")
def innodb_data_bytes(v: FactView) -> Any:
    ds = v.snapshot.server.data_size
    if ds is None:
        return Unknown(v._missing_reason("server.data_size", "data size per engine was not collected"))
    e = {k.lower(): x for k, x in ds.items()}.get("innodb")
    return 0 if e is None else e.data_bytes + e.index_bytes


# ---------------------------------------------------------------- host facts (issue 3)

@derived("memory_limit_source", "What bounds the server's memory: the cgroup limit (v1 or v2) when it is below "
         "RAM, else RAM.")
def memory_limit_source(v: FactView) -> Any:
    h = v.snapshot.host
    if h is None:
        return Unknown(v._missing_reason("host", "host facts were not collected"))
    m = h.memory
    if m.cgroup_limit_bytes is not None and (m.total_bytes is None or m.cgroup_limit_bytes < m.total_bytes):
        name = "memory.max" if m.cgroup_version == 2 else "memory.limit_in_bytes"
        return f"the cgroup v{m.cgroup_version} limit ({name}) of the server's container or service"
    if m.total_bytes is None:
        return Unknown(v._missing_reason("host.memory.total_bytes", "the host's RAM is unknown"))
    return "the host's RAM"


@derived("buffer_pool_share_of_memory", "innodb_buffer_pool_size as a fraction of the memory the server may use "
         "(derived.memory_limit_bytes).", unit="fraction")
def buffer_pool_share_of_memory(v: FactView) -> Any:
    return _ratio(v.num("var.innodb_buffer_pool_size"), v.num("derived.memory_limit_bytes"), "the memory limit is 0")


@derived("swap_enabled", "Whether the host has swap space (SwapTotal > 0).")
def swap_enabled(v: FactView) -> Any:
    n = v.num("host.memory.swap_total_bytes")
    if isinstance(n, Unknown):
        return n
    return n > 0


def _redo_storage(v: FactView) -> Any:
    h = v.snapshot.host
    if h is None:
        return Unknown(v._missing_reason("host", "host facts were not collected"))
    for st in h.other_dirs:
        if st.role == "innodb_log_group_home_dir":
            return st
    if h.datadir is None:
        return Unknown(v._missing_reason("host.datadir", "the storage behind the datadir was not resolved"))
    return h.datadir


@derived("redo_device_class", "Class of the weakest device holding the InnoDB redo log: the storage of "
         "innodb_log_group_home_dir when it is outside the datadir, else the datadir's.")
def redo_device_class(v: FactView) -> Any:
    st = _redo_storage(v)
    if isinstance(st, Unknown):
        return st
    if not st.devices:
        return Unknown(v._missing_reason("host.datadir.devices", st.class_reason or "no physical device resolved"))
    return st.device_class


@derived("redo_device_description", "The redo log's directory and devices, e.g. '/var/lib/mysql on nvme0n1 "
         "(SAMSUNG MZVLB1T0HBLR-000L7)'.")
def redo_device_description(v: FactView) -> Any:
    st = _redo_storage(v)
    if isinstance(st, Unknown):
        return st
    if not st.devices:
        return Unknown(st.class_reason or "no physical device resolved")
    devs = ", ".join(f"{d.name} ({d.model})" if d.model else d.name for d in st.devices)
    return f"{st.path} on {devs}"


def _active_choice(text: str) -> str:
    import re

    m = re.search(r"\[([^\]]+)\]", text)
    return m.group(1) if m else text.strip()


@derived("nvme_schedulers_not_none", "NVMe devices behind the datadir (or the redo directory) whose I/O scheduler "
         "is neither none nor mq-deadline, as 'nvme0n1 (bfq)'; empty when there are none.")
def nvme_schedulers_not_none(v: FactView) -> Any:
    h = v.snapshot.host
    if h is None:
        return Unknown(v._missing_reason("host", "host facts were not collected"))
    stores = ([h.datadir] if h.datadir is not None else []) + list(h.other_dirs)
    devs = {d.name: d for st in stores for d in st.devices if d.kind == "nvme"}
    if not stores or not any(st.devices for st in stores):
        return Unknown(v._missing_reason("host.datadir.devices", "no physical device was resolved for the datadir"))
    bad = []
    for d in devs.values():
        if d.scheduler is None:
            return Unknown(v._missing_reason(f"host.datadir.devices.{d.name}.scheduler",
                                             f"{d.name}'s queue/scheduler could not be read"))
        active = _active_choice(d.scheduler)  # "none" or the raw sysfs line "[none] mq-deadline"
        if active not in ("none", "mq-deadline"):
            bad.append(f"{d.name} ({active})")
    return ", ".join(bad)


CLASS_TEXT = {
    "rotational": "a spinning disk",
    "nvme_client": "a client-grade NVMe drive without power-loss protection",
    "nvme_plp": "a datacenter NVMe drive with power-loss protection",
    "ssd": "a SATA/SAS SSD",
    "virtual": "a virtual disk",
    "unknown": "a device of unknown class",
}


@derived("redo_device_class_text", "derived.redo_device_class in words ('a spinning disk', 'a client-grade NVMe "
         "drive without power-loss protection', ...).")
def redo_device_class_text(v: FactView) -> Any:
    c = v.get("derived.redo_device_class")
    if isinstance(c, Unknown):
        return c
    return CLASS_TEXT.get(str(c), str(c))

# ---------------------------------------------------------------- catalogue-aware facts (knowledge base)

_FLASH = ("ssd", "nvme_plp", "nvme_client")


def _num_or(v: FactView, path: str, default: float | None = None) -> Any:
    n = v.num(path)
    if isinstance(n, Unknown):
        return n if default is None else default
    return n


def _default_ctx(v: FactView) -> dict[str, Any]:
    """Inputs of the catalogue's default formulas, from the snapshot (None where not collected)."""
    cpus = v.get("host.cpu.logical_count")
    ram = v.get("derived.memory_limit_bytes")
    bp = v.num("var.innodb_buffer_pool_size")
    return {"cpus": None if isinstance(cpus, Unknown) else int(cpus),
            "ram_bytes": None if isinstance(ram, Unknown) else int(ram),
            "buffer_pool_bytes": None if isinstance(bp, Unknown) else int(bp)}


def _default_split(v: FactView) -> tuple[list[str], list[str]]:
    from advisor import knowledge

    key = "_default_split"
    if key in v._cache:
        return v._cache[key]
    ctx = _default_ctx(v)
    same: list[str] = []
    differ: list[str] = []
    for name, value in sorted(v._vars.items()):
        r = knowledge.is_default(name, value, v.flavor, v.version, **ctx)
        if r is True:
            same.append(name)
        elif r is False:
            differ.append(name)
    v._cache[key] = (same, differ)
    return same, differ


@derived("default_variables", "Server variables whose value equals the catalogue's default for this flavor and "
         "version (advisor.knowledge.is_default; formula defaults use the host's CPUs, memory and buffer pool).")
def default_variables(v: FactView) -> Any:
    if not v._vars:
        return Unknown("no server variables were collected")
    return _default_split(v)[0]


@derived("nondefault_variables", "Server variables whose value differs from the catalogue's default for this flavor "
         "and version; variables whose default is not known appear in neither list.")
def nondefault_variables(v: FactView) -> Any:
    if not v._vars:
        return Unknown("no server variables were collected")
    return _default_split(v)[1]


def _pinned_old_defaults(v: FactView) -> Any:
    """On MySQL/Percona 8.4+: variables set to the 8.0 default where 8.4 changed the default."""
    from advisor import knowledge

    if v.flavor not in ("mysql", "percona") or v.version < Version(8, 4, 0):
        return Unknown(f"{v.flavor} {v.version} is not MySQL/Percona 8.4 or later")
    ctx = _default_ctx(v)
    old = Version(8, 0, 36)
    out = []
    for name, value in sorted(v._vars.items()):
        d80 = knowledge.default_for(name, v.flavor, old, **ctx)
        d84 = knowledge.default_for(name, v.flavor, v.version, **ctx)
        if d80 is None or d84 is None or knowledge.is_default(name, d80, v.flavor, v.version, **ctx) is not False:
            continue  # unknown, or 8.4 did not change this default
        if knowledge.is_default(name, value, v.flavor, old, **ctx) is True:
            out.append(f"{name}={value} (8.4 default {d84})")
    return out


@derived("pinned_old_defaults", "On MySQL/Percona 8.4+: settings equal to the 8.0 default of a variable whose "
         "default 8.4 changed, e.g. 'innodb_io_capacity=200 (8.4 default 10000)'.")
def pinned_old_defaults(v: FactView) -> Any:
    r = _pinned_old_defaults(v)
    return r if isinstance(r, Unknown) else ", ".join(r)


@derived("pinned_old_defaults_count", "How many settings are pinned to a pre-8.4 default (see pinned_old_defaults).")
def pinned_old_defaults_count(v: FactView) -> Any:
    r = _pinned_old_defaults(v)
    return r if isinstance(r, Unknown) else len(r)


def _deprecated_in_use(v: FactView) -> list[str]:
    """Deprecated variables away from their default, as 'name=value (deprecated since ..., use new)'.

    A variable the catalogue marks `renamed` (slave_net_timeout -> replica_net_timeout in MySQL 8.0.26,
    tx_isolation -> transaction_isolation in 5.7.20) is one variable under two names: the server prints
    both, with one value, whichever name the option file used, so SHOW VARIABLES cannot tell a setting
    made under the old name. The old name is left out while the new one is printed beside it; only a
    variable list without the new name (the old name alone) shows that the old name is what was set."""
    from advisor import knowledge

    if "_deprecated_in_use" in v._cache:  # used by two derived facts; compute once per view
        return v._cache["_deprecated_in_use"]
    ctx = _default_ctx(v)
    out = []
    known = set(knowledge.names())
    for name, value in sorted(v._vars.items()):
        if name not in known:
            continue
        spec = knowledge.info(name, v.flavor, v.version)
        if spec is None or not spec.deprecated:
            continue
        if spec.renamed and spec.replaced_by[0] in v._vars:
            continue  # the old name printed beside the new one: not a setting anyone can attribute to it
        if knowledge.is_default(name, value, v.flavor, v.version, **ctx) is False:
            repl = f", use {'/'.join(spec.replaced_by)}" if spec.replaced_by else ""
            out.append(f"{name}={value} ({spec.deprecation}{repl})")
    v._cache["_deprecated_in_use"] = out
    return out


@derived("deprecated_settings", "Variables set away from their default although the catalogue marks them "
         "deprecated on this flavor and version.")
def deprecated_settings(v: FactView) -> Any:
    if not v._vars:
        return Unknown("no server variables were collected")
    return ", ".join(_deprecated_in_use(v))


@derived("deprecated_settings_count", "How many deprecated variables are set away from their default.")
def deprecated_settings_count(v: FactView) -> Any:
    if not v._vars:
        return Unknown("no server variables were collected")
    return len(_deprecated_in_use(v))


# ---------------------------------------------------------------- memory

@derived("buffer_pool_instance_bytes", "Buffer pool bytes per instance (innodb_buffer_pool_size / "
         "innodb_buffer_pool_instances).", unit="bytes")
def buffer_pool_instance_bytes(v: FactView) -> Any:
    bp, inst = v.num("var.innodb_buffer_pool_size"), v.num("var.innodb_buffer_pool_instances")
    u = _first_unknown(bp, inst)
    if u is not None:
        return u
    return bp / max(1, inst)


@derived("buffer_pool_chunk_remainder_bytes", "innodb_buffer_pool_size modulo innodb_buffer_pool_chunk_size × "
         "innodb_buffer_pool_instances: non-zero means the server rounds the pool up at startup.", unit="bytes")
def buffer_pool_chunk_remainder_bytes(v: FactView) -> Any:
    bp, chunk = v.num("var.innodb_buffer_pool_size"), v.num("var.innodb_buffer_pool_chunk_size")
    u = _first_unknown(bp, chunk)
    if u is not None:
        return u
    if chunk <= 0:
        return Unknown("innodb_buffer_pool_chunk_size is 0 (autosized by the server)")
    inst = _num_or(v, "var.innodb_buffer_pool_instances", 1)
    return int(bp) % int(chunk * max(1, inst))


@derived("buffer_pool_chunk_unit_bytes", "innodb_buffer_pool_chunk_size × innodb_buffer_pool_instances: the "
         "step the buffer pool size is rounded to.", unit="bytes")
def buffer_pool_chunk_unit_bytes(v: FactView) -> Any:
    chunk = v.num("var.innodb_buffer_pool_chunk_size")
    if isinstance(chunk, Unknown):
        return chunk
    return int(chunk) * int(max(1, _num_or(v, "var.innodb_buffer_pool_instances", 1)))


@derived("buffer_pool_data_ratio", "innodb_buffer_pool_size / InnoDB data + index bytes (user schemas).", unit="×")
def buffer_pool_data_ratio(v: FactView) -> Any:
    return _ratio(v.num("var.innodb_buffer_pool_size"), v.get("derived.innodb_data_bytes"),
                  "there is no InnoDB data in user schemas yet")


@derived("tmp_table_limit_bytes", "The effective in-memory limit of an internal temporary table: the smaller of "
         "tmp_table_size and max_heap_table_size where the MEMORY engine holds them.", unit="bytes")
def tmp_table_limit_bytes(v: FactView) -> Any:
    t, h = v.num("var.tmp_table_size"), v.num("var.max_heap_table_size")
    u = _first_unknown(t, h)
    if u is not None:
        return u
    return min(t, h)


@derived("tmp_tables_use_memory_engine", "Whether internal in-memory temporary tables use the MEMORY engine (so "
         "max_heap_table_size caps them): MySQL/Percona before 8.0 and MariaDB always; 8.0+ only with "
         "internal_tmp_mem_storage_engine = MEMORY.")
def tmp_tables_use_memory_engine(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no MEMORY-engine temporary tables")
    if v.flavor == "mariadb" or v.version < Version(8, 0, 0):
        return True
    eng = v.get("var.internal_tmp_mem_storage_engine")
    if isinstance(eng, Unknown):
        return eng
    return str(eng).strip().upper() == "MEMORY"


@derived("default_engine", "The engine of a CREATE TABLE that names none: default_storage_engine, or storage_engine "
         "on servers that predate that name (MySQL before 5.5.3, where SHOW VARIABLES has storage_engine only).")
def default_engine(v: FactView) -> Any:
    for path in ("var.default_storage_engine", "var.storage_engine"):
        eng = v.get(path)
        if not isinstance(eng, Unknown) and str(eng).strip():
            return str(eng).strip()
    return Unknown("neither default_storage_engine nor storage_engine was collected")


_PER_CONN = ("sort_buffer_size", "join_buffer_size", "read_buffer_size", "read_rnd_buffer_size",
             "thread_stack", "binlog_cache_size")


@derived("per_connection_buffer_bytes", "Buffers one busy connection may allocate: sort + join + read + read_rnd "
         "buffers, thread stack, binlog cache, plus one in-memory temporary table where the MEMORY engine "
         "holds them (tmp_table_size / max_heap_table_size, the smaller).", unit="bytes")
def per_connection_buffer_bytes(v: FactView) -> Any:
    total = 0.0
    for name in _PER_CONN:
        n = v.num(f"var.{name}")
        if isinstance(n, Unknown):
            return n
        total += n
    mem = v.get("derived.tmp_tables_use_memory_engine")
    if mem is True:
        lim = v.get("derived.tmp_table_limit_bytes")
        if isinstance(lim, Unknown):
            return lim
        total += lim
    return total


@derived("global_buffer_bytes", "Memory the server allocates once: buffer pool, redo log buffer, MyISAM key "
         "buffer, Aria page cache (MariaDB), query cache, and the TempTable pool (MySQL 8.0+ with TempTable).",
         unit="bytes")
def global_buffer_bytes(v: FactView) -> Any:
    bp = v.num("var.innodb_buffer_pool_size")
    if isinstance(bp, Unknown):
        return bp
    total = float(bp)
    for name in ("innodb_log_buffer_size", "key_buffer_size", "aria_pagecache_buffer_size", "query_cache_size"):
        total += _num_or(v, f"var.{name}", 0)
    if v.get("derived.tmp_tables_use_memory_engine") is False:
        total += _num_or(v, "var.temptable_max_ram", 0)
    return total


@derived("max_memory_bytes", "Worst-case server memory: global buffers + max_connections × per-connection buffers.",
         unit="bytes")
def max_memory_bytes(v: FactView) -> Any:
    g, p, mc = v.get("derived.global_buffer_bytes"), v.get("derived.per_connection_buffer_bytes"), \
        v.num("var.max_connections")
    u = _first_unknown(g, p, mc)
    if u is not None:
        return u
    return g + mc * p


@derived("max_memory_ratio", "Worst-case server memory as a fraction of the memory limit (cgroup limit or RAM).",
         unit="fraction")
def max_memory_ratio(v: FactView) -> Any:
    return _ratio(v.get("derived.max_memory_bytes"), v.get("derived.memory_limit_bytes"), "the memory limit is 0")


# ---------------------------------------------------------------- concurrency

@derived("connections_used_ratio", "Max_used_connections / max_connections.", unit="fraction")
def connections_used_ratio(v: FactView) -> Any:
    return _ratio(v.num("status.Max_used_connections"), v.num("var.max_connections"), "max_connections is 0")


@derived("open_files_needed", "File descriptors the server asks for: 10 + max_connections + 2 × table_open_cache "
         "(the manual's formula for the effective open_files_limit).")
def open_files_needed(v: FactView) -> Any:
    mc, toc = v.num("var.max_connections"), v.num("var.table_open_cache")
    u = _first_unknown(mc, toc)
    if u is not None:
        return u
    return int(10 + mc + 2 * toc)


@derived("table_open_cache_effective", "The table cache the file limit allows: max((open_files_limit − 10 − "
         "max_connections) / 2, 400), capped by table_open_cache.")
def table_open_cache_effective(v: FactView) -> Any:
    ofl, mc, toc = v.num("var.open_files_limit"), v.num("var.max_connections"), v.num("var.table_open_cache")
    u = _first_unknown(ofl, mc, toc)
    if u is not None:
        return u
    return int(min(toc, max((ofl - 10 - mc) / 2, 400)))


@derived("table_cache_fill_ratio", "Open_tables / table_open_cache.", unit="fraction")
def table_cache_fill_ratio(v: FactView) -> Any:
    return _ratio(v.num("status.Open_tables"), v.num("var.table_open_cache"), "table_open_cache is 0")


@derived("thread_create_ratio", "Threads_created / Connections: the share of connections that needed a new "
         "thread because the thread cache had none.", unit="fraction")
def thread_create_ratio(v: FactView) -> Any:
    tc, conns = v.num("status.Threads_created"), v.num("status.Connections")
    u = _first_unknown(tc, conns)
    if u is not None:
        return u
    if conns < 100:
        return Unknown(f"only {int(conns)} connections since start; too few to judge the thread cache")
    return tc / conns


@derived("connections_per_cpu", "Max_used_connections per logical CPU of the database host.", unit="×")
def connections_per_cpu(v: FactView) -> Any:
    used, cpus = v.num("status.Max_used_connections"), v.num("host.cpu.logical_count")
    u = _first_unknown(used, cpus)
    if u is not None:
        return u
    return used / cpus if cpus > 0 else Unknown("logical CPU count is 0")


# ---------------------------------------------------------------- storage, durability

@derived("datadir_flash", "Whether the datadir is on flash (ssd, nvme_plp, nvme_client); unknown when the device "
         "class could not be determined.")
def datadir_flash(v: FactView) -> Any:
    c = v.get("host.datadir.device_class")
    if isinstance(c, Unknown):
        return c
    if c == "unknown":
        reason = v.get("host.datadir.class_reason")
        return Unknown("the datadir's device class is unknown" + (f" ({reason})" if isinstance(reason, str) and reason else ""))
    if c == "virtual":
        return Unknown("the datadir is on a virtual disk whose backing storage is not visible")
    return c in _FLASH


@derived("binlog_enabled", "Whether the binary log is on (log_bin).")
def binlog_enabled(v: FactView) -> Any:
    return v.flag("var.log_bin")


@derived("durability_relaxed", "Whether commits may be lost on a crash: innodb_flush_log_at_trx_commit ≠ 1, or the "
         "binary log is on with sync_binlog ≠ 1.")
def durability_relaxed(v: FactView) -> Any:
    trx = v.num("var.innodb_flush_log_at_trx_commit")
    if isinstance(trx, Unknown):
        return trx
    if int(trx) != 1:
        return True
    log_bin = v.flag("var.log_bin")
    if isinstance(log_bin, Unknown):
        return log_bin
    if not log_bin:
        return False
    sb = v.num("var.sync_binlog")
    if isinstance(sb, Unknown):
        return sb
    return int(sb) != 1


@derived("durability_summary", "The durability settings in one line: innodb_flush_log_at_trx_commit, binary log and "
         "sync_binlog, doublewrite.")
def durability_summary(v: FactView) -> Any:
    trx = v.get("var.innodb_flush_log_at_trx_commit")
    if isinstance(trx, Unknown):
        return trx
    parts = [f"innodb_flush_log_at_trx_commit={trx}"]
    log_bin = v.flag("var.log_bin")
    if log_bin is True:
        sb = v.get("var.sync_binlog")
        parts.append(f"binary log ON with sync_binlog={'unknown' if isinstance(sb, Unknown) else sb}")
    elif log_bin is False:
        parts.append("binary log OFF")
    dw = v.get("var.innodb_doublewrite")
    if not isinstance(dw, Unknown):
        parts.append(f"innodb_doublewrite={dw}")
    return ", ".join(parts)


# ---------------------------------------------------------------- TiDB

@derived("tidb_plan_cache_enabled", "Whether TiDB's prepared plan cache is on: tidb_enable_prepared_plan_cache from "
         "v6.1, the tidb.toml item prepared-plan-cache.enabled (SHOW CONFIG) before.")
def tidb_plan_cache_enabled(v: FactView) -> Any:
    if v.flavor != "tidb":
        return Unknown("not a TiDB server")
    if v.version >= Version(6, 1, 0):
        return v.flag("var.tidb_enable_prepared_plan_cache")
    cfg = v.snapshot.server.tidb_config
    if cfg is None:
        return Unknown(v._missing_reason("server.tidb_config", "TiDB's SHOW CONFIG was not collected, so "
                                         "prepared-plan-cache.enabled (tidb.toml, before v6.1) is unknown"))
    val = {k.lower(): x for k, x in cfg.items()}.get("prepared-plan-cache.enabled")
    if val is None:
        return Unknown("SHOW CONFIG returned no prepared-plan-cache.enabled item")
    from advisor.units import parse_bool

    b = parse_bool(val)
    return b if b is not None else Unknown(f"prepared-plan-cache.enabled is {val!r}, not true/false")


@derived("tidb_plan_cache_setting", "Where TiDB's prepared plan cache is switched: the system variable (v6.1+) or "
         "the tidb.toml item (before).")
def tidb_plan_cache_setting(v: FactView) -> Any:
    if v.flavor != "tidb":
        return Unknown("not a TiDB server")
    if v.version >= Version(6, 1, 0):
        return "tidb_enable_prepared_plan_cache"
    return "prepared-plan-cache.enabled in tidb.toml"


def dedicated_bp_for_ram(ram_bytes: float) -> int:
    """innodb_dedicated_server's buffer pool for this much RAM (MySQL 8.0 and 8.4): under 1 GiB the
    128 MiB default, up to 4 GiB half of it, above that three quarters."""
    if ram_bytes < GiB:
        return 128 * MiB
    if ram_bytes <= 4 * GiB:
        return int(ram_bytes * 0.5)
    return int(ram_bytes * 0.75)


@derived("dedicated_buffer_pool_bytes", "The buffer pool innodb_dedicated_server would choose for the host's RAM "
         "(< 1 GiB: 128 MiB; 1–4 GiB: 50 %; > 4 GiB: 75 %).", unit="bytes")
def dedicated_buffer_pool_bytes(v: FactView) -> Any:
    ram = v.get("host.memory.total_bytes")
    if isinstance(ram, Unknown):
        return ram
    return dedicated_bp_for_ram(float(ram))


# ---------------------------------------------------------------- calibration (measured)

def _link_mbps(v: FactView) -> Any:
    """The route's link speed: the client facts when collected, else what calibration recorded."""
    speed = v.get("derived.route_speed_mbps")
    if not isinstance(speed, Unknown):
        return speed
    recorded = v.get("calibration.stream.link_speed_mbps")
    if not isinstance(recorded, Unknown) and recorded and recorded > 0:
        return recorded
    return speed


@derived("link_payload_ceiling_mbytes_per_s", "Most TCP payload the route's link carries per direction: "
         "link Mb/s × 10^6/8 × 1460/1538 (Ethernet framing and TCP/IP headers), in MB/s.", unit="MB/s")
def link_payload_ceiling_mbytes_per_s(v: FactView) -> Any:
    from advisor.collect.calibrate_stats import payload_ceiling_mbytes_per_s

    speed = _link_mbps(v)
    if isinstance(speed, Unknown):
        return speed
    return payload_ceiling_mbytes_per_s(float(speed))


@derived("stream_line_rate_fraction", "Calibration's stream MB/s as a share of the link's payload ceiling; "
         "unknown when the client was CPU-bound (then the measurement says nothing about the network).",
         unit="fraction")
def stream_line_rate_fraction(v: FactView) -> Any:
    mb = v.num("calibration.stream.mbytes_per_s")
    if isinstance(mb, Unknown):
        return mb
    if v.get("calibration.stream.client_cpu_bound") is True:
        return Unknown("the client was CPU-bound during the stream probe, so its MB/s is no network measurement")
    ceiling = v.get("derived.link_payload_ceiling_mbytes_per_s")
    if isinstance(ceiling, Unknown):
        return ceiling
    return mb / ceiling


@derived("stream_server_headroom", "How much faster the server generates the stream probe's rows than they "
         "arrived: server-side MB/s ÷ streamed MB/s (near 1: the server limited the probe).", unit="x")
def stream_server_headroom(v: FactView) -> Any:
    return _ratio(v.num("calibration.stream.server_mbytes_per_s"), v.num("calibration.stream.mbytes_per_s"),
                  "the stream probe measured 0 MB/s")


@derived("tls_query_latency_ratio", "How many times as long a trivial query takes over TLS as over a plain "
         "connection, as calibration measured it (the paired per-round ratio when recorded, else the medians' "
         "ratio); unknown when TLS measured faster, which is noise.", unit="x")
def tls_query_latency_ratio(v: FactView) -> Any:
    paired = v.num("calibration.tls.query_ratio")
    on, off = v.num("calibration.tls.query_ms.on"), v.num("calibration.tls.query_ms.off")
    if not isinstance(paired, Unknown):
        if paired < 1:
            return Unknown(f"small queries measured faster with TLS than without (paired ratio {paired:g}): the "
                           "scheduling noise on this machine is larger than the TLS cost")
        return paired
    u = _first_unknown(on, off)
    if u is not None:
        return u
    if off <= 0:
        return Unknown("the plain query latency was 0 ms")
    if on < off:  # TLS adds work to every round trip; a lower figure is scheduling noise, not a saving
        return Unknown(f"small queries measured faster with TLS ({on:g} ms) than without ({off:g} ms): "
                       "the scheduling noise on this machine is larger than the TLS cost")
    return on / off


@derived("tls_handshake_ratio", "Median connect time with TLS ÷ without, as calibration measured it.", unit="x")
def tls_handshake_ratio(v: FactView) -> Any:
    return _ratio(v.num("calibration.tls.handshake_ms.on"), v.num("calibration.tls.handshake_ms.off"),
                  "the plain handshake took 0 ms")


@derived("flush_bound_commits_per_s", "Commits per second one session can make when each waits for one "
         "flush of the measured median fdatasync latency: 1000 ÷ fsync p50 ms.", unit="1/s")
def flush_bound_commits_per_s(v: FactView) -> Any:
    p50 = v.num("calibration.fsync_ms.p50")
    if isinstance(p50, Unknown):
        return p50
    if p50 <= 0:
        return Unknown("the measured flush latency was 0 ms")
    return 1000.0 / p50
