"""docker-compose.yml: valid per the Compose Specification, and in step with the code it runs."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from celery.bin.celery import celery as celery_cli
from celery.bin.worker import worker as celery_worker_cli

from tests.support.compose import (
    COMPOSE,
    ROOT,
    command,
    env_names_read_by,
    environment,
    literal_in_package_source,
    load_compose,
    services,
)

CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")
WORKERS = ("worker-solve", "worker-enumerate")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """The parsed compose file."""
    return load_compose()


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    """Run check-jsonschema with the Compose Specification schema it ships."""
    argv = [str(CHECK_JSONSCHEMA), "--builtin-schema", "vendor.compose-spec", str(path)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_compose_file_matches_the_compose_specification(tmp_path: Path) -> None:
    """The real file validates; the same file with a misspelt key does not (the check bites)."""
    result = validate(COMPOSE)
    assert result.returncode == 0, result.stdout + result.stderr
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text().replace("healthcheck:", "helthcheck:", 1))
    assert validate(broken).returncode != 0


def test_services_and_profiles(compose: dict[str, Any]) -> None:
    """redis, web, front and both worker services by default; flower only under `monitoring`."""
    svc = services(compose)
    assert {"redis", "web", "front", *WORKERS, "flower"} <= set(svc)
    assert svc["flower"].get("profiles") == ["monitoring"]
    for name in ("redis", "web", "front", *WORKERS):
        assert not svc[name].get("profiles"), name


def test_redis_keeps_work_is_bounded_and_needs_a_password(compose: dict[str, Any]) -> None:
    """Append-only everysec, maxmemory + noeviction, requirepass from REDIS_PASSWORD, a volume."""
    redis = services(compose)["redis"]
    words = command(redis)
    pairs = dict(zip(words[1::2], words[2::2], strict=False))
    assert words[0] == "redis-server"
    assert pairs["--appendonly"] == "yes"
    assert pairs["--appendfsync"] == "everysec"
    assert pairs["--maxmemory-policy"] == "noeviction"
    assert re.fullmatch(r"\d+[kmg]b", pairs["--maxmemory"])  # noeviction means something
    assert pairs["--requirepass"].startswith("${REDIS_PASSWORD:?")  # no default: must be set
    assert "redis-cli ping" in " ".join(redis["healthcheck"]["test"])
    volume = redis["volumes"][0]
    assert volume.split(":")[0] in compose["volumes"] and volume.endswith(":/data")
    for service in services(compose).values():
        if "build" in service:
            url = environment(service)["REDIS_URL"]
            assert url.startswith("redis://:${REDIS_PASSWORD:?") and url.endswith("@redis:6379/0")


def test_every_service_is_checked_bounded_and_given_time_to_stop(compose: dict[str, Any]) -> None:
    """A healthcheck, CPU and memory limits and a 60 s stop grace period for every service."""
    for name, service in services(compose).items():
        assert service["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL"), name
        limits = service["deploy"]["resources"]["limits"]
        assert limits["cpus"] and limits["memory"], name
        assert service["stop_grace_period"] == "60s", name
    for name in WORKERS:
        probe = " ".join(services(compose)[name]["healthcheck"]["test"])
        queue = name.removeprefix("worker-")
        assert f"worker_alive('{queue}@' + socket.gethostname())" in probe  # its heartbeat


def test_flower_never_runs_open(compose: dict[str, Any]) -> None:
    """Flower starts through scripts.flower (which needs a login); the open API is never on."""
    flower = services(compose)["flower"]
    assert command(flower)[:3] == ["python", "-m", "scripts.flower"]
    assert "FLOWER_UNAUTHENTICATED_API" not in COMPOSE.read_text()
    assert "FLOWER_BASIC_AUTH" in environment(flower)


def test_the_front_is_the_only_default_published_port(compose: dict[str, Any]) -> None:
    """Only the front publishes a port by default, with web replicas behind it; workers have no
    fixed name and no port (--scale)."""
    svc = services(compose)
    published = {name for name, s in svc.items() if s.get("ports") and not s.get("profiles")}
    assert published == {"front"}
    web = svc["web"]
    assert "container_name" not in web and str(web["deploy"]["replicas"]).startswith("${")
    assert environment(web)["ALPHAMETIC_SECRET_KEY"].startswith("${ALPHAMETIC_SECRET_KEY:?")
    assert environment(web)["ALPHAMETIC_PROXY_HOPS"].endswith(":-1}")  # the front is trusted
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    front = svc["front"]
    assert front["volumes"] == ["./deploy/nginx.conf:/etc/nginx/nginx.conf:ro"]
    assert "proxy_pass $web;" in conf and "http://web:8000" in conf
    assert front["depends_on"]["web"]["condition"] == "service_healthy"
    for name in WORKERS:
        assert "container_name" not in svc[name], name
        assert "ports" not in svc[name], name
        words = command(svc[name])
        assert "%h" in words[words.index("-n") + 1]  # node names differ between scaled copies
    assert all(p.startswith("127.0.0.1:") for p in svc["flower"]["ports"])


def test_web_waits_for_healthy_redis_and_checks_a_real_route(compose: dict[str, Any]) -> None:
    """depends_on redis service_healthy; the healthcheck's /healthz is a route of create_app()."""
    web = services(compose)["web"]
    assert web["depends_on"]["redis"]["condition"] == "service_healthy"
    probe = " ".join(web["healthcheck"]["test"])
    assert "/healthz" in probe
    from web import create_app

    rules = {rule.rule for rule in create_app().url_map.iter_rules()}
    assert "/healthz" in rules


def _celery_options(words: list[str]) -> list[str]:
    """The option words (starting with '-') of a celery command line, without their '=value'."""
    return [w.split("=", 1)[0] for w in words if w.startswith("-")]


def _check_celery(words: list[str]) -> None:
    """`celery -A MODULE worker|flower ...`: the module has a Celery app; options exist."""
    assert words[1] == "-A"
    module = importlib.import_module(words[2])
    assert isinstance(module.app, Celery), words[2]
    sub = words[3]
    known = {o for p in celery_cli.params for o in p.opts}
    if sub == "worker":
        known |= {o for p in celery_worker_cli.params for o in (*p.opts, *p.secondary_opts)}
        queue = words[words.index("-Q") + 1]
        assert queue in {"solve", "enumerate"}
        routed = {q.name for q in module.app.conf.task_queues or ()}
        assert not routed or queue in routed, (queue, routed)
    else:
        assert sub == "flower"
        assert entry_points(group="celery.commands", name="flower"), "flower is not installed"
        from flower.command import default_options

        known |= {f"--{name}" for name in default_options}
    unknown = [o for o in _celery_options(words[4:]) if o not in known]
    assert not unknown, f"{words}: unknown options {unknown}"


def _check_gunicorn(words: list[str]) -> None:
    """`gunicorn ... module:attr`: gunicorn's own parser accepts it and the app is a WSGI app."""
    from gunicorn.config import Config

    args = Config().parser().parse_args(words[1:])  # exits (SystemExit) on an unknown option
    module_name, attr = args.args[0].split(":")
    assert callable(getattr(importlib.import_module(module_name), attr))


@pytest.mark.parametrize("name", ["web", "worker-solve", "worker-enumerate", "flower"])
def test_commands_name_real_entry_points(compose: dict[str, Any], name: str) -> None:
    """Every command starts an installed console script with a module and options that exist."""
    words = command(services(compose)[name])
    if words[:3] == ["python", "-m", "scripts.flower"]:
        assert callable(importlib.import_module("scripts.flower").main)
        words = ["celery", "-A", "worker", "flower", *words[3:]]  # what it runs, login checked
    assert entry_points(group="console_scripts", name=words[0]), words[0]
    {"celery": _check_celery, "gunicorn": _check_gunicorn}[words[0]](words)


def _read_by_tool(tool: str, name: str) -> bool:
    """Whether the third-party program a service runs reads this variable itself."""
    package = Path(importlib.import_module(tool).__file__ or "").parent
    if tool == "flower" and name.startswith("FLOWER_"):
        from flower.command import is_flower_envvar

        if is_flower_envvar(name):
            return True  # Flower maps FLOWER_<OPTION> onto its command-line options
    return literal_in_package_source(package, name)


def test_environment_variables_are_read_by_the_code(compose: dict[str, Any]) -> None:
    """Each variable a service sets is read by our packages or by the program it runs."""
    ours = env_names_read_by()
    for name, service in services(compose).items():
        if "build" not in service:
            continue  # the stock redis image gets no environment
        words = command(service)
        tool = "flower" if any("flower" in word for word in words[:4]) else words[0]
        for var in environment(service):
            assert var in ours or _read_by_tool(tool, var), f"{name}: nothing reads {var}"


def test_the_env_check_rejects_unknown_names() -> None:
    """The reader finds the contract's names and nothing invented (so the check above can fail)."""
    ours = env_names_read_by()
    assert {"REDIS_URL", "ALPHAMETIC_TTL", "PORT", "ENUMERATE_WORKERS"} <= ours
    assert "ALPHAMETIC_NO_SUCH_SETTING" not in ours
    assert not _read_by_tool("gunicorn", "ALPHAMETIC_NO_SUCH_SETTING")
    assert not _read_by_tool("flower", "FLOWER_NO_SUCH_OPTION")
    assert _read_by_tool("gunicorn", "WEB_CONCURRENCY")


def top_level_packages(pyproject: dict[str, Any]) -> set[str]:
    """The project's top-level packages: a `packages` list, or `packages.find` include patterns."""
    packages = pyproject["tool"]["setuptools"]["packages"]
    if isinstance(packages, list):
        return {name.split(".")[0] for name in packages}
    names = {pattern.split(".")[0].rstrip("*") for pattern in packages["find"]["include"]}
    assert names and all(names), packages
    return names


def test_dockerfile_is_slim_unbuffered_and_non_root() -> None:
    """Slim base, PYTHONUNBUFFERED=1, every package copied, and a non-root USER at the end."""
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    instructions = [line for line in lines if line and not line.startswith("#")]
    base = next(line for line in instructions if line.startswith("FROM "))
    assert "python" in base and "slim" in base
    assert any("PYTHONUNBUFFERED=1" in line for line in lines)
    users = [i for i, line in enumerate(instructions) if line.startswith("USER ")]
    assert users, "no USER instruction"
    assert instructions[users[-1]].split()[1] not in {"root", "0"}
    runs = [i for i, line in enumerate(instructions) if line.startswith("RUN ")]
    assert users[-1] > max(runs), "USER must come after the last RUN"
    import tomllib

    for package in top_level_packages(tomllib.loads((ROOT / "pyproject.toml").read_text())):
        assert any(line.startswith(f"COPY {package}/") for line in instructions), package
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".venv", "var", ".git"} <= ignored
