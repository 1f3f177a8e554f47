"""`advisor mycnf`: generate a justified my.cnf (live server, snapshot, demo or hardware profile),
or validate one (--validate FILE)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from advisor.commands.options import (OUT, RULES, AskPassword, Calibrate, CalibrateSecondsOpt, ConnectTimeout,
                                      DefaultsExtraFile, DefaultsFile, Host, HostFacts, Ignore, LoginPath,
                                      NoDefaults, OutputFile, Password, Port, Protocol, Purpose, ReadTimeout,
                                      RulesDirs, SampleSeconds, Socket, Ssh, SshOption, SslCa, SslCert, SslKey,
                                      SslMode, SslVerifyServerCert, Sysroot, UseSsl, User, conn_options, split_ids,
                                      write_output)

PROFILE = "Hardware profile (no server)"


class Mode(str, Enum):
    changes = "changes"
    full = "full"


class Disk(str, Enum):
    nvme_plp = "nvme-plp"
    nvme_client = "nvme-client"
    ssd = "ssd"
    hdd = "hdd"


class Flavor(str, Enum):
    mysql = "mysql"
    percona = "percona"
    mariadb = "mariadb"


class Workload(str, Enum):
    oltp = "oltp"
    bulk_load = "bulk-load"
    benchmark = "benchmark"


def _size(text: Optional[str], option: str) -> Optional[int]:
    from advisor.errors import UsageError
    from advisor.units import parse_size

    if text is None:
        return None
    from advisor.inputs import clip

    try:
        n = parse_size(text)
    except ValueError:
        raise UsageError(f"{option} {clip(text, 40)} is not a size.", "write it as my.cnf does, e.g. 64G or 512M.") from None
    if not 1 << 20 <= n <= 1 << 64:
        raise UsageError(f"{option} {clip(text, 40)} is not a memory size a server can have (1M to 16E).",
                         "write the machine's memory as my.cnf does, e.g. 64G or 512M.")
    return n


def mycnf(
    host: Host = None, port: Port = None, socket: Socket = None, user: User = None, password: Password = None,
    ask_password: AskPassword = False, defaults_file: DefaultsFile = None, defaults_extra_file: DefaultsExtraFile = None,
    no_defaults: NoDefaults = False, login_path: LoginPath = None, ssl_mode: SslMode = None, ssl_ca: SslCa = None, ssl_cert: SslCert = None,
    ssl_key: SslKey = None, use_ssl: UseSsl = None,
    ssl_verify_server_cert: SslVerifyServerCert = False, protocol: Protocol = None, connect_timeout: ConnectTimeout = 5.0, read_timeout: ReadTimeout = 30.0,
    sample_seconds: SampleSeconds = 0.0,
    sysroot: Sysroot = None, ssh: Ssh = None, ssh_option: SshOption = None, host_facts: HostFacts = None,
    calibrate: Calibrate = None, calibrate_seconds: CalibrateSecondsOpt = 10.0,
    snapshot: Annotated[Optional[str], typer.Option("--snapshot", help="Size from a saved snapshot (from `advisor collect`); '-' reads standard input.")] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Size the bundled demo snapshot (the seed-000 benchmark server).")] = False,
    profile: Annotated[bool, typer.Option("--profile", help="No server: size from a hardware profile (--ram --cores --disk --flavor --version --workload).", rich_help_panel=PROFILE)] = False,
    ram: Annotated[Optional[str], typer.Option("--ram", help="Memory for the server (e.g. 64G): the profile's RAM, or, with a server or snapshot, facts the snapshot lacks.", rich_help_panel=PROFILE)] = None,
    cores: Annotated[Optional[int], typer.Option("--cores", help="Logical CPUs.", rich_help_panel=PROFILE)] = None,
    disk: Annotated[Optional[Disk], typer.Option("--disk", help="Datadir device: nvme-plp (datacenter NVMe), nvme-client, ssd or hdd.", rich_help_panel=PROFILE)] = None,
    flavor: Annotated[Optional[Flavor], typer.Option("--flavor", help="mysql, percona or mariadb (profile, or the target of --validate).", rich_help_panel=PROFILE)] = None,
    version: Annotated[Optional[str], typer.Option("--version", help="Server version, e.g. 8.0.36 or 10.11 (profile, or the target of --validate).", rich_help_panel=PROFILE)] = None,
    workload: Annotated[Optional[Workload], typer.Option("--workload", help="oltp, bulk-load or benchmark (default: benchmark for --purpose benchmark, else oltp).", rich_help_panel=PROFILE)] = None,
    purpose: Annotated[Optional[Purpose], typer.Option("--purpose", help="production (default) or benchmark; a profile with --workload benchmark defaults to benchmark.", rich_help_panel=RULES)] = None,
    allow_unsafe_durability: Annotated[bool, typer.Option("--allow-unsafe-durability", help="With --purpose benchmark only: relax innodb_flush_log_at_trx_commit, sync_binlog and the doublewrite buffer (a banner says so).", rich_help_panel=RULES)] = False,
    rules: RulesDirs = None,
    ignore: Ignore = None,
    mode: Annotated[Mode, typer.Option("--mode", help="changes (default): a conf.d drop-in with only what changes; full: a complete [mysqld] tuning section.", rich_help_panel=OUT)] = Mode.changes,
    validate: Annotated[Optional[str], typer.Option("--validate", help="Check this my.cnf against the variable catalogue and, when a matching server binary is installed, the server itself; exit 1 on a problem or when an option could be checked by neither.", rich_help_panel=OUT)] = None,
    no_server_check: Annotated[bool, typer.Option("--no-server-check", help="With --validate: check against the catalogue only.", rich_help_panel=OUT)] = False,
    sysbench: Annotated[Optional[str], typer.Option("--sysbench", help="The benchmark's sysbench command line, in quotes: its --threads size max_connections and the connections the memory budget counts.", rich_help_panel=RULES)] = None,
    output: OutputFile = None,
) -> None:
    """Write a tuned my.cnf where every setting carries its rule, previous value, reason and source; or validate one."""
    from advisor.errors import UsageError

    conn_given = any(x is not None for x in (host, port, socket))
    sources = [n for n, on in (("--snapshot", snapshot is not None), ("--demo", demo), ("--profile", profile),
                               ("--host/--port/--socket", conn_given)) if on]
    if len(sources) > 1:
        raise UsageError(f"{' and '.join(sources)} cannot be used together.", "give one source of facts.")
    ram_bytes = _size(ram, "--ram")
    machine_given = [n for n, v in (("--sysroot", sysroot), ("--ssh", ssh), ("--host-facts", host_facts)) if v]
    if machine_given and (snapshot is not None or demo or profile):
        raise UsageError(f"{', '.join(machine_given)} apply when collecting from a server; a snapshot, the demo or a "
                         "profile already holds its host facts.", "use --ram, --cores and --disk to state them instead.")
    conn = lambda: conn_options(host, port, socket, user, password, ask_password, defaults_file,  # noqa: E731
                                defaults_extra_file, no_defaults, ssl_mode, ssl_ca, ssl_cert, ssl_key, connect_timeout,
                                read_timeout, login_path=login_path,
                                use_ssl=use_ssl, ssl_verify_server_cert=ssl_verify_server_cert, protocol=protocol)
    if validate is not None:
        _validate(validate, flavor, version, snapshot, demo, conn_given, ram_bytes, no_server_check, output, conn)
        return
    purpose_v = purpose.value if purpose is not None else None
    threads = None
    if sysbench is not None:
        from advisor import api

        threads = api.sysbench_threads(sysbench)  # a malformed command is a usage error before any connection
    common = dict(mode=mode.value, allow_unsafe_durability=allow_unsafe_durability, rules_dirs=tuple(rules or []),
                  ignore=tuple(split_ids(ignore)), threads=threads)
    failure = None
    if profile:
        plan = _profile_plan(ram, ram_bytes, cores, disk, flavor, version, workload, purpose_v, common)
    else:
        if flavor is not None or version is not None:
            raise UsageError("--flavor and --version describe a --profile or the target of --validate; a server or "
                             "snapshot states its own.", "leave --flavor and --version out, or use them with --profile or --validate.")
        stated = (ram_bytes, cores, disk.value if disk is not None else None)
        collection = None if (snapshot is not None or demo) else \
            _collection(conn(), sample_seconds, sysroot, ssh, ssh_option, host_facts)
        plan, failure = _server_plan(snapshot, demo, collection, stated, purpose_v or "production",
                            workload.value if workload is not None else None,
                            _calibration(calibrate, calibrate_seconds), common)
    from advisor.knowledge import default_catalogue
    from advisor.render.mycnf import render

    write_output(render(plan, default_catalogue()), output)
    if failure is not None:  # calibration failed after the facts were collected: the file is written, exit 5
        raise failure


def _collection(opts, sample_seconds, sysroot, ssh, ssh_option, host_facts):  # type: ignore[no-untyped-def]
    from advisor import api

    return api.Collection(opts, sample_seconds=sample_seconds, sysroot=sysroot, ssh=ssh,
                          ssh_options=tuple(ssh_option or []), host_facts=host_facts)


def _calibration(calibrate: Optional[bool], budget_s: float):  # type: ignore[no-untyped-def]
    from advisor import api

    return api.Calibration(calibrate, budget_s)


def _profile_plan(ram, ram_bytes, cores, disk, flavor, version, workload, purpose_v, common):  # type: ignore[no-untyped-def]
    from advisor import api
    from advisor.errors import UsageError
    from advisor.mycnf.profile import Profile, check_profile

    missing = [n for n, v in (("--ram", ram), ("--cores", cores), ("--disk", disk), ("--flavor", flavor),
                              ("--version", version)) if v is None]
    if missing:
        raise UsageError(f"--profile needs {', '.join(missing)}.",
                         "e.g. advisor mycnf --profile --ram 64G --cores 16 --disk nvme-plp --flavor mysql "
                         "--version 8.0.36 --workload oltp")
    wl = workload.value if workload is not None else ("benchmark" if purpose_v == "benchmark" else "oltp")
    try:
        prof = Profile(ram_bytes=ram_bytes or 0, cores=cores or 0, disk=disk.value, flavor=flavor.value,
                       version=version or "", workload=wl)
        problem = check_profile(prof)
    except ValueError as e:
        raise UsageError(f"--version {version!r} is not a version ({e}).", "write it as 8.0.36 or 10.11.") from None
    if problem:
        raise UsageError(problem + ".", "`advisor mycnf --help` lists the profile options.")
    purpose_v = purpose_v or ("benchmark" if wl == "benchmark" else "production")
    return api.mycnf_profile(prof, purpose=purpose_v, mode=common["mode"],
                             allow_unsafe_durability=common["allow_unsafe_durability"],
                             rules_dirs=common["rules_dirs"], ignore=common["ignore"], threads=common["threads"])


def _server_plan(snapshot, demo, collection, stated, purpose, workload, calibration, common):  # type: ignore[no-untyped-def]
    """The plan for a live server (collected, calibrated as the purpose says), a snapshot or the demo,
    with the host facts stated by --ram/--cores/--disk laid over what was collected."""
    from advisor import api
    from advisor.mycnf.model import MycnfOptions, check_options
    from advisor.mycnf.profile import state_host_facts

    adjust = (lambda s: state_host_facts(s, *stated)) if any(x is not None for x in stated) else None
    if collection is None:
        snap = api.demo_snapshot() if demo else api.read_snapshot_file(snapshot)
        source = "the bundled demo snapshot (seed 000)" if demo else f"snapshot {snapshot} (collected {snap.collected_at})"
        opts = MycnfOptions(purpose=purpose, workload=workload, source=source, **common)
        check_options(snap, opts)
        a = api.assess(purpose, snapshot=snap, rules_dirs=opts.rules_dirs, ignore=opts.ignore, source=source,
                       adjust=adjust)
        return api.mycnf_of(a, opts), None
    a = api.assess(purpose, collection=collection, calibration=calibration, rules_dirs=common["rules_dirs"],
                   ignore=common["ignore"], adjust=adjust)
    t = a.snapshot.target
    where = f"{t.host}:{t.port}" if t.transport == "tcp" else (t.socket or "localhost")
    opts = MycnfOptions(purpose=purpose, workload=workload, source=f"the live server {where} (collected "
                        f"{a.snapshot.collected_at})", **common)
    check_options(a.snapshot, opts)
    a.report.source = opts.source
    return api.mycnf_of(a, opts), a.failure


def _validate(path: str, flavor: Optional[Flavor], version: Optional[str], snapshot: Optional[str], demo: bool,
              conn_given: bool, ram_bytes: Optional[int], no_server_check: bool, output: Optional[str], conn) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    from advisor import api
    from advisor.errors import InvalidInputError, UsageError
    from advisor.knowledge import default_catalogue
    from advisor.mycnf.validate import validate_file
    from advisor.render.validate import render_text
    from advisor.versions import Version

    if not Path(path).is_file():
        raise InvalidInputError(f"my.cnf file {path} does not exist.", "pass the file written by `advisor mycnf -o FILE`.")
    base: Optional[dict[str, str]] = None
    limit = ram_bytes
    if flavor is not None or version is not None:
        if flavor is None or version is None:
            raise UsageError("--validate with --flavor needs --version too (and the other way round).", "pass both, e.g. --flavor mysql --version 8.0.36.")
        if snapshot is not None or demo or conn_given:
            raise UsageError("give the target of --validate either as --flavor/--version or as a server/snapshot.", "pass --flavor and --version, or a server (--host ...) or --snapshot FILE, not both.")
        try:
            ver = Version.parse(version)
        except ValueError:
            raise UsageError(f"--version {version!r} is not a version.", "write it as 8.0.36 or 10.11.") from None
        fl, source = flavor.value, "given with --flavor/--version"
    elif snapshot is not None or demo or conn_given:
        snap = api.demo_snapshot() if demo else (api.read_snapshot_file(snapshot) if snapshot is not None
                                                 else api.collect(conn()))
        if snap.target.flavor == "tidb":
            raise UsageError("TiDB is configured in tidb.toml, not with a my.cnf.", "audit a TiDB server with `advisor audit`; its findings name the tidb.toml items.")
        fl, ver = snap.target.flavor, Version.parse(snap.target.version)
        source = "from the snapshot" if snapshot or demo else "from the live server"
        base = dict(snap.server.variables)
        if limit is None and snap.host is not None:
            m = snap.host.memory
            limit = m.effective_limit_bytes or m.cgroup_limit_bytes or m.total_bytes
    else:
        from advisor.mycnf.trial import find_local_target

        found = find_local_target()
        if found is None:
            raise UsageError("--validate needs the target: --flavor and --version, a snapshot, or connection options.",
                             "e.g. advisor mycnf --validate 99-advisor.cnf --flavor mariadb --version 10.11")
        fl, ver, source = found
    try:
        res = validate_file(path, fl, ver, source, limit=limit, base_variables=base, server_check=not no_server_check,
                            catalogue=default_catalogue())
    except OSError as e:
        raise InvalidInputError(f"cannot read {path}: {e.strerror}.", "check the file and its permissions.") from None
    write_output(render_text(res), output)
    if not res.ok:
        raise typer.Exit(1)
