"""Start child processes in their own process groups and stop them all, leaving nothing behind."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def say(message: str) -> None:
    """Print one supervisor message, flushed so it interleaves sanely with the children's logs."""
    print(f"[run] {message}", file=sys.stderr, flush=True)


def _prctl(option: int, value: int) -> None:
    """Call Linux prctl(2); a no-op elsewhere (supervision still works, less strictly)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def become_subreaper() -> None:
    """Adopt orphaned grandchildren (a pool process whose parent was killed) to reap them."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def _child_setup() -> None:
    """Run in the forked child: die with the supervisor even if it is killed with SIGKILL."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Child:
    """One supervised process; it leads its own process group, so one signal reaches its tree."""

    name: str
    proc: subprocess.Popen[bytes]
    expected_exit: bool = field(default=False)

    @property
    def pid(self) -> int:
        """The child's pid, which is also its process-group id."""
        return self.proc.pid

    def signal_group(self, sig: int) -> None:
        """Send sig to the child's whole process group, ignoring a group that is already gone."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    def group_alive(self) -> bool:
        """Whether any process of the child's group still exists (the leader or its offspring)."""
        if self.proc.poll() is None:
            return True
        try:
            os.killpg(self.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True


class Supervisor:
    """The set of processes `make run` started, in start order."""

    def __init__(self, cwd: Path, env: Mapping[str, str]) -> None:
        """Remember where and with which environment children start."""
        self.cwd = cwd
        self.env = dict(env)
        self.children: list[Child] = []

    def start(
        self, name: str, argv: Sequence[str], env: Mapping[str, str] | None = None, **popen: object
    ) -> Child:
        """Start argv as a new process group (a terminal's Ctrl-C reaches only us); track it."""
        # argv is built by us, never from user text; no threads exist yet when children start.
        proc = subprocess.Popen(
            list(argv),
            cwd=self.cwd,
            env=self.env if env is None else dict(env),
            start_new_session=True,
            preexec_fn=_child_setup,
            **popen,  # type: ignore[call-overload]
        )
        child = Child(name, proc)
        self.children.append(child)
        return child

    def crashed(self) -> Child | None:
        """Return the first child that exited on its own, if any."""
        self.reap_orphans()
        for child in self.children:
            if child.proc.poll() is not None and not child.expected_exit:
                return child
        return None

    def reap_orphans(self) -> None:
        """Reap adopted grandchildren that died, without stealing our own children's statuses."""
        ours = {child.pid for child in self.children}
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None or info.si_pid in ours:
                return
            with contextlib.suppress(ChildProcessError):
                os.waitpid(info.si_pid, 0)

    def stop(self, children: Sequence[Child], timeout: float, hurry: object = None) -> None:
        """SIGTERM each group, wait up to timeout (less if hurry() turns true), then SIGKILL."""
        for child in children:
            child.expected_exit = True
            if child.group_alive():
                child.signal_group(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while any(c.group_alive() for c in children) and time.monotonic() < deadline:
            if callable(hurry) and hurry():
                break
            self.reap_orphans()
            time.sleep(0.05)
        for child in children:
            if child.group_alive():
                say(f"{child.name} did not stop within {timeout:g} s: killing it")
                child.signal_group(signal.SIGKILL)
        deadline = time.monotonic() + 5.0
        while any(c.group_alive() for c in children) and time.monotonic() < deadline:
            self.reap_orphans()
            time.sleep(0.05)
        for child in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.proc.wait(timeout=0.1)
        self.reap_orphans()


class StopRequest:
    """Turns SIGINT/SIGTERM/SIGHUP into a flag; a second signal asks to hurry."""

    def __init__(self) -> None:
        """Install the handlers."""
        self.signals: list[str] = []
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, self._handle)

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        """Record the signal; messages are printed by the main loop, not here."""
        self.signals.append(signal.Signals(signum).name)

    @property
    def requested(self) -> bool:
        """Whether any stop signal arrived."""
        return bool(self.signals)

    def hurry(self) -> bool:
        """Whether a second signal arrived (then we stop waiting for clean exits)."""
        return len(self.signals) > 1
