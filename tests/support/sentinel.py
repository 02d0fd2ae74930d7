"""A throwaway Redis Sentinel setup on loopback: one master, its replicas, three sentinels.

Each server runs in a temp dir of its own on a free port of 127.0.0.1; each sentinel gets a
freshly written conf (a sentinel rewrites its conf as it learns, so one is never reused).
Used by tests/chaos/test_sentinel.py and test_failovers.py, with the stream of submissions
both send (Stream); nothing here runs in production.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
import requests

from jobstore import Settings
from tests.support.chaos import MEDIUM, SMALL
from tests.support.processes import WorkerProcess, free_port, stop_process, wait_for

MASTER_NAME = "mymaster"
# A master that does not answer for this long is subjectively down. At 1000 ms a loaded
# machine (the whole suite on two cores) once had the sentinels judge the master they had
# just promoted down, 1 s after the switch, and fail over again to the replica revived a
# moment before: a second failover no drill asked for, whose demoted master had taken writes
# alone (floor 0) that it then lost.
DOWN_AFTER_MS = 3000


class SentinelUnsupported(RuntimeError):
    """This redis-server was built without sentinel mode."""


class Node:
    """One redis-server process (a data server or a sentinel) and its directory."""

    def __init__(self, root: Path, name: str, args: list[str]) -> None:
        self.port = free_port()
        self.dir = root / name
        self.dir.mkdir()
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Node:
        """Start the process, its output in redis.log of its directory."""
        binary = shutil.which("redis-server") or "redis-server"
        log = open(self.dir / "redis.log", "ab")  # noqa: SIM115 (kept by the process)
        argv = [binary, *self.args, "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--dir", str(self.dir), "--protected-mode", "no"]
        self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=self.dir)
        return self

    def client(self) -> redis.Redis:
        """A decoded client with short timeouts."""
        return Node.client_at(self.port)

    @staticmethod
    def client_at(port: int) -> redis.Redis:
        """A decoded client of the server on this loopback port, with short timeouts."""
        return redis.Redis(
            port=port, decode_responses=True, socket_timeout=2, socket_connect_timeout=1
        )

    def log(self) -> str:
        """What the process printed so far."""
        return (self.dir / "redis.log").read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Signal the process (SIGKILL: a crash) and wait for it to exit."""
        stop_process(self.proc, sig)


class SentinelSetup:
    """A master, `replicas` replicas of it and three sentinels watching it (quorum 2)."""

    def __init__(
        self,
        replicas: int = 1,
        failover_timeout_ms: int = 10_000,
        down_after_ms: int = DOWN_AFTER_MS,
    ) -> None:
        # Sentinel starts no second failover of a master name within twice this of the first.
        self.failover_timeout_ms = failover_timeout_ms
        self.down_after_ms = down_after_ms
        self.root = Path(tempfile.mkdtemp(prefix="alphametic-sentinel-"))
        data = ["--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"]
        # Diskless sync waits 5 s for more replicas by default: start syncing at once.
        data += ["--repl-diskless-sync-delay", "0"]
        self.data_args = data
        self.master = Node(self.root, "master", data)
        replica_of = ["--replicaof", "127.0.0.1", str(self.master.port)]
        self.replicas = [
            Node(self.root, f"replica{n}", [*data, *replica_of]) for n in range(replicas)
        ]
        self.sentinels: list[Node] = []

    @property
    def addresses(self) -> str:
        """REDIS_SENTINELS for this setup."""
        return ",".join(f"127.0.0.1:{node.port}" for node in self.sentinels)

    @property
    def servers(self) -> list[Node]:
        """The data servers: the first master, then the replicas."""
        return [self.master, *self.replicas]

    def start(self, timeout: float = 30) -> SentinelSetup:
        """Start everything and wait until the sentinels know each other and every replica.

        Raises SentinelUnsupported when redis-server has no sentinel mode.
        """
        for node in self.servers:
            node.start()
        for n in range(3):
            node = Node(self.root, f"sentinel{n}", [])
            conf = node.dir / "sentinel.conf"
            conf.write_text(self.sentinel_conf())
            node.args = [str(conf), "--sentinel"]
            self.sentinels.append(node.start())
        self._check_sentinel_mode()
        wait_for(self._ready, timeout, interval=0.2, what="replicas in sync, sentinels acquainted")
        return self

    def sentinel_conf(self) -> str:
        """A fresh sentinel conf watching the master: down after down_after_ms, quorum 2."""
        return "\n".join([
            f"sentinel monitor {MASTER_NAME} 127.0.0.1 {self.master.port} 2",
            f"sentinel down-after-milliseconds {MASTER_NAME} {self.down_after_ms}",
            f"sentinel failover-timeout {MASTER_NAME} {self.failover_timeout_ms}",
            f"sentinel parallel-syncs {MASTER_NAME} 1",
            "",
        ])  # fmt: skip

    def _check_sentinel_mode(self) -> None:
        """Raise SentinelUnsupported when the first sentinel is not one (or does not start)."""
        node = self.sentinels[0]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if node.proc is not None and node.proc.poll() is not None:
                raise SentinelUnsupported(f"redis-server --sentinel exited:\n{node.log()}")
            try:
                node.client().execute_command("SENTINEL", "MASTERS")
                return
            except redis.exceptions.ResponseError as error:
                raise SentinelUnsupported(f"no sentinel mode in redis-server: {error}") from None
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server --sentinel does not answer:\n{node.log()}")

    def _ready(self) -> bool:
        """True once every replica is in sync and every sentinel sees them and the others."""
        if any(node.proc is None or node.proc.poll() is not None for node in self.servers):
            raise RuntimeError(f"a redis-server exited:\n{self.logs()}")
        info = self.master.client().info("replication")
        online = [info.get(f"slave{n}", {}).get("state") for n in range(len(self.replicas))]
        if online != ["online"] * len(self.replicas):
            return False
        for node in self.sentinels:
            master = node.client().sentinel_master(MASTER_NAME)
            if int(master["num-other-sentinels"]) < 2 or int(master["num-slaves"]) < len(
                self.replicas
            ):
                return False
        return True

    def master_port(self) -> int:
        """The port of the server a majority of sentinels name master right now."""
        ports = [int(node.client().sentinel_get_master_addr_by_name(MASTER_NAME)[1])
                 for node in self.sentinels]  # fmt: skip
        return max(set(ports), key=ports.count)

    def kill_master(self) -> Node:
        """SIGKILL the current master (no shutdown, no last write) and return it."""
        port = self.master_port()
        node = next(node for node in self.servers if node.port == port)
        node.stop(signal.SIGKILL)
        return node

    def revive(self, node: Node, timeout: float = 15) -> float:
        """Once the sentinels name a new master, start the killed server again, empty, as a
        replica of it (as a start script that asks the sentinels would); seconds it waited.

        Started as a master instead, the sentinels would turn it into a replica only some
        8 s after it is back, and started before the failover it would be taken for the
        old master come back empty.
        """
        started = time.monotonic()
        wait_for(lambda: self.master_port() != node.port, timeout, 0.05, "a new master")
        master = str(self.master_port())
        node.args = [*self.data_args, "--replicaof", "127.0.0.1", master]
        node.start()
        return time.monotonic() - started

    def logs(self) -> str:
        """Every server's and sentinel's log, for a failure message."""
        return "\n".join(f"--- {n.dir.name}\n{n.log()[-3000:]}" for n in self.all())

    def all(self) -> list[Node]:
        """Every process of the setup."""
        return [*self.servers, *self.sentinels]

    def cleanup(self) -> None:
        """Stop everything and remove the temp dir."""
        for node in self.all():
            node.stop()
        shutil.rmtree(self.root, ignore_errors=True)


PUZZLES = (
    "SEND + MORE = MONEY",
    "TO + GO = OUT",
    "ABC + DEF = GHI",
    "ONE + ONE = TWO",
    "TWO + TWO = FOUR",
    "ODD + ODD = EVEN",
    "NO + NO = YES",
    "AB + CD = EFG",
)
POLICIES = ("multi-letter", "allow", "every-word")
# Distinct solve jobs of a few milliseconds each (no two share a dedup key), and between them
# enumerations of up to 1.5 s that are running when the master dies (the kill comes after 20).
SUBMISSIONS: list[dict[str, Any]] = [
    {"puzzle": p, "mode": "solve", "options": {"base": b, "leading_zeros": lz}}
    for b in range(10, 37)
    for p in PUZZLES
    for lz in POLICIES
]
for _n, (_puzzle, _options) in enumerate([MEDIUM, *SMALL]):
    SUBMISSIONS.insert(12 + 2 * _n, {"puzzle": _puzzle, "mode": "enumerate", "options": _options})


@dataclass
class Answer:
    """One submission's answer: when it was sent and came back, its status and job id."""

    sent: float
    received: float
    status: int  # 0: no HTTP answer at all
    job_id: str = ""


class Stream(threading.Thread):
    """Posts SUBMISSIONS to the API one after another, every `interval` s, keeping answers."""

    def __init__(self, url: str, interval: float = 0.05) -> None:
        super().__init__(name="submissions", daemon=True)
        self.url = url + "/api/jobs"
        self.interval = interval
        self.answers: list[Answer] = []
        self.stop = threading.Event()

    def run(self) -> None:
        """Submit until stopped or out of distinct puzzles."""
        with requests.Session() as session:
            for body in SUBMISSIONS:
                if self.stop.is_set():
                    return
                self.answers.append(self.post(session, body))
                self.stop.wait(self.interval)

    def post(self, session: requests.Session, body: dict[str, Any]) -> Answer:
        """One submission (a network error counts as status 0)."""
        sent = time.monotonic()
        try:
            answer = session.post(self.url, json=body, timeout=10)
        except requests.RequestException:
            return Answer(sent, time.monotonic(), 0)
        job_id = answer.json().get("id", "") if answer.status_code == 202 else ""
        return Answer(sent, time.monotonic(), answer.status_code, job_id)

    def accepted(self) -> list[Answer]:
        """The answers that were 202 Accepted."""
        return [a for a in list(self.answers) if a.status == 202]

    def end(self) -> None:
        """Stop submitting and wait for the last answer."""
        self.stop.set()
        self.join(15)

    def refused(self) -> list[Answer]:
        """The answers that were not 202."""
        return [a for a in list(self.answers) if a.status != 202]

    def job_ids(self) -> list[str]:
        """The ids of the accepted jobs, in order, once each."""
        return list(dict.fromkeys(a.job_id for a in self.accepted()))

    def tally(self) -> str:
        """Submissions, accepted and refused (with their statuses), for a test's report."""
        refused = self.refused()
        return (
            f"{len(self.answers)} submissions, {len(self.job_ids())} accepted, {len(refused)} "
            f"refused ({sorted({a.status for a in refused})})"
        )


def taken_by_each(workers: list[WorkerProcess], stream: Stream, since: float) -> None:
    """Wait until every worker has taken a job submitted (and accepted) after `since`: no
    worker's consumer silently stopped at the failover (worker/canary.py)."""

    def took(worker: WorkerProcess) -> bool:
        log = worker.log()
        return any(f"received [job {a.job_id}]" in log for a in stream.accepted() if a.sent > since)

    def each() -> bool:
        return all(took(worker) for worker in workers)

    try:
        wait_for(each, 30, interval=0.2, what="a fresh job taken by each worker")
    except TimeoutError:
        idle = [worker.name for worker in workers if not took(worker)]
        raise AssertionError(f"no job taken since the failover by {idle}") from None


def following(settings: Settings, setup: SentinelSetup) -> Settings:
    """Settings of a deployment of its own that follows the setup's sentinels."""
    return settings.replace(
        redis_url=f"redis://127.0.0.1:{setup.master_port()}/0",
        redis_sentinels=setup.addresses,
        key_prefix=f"sentinel-{uuid.uuid4().hex[:8]}",
    )
