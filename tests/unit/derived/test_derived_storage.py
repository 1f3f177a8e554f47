"""Derived facts of advisor.rules.derived.storage."""

from __future__ import annotations

import pytest

from advisor.rules.derived.storage import active_scheduler
from advisor.rules.facts import Unknown
from tests.support.facts import view

PM981 = {"name": "nvme0n1", "kind": "nvme", "model": "SAMSUNG MZVLB1T0HBLR-000L7", "device_class": "nvme_client",
         "scheduler": "[none] mq-deadline"}
HDD = {"name": "sda", "kind": "sd", "model": "ST4000NM0035", "device_class": "rotational", "scheduler": "[bfq] none"}


def _host(datadir=None, *others):
    host = {"datadir": datadir} if datadir is not None else {}
    if others:
        host["other_dirs"] = list(others)
    return {"host": host}


def _store(path, *devices, cls=None, role="datadir"):
    return {"path": path, "role": role, "devices": list(devices),
            "device_class": cls or (devices[0]["device_class"] if devices else "unknown")}


def test_datadir_models():
    two = _host(_store("/var/lib/mysql", PM981, {**PM981, "name": "nvme1n1"}))
    assert view(two).get("derived.datadir_models") == "SAMSUNG MZVLB1T0HBLR-000L7"
    assert "no physical device" in view(_host(_store("/var/lib/mysql"))).get("derived.datadir_models").reason
    assert isinstance(view({}).get("derived.datadir_models"), Unknown)


@pytest.mark.parametrize("cls,want", [("ssd", True), ("nvme_plp", True), ("nvme_client", True), ("rotational", False)])
def test_datadir_flash(cls, want):
    assert view(_host(_store("/d", cls=cls))).get("derived.datadir_flash") is want


def test_datadir_flash_unknown_for_unknown_and_virtual_devices():
    assert "unknown" in view(_host({**_store("/d", cls="unknown"), "class_reason": "dm-0 hides it"})).get(
        "derived.datadir_flash").reason
    assert "virtual" in view(_host(_store("/d", cls="virtual"))).get("derived.datadir_flash").reason


def test_redo_device_class_and_description_follow_the_redo_directory():
    datadir = _store("/var/lib/mysql", PM981)
    redo = _store("/redo", HDD, role="innodb_log_group_home_dir")
    v = view(_host(datadir, redo))
    assert v.get("derived.redo_device_class") == "rotational"
    assert v.get("derived.redo_device_description") == "/redo on sda (ST4000NM0035)"
    assert v.get("derived.redo_device_class_text") == "a spinning disk"
    same = view(_host(datadir))
    assert same.get("derived.redo_device_class") == "nvme_client"
    assert same.get("derived.redo_device_class_text") == "a client-grade NVMe drive without power-loss protection"


def test_redo_device_facts_unknown_without_devices():
    v = view(_host(_store("/var/lib/mysql")))
    assert isinstance(v.get("derived.redo_device_class"), Unknown)
    assert isinstance(v.get("derived.redo_device_description"), Unknown)
    assert isinstance(v.get("derived.redo_device_class_text"), Unknown)
    assert "host facts" in view({}).get("derived.redo_device_class").reason


def test_nvme_schedulers_not_none():
    assert view(_host(_store("/d", PM981))).get("derived.nvme_schedulers_not_none") == ""
    bfq = {**PM981, "scheduler": "mq-deadline [bfq] none"}
    assert view(_host(_store("/d", bfq))).get("derived.nvme_schedulers_not_none") == "nvme0n1 (bfq)"
    assert view(_host(_store("/d", HDD))).get("derived.nvme_schedulers_not_none") == ""  # not NVMe
    unread = {**PM981, "scheduler": None}
    assert "could not be read" in view(_host(_store("/d", unread))).get("derived.nvme_schedulers_not_none").reason
    assert isinstance(view(_host(_store("/d"))).get("derived.nvme_schedulers_not_none"), Unknown)


def test_active_scheduler():
    assert active_scheduler("[none] mq-deadline") == "none"
    assert active_scheduler("none") == "none"


def test_flush_bound_commits_per_s():
    v = view({"calibration": {"mode": "full", "fsync_ms": {"p50": 0.8, "samples": 100}}})
    assert v.get("derived.flush_bound_commits_per_s") == pytest.approx(1250.0)
    zero = view({"calibration": {"mode": "full", "fsync_ms": {"p50": 0.0, "samples": 100}}})
    assert "0 ms" in zero.get("derived.flush_bound_commits_per_s").reason
    assert isinstance(view({}).get("derived.flush_bound_commits_per_s"), Unknown)


def test_datadir_device_class_text():
    v = view({"host.datadir": {"path": "/var/lib/mysql", "device_class": "nvme_plp"}})
    assert v.get("derived.datadir_device_class_text") == "a datacenter NVMe drive with power-loss protection"


def test_innodb_flush_method_shown():
    assert view({"var.innodb_flush_method": ""}, "mysql 5.7.44").get("derived.innodb_flush_method_shown") == \
        "empty (which means fsync)"
    assert view({"var.innodb_flush_method": "O_DIRECT"}).get("derived.innodb_flush_method_shown") == "O_DIRECT"


def test_commit_wait_ms():
    cal = {"mode": "full", "commit_ms": {"p50": 4.1, "samples": 50}, "rtt_ms": {"p50": 0.6, "samples": 500}}
    assert view({"calibration": cal}).get("derived.commit_wait_ms") == pytest.approx(3.5)
    no_rtt = {"mode": "full", "commit_ms": {"p50": 4.1, "samples": 50}}
    assert view({"calibration": no_rtt}).get("derived.commit_wait_ms") == pytest.approx(4.1)
    assert isinstance(view({}).get("derived.commit_wait_ms"), Unknown)
