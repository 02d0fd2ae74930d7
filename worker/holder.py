"""Who holds a running job, and whether that holder is certainly dead.

A holder names one pool process for its lifetime, unlike a host name and pid, which another
container or PID namespace (Kubernetes hostNetwork, compose with a fixed hostname) may share:
"<celery node>|<host>|<boot id>|<pid namespace>|<pid>|<start time>|<random>". A holder is
judged dead here only when it is certainly a process of this very kernel and PID namespace
(same boot id and namespace inode) that no longer exists, or exists with another start time,
or is a zombie; anything else is left to its lease.
"""

from __future__ import annotations

import functools
import os
import socket
import uuid
from pathlib import Path


@functools.cache
def boot_id() -> str:
    """This kernel's boot id ('' where Linux's /proc does not tell it)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def pid_namespace() -> str:
    """The inode of this process's PID namespace ('' where /proc does not tell it)."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return ""


def start_time(pid: int) -> str | None:
    """A process's start time in clock ticks since boot (None: no such process here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # Fields after the command name (in parentheses, may hold spaces): state is the first,
    # the start time the 20th.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if fields[0] not in ("Z", "X") else ""


@functools.cache
def _identity(pid: int) -> str:
    """The part of the holder name that is fixed for one process's lifetime."""
    started = start_time(pid) or ""
    parts = (socket.gethostname(), boot_id(), pid_namespace(), str(pid), started)
    return "|".join((*parts, uuid.uuid4().hex[:12]))


def holder_name(node: str) -> str:
    """The name of this pool process as a job's holder."""
    return f"{node}|{_identity(os.getpid())}"


def holder_is_dead(holder: str) -> bool:
    """True only when the holder is certainly a process of this kernel and PID namespace that
    has exited (gone, a zombie, or its pid reused by a younger process)."""
    parts = holder.split("|")
    if len(parts) != 7:
        return False
    _node, _host, boot, namespace, pid, started, _nonce = parts
    if not boot or boot != boot_id() or not namespace or namespace != pid_namespace():
        return False
    try:
        now = start_time(int(pid))
    except ValueError:
        return False
    return now is None or now == "" or (bool(started) and now != started)
