"""The facts `advisor compare` holds side by side besides the server variables: version and flavor,
TLS in use, the buffer pool against the data, the host (CPU, memory, OS), the storage behind the
datadir, the client's network path, the calibration figures and TiDB's configuration. Each is an
`Item`: a fact path read through the audit's own FactView (so a missing fact carries the collector's
reason), how to show it, how strongly a difference moves benchmark results, why, and the fix. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from advisor.rules.derived.storage import CLASS_TEXT
from advisor.rules.facts import FactView, Unknown
from advisor.units import format_number, format_size

Getter = Callable[[FactView], Any]


@dataclass(frozen=True)
class Item:
    id: str                      # the fact path; also the difference's id
    group: str
    title: str
    aspects: tuple[str, ...]
    weight: int
    why: str                     # why a difference can change a benchmark result
    fix: str                     # what makes the sides comparable
    get: Optional[Getter] = None  # default: FactView.get(id)
    show: Callable[[Any], str] = str
    tolerance: float = 0.0       # relative: numbers closer than this are a harmless difference
    section: str = ""            # host, client or calibration: compared only when every side has it
    key: bool = False            # listed as not compared even when no side has it (MySQL-family servers)

    def read(self, view: FactView) -> Any:
        return self.get(view) if self.get is not None else view.get(self.id)


def _size(v: Any) -> str:
    return format_size(v) if isinstance(v, (int, float)) else str(v)


def _onoff(v: Any) -> str:
    return "yes" if v is True else "no" if v is False else str(v)


def _mbps(v: Any) -> str:
    return f"{format_number(v)} Mb/s" if isinstance(v, (int, float)) else str(v)


def _device_class(v: Any) -> str:
    return f"{v} ({CLASS_TEXT[v]})" if v in CLASS_TEXT else str(v)


def _datadir_devices(attr: str) -> Getter:
    def get(v: FactView) -> Any:
        st = v.get("host.datadir")
        if isinstance(st, Unknown):
            return st
        vals = [getattr(d, attr) for d in st.devices if getattr(d, attr) is not None]
        if not vals:
            return Unknown(v.missing_reason("host.datadir.devices", f"no {attr.replace('_', ' ')} was read for the "
                                                                      "devices behind the datadir"))
        return ", ".join(dict.fromkeys(str(x) for x in vals))
    return get


def _device_class_known(v: FactView) -> Any:
    c = v.get("host.datadir.device_class")
    if c == "unknown":
        why = v.get("host.datadir.class_reason")
        return Unknown("the datadir's device class could not be determined" + (f" ({why})" if isinstance(why, str) and why else ""))
    return c


def _mount_options(v: FactView) -> Any:
    st = v.get("host.datadir")
    return st if isinstance(st, Unknown) else ",".join(st.mount_options) or "(none)"


def _buffer_pool_fit(v: FactView) -> Any:
    """'fits' / 'does not fit' with the sizes: what decides whether reads come from memory."""
    ratio = v.get("derived.buffer_pool_data_ratio")
    if isinstance(ratio, Unknown):
        return ratio
    data, pool = v.get("derived.innodb_data_bytes"), v.num("var.innodb_buffer_pool_size")
    fits = "fits" if ratio >= 1 else "does not fit"
    return f"{format_size(data)} of InnoDB data {fits} in a {format_size(pool)} buffer pool"


def _innodb_tables(v: FactView) -> Any:
    sizes = v.get("server.data_size")
    if isinstance(sizes, Unknown):
        return sizes
    e = {k.lower(): x for k, x in sizes.items()}.get("innodb")
    return e.tables if e is not None else 0


def _tls_state(v: FactView) -> Any:
    """Whether the client connection the snapshot recorded was encrypted: 'on (TLSv1.3)' or 'off'.
    What the server merely offers (have_ssl) is not what a benchmark client pays for. A snapshot
    imported from dumps recorded no connection: it falls back to the server's counters (a tenth of
    the connections since start, or of the sessions, used TLS)."""
    s = v.snapshot
    conn = s.server.connection
    if s.imported is None:
        return f"on ({conn.tls_version})" if conn.tls_version else "off"
    used = v.get("derived.tls_in_use")
    if isinstance(used, Unknown):
        return used
    return "on (other sessions)" if used else "off"


def _route(v: FactView) -> Any:
    r = v.get("client.route")
    if isinstance(r, Unknown):
        return r
    return r.kind if r.kind != "interface" else "over a network interface"


SERVER: tuple[Item, ...] = (
    Item("target.flavor", "server", "flavor", ("flavor",), 90,
         "different flavors differ in engine code, defaults and features (Percona Server and MariaDB ship a thread "
         "pool, MySQL community does not)", "compare the same flavor, or say the comparison is about it (--about "
         "flavor)", get=lambda v: v.snapshot.target.flavor),
    Item("target.version", "server", "version", ("version",), 85,
         "each release changes the optimizer, InnoDB and compiled-in defaults",
         "run the same version on every side, or say the comparison is about it (--about version)",
         get=lambda v: v.snapshot.target.version),
    Item("derived.tls", "tls", "TLS on the connection", ("tls", "config"), 80,
         "TLS costs a handshake per connection and CPU per byte: 28–33 % fewer transactions per second on loopback "
         "with sysbench (KNOWLEDGE.md §9)", "connect the benchmark client the same way on every side "
         "(--mysql-ssl=on or off for sysbench; ssl-mode in the client's option file)", get=_tls_state),
    Item("derived.buffer_pool_fit", "memory", "buffer pool vs data", ("memory", "config", "data"), 88,
         "a dataset that fits in the buffer pool is read from memory; one that does not is read from disk "
         "(2.7–3.0× fewer transactions measured with sysbench oltp_read_only, KNOWLEDGE.md §9)",
         "size innodb_buffer_pool_size and the dataset the same way on every side", get=_buffer_pool_fit, key=True),
    Item("derived.innodb_data_bytes", "memory", "InnoDB data and index size", ("data",), 70,
         "a different dataset is a different benchmark", "load the same data (the same sysbench prepare "
         "command, or restore one backup) on every side", show=_size, tolerance=0.10),
    Item("server.data_size.InnoDB.tables", "memory", "InnoDB tables in user schemas", ("data",), 60,
         "the number of tables spreads the load over more indexes and files (sysbench --tables)",
         "prepare the same tables on every side (the same sysbench --tables and --table-size)", get=_innodb_tables,
         show=format_number),
)

HOST: tuple[Item, ...] = (
    Item("host.cpu.model", "host", "CPU model", ("host", "cpu"), 60,
         "CPU generation and clock set the speed of every query that does not wait for I/O",
         "run on the same CPU model, or say the comparison is about the host (--about host)", section="host"),
    Item("host.cpu.logical_count", "host", "logical CPUs", ("host", "cpu"), 75,
         "the CPU count caps concurrency, and the server sizes thread pools and buffer pool instances from it",
         "give every side the same CPU count (the same instance type, or taskset/cgroup cpusets)", section="host",
         show=format_number),
    Item("host.cpu.numa_nodes", "host", "NUMA nodes", ("host", "cpu"), 40,
         "memory on a remote NUMA node is slower to reach; one node and two behave differently under load",
         "use hosts with the same NUMA layout, or bind the server to one node with numactl on each", section="host"),
    Item("host.cpu.governor", "host", "CPU frequency governor", ("host", "cpu", "os"), 55,
         "powersave and ondemand lower the clock between bursts; latency and short runs suffer",
         "set the performance governor on every side (cpupower frequency-set -g performance)", section="host"),
    Item("derived.memory_limit_bytes", "host", "memory the server may use", ("host", "ram"), 65,
         "memory bounds the buffer pool and the OS page cache; less of it means more reads from disk",
         "give every side the same memory (and the same cgroup limit)", show=_size, tolerance=0.05, section="host"),
    Item("host.memory.swappiness", "host", "vm.swappiness", ("host", "os"), 20,
         "a high swappiness lets the kernel swap the server out under memory pressure",
         "set the same vm.swappiness on every side (1 for a database host)", section="host"),
    Item("host.thp.enabled", "host", "transparent huge pages", ("host", "os"), 35,
         "THP 'always' causes compaction stalls and memory bloat in database servers",
         "set /sys/kernel/mm/transparent_hugepage/enabled the same on every side (never or madvise)", section="host"),
    Item("host.kernel", "host", "kernel", ("host", "os"), 25,
         "kernel releases change the block layer, the scheduler and the network stack",
         "run the same kernel on every side", section="host"),
)

STORAGE: tuple[Item, ...] = (
    Item("host.datadir.device_class", "storage", "datadir device class", ("host", "storage"), 100,
         "every commit waits for a flush to the device behind the datadir; a client-grade NVMe without power-loss "
         "protection takes about a millisecond per flush where a datacenter drive takes tens of microseconds "
         "(KNOWLEDGE.md §5; the seed's dump import took 23:19 on a PM981 and 4:43 on a PM983)",
         "put the datadir on the same class of device on every side, or say the comparison is about the storage "
         "(--about storage)", get=_device_class_known, show=_device_class, section="host", key=True),
    Item("derived.datadir_models", "storage", "datadir device model", ("host", "storage"), 92,
         "drive models differ in flush latency, write cache and sustained write speed",
         "use the same drive model on every side", section="host"),
    Item("host.datadir.write_cache", "storage", "write cache of the datadir devices", ("host", "storage"), 93,
         "'write back' (a volatile cache) makes each flush wait for the cache to drain; 'write through' drives "
         "acknowledge from protected cache", "use devices with the same write cache behaviour on every side",
         get=_datadir_devices("write_cache"), section="host"),
    Item("host.datadir.scheduler", "storage", "I/O scheduler of the datadir devices", ("host", "storage", "os"), 45,
         "an I/O scheduler adds queueing in front of fast devices (NVMe's default is none)",
         "set the same scheduler on every side (none for NVMe)", get=_datadir_devices("scheduler"), section="host"),
    Item("host.datadir.fstype", "storage", "datadir file system", ("host", "storage", "os"), 40,
         "file systems differ in how they journal and flush (ext4 vs XFS under fsync-heavy loads)",
         "put the datadir on the same file system on every side", section="host"),
    Item("host.datadir.mount_options", "storage", "datadir mount options", ("host", "storage", "os"), 25,
         "options such as barrier, data=journal, noatime or nodelalloc change the cost of writes",
         "mount the datadir with the same options on every side", get=_mount_options, section="host"),
)

NETWORK: tuple[Item, ...] = (
    Item("client.route.kind", "network", "route from the client to the server", ("network",), 80,
         "loopback, a Unix socket and a network interface differ by a round trip per statement",
         "run the benchmark client the same distance from the server on every side", get=_route, section="client"),
    Item("derived.route_speed_mbps", "network", "link speed of the client's route", ("network",), 78,
         "a 1 Gb/s link caps a result stream at about 118 MB/s (KNOWLEDGE.md §6)",
         "route the client over links of the same speed on every side", show=_mbps, section="client"),
    Item("client.route.mtu", "network", "MTU of the client's route", ("network",), 20,
         "the MTU changes packets per result set", "use the same MTU on every side", section="client"),
)


# How strongly the configuration items PingCAP's sysbench reports set move the results (the rest: 35).
CONFIG_WEIGHTS = {"prepared-plan-cache.enabled": 75, "performance.max-procs": 50, "log.level": 40,
                  "tikv-client.max-batch-wait-time": 45, "tikv.pessimistic-txn.pipelined": 55,
                  "tikv.storage.scheduler-worker-pool-size": 45, "tikv.raftstore.store-pool-size": 45,
                  "tikv.raftstore.apply-pool-size": 45, "tikv.server.grpc-concurrency": 45,
                  "tikv.readpool.unified.max-thread-count": 45, "tikv.server.enable-request-batch": 40}


def tidb_config_items(keys: list[str]) -> list[Item]:
    """One item per TiDB/TiKV configuration key that SHOW CONFIG returned on some side (TiKV's
    items are kept under 'tikv.' by the collector)."""
    out = []
    for key in keys:
        weight = CONFIG_WEIGHTS.get(key, 35)
        title = f"TiKV configuration {key[5:]}" if key.startswith("tikv.") else f"TiDB configuration {key}"
        out.append(Item(f"server.tidb_config.{key}", "tidb", title, ("config", "tidb"), weight,
                        "TiDB and TiKV configuration items change how statements are planned, cached and committed "
                        "(the PingCAP benchmark reports keep them equal and list them)",
                        f"set {key.removeprefix('tikv.')} to the same value in every cluster's "
                        f"{'TiKV' if key.startswith('tikv.') else 'TiDB'} configuration (tiup cluster edit-config)",
                        get=lambda v, k=key: _config_value(v, k)))
    return out


def _config_value(v: FactView, key: str) -> Any:
    cfg = v.snapshot.server.tidb_config
    if cfg is None:
        return Unknown(v.missing_reason("server.tidb_config", "TiDB's SHOW CONFIG was not collected"))
    if key not in cfg:
        return Unknown(f"SHOW CONFIG returned no {key}")
    return cfg[key]
