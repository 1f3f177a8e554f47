"""Gather the raw /proc and /sys files behind host facts and the client's network path.

This module is the I/O half of the host collector and is deliberately self-contained: it imports
nothing from advisor and runs on Python 3.6+, because `advisor audit --ssh user@db` ships this
very file to the server (`ssh user@db python3 - ARGS` with the source on standard input) and runs
it there. It only reads files, lists directories and resolves symlinks; it never writes and runs
no program. Its output is a JSON document of what it read ("raw"), so parsing happens locally, in
advisor.collect.host_parse / network_parse, identically for local, remote and recorded trees.

Every path is read under `root` (default "/"): point it at a recorded tree of /proc and /sys
(tests/fixtures/hosts/<name>/, or `--sysroot DIR` in a support case) and the same code runs.

Raw document (format "advisor.host-raw/1"):
  files     {"/proc/meminfo": "<content>", ...}       paths as seen on the host, not under root
  links     {"/sys/class/net/em3": "../../devices/...", ...}   symlink targets as read
  dirs      {"/sys/class/net": ["em3", "lo"], ...}     directory listings
  errors    {"/sys/class/net/lo/speed": "OSError: [Errno 22] Invalid argument", ...}
  paths     {"/var/lib/mysql": {"realpath": "/data/mysql", "dev": "259:2"}}   requested dirs
  mysqld    {"pid": 1234, "how": "...", "candidates": [...]} or {"pid": null, "how": "..."}
"""

import json
import os
import re
import sys

FORMAT = "advisor.host-raw/1"
MAX_FILE = 1 << 20          # no file the parsers need is larger; mountinfo on a busy k8s node can be ~1 MiB
MAX_CPUS = 4096
MAX_DEPTH = 8               # device-mapper / md stacking depth followed

MYSQLD_NAMES = ("mariadbd", "mysqld")

BLOCK_FILES = (
    "size", "ro", "removable", "dev", "partition", "start",
    "queue/rotational", "queue/write_cache", "queue/scheduler", "queue/logical_block_size",
    "queue/physical_block_size", "queue/hw_sector_size",
    "device/model", "device/vendor", "device/rev", "device/firmware_rev", "device/transport",
    "device/type", "device/device", "device/vendor_id",
    "dm/name", "dm/uuid", "md/level", "md/raid_disks", "md/array_state",
)
BLOCK_LINKS = ("", "device", "device/driver", "device/subsystem", "bdi")
NET_FILES = ("operstate", "speed", "duplex", "mtu", "type", "ifindex", "iflink", "uevent",
             "statistics/rx_bytes", "statistics/tx_bytes", "carrier")


class Gatherer(object):
    def __init__(self, root="/"):
        self.root = root or "/"
        self.raw = {"format": FORMAT, "root": self.root, "files": {}, "links": {}, "dirs": {},
                    "errors": {}, "paths": {}, "mysqld": None}

    # ------------------------------------------------------------------ primitives
    def _abs(self, path):
        if self.root in ("", "/"):
            return path
        return os.path.join(self.root, path.lstrip("/"))

    def read(self, path):
        """The file's text (also recorded), or None when it cannot be read (error recorded)."""
        files = self.raw["files"]
        if path in files:
            return files[path]
        if path in self.raw["errors"]:
            return None
        try:
            with open(self._abs(path), "rb") as f:
                data = f.read(MAX_FILE)
            text = data.decode("utf-8", "replace")
        except (OSError, IOError, ValueError) as e:  # ValueError: a NUL byte in the path
            self.raw["errors"][path] = "%s: %s" % (type(e).__name__, getattr(e, "strerror", None) or e)
            return None
        files[path] = text
        return text

    def readlink(self, path):
        links = self.raw["links"]
        if path in links:
            return links[path]
        try:
            target = os.readlink(self._abs(path))
        except (OSError, IOError, ValueError) as e:  # ValueError: a NUL byte in the path
            if path not in self.raw["errors"]:
                self.raw["errors"][path] = "%s: %s" % (type(e).__name__, getattr(e, "strerror", None) or e)
            return None
        links[path] = target
        return target

    def listdir(self, path):
        dirs = self.raw["dirs"]
        if path in dirs:
            return dirs[path]
        try:
            names = sorted(os.listdir(self._abs(path)))
        except (OSError, IOError, ValueError) as e:  # ValueError: a NUL byte in the path
            if path not in self.raw["errors"]:
                self.raw["errors"][path] = "%s: %s" % (type(e).__name__, getattr(e, "strerror", None) or e)
            return None
        dirs[path] = names
        return names

    # ------------------------------------------------------------------ host
    def host(self, dirs=(), pid_file=None, pid=None):
        for p in ("/proc/cpuinfo", "/proc/meminfo", "/proc/sys/vm/swappiness", "/proc/sys/kernel/hostname",
                  "/proc/sys/kernel/osrelease", "/proc/self/mountinfo", "/proc/self/cgroup",
                  "/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/defrag",
                  "/sys/devices/system/node/online", "/sys/devices/system/cpu/online"):
            self.read(p)
        self.listdir("/sys/devices/system/node")
        self._governors()
        mysqld = self._mysqld(pid_file, pid, dirs)
        self.raw["mysqld"] = mysqld
        if mysqld.get("pid"):
            base = "/proc/%d" % mysqld["pid"]
            self.read(base + "/limits")
            self.read(base + "/cgroup")
            self.read(base + "/mountinfo")
            self.readlink(base + "/cwd")
        self._cgroups(mysqld.get("pid"))
        for d in dirs:
            self.path_info(d)
        self.mount_devices()
        return self.raw

    def _governors(self):
        policies = self.listdir("/sys/devices/system/cpu/cpufreq")
        if policies:
            for p in policies:
                if p.startswith("policy"):
                    self.read("/sys/devices/system/cpu/cpufreq/%s/scaling_governor" % p)
            return
        cpus = self.listdir("/sys/devices/system/cpu") or []
        for c in [c for c in cpus if re.match(r"^cpu\d+$", c)][:MAX_CPUS]:
            self.read("/sys/devices/system/cpu/%s/cpufreq/scaling_governor" % c)

    def _mysqld(self, pid_file, pid, dirs):
        """Find the server process: the given pid, the pid file, or a /proc scan for mariadbd/mysqld."""
        if pid:
            return {"pid": int(pid), "how": "given pid %d" % int(pid)}
        if pid_file:
            text = self.read(pid_file)
            if text and text.strip().isdigit():
                p = int(text.strip())
                if self.read("/proc/%d/comm" % p) is not None:
                    return {"pid": p, "how": "pid_file %s" % pid_file}
        found = []
        for name in self.listdir("/proc") or []:
            if not name.isdigit():
                continue
            comm = self.read("/proc/%s/comm" % name)
            if comm is None or comm.strip() not in MYSQLD_NAMES:
                self.raw["files"].pop("/proc/%s/comm" % name, None)
                self.raw["errors"].pop("/proc/%s/comm" % name, None)
                continue
            cwd = self.readlink("/proc/%s/cwd" % name)
            found.append({"pid": int(name), "comm": comm.strip(), "cwd": cwd})
        why = "pid_file %s not readable here; " % pid_file if pid_file else ""
        if not found:
            return {"pid": None, "how": why + "no mariadbd or mysqld process visible in /proc", "candidates": []}
        want = set()
        for d in dirs:
            want.add(d.rstrip("/"))
            if self.root in ("", "/"):
                want.add(os.path.realpath(d).rstrip("/"))
        match = [f for f in found if f["cwd"] and f["cwd"].rstrip("/") in want]
        if len(match) == 1:
            return {"pid": match[0]["pid"], "how": "the %s process whose working directory is %s"
                    % (match[0]["comm"], match[0]["cwd"]), "candidates": found}
        if len(found) == 1:
            return {"pid": found[0]["pid"], "how": "the only %s process" % found[0]["comm"], "candidates": found}
        return {"pid": None, "how": why + "%d mariadbd/mysqld processes and none runs in the datadir" % len(found),
                "candidates": found}

    def _cgroups(self, pid):
        cg = self.read("/proc/%d/cgroup" % pid) if pid else None
        if cg is None:
            cg = self.read("/proc/self/cgroup")
        mi = self.read("/proc/self/mountinfo") or ""
        if not cg:
            return
        for mount_root, mount_point, fstype, opts in cgroup_mounts(mi):
            for line in cg.splitlines():
                parts = line.split(":", 2)
                if len(parts) != 3:
                    continue
                hid, controllers, path = parts
                if fstype == "cgroup2" and hid != "0":
                    continue
                if fstype == "cgroup" and "memory" not in controllers.split(","):
                    continue
                if fstype == "cgroup" and "memory" not in opts.split(","):
                    continue
                for d in cgroup_dirs(mount_root, mount_point, path):
                    if fstype == "cgroup2":
                        self.read(d + "/memory.max")
                    else:
                        self.read(d + "/memory.limit_in_bytes")
                        self.read(d + "/memory.stat")

    def path_info(self, d):
        info = {}
        if self.root in ("", "/"):
            try:
                info["realpath"] = os.path.realpath(d)
                st = os.stat(d)
                info["dev"] = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
                info["exists"] = True
            except (OSError, IOError, ValueError) as e:  # ValueError: a NUL byte in the path
                info["exists"] = False
                info["error"] = "%s: %s" % (type(e).__name__, getattr(e, "strerror", None) or e)
        self.raw["paths"][d] = info
        if info.get("dev"):
            self._dev_number(info["dev"])

    # ------------------------------------------------------------------ block devices
    def mount_devices(self):
        for text in [self.raw["files"].get(k) for k in list(self.raw["files"]) if k.endswith("/mountinfo")]:
            for m in parse_mountinfo_lines(text or ""):
                if m["major"] != "0":
                    self._dev_number("%s:%s" % (m["major"], m["minor"]))
                elif m["source"].startswith("/dev/"):
                    self._dev_path(m["source"])

    def _dev_number(self, number):
        target = self.readlink("/sys/dev/block/" + number)
        if target:
            self._block(target.rstrip("/").split("/")[-1], 0)

    def _dev_path(self, path):
        target = self.readlink(path)
        name = (target or path).rstrip("/").split("/")[-1]
        if name:
            self._block(name, 0)

    def _block(self, name, depth):
        if depth > MAX_DEPTH or not re.match(r"^[A-Za-z0-9_.:!-]+$", name):
            return
        base = "/sys/class/block/" + name
        if base in self.raw["links"] or base in self.raw["errors"]:
            return
        target = self.readlink(base)
        if target is None:
            return
        if self.read(base + "/partition") is not None:
            self.read(base + "/size")
            parent = target.rstrip("/").split("/")[-2]
            self._block(parent, depth + 1)
            return
        for f in BLOCK_FILES:
            self.read("%s/%s" % (base, f))
        for lk in BLOCK_LINKS:
            if lk:
                self.readlink("%s/%s" % (base, lk))
        for slave in self.listdir(base + "/slaves") or []:
            self.readlink(base + "/slaves/" + slave)
            self._block(slave, depth + 1)

    # ------------------------------------------------------------------ client network
    def network(self):
        for p in ("/proc/net/route", "/proc/net/ipv6_route", "/proc/net/fib_trie", "/proc/net/if_inet6",
                  "/proc/sys/kernel/hostname"):
            self.read(p)
        for name in self.listdir("/sys/class/net") or []:
            base = "/sys/class/net/" + name
            self.readlink(base)
            listing = self.listdir(base) or []
            if "device" in listing:
                self.readlink(base + "/device")
                self.readlink(base + "/device/driver")
            for entry in listing:
                if entry.startswith("lower_"):
                    self.readlink(base + "/" + entry)
            for f in NET_FILES:
                self.read("%s/%s" % (base, f))
        return self.raw


# ---------------------------------------------------------------------- helpers shared with the parsers

def parse_mountinfo_lines(text):
    """proc(5) mountinfo: id parent major:minor root mountpoint options [optional...] - fstype source superopts."""
    out = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        f = left.split()
        r = right.split()
        if len(f) < 6 or len(r) < 2:
            continue
        major, _, minor = f[2].partition(":")
        out.append({"major": major, "minor": minor, "root": unescape(f[3]), "mount_point": unescape(f[4]),
                    "options": f[5], "fstype": r[0], "source": unescape(r[1]),
                    "super_options": r[2] if len(r) > 2 else ""})
    return out


def unescape(s):
    """mountinfo escapes space, tab, newline and backslash as \\ooo octal."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)


def cgroup_mounts(mountinfo_text):
    """(mount root, mount point, fstype, super options) of cgroup v1 and v2 mounts."""
    out = []
    for m in parse_mountinfo_lines(mountinfo_text):
        if m["fstype"] in ("cgroup", "cgroup2"):
            out.append((m["root"], m["mount_point"], m["fstype"], m["super_options"]))
    return out


def cgroup_dirs(mount_root, mount_point, cg_path):
    """Directories from the process's cgroup up to the mount's root, innermost first.

    A cgroup path in /proc/PID/cgroup is relative to the hierarchy's root; a mount whose root is
    R shows the subtree under R. Inside a container with its own cgroup namespace the path is '/'
    and the mount root is '/', so the limit sits at the mount point itself."""
    mount_root = mount_root.rstrip("/") or "/"
    cg_path = cg_path or "/"
    if mount_root != "/" and (cg_path == mount_root or cg_path.startswith(mount_root + "/")):
        rel = cg_path[len(mount_root):]
    elif mount_root == "/":
        rel = cg_path
    else:
        rel = "/"
    parts = [p for p in rel.split("/") if p and p != ".."]
    dirs = []
    for i in range(len(parts), -1, -1):
        dirs.append("/".join([mount_point.rstrip("/")] + parts[:i]) or "/")
    return dirs


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(prog="host_gather", description="Print the raw host files as JSON (read-only).")
    ap.add_argument("--root", default="/")
    ap.add_argument("--dir", action="append", default=[], help="a server directory to resolve (datadir, ...)")
    ap.add_argument("--pid-file")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--network", action="store_true", help="also gather the network files")
    a = ap.parse_args(argv)
    g = Gatherer(a.root)
    g.host(a.dir, a.pid_file, a.pid)
    if a.network:
        g.network()
    sys.stdout.write(json.dumps(g.raw, sort_keys=True))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
