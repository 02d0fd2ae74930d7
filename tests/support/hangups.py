"""Hung-up long polls (issue 32, part 4): one client sends `GET /api/jobs/{id}?wait=30` on many
connections and hangs up after a while, round after round, while other clients' long polls are
timed. Shared by tests/web/test_wait_attack.py and bench/attacks/waits.py.

Each client is a loopback address of its own (tests.support.loopback). The job waited on is an
enumeration no worker serves, so it stays queued: a victim's `?wait=N` that gets a wait slot
answers after N seconds, one that gets none answers at once. The victims' small solves
(`POST ?wait=30`) need a solve worker, and come back solved only when they get a slot.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass, field

from tests.support.loopback import connect, send_get, session
from tests.support.victims import small_solves

ATTACKER = "127.0.0.2"
OWNER = "127.0.0.3"  # submits the job everyone waits on
VICTIMS = [f"127.0.0.{n}" for n in range(11, 15)]
SOLVER = "127.0.0.20"  # the victim that submits small solves
TIMEOUT = 60.0  # seconds any one request may take


@dataclass
class Figures:
    """What the victims saw: seconds and states of their waits and small solves."""

    waits: list[tuple[float, str]] = field(default_factory=list)  # ?wait=N: seconds, state
    solves: list[tuple[float, str]] = field(default_factory=list)  # POST ?wait=30
    attacks: int = 0  # attacking requests sent
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def queued_job(url: str) -> str:
    """An enumeration (from OWNER) that stays queued: the deployment runs no enumerate worker."""
    with session(OWNER) as http:
        body = {"puzzle": "SEND + MORE = MONEY", "mode": "enumerate"}
        answer = http.post(f"{url}/api/jobs", json=body, timeout=TIMEOUT)
        answer.raise_for_status()
        job_id: str = answer.json()["id"]
        return job_id


def attack_round(url: str, job_id: str, waits: int, hang_up: float, source: str) -> int:
    """Send `waits` long polls of the job from `source`, hang them all up after `hang_up`
    seconds (their answers unread); how many were sent."""
    sockets: list[socket.socket] = []
    try:
        for _ in range(waits):
            sock = connect(url, source)
            send_get(sock, url, f"/api/jobs/{job_id}?wait=30")
            sockets.append(sock)
        time.sleep(hang_up)
    finally:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.close()
    return len(sockets)


def run(
    url: str, seconds: float, wait: float = 5.0, waits: int = 16, hang_up: float = 2.0
) -> Figures:
    """The attack for `seconds` (rounds of `waits` hung-up long polls, one every `hang_up`
    seconds) while each victim long-polls `?wait=wait` in turn and SOLVER submits small
    solves with `?wait=30`; the attack starts first, so its waits are there before the
    victims' (the victims' first waits meet connected attackers, the later ones hung-up)."""
    job_id = queued_job(url)
    figures = Figures()
    stop = threading.Event()

    def attack() -> None:
        while not stop.is_set():
            try:
                sent = attack_round(url, job_id, waits, hang_up, ATTACKER)
            except OSError as error:
                figures.errors.append(f"attack: {error!r}")
                stop.wait(0.5)
                continue
            with figures.lock:
                figures.attacks += sent

    attacker = threading.Thread(target=attack, daemon=True)
    attacker.start()
    time.sleep(min(1.0, hang_up / 2))  # the first round is connected and waiting
    ends = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_waits, args=(url, job_id, v, wait, ends, figures)) for v in VICTIMS
    ]
    threads.append(threading.Thread(target=_solves, args=(url, ends, figures)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 2 * TIMEOUT)
    stop.set()
    attacker.join(hang_up + TIMEOUT)
    with session(OWNER) as http:
        http.post(f"{url}/api/jobs/{job_id}/cancel", json={}, timeout=TIMEOUT)
    return figures


def _waits(url: str, job_id: str, source: str, wait: float, ends: float, figures: Figures) -> None:
    """One victim long-polling the queued job, one wait after the other, until `ends`."""
    with session(source) as http:
        while time.monotonic() < ends:
            started = time.perf_counter()
            try:
                answer = http.get(f"{url}/api/jobs/{job_id}?wait={wait:g}", timeout=TIMEOUT)
                state = str(answer.json().get("state", answer.status_code))
            except (OSError, ValueError) as error:
                figures.errors.append(f"wait: {error!r}")
                continue
            with figures.lock:
                figures.waits.append((time.perf_counter() - started, state))


def _solves(url: str, ends: float, figures: Figures) -> None:
    """SOLVER's small solves (a base of their own each), one a second, until `ends`."""
    small_solves(SOLVER, url, figures, lambda: time.monotonic() < ends, lambda: time.sleep(1.0))
