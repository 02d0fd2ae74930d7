"""Logs a machine can read: JSON lines, a request id per web request, job id and attempt."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from jobstore import Settings
from scripts.run import web_argv
from tests.support.compose import ROOT
from tests.support.ops import JSON_LOGS
from tests.support.processes import WebServer, WorkerProcess, wait_for
from worker.logs import CURRENT, JobContext

pytestmark = pytest.mark.timeout(120)
HEX_ID = re.compile(r"[0-9a-f]{32}")


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of a log, each of which must be a JSON object."""
    lines = [line for line in text.splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            raise AssertionError(f"not a JSON line: {line!r}") from None
        assert isinstance(entry, dict) and {"time", "level", "logger", "message"} <= set(entry)
        parsed.append(entry)
    return parsed


@pytest.fixture(scope="module")
def proxied_web(ops_settings: Settings) -> Iterator[WebServer]:
    """Gunicorn told that one trusted proxy stands in front of it."""
    server = WebServer(ops_settings, env={**JSON_LOGS, "ALPHAMETIC_PROXY_HOPS": "1"})
    try:
        yield server.wait_ready()
    finally:
        server.cleanup()


def test_every_web_line_is_json_with_the_request_id(ops_web: WebServer) -> None:
    """A forged X-Request-ID is replaced; the access line and a line logged inside carry it."""
    forged = {"X-Request-ID": "forged-by-client", "Authorization": "Bearer wrong"}
    answer = requests.get(f"{ops_web.url}/admin/api/jobs", headers=forged, timeout=10)
    assert answer.status_code == 401  # a wrong token: an admin line is logged inside
    request_id = answer.headers["X-Request-ID"]
    assert HEX_ID.fullmatch(request_id), request_id

    def logged() -> list[dict[str, Any]]:
        return [e for e in json_lines(ops_web.log()) if e.get("request_id") == request_id]

    wait_for(lambda: len(logged()) >= 2, 5)
    mine = logged()
    assert {e["logger"] for e in mine} == {"alphametic.access", "alphametic.admin"}
    access = next(e for e in mine if e["logger"] == "alphametic.access")
    assert access["status"] == 401 and access["path"] == "/admin/api/jobs"
    assert access["method"] == "GET" and access["duration_ms"] >= 0
    everything = json_lines(ops_web.log())  # gunicorn's own lines too (GunicornLogger)
    assert any("Booting worker" in e["message"] for e in everything)


@pytest.fixture(scope="module")
def gevent_web(ops_settings: Settings) -> Iterator[WebServer]:
    """The web server as `make run` starts it (gevent workers), logging JSON lines."""
    server = WebServer(ops_settings, env=JSON_LOGS, command=lambda port: web_argv(port, 1))
    try:
        yield server.wait_ready()
    finally:
        server.cleanup()


def test_a_bad_puzzle_worked_on_off_the_event_loop_logs_no_traceback(
    gevent_web: WebServer,
) -> None:
    """An estimate runs in gevent's thread pool; its PuzzleError is a 422, not a traceback the
    pool prints into the JSON log."""
    bad = {"puzzle": "ABCDE+FGHIJ=KLMNO", "mode": "enumerate", "base": "10"}
    answer = requests.get(f"{gevent_web.url}/api/estimate", params=bad, timeout=10)
    assert answer.status_code == 422 and answer.json()["field"] == "puzzle", answer.text
    request_id = answer.headers["X-Request-ID"]
    wait_for(lambda: request_id in gevent_web.log(), 5)
    assert "Traceback" not in gevent_web.log()
    json_lines(gevent_web.log())  # every line is still one JSON object


def test_a_trusted_proxy_passes_its_request_id_on(proxied_web: WebServer) -> None:
    """Behind ALPHAMETIC_PROXY_HOPS=1 a well-formed id is kept; a malformed one is replaced."""
    sent = {"X-Request-ID": "edge-7f3a.42"}
    answer = requests.get(f"{proxied_web.url}/healthz", headers=sent, timeout=10)
    assert answer.headers["X-Request-ID"] == "edge-7f3a.42"
    wait_for(lambda: '"request_id": "edge-7f3a.42"' in proxied_web.log(), 5)
    bad = requests.get(f"{proxied_web.url}/healthz", headers={"X-Request-ID": "a b\tc"}, timeout=10)
    assert HEX_ID.fullmatch(bad.headers["X-Request-ID"])


def test_worker_lines_name_the_job_and_attempt(
    ops_web: WebServer, ops_workers: WorkerProcess
) -> None:
    """Every worker line about a job is JSON with its job_id; the run's lines name attempt 1."""
    body: dict[str, Any] = {
        "puzzle": "SEND + MORE = MONEY",
        "mode": "solve",
        "options": {"base": 11},
    }
    job = requests.post(f"{ops_web.url}/api/jobs?wait=30", json=body, timeout=40).json()
    assert job["state"] == "succeeded", job
    job_id = job["id"]

    def about_job() -> list[dict[str, Any]]:
        entries = json_lines(after_banner(ops_workers.log()))
        return [e for e in entries if job_id in e["message"] or e.get("job_id") == job_id]

    wait_for(lambda: any("ended" in e["message"] for e in about_job()), 10)
    lines = about_job()
    assert all(e.get("job_id") == job_id for e in lines), lines
    ended = next(e for e in lines if "ended" in e["message"])
    assert ended["attempt"] == 1 and ended["logger"] == "worker.tasks"
    assert any("received" in e["message"].lower() for e in lines)  # Celery's own, main process
    assert len({e["process"] for e in lines}) == 2  # main process and pool process


def after_banner(text: str) -> str:
    """The worker's log from its first log line on (Celery prints a text banner first)."""
    start = text.find('{"time"')
    return text[start:] if start >= 0 else ""


def test_text_lines_get_a_job_suffix() -> None:
    """In text format a line of a run ends with [job <id> attempt <n>]; others get nothing."""
    record = logging.LogRecord("worker.tasks", logging.INFO, __file__, 1, "working", None, None)
    token = CURRENT.set(("1e5c9b1a-0000-4000-8000-000000000000", "2"))
    try:
        JobContext().filter(record)
    finally:
        CURRENT.reset(token)
    suffix = " [job 1e5c9b1a-0000-4000-8000-000000000000 attempt 2]"
    assert record.__dict__["job_context"] == suffix and record.__dict__["attempt"] == 2
    plain = logging.LogRecord("celery", logging.INFO, __file__, 1, "idle", None, None)
    JobContext().filter(plain)
    assert plain.__dict__["job_context"] == "" and plain.__dict__["job_id"] is None


def test_gunicorns_logger_class_imports_nothing_of_the_app() -> None:
    """Gunicorn loads it in its master, before gevent patches a worker: stdlib and gunicorn only."""
    check = (
        "import sys, scripts.gunicorn_logging; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('web', 'jobstore', 'worker', 'redis', 'flask', 'celery', 'kombu')); "
        "sys.exit(', '.join(bad) or 0)"
    )
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True,
                            text=True, timeout=30, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr


# CR, LF, NEL (U+0085, also a C1 control) and U+2028, each of which str.splitlines() breaks on.
FORGING_PATH = "/jobs/x%0Aforged%0D%0Aforged%C2%85forged%E2%80%A8forged"


@pytest.fixture(scope="module")
def text_web(ops_settings: Settings) -> Iterator[WebServer]:
    """Gunicorn as `make run` starts it, logging text, with gunicorn's own access log on too."""
    server = WebServer(
        ops_settings, command=lambda port: [*web_argv(port, 1), "--access-logfile", "-"]
    )
    try:
        yield server.wait_ready()
    finally:
        server.cleanup()


def forged_lines(text: str) -> list[str]:
    """Lines of a log that a path's encoded line breaks started."""
    return [line for line in text.splitlines() if line.startswith("forged")]


def test_a_path_cannot_forge_a_text_log_line(text_web: WebServer) -> None:
    """A path with %0A, %0D, NEL and U+2028 stays on its own access lines (the app's and
    gunicorn's), its breaks written as escapes."""
    answer = requests.get(text_web.url + FORGING_PATH, timeout=10)
    assert answer.status_code == 404
    wait_for(lambda: "GET /jobs/x%0Aforged" in text_web.log(), 5)  # gunicorn's line, as sent
    log = text_web.log()
    assert forged_lines(log) == [], log
    assert "x\\nforged\\r\\nforged\\u0085forged\\u2028forged" in log  # the app's access line


def test_a_path_cannot_forge_a_json_log_line(ops_web: WebServer) -> None:
    """In JSON lines too: C1 and U+2028 (which json.dumps leaves raw) are escaped."""
    answer = requests.get(ops_web.url + FORGING_PATH, timeout=10)
    request_id = answer.headers["X-Request-ID"]
    wait_for(lambda: request_id in ops_web.log(), 5)
    entries = json_lines(ops_web.log())  # splitlines(): a raw U+2028 would break a line
    access = next(e for e in entries if e.get("request_id") == request_id)
    assert access["path"] == "/jobs/x\nforged\r\nforged\x85forged\u2028forged"


def test_gunicorn_escapes_as_the_app_does() -> None:
    """scripts/gunicorn_logging.py keeps its own copy of the escaping: the two agree."""
    from jobstore.logformat import escape_controls
    from scripts.gunicorn_logging import escape_controls as gunicorns

    every = "".join(map(chr, range(0x3000)))
    assert gunicorns(every) == escape_controls(every)
    assert escape_controls("a\tb\nc\x1b") == "a\tb\\nc\\u001b"
