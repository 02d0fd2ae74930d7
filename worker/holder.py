"""Who holds a running job, and whether that holder is certainly dead (a process of this machine).

The holder is written into the job record by the claim (jobstore/attempt.py); the lease sweep
(worker/heartbeat.py) and a re-delivered task (worker/tasks.py) use holder_is_dead to take a
job over at once instead of waiting for its lease.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path


def holder_name(node: str) -> str:
    """Who holds a running job: "<celery node>|<machine>|<pid>" (pid of the pool process)."""
    return f"{node}|{socket.gethostname()}|{os.getpid()}"


def holder_is_dead(holder: str) -> bool:
    """True when the holder is a process on this machine that no longer exists (or a zombie)."""
    try:
        _node, machine, pid = holder.rsplit("|", 2)
        if machine != socket.gethostname():
            return False
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (ValueError, PermissionError):
        return False
    return is_zombie(int(pid))


def is_zombie(pid: int) -> bool:
    """True when the process has exited but is not reaped yet (Linux /proc; else False)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # The state letter follows the command name, which is in parentheses and may hold spaces.
    return stat[stat.rfind(")") + 2 : stat.rfind(")") + 3] in ("Z", "X")
