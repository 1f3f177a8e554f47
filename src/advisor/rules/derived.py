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
        files = 2 if v.flavor != "mariadb" else 2
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
    cap, per_hour = v.get("derived.redo_capacity_bytes"), v.get("derived.redo_bytes_per_hour")
    u = _first_unknown(cap, per_hour)
    if u is not None:
        return u
    if per_hour <= 0:
        return Unknown("no redo writes measured yet (Innodb_os_log_written rate is 0)")
    return cap / per_hour


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
    bp, lim = v.num("var.innodb_buffer_pool_size"), v.num("derived.memory_limit_bytes")
    u = _first_unknown(bp, lim)
    if u is not None:
        return u
    if lim <= 0:
        return Unknown("the memory limit is 0")
    return bp / lim


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
        if d.scheduler not in ("none", "mq-deadline"):
            bad.append(f"{d.name} ({d.scheduler})")
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
