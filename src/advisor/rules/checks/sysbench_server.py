"""Checklist checks that judge a sysbench command against the server: the command line itself, the
server it reaches, its network path, its threads against the CPUs and max_connections, and TLS."""

from __future__ import annotations

import re
from typing import Any, Optional

from advisor.rules.checks.base import CheckContext, CheckResult, CheckSet
from advisor.rules.facts import FactView, Unknown
from advisor.sysbench import ALL_OPTIONS, SysbenchCommand, Unresolved
from advisor.sysbench.options import SSL_MODES_11

CHECKS = CheckSet()
LOOPBACK_NAMES = ("localhost", "::1")


def is_loopback(host: str) -> bool:
    return host in LOOPBACK_NAMES or host.startswith("127.")


def target_of(view: FactView) -> str:
    t = view.snapshot.target
    return (t.where or "the server (address not known)") if t.transport == "tcp" else f"socket {t.socket}"


def _client_is_local(cmd: SysbenchCommand, view: FactView) -> Optional[bool]:
    hosts, sock = cmd.hosts(), cmd.socket()
    if isinstance(sock, Unresolved) or any(isinstance(h, Unresolved) for h in hosts):
        return None
    if sock or all(is_loopback(str(h)) for h in hosts):
        return True
    c = view.snapshot.client
    if c is not None and c.route is not None and c.route.destination in [str(h) for h in hosts]:
        return c.route.kind in ("loopback", "socket")
    return None


@CHECKS.define("sysbench-command-line")
def command_line(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, local = ctx.cmd, ctx.local
    if cmd is None:
        return None
    problems = list(cmd.problems)
    lera = local.era if local is not None else None
    if lera is not None:
        bad = [o for n, o in cmd.options.items() if o.known and lera not in ALL_OPTIONS[n].eras]
        for o in bad:
            problems.append(f"{o.written}: sysbench {local.version} on this machine has no --{o.name} "  # type: ignore[union-attr]
                            f"(only {' and '.join(ALL_OPTIONS[o.name].eras)}) and stops with \"invalid option\".")
        ssl = cmd.options.get("mysql-ssl")
        if ssl is not None and isinstance(ssl.value, str):
            if lera == "1.0" and ssl.value in SSL_MODES_11:
                problems.append(f"{ssl.written}: sysbench {local.version} takes --mysql-ssl=on|off only and stops "  # type: ignore[union-attr]
                                "with \"invalid option\".")
            if lera == "1.1" and local.library in ("libmysqlclient", "libperconaserverclient") and \
                    ssl.value in ("on", "off"):  # type: ignore[union-attr]
                problems.append(f"{ssl.written}: sysbench {local.version} built with {local.library} takes an SSL "  # type: ignore[union-attr]
                                f"mode ({', '.join(SSL_MODES_11)}) and stops with \"Invalid value for --mysql-ssl\".")
        if cmd.command == "warmup" and lera == "1.0":
            problems.append(f"sysbench {local.version} has no `warmup` command (1.0 calls it `prewarm`).")  # type: ignore[union-attr]
    driver = cmd.get("db-driver")
    if driver == "pgsql" and cmd.is_database_test:
        problems.append("--db-driver=pgsql: sysbench will talk to PostgreSQL (--pgsql-host), not to this server.")
    unchecked = sorted(o.written for o in cmd.options.values() if not o.known)
    facts: dict[str, Any] = {"command": cmd.display}
    if cmd.config_file and not cmd.config_read:
        return CheckResult(status="unknown",
                           evidence=f"options may come from the config file {cmd.config_file}, which could not be read "
                                    f"({cmd.config_problem}); only the command line was checked"
                                    + (": " + " ".join(problems) if problems else "."),
                           fix="Run the checklist in the directory you run sysbench from, so the config file is read.",
                           facts=facts)
    if problems:
        fix = ("Write every option as --name=value with no spaces, use only options this sysbench has "
               "(`sysbench <test> help` lists them), and check the config file's lines.")
        return CheckResult(status="fail", evidence=" ".join(problems), fix=cmd.migration or fix, facts=facts)
    if cmd.expanded_words:
        words = " ".join(cmd.expanded_words)
        return CheckResult(status="unknown",
                           evidence=f"{words} stands between the test and the command outside quotes, so the shell "
                                    "splits its value into words, options presumably, which the advisor cannot see; "
                                    "the options written out were checked.",
                           fix=f"Pass the command with {words} expanded (echo the command line your script runs), so "
                               "every option is checked.", facts=facts)
    notes = (" " + " ".join(n for n in cmd.notes if "is not checked" not in n)) if cmd.notes else ""
    if unchecked:
        notes += (f" The options {', '.join(unchecked)} belong to {cmd.test or cmd.test_written} itself and were not "
                  "checked.")
    if cmd.test_kind == "unresolved":
        known = (f"every option is written as --name=value; the test is {cmd.test_written}, which the shell expands, so "
                 "the options were checked against sysbench's general and OLTP options only")
    else:
        known = "every option is written as --name=value" + (
            f" and exists for {cmd.test or cmd.test_written}" if not unchecked else "")
    return CheckResult(status="pass",
                       evidence=known + (f" (checked against sysbench {local.version} here)" if local and local.version else "")
                                + "." + notes, facts=facts)


@CHECKS.define("sysbench-target")
def target(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, view = ctx.cmd, ctx.view
    if cmd is None or not cmd.is_database_test:
        return None
    t = view.snapshot.target
    hosts, ports, sock = cmd.hosts(), cmd.ports(), cmd.socket()
    unresolved = [x for x in hosts + ports if isinstance(x, Unresolved)] + ([sock] if isinstance(sock, Unresolved) else [])
    facts = {"sysbench_hosts": [str(h) for h in hosts], "sysbench_ports": [str(p) for p in ports],
             "snapshot_target": target_of(view)}
    fix = ("Point the checklist at the server sysbench uses (same host and port), or confirm that the address "
           "sysbench uses (a proxy or load balancer) leads to this server.")
    if unresolved:
        return CheckResult(status="unknown",
                           evidence=f"sysbench's address is not known: {unresolved[0].why}; the checklist describes "
                                    f"{target_of(view)}.",
                           fix=fix + " Pass the command with the shell variables expanded.", facts=facts)
    if sock or (len(hosts) == 1 and hosts[0] == "localhost"):
        where = f"the Unix socket {sock}" if sock else "localhost, which the MySQL client libraries reach through the default Unix socket"
        if t.transport == "socket" and sock and t.socket == sock:
            return CheckResult(status="pass",
                               evidence=f"sysbench and the snapshot both use the socket {sock}.", facts=facts)
        return CheckResult(status="unknown",
                           evidence=f"sysbench connects to {where}; the checklist describes {target_of(view)}; whether "
                                    "they are the same server cannot be told from here.", fix=fix, facts=facts)
    same = []
    for h in hosts:
        for p in ports:
            ok_host = (str(h) == t.host) or (is_loopback(str(h)) and t.host is not None and is_loopback(t.host))
            same.append(t.transport == "tcp" and ok_host and int(p) == t.port)  # type: ignore[arg-type]
    if all(same):
        return CheckResult(status="pass",
                           evidence=f"sysbench connects to {', '.join(f'{h}:{p}' for h in hosts for p in ports)}, the server "
                                    f"in this snapshot ({target_of(view)}).", facts=facts)
    return CheckResult(status="unknown",
                       evidence=f"sysbench connects to {', '.join(f'{h}:{p}' for h in hosts for p in ports)} but the checklist "
                                f"describes {target_of(view)}; if that is a proxy, load balancer or another name for the "
                                "same server the items hold, otherwise they describe a different server.",
                       fix=fix, facts=facts)


@CHECKS.define("sysbench-route")
def route(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, view = ctx.cmd, ctx.view
    if not ctx.queries_the_server:
        return None
    hosts, sock = cmd.hosts(), cmd.socket()
    c = view.snapshot.client
    if isinstance(sock, Unresolved) or any(isinstance(h, Unresolved) for h in hosts):
        bad = sock if isinstance(sock, Unresolved) else next(h for h in hosts if isinstance(h, Unresolved))
        return CheckResult(status="unknown",
                           evidence=f"the route cannot be looked up: {bad.why}.",  # type: ignore[union-attr]
                           fix="Check on the client: `ip route get <server address>` names the interface, and "
                               "`cat /sys/class/net/<interface>/speed` its link speed (Mb/s).")
    if sock or hosts == ["localhost"]:
        return CheckResult(status="pass",
                           evidence="sysbench connects through a local Unix socket (--mysql-host=localhost or "
                                    "--mysql-socket): no NIC is involved, but client and server share this host's CPUs.")
    if all(is_loopback(str(h)) for h in hosts):
        return CheckResult(status="pass",
                           evidence=f"sysbench connects over loopback ({', '.join(map(str, hosts))}): no NIC is involved, but "
                                    "client and server share this host's CPUs.")
    fix = ("Connect sysbench to the server's address on its fastest network (`ip route get <address>` on the client "
           "must name the fast interface); watch /sys/class/net/<if>/statistics/tx_bytes during the run.")
    if c is None or c.route is None:
        reason = view.get("client.route")
        why = getattr(reason, "reason", "the client's network path was not collected")
        return CheckResult(status="unknown",
                           evidence=f"sysbench connects to {', '.join(map(str, hosts))}; the route and link speed are unknown: "
                                    f"{why}.",
                           fix="Check on the client: `ip route get " + str(hosts[0]) + "` names the interface and "
                               "`cat /sys/class/net/<interface>/speed` its speed in Mb/s; 1000 means about 118 MB/s of "
                               "payload at most. " + fix)
    r = c.route
    if r.destination not in [str(h) for h in hosts]:
        return CheckResult(status="unknown",
                           evidence=f"the snapshot has the route to {r.destination}, but sysbench connects to "
                                    f"{', '.join(map(str, hosts))}.",
                           fix=f"Check `ip route get {hosts[0]}` on the client. " + fix)
    facts = {"interface": r.interface, "speed_mbps": r.speed_mbps, "destination": r.destination}
    if r.kind in ("loopback", "socket"):
        return CheckResult(status="pass",
                           evidence=f"the route to {r.destination} is {r.kind}: no NIC is involved.", facts=facts)
    faster = [i for i in c.interfaces if i.name not in (r.interface, "lo") and (i.operstate or "up").lower() in ("up", "unknown")
              and i.speed_mbps and r.speed_mbps and i.speed_mbps > r.speed_mbps]
    if r.speed_mbps is None or r.speed_mbps <= 0:
        return CheckResult(status="unknown",
                           evidence=f"sysbench reaches {r.destination} through {r.interface}, which reports no link speed "
                                    "(a virtual NIC?).", fix=fix, facts=facts)
    if faster:
        f = max(faster, key=lambda i: i.speed_mbps or 0)
        return CheckResult(status="fail",
                           evidence=f"sysbench reaches {r.destination} through {r.interface} at {r.speed_mbps:,} Mb/s while "
                                    f"{f.name} is up at {f.speed_mbps:,} Mb/s; the routing table, not the speed, picks the "
                                    "interface.", fix=fix, facts=facts)
    if r.speed_mbps <= 1000:
        return CheckResult(status="fail",
                           evidence=f"sysbench reaches {r.destination} through {r.interface} at {r.speed_mbps:,} Mb/s, at most "
                                    "about 118 MB/s of TCP payload per direction; many threads or wide rows will measure "
                                    "the link, not the server.", fix=fix, facts=facts)
    return CheckResult(status="pass",
                       evidence=f"sysbench reaches {r.destination} through {r.interface} at {r.speed_mbps:,} Mb/s, the fastest "
                                "up interface on the client.", facts=facts)


@CHECKS.define("sysbench-client-cpu")
def client_cpu(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, view = ctx.cmd, ctx.view
    if not ctx.queries_the_server:
        return None
    threads = cmd.get("threads")
    cpus = view.get("host.cpu.logical_count")
    if isinstance(threads, Unresolved):
        return CheckResult(status="unknown",
                           evidence=f"the thread count is unknown: {threads.why}.")
    if isinstance(cpus, Unknown):
        return CheckResult(status="unknown",
                           evidence=f"{threads} threads; the server's CPU count is unknown: {cpus.reason}.",
                           fix="Collect host facts on the server (its logical CPU count) and run the checklist again.",
                           facts={"threads": threads})
    local = _client_is_local(cmd, view)
    facts = {"threads": threads, "logical_cpus": cpus}
    per = threads / cpus if cpus else 0
    if local and threads > cpus:
        return CheckResult(status="fail",
                           evidence=f"sysbench runs on the server host with {threads} threads for {cpus} logical CPUs; the "
                                    "client's own CPU time comes out of the server's, so the result measures both.",
                           fix="Run sysbench from another host over a fast link (PingCAP runs it on a separate machine), or "
                               "pin client and server to separate CPUs (taskset/numactl) and say so in the report.",
                           facts=facts)
    where = ("sysbench runs on the server host" if local else
             "sysbench runs on another host" if local is False else "where sysbench runs is unknown")
    return CheckResult(status="pass",
                       evidence=f"{threads} threads for {cpus} logical CPUs ({per:.1f} per CPU); {where}. Above about one "
                                "thread per CPU the run measures queueing and contention rather than single-query speed.",
                       facts=facts)


@CHECKS.define("sysbench-max-connections")
def max_connections(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, view = ctx.cmd, ctx.view
    if not ctx.queries_the_server:
        return None
    threads = cmd.get("threads")
    mc = view.num("var.max_connections")
    if isinstance(threads, Unresolved):
        return CheckResult(status="unknown",
                           evidence=f"the thread count is unknown: {threads.why}"
                                    + (f"; max_connections is {mc}" if not isinstance(mc, Unknown) else "") + ".",
                           fix="Pass the command with the thread count written out.")
    if isinstance(mc, Unknown):
        return CheckResult(status="unknown",
                           evidence=f"--threads={threads}; max_connections is unknown: {mc.reason}.")
    mc = int(mc)
    if view.snapshot.target.flavor == "tidb" and mc == 0:
        return CheckResult(status="pass",
                           evidence=f"--threads={threads}; max_connections is 0, which TiDB treats as no limit.",
                           facts={"threads": threads, "max_connections": 0})
    connected = view.num("status.Threads_connected")
    others = max(0, int(connected) - 1) if not isinstance(connected, Unknown) else 0
    room = mc - others
    muc = view.num("var.max_user_connections")
    muc = int(muc) if not isinstance(muc, Unknown) else 0
    facts = {"threads": threads, "max_connections": mc, "other_connections": others, "max_user_connections": muc}
    others_txt = (f"; {others} other connection{'s' if others != 1 else ''} were open when the snapshot was taken, "
                  f"leaving {room}" if others else "")
    if cmd.effective_command == "prepare":
        opens = f"--threads={threads} opens {threads} connections (prepare runs one connection per thread)"
    else:
        opens = f"--threads={threads} opens {threads} connections (one per thread)"
    need = threads + others + 10
    open_files = view.num("var.open_files_limit")
    of_txt = (f" open_files_limit is {int(open_files):,}; MySQL caps the effective max_connections by it "
              "(about open_files_limit − 810), so raise it too if needed."
              if not isinstance(open_files, Unknown) else "")
    if threads > room:
        return CheckResult(status="fail",
                           evidence=(f"max_connections {mc} < {threads} threads: {opens}" if mc < threads else
                                     f"{threads} threads > {room} free connections: {opens}; max_connections is {mc} "
                                     f"and {others} other connection{'s' if others != 1 else ''} were open when the "
                                     "snapshot was taken (status Threads_connected)")
                                    + (others_txt if mc < threads else "") + "; the connections "
                                    "beyond the limit fail with error 1040 \"Too many connections\" and sysbench stops.",
                           fix=f"Raise max_connections to at least {need} (SET GLOBAL max_connections = {need}; and in "
                               f"my.cnf for the next restart), or lower --threads to {max(1, room)} or less." + of_txt,
                           facts=facts)
    if muc and threads > muc:
        return CheckResult(status="fail",
                           evidence=f"max_user_connections {muc} < {threads} threads: {opens}, all as one user; the rest "
                                    "fail with error 1203 and sysbench stops.",
                           fix=f"Set max_user_connections = 0 (no per-user limit) or at least {threads}.", facts=facts)
    return CheckResult(status="pass",
                       evidence=f"max_connections {mc} ≥ {threads} threads{others_txt}.", facts=facts)


# ---------------------------------------------------------------- TLS

def tls_check_howto(view: FactView) -> str:
    """How to see, during the run, whether sysbench's connections are encrypted on this server."""
    flavor = view.snapshot.target.flavor
    ps = view.flag("var.performance_schema")
    if flavor in ("mysql", "percona") and ps is True:
        return ("During the run, `SELECT thread_id, ssl_version, ssl_cipher FROM sys.session_ssl_status` (built on "
                "performance_schema.status_by_thread) lists each connection's TLS version; empty means plain text.")
    if flavor == "tidb":
        return ("From the client host, connect with the same client library and options and run "
                "`SHOW SESSION STATUS LIKE 'Ssl_cipher'` (empty means plain text).")
    why = "performance_schema is off here" if ps is False else (
        "performance_schema state is unknown" if isinstance(ps, Unknown) else "per-connection TLS status is limited")
    return ("Run `SHOW GLOBAL STATUS LIKE 'Ssl_accepts'` before and during the run: it counts TLS handshakes, so it "
            f"grows by the number of threads if sysbench uses TLS and stays put if not ({why}, so per-connection "
            "status is not available).")


@CHECKS.define("sysbench-tls")
def tls(ctx: CheckContext) -> Optional[CheckResult]:
    cmd, view, local, era = ctx.cmd, ctx.view, ctx.local, ctx.era
    if not ctx.queries_the_server:
        return None
    howto = tls_check_howto(view)
    ssl = cmd.options.get("mysql-ssl")
    ssl_v = ssl.value if ssl is not None else cmd.get("mysql-ssl")
    offers = view.get("derived.server_offers_tls")
    facts: dict[str, Any] = {"mysql_ssl": str(ssl_v) if ssl is not None else None,
                             "server_offers_tls": None if isinstance(offers, Unknown) else offers,
                             "sysbench_version": local.version if local else None,
                             "client_library": (f"{local.library_file} {local.library_version or ''}".strip()
                                                if local and local.library_file else None)}
    if isinstance(ssl_v, Unresolved):
        return CheckResult(status="unknown",
                           evidence=f"--mysql-ssl is not known: {ssl_v.why}.", fix=howto, facts=facts)
    if era == "1.0" and ssl is not None and isinstance(ssl_v, str) and ssl_v in SSL_MODES_11:
        where = f"sysbench {local.version} on this machine" if local is not None and local.version else "sysbench 1.0"
        return CheckResult(status="fail",
                           evidence=f"{ssl.written}: {where} takes --mysql-ssl=on|off only and stops with \"invalid "
                                    "option\", so no connection is made.",
                           fix="Write --mysql-ssl=off for plain text (or on for TLS) on sysbench 1.0. " + howto, facts=facts)
    sock, hosts = cmd.socket(), cmd.hosts()
    if isinstance(sock, Unresolved) or any(isinstance(h, Unresolved) for h in hosts):
        bad = sock if isinstance(sock, Unresolved) else next(h for h in hosts if isinstance(h, Unresolved))
        return CheckResult(status="unknown",
                           evidence=f"whether sysbench connects through a Unix socket or over TCP is not known: "
                                    f"{bad.why}.", fix=howto, facts=facts)  # type: ignore[union-attr]
    if sock or hosts == ["localhost"]:
        return CheckResult(status="unknown",
                           evidence="sysbench connects through a Unix socket; whether its client library encrypts socket "
                                    "connections when TLS was not asked for is not established here.", fix=howto, facts=facts)
    asked = ssl is not None and ssl_v in ("on", "preferred", "required", "verify_ca", "verify_identity")
    refused = ssl is not None and ssl_v in ("off", "disabled")
    if isinstance(offers, Unknown):
        return CheckResult(status="unknown",
                           evidence=f"whether the server offers TLS is unknown: {offers.reason}.", fix=howto, facts=facts)
    if asked:
        if not offers:
            return CheckResult(status="fail",
                               evidence=f"{ssl.written} asks for TLS but the server offers none (have_ssl is not YES): "  # type: ignore[union-attr]
                                        "sysbench's connections will fail.",
                               fix="Drop --mysql-ssl, or configure ssl_cert/ssl_key/ssl_ca on the server.", facts=facts)
        extra = (" sysbench 1.0.x with --mysql-ssl=on reads cacert.pem, client-cert.pem and client-key.pem from its "
                 "working directory." if ssl_v == "on" else "")
        return CheckResult(status="pass",
                           evidence=f"{ssl.written} asks for TLS and the server offers it: the run is encrypted by choice; "  # type: ignore[union-attr]
                                    "state it in the report (on a 2-core test machine TLS cost 28–33% of point-select "
                                    "and read-only throughput, docs/checklist.md)." + extra, fix=howto, facts=facts)
    if not offers:
        return CheckResult(status="pass",
                           evidence="the server offers no TLS (have_ssl is not YES), so sysbench connects in plain text "
                                    "whatever its client library.", facts=facts)
    if refused and (ssl_v == "disabled" or era == "1.1"):
        return CheckResult(status="pass",
                           evidence=f"{ssl.written}: sysbench 1.1 sets SSL_MODE_DISABLED, so its connections are plain "  # type: ignore[union-attr]
                                    "text although the server offers TLS.", fix=howto, facts=facts)
    return _tls_by_client_library(ctx, ssl, howto, facts)


def _tls_by_client_library(ctx: CheckContext, ssl: Any, howto: str, facts: dict[str, Any]) -> CheckResult:
    """The server offers TLS and sysbench did not ask for it (no --mysql-ssl, or --mysql-ssl=off on 1.0.x):
    the client library's default decides (KNOWLEDGE.md §1.2, §1.3, §9)."""
    local, era, era_why = ctx.local, ctx.era, ctx.era_why
    said = f"{ssl.written}" if ssl is not None else "no --mysql-ssl"
    lib = local.library if local is not None else None
    libv = local.library_version if local is not None else None
    where = local.describe() if local is not None and local.path else None
    fix_off = ("To compare like with like, decide: plain text (sysbench 1.1: --mysql-ssl=disabled; 1.0.x with "
               "libmysqlclient: disable TLS on the benchmark server, since 1.0.x cannot turn it off) or TLS "
               "everywhere (--mysql-ssl=on / required). " + howto)
    if lib is None:
        why = (local.reason if local is not None and local.reason else "sysbench was not inspected")
        return CheckResult(status="unknown",
                           evidence=f"the server offers TLS and the command has {said}; then the client library decides: "
                                    "sysbench 1.0.x sets no SSL mode, so when linked against libmysqlclient ≥ 5.7.11 it "
                                    "uses TLS whenever the server offers it (PREFERRED), while Debian's sysbench 1.0.20 "
                                    "links libmariadb (3.3), which does not; sysbench 1.1 with libmysqlclient defaults to "
                                    f"disabled. Which library the sysbench that runs the benchmark uses is unknown ({why}).",
                           fix="On the client run `ldd $(command -v sysbench) | grep -E 'libmysqlclient|libmariadb|"
                               "libperconaserverclient'` and `sysbench --version`. " + fix_off, facts=facts)
    if lib == "libmariadb":
        v = _version_tuple(libv)
        if v is None:
            return CheckResult(status="unknown",
                               evidence=f"{where}; the server offers TLS and the command has {said}. libmariadb before 3.4 "
                                        "does not start TLS unless asked; 3.4 and later enable it by default (sysbench commit "
                                        "80de759). The library's version could not be read.", fix=fix_off, facts=facts)
        if v < (3, 4):
            return CheckResult(status="pass",
                               evidence=f"{where}: libmariadb {libv} does not start TLS unless asked, so with {said} the "
                                        "connections are plain text although the server offers TLS (checked with real runs: "
                                        "Ssl_accepts stays put during such a run).", fix=howto, facts=facts)
        return CheckResult(status="fail",
                           evidence=f"{where}: libmariadb {libv} enables TLS by default (sysbench commit 80de759: \"The new "
                                    f"libmariadb defaults to enabling SSL\"), so with {said} the run is encrypted without "
                                    "anyone having asked for it.", fix=fix_off, facts=facts)
    # libmysqlclient / libperconaserverclient
    if era is None:
        return CheckResult(status="unknown",
                           evidence=f"{where}; the server offers TLS and the command has {said}. With {lib}, sysbench "
                                    "1.0.x uses TLS (it sets no SSL mode, so the library's PREFERRED applies) and sysbench "
                                    f"1.1 does not (default --mysql-ssl=disabled); which one runs is unknown ({era_why}).",
                           fix="Check `sysbench --version` on the client. " + fix_off, facts=facts)
    if era == "1.1":
        return CheckResult(status="pass",
                           evidence=f"{where}: sysbench 1.1 built with {lib} defaults to --mysql-ssl=disabled, so the "
                                    "connections are plain text although the server offers TLS.", fix=howto, facts=facts)
    v = _version_tuple(libv)
    if v is not None and v < (5, 7, 11):
        return CheckResult(status="unknown",
                           evidence=f"{where}: {lib} {libv} predates --ssl-mode (5.7.11); whether it tries TLS by default "
                                    "is not established here.", fix=howto, facts=facts)
    return CheckResult(status="fail",
                       evidence=f"{where}: sysbench 1.0.x sets no SSL mode with {said}, and {lib} "
                                f"{libv or '(≥ 5.7.11 assumed)'} then defaults to PREFERRED, so every sysbench connection "
                                "negotiates TLS with this server without anyone having asked for it (docs/checklist.md, TLS).",
                       fix=fix_off, facts=facts)


def _version_tuple(v: Optional[str]) -> Optional[tuple[int, ...]]:
    if not v:
        return None
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", v)
    if not m:
        return None
    return tuple(int(x) for x in m.groups() if x is not None)
