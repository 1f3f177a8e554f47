"""Device classification: the model table, the write-cache heuristic, and the weakest-device rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor.collect.storage import CLASSES, DeviceModels, classify_device, combine_classes
from advisor.snapshot import BlockDevice

MODELS = DeviceModels.builtin()
TABLE = Path(__file__).resolve().parents[2] / "src/advisor/data/storage_models.toml"


def dev(**kw) -> BlockDevice:
    kw.setdefault("name", "nvme0n1")
    return BlockDevice(**kw)


def test_every_table_entry_has_a_source_and_a_valid_class():
    import tomllib

    entries = tomllib.loads(TABLE.read_text())["model"]
    assert len(entries) >= 10
    for e in entries:
        assert e["class"] in CLASSES, e
        assert len(e["source"]) > 20, e  # a real citation, not a placeholder
        re.compile(e["pattern"])
    assert len(MODELS.entries) == len(entries)


@pytest.mark.parametrize("model,cls", [
    ("SAMSUNG MZVLB1T0HBLR-000L7", "nvme_client"),      # seed 003, PM981
    ("SAMSUNG MZVLB512HBJQ-000L2", "nvme_client"),      # PM981a
    ("PM981 NVMe SED Samsung 1TB", "nvme_client"),
    ("SAMSUNG MZVL21T0HCLR-00BL7", "nvme_client"),      # PM9A1
    ("Samsung SSD 970 EVO Plus 1TB", "nvme_client"),
    ("Samsung SSD 990 PRO 2TB", "nvme_client"),
    ("SAMSUNG MZQLB960HAJR-00007", "nvme_plp"),         # seed 003, PM983
    ("Micron_9200_MTFDHAL1T6TCU", "nvme_plp"),
    ("Amazon Elastic Block Store", "virtual"),
])
def test_nvme_models(model, cls):
    c, reason = classify_device(dev(kind="nvme", model=model, write_cache="write back"), MODELS)
    assert c == cls, reason
    assert "device model table" in reason


def test_table_wins_over_the_write_cache_bit_but_the_reason_shows_both():
    c, reason = classify_device(dev(kind="nvme", model="SAMSUNG MZQLB960HAJR-00007", write_cache="write back"), MODELS)
    assert c == "nvme_plp" and "it has a volatile write cache" in reason


@pytest.mark.parametrize("wc,cls,word", [("write back", "nvme_client", "heuristic"),
                                         ("write through", "nvme_plp", "heuristic"),
                                         (None, "unknown", "could not be read")])
def test_unknown_nvme_models_use_the_vwc_bit(wc, cls, word):
    c, reason = classify_device(dev(kind="nvme", model="ACME NVMe 2TB", write_cache=wc), MODELS)
    assert c == cls and word in reason


def test_virtual_disks():
    assert classify_device(dev(name="vda", kind="vd", vendor="0x1af4", rotational=True), MODELS)[0] == "virtual"
    assert classify_device(dev(name="xvda", kind="xvd"), MODELS)[0] == "virtual"
    assert classify_device(dev(name="sda", kind="sd", transport="virtio_blk"), MODELS)[0] == "virtual"
    c, reason = classify_device(dev(name="sda", kind="sd", vendor="QEMU", model="QEMU HARDDISK", rotational=True), MODELS)
    assert c == "virtual" and "QEMU" in reason
    assert classify_device(dev(name="sda", kind="sd", vendor="VMware", model="Virtual disk", rotational=True),
                           MODELS)[0] == "virtual"
    assert classify_device(dev(name="sda", kind="sd", vendor="Msft", model="Virtual Disk"), MODELS)[0] == "virtual"


def test_sata_and_spinning():
    assert classify_device(dev(name="sda", kind="sd", vendor="ATA", model="ST4000NM0035-1V4", rotational=True),
                           MODELS)[0] == "rotational"
    c, reason = classify_device(dev(name="sda", kind="sd", vendor="ATA", model="SAMSUNG MZ7KH960HAJR", rotational=False),
                                MODELS)
    assert c == "ssd" and "SM883" in reason
    assert classify_device(dev(name="sdb", kind="sd", vendor="ATA", model="CT500MX500SSD1", rotational=False),
                           MODELS)[0] == "ssd"
    assert classify_device(dev(name="mmcblk0", kind="mmc", rotational=False), MODELS)[0] == "unknown"
    assert classify_device(dev(name="sdc", kind="sd"), MODELS)[0] == "unknown"


def _c(cls: str, name: str) -> BlockDevice:
    return dev(name=name, device_class=cls, class_reason=f"{name} is {cls}")


def test_weakest_device_decides():
    assert combine_classes([_c("nvme_plp", "a"), _c("nvme_client", "b")])[0] == "nvme_client"
    assert combine_classes([_c("nvme_client", "a"), _c("rotational", "b")])[0] == "rotational"
    assert combine_classes([_c("nvme_plp", "a"), _c("unknown", "b")])[0] == "unknown"
    assert combine_classes([_c("nvme_client", "a"), _c("unknown", "b")])[0] == "nvme_client"
    assert combine_classes([_c("nvme_plp", "a"), _c("ssd", "b")])[0] == "ssd"
    cls, why = combine_classes([_c("nvme_plp", "a")])
    assert (cls, why) == ("nvme_plp", "a is nvme_plp")
    assert "weakest of 2 devices" in combine_classes([_c("nvme_plp", "a"), _c("nvme_client", "b")])[1]


def test_a_broken_table_is_refused():
    with pytest.raises(ValueError, match="lacks source"):
        DeviceModels.parse('[[model]]\npattern = "X"\nclass = "nvme_plp"\nfamily = "x"\n')
    with pytest.raises(ValueError, match="not one of"):
        DeviceModels.parse('[[model]]\npattern = "X"\nclass = "fast"\nfamily = "x"\nsource = "y"\n')


def test_the_model_table_ships_in_the_wheel():
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["advisor.data"]
    assert any(Path("storage_models.toml").match(p) for p in patterns)
