"""The `alphametic` console script run as a real subprocess, for the CLI's tests."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SCRIPT = Path(sys.executable).with_name("alphametic")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """Run the console script with args and return the finished process."""
    result = subprocess.run(
        [str(SCRIPT), *args], input=stdin, capture_output=True, timeout=60, check=False
    )
    out = subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )
    assert "Traceback" not in out.stderr
    return out


def timed_count(text: str, base: int) -> tuple[int, float]:
    """(count, seconds) of the console script's count of a puzzle, timed from outside (one
    core; no timeout short of an hour: big counts take minutes on a loaded machine)."""
    started = time.monotonic()
    args = [str(SCRIPT), "solve", "--count", "--json", "--base", str(base), text]
    out = subprocess.run(args, capture_output=True, text=True, timeout=3600, check=True)
    return int(json.loads(out.stdout)["count"]), time.monotonic() - started


def json_lines(text: str) -> list[dict[str, Any]]:
    """Parse one JSON object per line."""
    return [json.loads(line) for line in text.splitlines()]


def default_sigint() -> None:
    """Let the child take Ctrl-C even when this test runs in a background job that ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def reaped(proc: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    """The process, killed and waited for at the end if it still runs (a failed test's)."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
