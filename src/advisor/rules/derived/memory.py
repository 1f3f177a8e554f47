"""Derived facts about memory: the limit the server lives within, the buffer pool against it and
against the data, and the worst-case memory of the configuration (the memory model of
advisor.rules.memory over the server's own values)."""

from __future__ import annotations

from typing import Any

from advisor.rules import memory, sizing
from advisor.rules.derived.common import no_host_facts, ratio
from advisor.rules.facts import FactSet, FactView, Unknown

FACTS = FactSet()


@FACTS.define("memory_limit_bytes", "Memory the server may use: the cgroup limit when lower than RAM, else RAM.",
              unit="bytes")
def memory_limit_bytes(v: FactView) -> Any:
    eff = v.get("host.memory.effective_limit_bytes")
    if not isinstance(eff, Unknown):
        return eff
    return v.get("host.memory.total_bytes")


@FACTS.define("memory_limit_source", "What bounds the server's memory: the cgroup limit (v1 or v2) when it is below "
              "RAM, else RAM.")
def memory_limit_source(v: FactView) -> Any:
    h = v.snapshot.host
    if h is None:
        return no_host_facts(v)
    m = h.memory
    if m.cgroup_limit_bytes is not None and (m.total_bytes is None or m.cgroup_limit_bytes < m.total_bytes):
        name = "memory.max" if m.cgroup_version == 2 else "memory.limit_in_bytes"
        return f"the cgroup v{m.cgroup_version} limit ({name}) of the server's container or service"
    if m.total_bytes is None:
        return Unknown(v.missing_reason("host.memory.total_bytes", "the host's RAM is unknown"))
    return "the host's RAM"


@FACTS.define("innodb_data_bytes", "InnoDB data plus index bytes in user schemas.", unit="bytes")
def innodb_data_bytes(v: FactView) -> Any:
    ds = v.snapshot.server.data_size
    if ds is None:
        return Unknown(v.missing_reason("server.data_size", "data size per engine was not collected"))
    e = {k.lower(): x for k, x in ds.items()}.get("innodb")
    return 0 if e is None else e.data_bytes + e.index_bytes


@FACTS.define("myisam_tables", "MyISAM tables in user schemas (0 when the per-engine sizes name no MyISAM).")
def myisam_tables(v: FactView) -> Any:
    ds = v.snapshot.server.data_size
    if ds is None:
        return Unknown(v.missing_reason("server.data_size", "data size per engine was not collected"))
    e = {k.lower(): x for k, x in ds.items()}.get("myisam")
    return 0 if e is None else e.tables


@FACTS.define("buffer_pool_share_of_memory", "innodb_buffer_pool_size as a fraction of the memory the server may "
              "use (derived.memory_limit_bytes).", unit="fraction")
def buffer_pool_share_of_memory(v: FactView) -> Any:
    return ratio(v.num("var.innodb_buffer_pool_size"), v.num("derived.memory_limit_bytes"), "the memory limit is 0")


@FACTS.define("buffer_pool_data_ratio", "innodb_buffer_pool_size / InnoDB data + index bytes (user schemas).",
              unit="ratio")
def buffer_pool_data_ratio(v: FactView) -> Any:
    return ratio(v.num("var.innodb_buffer_pool_size"), v.get("derived.innodb_data_bytes"),
                 "there is no InnoDB data in user schemas yet")


@FACTS.define("buffer_pool_instance_bytes", "Buffer pool bytes per instance (innodb_buffer_pool_size / "
              "innodb_buffer_pool_instances).", unit="bytes")
def buffer_pool_instance_bytes(v: FactView) -> Any:
    bp, inst = v.need_num("var.innodb_buffer_pool_size"), v.need_num("var.innodb_buffer_pool_instances")
    return bp / max(1, inst)


@FACTS.define("buffer_pool_chunk_remainder_bytes", "innodb_buffer_pool_size modulo innodb_buffer_pool_chunk_size × "
              "innodb_buffer_pool_instances: non-zero means the server rounds the pool up at startup.", unit="bytes")
def buffer_pool_chunk_remainder_bytes(v: FactView) -> Any:
    bp, chunk = v.need_num("var.innodb_buffer_pool_size"), v.need_num("var.innodb_buffer_pool_chunk_size")
    if chunk <= 0:
        return Unknown("innodb_buffer_pool_chunk_size is 0 (autosized by the server)")
    inst = v.num_or("var.innodb_buffer_pool_instances", 1)
    return int(bp) % int(chunk * max(1, inst))


@FACTS.define("buffer_pool_chunk_unit_bytes", "innodb_buffer_pool_chunk_size × innodb_buffer_pool_instances: the "
              "step the buffer pool size is rounded to.", unit="bytes")
def buffer_pool_chunk_unit_bytes(v: FactView) -> Any:
    chunk = v.need_num("var.innodb_buffer_pool_chunk_size")
    return int(chunk) * int(max(1, v.num_or("var.innodb_buffer_pool_instances", 1)))


@FACTS.define("dedicated_buffer_pool_bytes", "The buffer pool innodb_dedicated_server would choose for the host's "
              "RAM (< 1 GiB: 128 MiB; 1–4 GiB: 50 %; > 4 GiB: 75 %).", unit="bytes")
def dedicated_buffer_pool_bytes(v: FactView) -> Any:
    return sizing.dedicated_buffer_pool_bytes(float(v.need("host.memory.total_bytes")))


# ---------------------------------------------------------------- worst-case memory

@FACTS.define("tmp_table_limit_bytes", "The effective in-memory limit of an internal temporary table: the smaller "
              "of tmp_table_size and max_heap_table_size where the MEMORY engine holds them.", unit="bytes")
def tmp_table_limit_bytes(v: FactView) -> Any:
    return min(v.need_num("var.tmp_table_size"), v.need_num("var.max_heap_table_size"))


@FACTS.define("tmp_tables_use_memory_engine", "Whether internal in-memory temporary tables use the MEMORY engine "
              "(so max_heap_table_size caps them): MySQL/Percona before 8.0 and MariaDB always; 8.0+ only with "
              "internal_tmp_mem_storage_engine = MEMORY.")
def tmp_tables_use_memory_engine(v: FactView) -> Any:
    if v.flavor == "tidb":
        return Unknown("TiDB has no MEMORY-engine temporary tables")
    if v.flavor == "mariadb" or v.version.major < 8:
        return True
    return memory.tmp_tables_in_memory_engine(v.flavor, v.version, str(v.need("var.internal_tmp_mem_storage_engine")))


@FACTS.define("per_connection_buffer_bytes", "Buffers one busy connection may allocate: sort + join + read + "
              "read_rnd buffers, thread stack, binlog cache, plus one in-memory temporary table where the MEMORY "
              "engine holds them (tmp_table_size / max_heap_table_size, the smaller).", unit="bytes")
def per_connection_buffer_bytes(v: FactView) -> Any:
    return sum(p.bytes for p in memory.per_connection_parts(memory.ObservedValues(v)))


@FACTS.define("global_buffer_bytes", "Memory the server allocates once: buffer pool, redo log buffer, MyISAM key "
              "buffer, Aria page cache (MariaDB), query cache, and the TempTable pool (MySQL 8.0+ with TempTable).",
              unit="bytes")
def global_buffer_bytes(v: FactView) -> Any:
    return sum(line.bytes for line in memory.global_lines(memory.ObservedValues(v)))


@FACTS.define("max_memory_bytes", "Worst-case server memory: global buffers + max_connections × per-connection "
              "buffers.", unit="bytes")
def max_memory_bytes(v: FactView) -> Any:
    g, p = v.need("derived.global_buffer_bytes"), v.need("derived.per_connection_buffer_bytes")
    return g + v.need_num("var.max_connections") * p


@FACTS.define("max_memory_ratio", "Worst-case server memory as a fraction of the memory limit (cgroup limit or "
              "RAM).", unit="fraction")
def max_memory_ratio(v: FactView) -> Any:
    return ratio(v.get("derived.max_memory_bytes"), v.get("derived.memory_limit_bytes"), "the memory limit is 0")
