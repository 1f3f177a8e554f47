"""Hardware profiles: a my.cnf without a server. A profile becomes a synthetic snapshot (the
catalogue's defaults as variables, host facts from the profile, no status counters), so a
profile and a live server go through the same rules, sizing and budget (one code path).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from advisor import __version__
from advisor.knowledge.catalogue import VariableCatalogue
from advisor.snapshot import BlockDevice, Cpu, HostFacts, Memory, Missing, ServerFacts, Snapshot, Storage, Target
from advisor.units import format_cnf_size, format_size
from advisor.versions import Version

DISKS = {  # --disk value -> snapshot device class
    "nvme-plp": "nvme_plp",
    "nvme-client": "nvme_client",
    "ssd": "ssd",
    "hdd": "rotational",
}
DISK_DESCRIPTION = {
    "nvme-plp": "datacenter NVMe with power-loss protection",
    "nvme-client": "client NVMe without power-loss protection",
    "ssd": "SATA/SAS SSD",
    "hdd": "spinning disk",
}
PROFILE_FLAVORS = ("mysql", "percona", "mariadb")
MIN_RAM = 1 << 30


@dataclass(frozen=True)
class Profile:
    ram_bytes: int
    cores: int
    disk: str            # a key of DISKS
    flavor: str
    version: str         # as given ("8.0.36", "10.11")
    workload: str        # oltp | bulk-load | benchmark

    @property
    def parsed_version(self) -> Version:
        return Version.parse(self.version)

    def describe(self) -> str:
        return (f"--profile --ram {format_cnf_size(self.ram_bytes)} --cores {self.cores} --disk {self.disk} "
                f"--flavor {self.flavor} --version {self.version} --workload {self.workload}")


def check_profile(p: Profile) -> Optional[str]:
    """Why the profile cannot be used, or None."""
    if p.flavor not in PROFILE_FLAVORS:
        return f"--flavor {p.flavor!r} is not one of {', '.join(PROFILE_FLAVORS)} (TiDB is configured in tidb.toml, not my.cnf)"
    if p.disk not in DISKS:
        return f"--disk {p.disk!r} is not one of {', '.join(DISKS)}"
    if p.ram_bytes < MIN_RAM:
        return (f"--ram {format_size(p.ram_bytes)} is below {format_size(MIN_RAM)}, the smallest memory this advisor "
                "sizes a server for")
    if p.cores < 1 or p.cores > 4096:
        return f"--cores {p.cores} is not a CPU count between 1 and 4096"
    v = p.parsed_version
    ok = {"mysql": (5, 9), "percona": (5, 8), "mariadb": (10, 11)}[p.flavor]
    if not ok[0] <= v.major <= ok[1]:
        return f"--version {p.version} is not a {p.flavor} version (expected {ok[0]}.x to {ok[1]}.x)"
    return None


def profile_snapshot(p: Profile, catalogue: VariableCatalogue) -> Snapshot:
    """The synthetic snapshot of a profile: the catalogue's defaults for it as the server's variables."""

    v = p.parsed_version
    version_string = f"{v}-MariaDB" if p.flavor == "mariadb" else (f"{v}-0" if p.flavor == "percona" else str(v))
    comment = {"mysql": "MySQL Community Server - GPL", "percona": "Percona Server (GPL)",
               "mariadb": "mariadb.org binary distribution"}[p.flavor]
    variables: dict[str, str] = {}
    bp_default = catalogue.default_for("innodb_buffer_pool_size", p.flavor, v)
    bp = int(bp_default) if bp_default is not None else None
    for name in catalogue.names():
        d = catalogue.default_for(name, p.flavor, v, cpus=p.cores, ram_bytes=p.ram_bytes, buffer_pool_bytes=bp)
        if d is not None:
            variables[name] = d
    variables["version"] = version_string
    variables["version_comment"] = comment
    server = ServerFacts(variables=variables, status={})
    server.note_missing("server.status", "a hardware profile has no server, so no status counters")
    server.note_missing("server.data_size", "a hardware profile has no data")
    cls = DISKS[p.disk]
    reason = f"given with --disk {p.disk} ({DISK_DESCRIPTION[p.disk]})"
    host = HostFacts(
        source="file", hostname="profile", origin="given with --profile",
        cpu=Cpu(logical_count=p.cores),
        memory=Memory(total_bytes=p.ram_bytes, effective_limit_bytes=p.ram_bytes),
        datadir=Storage(path="(profile)", devices=[BlockDevice(name="profile", model=f"--disk {p.disk}",
                                                              device_class=cls, class_reason=reason)],  # type: ignore[arg-type]
                        device_class=cls, class_reason=reason),  # type: ignore[arg-type]
    )
    snap = Snapshot(
        advisor_version=__version__, collected_at="profile",
        target=Target(flavor=p.flavor, version=str(v), version_string=version_string, version_comment=comment),  # type: ignore[arg-type]
        server=server, host=host,
    )
    snap.missing.append(Missing(fact="client", reason="a hardware profile has no client network path"))
    snap.missing.append(Missing(fact="calibration", reason="a hardware profile has no calibration measurements"))
    return snap


def state_host_facts(snapshot: Snapshot, ram_bytes: Optional[int], cores: Optional[int], disk: Optional[str]) -> Snapshot:
    """A copy of `snapshot` whose host facts include what the user stated with --ram, --cores and
    --disk (they replace collected values: the user knows the machine the file is for)."""
    snap = snapshot.model_copy(deep=True)
    host = snap.host if snap.host is not None else HostFacts(source="file")
    if snap.host is None:
        snap.missing = [m for m in snap.missing if m.fact != "host"]
        host.note_missing("host", "only the facts given on the command line (--ram, --cores, --disk) are known")
    given = " ".join(x for x, v in (("--ram", ram_bytes), ("--cores", cores), ("--disk", disk)) if v is not None)
    if given:
        host.origin = f"{given} given on the command line" + (f"; the other facts {host.origin}" if host.origin else "")
    if ram_bytes is not None:
        host.memory = Memory(total_bytes=ram_bytes, effective_limit_bytes=ram_bytes)
        host.source = "file"
    if cores is not None:
        host.cpu.logical_count = cores
    if disk is not None:
        cls = DISKS[disk]
        reason = f"given with --disk {disk} ({DISK_DESCRIPTION[disk]})"
        host.datadir = Storage(path=snap.server.variables.get("datadir", "(datadir)"),
                               devices=[BlockDevice(name="stated", model=f"--disk {disk}", device_class=cls,  # type: ignore[arg-type]
                                                    class_reason=reason)],
                               device_class=cls, class_reason=reason)  # type: ignore[arg-type]
    snap.host = host
    return snap
