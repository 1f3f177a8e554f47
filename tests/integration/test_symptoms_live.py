"""The symptoms rule family against real throwaway mariadbd servers: each entry with `live` in
src/advisor/knowledge/symptoms.toml is made to fire by a workload on a server started with small
variables (tmp_table_size=16K, table_open_cache=10, thread_cache_size=0, ...) so that the symptom shows
in seconds. Entries are grouped by the server they need (GROUPS below); the entries without a live test
say why in `not_live` and are audited on a recorded set instead (tests/unit/test_symptom_rules.py).

The assertions are outcomes (fired, with the counter in the message), never durations or rates of this
machine: the workloads make each counter pass its threshold by a wide margin (counts, not speed), and the
rate entries are judged over a sampled interval while a loop keeps producing their events."""

from __future__ import annotations

import contextlib
import os
import random
import socket
import threading
import time
from pathlib import Path

import pymysql
import pytest

from advisor.knowledge.symptoms import entries
from tests.support.cli import run_json

pytestmark = pytest.mark.requires_mariadbd

GROUPS: dict[str, set[str]] = {}
for _sid, _e in entries().items():
    if _e.live:
        GROUPS.setdefault(_e.live, set()).add(_sid)

QUERIES = {"tmp-table-size": "16K", "max-heap-table-size": "16K", "sort-buffer-size": "32K",
           "key-buffer-size": "64K", "query-cache-type": "1", "query-cache-size": "64K", "long-query-time": "0",
           "table-open-cache": "10", "innodb-open-files": "10", "log-bin": "binlog", "server-id": "1",
           "binlog-format": "ROW", "binlog-cache-size": "4096", "binlog-stmt-cache-size": "4096", "aria-pagecache-buffer-size": "128K",
           "innodb-flush-log-at-trx-commit": "0", "max-connections": "300"}
# slow_launch_time = 0 (its minimum): every thread the server creates took longer, so Slow_launch_threads
# counts them without a host slow enough to take a second
CONNECTIONS = {"thread-cache-size": "0", "max-connect-errors": "1000000", "slow-launch-time": "0"}
INNODB = {"innodb-buffer-pool-size": "6M", "innodb-lock-wait-timeout": "20", "max-connections": "300",
          "innodb-flush-log-at-trx-commit": "0"}


def _audit(db, *extra: str, purpose: str = "production") -> dict:
    code, report, err = run_json("audit", "--host", "127.0.0.1", "--port", str(db.port), "--user", "root",
                                 "--no-defaults", "--no-calibrate", "--purpose", purpose, "--format", "json", *extra)
    assert code in (0, 1, 2), err
    return report


def _fired(report: dict, ids: set[str]) -> None:
    outcomes = {o["rule"]: o for o in report["outcomes"]}
    found = {f["rule"]: f for f in report["findings"]}
    missing = {i: (outcomes[i]["status"], outcomes[i].get("reason", "")) for i in sorted(ids) if i not in found}
    assert not missing, missing
    for i in ids:
        assert entries()[i].counter in found[i]["message"], found[i]["message"]


def _run(conn, *sqls: str) -> None:
    with conn.cursor() as cur:
        for s in sqls:
            cur.execute(s)
            cur.fetchall()


def _connect(db, **kw):
    return db.connect(autocommit=True, **kw)


# ---------------------------------------------------------------- the "queries" server

def _queries_workload(db) -> None:
    c = _connect(db)
    _run(c, "SET SESSION sql_log_bin = 0", "CREATE DATABASE w", "USE w",
         "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(200), c TEXT) ENGINE=InnoDB",
         "INSERT INTO t SELECT seq, seq % 97, CONCAT(REPEAT('b', 180), seq), REPEAT('c', 100) FROM seq_1_to_2000",
         "CREATE TABLE u (id INT PRIMARY KEY, b VARCHAR(20)) ENGINE=InnoDB",
         "INSERT INTO u SELECT seq, CONCAT('u', seq) FROM seq_1_to_100",
         "CREATE TABLE t2 (id INT PRIMARY KEY, b VARCHAR(200)) ENGINE=InnoDB",
         "INSERT INTO t2 SELECT seq, CONCAT(REPEAT('b', 190), seq) FROM seq_1_to_120",
         # keys built after the load (by sort, outside the key cache): the key cache sees only the workload
         "CREATE TABLE m (id INT NOT NULL, a INT, pad CHAR(200)) ENGINE=MyISAM",
         "INSERT INTO m SELECT seq, seq * 7919 % 20011, 'p' FROM seq_1_to_20000",
         "ALTER TABLE m ADD PRIMARY KEY (id), ADD KEY (a)",
         "CREATE TABLE md (id INT PRIMARY KEY) ENGINE=MyISAM",
         "CREATE TABLE mk (id INT PRIMARY KEY, a INT, KEY (a)) ENGINE=MyISAM")
    for i in range(30):
        _run(c, f"CREATE TABLE o{i} (id INT PRIMARY KEY) ENGINE=InnoDB", f"INSERT INTO o{i} VALUES (1)")
    # loops in stored procedures: thousands of statements in one round trip (SET/DO keep Com_select out)
    _run(c, """CREATE PROCEDURE loops()
    BEGIN
      DECLARE i INT DEFAULT 0;
      WHILE i < 15000 DO SET @x = (SELECT id FROM m WHERE a = (i * 31) % 20011 LIMIT 1); SET i = i + 1; END WHILE;
      SET i = 0;
      WHILE i < 120 DO SET @x = (SELECT MAX(pad) FROM m IGNORE INDEX (a, PRIMARY)); SET i = i + 1; END WHILE;
      SET i = 0;
      WHILE i < 80 DO SET @x = (SELECT MAX(LENGTH(c)) FROM (SELECT id, c FROM t ORDER BY a, c LIMIT 2000) s); SET i = i + 1; END WHILE;
      SET i = 0;
      WHILE i < 400 DO SET @x = (SELECT COUNT(*) FROM t2 GROUP BY b LIMIT 1); SET i = i + 1; END WHILE;
      SET i = 0;
      WHILE i < 700 DO SET @x = (SELECT COUNT(*) FROM u GROUP BY b LIMIT 1); SET i = i + 1; END WHILE;
      SET i = 0;
      WHILE i < 12000 DO INSERT INTO mk VALUES (i, i); SET i = i + 1; END WHILE;
      SET i = 0;
      WHILE i < 1100 DO UPDATE u SET b = b WHERE b = 'none'; DELETE FROM u WHERE b = 'none'; SET i = i + 1; END WHILE;
    END""", "CALL loops()")
    # top-level SELECTs: uncacheable full index scans, and cacheable results that overflow the query cache
    for i in range(2600):
        _run(c, "SELECT COUNT(*), NOW() FROM u")
    for i in range(1200):
        _run(c, f"SELECT id, b FROM t WHERE id BETWEEN {i} AND {i + 5}")
    for i in range(1200):
        _run(c, f"DO (SELECT id FROM o{i % 30} LIMIT 1)")
    _run(c, "CREATE TABLE r1 (id INT PRIMARY KEY, lo INT, hi INT) ENGINE=InnoDB",
         "INSERT INTO r1 SELECT seq, seq * 10, seq * 10 + 5 FROM seq_1_to_5",
         "CREATE TABLE r2 (id INT PRIMARY KEY, v INT, KEY (v)) ENGINE=InnoDB",
         "INSERT INTO r2 SELECT seq, seq FROM seq_1_to_500", "ANALYZE TABLE r1, r2",
         "SELECT COUNT(*) FROM r1 JOIN r2 ON r2.v BETWEEN r1.lo AND r1.hi OR r2.v = r1.id * 3",
         "SELECT MASTER_GTID_WAIT('0-1-1000000', 0.01)")
    try:
        _run(c, "SET STATEMENT max_statement_time = 0.01 FOR SELECT SLEEP(2)")
    except pymysql.err.OperationalError:
        pass  # 1969: the statement was aborted, which is what the counter counts
    _run(c, "INSERT DELAYED INTO md VALUES (1)", "INSERT DELAYED INTO md VALUES (1)")
    # binary log caches: one session with the binary log on, transactions and statements over 4 KiB
    b = _connect(db, database="w")
    _run(b, "CREATE TABLE bl (id INT PRIMARY KEY, p TEXT) ENGINE=InnoDB",
         "CREATE TABLE bm (id INT PRIMARY KEY, p TEXT) ENGINE=MyISAM",
         """CREATE PROCEDURE binlogs()
    BEGIN
      DECLARE i INT DEFAULT 0;
      WHILE i < 1100 DO INSERT INTO bl VALUES (i, REPEAT('x', 30000)); INSERT INTO bm VALUES (i, REPEAT('x', 30000));
        SET i = i + 1; END WHILE;
    END""", "CALL binlogs()")
    deadline = time.monotonic() + 10
    while int(db.query("SHOW GLOBAL STATUS LIKE 'Delayed_errors'")[0][1]) == 0 and time.monotonic() < deadline:
        time.sleep(0.1)  # the delayed-insert handler runs after the client was answered
    b.close()
    c.close()


def test_queries_group(mariadb_factory):
    db = mariadb_factory(options=QUERIES)
    _queries_workload(db)
    _fired(_audit(db), GROUPS["queries"])


# ---------------------------------------------------------------- rates over a sampled interval

def test_rates_group(mariadb_factory):
    db = mariadb_factory(options={"sort-buffer-size": "32K", "tmp-table-size": "16K", "max-heap-table-size": "16K"})
    c = _connect(db)
    _run(c, "CREATE DATABASE w", "USE w",
         "CREATE TABLE t (id INT PRIMARY KEY, b VARCHAR(200)) ENGINE=InnoDB",
         "INSERT INTO t SELECT seq, CONCAT(REPEAT('b', 150), seq) FROM seq_1_to_3000",
         "CREATE TABLE j1 (id INT PRIMARY KEY, k INT) ENGINE=InnoDB", "INSERT INTO j1 SELECT seq, seq FROM seq_1_to_20",
         "CREATE TABLE j2 (id INT PRIMARY KEY, k INT) ENGINE=InnoDB", "INSERT INTO j2 SELECT seq, seq FROM seq_1_to_20")
    stop = threading.Event()

    def loop() -> None:
        w = _connect(db, database="w")
        while not stop.is_set():  # a sort that spills to merge passes in a file, and a join without an index
            _run(w, "SELECT SQL_NO_CACHE * FROM t ORDER BY b DESC LIMIT 2900,1",
                 "SELECT SQL_NO_CACHE COUNT(*) FROM j1 JOIN j2 ON j1.k = j2.k")
        w.close()

    worker = threading.Thread(target=loop)
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the entries' sample: 100 events since start
            got = dict(db.query("SHOW GLOBAL STATUS WHERE Variable_name IN "
                                "('Sort_merge_passes', 'Select_full_join', 'Created_tmp_files')"))
            if min(int(v) for v in got.values()) >= 100:
                break
            time.sleep(0.2)
        report = _audit(db, "--sample-seconds", "3")
    finally:
        stop.set()
        worker.join()
        c.close()
    _fired(report, GROUPS["rates"])
    assert any(v.startswith("measured over") for f in report["findings"] if f["rule"] in GROUPS["rates"]
               for k, v in f["evidence"].items() if k == "rate_basis")


# ---------------------------------------------------------------- connections

def test_connections_group(mariadb_factory):
    db = mariadb_factory(options=CONNECTIONS)
    db.query("CREATE USER app@'%' IDENTIFIED BY 'right'")
    for i in range(1000):
        db.connect(user="app", password="right").close()
    for i in range(60):  # wrong password: aborted connects and access denied
        with pytest.raises(pymysql.err.OperationalError):
            db.connect(user="app", password="wrong")
    for i in range(80):  # dropped without COM_QUIT: aborted clients
        conn = db.connect(user="app", password="right")
        conn._sock.close()
        conn._sock = None
    for i in range(60):  # closed before the handshake: aborted before authentication
        s = socket.create_connection(("127.0.0.1", db.port))
        s.close()
    time.sleep(0.5)
    _fired(_audit(db), GROUPS["connections"])


# ---------------------------------------------------------------- InnoDB: buffer pool, row locks, deadlocks

def test_innodb_group(mariadb_factory):
    db = mariadb_factory(options=INNODB)
    c = _connect(db)
    _run(c, "CREATE DATABASE w", "USE w",
         "CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(3000)) ENGINE=InnoDB",
         "START TRANSACTION", "INSERT INTO big SELECT seq, REPEAT('p', 3000) FROM seq_1_to_15000", "COMMIT",
         "CREATE TABLE hot (id INT PRIMARY KEY, v INT) ENGINE=InnoDB", "INSERT INTO hot VALUES (1, 0), (2, 0)",
         """CREATE PROCEDURE lookups()
    BEGIN
      DECLARE i INT DEFAULT 0;
      WHILE i < 60000 DO SET @x = (SELECT LENGTH(pad) FROM big WHERE id = 1 + (i * 7919) % 15000); SET i = i + 1; END WHILE;
    END""",
         """CREATE PROCEDURE commits()
    BEGIN
      DECLARE i INT DEFAULT 0;
      WHILE i < 1100 DO START TRANSACTION; UPDATE hot SET v = v + 1 WHERE id = 2; COMMIT;
        IF i % 5 = 0 THEN START TRANSACTION; UPDATE hot SET v = v + 1 WHERE id = 2; ROLLBACK; END IF;
        SET i = i + 1; END WHILE;
      SET i = 0;
      WHILE i < 10000 DO UPDATE hot SET v = v + 1 WHERE id = 2; SET i = i + 1; END WHILE;
    END""",
         "START TRANSACTION", "CALL lookups()", "COMMIT", "CALL commits()")
    for i in range(10500):  # statements from clients (Questions)
        _run(c, "SELECT 1")
    _row_lock_waits(db, waiters=200, hold=1.5)
    for i in range(120):
        _deadlock(db)
    c.close()
    with _queued_row_lock_waits(db, waiters=12):  # a gauge: the audit reads it while twelve sessions wait
        report = _audit(db)
    _fired(report, GROUPS["innodb"])


@contextlib.contextmanager
def _queued_row_lock_waits(db, waiters: int):
    """`waiters` sessions blocked on one row (innodb_lock_wait_timeout is 20 s) until the block ends: they
    are waiting, by the server's own count, before it is entered."""
    holder = _connect(db, database="w")
    _run(holder, "START TRANSACTION", "UPDATE hot SET v = v + 1 WHERE id = 1")
    conns = [_connect(db, database="w") for _ in range(waiters)]

    def wait(w) -> None:
        try:
            _run(w, "UPDATE hot SET v = v + 1 WHERE id = 1")
        except pymysql.err.OperationalError:
            pass  # 1205 lock wait timeout: only if the block outlived innodb_lock_wait_timeout

    threads = [threading.Thread(target=wait, args=(w,)) for w in conns]
    for t in threads:
        t.start()
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            now = int(db.query("SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'")[0][1])
            if now >= waiters:
                break
            time.sleep(0.05)
        assert now >= waiters, f"only {now} of {waiters} sessions were waiting for the row lock after 15 s"
        yield
    finally:
        _run(holder, "COMMIT")
        for t in threads:
            t.join()
        for x in [holder, *conns]:
            x.close()


def _row_lock_waits(db, waiters: int, hold: float) -> None:
    holder = _connect(db, database="w")
    _run(holder, "START TRANSACTION", "UPDATE hot SET v = v + 1 WHERE id = 1")
    conns = [_connect(db, database="w") for _ in range(waiters)]
    threads = [threading.Thread(target=_run, args=(w, "UPDATE hot SET v = v + 1 WHERE id = 1")) for w in conns]
    for t in threads:
        t.start()
    time.sleep(hold)
    _run(holder, "COMMIT")
    for t in threads:
        t.join()
    for x in [holder, *conns]:
        x.close()


def _deadlock(db) -> None:
    a, b = _connect(db, database="w"), _connect(db, database="w")
    _run(a, "START TRANSACTION", "UPDATE hot SET v = v + 1 WHERE id = 1")
    _run(b, "START TRANSACTION", "UPDATE hot SET v = v + 1 WHERE id = 2")
    errors: list[Exception] = []

    def second() -> None:
        try:
            _run(a, "UPDATE hot SET v = v + 1 WHERE id = 2")
        except pymysql.err.OperationalError as e:
            errors.append(e)

    t = threading.Thread(target=second)
    t.start()
    time.sleep(0.05)
    try:
        _run(b, "UPDATE hot SET v = v + 1 WHERE id = 1")
    except pymysql.err.OperationalError as e:
        errors.append(e)
    t.join()
    for x in (a, b):
        _run(x, "ROLLBACK")
        x.close()
    assert errors, "no deadlock"


# ---------------------------------------------------------------- prepared statements (binary protocol)

def test_prepared_group(mariadb_factory):
    """sysbench executes server-side prepared statements (COM_STMT_EXECUTE, which PyMySQL's text protocol
    cannot send) while another session alters the table they read: each change makes every prepared
    statement on it be prepared again at its next execution. A fixed number of events at a bounded rate,
    not a duration."""
    import subprocess

    db = mariadb_factory()
    db.query("CREATE DATABASE sbtest")
    base = ["sysbench", "oltp_point_select", "--mysql-host=127.0.0.1", f"--mysql-port={db.port}", "--mysql-user=root",
            "--mysql-password=", "--mysql-db=sbtest", "--tables=1", "--table-size=1000", "--db-ps-mode=auto"]
    subprocess.run(base + ["prepare"], capture_output=True, check=True, timeout=120)
    stop = threading.Event()

    def alter() -> None:
        c = _connect(db)
        i = 0
        while not stop.is_set():
            _run(c, f"ALTER TABLE sbtest.sbtest1 COMMENT = 'change {i}'")
            i += 1
        c.close()

    worker = threading.Thread(target=alter)
    worker.start()
    try:
        # at most 3,000 executions a second (sysbench's --rate), so that the alterations keep pace on a busy machine
        p = subprocess.run(base + ["--threads=2", "--time=0", "--events=15000", "--rate=3000", "run"], capture_output=True,
                           text=True, timeout=300)
    finally:
        stop.set()
        worker.join()
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    got = dict(db.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_stmt_execute', 'Com_stmt_reprepare')"))
    print("\n", got)
    _fired(_audit(db), GROUPS["prepared"])


# ---------------------------------------------------------------- a replica of a throwaway source

def test_replica_group(mariadb_factory):
    """A second throwaway server replicating from the first: a statement-based temporary table the source's
    session keeps open is held by the replica's SQL thread, and a replicated update that meets a row lock
    a local session holds on the replica times out (innodb_lock_wait_timeout = 1) and is retried."""
    source = mariadb_factory(options={"log-bin": "binlog", "server-id": "1", "binlog-format": "STATEMENT"})
    replica = mariadb_factory(options={"server-id": "2", "innodb-lock-wait-timeout": "1",
                                       "slave-transaction-retries": "30"})
    src = _connect(source)
    _run(src, "CREATE DATABASE w", "CREATE TABLE w.r (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
         "INSERT INTO w.r VALUES (1, 0)")
    rep = _connect(replica)
    _run(rep, f"CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = {source.port}, MASTER_USER = 'root', "
              "MASTER_PASSWORD = '', MASTER_USE_GTID = no, MASTER_LOG_FILE = 'binlog.000001', MASTER_LOG_POS = 4",
         "START SLAVE")

    def status(name: str) -> int:
        return int(dict(replica.query(f"SHOW GLOBAL STATUS LIKE '{name}'")).get(name, 0))

    def until(what: str, ok) -> None:
        deadline = time.monotonic() + 30
        while not ok() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ok(), f"the replica did not reach {what} in 30 s: " + repr(replica.query("SHOW SLAVE STATUS"))

    until("the source's table", lambda: replica.query("SELECT COUNT(*) FROM information_schema.TABLES "
                                                      "WHERE TABLE_SCHEMA = 'w' AND TABLE_NAME = 'r'")[0][0] == 1)
    temp = _connect(source)  # its temporary table lives as long as this session
    _run(temp, "CREATE TEMPORARY TABLE w.scratch (id INT)", "INSERT INTO w.scratch VALUES (1)")
    until("an open temporary table", lambda: status("Slave_open_temp_tables") >= 1)
    holder = _connect(replica)
    _run(holder, "START TRANSACTION", "SELECT v FROM w.r WHERE id = 1 FOR UPDATE")
    _run(src, "UPDATE w.r SET v = v + 1 WHERE id = 1")
    until("a retried transaction", lambda: status("Slave_retried_transactions") >= 1)
    _run(holder, "COMMIT")
    until("the update applied", lambda: replica.query("SELECT v FROM w.r WHERE id = 1")[0][0] == 1)
    try:
        _fired(_audit(replica), GROUPS["replica"])
    finally:
        for c in (holder, temp, src):
            c.close()
        _run(rep, "STOP SLAVE")
        rep.close()


# ---------------------------------------------------------------- a fragmented query cache

def test_qcache_group(mariadb_factory):
    """150 cached results, one per table, then every other table changed: each freed result leaves a free
    fragment between two cached ones, the most fragmented a query cache gets (a quarter of its blocks)."""
    db = mariadb_factory(options={"query-cache-type": "1", "query-cache-size": "2M"})
    c = _connect(db)
    _run(c, "CREATE DATABASE q", "USE q")
    for i in range(150):
        _run(c, f"CREATE TABLE t{i} (id INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB",
             f"INSERT INTO t{i} SELECT seq, REPEAT('x', 50) FROM seq_1_to_{1 + i % 7 * 3}")
    for i in range(150):
        _run(c, f"SELECT * FROM t{i}")
    for i in range(0, 150, 2):
        _run(c, f"UPDATE t{i} SET b = 'y' WHERE id = 1")
    print("\n", db.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Qcache_free_blocks', 'Qcache_total_blocks')"))
    c.close()
    _fired(_audit(db), GROUPS["qcache"])


# ---------------------------------------------------------------- slow storage: page flushing behind

BLKIO = Path("/sys/fs/cgroup/blkio")


def _whole_disk(path: Path) -> str:
    """MAJ:MIN of the disk holding ``path`` (blk-throttle rules name whole disks, not partitions)."""
    dev = os.stat(path).st_dev
    sys_dev = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    if not sys_dev.exists():
        pytest.skip(f"{path} is not on a block device (st_dev {os.major(dev)}:{os.minor(dev)}): nothing to throttle")
    if (sys_dev / "partition").exists():
        sys_dev = sys_dev.resolve().parent
    return (sys_dev / "dev").read_text().strip()


@contextlib.contextmanager
def _slow_storage(db, write_iops: int = 0, read_iops: int = 0):
    """mariadbd's I/O to its datadir's disk limited to a few operations a second by a cgroup v1 blkio
    throttle, as on storage that cannot keep up; the limit and the cgroup go when the block ends."""
    if os.geteuid() != 0 or not (BLKIO / "blkio.throttle.write_iops_device").exists():
        pytest.skip("needs root and the cgroup v1 blkio controller (blkio.throttle.*_iops_device)")
    dev = _whole_disk(db.datadir)
    cg = BLKIO / f"advisor-test-{os.getpid()}-{db.port}"
    cg.mkdir()
    try:
        (cg / "cgroup.procs").write_text(str(db.pid))
        if write_iops:
            (cg / "blkio.throttle.write_iops_device").write_text(f"{dev} {write_iops}")
        if read_iops:
            (cg / "blkio.throttle.read_iops_device").write_text(f"{dev} {read_iops}")
        yield
    finally:
        for knob in ("write_iops_device", "read_iops_device"):
            with contextlib.suppress(OSError):
                (cg / f"blkio.throttle.{knob}").write_text(f"{dev} 0")
        db.kill()  # a clean shutdown would flush the dirty pool at a few writes a second
        for pid in (cg / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                (BLKIO / "cgroup.procs").write_text(pid)
        cg.rmdir()


@contextlib.contextmanager
def _sessions(db, threads: int, statement):
    """``threads`` sessions each running ``statement(rnd)`` (an SQL text from its own random generator) in a
    loop until the block ends; a session stops quietly when the server goes away (it is killed at the end)."""
    stop = threading.Event()

    def work() -> None:
        rnd = random.Random(threading.get_ident())
        try:
            c = _connect(db, read_timeout=120)
            with c.cursor() as cur:
                while not stop.is_set():
                    cur.execute(statement(rnd))
                    cur.fetchall()
        except pymysql.MySQLError:
            return

    for _ in range(threads):
        threading.Thread(target=work, daemon=True).start()
    try:
        yield
    finally:
        stop.set()


def _writers(db, threads: int, rows: int, span: int):
    """``threads`` sessions updating ``span`` random rows of w.t at a time until the block ends."""
    def update(rnd: random.Random) -> str:
        x = rnd.randint(1, rows - span)
        return f"UPDATE w.t SET a = a + 1, b = REPEAT(CHAR(65 + {x} % 26), 200) WHERE id BETWEEN {x} AND {x + span}"

    return _sessions(db, threads, update)


def _readers(db, threads: int, rows: int):
    """``threads`` sessions reading random single rows of w.t until the block ends."""
    return _sessions(db, threads, lambda rnd: f"SELECT a FROM w.t WHERE id = {rnd.randint(1, rows)}")


SLOW_ROWS = 150_000  # ~40 MiB of rows: larger than the buffer pools below


def _slow_storage_server(mariadb_factory, **options: str):
    db = mariadb_factory(options={"innodb-flush-log-at-trx-commit": "0", "innodb-io-capacity": "100",
                                  "innodb-io-capacity-max": "100", **options})
    c = _connect(db)
    _run(c, "CREATE DATABASE w", "USE w", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b CHAR(200)) ENGINE=InnoDB",
         f"INSERT INTO t SELECT seq, 0, REPEAT('x', 200) FROM seq_1_to_{SLOW_ROWS}")
    c.close()
    return db


def _status(db, name: str) -> int:
    return int(db.query(f"SHOW GLOBAL STATUS LIKE '{name}'")[0][1])


def _until(db, name: str, test, seconds: float = 120) -> None:
    """Wait (bounded, not timed) until the gauge or counter ``name`` satisfies ``test``."""
    deadline = time.monotonic() + seconds
    while not test(_status(db, name)):
        assert time.monotonic() < deadline, f"{name} stayed at {_status(db, name)}"
        time.sleep(0.5)


def test_slow_flush_group(mariadb_factory):
    """Writes spread over more rows than a 24 MiB buffer pool holds, with the page writes held to ten a
    second: the pool fills with dirty pages and sessions wait for free ones. With innodb_flush_method =
    fsync the page writes go through the page cache and each fsync of a data file writes them out, so an
    fsync is almost always in flight; that count is a moment's gauge, so a report that missed the moment
    is taken again (at most three audits, each a real one)."""
    db = _slow_storage_server(mariadb_factory, **{"innodb-buffer-pool-size": "24M", "innodb-log-file-size": "96M",
                                                  "innodb-flush-method": "fsync"})
    with _slow_storage(db, write_iops=10), _writers(db, threads=8, rows=SLOW_ROWS, span=30):
        _until(db, "Innodb_buffer_pool_wait_free", lambda v: v > 0)
        _until(db, "Innodb_data_pending_fsyncs", lambda v: v > 0)
        for _ in range(3):
            report = _audit(db)
            if any(f["rule"] == "data-fsyncs-pending" for f in report["findings"]):
                break
    _fired(report, GROUPS["slow-flush"])


def test_slow_checkpoint_group(mariadb_factory):
    """The same writes against an 8 MiB redo log: the checkpoint cannot advance past the unflushed pages,
    so its age reaches the log's capacity and stays there while the audit reads it."""
    db = _slow_storage_server(mariadb_factory, **{"innodb-buffer-pool-size": "16M", "innodb-log-file-size": "8M"})
    with _slow_storage(db, write_iops=10), _writers(db, threads=8, rows=SLOW_ROWS, span=30):
        _until(db, "Innodb_checkpoint_age",
               lambda v: v > 0.8 * _status(db, "Innodb_checkpoint_max_age"))
        report = _audit(db)
    _fired(report, GROUPS["slow-checkpoint"])


def test_slow_reads_group(mariadb_factory):
    """Point reads over more rows than a 16 MiB buffer pool holds, with the reads held to twenty a second:
    reads queue behind the storage while the audit reads the status."""
    db = _slow_storage_server(mariadb_factory, **{"innodb-buffer-pool-size": "16M"})
    with _slow_storage(db, read_iops=20), _readers(db, threads=8, rows=SLOW_ROWS):
        _until(db, "Innodb_data_pending_reads", lambda v: v >= 4)
        report = _audit(db)
    _fired(report, GROUPS["slow-reads"])


# ---------------------------------------------------------------- Aria page cache, MyISAM table locks

def test_aria_myisam_group(mariadb_factory):
    """Point reads scattered over an Aria table many times larger than a 128 KiB page cache, and writers
    queued behind readers of a MyISAM table (a reader's table lock blocks an UPDATE's)."""
    db = mariadb_factory(options={"aria-pagecache-buffer-size": "128K"})
    c = _connect(db)
    _run(c, "CREATE DATABASE w", "USE w", "CREATE TABLE a (id INT PRIMARY KEY, b CHAR(250)) ENGINE=Aria",
         "INSERT INTO a SELECT seq, REPEAT('a', 250) FROM seq_1_to_40000",
         "CREATE TABLE m (id INT PRIMARY KEY, v INT) ENGINE=MyISAM", "INSERT INTO m SELECT seq, 0 FROM seq_1_to_200")
    for i in range(12000):
        _run(c, f"SELECT b FROM a WHERE id = {(i * 7919) % 40000 + 1}")

    def reader() -> None:
        r = _connect(db)
        for _ in range(40):  # each holds m's read lock for ~0.2 s (a millisecond per row)
            _run(r, "SELECT COUNT(*) FROM w.m WHERE SLEEP(0.001) = 0")

    def writer() -> None:
        w = _connect(db)
        for i in range(300):
            _run(w, f"UPDATE w.m SET v = v + 1 WHERE id = {i % 200 + 1}")

    ts = [threading.Thread(target=reader)] + [threading.Thread(target=writer) for _ in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i in range(6000):  # immediate table locks: the sample table-lock-contention needs
        _run(c, f"SELECT v FROM m WHERE id = {i % 200 + 1}")
    c.close()
    _fired(_audit(db), GROUPS["aria-myisam"])


# ---------------------------------------------------------------- file descriptors exhausted

def test_files_group(mariadb_factory):
    """mariadbd's descriptor limit lowered to its open_files_limit (prlimit, as a service's LimitNOFILE
    would), then filled with temporary MyISAM tables: new connections fail in accept(); with a few
    tables dropped and the descriptors given back, the audit finds the open files near the limit."""
    import resource

    if os.geteuid() != 0:
        pytest.skip("lowering another process's RLIMIT_NOFILE needs root")
    db = mariadb_factory(options={"open-files-limit": "400", "max-connections": "20", "table-open-cache": "10"})
    limit = int(db.query("SELECT @@open_files_limit")[0][0])
    resource.prlimit(db.pid, resource.RLIMIT_NOFILE, (limit, limit * 4))  # the soft limit is what runs out
    c = _connect(db)
    _run(c, "CREATE DATABASE w", "USE w")
    made = 0
    with contextlib.suppress(pymysql.MySQLError):  # until the process is out of descriptors
        while made < limit:
            _run(c, f"CREATE TEMPORARY TABLE tt{made} (id INT) ENGINE=MyISAM", f"SELECT * FROM tt{made}")
            made += 1
    for _ in range(5):
        with contextlib.suppress(pymysql.MySQLError):
            db.connect(connect_timeout=2, read_timeout=2).close()
    for i in range(made - 1, made - 1 - limit // 40, -1):  # room for the audit's connection
        _run(c, f"DROP TEMPORARY TABLE tt{i}")
    # the descriptors back (open_files_limit still says 400): the audit's reads of the dictionary open
    # every table, which the last few free descriptors could not
    resource.prlimit(db.pid, resource.RLIMIT_NOFILE, (limit * 4, limit * 4))
    report = _audit(db)
    c.close()
    _fired(report, GROUPS["files"])


# ---------------------------------------------------------------- performance_schema sized too small

PFS = {"performance-schema": "ON"}


def test_pfs_objects_group(mariadb_factory):
    """Room for 10 digests, 2 table handles and 1 prepared statement: more distinct statements, tables held
    open in one transaction and two prepared statements overflow them."""
    db = mariadb_factory(options={**PFS, "performance-schema-digests-size": "10",
                                  "performance-schema-max-table-handles": "2",
                                  "performance-schema-max-prepared-statements-instances": "1"})
    c = _connect(db)
    _run(c, "CREATE DATABASE w", "USE w")
    for i in range(20):
        _run(c, f"CREATE TABLE t{i} (id INT PRIMARY KEY, k INT, KEY(k)) ENGINE=InnoDB", f"INSERT INTO t{i} VALUES (1, 1)")
    _run(c, "START TRANSACTION", *(f"SELECT * FROM t{i} WHERE k = 1" for i in range(20)), "COMMIT")
    for i in range(30):  # thirty statements with thirty digests
        _run(c, f"SELECT {'+'.join(['id'] * (i + 1))} FROM t1")
    _run(c, "PREPARE a FROM 'SELECT 1'", "PREPARE b FROM 'SELECT 2'", "EXECUTE a", "EXECUTE b")
    c.close()
    _fired(_audit(db), GROUPS["pfs-objects"])


def test_pfs_threads_group(mariadb_factory):
    """Room for 10 instrumented threads: the server's own background threads take most of them, and the
    sessions beyond go uninstrumented."""
    db = mariadb_factory(options={**PFS, "performance-schema-max-thread-instances": "10"})
    sessions = [_connect(db) for _ in range(8)]
    for s in sessions:
        _run(s, "SELECT 1")
        s.close()
    _fired(_audit(db), GROUPS["pfs-threads"])


def test_pfs_instances_group(mariadb_factory):
    """Every other performance_schema table sized for a handful of rows: the server's own start-up fills the
    mutex, rwlock, cond, file and memory-class tables; tables, indexes, a stored procedure and three users
    connecting with long connection attributes overflow the rest."""
    db = mariadb_factory(options={
        **PFS, "performance-schema-max-table-instances": "5", "performance-schema-max-file-handles": "5",
        "performance-schema-max-file-instances": "10", "performance-schema-accounts-size": "2",
        "performance-schema-hosts-size": "1", "performance-schema-users-size": "1",
        "performance-schema-session-connect-attrs-size": "16", "performance-schema-max-program-instances": "1",
        "performance-schema-max-socket-instances": "3", "performance-schema-max-index-stat": "2",
        "performance-schema-max-mutex-instances": "500", "performance-schema-max-rwlock-instances": "100",
        "performance-schema-max-cond-instances": "100", "performance-schema-max-memory-classes": "10"})
    c = _connect(db)
    _run(c, "CREATE DATABASE w", "USE w")
    for i in range(20):
        _run(c, f"CREATE TABLE t{i} (id INT PRIMARY KEY, k INT, KEY(k)) ENGINE=InnoDB", f"INSERT INTO t{i} VALUES (1, 1)",
             f"SELECT * FROM t{i} WHERE k = 1")
    _run(c, "CREATE PROCEDURE p1() SELECT 1", "CREATE PROCEDURE p2() SELECT 2", "CALL p1()", "CALL p2()")
    users = ("a", "b", "c")
    for u in users:
        _run(c, f"CREATE USER {u}@'%'", f"GRANT SELECT ON w.* TO {u}@'%'")
    others = [pymysql.connect(host="127.0.0.1", port=db.port, user=u, program_name="x" * 100) for u in users]
    for o in others:
        _run(o, "SELECT 1")
    report = _audit(db)
    for o in others:
        o.close()
    c.close()
    _fired(report, GROUPS["pfs-instances"])
