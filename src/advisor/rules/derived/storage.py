"""Derived facts about the storage behind the datadir and the redo log: device models and classes,
I/O schedulers, whether it is flash, and the commit rate one measured flush allows."""

from __future__ import annotations

import re
from typing import Any

from advisor.rules.derived.common import no_host_facts
from advisor.rules.facts import FactSet, FactView, Unknown

FACTS = FactSet()

FLASH_CLASSES = ("ssd", "nvme_plp", "nvme_client")
CLASS_TEXT = {
    "rotational": "a spinning disk",
    "nvme_client": "a client-grade NVMe drive without power-loss protection",
    "nvme_plp": "a datacenter NVMe drive with power-loss protection",
    "ssd": "a SATA/SAS SSD",
    "virtual": "a virtual disk",
    "unknown": "a device of unknown class",
}


@FACTS.define("datadir_models", "Models of the physical devices behind the datadir, comma-separated.")
def datadir_models(v: FactView) -> Any:
    st = v.need("host.datadir")
    models = [d.model or d.name for d in st.devices]
    if not models:
        return Unknown(v.missing_reason("host.datadir.devices", "no physical device was resolved for the datadir"))
    return ", ".join(dict.fromkeys(models))


@FACTS.define("datadir_flash", "Whether the datadir is on flash (ssd, nvme_plp, nvme_client); unknown when the "
              "device class could not be determined.")
def datadir_flash(v: FactView) -> Any:
    c = v.need("host.datadir.device_class")
    if c == "unknown":
        reason = v.get("host.datadir.class_reason")
        return Unknown("the datadir's device class is unknown" + (f" ({reason})" if isinstance(reason, str) and reason else ""))
    if c == "virtual":
        return Unknown("the datadir is on a virtual disk whose backing storage is not visible")
    return c in FLASH_CLASSES


@FACTS.define("datadir_device_class_text", "host.datadir.device_class in words ('a SATA/SAS SSD', 'a datacenter NVMe "
              "drive with power-loss protection', ...), for messages.")
def datadir_device_class_text(v: FactView) -> Any:
    c = v.need("host.datadir.device_class")
    return CLASS_TEXT.get(str(c), str(c))


@FACTS.define("innodb_flush_method_shown", "innodb_flush_method for a message: the value, or for the empty value and "
              "NULL that MySQL 5.x and MariaDB print by default, what they mean ('empty (which means fsync)').")
def innodb_flush_method_shown(v: FactView) -> Any:
    m = str(v.need("var.innodb_flush_method")).strip()
    if m == "" or m.upper() == "NULL":
        return f"{'empty' if m == '' else 'NULL'} (which means fsync)"
    return m


def _redo_storage(v: FactView) -> Any:
    h = v.snapshot.host
    if h is None:
        return no_host_facts(v)
    for st in h.other_dirs:
        if st.role == "innodb_log_group_home_dir":
            return st
    if h.datadir is None:
        return Unknown(v.missing_reason("host.datadir", "the storage behind the datadir was not resolved"))
    return h.datadir


@FACTS.define("redo_device_class", "Class of the weakest device holding the InnoDB redo log: the storage of "
              "innodb_log_group_home_dir when it is outside the datadir, else the datadir's.")
def redo_device_class(v: FactView) -> Any:
    st = _redo_storage(v)
    if isinstance(st, Unknown):
        return st
    if not st.devices:
        return Unknown(v.missing_reason("host.datadir.devices", st.class_reason or "no physical device resolved"))
    return st.device_class


@FACTS.define("redo_device_description", "The redo log's directory and devices, e.g. '/var/lib/mysql on nvme0n1 "
              "(SAMSUNG MZVLB1T0HBLR-000L7)'.")
def redo_device_description(v: FactView) -> Any:
    st = _redo_storage(v)
    if isinstance(st, Unknown):
        return st
    if not st.devices:
        return Unknown(st.class_reason or "no physical device resolved")
    devs = ", ".join(f"{d.name} ({d.model})" if d.model else d.name for d in st.devices)
    return f"{st.path} on {devs}"


@FACTS.define("redo_device_class_text", "derived.redo_device_class in words ('a spinning disk', 'a client-grade "
              "NVMe drive without power-loss protection', ...).")
def redo_device_class_text(v: FactView) -> Any:
    c = v.need("derived.redo_device_class")
    return CLASS_TEXT.get(str(c), str(c))


def active_scheduler(text: str) -> str:
    """The active choice of a sysfs queue/scheduler line: '[none] mq-deadline' -> 'none'."""
    m = re.search(r"\[([^\]]+)\]", text)
    return m.group(1) if m else text.strip()


@FACTS.define("nvme_schedulers_not_none", "NVMe devices behind the datadir (or the redo directory) whose I/O "
              "scheduler is neither none nor mq-deadline, as 'nvme0n1 (bfq)'; empty when there are none.")
def nvme_schedulers_not_none(v: FactView) -> Any:
    h = v.snapshot.host
    if h is None:
        return no_host_facts(v)
    stores = ([h.datadir] if h.datadir is not None else []) + list(h.other_dirs)
    devs = {d.name: d for st in stores for d in st.devices if d.kind == "nvme"}
    if not stores or not any(st.devices for st in stores):
        return Unknown(v.missing_reason("host.datadir.devices", "no physical device was resolved for the datadir"))
    bad = []
    for d in devs.values():
        if d.scheduler is None:
            return Unknown(v.missing_reason(f"host.datadir.devices.{d.name}.scheduler",
                                            f"{d.name}'s queue/scheduler could not be read"))
        active = active_scheduler(d.scheduler)
        if active not in ("none", "mq-deadline"):
            bad.append(f"{d.name} ({active})")
    return ", ".join(bad)


def _per_second_spread(path: str) -> Any:
    def spread(v: FactView) -> Any:
        sp = v.spread(path)
        if sp is None or sp[0] <= 0:
            return None
        return 1000.0 / sp[1], 1000.0 / sp[0]
    return spread


def _commit_wait_spread(v: FactView) -> Any:
    sp = v.spread("calibration.commit_ms.p50")
    if sp is None:
        return None
    rtt = v.num_or("calibration.rtt_ms.p50", 0.0)
    return max(0.0, sp[0] - rtt), max(0.0, sp[1] - rtt)


@FACTS.define("flush_bound_commits_per_s", "Commits per second one session can make when each waits for one "
              "flush of the measured median fdatasync latency: 1000 ÷ fsync p50 ms.", unit="1/s",
              spread=_per_second_spread("calibration.fsync_ms.p50"))
def flush_bound_commits_per_s(v: FactView) -> Any:
    p50 = v.need_num("calibration.fsync_ms.p50")
    if p50 <= 0:
        return Unknown("the measured flush latency was 0 ms")
    return 1000.0 / p50


@FACTS.define("commit_wait_ms", "What a durable commit waits for beyond the round trip, as the opt-in commit probe "
              "measured it: commit p50 ms − round-trip p50 ms (at least 0); the flush the commit waits for when the "
              "flush probe could not run (a server on another host).", unit="ms", spread=_commit_wait_spread)
def commit_wait_ms(v: FactView) -> Any:
    commit = v.need_num("calibration.commit_ms.p50")
    rtt = v.num_or("calibration.rtt_ms.p50", 0.0)
    return max(0.0, commit - rtt)
