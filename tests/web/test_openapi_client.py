"""A client no one here wrote: openapi-python-client generates one from the served document,
it imports cleanly, and the README's flow runs with its typed models against gunicorn, a real
Celery worker and Redis (submit, long-poll, page, cancel, delete, explain); over-long requests
are problem+json from the real server too."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import requests

from tests.support.web import PROBLEM
from web.bodies import MAX_HEADER_FIELD, MAX_REQUEST_LINE

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent  # openapi-python-client and ruff (its post hooks) live here
PACKAGE = "alphametic_job_service_client"
ENDED = {"succeeded", "failed", "canceled"}
LONG = "CP + IS + FUN = TRUE"  # in base 36: an enumeration that runs for minutes


@pytest.fixture(scope="module")
def generated(live_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The client generated (offline, ruff as its post hooks) from the served document."""
    folder = tmp_path_factory.mktemp("client")
    document = folder / "openapi.json"
    with urllib.request.urlopen(live_server + "/api/openapi.json", timeout=10) as answer:
        document.write_bytes(answer.read())
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [str(BIN / "openapi-python-client"), "generate", "--path", str(document),
         "--output-path", str(folder / "out")],
        capture_output=True, text=True, env=env, cwd=folder, timeout=120,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "Warning" not in said and "Error" not in said, said
    sys.path.insert(0, str(folder / "out"))
    try:
        yield folder / "out" / PACKAGE
    finally:
        sys.path.remove(str(folder / "out"))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def api(generated: Path) -> dict[str, ModuleType]:
    """Every module of the generated package, imported (each must import cleanly)."""
    package = importlib.import_module(PACKAGE)
    modules = {PACKAGE: package}
    for found in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        modules[found.name.removeprefix(PACKAGE + ".")] = importlib.import_module(found.name)
    return modules


def test_the_generated_client_imports_cleanly(api: dict[str, ModuleType]) -> None:
    models = api["models"]
    # One type per concept: one enum for why a list was cut, one Options for job and estimate.
    truncations = [name for name in dir(models) if "Truncated" in name]
    assert truncations == ["TruncatedReason"]
    assert {member.value for member in models.TruncatedReason} == {"cap", "budget"}
    assert {"Options", "Mode", "State", "LeadingZeros", "Solution"} <= set(dir(models))
    assert not any(name.endswith("Options") and name != "Options" for name in dir(models))
    for name in ("admin_list_jobs", "admin_cancel_jobs", "admin_queues", "create_job"):
        assert f"api.default.{name}" in api


def _calls(api: dict[str, ModuleType]) -> dict[str, ModuleType]:
    """The generated operations' modules by name ("create_job", ...)."""
    return {name.rpartition(".")[2]: module for name, module in api.items() if ".default." in name}


def _ok(response: Any, status: int = 200) -> Any:
    """The parsed body of a response that had `status`."""
    assert response.status_code == status, response.content
    return response.parsed


def _until_ended(calls: dict[str, ModuleType], client: Any, job: Any) -> Any:
    """Long-poll the job (?wait=) until it has ended; its last status."""
    deadline = time.monotonic() + 120
    while job.state.value not in ENDED:
        assert time.monotonic() < deadline, f"job {job.id} still {job.state.value}"
        job = _ok(calls["get_job"].sync_detailed(job.id, client=client, wait=10))
    return job


def test_the_readme_flow_with_the_generated_client(
    api: dict[str, ModuleType], live_server: str
) -> None:
    models = api["models"]
    calls = _calls(api)
    client = api[PACKAGE].Client(base_url=live_server, timeout=httpx.Timeout(40.0))

    # Submit an enumeration, long-polled from the submission on.
    request = models.JobRequest(puzzle="ODD + ODD = EVEN", mode=models.Mode.ENUMERATE, fresh=True)
    job = _ok(calls["create_job"].sync_detailed(client=client, body=request, wait=10), 202)
    assert isinstance(job, models.Job) and job.mode is models.Mode.ENUMERATE
    job = _until_ended(calls, client, job)
    assert job.state is models.State.SUCCEEDED and job.solutions_found >= 2
    assert isinstance(job.options, models.Options) and job.options.base == 10
    assert job.options.leading_zeros is models.LeadingZeros.MULTI_LETTER
    assert job.truncated_reason is None

    # Page through its solutions, one at a time.
    lines: list[str] = []
    offset, done = 0, False
    while not done:
        page = _ok(
            calls["get_solutions"].sync_detailed(job.id, client=client, offset=offset, limit=1)
        )
        assert isinstance(page, models.SolutionsPage) and len(page.items) <= 1
        for item in page.items:
            assert isinstance(item.solution, models.Solution)
            assert item.solution["O"] != item.solution["D"]
            lines.append(item.line)
        offset += len(page.items)
        done = offset >= page.total
    assert len(lines) == len(set(lines)) == job.solutions_found

    # Cancel a long one: it ends canceled.
    request = models.JobRequest(
        puzzle=LONG, mode=models.Mode.ENUMERATE, options=models.Options(base=36), fresh=True
    )
    long = _ok(calls["create_job"].sync_detailed(client=client, body=request), 202)
    canceled = _ok(calls["cancel_job"].sync_detailed(long.id, client=client))
    assert isinstance(canceled, models.Job)
    assert _until_ended(calls, client, canceled).state is models.State.CANCELED

    # Delete the first: its status stays, with `deleted` set.
    deleted = _ok(calls["delete_job"].sync_detailed(job.id, client=client))
    assert isinstance(deleted, models.Job) and deleted.deleted is not None

    # Explain a solved one: 202 until a worker has worked it out, then the steps.
    request = models.JobRequest(puzzle="SEND + MORE = MONEY", fresh=True)
    solved = _until_ended(
        calls, client, _ok(calls["create_job"].sync_detailed(client=client, body=request), 202)
    )
    assert isinstance(solved.solution, models.Solution) and solved.solution["M"] == 1
    deadline = time.monotonic() + 120
    answer = calls["explain_job"].sync_detailed(solved.id, client=client, wait=10)
    while isinstance(answer.parsed, models.ExplanationPending):
        assert time.monotonic() < deadline, "no explanation"
        answer = calls["explain_job"].sync_detailed(solved.id, client=client, wait=10)
    explanation = _ok(answer)
    assert isinstance(explanation, models.Explanation) and explanation.steps
    assert explanation.solution is not None and explanation.solution["M"] == 1
    assert all(step.text for step in explanation.steps)


def test_too_long_requests_are_problems_from_the_real_server(
    api: dict[str, ModuleType], live_server: str
) -> None:
    """Past the app's caps (gunicorn's old ones), under gunicorn's raised ones: problem+json,
    which the generated client parses as its Problem model."""
    models, calls = api["models"], _calls(api)
    client = api[PACKAGE].Client(base_url=live_server, timeout=httpx.Timeout(40.0))
    long_puzzle = "A" * MAX_REQUEST_LINE
    refused = calls["estimate"].sync_detailed(client=client, puzzle=long_puzzle)
    assert refused.status_code == 414
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert isinstance(refused.parsed, models.Problem) and refused.parsed.status == 414
    # At the cap exactly: the app's own answer (the puzzle is too long for a URL: 422).
    fits = "x" * (MAX_REQUEST_LINE - len("GET /api/estimate?puzzle= HTTP/1.1"))
    assert requests.get(f"{live_server}/api/estimate?puzzle={fits}", timeout=10).status_code == 422
    header = {"X-Padding": "p" * MAX_HEADER_FIELD}
    answer = requests.get(f"{live_server}/api/jobs/{uuid.uuid4()}", headers=header, timeout=10)
    assert answer.status_code == 431 and answer.headers["Content-Type"] == PROBLEM
    assert answer.json()["type"] == "/api/problems/header-too-large"
    header = {"X-Padding": "p" * (MAX_HEADER_FIELD - len("X-Padding: \r\n"))}
    answer = requests.get(f"{live_server}/api/jobs/{uuid.uuid4()}", headers=header, timeout=10)
    assert answer.status_code == 404
