"""Separate hosts on this machine: workers in network, UTS and PID namespaces of their own.

A Network makes each host a network namespace joined to the root namespace by a veth pair on
a /30 of 10.200.X.0/24 (X not in use when the network is made), so a process on the host
reaches a Redis bound to the root end's address and nothing else. `Host.wrap()` runs a
command there under `unshare --uts --pid --fork --mount-proc` with the host's own name;
`Host.cut()` takes the link down (packets dropped, connections left hanging, as a partition
does) and `Host.mend()` brings it back. `Network.cleanup()` removes every namespace and veth it
made and kills what still runs inside them. `partition()` is the issue-13 scenario shared by
tests/chaos/test_hosts.py and bench/chaos.py. Needs root and iproute2; no pytest here.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import redis

from jobstore import Job, JobStore, Keys, Settings, State
from tests.support.chaos import endings, running_with_output, wait_until
from tests.support.processes import RedisServer, WorkerProcess

SUBNET = "10.200"
PREFIX = "alh"  # names of namespaces and interfaces made here: alh<X>h<n>, alh<X>h<n>r/i
# Sets the host name in the new UTS namespace, then becomes the command.
SET_NAME = (
    "import os, socket, sys; socket.sethostname(sys.argv[1]); os.execvp(sys.argv[2], sys.argv[2:])"
)


def ip(*args: str, check: bool = True) -> str:
    """Run `ip args`; its output (RuntimeError with ip's message when it fails and check)."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def missing() -> str:
    """Why separate hosts cannot be made here ('' when they can)."""
    if os.geteuid() != 0:
        return "separate hosts need root (network namespaces and veth pairs)"
    gone = [tool for tool in ("ip", "unshare") if shutil.which(tool) is None]
    if gone:
        return f"separate hosts need {' and '.join(gone)} (iproute2, util-linux) on the PATH"
    probe = f"{PREFIX}probe{os.getpid()}"
    made = subprocess.run(
        ["ip", "netns", "add", probe], capture_output=True, text=True, check=False
    )
    if made.returncode != 0:
        return f"`ip netns add` is not allowed here: {made.stderr.strip()}"
    ip("netns", "del", probe, check=False)
    return ""


def named(name: str) -> list[str]:
    """Command prefix running a program with this host name, in a PID namespace of its own."""
    unshare = ["unshare", "--uts", "--pid", "--fork", "--mount-proc", "--kill-child"]
    return [*unshare, sys.executable, "-c", SET_NAME, name]


def free_block() -> int:
    """An X such that no address of 10.200.X.0/24 and no namespace or link named for X exists."""
    addresses = ip("-o", "-4", "addr", "show")
    names = ip("netns", "list") + ip("-o", "link", "show")
    start = os.getpid() % 250
    for step in range(250):
        block = (start + step) % 250 + 1
        if f" {SUBNET}.{block}." not in addresses and f"{PREFIX}{block}h" not in names:
            return block
    raise RuntimeError(f"no free {SUBNET}.X.0/24 block")


@dataclass
class Host:
    """One host: a network namespace, its veth pair, its name and addresses."""

    name: str
    netns: str
    outer: str  # veth end in the root namespace (Redis listens on its address)
    inner: str  # veth end inside the host's namespace
    outer_ip: str
    inner_ip: str

    def wrap(self) -> list[str]:
        """Command prefix running a program as this host (its network, name and PIDs)."""
        return ["ip", "netns", "exec", self.netns, *named(self.name)]

    def settings(self, settings: Settings) -> Settings:
        """The settings as this host sees them: Redis at the root end of its link."""
        parts = urlsplit(settings.redis_url)
        netloc = f"{self.outer_ip}:{parts.port or 6379}"
        return settings.replace(redis_url=urlunsplit(parts._replace(netloc=netloc)))

    def cut(self) -> None:
        """Take the host's link down: its packets go nowhere until mend()."""
        ip("link", "set", self.outer, "down")

    def mend(self) -> None:
        """Bring the host's link back up."""
        ip("link", "set", self.outer, "up")


@dataclass
class Network:
    """Hosts made on this machine; cleanup() removes them all."""

    block: int = field(default_factory=free_block)
    hosts: list[Host] = field(default_factory=list)

    def add(self, name: str) -> Host:
        """Make a host: namespace, veth pair on the next /30, addresses, links up."""
        n = len(self.hosts)
        tag = f"{PREFIX}{self.block}h{n}"
        net = f"{SUBNET}.{self.block}"
        host = Host(name, tag, f"{tag}r", f"{tag}i", f"{net}.{4 * n + 1}", f"{net}.{4 * n + 2}")
        ip("netns", "add", host.netns)  # fails on a name in use: then it is not ours to remove
        self.hosts.append(host)  # so cleanup() removes it even if the rest fails
        ip("link", "add", host.outer, "type", "veth", "peer", "name", host.inner)
        ip("link", "set", host.inner, "netns", host.netns)
        ip("addr", "add", f"{host.outer_ip}/30", "dev", host.outer)
        ip("link", "set", host.outer, "up")
        inside = ["netns", "exec", host.netns, "ip"]
        ip(*inside, "addr", "add", f"{host.inner_ip}/30", "dev", host.inner)
        ip(*inside, "link", "set", host.inner, "up")
        ip(*inside, "link", "set", "lo", "up")
        return host

    def serve(self, server: RedisServer) -> None:
        """Have the Redis listen on every host's link as well as on loopback."""
        client = redis.Redis(port=server.port, socket_timeout=5)
        client.config_set("bind", " ".join(["127.0.0.1", *(h.outer_ip for h in self.hosts)]))
        client.close()

    def leftovers(self) -> list[str]:
        """Namespaces and interfaces of this network that still exist."""
        spaces = {line.split()[0] for line in ip("netns", "list", check=False).splitlines()}
        links = ip("-o", "link", "show", check=False).splitlines()
        names = spaces | {line.split(":")[1].strip().split("@")[0] for line in links}
        return [name for h in self.hosts for name in (h.netns, h.outer) if name in names]

    def cleanup(self) -> None:
        """Kill what runs inside, delete veths and namespaces; RuntimeError if any is left."""
        for host in self.hosts:
            for pid in ip("netns", "pids", host.netns, check=False).split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            ip("link", "del", host.outer, check=False)
            ip("netns", "del", host.netns, check=False)
        left = self.leftovers()
        if left:
            raise RuntimeError(f"could not remove {left}")


def host_of(holder: str) -> str:
    """The host name in a job's holder (worker/holder.py puts it 2nd)."""
    return holder.split("|")[1] if holder else ""


def namespace_of(holder: str) -> str:
    """The PID-namespace inode in a job's holder (4th)."""
    return holder.split("|")[3] if holder else ""


@dataclass
class Partition:
    """What a partition did: times in seconds from the cut, and the job as it ended."""

    cut_host: str
    cut_holder: str
    cut_progress: float  # the job's progress when its host was cut off
    lease_left: float  # seconds its lease still ran at the cut
    takeover: float  # cut -> the new run started (run_started, recorded in Redis)
    new_host: str
    new_holder: str
    resumed_from: float  # progress of the job when the new run first wrote
    refused: float  # link back -> the cut-off run logged itself stale
    running_then: bool  # the new run still ran then (so its claim, not the end, refused it)
    job: Job
    stale_ends: list[str]  # the cut-off worker's endings of this job ("1: stale")


def partition(
    store: JobStore,
    job_id: str,
    hosts: dict[str, Host],
    workers: dict[str, WorkerProcess],
    timeout: float = 60,
) -> Partition:
    """Cut off the host running the job mid-way; mend the link after the takeover; wait."""
    wait_until(lambda: progressed(store, job_id, 0.1), timeout, "the job well under way")
    before = store.get(job_id)
    assert before is not None
    victim = host_of(before.holder)
    hosts[victim].cut()
    cut_at = time.time()
    lease_left = float(store.redis.hget(Keys(store.prefix).job(job_id), "lease") or 0) - cut_at
    wait_until(lambda: taken_over(store, job_id), timeout, "the takeover", interval=0.01)
    record = store.redis.hgetall(Keys(store.prefix).job(job_id))
    takeover = float(record.get("run_started") or cut_at) - cut_at
    resumed_from = float(record.get("progress") or 0)
    hosts[victim].mend()
    mended = time.monotonic()
    wait_until(lambda: endings([workers[victim]], job_id), timeout, "the cut-off run's end")
    refused = time.monotonic() - mended
    then = store.get(job_id)
    done = then
    deadline = time.monotonic() + timeout
    while done is not None and not done.done and time.monotonic() < deadline:
        time.sleep(0.05)
        done = store.get(job_id)
    assert done is not None and done.done, f"job {job_id} not done after {timeout} s"
    holder = record.get("holder", "")
    return Partition(
        cut_host=victim,
        cut_holder=before.holder,
        cut_progress=before.progress,
        lease_left=lease_left,
        takeover=takeover,
        new_host=host_of(holder),
        new_holder=holder,
        resumed_from=resumed_from,
        refused=refused,
        running_then=then is not None and then.state is State.RUNNING,
        job=done,
        stale_ends=endings([workers[victim]], job_id).get(job_id, []),
    )


def progressed(store: JobStore, job_id: str, at_least: float) -> bool:
    """Whether the job runs, has stored solutions and passed `at_least` of its search."""
    job = running_with_output(store, job_id)
    return job is not None and job.progress >= at_least


def taken_over(store: JobStore, job_id: str) -> bool:
    """Whether a second run holds the job (or it ended)."""
    job = store.get(job_id)
    return job is not None and (job.done or (job.attempt >= 2 and job.state is State.RUNNING))
