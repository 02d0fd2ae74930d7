"""Slow clients (issue 14): /healthz and submit latency while 300 sockets stall the web tier.

Usage: python bench/slowclients.py [--setup run|gthread|waitress] [--stalled 300] [--probes 40]

Starts a private redis-server, one celery worker (solve queue) and the web server as the setup
says: `run` is the command `make run` starts (scripts/run.py web_argv, WEB_CONCURRENCY=2),
`gthread` the one it started before issue 14 (gunicorn gthread, 2 x 8 threads), `waitress` a
waitress-serve for comparison (only when waitress is installed). Measures, on fresh loopback
connections, GET /healthz and POST /api/jobs?wait=10 of small distinct puzzles: first with
nothing else connected, then while `--stalled` sockets stall the server (a third each: partial
headers, headers and 5 of 100 body bytes, pipelined requests never read), then how long the
server takes to close the stalled sockets.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import machine, percentile, system  # noqa: E402

from scripts.run import web_argv  # noqa: E402
from tests.support.load import puzzles  # noqa: E402
from tests.support.processes import WebServer  # noqa: E402
from tests.support.stalls import (  # noqa: E402
    BLOCKED_REQUESTS,
    KINDS,
    open_stalled,
    stalled_sockets,
    timed_get,
    timed_submit,
    watch_closes,
    watching,
)

CLOSE_WAIT = 60.0  # seconds to watch for the server closing stalled sockets
SETTLE = 1.0  # seconds between opening the stalled sockets and the first probe


def gthread_argv(port: int) -> list[str]:
    """What `make run` started before issue 14: gunicorn gthread, 2 processes x 8 threads."""
    return [
        sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "2",
        "--threads", "8", "--graceful-timeout", "3", "--no-control-socket", "web.wsgi:app",
    ]  # fmt: skip


def waitress_argv(port: int) -> list[str]:
    """waitress-serve as shared/notes/operations.md suggests (one process, 8 threads)."""
    return [
        sys.executable, "-m", "waitress", f"--listen=127.0.0.1:{port}", "--threads=8",
        "--connection-limit=1000", "--channel-timeout=30", "web.wsgi:app",
    ]  # fmt: skip


SETUPS: dict[str, Callable[[int], list[str]]] = {
    "run": lambda port: web_argv(port, 2),
    "gthread": gthread_argv,
    "waitress": waitress_argv,
}


def summary(name: str, samples: list[tuple[float, int]]) -> str:
    """'name: p50 .. p99 .. max .. ms, k failed' of (seconds, status) samples."""
    ok = [s for s, status in samples if status]
    failed = len(samples) - len(ok)
    if not ok:
        return f"{name}: all {failed} failed"
    figures = ", ".join(
        f"{label} {1000 * value:.1f} ms"
        for label, value in (("p50", percentile(ok, 50)), ("p99", percentile(ok, 99)))
    )
    return f"{name}: {figures}, max {1000 * max(ok):.1f} ms, {failed} failed of {len(samples)}"


def probe(port: int, texts: list[str]) -> tuple[list[tuple[float, int]], list[tuple[float, int]]]:
    """Alternate a /healthz GET and a submit per puzzle; both lists of (seconds, status)."""
    health, submits = [], []
    for text in texts:
        health.append(timed_get(port, "/healthz"))
        submits.append(timed_submit(port, text))
    return health, submits


def blocked_readers(port: int) -> str:
    """Readers whose unread answers overflow the kernel's buffers: when does the server give up?"""
    held = [open_stalled(port, "reader", BLOCKED_REQUESTS) for _ in range(2)]
    try:
        watch_closes(held, CLOSE_WAIT)
    finally:
        for stalled in held:
            stalled.sock.close()
    times = ", ".join("open" if s.closed_after is None else f"{s.closed_after:.1f} s" for s in held)
    return f"closed after {times}"


def run(setup: str, stalled: int, probes: int) -> None:
    """Start the system, measure without and with stalled sockets, print the figures."""
    print(machine())
    texts = [text for mode, text in puzzles(4 * probes, seed=14) if mode == "solve"]
    env = {
        "ALPHAMETIC_RATE_LIMIT": "1000000/minute",
        "ALPHAMETIC_READ_RATE_LIMIT": "1000000/minute",
    }
    with system("slow", workers=(("solve", 1),)) as s:
        web = WebServer(s.settings, env=env, command=SETUPS[setup]).wait_ready(60)
        try:
            port = web.port
            probe(port, texts[:5])  # warm-up: imports, Redis connections, the subscriber
            quiet = probe(port, texts[5 : 5 + probes])
            started = time.monotonic()
            with stalled_sockets(port, stalled) as held:
                opened = time.monotonic() - started
                with watching(held, CLOSE_WAIT) as still_open:
                    time.sleep(SETTLE)  # the readers' requests are answered (into buffers)
                    loaded = probe(port, texts[5 + probes : 5 + 2 * probes])
                closes = {k: [h.closed_after for h in held if h.kind == k] for k in KINDS}
            print(f"setup {setup}: {' '.join(SETUPS[setup](port)[2:])}")
            print(f"{stalled} stalled sockets opened in {opened:.2f} s")
            for label, (health, submits) in (("quiet", quiet), ("stalled", loaded)):
                print(f"  {label:8} {summary('GET /healthz', health)}")
                print(f"  {label:8} {summary('POST ?wait=10', submits)}")
            for kind, times in closes.items():
                done = [t for t in times if t is not None]
                worst = f"max {max(done):.1f} s" if done else "none"
                print(f"  closed by the server: {kind:8} {len(done)}/{len(times)} ({worst})")
            print(f"  still open after {CLOSE_WAIT:g} s: {len(still_open)}")
            print(f"  blocked readers ({BLOCKED_REQUESTS} answers unread): {blocked_readers(port)}")
        finally:
            web.cleanup()


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run the benchmark once."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--setup", choices=sorted(SETUPS), default="run")
    parser.add_argument("--stalled", type=int, default=300)
    parser.add_argument("--probes", type=int, default=40)
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    run(args.setup, args.stalled, args.probes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
