"""The compose job mode through the JSON API: real Redis, real workers, the API's result set
against a brute force written apart from the engine (tests/support/words.py); validation;
export."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from jobstore import JobStore, Settings
from tests.support import cli
from tests.support.processes import wait_job
from tests.support.web import assert_problem
from tests.support.words import SMALL as WORDS
from tests.support.words import brute


def composed(client: FlaskClient, job_store: JobStore, body: dict[str, Any]) -> dict[str, Any]:
    """POST a compose job, wait for its end, and return its status body."""
    response = client.post("/api/jobs", json={"mode": "compose", **body})
    assert response.status_code == 202, response.get_json()
    job_id = response.get_json()["id"]
    wait_job(job_store, job_id, timeout=60)
    done: dict[str, Any] = client.get(f"/api/jobs/{job_id}").get_json()
    return done


def all_results(client: FlaskClient, job: dict[str, Any], limit: int = 3) -> list[Any]:
    """Every result of a compose job, following the pages' `next` links."""
    items: list[Any] = []
    url: str | None = f"{job['links']['results']}?limit={limit}"
    while url:
        page = client.get(url).get_json()
        items += page["items"]
        url = page.get("next")
    return items


@pytest.mark.parametrize(
    ("addends", "base", "policy", "wanted"),
    [(2, 6, "multi-letter", 1), (2, 7, "every-word", 2), (3, 5, "multi-letter", 1)],
)
def test_the_api_composes_what_the_brute_force_finds(
    client: FlaskClient,
    job_store: JobStore,
    web_workers: Any,
    addends: int,
    base: int,
    policy: str,
    wanted: int,
) -> None:
    options = {"addends": addends, "base": base, "leading_zeros": policy, "solutions": wanted}
    job = composed(client, job_store, {"words": WORDS, "options": options})
    assert job["state"] == "succeeded" and job["progress"] == 1.0, job
    switches = {"distinct_words": False, "count_only": False}  # defaults filled in
    assert job["mode"] == "compose" and job["options"] == {**options, **switches}
    expected = brute(WORDS, addends, base, policy, wanted)
    assert expected  # the case finds something, or it checks little
    items = all_results(client, job)
    assert {item["puzzle"] for item in items} == set(expected)
    assert len(items) == len(expected) == job["solutions_found"]
    for item in items:
        assert item["solutions"] == wanted
        if wanted == 1:
            assert item["solution"] == expected[item["puzzle"]][0]
            assert item["difficulty"]["label"] and item["difficulty"]["score"] >= 0
        else:
            assert item["solution"] is None and item["difficulty"] is None


def test_results_export_as_csv_and_json_lines(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    options = {"base": 6}
    job = composed(client, job_store, {"words": WORDS, "options": options})
    expected = brute(WORDS, 2, 6, "multi-letter", 1)
    lines = client.get(f"/api/jobs/{job['id']}/export?format=jsonl").get_data(as_text=True)
    rows = [json.loads(line) for line in lines.splitlines()]
    assert {row["puzzle"]: row["solution"] for row in rows} == {
        text: found[0] for text, found in expected.items()
    }
    text = client.get(f"/api/jobs/{job['id']}/export?format=csv").get_data(as_text=True)
    table = list(csv.DictReader(io.StringIO(text)))  # the header first
    commented = client.get(f"/api/jobs/{job['id']}/export?format=csv&comment=1").get_data(True)
    assert commented.startswith("# compose; addends 2; base 6;") and commented.endswith(text)
    assert {row["puzzle"] for row in table} == set(expected)
    assert all(row["difficulty_label"] for row in table)
    # Exported by difficulty: the rows of the results' order, CSV and JSON Lines alike.
    listed = client.get(f"{job['links']['results']}?order=hardest&limit=100").get_json()
    hardest = [item["puzzle"] for item in listed["items"]]
    assert hardest != [row["puzzle"] for row in rows]  # the order tells
    text = client.get(f"/api/jobs/{job['id']}/export?format=csv&order=hardest").get_data(True)
    assert [row["puzzle"] for row in csv.DictReader(io.StringIO(text))] == hardest
    lines = client.get(f"/api/jobs/{job['id']}/export?format=jsonl&order=hardest").get_data(True)
    assert [json.loads(line)["puzzle"] for line in lines.splitlines()] == hardest
    bad = assert_problem(client.get(f"/api/jobs/{job['id']}/export?order=best"), 422)
    assert bad["field"] == "order"


AB = {"words": ["A", "B"]}


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"words": "SEND MORE"}, "words", "word_list_not_a_list"),
        ({"words": []}, "words", "too_few_words"),
        ({"words": ["send", "SEND"]}, "words", "too_few_words"),
        ({"words": ["SEND", "M0RE"]}, "words", "not_a_word"),
        ({"words": ["SEND", "TWO WORDS"]}, "words", "not_a_word"),
        ({"words": ["SEND", "E" * 101]}, "words", "word_too_long"),
        ({**AB, "options": {"addends": 0}}, "options.addends", "addends_out_of_range"),
        ({**AB, "options": {"addends": 11}}, "options.addends", "addends_out_of_range"),
        ({"words": [a + b + c for a in "ABCDEFGHIJ" for b in "KLMNOPQRST" for c in "UVWXY"],
          "options": {"addends": 10}}, "options.addends", "sets_out_of_reach"),
        ({"words": ["A", "B"], "options": {"solutions": 0}}, "options.solutions",
         "solutions_out_of_range"),
        ({"words": ["A", "B"], "options": {"solutions": True}}, "options.solutions",
         "solutions_out_of_range"),
        ({"words": ["A", "B"], "options": {"base": 37}}, "options.base", "base_out_of_range"),
        ({"words": ["A", "B"], "options": {"fixed": {}}}, "options", "invalid_request"),
        ({"words": ["A", "B"], "puzzle": "A = B"}, "puzzle", "invalid_request"),
        ({}, "words", "invalid_request"),
    ],
)  # fmt: skip
def test_a_bad_compose_request_is_a_422_naming_its_field(
    client: FlaskClient, body: dict[str, Any], field: str, code: str
) -> None:
    problem = assert_problem(client.post("/api/jobs", json={"mode": "compose", **body}), 422)
    assert (problem["field"], problem["code"]) == (field, code), problem


def test_too_many_words_is_refused_at_the_settings_limit(
    client: FlaskClient, web_settings: Settings
) -> None:
    most = web_settings.max_compose_words
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = ["W" + "".join(letters[i // 26**k % 26] for k in range(3)) for i in range(most + 1)]
    problem = assert_problem(
        client.post("/api/jobs", json={"mode": "compose", "words": words}), 422
    )
    assert (problem["field"], problem["code"]) == ("words", "too_many_words")
    assert f"{most:,}" in problem["detail"]


@pytest.mark.parametrize(
    ("lang", "says"),
    [("en", "at least two"), ("ja", "2 つ以上"), ("th", "อย่างน้อย 2 คำ")],
)
def test_a_compose_problem_speaks_the_request_language(
    client: FlaskClient, lang: str, says: str
) -> None:
    response = client.post(
        "/api/jobs", json={"mode": "compose", "words": ["A"]}, headers={"Accept-Language": lang}
    )
    assert says in assert_problem(response, 422)["detail"]


def test_words_go_with_compose_only(client: FlaskClient) -> None:
    body = {"mode": "solve", "puzzle": "A + B = C", "words": ["A"]}
    problem = assert_problem(client.post("/api/jobs", json=body), 422)
    assert problem["field"] == "words"


def test_a_solve_job_has_no_results(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = client.post("/api/jobs", json={"puzzle": "A + A = B"}).get_json()["id"]
    assert_problem(client.get(f"/api/jobs/{job_id}/results"), 404)


def test_a_compose_job_has_no_explanation_of_its_own(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job = composed(client, job_store, {"words": ["AB", "BA", "CC"], "options": {"base": 6}})
    problem = assert_problem(client.get(f"/api/jobs/{job['id']}/explain"), 404)
    assert problem["field"] == "id" and "own explanation" in problem["detail"]


def conforms(client: FlaskClient, response: Any, path: str, method: str = "get") -> None:
    """Check a real response's body against the served OpenAPI document's schema for it."""
    document = client.get("/api/openapi.json").get_json()
    spec = document["paths"][path][method]["responses"][str(response.status_code)]
    schema = spec["content"][response.mimetype]["schema"]
    Draft202012Validator({**schema, "components": document["components"]}).validate(
        response.get_json(force=True)
    )


def test_compose_answers_conform_to_the_openapi_document(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    body = {"mode": "compose", "words": WORDS, "options": {"base": 6, "solutions": 1}}
    created = client.post("/api/jobs", json={**body, "fresh": True})
    conforms(client, created, "/api/jobs", "post")
    job_id = created.get_json()["id"]
    wait_job(job_store, job_id, timeout=60)
    conforms(client, client.get(f"/api/jobs/{job_id}"), "/api/jobs/{job_id}")
    conforms(
        client, client.get(f"/api/jobs/{job_id}/results?limit=2"), "/api/jobs/{job_id}/results"
    )
    bad = client.post("/api/jobs", json={"mode": "compose", "words": ["A"]})
    conforms(client, bad, "/api/jobs", "post")
    conforms(
        client, client.get(f"/api/jobs/{job_id}/results?limit=0"), "/api/jobs/{job_id}/results"
    )


def test_a_compose_jobs_links_answer_and_it_has_no_solutions_or_grid(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job = composed(client, job_store, {"words": ["AB", "BA", "CC"], "options": {"base": 6}})
    assert set(job["links"]) == {"self", "cancel", "export", "page", "results"}
    for name in ("self", "export", "page", "results"):
        assert client.get(job["links"][name]).status_code == 200, name
    for name in ("solutions", "grid"):  # puzzles, not solutions: said, not an empty answer
        problem = assert_problem(client.get(f"{job['links']['self']}/{name}"), 404)
        assert "results" in problem["detail"] and problem["field"] == "id"


def test_the_api_and_the_command_line_compose_the_same(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    options = {"addends": 2, "base": 7, "leading_zeros": "allow", "solutions": 1}
    job = composed(client, job_store, {"words": WORDS, "options": options})
    printed = cli.run(
        "compose", "--json", "--base", "7", "--leading-zeros", "allow", "-",
        stdin="\n".join(WORDS).encode(),
    )  # fmt: skip
    lines = cli.json_lines(printed.stdout)
    assert lines  # the case finds something
    by_cli = {line["puzzle"]: (line["solution"], line["difficulty"]) for line in lines}
    items = all_results(client, job, limit=100)
    assert {item["puzzle"]: (item["solution"], item["difficulty"]) for item in items} == by_cli


def test_results_are_listed_by_difficulty_when_asked(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job = composed(client, job_store, {"words": WORDS, "options": {"base": 6}})
    found = all_results(client, job, limit=100)
    assert len(found) >= 3  # enough to order
    scores = [item["difficulty"]["score"] for item in found]
    assert len(set(scores)) > 1, scores  # the order can tell
    for order, sign in (("easiest", 1), ("hardest", -1)):
        url = f"{job['links']['results']}?limit=2&order={order}"
        first = client.get(url).get_json()
        assert first["order"] == order and first["total"] == len(found)
        assert f"order={order}" in first["next"]  # the next page keeps the order
        listed: list[Any] = []
        while url:
            page = client.get(url).get_json()
            listed += page["items"]
            url = page.get("next")
        assert sorted(map(json.dumps, listed)) == sorted(map(json.dumps, found))  # same set
        keys = [(sign * item["difficulty"]["score"], item["puzzle"]) for item in listed]
        assert keys == sorted(keys)
    bad = assert_problem(client.get(f"{job['links']['results']}?order=best"), 422)
    assert bad["field"] == "order"


def test_the_api_composes_with_distinct_words_as_the_command_line_does(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    words = ["AB", "BA", "CC", "ABC", "CAB", "BCA", "A", "B", "AD", "DAB", "CAD", "BAD"]
    options = {"addends": 3, "base": 7, "distinct_words": True}
    job = composed(client, job_store, {"words": words, "options": options})
    assert job["options"]["distinct_words"] is True
    printed = cli.run(
        "compose", "--json", "--addends", "3", "--base", "7", "--distinct-words", "-",
        stdin="\n".join(words).encode(),
    )  # fmt: skip
    by_cli = {line["puzzle"] for line in cli.json_lines(printed.stdout)}
    listed = {item["puzzle"] for item in all_results(client, job, limit=100)}
    assert listed == by_cli and listed
    for text in listed:  # no word twice in any of them
        terms = text.replace(" = ", " + ").split(" + ")
        assert len(set(terms)) == len(terms), text


def test_a_count_only_job_counts_what_the_command_line_counts(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job = composed(client, job_store, {"words": WORDS, "options": {"base": 6, "count_only": True}})
    printed = cli.run("compose", "--count", "--base", "6", "-", stdin="\n".join(WORDS).encode())
    assert job["state"] == "succeeded" and not job["truncated"]
    assert (
        job["solutions_found"] == int(printed.stdout) == len(brute(WORDS, 2, 6, "multi-letter", 1))
    )
    page = client.get(job["links"]["results"]).get_json()
    assert page["items"] == [] and page["total"] == 0


@pytest.mark.parametrize("name", ["distinct_words", "count_only"])
@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_switch_that_is_not_a_boolean_is_a_422(
    client: FlaskClient, name: str, value: object
) -> None:
    body = {"mode": "compose", **AB, "options": {name: value}}
    problem = assert_problem(client.post("/api/jobs", json=body), 422)
    assert problem["field"] == f"options.{name}", problem
