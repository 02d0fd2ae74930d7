"""What `make run` tells a person: a few lines while starting, one block once ready.

Every child's own output (Celery's banners and per-task lines, gunicorn's, Flower's) goes to a
file under var/log/ instead of the terminal; the block says where, and a crash shows the last
lines of the failed part's file.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO

from scripts.supervisor import say

TAIL_LINES = 15


def open_log(log_dir: Path, name: str) -> IO[bytes]:
    """var/log/<name>.log opened for appending, with a line marking this run's start."""
    log_dir.mkdir(parents=True, exist_ok=True)
    handle = (log_dir / f"{name}.log").open("ab")
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    handle.write(f"---- make run started at {stamp} ----\n".encode())
    handle.flush()
    return handle


def tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last lines of a log file, indented (or a note that it is missing)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"    (no {path})"
    return "\n".join(f"    {line}" for line in text.splitlines()[-lines:])


def show_tail(path: Path, root: Path) -> None:
    """Print a failed part's last log lines, to show why without opening the file."""
    say(f"last lines of {relative(path, root)}:\n{tail(path)}")


def relative(path: Path, root: Path) -> str:
    """A path as the person typed `make run` from: relative to the checkout when inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def ready_block(rows: list[tuple[str, str]], elapsed: float) -> None:
    """The one block a person needs: what to open, where logs go, how to stop."""
    width = max(len(label) for label, _ in rows)
    lines = [f"ready in {elapsed:.1f} s"]
    lines += [f"  {label.ljust(width)}  {value}" for label, value in rows]
    say("\n      ".join(lines))
