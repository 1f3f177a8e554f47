"""Read the /proc files `advisor watch` samples: the I/O half of the host sampling (advisor.watch.procfs
and advisor.watch.counters parse and compute).

Like advisor.collect.host_gather, this module runs on the watched host as well: `advisor watch --ssh
USER@HOST` sends host_gather.py followed by this file to `python3 -` there, and the same code then
prints one JSON line per interval. So it imports nothing from advisor but host_gather's Gatherer (in
the shipped script it is defined above this code), runs on Python 3.6+, only reads files and never
runs a program. The same lines can be written by hand on a server without ssh access:
`python3 sampler.py --interval 1 > host.jsonl` (after host_gather.py, or with advisor installed:
`advisor watch --host-only`) and read with `advisor watch --host-stream host.jsonl`.

Stream format "advisor.watch-host/1", one JSON object per line:
  {"setup": {...}}             first line: clock ticks, CPUs, the server process, its CPU limits,
                               its network namespace, and the host's network files (route, NICs)
  {"sample": {"mono": s, "wall": s, "files": {"/proc/stat": "...", ...}}}   every interval
"""

import json
import os
import sys
import time

if "Gatherer" not in globals():  # in the shipped script host_gather's source comes first
    from advisor.collect.host_gather import Gatherer

STREAM_FORMAT = "advisor.watch-host/1"
MAX_READ = 1 << 20
MAX_TREE = 256  # processes followed under the benchmark command


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read(MAX_READ).decode("utf-8", "replace")
    except (OSError, IOError):
        return None


def _task_schedstat(pid):
    """/proc/PID/task/TID/schedstat of every thread: {tid: text} (run time, run-queue wait, timeslices)."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except (OSError, IOError):
        return out
    for tid in tids[:4096]:
        text = _read("/proc/%d/task/%s/schedstat" % (pid, tid))
        if text is not None:
            out[tid] = text
    return out


def _link(path):
    try:
        return os.readlink(path)
    except (OSError, IOError):
        return None


class HostSampler(object):
    """Samples one host. `pid` / `pid_file` / `dirs` find the server process (host_gather's search);
    `command_pid` (set once the benchmark runs here) adds the command's process tree. Call setup()
    once before sample()."""

    def __init__(self, pid=None, pid_file=None, dirs=(), command_pid=None):
        self.dirs = list(dirs)
        self.pid_file = pid_file
        self.given_pid = pid
        self.pid = None
        self.command_pid = command_pid
        self.other_netns = False

    # ------------------------------------------------------------------ once
    def setup(self, server=True):
        """The host's facts as host_gather reads them (so the datadir's devices and the NICs are
        parsed like an audit's), plus what sampling needs: the server process, its CPU affinity
        and quota, its network namespace and routes. `server=False` for a client-only host."""
        g = Gatherer("/")
        if server:
            g.host(self.dirs, self.pid_file, self.given_pid)
        else:
            g.read("/proc/sys/kernel/hostname")
            g.raw["mysqld"] = {"pid": None, "how": "not searched on the client's host"}
        g.network()
        self.pid = (g.raw.get("mysqld") or {}).get("pid")
        if server and self.pid and not self.dirs:  # mysqld runs in its datadir
            cwd = g.readlink("/proc/%d/cwd" % self.pid)
            if cwd:
                g.path_info(cwd)
                g.mount_devices()
        files = {}
        if self.pid:
            base = "/proc/%d" % self.pid
            for p in ("/status", "/net/route", "/net/ipv6_route", "/net/if_inet6", "/net/fib_trie"):
                files[base + p] = _read(base + p)
            mine, theirs = _link("/proc/self/ns/net"), _link(base + "/ns/net")
            self.other_netns = bool(mine and theirs and mine != theirs)
            files.update(self._cgroup_cpu(g.raw["files"].get(base + "/cgroup") or ""))
        return {"format": STREAM_FORMAT, "clk_tck": os.sysconf("SC_CLK_TCK"), "cpu_count": os.cpu_count(),
                "other_netns": self.other_netns, "files": files, "host": g.raw, "wall": time.time()}

    def _cgroup_cpu(self, cgroup_text):
        """cpu.max (v2) or cpu.cfs_quota_us / cpu.cfs_period_us (v1) of the server's cgroup and its parents."""
        out = {}
        mounts = []
        for line in (_read("/proc/self/mountinfo") or "").splitlines():
            left, _, right = line.partition(" - ")
            f, r = left.split(), right.split()
            if len(f) >= 5 and r and r[0] in ("cgroup", "cgroup2"):
                mounts.append((f[3], f[4], r[0], r[2] if len(r) > 2 else ""))
        for line in cgroup_text.splitlines():
            parts = line.split(":", 2)
            if len(parts) != 3:
                continue
            hid, controllers, path = parts
            for root, point, fstype, opts in mounts:
                if fstype == "cgroup2" and hid != "0":
                    continue
                if fstype == "cgroup" and ("cpu" not in controllers.split(",") or "cpu" not in opts.split(",")):
                    continue
                rel = path[len(root):] if root != "/" and path.startswith(root) else path
                segs = [s for s in rel.split("/") if s and s != ".."]
                for i in range(len(segs), -1, -1):
                    d = "/".join([point.rstrip("/")] + segs[:i])
                    names = ("cpu.max",) if fstype == "cgroup2" else ("cpu.cfs_quota_us", "cpu.cfs_period_us")
                    for n in names:
                        text = _read(d + "/" + n)
                        if text is not None:
                            out[d + "/" + n] = text
        return out

    # ------------------------------------------------------------------ every interval
    def sample(self):
        files = {}
        for p in ("/proc/stat", "/proc/diskstats", "/proc/net/dev"):
            files[p] = _read(p)
        schedstat = {}
        if self.pid:
            base = "/proc/%d" % self.pid
            files[base + "/stat"] = _read(base + "/stat")
            schedstat[str(self.pid)] = _task_schedstat(self.pid)
            if self.other_netns:
                files[base + "/net/dev"] = _read(base + "/net/dev")
        tree = []
        if self.command_pid:
            for pid in self.command_tree():
                text = _read("/proc/%d/stat" % pid)
                if text is not None:
                    tree.append(text)
                    schedstat[str(pid)] = _task_schedstat(pid)
        return {"mono": time.monotonic(), "wall": time.time(), "files": files, "command": tree,
                "schedstat": schedstat}

    def command_tree(self):
        """The command and every descendant alive now (from /proc/PID/task/TID/children)."""
        seen, todo = [], [self.command_pid]
        while todo and len(seen) < MAX_TREE:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.append(pid)
            try:
                tids = os.listdir("/proc/%d/task" % pid)
            except (OSError, IOError):
                continue
            for tid in tids:
                kids = _read("/proc/%d/task/%s/children" % (pid, tid)) or ""
                todo.extend(int(k) for k in kids.split() if k.isdigit())
        return seen


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(prog="sampler", description="Print host samples as JSON lines (read-only).")
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--count", type=int, default=0, help="samples to print (0: until stopped)")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--pid-file")
    ap.add_argument("--dir", action="append", default=[])
    a = ap.parse_args(argv)
    s = HostSampler(a.pid, a.pid_file, a.dir)
    out = sys.stdout
    try:
        out.write(json.dumps({"setup": s.setup()}) + "\n")
        out.flush()
        n = 0
        nxt = time.monotonic()
        while a.count <= 0 or n < a.count:
            out.write(json.dumps({"sample": s.sample()}) + "\n")
            out.flush()
            n += 1
            nxt += a.interval
            time.sleep(max(0.0, nxt - time.monotonic()))
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
