"""The pure half of calibration: statistics, SQL text, sizing, locality, flush classes, verdicts."""

from __future__ import annotations

import pytest

from advisor.collect import calibrate_stats as cs
from advisor.rules import calibration as cv
from advisor.snapshot import Calibration, Distribution, SortProbe, StreamProbe, TlsProbe, OnOff


# ---------------------------------------------------------------- statistics

def test_percentile_interpolates_between_ranks():
    vals = [float(i) for i in range(1, 101)]  # 1..100
    assert cs.percentile(vals, 50) == pytest.approx(50.5)
    assert cs.percentile(vals, 99) == pytest.approx(99.01)
    assert cs.percentile(vals, 0) == 1.0 and cs.percentile(vals, 100) == 100.0
    assert cs.percentile([], 50) is None
    assert cs.percentile([3.0], 99) == 3.0


def test_distribution_fields_and_sample_count():
    d = cs.distribution([0.2, 0.1, 0.4, 0.3])
    hist = d.pop("histogram")
    assert d == {"p50": 0.25, "p99": pytest.approx(0.397), "p25": 0.175, "p75": 0.325, "samples": 4, "min": 0.1,
                 "max": 0.4, "mean": 0.25}
    # one sample per 20-per-decade bucket: [0.1, 0.1122), [0.1995, 0.2239), [0.2818, 0.3162), [0.3981, 0.4467)
    assert [(b["lo"], b["hi"], b["count"]) for b in hist["bins"]] == [
        (0.1, 0.1122, 1), (0.1995, 0.2239, 1), (0.2818, 0.3162, 1), (0.3981, 0.4467, 1)]
    d["histogram"] = hist
    Distribution(**d)  # fits the snapshot model
    assert cs.distribution([])["samples"] == 0 and cs.distribution([])["p50"] is None


# ---------------------------------------------------------------- network arithmetic

def test_payload_ceiling_matches_knowledge_section_6():
    # 125,000,000 B/s x 1460/1538 = 118.66 MB/s for 1 Gb/s; 11.87 MB/s for 100 Mb/s
    assert cs.payload_ceiling_mbytes_per_s(1000) == pytest.approx(118.66, abs=0.01)
    assert cs.payload_ceiling_mbytes_per_s(100) == pytest.approx(11.866, abs=0.001)
    assert cs.payload_ceiling_bytes_per_s(10000) == pytest.approx(1_186_606_000, rel=1e-5)


def test_cpu_bound_threshold():
    assert cs.cpu_bound(0.9, 1.0) == (0.9, True)
    assert cs.cpu_bound(0.2, 1.0) == (0.2, False)
    assert cs.cpu_bound(1.0, 0.0) == (None, None)


# ---------------------------------------------------------------- generators and SQL

@pytest.mark.parametrize("flavor,version,first", [
    ("mariadb", "10.11.19", "sequence"), ("mariadb", "10.1.48", "sequence"),
    ("mysql", "8.0.36", "recursive_cte"), ("percona", "8.4.3", "recursive_cte"),
    ("mysql", "5.7.44", "derived_digits"), ("tidb", "7.5.1", "recursive_cte"), ("tidb", "5.0.6", "derived_digits"),
])
def test_generator_chain_per_flavor_ends_with_the_universal_one(flavor, version, first):
    chain = cs.generator_chain(flavor, version)
    assert chain[0] == first
    assert chain[-1] == "derived_digits"


def test_mariadb_before_10_2_2_has_no_cte_fallback():
    assert cs.generator_chain("mariadb", "10.1.48") == ["sequence", "derived_digits"]
    assert "recursive_cte" in cs.generator_chain("mariadb", "10.2.2")


def test_stream_sql_per_generator():
    seq = cs.stream_sql(cs.source_for("sequence", 300), 300)
    assert seq == "SELECT REPEAT(CHAR(65 + seq % 26), 16384) FROM mysql.seq_1_to_300"
    cte = cs.stream_sql(cs.source_for("recursive_cte", 5000), 5000)
    assert cte.startswith("WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 999) SELECT ")
    assert cte.endswith("FROM d a CROSS JOIN d b LIMIT 5000")
    dig = cs.stream_sql(cs.source_for("derived_digits", 5000), 5000)
    assert dig.count("UNION ALL SELECT 15") == 4  # 16^4 = 65,536 >= 5,000 rows
    assert dig.endswith("LIMIT 5000") and "4096 * d.n" in dig


def test_digits_source_grows_with_rows():
    assert cs.digits_source(16).from_sql.count("CROSS JOIN") == 0
    assert cs.digits_source(17).from_sql.count("CROSS JOIN") == 1
    assert cs.digits_source(10 ** 6).from_sql.count("CROSS JOIN") == 4  # 16^5


def test_generate_and_sort_sql_are_single_row_reads():
    src = cs.source_for("sequence", cs.SORT_ROWS)
    g = cs.generate_sql(src, 100)
    assert g.startswith("SELECT SUM(LENGTH(g.x)) FROM (SELECT REPEAT(") and g.endswith(") g")
    s = cs.sort_sql(src)
    assert s.startswith("SELECT COUNT(*), SUM(t.k) FROM (SELECT (seq * 7919) % 1000003 AS k")
    assert "ORDER BY k LIMIT 100000) t" in s
    cte = cs.sort_sql(cs.source_for("recursive_cte", 1000), 1000)
    assert cte.startswith("WITH RECURSIVE") and "ORDER BY k LIMIT 1000) t" in cte


def test_unknown_generator_is_an_error():
    with pytest.raises(ValueError):
        cs.source_for("bogus", 1)


# ---------------------------------------------------------------- budget and chunks

def test_probe_share_passes_unused_time_on():
    assert cs.probe_share(10.0, 3.0, [1, 3, 2, 3, 1]) == pytest.approx(3.0)
    assert cs.probe_share(10.0, 1.0, [1.0]) == pytest.approx(10.0)  # the last probe gets all that is left
    assert cs.probe_share(-1.0, 1.0, [1.0]) == 0.0


def test_chunk_rows_ramp_at_most_4x_until_a_chunk_is_long_enough():
    # 8 rows in 1 ms (a burst into socket buffers): no rate trusted, grow 4x
    assert cs.next_chunk_rows(8, 0.001, 8 * cs.ROW_BYTES, 5.0) == 32
    # 128 rows (2 MiB) in 0.175 s at 12 MB/s: aim 0.4 s -> 292 rows, within 4x
    n = cs.next_chunk_rows(128, 0.175, 128 * cs.ROW_BYTES, 5.0)
    assert 280 <= n <= 300
    # fast path: the rate asks for far more, the 4x cap holds
    assert cs.next_chunk_rows(100, 0.06, 100 * cs.ROW_BYTES * 100, 5.0) == 400
    # little time left: aim at what is left; nothing left: stop
    assert cs.next_chunk_rows(300, 0.4, 300 * cs.ROW_BYTES, 0.2) == 150
    assert cs.next_chunk_rows(300, 0.4, 300 * cs.ROW_BYTES, 0.01) == 0
    assert cs.next_chunk_rows(10, 0.001, 1, 5.0, limit=16) == 16


def test_stream_rate_leaves_out_warm_up_and_bursts():
    chunks = [(131072, 0.001, 0.0), (524288, 0.02, 0.0), (4_800_000, 0.4, 0.004), (4_800_000, 0.4, 0.004)]
    rate, used, b, s = cs.stream_rate(chunks)
    assert used == 2 and b == 9_600_000 and s == pytest.approx(0.8)
    assert rate == pytest.approx(12_000_000)
    rate, used, _, _ = cs.stream_rate([(1000, 0.01, 0.0)])  # nothing long: use what exists
    assert used == 1 and rate == pytest.approx(100_000)
    assert cs.stream_rate([]) == (None, 0, 0, 0.0)


# ---------------------------------------------------------------- locality and flush classes

def _facts(**kw):
    base = dict(datadir="/var/lib/mysql/", datadir_exists=True, server_hostname="db1", local_hostname="db1",
                pid=1234, pid_comm="mariadbd", pid_cwd="/var/lib/mysql", datadir_real="/var/lib/mysql")
    base.update(kw)
    return cs.LocalityFacts(**base)


def test_locality_needs_every_confirmation():
    assert cs.decide_locality(_facts()) == (True, "mariadbd (pid 1234) runs here with its datadir /var/lib/mysql")
    cases = {
        "no datadir": _facts(datadir=None),
        "does not exist": _facts(datadir_exists=False),
        "hostname": _facts(server_hostname="db2"),
        "pid file is not readable": _facts(pid=None),
        "no process 1234": _facts(pid_comm=None),
        "not mysqld or mariadbd": _facts(pid_comm="python3"),
        "cannot read the working directory": _facts(pid_cwd=None, pid_cwd_error="Permission denied"),
        "works in /srv/other": _facts(pid_cwd="/srv/other"),
    }
    for words, facts in cases.items():
        local, why = cs.decide_locality(facts)
        assert local is False and words in why, (words, why)


# /proc/self/mountinfo lines recorded on this project's CI machine (Firecracker VM, kernel 6.18.44,
# Debian 12), 2026-11-30, plus one line with an escaped space as proc(5) documents.
MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334432k,nr_inodes=3083608,mode=755
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683656k
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
90 27 8:17 / /srv/my\\040data rw,noatime - xfs /dev/sdb1 rw,attr2,inode64
"""


def test_mount_fstype_longest_prefix():
    assert cs.mount_fstype(MOUNTINFO, "/var/lib/mysql") == "ext4"
    assert cs.mount_fstype(MOUNTINFO, "/dev/shm/x") == "tmpfs"
    assert cs.mount_fstype(MOUNTINFO, "/dev/shmx") == "devtmpfs"  # a prefix of the name is not a parent
    assert cs.mount_fstype(MOUNTINFO, "/srv/my data/mysql") == "xfs"
    assert cs.mount_fstype("", "/x") is None


@pytest.mark.parametrize("p50,fstype,cls", [
    (0.03, "ext4", "plp_like"), (0.15, "ext4", "plp_like"), (0.3, "xfs", "intermediate"), (0.9, "ext4", "client_nvme_like"),
    (8.0, "xfs", "slow"), (0.001, "tmpfs", "memory"), (None, "ext4", None),
])
def test_flush_class_bands(p50, fstype, cls):
    got, why = cs.flush_class(p50, fstype)
    assert got == cls and why


# ---------------------------------------------------------------- verdicts

def _stream(mb, cpu=0.1, server=None):
    return StreamProbe(mbytes_per_s=mb, client_cpu_fraction=cpu, client_cpu_bound=cpu >= cs.CPU_BOUND_FRACTION,
                       server_mbytes_per_s=server)


def test_stream_verdicts():
    assert cv.stream_verdict(_stream(113.0, server=600), "interface", 1000).code == "line_rate"
    assert cv.stream_verdict(_stream(11.9, server=580), "interface", 10000).code == "path_bottleneck"
    assert cv.stream_verdict(_stream(450, server=560), "interface", 10000).code == "server_bound"
    assert cv.stream_verdict(_stream(450, server=None), "interface", 10000).code == "below_line_rate"
    assert cv.stream_verdict(_stream(80, server=900), "interface", 1000).code == "below_line_rate"
    assert cv.stream_verdict(_stream(450), "loopback", None).code == "no_network"
    assert cv.stream_verdict(_stream(450), "socket", None).code == "no_network"
    assert cv.stream_verdict(_stream(40), None, None).code == "link_unknown"
    assert cv.stream_verdict(None, "interface", 1000).code == "not_measured"


@pytest.mark.parametrize("mb", [1.0, 11.9, 50.0, 113.0, 118.0, 400.0])
@pytest.mark.parametrize("link", [100, 1000, 10000, None])
def test_client_cpu_bound_never_gives_a_network_verdict(mb, link):
    v = cv.stream_verdict(_stream(mb, cpu=0.97, server=5000), "interface", link)
    assert v.code == "client_bound" and "97%" in v.why


def test_tls_verdicts():
    behind_link = TlsProbe(available=True, throughput_ratio=0.99, query_ms=OnOff(on=0.51, off=0.5),
                           handshake_ms=OnOff(on=2.0, off=1.0))
    assert cv.tls_verdict(behind_link).code == "negligible"
    loopback = TlsProbe(available=True, throughput_ratio=0.85, query_ms=OnOff(on=0.023, off=0.018))
    assert cv.tls_verdict(loopback).code == "measurable_cost"
    queries_only = TlsProbe(available=True, throughput_ratio=1.0, query_ms=OnOff(on=0.0336, off=0.0306))
    assert cv.tls_verdict(queries_only).code == "measurable_cost"  # +10 % per small query
    none = TlsProbe(available=False, reason="the server has no TLS certificates (have_ssl = DISABLED)")
    v = cv.tls_verdict(none)
    assert v.code == "unavailable" and "have_ssl" in v.why


def test_sort_and_flush_and_rtt_verdicts():
    assert cv.sort_verdict(SortProbe(ratio=1.34)).code == "server_value_slower"
    assert cv.sort_verdict(SortProbe(ratio=1.19)).code == "server_value_not_slower"
    assert cv.sort_verdict(SortProbe(ratio=0.7)).code == "server_value_not_slower"
    assert cv.sort_verdict(None).code == "not_measured"
    cal = Calibration(fsync_ms=Distribution(p50=0.9, p99=2.0, samples=100))
    assert cv.flush_verdict(cal).code == "client_nvme_like"
    assert cv.rtt_verdict(Distribution(p50=0.03, samples=10)).code == "near"
    assert cv.rtt_verdict(Distribution(p50=0.8, samples=10)).code == "lan"
    assert cv.rtt_verdict(Distribution(p50=25.0, samples=10)).code == "far"


def test_light_calibration_has_only_the_round_trip_verdict():
    cal = Calibration(mode="light", rtt_ms=Distribution(p50=0.05, p99=0.1, samples=200))
    assert list(cv.verdicts(cal, "loopback", None)) == ["rtt"]
    full = Calibration(mode="full", rtt_ms=Distribution(p50=0.05, p99=0.1, samples=200))
    assert list(cv.verdicts(full, "loopback", None)) == ["rtt", "stream", "tls", "sort", "flush"]
