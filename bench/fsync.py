"""What `appendfsync always` costs a submission: JobStore.submit against `make run`'s Redis.

Usage: python bench/fsync.py [--count N]

For each policy (everysec, the default, then always) a Redis started as `make run` starts it
(scripts/embedded_redis.py: append-only, in a temporary directory on this disk) takes N
distinct submissions from one client in a row; the latency of each, submit to its answer, is
timed. No worker runs: what is timed is the submission's write (its Lua script and the answer
after the append, and with `always` the fsync), not a search.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ms, random_additions  # noqa: E402

from jobstore import JobStore, Settings  # noqa: E402
from scripts.embedded_redis import free_port, redis_argv, redis_binary, wait_ready  # noqa: E402


def timed_submits(fsync: str, puzzles: list[str]) -> list[float]:
    """Seconds of each submission to a fresh append-only Redis with this fsync policy."""
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as data:
        port = free_port()
        url = f"redis://127.0.0.1:{port}/0"
        argv = redis_argv(redis_binary(), port, Path(data), fsync)
        server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_ready(url, alive=lambda: server.poll() is None)
            settings = Settings(
                redis_url=url, key_prefix="bench-fsync", max_queued_per_client=0,
                max_stored_per_client=0,
            )  # fmt: skip
            store = JobStore(settings)
            took = []
            for text in puzzles:
                started = time.perf_counter()
                store.submit("solve", text, client="bench")
                took.append(time.perf_counter() - started)
            store.redis.close()
            return took
        finally:
            server.terminate()
            server.wait(10)


def main() -> None:
    """Both policies, one after the other, on the same puzzles."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500, help="submissions per policy")
    count = parser.parse_args().count
    puzzles = random_additions(count)
    disk = os.statvfs(Path.cwd())
    print(f"appendfsync cost: {count} submissions per policy, data on {Path.cwd()} "
          f"({disk.f_blocks * disk.f_frsize / 2**30:.0f} GiB filesystem)")  # fmt: skip
    for fsync in ("everysec", "always", "everysec", "always"):  # alternating: load changes
        took = timed_submits(fsync, puzzles)
        load = Path("/proc/loadavg").read_text().split()[0]
        print(
            f"   {fsync:<9} {ms(took)}   mean {sum(took) / len(took) * 1e3:6.2f} ms   load {load}"
        )


if __name__ == "__main__":
    main()
