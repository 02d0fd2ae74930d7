"""The JSON API through Flask's test client, against a real Redis and real workers."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from alphametic.linear.native import describe
from jobstore import JobStore
from tests.support.processes import free_port, wait_job
from tests.support.web import assert_problem, make_app

LONG = {"puzzle": "CP + IS + FUN = TRUE", "mode": "enumerate", "options": {"base": 36}}


def post_job(client: FlaskClient, body: Any) -> Any:
    """POST a JSON job request."""
    return client.post("/api/jobs", json=body)


@pytest.fixture()
def long_job(client: FlaskClient, job_store: JobStore, web_workers: Any) -> Any:
    """A long enumeration, canceled at teardown whatever the test did."""
    response = post_job(client, LONG)
    assert response.status_code == 202
    job_id = response.get_json()["id"]
    yield job_id
    job_store.cancel(job_id)
    wait_job(job_store, job_id)


def test_healthz(client: FlaskClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_readyz_with_workers(client: FlaskClient, web_workers: Any) -> None:
    response = client.get("/readyz")
    body = response.get_json()
    assert response.status_code == 200, body
    assert body["status"] == "ready" and body["redis"] is True
    assert body["workers"]["solve"] >= 1 and body["workers"]["enumerate"] >= 1
    assert body["engine"] == describe()  # "native", or "python (...)" saying why


def test_solve_round_trip(client: FlaskClient, job_store: JobStore, web_workers: Any) -> None:
    response = post_job(client, {"puzzle": "send+more==money", "mode": "solve"})
    assert response.status_code == 202
    body = response.get_json()
    assert response.headers["Location"] == f"/api/jobs/{body['id']}"
    # Pollers are told the poll interval, not the rate limiter's window.
    if body["state"] in ("queued", "running"):
        assert response.headers["Retry-After"] == str(client.application.config["POLL_SECONDS"])
    assert uuid.UUID(body["id"]).version == 4
    assert body["puzzle"] == "SEND + MORE = MONEY"
    assert body["links"]["solutions"] == f"/api/jobs/{body['id']}/solutions"
    assert body["links"]["cancel"] == f"/api/jobs/{body['id']}/cancel"
    wait_job(job_store, body["id"])
    response = client.get(body["links"]["self"])
    done = response.get_json()
    assert response.status_code == 200
    assert "Retry-After" not in response.headers
    assert done["state"] == "succeeded" and done["progress"] == 1.0
    assert done["solution"] == {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}
    page = client.get(done["links"]["solutions"]).get_json()
    assert page["items"][0]["line"] == "SEND + MORE = MONEY | 9567 + 1085 = 10652"


def test_status_has_retry_after_while_running(client: FlaskClient, long_job: str) -> None:
    response = client.get(f"/api/jobs/{long_job}")
    assert response.status_code == 200
    assert response.get_json()["state"] in ("queued", "running")
    assert int(response.headers["Retry-After"]) >= 1


def test_solutions_are_paged(client: FlaskClient, job_store: JobStore, web_workers: Any) -> None:
    response = post_job(client, {"puzzle": "TWO + TWO = FOUR", "mode": "enumerate"})
    job_id = response.get_json()["id"]
    assert wait_job(job_store, job_id).solutions_found == 7
    first = client.get(f"/api/jobs/{job_id}/solutions?limit=5").get_json()
    assert first["total"] == 7 and first["truncated"] is False and first["done"] is True
    assert len(first["items"]) == 5 and first["next"].endswith("offset=5&limit=5")
    rest = client.get(first["next"]).get_json()
    assert len(rest["items"]) == 2 and "next" not in rest
    lines = [item["line"] for item in first["items"] + rest["items"]]
    assert len(set(lines)) == 7
    for item in first["items"] + rest["items"]:
        digits = item["solution"]
        two = 100 * digits["T"] + 10 * digits["W"] + digits["O"]
        four = 1000 * digits["F"] + 100 * digits["O"] + 10 * digits["U"] + digits["R"]
        assert 2 * two == four
        assert item["line"].startswith("TWO + TWO = FOUR | ")


def test_grid_counts_every_solution(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    response = post_job(client, {"puzzle": "ODD + ODD = EVEN", "mode": "enumerate"})
    job = response.get_json()
    wait_job(job_store, job["id"])
    grid = client.get(job["links"]["grid"]).get_json()
    assert grid["total"] == 2 and grid["base"] == 10
    assert sorted(grid["letters"]) == ["D", "E", "N", "O", "V"]
    assert grid["letters"]["E"] == [0, 2, 0, 0, 0, 0, 0, 0, 0, 0]  # forced: E = 1
    assert all(sum(counts) == 2 for counts in grid["letters"].values())


def test_cancel_is_idempotent(client: FlaskClient, job_store: JobStore, long_job: str) -> None:
    wait_job(job_store, long_job, lambda job: job.solutions_found > 0)
    first = client.post(f"/api/jobs/{long_job}/cancel", json={})
    assert first.status_code == 200
    assert first.get_json()["id"] == long_job
    job = wait_job(job_store, long_job)
    assert job.state == "canceled"
    again = client.post(f"/api/jobs/{long_job}/cancel", json={})
    assert again.status_code == 200 and again.get_json()["state"] == "canceled"
    page = client.get(f"/api/jobs/{long_job}/solutions?limit=3").get_json()
    assert page["total"] > 0 and len(page["items"]) == 3


def test_cancel_finished_job_changes_nothing(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = post_job(client, {"puzzle": "TO + GO = OUT"}).get_json()["id"]
    wait_job(job_store, job_id)
    response = client.post(f"/api/jobs/{job_id}/cancel", json={})
    assert response.status_code == 200 and response.get_json()["state"] == "succeeded"


@pytest.mark.parametrize(
    "path",
    [
        "/api/jobs/{id}",
        "/api/jobs/{id}/solutions",
        "/api/jobs/{id}/grid",
        "/api/jobs/{id}/cancel",
        "/api/jobs/nope",
    ],
)
def test_unknown_job_is_404(client: FlaskClient, path: str) -> None:
    url = path.format(id=uuid.uuid4())
    response = client.post(url, json={}) if url.endswith("cancel") else client.get(url)
    assert_problem(response, 404)


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ('{"puzzle": "A + B = C"', "body", "not valid JSON"),
        ("[1, 2]", "body", "JSON object"),
        ("{}", "puzzle", "required"),
        ('{"puzzle": 12}', "puzzle", "string"),
        ('{"puzzle": "A + B = C", "mode": "fast"}', "mode", "'solve' or 'enumerate'"),
        ('{"puzzle": "A + B = C", "colour": 1}', "body", "Unknown field"),
        ('{"puzzle": "A + B = C", "options": []}', "options", "object"),
        ('{"puzzle": "A + B = C", "options": {"base": "ten"}}', "options.base", "integer"),
        ('{"puzzle": "A + B = C", "options": {"base": true}}', "options.base", "integer"),
        ('{"puzzle": "A + B = C", "options": {"speed": 1}}', "options", "Unknown option"),
        ('{"puzzle": "A + B = C", "options": {"fixed": {"A": "1"}}}', "options.fixed", "digits"),
        ('{"puzzle": "A + B = C", "options": {"leading_zeros": 0}}', "options.leading_zeros", ""),
    ],
)
def test_malformed_requests_are_422(client: FlaskClient, body: str, field: str, words: str) -> None:
    response = client.post("/api/jobs", data=body, content_type="application/json")
    problem = assert_problem(response, 422)
    assert problem["field"] == field
    assert words in problem["detail"]


@pytest.mark.parametrize(
    ("puzzle", "options", "words"),
    [
        ("SEND + MORE = MONEY!", {}, "at character 20"),
        ("SEND + MORE", {}, ""),
        ("", {}, ""),
        ("SEND + MORE = MONEY", {"base": 99}, "base"),
        ("SEND + MORE = MONEY", {"leading_zeros": "never"}, ""),
        ("SEND + MORE = MONEY", {"fixed": {"Z": 1}}, "Z"),
    ],
)
def test_puzzle_errors_are_422_with_detail(
    client: FlaskClient, puzzle: str, options: dict[str, Any], words: str
) -> None:
    response = post_job(client, {"puzzle": puzzle, "options": options})
    problem = assert_problem(response, 422)
    assert problem["type"] == "/api/problems/puzzle-error"
    assert words in problem["detail"]


def test_puzzle_error_names_position(client: FlaskClient) -> None:
    problem = assert_problem(post_job(client, {"puzzle": "AB + C$ = DE"}), 422)
    # The machine field is an offset (from 0); the sentence counts as people do (from 1).
    assert problem["position"] == 6
    assert problem["detail"].endswith("at character 7")
    document = client.get("/api/openapi.json").get_json()
    said = document["components"]["schemas"]["Problem"]["properties"]["position"]["description"]
    assert "0-based" in said and "from 1" in said


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "/api/jobs"), ("put", "/api/jobs"), ("put", "/api/jobs/{id}"),
     ("get", "/api/jobs/{id}/cancel"), ("post", "/api/jobs/{id}/solutions")],
)  # fmt: skip
def test_wrong_method_is_405(client: FlaskClient, method: str, path: str) -> None:
    response = getattr(client, method)(path.format(id=uuid.uuid4()))
    assert_problem(response, 405)
    assert response.headers["Allow"]


@pytest.mark.parametrize(
    ("content_type", "data"),
    [("text/plain", '{"puzzle": "A + B = C"}'), ("application/x-www-form-urlencoded", "puzzle=A")],
)
def test_non_json_body_is_415(client: FlaskClient, content_type: str, data: str) -> None:
    response = client.post("/api/jobs", data=data, content_type=content_type)
    assert "application/json" in assert_problem(response, 415)["detail"]


def test_cancel_refuses_form_posts(client: FlaskClient) -> None:
    url = f"/api/jobs/{uuid.uuid4()}/cancel"
    response = client.post(url, data={"x": "1"})
    assert_problem(response, 415)


@pytest.mark.parametrize("content_type", [None, "text/plain", "multipart/form-data; boundary=x"])
def test_cancel_refuses_what_another_site_can_send(
    client: FlaskClient, content_type: str | None
) -> None:
    """No body, text or multipart: what a page of another site posts without a preflight."""
    url = f"/api/jobs/{uuid.uuid4()}/cancel"
    response = client.post(url, content_type=content_type)
    problem = assert_problem(response, 415)
    assert problem["field"] == "Content-Type"
    assert problem["type"] == "/api/problems/unsupported-media-type"


@pytest.mark.parametrize("query", ["limit=0", "limit=100000", "limit=ten", "offset=-1", "offset=x"])
def test_bad_page_arguments_are_422(
    client: FlaskClient, job_store: JobStore, web_workers: Any, query: str
) -> None:
    job_id = post_job(client, {"puzzle": "ODD + ODD = EVEN", "mode": "enumerate"}).get_json()["id"]
    problem = assert_problem(client.get(f"/api/jobs/{job_id}/solutions?{query}"), 422)
    assert query.split("=")[0] in problem["detail"]


def test_redis_down_is_503(web_settings: Any) -> None:
    dead = web_settings.replace(redis_url=f"redis://127.0.0.1:{free_port()}/0", redis_timeout=0.5)
    client = make_app(dead).test_client()
    response = client.post("/api/jobs", json={"puzzle": "SEND + MORE = MONEY"})
    assert int(assert_problem(response, 503)["status"]) == 503
    assert int(response.headers["Retry-After"]) >= 1
    assert_problem(client.get(f"/api/jobs/{uuid.uuid4()}"), 503)
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["redis"] is False
    page = client.get(f"/jobs/{uuid.uuid4()}")
    assert page.status_code == 503 and b"cannot be reached" in page.data
    assert client.get("/healthz").status_code == 200
    # What is wrong with a request is still said with Redis away (it just goes uncounted).
    assert_problem(client.post("/api/jobs", json={"puzzle": "A + B"}), 422)
    assert_problem(client.post("/api/jobs", data="{", content_type="application/json"), 422)


def test_delete_removes_an_ended_jobs_solutions(client: FlaskClient, job_store: JobStore) -> None:
    """DELETE of one's own ended job empties its list; a running job is 409; ids unknown 404."""
    created = post_job(client, {"puzzle": "TWO + TWO = FOUR", "mode": "enumerate"}).get_json()
    wait_job(job_store, created["id"])
    assert client.get(f"/api/jobs/{created['id']}/solutions").get_json()["total"] == 7
    gone = client.delete(f"/api/jobs/{created['id']}")
    assert gone.status_code == 200 and gone.get_json()["deleted"]
    assert client.get(f"/api/jobs/{created['id']}/solutions").get_json()["total"] == 0
    assert_problem(client.delete(f"/api/jobs/{uuid.uuid4()}"), 404)
    running = post_job(client, LONG).get_json()
    assert_problem(client.delete(f"/api/jobs/{running['id']}"), 409)
    client.post(f"/api/jobs/{running['id']}/cancel", json={})
