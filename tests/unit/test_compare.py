"""advisor.compare, the pure core: snapshots built from recorded variable sets (tests/fixtures/flavors)
with host facts read by the real readers from recorded /proc+/sys trees (api.collect_machine with
--sysroot), and a real calibrated snapshot (tests/fixtures/calibration); then the judge and the
renderers. The end-to-end acceptance over the wire and the CLI is tests/integration/test_compare_cli.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor import api
from advisor.compare.judge import about_aspects, compare
from advisor.compare.measured import MEASURES, differs, quantile
from advisor.compare.run import check_about, classify, compare_snapshots
from advisor.errors import UsageError
from advisor.knowledge import default_catalogue
from advisor.render import compare as render
from advisor.snapshot import Distribution, Missing, ServerFacts, Snapshot, Target, load_snapshot
from tests.support.wire_server import load_set

ROOT = Path(__file__).resolve().parents[2]
HOSTS = ROOT / "tests" / "fixtures" / "hosts"
CALIBRATED = ROOT / "tests" / "fixtures" / "calibration" / "mariadb-10.11-tls-calibrated.snapshot.json"


def snapshot(set_name: str, flavor: str, version: str, host: str = "10.0.3.10", tree: str | None = None,
             **variables: str) -> Snapshot:
    s = load_set(set_name)
    v = {k: str(x) for k, x in s["variables"].items()}
    v.update(variables)
    snap = Snapshot(advisor_version="test", collected_at="2026-12-01T00:00:00Z",
                    target=Target(host=host, port=3306, flavor=flavor, version=version, version_string=v["version"]),
                    server=ServerFacts(variables=v, status={k: str(x) for k, x in s["status"].items()}))
    if tree:
        api.collect_machine(snap, host, "tcp", sysroot=str(HOSTS / tree))
    return snap


def by_id(c) -> dict:
    return {d.id: d for d in c.differences}


def test_identical_snapshots_have_no_difference():
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36", tree="seed-003-pm983")
    b = snapshot("mysql-8.0.36", "mysql", "8.0.36", tree="seed-003-pm983")
    c = compare_snapshots([a, b], ["a", "b"])
    assert c.differences == [] and c.verdict == "nothing_to_worry_about" and c.notes == []
    assert c.headline.startswith("nothing to worry about")
    # neither side was calibrated, and neither snapshot holds the data size (a recorded variable set)
    assert [n.fact for n in c.not_compared] == ["calibration", "derived.buffer_pool_fit"]


def test_same_variables_on_two_hosts_rank_the_storage_first():
    a = snapshot("percona-8.0", "percona", "8.0.32", tree="seed-003-pm981", datadir="/var/lib/mysql/")
    b = snapshot("percona-8.0", "percona", "8.0.32", host="10.0.3.11", tree="seed-003-pm983", datadir="/var/lib/mysql/")
    c = compare_snapshots([a, b], ["pm981", "pm983"])
    assert [d.id for d in c.differences[:3]] == ["host.datadir.device_class", "host.datadir.write_cache",
                                                 "derived.datadir_models"]
    assert all(d.verdict == "confounding" for d in c.differences)
    assert c.by_verdict("confounding")[0].values[1].startswith("nvme_plp")
    storage = compare_snapshots([a, b], ["pm981", "pm983"], ["storage"])
    assert by_id(storage)["host.datadir.device_class"].verdict == "expected"
    assert by_id(storage)["host.datadir.device_class"].fix == ""
    host = compare_snapshots([a, b], ["pm981", "pm983"], ["host"])
    assert host.verdict == "fair" and host.summary.confounding == 0 and host.notes == []
    version = compare_snapshots([a, b], ["pm981", "pm983"], ["version"])
    assert version.notes == ["--about version: nothing about the version differs between the sides, so this "
                             "comparison cannot show its effect"]
    assert "note: --about version" in render.render_text(version)


def test_differing_defaults_come_with_the_version():
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36")
    b = snapshot("mysql-8.4", "mysql", "8.4.3")
    c = compare_snapshots([a, b], ["8.0", "8.4"], ["version"])
    d = by_id(c)["var.innodb_io_capacity"]
    assert (d.kind, d.verdict, d.values, d.defaults) == ("default_differs", "expected", ["200", "10000"],
                                                         ["200", "10000"])
    assert d.reason.startswith("default changed in 8.4: ") and "mysql 8.0.36 and mysql 8.4.3" in d.reason
    # a version comparison whatever --about says: the version line is confounding, the defaults it moved are not
    c = compare_snapshots([a, b], ["8.0", "8.4"])
    d = by_id(c)["var.innodb_io_capacity"]
    assert (d.verdict, d.fix) == ("expected", "") and d.reason.startswith("default changed in 8.4: ")
    assert by_id(c)["target.version"].verdict == "confounding"


def test_a_setting_changed_on_one_side_is_confounding_with_the_baselines_value():
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36")
    b = snapshot("mysql-8.0.36", "mysql", "8.0.36", innodb_flush_log_at_trx_commit="2", sync_binlog="0",
                 hostname="db2", server_uuid="2c7f0000-0000-0000-0000-000000000002")
    c = compare_snapshots([a, b], ["a", "b"], ["version"])
    first, second = c.differences[:2]
    assert (first.id, first.group, first.verdict) == ("var.innodb_flush_log_at_trx_commit", "durability", "confounding")
    assert first.fix == ("set innodb_flush_log_at_trx_commit = 1 on B as on A (the baseline; SET GLOBAL works), "
                         "or one chosen value on every side")
    assert "A at its default, B set away from its default" in first.reason
    assert second.id == "var.sync_binlog"
    ids = by_id(c)
    assert ids["var.hostname"].verdict == "harmless" and "names the server" in ids["var.hostname"].reason
    assert ids["var.server_uuid"].verdict == "harmless"
    durability = compare_snapshots([a, b], ["a", "b"], ["durability"])
    assert by_id(durability)["var.innodb_flush_log_at_trx_commit"].verdict == "expected"
    config = compare_snapshots([a, b], ["a", "b"], ["config"])
    assert by_id(config)["var.hostname"].verdict == "harmless"  # a name, whatever the comparison is about


def test_missing_host_facts_are_not_compared_not_guessed():
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36", tree="seed-003-pm983")
    b = snapshot("mysql-8.0.36", "mysql", "8.0.36")  # no host facts, no client path
    b.missing.append(Missing(fact="host", reason="the server is not on this machine"))
    c = compare_snapshots([a, b], ["a", "b"])
    nc = {n.fact: n for n in c.not_compared}
    assert nc["host"].sides == ["B"] and "not on this machine" in nc["host"].reason
    assert not [d for d in c.differences if d.id.startswith(("host.", "derived.datadir"))]


def _calibrated(scale_fsync: float = 1.0, scale_rtt: float = 1.0) -> Snapshot:
    snap = load_snapshot(CALIBRATED.read_text(encoding="utf-8"))
    for name, scale in (("fsync_ms", scale_fsync), ("rtt_ms", scale_rtt)):
        d = getattr(snap.calibration, name)
        bins = [b.model_copy(update={"lo": b.lo * scale, "hi": b.hi * scale}) for b in d.histogram.bins]
        setattr(snap.calibration, name, d.model_copy(update={
            "p50": d.p50 * scale, "p99": d.p99 * scale, "min": d.min * scale, "max": d.max * scale,
            "histogram": d.histogram.model_copy(update={"bins": bins})}))
    return snap


def test_calibration_figures_count_only_beyond_their_spread():
    base = _calibrated()
    slow = _calibrated(scale_fsync=20.0)          # a client-grade drive against a fast one
    slow.server.variables["datadir"] = "/srv/other/data/"  # on another server
    c = compare_snapshots([base, slow], ["a", "b"])
    d = by_id(c)["calibration.fsync_ms"]
    assert (d.kind, d.verdict) == ("measured", "confounding")
    assert d.values[0].startswith("p50 4.11 ms, middle half") and "98 samples" in d.values[0]
    near = compare_snapshots([base, _calibrated(scale_fsync=1.1, scale_rtt=1.1)], ["a", "b"])
    assert by_id(near)["calibration.fsync_ms"].verdict == "harmless"  # within the measured spread
    assert by_id(near)["calibration.rtt_ms"].verdict == "harmless"
    about = compare_snapshots([base, _calibrated(scale_fsync=1.1)], ["a", "b"], ["storage"])
    assert by_id(about)["calibration.fsync_ms"].verdict == "harmless"  # noise, whatever --about says
    assert by_id(compare_snapshots([base, slow], ["a", "b"], ["storage"]))["calibration.fsync_ms"].verdict == "expected"


def test_quantiles_and_differs_on_distributions():
    d = load_snapshot(CALIBRATED.read_text(encoding="utf-8")).calibration.rtt_ms
    q25, q75 = quantile(d, 0.25), quantile(d, 0.75)
    assert d.min <= q25 <= d.p50 <= q75 <= d.p99
    assert quantile(Distribution(p50=1.0, samples=1), 0.5) is None
    rtt = next(m for m in MEASURES if m.id == "calibration.rtt_ms")
    assert differs(rtt, [Distribution(p50=1.0), Distribution(p50=None)]) is None
    assert differs(rtt, [Distribution(p50=1.0), Distribution(p50=3.0)]) is True   # no histogram: p50 only
    assert differs(rtt, [Distribution(p50=1.0), Distribution(p50=1.1)]) is False


def test_three_sides_and_the_labels():
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36")
    b = snapshot("mysql-8.0.36", "mysql", "8.0.36", innodb_buffer_pool_size=str(1 << 30))
    c3 = snapshot("mariadb-10.11", "mariadb", "10.11.19")
    c = compare([a, b, c3], ["a", "b", "c"], ["flavor"], default_catalogue())
    assert [s.label for s in c.sides] == ["A", "B", "C"]
    d = by_id(c)["var.innodb_buffer_pool_size"]
    assert d.verdict == "confounding" and len(d.values) == 3
    assert by_id(c)["target.flavor"].verdict == "expected"
    only = by_id(c)["server.variables.only_on_some"]
    assert only.verdict == "expected" and only.values[2].split(":")[0].isdigit()


def test_about_words_and_inputs():
    assert check_about(["version,config", "version"]) == ["version", "config"]
    assert "storage" in about_aspects(["host"]) and "durability" in about_aspects(["config"])
    with pytest.raises(UsageError, match="--about weather"):
        check_about(["weather"])
    assert classify("mysql://bench@db1:3307").live.port == 3307
    assert classify("db1:3306").live.host == "db1"
    with pytest.raises(UsageError, match="is not a file"):
        classify("no-such-file.json")
    with pytest.raises(UsageError, match="two snapshots or more"):
        compare_snapshots([snapshot("mysql-8.0.36", "mysql", "8.0.36")], ["a"])


def test_renderers_say_the_same_thing():
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36", tree="seed-003-pm983")
    b = snapshot("mysql-8.0.36", "mysql", "8.0.36", tree="seed-003-pm981", innodb_flush_log_at_trx_commit="2")
    c = compare_snapshots([a, b], ["pm983.json", "pm981.json"], ["version"])
    text = render.render_text(c)
    assert text.startswith("advisor compare — 2 servers — about: version")
    assert "NOT A FAIR COMPARISON" in text and "  1. datadir device class" in text
    assert "A: 1 (default 1)" in text and "B: 2 (default 1)" in text
    assert "None" not in text and "{" not in text
    md = render.render_markdown(c)
    assert "| # | Group | Difference | A | B | Why | Fix |" in md and "## Confounding" in md
    html = render.render_html(c)
    assert html.startswith("<!DOCTYPE html>") and 'class="v-confounding"' in html and "<script" not in html
    assert load_json(render.render_json(c))["differences"][0]["rank"] == 1


def load_json(text: str) -> dict:
    import json

    return json.loads(text)


def test_buffer_pool_against_the_data_and_sizes_in_their_unit():
    from advisor.snapshot import EngineSize

    a = snapshot("mysql-8.0.36", "mysql", "8.0.36", innodb_buffer_pool_size=str(4 << 30))
    b = snapshot("mysql-8.0.36", "mysql", "8.0.36", innodb_buffer_pool_size=str(256 << 20))
    for s in (a, b):  # the same 1 GiB sysbench dataset on both
        s.server.data_size = {"InnoDB": EngineSize(tables=8, data_bytes=800 << 20, index_bytes=224 << 20)}
    c = compare_snapshots([a, b], ["a", "b"])
    ids = by_id(c)
    fit = ids["derived.buffer_pool_fit"]
    assert fit.verdict == "confounding" and fit.values == [
        "1 GiB of InnoDB data fits in a 4 GiB buffer pool", "1 GiB of InnoDB data does not fit in a 256 MiB buffer pool"]
    assert [d.id for d in c.differences[:2]] == ["derived.buffer_pool_fit", "var.innodb_buffer_pool_size"]
    assert ids["var.innodb_buffer_pool_size"].values == ["4 GiB (4,294,967,296)", "256 MiB (268,435,456)"]
    assert ids["var.innodb_buffer_pool_size"].fix.startswith("set innodb_buffer_pool_size = 4G on B as on A")
    assert "derived.innodb_data_bytes" not in ids and "server.data_size.InnoDB.tables" not in ids  # the same dataset
    b.server.data_size = {"InnoDB": EngineSize(tables=16, data_bytes=1600 << 20, index_bytes=448 << 20)}
    ids = by_id(compare_snapshots([a, b], ["a", "b"]))
    assert ids["server.data_size.InnoDB.tables"].values == ["8", "16"]
    assert ids["derived.innodb_data_bytes"].verdict == "confounding"
    assert by_id(compare_snapshots([a, b], ["a", "b"], ["data"]))["derived.innodb_data_bytes"].verdict == "expected"
    text = render.render_text(c)
    assert "HARMLESS" not in text or "--verbose" in text


def test_the_clients_route_and_link_speed():
    """The seed-000 client: the same server reached over em3 (1000 Mb/s) or over vlan2 (10000 Mb/s)."""
    slow = snapshot("mysql-5.7", "mysql", "5.7.44", host="10.186.60.104", tree="seed-000-client")
    fast = snapshot("mysql-5.7", "mysql", "5.7.44", host="172.16.20.104", tree="seed-000-client")
    c = compare_snapshots([slow, fast], ["em3", "vlan2"])
    d = by_id(c)["derived.route_speed_mbps"]
    assert (d.verdict, d.values) == ("confounding", ["1,000 Mb/s", "10,000 Mb/s"])
    assert "118 MB/s" in d.reason
    assert by_id(compare_snapshots([slow, fast], ["em3", "vlan2"], ["network"]))["derived.route_speed_mbps"].verdict \
        == "expected"


def test_tls_on_one_side_only():
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36")
    b = snapshot("mysql-8.0.36", "mysql", "8.0.36")
    for s in (a, b):  # the recorded server had TLS sessions; here only the advisor's own connection counts
        s.server.status["Ssl_accepts"] = "0"
    b.server.connection.tls_version = "TLSv1.3"
    d = by_id(compare_snapshots([a, b], ["plain", "tls"]))["derived.tls"]
    assert d.verdict == "confounding" and d.values == ["off", "on (TLSv1.3)"]
    assert "--mysql-ssl" in d.fix and d.group == "tls"


def test_a_default_sized_from_the_host_belongs_to_the_host():
    """Percona Server's thread_pool_size defaults to the CPU count (12 on the PM981 host, 48 on the PM983 one)."""
    a = snapshot("percona-8.0", "percona", "8.0.32", tree="seed-003-pm981", thread_pool_size="12")
    b = snapshot("percona-8.0", "percona", "8.0.32", host="10.0.3.11", tree="seed-003-pm983", thread_pool_size="48")
    d = by_id(compare_snapshots([a, b], ["a", "b"]))["var.thread_pool_size"]
    assert (d.kind, d.aspects, d.defaults, d.raw) == ("default_differs", ["host"], ["12", "48"], ["12", "48"])
    assert "from the host's CPUs or memory" in d.reason and d.verdict == "confounding"
    assert by_id(compare_snapshots([a, b], ["a", "b"], ["host"]))["var.thread_pool_size"].verdict == "expected"


GOLDEN = ROOT / "tests" / "golden" / "compare"
SEED_GLOBALS = {"tidb_hashagg_final_concurrency": "1", "tidb_hashagg_partial_concurrency": "1",
                "tidb_enable_async_commit": "ON", "tidb_enable_1pc": "ON", "tidb_guarantee_linearizability": "OFF",
                "tidb_enable_clustered_index": "ON"}


def test_the_seed_cases_read_as_reviewed(golden):
    """The two seed comparisons as the text and Markdown reports print them (reviewed goldens)."""
    a = snapshot("percona-8.0", "percona", "8.0.32", tree="seed-003-pm981", datadir="/var/lib/mysql/")
    b = snapshot("percona-8.0", "percona", "8.0.32", host="10.0.3.11", tree="seed-003-pm983", datadir="/var/lib/mysql/")
    c = compare_snapshots([a, b], ["pm981.json", "pm983.json"])
    golden.check(GOLDEN / "seed-003-pm981-vs-pm983.txt", render.render_text(c, verbose=True))
    golden.check(GOLDEN / "seed-003-pm981-vs-pm983.md", render.render_markdown(c))
    t51 = snapshot("tidb-5.1", "tidb", "5.1.4", host="tidb-a", **SEED_GLOBALS)
    t52 = snapshot("tidb-5.2", "tidb", "5.2.0", host="tidb-b", **SEED_GLOBALS)
    c = compare_snapshots([t51, t52], ["tidb-5.1.4.json", "tidb-5.2.0.json"], ["version"])
    golden.check(GOLDEN / "tidb-5.1-vs-5.2-about-version.txt", render.render_text(c, verbose=True))
    golden.stale(GOLDEN.glob("*"), [GOLDEN / n for n in ("seed-003-pm981-vs-pm983.txt", "seed-003-pm981-vs-pm983.md",
                                                        "tidb-5.1-vs-5.2-about-version.txt")])


def test_every_kind_of_difference_validates_against_the_committed_schema():
    import json

    import jsonschema

    schema = json.loads((ROOT / "docs" / "schemas" / "compare.schema.json").read_text(encoding="utf-8"))
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36", tree="seed-003-pm983")
    b = snapshot("mysql-8.4", "mysql", "8.4.3", tree="seed-003-pm981", innodb_flush_log_at_trx_commit="2")
    docs = [compare_snapshots([a, b], ["a", "b"], ["version"]),
            compare_snapshots([_calibrated(), _calibrated(scale_fsync=20.0)], ["a", "b"], ["storage"])]
    kinds = {d.kind for c in docs for d in c.differences}
    assert kinds == {"differs", "default_differs", "only_on_some", "measured"} and docs[1].figures
    for c in docs:
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.loads(render.render_json(c))))
        assert not errors, [e.message for e in errors[:3]]


def test_the_doc_page_names_every_group_and_about_word():
    from advisor.compare.model import ABOUT, GROUPS

    doc = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    missing = [g for g in GROUPS.values() if f"| {g} |" not in doc] + [f"`{a}`" for a in ABOUT if f"`{a}`" not in doc]
    assert missing == [], missing


def test_a_url_password_is_used_and_never_shown():
    from advisor.compare.run import classify, mask_url
    inp = classify("mysql://app:PW%40Sec-9@db1:3307")
    assert inp.text == "mysql://app:…@db1:3307" and inp.live.password == "PW@Sec-9" and inp.live.user == "app"
    assert "PW" not in repr(inp)
    assert mask_url("mysql://root@db1") == "mysql://root@db1"
    with pytest.raises(UsageError) as e:
        classify("mysql://app:PW-Sec-9@no such host")
    assert "PW-Sec-9" not in str(e.value)


def test_tls_is_judged_from_each_snapshots_own_connection():
    """Issue 25 §2.6: one server read with --ssl-mode=DISABLED and with REQUIRED differs in TLS; two
    servers where neither connection used TLS do not, whatever have_ssl and the counters say."""
    plain = snapshot("mysql-8.0.36", "mysql", "8.0.36")
    tls = snapshot("mysql-8.0.36", "mysql", "8.0.36")
    plain.server.connection.ssl_mode = "DISABLED"
    tls.server.connection.ssl_mode, tls.server.connection.tls_version = "REQUIRED", "TLSv1.3"
    c = compare_snapshots([plain, tls], ["disabled", "required"])
    d = by_id(c)["derived.tls"]
    assert (d.verdict, d.title, d.values) == ("confounding", "TLS on the connection", ["off", "on (TLSv1.3)"])
    assert c.verdict == "confounded" and "the same server on both sides (server_uuid " in c.headline
    # two servers, one offering TLS, the recorded set's counters full of TLS sessions: neither connection used it
    a = snapshot("mysql-8.0.36", "mysql", "8.0.36", server_uuid="2c7f0000-0000-0000-0000-00000000000a")
    b = snapshot("mysql-8.0.36", "mysql", "8.0.36", have_ssl="DISABLED",
                 server_uuid="2c7f0000-0000-0000-0000-00000000000b")
    assert int(a.server.status["Ssl_accepts"]) > 0
    c = compare_snapshots([a, b], ["a", "b"])
    assert "derived.tls" not in by_id(c)
    assert by_id(c)["var.have_ssl"].verdict == "harmless" and "no side's client connection used TLS" in \
        by_id(c)["var.have_ssl"].reason
    assert c.verdict == "nothing_to_worry_about" and "same server" not in c.headline


def test_the_same_server_is_recognised_and_its_figures_are_within_noise():
    """Issue 25 §2.7: one MariaDB (no server_uuid: hostname, port and datadir) calibrated twice on a busy
    host: the stream rate 25 % apart and the TLS ratio 0.37× against 0.84× are one figure per run, the
    measuring machine's noise; round trips and flushes within their spread are within noise too."""
    a, b = _calibrated(), _calibrated(scale_fsync=1.1, scale_rtt=1.1)
    b.calibration.stream.mbytes_per_s = a.calibration.stream.mbytes_per_s * 0.74
    a.calibration.tls.query_ratio, b.calibration.tls.query_ratio = 0.37, 0.84
    c = compare_snapshots([a, b], ["a", "b"])
    assert c.verdict == "nothing_to_worry_about", [(d.id, d.verdict) for d in c.differences]
    v = a.server.variables
    assert c.headline.endswith(f"the same server on both sides (hostname vm, port {v['port']}, datadir {v['datadir']}).")
    stream = by_id(c)["calibration.stream.mbytes_per_s"]
    assert stream.verdict == "harmless" and stream.reason.startswith("within noise: the same server on every side")
    assert "A: 73.3 MB/s; B: 54.2 MB/s" in stream.reason
    assert "A: 0.37×; B: 0.84×" in by_id(c)["calibration.tls.query_ratio"].reason
    rtt = by_id(c)["calibration.rtt_ms"]
    assert rtt.verdict == "harmless" and rtt.reason.startswith("within noise: the middle halves")
    assert "A: p50" in rtt.reason
    # beyond both distributions' spread on one server: the device is the same, the load was not
    slow = _calibrated(scale_fsync=20.0)
    d = by_id(compare_snapshots([a, slow], ["a", "b"]))["calibration.fsync_ms"]
    assert d.verdict == "harmless" and "cannot differ from itself" in d.reason and "busier" in d.reason, d.reason
    assert "A: p50 4.11 ms" in d.reason
    # two servers (another datadir): the single figures keep their tolerance and count
    other = _calibrated()
    other.server.variables["datadir"] = "/srv/other/data/"
    other.calibration.stream.mbytes_per_s = a.calibration.stream.mbytes_per_s * 0.74
    c = compare_snapshots([a, other], ["a", "b"])
    assert "same server" not in c.headline
    assert by_id(c)["calibration.stream.mbytes_per_s"].verdict == "confounding"


def test_mysql_57_against_80_marks_the_moved_defaults_expected():
    """Issue 25 §2.8 with the recorded sets: defaults that moved between MySQL 5.7 and 8.0 come with the
    version ('default changed in 8.0'), and read-only or identity variables get no fix."""
    a = snapshot("mysql-5.7", "mysql", "5.7.44")
    b = snapshot("mysql-8.0.28", "mysql", "8.0.28")
    c = compare_snapshots([a, b], ["5.7", "8.0"])
    ids = by_id(c)
    for name in ("back_log", "max_allowed_packet", "table_open_cache", "innodb_autoinc_lock_mode", "log_bin",
                 "default_authentication_plugin"):
        d = ids[f"var.{name}"]
        assert (d.kind, d.verdict, d.fix) == ("default_differs", "expected", ""), name
        assert d.reason.startswith(("default changed in 8.0: ", "default changed in 8.0.4: ")), (name, d.reason)
    for name in ("have_query_cache", "character_set_system"):
        d = ids[f"var.{name}"]
        assert (d.verdict, d.fix) == ("expected", "") and "read-only" in d.reason, name
    for name in ("server_uuid", "plugin_dir", "log_error", "server_id"):
        assert (ids[f"var.{name}"].verdict, ids[f"var.{name}"].fix) == ("harmless", ""), name
    assert not [d for d in c.differences if d.fix and d.id.removeprefix("var.").startswith(("have_", "version",
                                                                                           "build_id"))]
    assert ids["target.version"].verdict == "confounding"
    about = compare_snapshots([a, b], ["5.7", "8.0"], ["version"])
    assert by_id(about)["var.back_log"].verdict == "expected"


def test_a_distribution_with_too_few_samples_is_not_judged():
    """A calibration squeezed by a busy machine took 4 flush samples: no spread to compare, so not confounding."""
    base = _calibrated()
    few = _calibrated(scale_fsync=20.0)
    few.server.variables["datadir"] = "/srv/other/data/"  # another server: the same-server rule does not apply
    few.calibration.fsync_ms = few.calibration.fsync_ms.model_copy(update={"samples": 4})
    d = by_id(compare_snapshots([base, few], ["a", "b"]))["calibration.fsync_ms"]
    assert d.verdict == "harmless" and "fewer than 10 samples" in d.reason and "--calibrate-seconds" in d.reason
