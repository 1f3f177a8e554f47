"""Builds the bundled demo snapshot (src/advisor/data/demo-seed-000.json): the seed-000 server.

The seed case: a benchmark against a MySQL 5.7 server whose numbers came out low on good hardware.
TLS was on for every connection (5.7.28+ generates certificates at startup and every
libmysqlclient ≥ 5.7.11 defaults to PREFERRED), sort_buffer_size was 32M, the redo log was 128 MB
(64M × 2), the benchmark client reached the server over em3 at 1 Gb/s while vlan2 at 10 Gb/s was
idle, and the datadir was on a Samsung PM981 (MZVLB1T0HBLR), a client-grade NVMe.

Server variables and status come from the recorded MySQL 5.7 set in tests/fixtures/flavors/mysql-5.7
(see its PROVENANCE.md) with the seed's settings applied on top; the host and client sections are
reconstructed from the seed's description (hardware named in the seed articles; values as Linux
reports them, see tests/fixtures/hosts/ for recorded trees). Counters are scaled to the seed's run:
every connection negotiated TLS.

Regenerate (with every other golden file): python3 -m pytest --update-golden
A unit test checks that the committed file equals this function's output.
"""

from __future__ import annotations

import json
from pathlib import Path

FLAVORS = Path(__file__).resolve().parent.parent / "fixtures" / "flavors"

SEED_VARIABLES = {
    "sort_buffer_size": "33554432",          # 32M: the seed's setting
    "innodb_log_file_size": "67108864",      # 64M × 2 files = 128 MiB of redo
    "innodb_log_files_in_group": "2",
    "innodb_buffer_pool_size": "68719476736",  # 64G on a 128 GiB host
    "innodb_buffer_pool_instances": "8",
    "max_connections": "2000",
    "have_ssl": "YES",
    "have_openssl": "YES",
    "ssl_ca": "ca.pem",
    "ssl_cert": "server-cert.pem",
    "ssl_key": "server-key.pem",
    "datadir": "/data/mysql/",
    "hostname": "db-bench-01",
    "port": "3306",
}


def build_demo() -> dict:
    variables = json.loads((FLAVORS / "mysql-5.7" / "variables.json").read_text())
    status = json.loads((FLAVORS / "mysql-5.7" / "status.json").read_text())
    variables.update(SEED_VARIABLES)
    # The seed's benchmark: every client connection negotiated TLS.
    status["Ssl_accepts"] = status["Connections"]
    status["Ssl_finished_accepts"] = status["Connections"]
    return {
        "schema_version": 1,
        "advisor_version": "0.1.0",
        "collected_at": "2026-11-30T00:00:00Z",
        "target": {"host": "10.10.1.12", "port": 3306, "socket": None, "transport": "tcp", "flavor": "mysql",
                   "version": "5.7.44", "version_string": variables["version"],
                   "version_comment": variables["version_comment"]},
        "server": {
            "variables": variables,
            "status": status,
            "interval": None,
            "data_size": {"InnoDB": {"tables": 32, "data_bytes": 41875931136, "index_bytes": 3221225472}},
            "connection": {"transport": "tcp", "user": "bench", "thread_id": 599796, "tls_version": "TLSv1.2",
                           "tls_cipher": "ECDHE-RSA-AES128-GCM-SHA256", "ssl_mode": "PREFERRED"},
            "tls_usage": None,
            "tls_channels": None,
            "tidb_config": None,
            "missing": [{"fact": "server.tls_usage",
                         "reason": "performance_schema per-thread status was not readable; Ssl_accepts / Connections since start is used instead"}],
        },
        "host": {
            "source": "recorded",
            "hostname": "db-bench-01",
            "kernel": "4.18.0-348.el8.x86_64",
            "cpu": {"model": "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "logical_count": 80, "numa_nodes": 2,
                    "governor": "performance"},
            "memory": {"total_bytes": 137438953472, "cgroup_version": 2, "cgroup_limit_bytes": None,
                       "effective_limit_bytes": 137438953472, "swap_total_bytes": 0, "swappiness": 1},
            "thp": {"enabled": "never", "defrag": "never"},
            "mysqld_open_files_limit": 65535,
            "datadir": {
                "path": "/data/mysql/", "role": "datadir", "mount_point": "/data", "fstype": "xfs",
                "mount_options": ["rw", "noatime", "attr2", "inode64", "noquota"], "source": "/dev/nvme0n1p1",
                "stack": ["nvme0n1p1", "nvme0n1"],
                "devices": [{"name": "nvme0n1", "kind": "nvme", "model": "SAMSUNG MZVLB1T0HBLR-000L7",
                             "vendor": "Samsung", "size_bytes": 1024209543168, "rotational": False,
                             "write_cache": "write back", "scheduler": "none", "nvme_vwc": True,
                             "transport": "pcie", "device_class": "nvme_client",
                             "class_reason": "SAMSUNG MZVLB1T0HBLR-000L7 is a Samsung PM981 (client OEM NVMe, no "
                                             "power-loss protection); queue/write_cache is 'write back' (volatile cache)"}],
                "device_class": "nvme_client",
                "class_reason": "nvme0n1: SAMSUNG MZVLB1T0HBLR-000L7 is a Samsung PM981 (client OEM NVMe, no "
                                "power-loss protection); queue/write_cache is 'write back' (volatile cache)",
            },
            "other_dirs": [],
            "missing": [],
        },
        "client": {
            "source": "recorded",
            "hostname": "bench-client-01",
            "route": {"destination": "10.10.1.12", "kind": "interface", "interface": "em3",
                      "source_address": "10.10.1.11", "gateway": None, "speed_mbps": 1000, "duplex": "full",
                      "mtu": 1500},
            "interfaces": [
                {"name": "lo", "operstate": "unknown", "speed_mbps": None, "duplex": None, "mtu": 65536,
                 "addresses": ["127.0.0.1"], "virtual": True, "rx_bytes": 1839211, "tx_bytes": 1839211},
                {"name": "em3", "operstate": "up", "speed_mbps": 1000, "duplex": "full", "mtu": 1500,
                 "addresses": ["10.10.1.11"], "virtual": False, "rx_bytes": 918273645512, "tx_bytes": 102938475610},
                {"name": "em4", "operstate": "down", "speed_mbps": None, "duplex": None, "mtu": 1500,
                 "addresses": [], "virtual": False, "rx_bytes": 0, "tx_bytes": 0},
                {"name": "vlan2", "operstate": "up", "speed_mbps": 10000, "duplex": "full", "mtu": 1500,
                 "addresses": ["10.20.1.11"], "virtual": True, "rx_bytes": 7340032, "tx_bytes": 5242880},
            ],
            "missing": [],
        },
        "calibration": None,
        "missing": [{"fact": "calibration", "reason": "the demo snapshot carries no calibration measurements"}],
    }


def demo_json() -> str:
    from advisor.snapshot import Snapshot

    return Snapshot.model_validate(build_demo()).to_json()


if __name__ == "__main__":
    print(demo_json(), end="")
