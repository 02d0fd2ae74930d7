"""The soak (issue 31): a mixed workload from distinct clients while random faults land, then a
checker over the whole history, the way Jepsen tries a database.

Workload  seeded distinct submissions (solve, enumerate, count, and now and then a sharded
          count of a few seconds), their answers worked out beforehand by the engine in-process.
Cluster   a Sentinel setup (master, two replicas, three sentinels), celery workers and gunicorn,
          with a supervisor that restarts what dies as a restart policy would: a worker under
          the same -n name, a replica empty as a replica of the current master.
Faults    a seeded schedule (SOAK_SEED replays it): every GAP seconds one or two of KINDS, each
          in a thread of its own, all undone (SIGCONT, maxmemory back, restarts) before the end.
Clients   threads, each its own loopback address (127.0.0.x: the web's client identity), each
          submitting its share and reading back its accepted jobs; every call goes to History.
check()   after the faults: every process serves again, every job ends, and each submission's
          fate is judged: lost (gone at the end, or a read answered 404), wrong, doubled, stuck,
          failed, 5xx, 503-then-created, misread (an answer about another job).
Used by tests/chaos/test_soak.py (`make test` runs a short one, `make soak` the long ones).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import shutil
import signal
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import alphametic
from jobstore import Job, JobStore, Keys, Settings, State
from tests.support.chaos import HANDED_BACK, mismatch, reference
from tests.support.processes import WebServer, WorkerProcess
from tests.support.puzzles import holds
from tests.support.sentinel import DOWN_AFTER_MS, Node, SentinelSetup, following

KINDS = (
    "worker_kill",  # kill -9 of a worker's whole process group (main and pool)
    "worker_stop",  # SIGSTOP of a worker's main process, SIGCONT after `hold`
    "pool_kill",  # kill -9 of one pool process
    "pool_stop",  # SIGSTOP of one pool process, SIGCONT after `hold`
    "master_stop",  # SIGSTOP of the Redis master, shorter than down-after (no failover)
    "master_failover",  # SIGSTOP of the Redis master just over down-after (a failover)
    "replica_kill",  # kill -9 of a replica, started again after `hold`
    "web_restart",  # gunicorn stopped (SIGTERM) and started again on its port
    "memory_squeeze",  # the master's maxmemory set to what it uses, back to none after `hold`
)
# Two stops of the master at once would be one: the first SIGCONT ends both.
MASTER_STOPS = {"master_stop", "master_failover"}
CLIENTS = 12  # distinct client addresses, 127.0.0.10 and on
RATE = 6.0  # submissions a second, all clients together
RESTART_DELAY = 1.0  # seconds the supervisor waits before starting a dead worker again
ATTRIBUTION = 10.0  # a 503 this long after a fault ended is still put down to it
BIN = 0.5  # seconds: the grain of "seconds of 503"
SERVE_BOUND = 60.0  # seconds after the faults within which every process serves again
CALL_TIMEOUT = 20.0  # seconds a client waits for an answer
# The web's per-client limits, raised so that none of the soak's clients meets them.
WEB_ENV = {"ALPHAMETIC_RATE_LIMIT": "600/minute", "ALPHAMETIC_MAX_QUEUED_PER_CLIENT": "200"}
EXAMPLES = int(os.environ.get("SOAK_EXAMPLES", "5"))  # examples of each defect printed
ENDING = re.compile(r"job (\S+) attempt (\d+) ended: (\w+)")


def seed_from_env(default: int) -> int:
    """SOAK_SEED when set (to replay a failing schedule), else `default`."""
    return int(os.environ.get("SOAK_SEED", default))


# ---------------------------------------------------------------- the workload


@dataclass(frozen=True)
class Submission:
    """One distinct job to submit, by one client, with the answer worked out beforehand."""

    key: int
    client: str
    mode: str
    puzzle: str
    options: dict[str, Any]
    answer: tuple[str, ...] | int  # the engine's solutions (compact), or a count

    @property
    def body(self) -> dict[str, Any]:
        """The POST /api/jobs body."""
        return {"puzzle": self.puzzle, "mode": self.mode, "options": self.options}


# A count of a few seconds, sharded over the workers: `ABC + DEF = GHI` in these bases with its
# letters renamed, so each is a distinct job while its count is worked out once.
SHARDED_BASES = (16, 17)
SMALL_BASES = (10, 10, 10, 11, 12)


def _word_sum(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A random small sum over at most 8 letters, and its options."""
    letters = rng.sample("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8)
    lengths = (rng.choice((2, 3)), rng.choice((3, 4)), 4)
    a, b, c = ("".join(rng.choice(letters) for _ in range(n)) for n in lengths)
    options = {"base": rng.choice(SMALL_BASES), "leading_zeros": "multi-letter"}
    return f"{a} + {b} = {c}", options


def _sharded(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """`ABC + DEF = GHI` in a big base with its nine letters renamed at random."""
    n = rng.sample("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 9)
    text = f"{n[0]}{n[1]}{n[2]} + {n[3]}{n[4]}{n[5]} = {n[6]}{n[7]}{n[8]}"
    return text, {"base": rng.choice(SHARDED_BASES), "leading_zeros": "multi-letter"}


def _count_of(text: str, options: dict[str, Any]) -> int:
    """The engine's count of a sharded puzzle (the same for every renaming: worked out once)."""
    return len(reference("ABC + DEF = GHI", options))


def workload(
    rng: random.Random, count: int, clients: list[str], start: int = 0
) -> list[Submission]:
    """`count` distinct submissions dealt round-robin to the clients, answers worked out.

    One in three enumerates (a few thousand solutions at most), one in six counts, one in
    forty is a sharded count of seconds; the rest solve. Every puzzle text is distinct.
    """
    seen: set[str] = set()
    found: list[Submission] = []
    while len(found) < count:
        key = start + len(found)
        if key % 40 == 39:
            text, options = _sharded(rng)
            mode = "count"
        else:
            text, options = _word_sum(rng)
            mode = rng.choice(("solve", "solve", "solve", "enumerate", "enumerate", "count"))
        try:
            text = alphametic.parse(text, **options).text
        except alphametic.PuzzleError:
            continue
        if text in seen:
            continue
        if mode == "count" and key % 40 == 39:
            answer: tuple[str, ...] | int = _count_of(text, options)
        else:
            solutions = reference(text, options)
            if len(solutions) > 5000:  # keep the small ones small
                continue
            answer = len(solutions) if mode == "count" else solutions
        seen.add(text)
        client = clients[len(found) % len(clients)]
        found.append(Submission(key, client, mode, text, options, answer))
    return found


# ---------------------------------------------------------------- the history


@dataclass
class Call:
    """One request a client made and what came back (status 0: no answer at all)."""

    client: str
    what: str  # "submit", "read" or "probe"
    key: int  # the submission's
    sent: float  # seconds since the soak began
    received: float
    status: int
    job_id: str = ""
    may_exist: bool | None = None  # a 503's word on whether the job was written all the same
    misread: str = ""  # an answer that belongs to another call: what differed


@dataclass
class History:
    """Every call of every client, appended under a lock; time counted from `t0`."""

    t0: float = field(default_factory=time.monotonic)
    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def now(self) -> float:
        """Seconds since the soak began."""
        return time.monotonic() - self.t0

    def add(self, call: Call) -> None:
        """Record a call."""
        with self.lock:
            self.calls.append(call)

    def snapshot(self) -> list[Call]:
        """The calls so far."""
        with self.lock:
            return list(self.calls)


def _misread(sub: Submission, body: dict[str, Any], job_id: str = "") -> str:
    """What in a job's status body does not belong to this submission ('' if nothing)."""
    got = (body.get("puzzle"), body.get("mode"), body.get("id") if job_id else job_id)
    want = (sub.puzzle, sub.mode, job_id)
    return "" if got == want else f"asked {want}, got {got}"


class Client(threading.Thread):
    """One client: its own loopback address, its submissions at its own pace, and a read of
    one of its accepted jobs after each."""

    def __init__(
        self, address: str, port: int, subs: list[Submission], interval: float, history: History
    ) -> None:
        super().__init__(name=f"client-{address}", daemon=True)
        self.address = address
        self.port = port
        self.subs = subs
        self.interval = interval
        self.history = history
        self.stop = threading.Event()
        self.conn: http.client.HTTPConnection | None = None
        self.accepted: list[tuple[Submission, str]] = []
        self.rng = random.Random(address)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        """One request on the client's kept-alive connection; (0, {}) when nothing came back."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection(
                "127.0.0.1", self.port, timeout=CALL_TIMEOUT, source_address=(self.address, 0)
            )
        headers = {"Content-Type": "application/json"} if body is not None else {}
        try:
            self.conn.request(method, path, json.dumps(body) if body else None, headers)
            answer = self.conn.getresponse()
            raw = answer.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            return 0, {}
        if answer.getheader("Connection", "").lower() == "close":
            self.conn.close()
            self.conn = None
        try:
            decoded = json.loads(raw) if raw else {}
        except ValueError:
            decoded = {}
        return answer.status, decoded if isinstance(decoded, dict) else {}

    def submit(self, sub: Submission, what: str = "submit") -> Call:
        """POST one submission and record the call."""
        sent = self.history.now()
        status, body = self.call("POST", "/api/jobs", sub.body)
        call = Call(self.address, what, sub.key, sent, self.history.now(), status)
        if status in (200, 202):
            call.job_id = str(body.get("id", ""))
            call.misread = _misread(sub, body)
        elif status == 503:
            call.may_exist = body.get("may_exist")
            call.job_id = str(body.get("job_id") or "")
        self.history.add(call)
        if status == 202:
            self.accepted.append((sub, call.job_id))
        return call

    def read(self, sub: Submission, job_id: str) -> None:
        """GET one accepted job and record the call."""
        sent = self.history.now()
        status, body = self.call("GET", f"/api/jobs/{job_id}")
        call = Call(self.address, "read", sub.key, sent, self.history.now(), status, job_id)
        if status == 200:
            call.misread = _misread(sub, body, job_id)
        self.history.add(call)

    def run(self) -> None:
        """Submit each of the client's submissions in turn, reading one accepted job after."""
        next_at = time.monotonic() + self.rng.uniform(0, self.interval)
        for sub in self.subs:
            if self.stop.wait(max(0.0, next_at - time.monotonic())):
                break
            next_at += self.interval
            self.submit(sub)
            if self.accepted:
                self.read(*self.rng.choice(self.accepted))
        if self.conn is not None:
            self.conn.close()


# ---------------------------------------------------------------- the cluster


class Cluster:
    """The Sentinel setup, the workers and gunicorn, and a supervisor restarting the dead."""

    def __init__(
        self, settings: Settings, setup: SentinelSetup, workers: int = 2, concurrency: int = 2
    ) -> None:
        self.setup = setup
        self.settings = following(settings, setup).replace(shard_count=8)
        tag = uuid.uuid4().hex[:6]
        self.names = [f"soak{tag}-{n}@%h" for n in range(workers)]
        self.concurrency = concurrency
        self.workers: dict[str, WorkerProcess] = {}
        self.incarnations: list[WorkerProcess] = []
        self.webs: list[WebServer] = []
        self.restarts: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.supervisor = threading.Thread(target=self._supervise, name="supervisor", daemon=True)

    @property
    def web(self) -> WebServer:
        """The gunicorn serving now."""
        return self.webs[-1]

    def start(self) -> Cluster:
        """Start the workers and gunicorn, wait until they are ready, start supervising."""
        for name in self.names:
            self._start_worker(name)
        for worker in self.workers.values():
            worker.wait_ready(60)
        self.webs.append(WebServer(self.settings, workers=2, env=WEB_ENV).wait_ready(60))
        self.supervisor.start()
        return self

    def _start_worker(self, name: str) -> WorkerProcess:
        """Start a worker under this name (as a restart policy would: same name, same queues)."""
        worker = WorkerProcess(self.settings, "solve,enumerate", self.concurrency, name=name)
        with self.lock:
            self.workers[name] = worker
            self.incarnations.append(worker)
        return worker

    def _supervise(self) -> None:
        """Start again, after RESTART_DELAY, every worker whose main process has exited."""
        dead_since: dict[str, float] = {}
        while not self.stopping.wait(0.2):
            for name, worker in list(self.workers.items()):
                if worker.alive():
                    dead_since.pop(name, None)
                    continue
                since = dead_since.setdefault(name, time.monotonic())
                if time.monotonic() - since >= RESTART_DELAY and not self.stopping.is_set():
                    worker._reap_group()
                    self._start_worker(name)
                    self.restarts[name] += 1
                    dead_since.pop(name, None)

    def restart_web(self) -> None:
        """Stop gunicorn (SIGTERM: it finishes what it serves) and start it on the same port."""
        old = self.web
        old.proc.terminate()
        try:
            old.proc.wait(15)
        except Exception:  # noqa: BLE001 (subprocess.TimeoutExpired: kill the group)
            old._reap_group()
        self.webs.append(WebServer(self.settings, workers=2, env=WEB_ENV, port=old.port))
        self.web.wait_ready(60)

    def master(self) -> Node:
        """The server the sentinels name master."""
        port = self.setup.master_port()
        return next(node for node in self.setup.servers if node.port == port)

    def replicas(self) -> list[Node]:
        """The running servers that are not the master."""
        master = self.setup.master_port()
        return [n for n in self.setup.servers if n.port != master and _running(n)]

    def revive(self, node: Node) -> None:
        """Start a dead server again, empty, as a replica of the current master."""
        master = str(self.setup.master_port())
        node.args = [*self.setup.data_args, "--replicaof", "127.0.0.1", master]
        node.start()

    def whole(self) -> bool:
        """Every worker runs, every server runs, and the web answers."""
        return all(w.alive() for w in self.workers.values()) and all(
            _running(n) for n in self.setup.all()
        )

    def logs(self) -> str:
        """Every worker incarnation's log, concatenated."""
        return "\n".join(worker.log() for worker in self.incarnations)

    def keep_logs(self, seed: int) -> Path:
        """Copy every worker's, gunicorn's and server's log into a new directory; its path."""
        kept = Path(tempfile.mkdtemp(prefix=f"alphametic-soak-{seed}-"))
        for n, process in enumerate([*self.incarnations, *self.webs]):
            shutil.copy(process.log_path, kept / f"{n:02d}-{process.log_path.name}")
        for node in self.setup.all():
            shutil.copy(node.dir / "redis.log", kept / f"{node.dir.name}-{node.port}.log")
        return kept

    def cleanup(self) -> None:
        """Stop supervising; stop every worker and gunicorn (the setup is the caller's)."""
        self.stopping.set()
        if self.supervisor.is_alive():
            self.supervisor.join(5)
        for pid in self._stopped_pids():
            _signal(pid, signal.SIGCONT)
        WorkerProcess.stop_all(self.incarnations)
        for web in self.webs:
            web.cleanup()

    def _stopped_pids(self) -> Iterator[int]:
        """Every process of the soak a fault may have left stopped."""
        for worker in self.incarnations:
            yield worker.pid
            yield from worker.children()
        for node in self.setup.all():
            if node.proc is not None:
                yield node.proc.pid


def _running(node: Node) -> bool:
    """Whether the server's process runs."""
    return node.proc is not None and node.proc.poll() is None


def _signal(pid: int, sig: int) -> None:
    """Send a signal to a process that may be gone."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


# ---------------------------------------------------------------- the faults


@dataclass
class Fault:
    """One fault of the schedule: its kind, when (seconds into the faults), how long it holds
    and a number choosing its victim; then when it really began and ended, and on whom."""

    kind: str
    at: float
    hold: float
    pick: int
    began: float = 0.0  # seconds since the soak began
    ended: float = 0.0
    victim: str = ""


def _hold(kind: str, rng: random.Random, down_after: float) -> float:
    """How long a fault of this kind holds (a stop, a squeeze, a server down), given the
    sentinels' down-after in seconds."""
    return {
        "worker_stop": rng.uniform(2, 14),
        "pool_stop": rng.uniform(2, 14),
        "master_stop": rng.uniform(0.5, down_after - 1.0),
        "master_failover": down_after + rng.uniform(0.5, 2.5),
        "replica_kill": rng.uniform(2, 10),
        "memory_squeeze": rng.uniform(2, 8),
    }.get(kind, 0.0)


def schedule(
    rng: random.Random,
    seconds: float,
    gap: tuple[float, float],
    down_after: float = DOWN_AFTER_MS / 1000,
) -> list[Fault]:
    """Faults for `seconds`: every `gap` seconds one or two kinds, every kind once before any
    repeats (so that a short soak still lands each)."""
    faults: list[Fault] = []
    t = rng.uniform(3, gap[0])
    pending: list[str] = []
    while t < seconds:
        if len(pending) < 2:
            pending += rng.sample(KINDS, len(KINDS))
        kinds = [pending.pop(0)]
        if rng.random() < 0.5 and not {kinds[0], pending[0]} <= MASTER_STOPS:
            kinds.append(pending.pop(0))  # two at once, never two stops of the master
        for kind in kinds:
            faults.append(Fault(kind, t, _hold(kind, rng, down_after), rng.randrange(1 << 30)))
        t += rng.uniform(*gap)
    return faults


class Faults:
    """Lands a schedule's faults on a cluster, each in a thread of its own."""

    def __init__(self, cluster: Cluster, faults: list[Fault], history: History) -> None:
        self.cluster = cluster
        self.faults = faults
        self.history = history
        self.threads: list[threading.Thread] = []
        self.errors: list[str] = []

    def run(self, start: float) -> None:
        """Land each fault at its time after `start` (monotonic); return once all are undone."""
        for fault in self.faults:
            time.sleep(max(0.0, start + fault.at - time.monotonic()))
            thread = threading.Thread(target=self._land, args=(fault,), daemon=True)
            thread.start()
            self.threads.append(thread)
        for thread in self.threads:
            thread.join(120)

    def _land(self, fault: Fault) -> None:
        """Land one fault and undo it after its hold, noting when and on whom."""
        fault.began = self.history.now()
        try:
            getattr(self, f"_{fault.kind}")(fault)
        except Exception as error:  # noqa: BLE001 (a harness error is reported, not fatal)
            self.errors.append(f"{fault.kind} at {fault.at:.1f}: {error!r}")
        fault.ended = self.history.now()

    def _worker(self, fault: Fault) -> WorkerProcess:
        """The worker a fault picks."""
        names = self.cluster.names
        return self.cluster.workers[names[fault.pick % len(names)]]

    def _pool(self, fault: Fault) -> int:
        """A pool process of the picked worker (0: none)."""
        children = sorted(self._worker(fault).children())
        return children[fault.pick % len(children)] if children else 0

    def _worker_kill(self, fault: Fault) -> None:
        worker = self._worker(fault)
        fault.victim = worker.name
        worker.kill()  # the supervisor starts it again under its name

    def _worker_stop(self, fault: Fault) -> None:
        worker = self._worker(fault)
        fault.victim = worker.name
        _signal(worker.pid, signal.SIGSTOP)
        time.sleep(fault.hold)
        _signal(worker.pid, signal.SIGCONT)

    def _pool_kill(self, fault: Fault) -> None:
        pid = self._pool(fault)
        fault.victim = f"pool {pid}"
        _signal(pid, signal.SIGKILL) if pid else None

    def _pool_stop(self, fault: Fault) -> None:
        pid = self._pool(fault)
        fault.victim = f"pool {pid}"
        if pid:
            _signal(pid, signal.SIGSTOP)
            time.sleep(fault.hold)
            _signal(pid, signal.SIGCONT)

    def _master_stop(self, fault: Fault) -> None:
        node = self.cluster.master()
        fault.victim = f"redis {node.port}"
        assert node.proc is not None
        _signal(node.proc.pid, signal.SIGSTOP)
        time.sleep(fault.hold)
        _signal(node.proc.pid, signal.SIGCONT)

    _master_failover = _master_stop

    def _replica_kill(self, fault: Fault) -> None:
        replicas = self.cluster.replicas()
        if not replicas:
            fault.victim = "none running"
            return
        node = replicas[fault.pick % len(replicas)]
        fault.victim = f"redis {node.port}"
        node.stop(signal.SIGKILL)
        time.sleep(fault.hold)
        self.cluster.revive(node)

    def _web_restart(self, fault: Fault) -> None:
        fault.victim = f"gunicorn {self.cluster.web.pid}"
        self.cluster.restart_web()

    def _memory_squeeze(self, fault: Fault) -> None:
        node = self.cluster.master()
        fault.victim = f"redis {node.port}"
        client = node.client()
        used = int(client.info("memory")["used_memory"])
        client.config_set("maxmemory", str(used))
        time.sleep(fault.hold)
        client.config_set("maxmemory", "0")


# ---------------------------------------------------------------- the checker


@dataclass
class Figures:
    """What the soak found: the table it prints and the test asserts on."""

    seed: int
    fault_seconds: float
    submissions: int = 0
    accepted: int = 0
    refused_503: int = 0
    may_exist: int = 0
    no_answer: int = 0
    too_many: int = 0  # 429
    other_4xx: int = 0
    seconds_503: dict[str, float] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)  # accepted, and not in the store at the end
    lost_reads: list[str] = field(default_factory=list)  # a read of an accepted job: 404
    wrong: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)  # 500 and the like, never 503
    created_after_503: list[str] = field(default_factory=list)
    misread: list[str] = field(default_factory=list)
    refusing: list[str] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    restarts: int = 0
    serve_again: float = 0.0  # seconds after the faults until every process served
    harness: list[str] = field(default_factory=list)

    DEFECTS = (
        "lost", "lost_reads", "wrong", "doubled", "stuck", "failed", "server_errors",
        "created_after_503", "misread", "refusing",
    )  # fmt: skip

    def defects(self) -> dict[str, list[str]]:
        """Each kind of defect found, with its first examples."""
        return {name: getattr(self, name) for name in self.DEFECTS if getattr(self, name)}

    def table(self) -> str:
        """The figures as a table, the seed first (SOAK_SEED=<it> replays the schedule)."""
        kinds = Counter(f.kind for f in self.faults)
        rows = [
            ("seed (SOAK_SEED)", str(self.seed)),
            ("seconds of faults", f"{self.fault_seconds:.0f}"),
            ("faults landed", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))),
            ("worker restarts", str(self.restarts)),
            ("submissions", str(self.submissions)),
            ("accepted (202)", str(self.accepted)),
            ("503s (may_exist true)", f"{self.refused_503} ({self.may_exist})"),
            ("no answer (connection)", str(self.no_answer)),
            ("429s / other 4xx", f"{self.too_many} / {self.other_4xx}"),
            *[(f"s of 503: {k}", f"{v:.1f}") for k, v in sorted(self.seconds_503.items())],
            ("every process serving after", f"{self.serve_again:.1f} s"),
            *[(name.replace("_", " "), str(len(getattr(self, name)))) for name in self.DEFECTS],
        ]
        width = max(len(name) for name, _ in rows)
        lines = [f"  {name:<{width}}  {value}" for name, value in rows]
        for name, examples in self.defects().items():
            lines += [f"  {name}: {example}" for example in examples[:EXAMPLES]]
        lines += [f"  harness: {note}" for note in self.harness]
        lines += ["  faults (s since start: kind, hold, victim):"]
        lines += [
            f"    {f.began:6.1f}-{f.ended:6.1f}  {f.kind} {f.hold:.1f} s on {f.victim}"
            for f in self.faults
        ]
        return "soak figures\n" + "\n".join(lines)


def seconds_of_503(calls: list[Call], faults: list[Fault]) -> dict[str, float]:
    """Seconds (in BIN grains) in which some client was answered 503, by the fault kinds
    active then or ended less than ATTRIBUTION s before ("none": no fault near)."""
    bins = {int(call.received / BIN) for call in calls if call.status == 503}
    seconds: dict[str, float] = {}
    for grain in bins:
        t = grain * BIN
        near = {f.kind for f in faults if f.began <= t + BIN and t <= f.ended + ATTRIBUTION}
        for kind in near or {"none"}:
            seconds[kind] = seconds.get(kind, 0.0) + BIN
    return seconds


def stored_jobs(store: JobStore) -> dict[tuple[str, str], list[Job]]:
    """Every job in the store by (mode, puzzle) (shards left out)."""
    keys = Keys(store.prefix)
    ids = [i for i in store.redis.zrange(keys.jobs, 0, -1) if "." not in i]
    with store.redis.pipeline(transaction=False) as pipe:
        for job_id in ids:
            pipe.hgetall(keys.job(job_id))
        rows = pipe.execute()
    found: dict[tuple[str, str], list[Job]] = {}
    for row in rows:
        if row:
            job = Job.from_hash(row)
            found.setdefault((job.mode.value, job.puzzle), []).append(job)
    return found


def endings(logs: str) -> dict[str, list[str]]:
    """Per job or shard id, its runs that ended (not handed back), "<attempt>: <outcome>"."""
    found: dict[str, list[str]] = {}
    for name, attempt, outcome in ENDING.findall(logs):
        if outcome not in HANDED_BACK:
            found.setdefault(name, []).append(f"{attempt}: {outcome}")
    return found


def ran_twice(job: Job, ended: dict[str, list[str]]) -> str:
    """Why the job (or one of its shards) ran to an end more than once ('' if it did not)."""
    mine = {n: e for n, e in ended.items() if n == job.id or n.startswith(job.id + ".")}
    twice = {n: e for n, e in mine.items() if len([x for x in e if "stale" not in x]) > 1}
    return f"{job.id} ({job.mode.value} {job.puzzle}): {twice}" if twice else ""


def wrong_answer(store: JobStore, sub: Submission, job: Job) -> str:
    """Why the job's answer differs from the one worked out beforehand ('' if it does not)."""
    where = f"{job.id} ({sub.mode} {sub.puzzle} {sub.options})"
    if sub.mode == "solve":
        solution, solvable = job.solution, bool(sub.answer)
        if (solution is not None) != solvable or (
            solution is not None and not holds(sub.puzzle, sub.options, solution)
        ):
            return f"{where}: solution {solution}, the engine finds one: {solvable}"
        return ""
    if sub.mode == "count":
        if job.solutions_found != sub.answer or job.truncated:
            return f"{where}: counted {job.solutions_found}, engine {sub.answer}"
        return ""
    why = mismatch(store, job)
    return f"{where}: {why}" if why else ""


def judge(
    subs: list[Submission],
    calls: list[Call],
    store: JobStore,
    logs: str,
    figures: Figures,
    stuck_bound: float,
) -> None:
    """Wait (up to `stuck_bound` s) for every job known to exist to end, then judge each
    submission's fate from the calls and the store into `figures`."""
    by_key = {sub.key: sub for sub in subs}
    submits = [c for c in calls if c.what in ("submit", "probe")]
    figures.submissions = len({c.key for c in submits})
    statuses = Counter(c.status for c in submits)
    figures.accepted = len({c.key for c in submits if c.status == 202})
    figures.refused_503 = statuses[503]
    figures.may_exist = sum(1 for c in submits if c.status == 503 and c.may_exist)
    figures.no_answer = statuses[0]
    figures.too_many = statuses[429]
    figures.other_4xx = sum(n for s, n in statuses.items() if 400 <= s < 500 and s != 429)
    for call in calls:
        if call.status >= 500 and call.status != 503:
            figures.server_errors.append(
                f"{call.what} {call.key} at {call.sent:.1f}: {call.status}"
            )
        if call.misread:
            figures.misread.append(f"{call.what} {call.key} at {call.sent:.1f}: {call.misread}")
        if call.what == "read" and call.status == 404:
            figures.lost_reads.append(f"{call.job_id} at {call.sent:.1f}: 404")

    keyed: dict[int, list[Call]] = {}
    for call in submits:
        keyed.setdefault(call.key, []).append(call)
    deadline = time.monotonic() + stuck_bound
    while True:
        jobs = stored_jobs(store)
        pending = [j for js in jobs.values() for j in js if not j.done]
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    ended = endings(logs)
    by_id = {job.id: job for js in jobs.values() for job in js}
    for key, mine in keyed.items():
        sub = by_key[key]
        found = jobs.get((sub.mode, sub.puzzle), [])
        accepted = [c for c in mine if c.status == 202]
        unsure = any(c.status == 0 or (c.status == 503 and c.may_exist) for c in mine)
        if accepted and not found:
            at = f"accepted at {accepted[0].received:.1f}"
            figures.lost.append(f"{accepted[0].job_id} ({sub.mode} {sub.puzzle}) {at}: gone")
        if found and not accepted and not unsure:
            said = [(c.status, c.may_exist) for c in mine]
            figures.created_after_503.append(f"{found[0].id} ({sub.puzzle}): answered {said}")
        if len(found) > 1:
            figures.doubled.append(f"{sub.puzzle}: created {len(found)} times")
        ids = {c.job_id for c in accepted}
        if accepted and found and not ids & {j.id for j in found}:
            figures.lost.append(f"{sorted(ids)} ({sub.puzzle}): answered ids not in the store")
        for job in found:
            judge_job(store, sub, job, ended, figures)
        named = {c.job_id for c in mine if c.status == 503 and c.may_exist and c.job_id}
        if others := (named - {j.id for j in found}) & by_id.keys():
            figures.misread.append(f"503 for {sub.puzzle} named another's job: {others}")


def judge_job(
    store: JobStore, sub: Submission, job: Job, ended: dict[str, list[str]], figures: Figures
) -> None:
    """Judge one job of a submission: ended, succeeded, right, run to an end once."""
    where = f"{job.id} ({sub.mode} {sub.puzzle})"
    if not job.done:
        figures.stuck.append(f"{where}: {job.state.value}, attempt {job.attempt}")
        return
    if job.state is not State.SUCCEEDED:
        figures.failed.append(f"{where}: {job.state.value} {job.error}")
        return
    if why := wrong_answer(store, sub, job):
        figures.wrong.append(why)
    if why := ran_twice(job, ended):
        figures.doubled.append(why)


def _ready(port: int) -> int:
    """GET /readyz on a fresh connection: its status (0: no answer)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/readyz")
        return conn.getresponse().status
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        conn.close()


def serving(
    cluster: Cluster,
    clients: list[Client],
    probes: list[Submission],
    since: float,
    history: History,
    figures: Figures,
) -> None:
    """After the faults: two probes of each client are accepted (each retried until 202),
    /readyz is 200 and every worker takes a job sent after the faults (spare probes sent till
    it does), all within SERVE_BOUND s; what did not, in figures.refusing."""
    started = time.monotonic()
    deadline = started + SERVE_BOUND
    by_client = {c.address: c for c in clients}
    waiting, spares = probes[: 2 * len(clients)], probes[2 * len(clients) :]
    while waiting and time.monotonic() < deadline:
        waiting = [p for p in waiting if by_client[p.client].submit(p, "probe").status != 202]
        if waiting:
            time.sleep(1)
    figures.refusing += [f"client {p.client}: probe {p.key} never accepted" for p in waiting]
    while _ready(cluster.web.port) != 200 and time.monotonic() < deadline:
        time.sleep(1)
    if (status := _ready(cluster.web.port)) != 200:
        figures.refusing.append(f"/readyz answers {status}")

    def idle() -> list[str]:
        fresh = [c.job_id for c in history.snapshot() if c.status == 202 and c.sent >= since]
        return [
            name for name, worker in cluster.workers.items()
            if not any(f"received [job {job_id}]" in worker.log() for job_id in fresh)
        ]  # fmt: skip

    while idle() and spares and time.monotonic() < deadline:
        spare = spares.pop(0)  # more work, till the idle worker takes some
        by_client[spare.client].submit(spare, "probe")
        time.sleep(0.5)
    figures.refusing += [f"worker {name}: took no job after the faults" for name in idle()]
    figures.serve_again = time.monotonic() - started


def soak(
    settings: Settings,
    setup: SentinelSetup,
    seed: int,
    seconds: float,
    gap: tuple[float, float] = (10, 30),
    stuck_bound: float = 120,
) -> Figures:
    """Run one soak: the workload from CLIENTS clients while the seeded faults land for
    `seconds`, then the checks. Returns the figures (the caller asserts and prints)."""
    rng = random.Random(seed)
    faults = schedule(rng, seconds, gap, setup.down_after_ms / 1000)
    addresses = [f"127.0.0.{10 + n}" for n in range(CLIENTS)]
    subs = workload(rng, int(seconds * RATE) + CLIENTS, addresses)
    probes = workload(rng, 6 * CLIENTS, addresses, start=len(subs))
    probes = [p for p in probes if p.puzzle not in {s.puzzle for s in subs}]
    figures = Figures(seed, seconds, faults=faults)
    cluster = Cluster(settings, setup).start()
    history = History()
    store = JobStore(cluster.settings)
    try:
        interval = CLIENTS / RATE
        clients = [
            Client(a, cluster.web.port, [s for s in subs if s.client == a], interval, history)
            for a in addresses
        ]
        for client in clients:
            client.start()
        landing = Faults(cluster, faults, history)
        landing.run(time.monotonic())
        time.sleep(max(0.0, seconds - history.now()))
        for client in clients:
            client.stop.set()
        for client in clients:
            client.join(CALL_TIMEOUT + 5)
        figures.harness += landing.errors
        quiet = history.now()
        if not _wait(cluster.whole, 30):
            figures.harness.append("not every process was back 30 s after the faults")
        serving(cluster, clients, probes, quiet, history, figures)
        figures.restarts = sum(cluster.restarts.values())
        calls = history.snapshot()
        figures.seconds_503 = seconds_of_503(calls, faults)
        judge([*subs, *probes], calls, store, cluster.logs(), figures, stuck_bound)
        if figures.defects():
            figures.harness.append(f"logs kept in {cluster.keep_logs(seed)}")
    finally:
        cluster.cleanup()
    return figures


def _wait(predicate: Any, timeout: float) -> bool:
    """Poll until predicate() holds (True) or timeout s pass (False)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True
