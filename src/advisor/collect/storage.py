"""Classify block devices: rotational, SATA/SAS SSD, NVMe with or without power-loss protection,
virtual, unknown, always with the reason. Pure (the model table is package data).

Evidence, in order:
1. Paravirtual disks (virtio-blk vd*, Xen xvd*, the virtio PCI vendor 0x1af4) are `virtual`: the
   hypervisor's storage and cache mode decide what a flush costs.
2. The model table (advisor/data/storage_models.toml, one source per entry).
3. For NVMe not in the table, the volatile-write-cache bit: Linux sets queue/write_cache to
   "write back" exactly when Identify Controller VWC bit 0 is set (drivers/nvme/host/core.c), and a
   drive whose cache is safe on power loss reports no volatile cache. "write through" -> nvme_plp,
   "write back" -> nvme_client; the reason says this is a heuristic (a few PLP drives still report
   a volatile cache).
4. queue/rotational: 1 -> rotational; 0 on a SCSI/SATA disk -> ssd.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional

from advisor.snapshot import BlockDevice

CLASSES = ("rotational", "ssd", "nvme_plp", "nvme_client", "virtual", "unknown")
VIRTIO_VENDOR = "0x1af4"
PARAVIRT_DRIVERS = {"virtio_blk": "virtio-blk", "xen_blkfront": "Xen blkfront", "vbd": "Xen vbd"}


@dataclass(frozen=True)
class ModelEntry:
    """One row of the storage-model table: a model name pattern and the device class it means."""

    pattern: re.Pattern[str]
    device_class: str
    family: str
    source: str


class DeviceModels:
    def __init__(self, entries: Iterable[ModelEntry]):
        self.entries = list(entries)

    def match(self, vendor: Optional[str], model: Optional[str]) -> Optional[ModelEntry]:
        text = " ".join(x.strip() for x in (vendor, model) if x and x.strip())
        if not text:
            return None
        for e in self.entries:
            if e.pattern.search(text):
                return e
        return None

    @staticmethod
    def parse(text: str, source: str = "storage_models.toml") -> "DeviceModels":
        import sys

        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover
            import tomli as tomllib

        data = tomllib.loads(text)
        out = []
        for i, m in enumerate(data.get("model", [])):
            missing = [k for k in ("pattern", "class", "family", "source") if not m.get(k)]
            if missing:
                raise ValueError(f"{source}: model[{i}] lacks {', '.join(missing)}")
            if m["class"] not in CLASSES:
                raise ValueError(f"{source}: model[{i}].class {m['class']!r} is not one of {', '.join(CLASSES)}")
            out.append(ModelEntry(re.compile(m["pattern"], re.IGNORECASE), m["class"], m["family"], m["source"]))
        return DeviceModels(out)

    @staticmethod
    @lru_cache(maxsize=1)
    def builtin() -> "DeviceModels":
        """The bundled table, its checked rows kept in the cache (advisor.cache): a hit needs no TOML parser."""
        from pathlib import Path

        from advisor.cache import cached
        from advisor.resources import files

        src = files("advisor.data") / "storage_models.toml"

        def rows() -> list[tuple[str, str, str, str]]:
            table = DeviceModels.parse(src.read_text(encoding="utf-8"))
            return [(e.pattern.pattern, e.device_class, e.family, e.source) for e in table.entries]

        got = cached("storage-models", [("storage_models.toml", src), ("code", Path(__file__))], rows,
                     lambda x: isinstance(x, list))
        return DeviceModels(ModelEntry(re.compile(p, re.IGNORECASE), c, f, s) for p, c, f, s in got)


def _label(d: BlockDevice) -> str:
    m = " ".join(x for x in (d.vendor, d.model) if x and not x.startswith("0x")).strip()
    return f"{d.name} ({m})" if m else d.name


def classify_device(d: BlockDevice, models: DeviceModels) -> tuple[str, str]:
    """(DeviceClass, reason) for one physical device."""
    label = _label(d)
    para = PARAVIRT_DRIVERS.get(d.transport or "")
    if d.kind in ("vd", "xvd") or para or (d.vendor or "").lower() == VIRTIO_VENDOR:
        how = para or ("virtio (PCI vendor 0x1af4)" if (d.vendor or "").lower() == VIRTIO_VENDOR else f"{d.kind} device")
        return "virtual", (f"{label} is a paravirtual disk ({how}): the hypervisor's storage and cache mode "
                           "decide what a flush costs; measure it (calibration fsync)")
    entry = models.match(d.vendor, d.model)
    vwc = ""
    if d.kind == "nvme" and d.write_cache:
        vwc = ("; it has a volatile write cache (write back)" if d.write_cache == "write back"
               else "; it has no volatile write cache (write through)")
    if entry is not None:
        cls = entry.device_class
        if cls in ("nvme_client", "nvme_plp") and d.kind not in (None, "nvme"):
            cls = "ssd" if cls == "nvme_plp" else cls
        return cls, f"{label} is {entry.family}, per the device model table{vwc}"
    if d.kind == "nvme":
        if d.write_cache == "write through":
            return "nvme_plp", (f"{label} is an NVMe drive with no volatile write cache (queue/write_cache "
                                "'write through', VWC=0): flushes complete at once, as on drives with power-loss "
                                "protection (heuristic: the model is not in the table)")
        if d.write_cache == "write back":
            return "nvme_client", (f"{label} is an NVMe drive with a volatile write cache (queue/write_cache "
                                   "'write back', VWC=1), so every flush waits for the cache to reach flash; "
                                   "treated as client-grade without power-loss protection (heuristic: the model "
                                   "is not in the table, and a few datacenter drives also report a volatile cache)")
        return "unknown", f"{label} is an NVMe drive whose queue/write_cache could not be read"
    if d.rotational is True:
        return "rotational", f"{label} reports queue/rotational = 1 (spinning disk)"
    if d.rotational is False and d.kind in ("sd", "hd"):
        return "ssd", f"{label} is a non-rotational SCSI/SATA device (SSD)"
    if d.rotational is None:
        return "unknown", f"{label}: queue/rotational could not be read"
    return "unknown", f"{label} is a {d.kind or 'unrecognised'} device that is not rotational; its class is unknown"


def combine_classes(devices: list[BlockDevice]) -> tuple[str, str]:
    """The weakest class among the physical devices, and why. A rotational or client NVMe device
    anywhere below the datadir makes the whole storage that class (every mirror member must
    acknowledge a flush); otherwise an unknown device makes it unknown."""
    classes = [d.device_class for d in devices]
    for cls in ("rotational", "nvme_client", "unknown", "virtual", "ssd", "nvme_plp"):
        hits = [d for d in devices if d.device_class == cls]
        if hits:
            if len(devices) == 1:
                return cls, hits[0].class_reason
            why = "; ".join(d.class_reason for d in hits)
            return cls, f"weakest of {len(devices)} devices ({', '.join(classes)}): {why}"
    return "unknown", "no devices"
