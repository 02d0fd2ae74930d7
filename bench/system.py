"""All six system benchmarks in one command (issue 8); figures go to BENCHMARKS.md.

Usage: python bench/system.py [latency throughput cancel scaleout output memory]
With no names it runs all six (a few minutes). Each benchmark starts its own redis-server,
celery workers and gunicorn (bench/harness.py) and stops them before the next one starts.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import latency  # noqa: E402
import scaling  # noqa: E402
from harness import machine  # noqa: E402

BENCHES = {**latency.BENCHES, **scaling.BENCHES}


def main(names: list[str]) -> int:
    """Run the named benchmarks (all when none is named); 2 = unknown name."""
    unknown = sorted(set(names) - set(BENCHES))
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(BENCHES)}")
        return 2
    print(f"machine: {machine()}")
    print("note: a shared machine; other work runs alongside, so figures are noisy\n")
    started = time.monotonic()
    for name in names or list(BENCHES):
        BENCHES[name]()
        print(flush=True)
    print(f"all done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
