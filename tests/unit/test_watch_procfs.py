"""The /proc parsers and deltas of `advisor watch`, on files recorded on this machine
(tests/fixtures/watch/PROVENANCE.md) and on lines built from the formats in proc(5) and the
kernel's iostats.rst where no machine here has them (older kernels)."""

from pathlib import Path

import pytest

from advisor.watch.counters import (cpu_share, disk_rate, host_interval, nic_rate, process_cpu, server_interval,
                                    tree_cpu, wire_utilisation)
from advisor.watch.model import HostSetup, NicSetup
from advisor.watch.procfs import (parse_cpu_list, parse_cpu_quota, parse_diskstats, parse_net_dev, parse_pid_stat,
                                  parse_proc_stat, parse_status_cpus_allowed, parse_tc_qdiscs)

PROC = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "proc"


def read(name: str) -> str:
    return (PROC / name).read_text()


# ---------------------------------------------------------------------- parsers

def test_proc_stat_recorded():
    s = parse_proc_stat(read("stat.0"))
    assert s.total is not None and sorted(s.cpus) == [0, 1]
    assert s.total.user == 180348 and s.total.system == 26553 and s.total.steal == 1670
    assert s.cpus[1].idle == 120575 and s.ctxt == 14512974 and s.procs_running is not None
    assert s.total.total == sum((180348, 0, 26553, 260100, 4810, 0, 5510, 1670))


def test_proc_stat_old_kernel_without_steal():
    # Linux 2.6.0-2.6.10 print seven columns (no steal): the missing ones count as 0
    s = parse_proc_stat("cpu  10 0 5 100 1 0 0\ncpu0 10 0 5 100 1 0 0\n")
    assert s.total is not None and s.total.steal == 0 and s.cpus[0].user == 10


def test_pid_stat_recorded_and_odd_comm():
    p = parse_pid_stat(read("mysqld-stat.0"))
    assert p is not None and p.comm == "mariadbd" and p.state == "S" and p.num_threads == 18
    assert (p.utime, p.stime, p.minflt, p.majflt) == (63, 60, 23168, 0)
    # proc(5): comm may contain spaces and parentheses; fields are counted after the last ')'
    odd = parse_pid_stat("42 (my (weird) name) R 1 42 42 0 -1 0 7 0 3 0 11 22 0 0 20 0 5 0 999 0 0")
    assert odd is not None and odd.comm == "my (weird) name" and (odd.utime, odd.stime, odd.num_threads) == (11, 22, 5)
    assert parse_pid_stat("") is None and parse_pid_stat("garbage") is None


def test_cpu_lists_and_quotas():
    assert parse_cpu_list("0-3,8-9") == [0, 1, 2, 3, 8, 9] and parse_cpu_list("x") is None
    assert parse_status_cpus_allowed(read("mysqld-status")) == [0, 1]
    assert parse_cpu_quota(cpu_max="max 100000\n") is None
    assert parse_cpu_quota(cpu_max="150000 100000\n") == 1.5
    assert parse_cpu_quota(cfs_quota_us="-1\n", cfs_period_us="100000\n") is None
    assert parse_cpu_quota(cfs_quota_us="200000", cfs_period_us="100000") == 2.0


def test_diskstats_recorded_with_flush_fields():
    d = parse_diskstats(read("diskstats.1"))
    vda = d["vda"]
    assert vda.writes == 525994 and vda.write_sectors == 61469024 and vda.io_ms == 86376
    assert vda.flushes == 219079 and vda.flush_ms == 13960


def test_diskstats_pre_418_has_no_flushes():
    # 11 fields after the name (Documentation/admin-guide/iostats.rst, kernels before 4.18)
    d = parse_diskstats("   8       0 sda 100 5 800 40 200 10 1600 90 0 120 130\n")
    assert d["sda"].reads == 100 and d["sda"].flushes is None


def test_net_dev_recorded_including_long_names():
    n = parse_net_dev(read("net-dev.0"))
    assert n["lo"].rx_bytes == 37179194845 and n["lo"].tx_packets == 8160841
    ns = parse_net_dev(read("mysqld-net-dev-netns"))  # a 12-character name touches its colon
    assert ns["advn308c353d"].rx_bytes == 1987792 and ns["advn308c353d"].tx_packets == 646


def test_tc_qdiscs_recorded():
    host = parse_tc_qdiscs(read("tc-qdisc-host.json"))
    assert len(host) == 1 and host[0].rate_bits_per_s == 10_000_000 and host[0].interface == ""
    ns = parse_tc_qdiscs(read("tc-qdisc-netns.json"))
    assert [(s.interface, s.rate_bits_per_s) for s in ns] == [("advn308c353d", 10_000_000)]  # noqueue on lo is no shaper
    assert parse_tc_qdiscs("not json") == [] and parse_tc_qdiscs('[{"kind": "fq_codel"}]') == []


# ---------------------------------------------------------------------- deltas

def test_cpu_share_sums_to_one_and_skips_backwards():
    a, b = parse_proc_stat(read("stat.0")), parse_proc_stat(read("stat.1"))
    s = cpu_share([a.total], [b.total])
    assert s is not None and s.cpus == 1
    assert s.user + s.system + s.irq + s.iowait + s.steal + s.idle == pytest.approx(1.0, abs=1e-3)  # 4 decimals each
    both = cpu_share([a.cpus[0], a.cpus[1]], [b.cpus[0], b.cpus[1]])
    assert both is not None and both.cpus == 2
    assert cpu_share([b.total], [a.total]) is None  # counters went backwards
    assert cpu_share([a.total], [a.total]) is None  # no time passed


def test_process_cpu_from_recorded_samples():
    a, b = parse_pid_stat(read("mysqld-stat.0")), parse_pid_stat(read("mysqld-stat.1"))
    p = process_cpu(a, b, 1.0, 100)
    assert p is not None and p.name == "mariadbd"
    assert p.cores == pytest.approx((b.utime + b.stime - a.utime - a.stime) / 100)
    assert p.minor_faults_per_s == b.minflt - a.minflt
    restarted = parse_pid_stat(read("mysqld-stat.1").replace(" 239861 ", " 999999 "))
    assert process_cpu(a, restarted, 1.0, 100) is None  # same pid, another process


def test_tree_cpu_counts_new_and_exited_children():
    root0 = parse_pid_stat("10 (sh) S 1 10 10 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 100 0 0")
    root1 = parse_pid_stat("10 (sh) S 1 10 10 0 -1 0 0 0 0 0 5 5 30 10 20 0 1 0 100 0 0")  # a child exited: 40 ticks
    kid = parse_pid_stat("11 (sysbench) S 10 10 10 0 -1 0 0 0 0 0 50 20 0 0 20 0 9 0 150 0 0")  # started in between
    t = tree_cpu([root0], [root1, kid], 1.0, 100)
    assert t is not None and t.processes == 2 and t.threads == 10
    assert t.cores == pytest.approx((40 + 70) / 100)


def test_disk_rate_util_await_and_flush():
    d0, d1 = parse_diskstats(read("diskstats.0")), parse_diskstats(read("diskstats.1"))
    r = disk_rate(d0["vda"], d1["vda"], 1.0)
    assert r is not None and r.writes_per_s == 3 and r.reads_per_s == 0 and r.read_await_ms is None
    assert r.write_mbytes_per_s == pytest.approx(104 * 512 / 1e6, abs=1e-4)
    a = parse_diskstats("8 0 sda 0 0 0 0 0 0 0 0 0 1000 0 0 0 0 0 10 5\n")["sda"]
    b = parse_diskstats("8 0 sda 500 0 8000 1000 100 0 800 300 2 1900 1500 0 0 0 0 30 45\n")["sda"]
    r = disk_rate(a, b, 1.0)
    assert r is not None and r.utilisation == pytest.approx(0.9) and r.read_await_ms == pytest.approx(2.0)
    assert r.write_await_ms == pytest.approx(3.0) and r.flushes_per_s == 20 and r.flush_ms == pytest.approx(2.0)
    assert r.queue_depth == pytest.approx(1.5)


def test_wire_utilisation_counts_ethernet_overhead_on_links_only():
    # 81,000 frames/s of 1,455 bytes on a 1 Gb/s link: 117.9 MB/s of frames, 99.8 % of the wire
    assert wire_utilisation(117.9e6, 81000, 1000, shaped=False) == pytest.approx((117.9e6 + 24 * 81000) * 8 / 1e9)
    assert wire_utilisation(1.25e6, 5800, 10, shaped=True) == pytest.approx(1.0)
    assert wire_utilisation(1e6, 100, None, shaped=False) is None


def test_nic_rate():
    a, b = parse_net_dev(read("net-dev.0"))["lo"], parse_net_dev(read("net-dev.1"))["lo"]
    r = nic_rate(a, b, 1.0)
    assert r is not None and r.rx_mbytes_per_s == pytest.approx((b.rx_bytes - a.rx_bytes) / 1e6)
    assert r.rx_utilisation is None  # loopback: no ceiling
    assert nic_rate(b, a, 1.0) is None


def test_server_interval_removes_the_watchers_own_statements():
    prev = {"Questions": "1000", "Com_select": "10", "Com_show_status": "5", "Threads_running": "3", "Uptime": "100",
            "Innodb_buffer_pool_reads": "7", "Com_insert": "4"}
    cur = {"Questions": "3002", "Com_select": "11", "Com_show_status": "6", "Threads_running": "5", "Uptime": "102",
           "Innodb_buffer_pool_reads": "7", "Com_insert": "4"}
    s = server_interval(prev, cur, 2.0, {"Query: Sending data": 2})
    assert s.rates["Questions"] == 1000.0  # (3002 - 1000 - 2 own) / 2 s
    assert "Com_select" not in s.rates and "Com_show_status" not in s.rates and "Com_insert" not in s.rates
    assert s.rates["Innodb_buffer_pool_reads"] == 0.0
    assert s.gauges["Threads_running"] == 4 and s.states == {"Query: Sending data": 2}
    restarted = server_interval(cur, {**prev, "Uptime": "3"}, 1.0)
    assert restarted.restarted and restarted.rates == {}


def test_host_interval_from_recorded_samples():
    def sample(i: int, mono: float) -> dict:
        return {"mono": mono, "files": {"/proc/stat": read(f"stat.{i}"), "/proc/diskstats": read(f"diskstats.{i}"),
                                        "/proc/net/dev": read(f"net-dev.{i}"), "/proc/6141/stat": read(f"mysqld-stat.{i}")},
                "command": [read(f"sysbench-stat.{i}")]}
    setup = HostSetup(role="server+client", source="local", clk_tck=100, mysqld_pid=6141, allowed_cpus=[0, 1],
                      cpus_available=2.0, datadir_devices=["vda"], nics=[NicSetup(interface="lo", side="client", loopback=True)])
    h = host_interval(sample(0, 10.0), sample(1, 11.0), setup)
    assert h is not None
    assert h.cpu.cpus == 2 and set(h.per_cpu) == {"0", "1"} and 0 < h.cpu.busy <= 1
    assert h.mysqld is not None and h.mysqld.name == "mariadbd" and h.mysqld.cores > 0
    assert h.command is not None and h.command.name == "sysbench" and h.command.cores > 0
    assert [d.device for d in h.disks] == ["vda"] and [n.interface for n in h.nics] == ["lo"]
    assert h.context_switches_per_s is not None and h.context_switches_per_s > 0


def test_schedstat_run_queue_wait():
    from advisor.watch.counters import run_wait
    from advisor.watch.procfs import parse_schedstat

    assert parse_schedstat("123456 7890 12\n") == 7890 and parse_schedstat("") is None
    prev = {"10": {"10": "1000 2000000000 5\n", "11": "0 500000000 1\n"}, "20": {"20": "0 0 0\n"}}
    cur = {"10": {"10": "1000 2500000000 9\n", "11": "0 700000000 2\n", "12": "0 900000000 1\n"},
           "20": {"20": "0 300000000 3\n"}}
    # threads in both samples: 0.5 s + 0.2 s (mysqld), 0.3 s (the command) over 2 s; thread 12 is new
    assert run_wait(prev, cur, [10], 2.0) == 0.35
    assert run_wait(prev, cur, [10, 20], 2.0) == 0.5
    assert run_wait(None, cur, [10], 2.0) is None


def test_the_sampler_reads_every_threads_schedstat():
    import os

    from advisor.watch.sampler import _task_schedstat

    mine = _task_schedstat(os.getpid())
    assert str(os.getpid()) in mine and len(mine[str(os.getpid())].split()) == 3
