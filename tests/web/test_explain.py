"""How to solve it: GET /api/jobs/{id}/explain in three languages, and the job page's section.

A worker works each explanation out (jobstore/explanations.py): every test here runs with the
web tests' worker, and asks with ?wait= so the answer comes once the explanation is ready.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from markupsafe import escape

from jobstore import JobStore
from tests.support.browser import new_tab
from tests.support.processes import wait_job
from tests.support.web import assert_problem
from web.i18n import gettext

pytestmark = pytest.mark.usefixtures("web_workers")

SEND = "SEND + MORE = MONEY"
DONALD = "DONALD + GERALD = ROBERT"
LANGS = ("en", "ja", "th")
WAIT = 30  # seconds each request may wait for its explanation to be worked out


def translated(app: Flask, text: str) -> dict[str, str]:
    """The page's sentence in each language, from the catalogs."""
    out = {}
    for lang in LANGS:
        with app.test_request_context(f"/?lang={lang}"):
            out[lang] = gettext(text)
    return out


@pytest.fixture(scope="module")
def heading(app: Flask) -> dict[str, str]:
    """The section's heading in each language."""
    found = translated(app, "How to solve it")
    assert found["ja"] == "解き方" and found["th"] != found["en"]
    return found


@pytest.fixture(scope="module")
def next_button(app: Flask) -> dict[str, str]:
    """The "Next step" button's label in each language."""
    found = translated(app, "Next step")
    assert len(set(found.values())) == 3
    return found


@pytest.fixture(scope="module")
def schema(app: Flask) -> dict[str, Any]:
    """The Explanation schema of the served OpenAPI document, with its components."""
    document = app.test_client().get("/api/openapi.json").get_json()
    operation = document["paths"]["/api/jobs/{job_id}/explain"]["get"]
    body = operation["responses"]["200"]["content"]["application/json"]["schema"]
    return {**body, "components": document["components"]}


def create(client: FlaskClient, puzzle: str, mode: str = "solve") -> str:
    """Queue a job through the API and return its id."""
    response = client.post("/api/jobs", json={"puzzle": puzzle, "mode": mode})
    assert response.status_code == 202, response.get_data(as_text=True)
    job_id: str = response.get_json()["id"]
    return job_id


def explained(client: FlaskClient, job_id: str, query: str = "", **headers: str) -> Any:
    """GET the job's explanation (waiting for it); check it is JSON and return the response."""
    query = f"{query}&wait={WAIT}" if query else f"?wait={WAIT}"
    response = client.get(f"/api/jobs/{job_id}/explain{query}", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return response


def test_send_more_money_begins_with_m_is_1(client: FlaskClient, schema: dict[str, Any]) -> None:
    body = explained(client, create(client, SEND)).get_json()
    Draft202012Validator(schema).validate(body)
    decided = [step for step in body["steps"] if any(len(d) == 1 for d in step["facts"].values())]
    assert decided[0]["key"] == "extra_column" and decided[0]["facts"] == {"M": [1]}
    assert decided[0]["text"].endswith("so M = 1 and c4 = 1.")
    assert body["steps"][0]["key"] == "leading"  # M and S start words: not yet a digit
    assert body["solution"] == {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}
    assert body["steps"][-1]["text"] == "The solution, and the only one, is 9567 + 1085 = 10652."
    assert body["difficulty"]["label"] == "easy" and body["difficulty"]["text"].startswith("Diff")
    assert body["puzzle"] == SEND and body["options"]["base"] == 10


@pytest.mark.parametrize(
    ("lang", "how"),
    [("ja", {"query": "?lang=ja"}), ("th", {"Accept-Language": "th-TH,th;q=0.9"})],
)
def test_answers_in_japanese_and_thai(
    client: FlaskClient, schema: dict[str, Any], lang: str, how: dict[str, str]
) -> None:
    job_id = create(client, SEND)
    english = explained(client, job_id).get_json()
    query = how.pop("query", "")
    response = explained(client, job_id, query, **how)
    assert response.headers["Content-Language"] == lang
    assert "Accept-Language" in response.headers["Vary"]
    body = response.get_json()
    Draft202012Validator(schema).validate(body)
    assert [s["key"] for s in body["steps"]] == [s["key"] for s in english["steps"]]
    assert [s["facts"] for s in body["steps"]] == [s["facts"] for s in english["steps"]]
    for ours, theirs in zip(body["steps"], english["steps"], strict=True):
        assert ours["text"] != theirs["text"] and "{" not in ours["text"], ours["text"]
    assert "9567 + 1085 = 10652" in body["steps"][-1]["text"]
    units = {"ja": "千の位", "th": "หลักพัน"}[lang]
    assert units in body["steps"][3]["text"]  # the thousands column, in words
    assert body["difficulty"]["text"] != english["difficulty"]["text"]


def test_the_lang_cookie_chooses_too(client: FlaskClient) -> None:
    job_id = create(client, SEND)
    client.get("/?lang=ja")  # the pages remember the choice in a cookie
    response = explained(client, job_id, **{"Accept-Language": "th"})
    assert response.headers["Content-Language"] == "ja"
    assert response.get_json()["difficulty"]["text"].startswith("難易度")


def test_unknown_jobs_are_404_problems(client: FlaskClient) -> None:
    for job_id in (str(uuid.uuid4()), "not-a-job"):
        body = assert_problem(client.get(f"/api/jobs/{job_id}/explain"), 404)
        assert body["type"].endswith("/unknown-job") and job_id in body["detail"]


def test_products_and_unsolvable_puzzles_are_explained(
    client: FlaskClient, schema: dict[str, Any]
) -> None:
    product = explained(client, create(client, "AB * C = DE", "count")).get_json()
    Draft202012Validator(schema).validate(product)
    keys = [step["key"] for step in product["steps"]]
    assert "product_units" in keys and product["solution"] is not None
    none = explained(client, create(client, "ABC + ABC = ABC")).get_json()
    Draft202012Validator(schema).validate(none)
    assert none["solution"] is None and none["steps"][-1]["key"] == "no_solution"


def test_explanations_are_worked_out_once_per_job_for_every_language(
    client: FlaskClient, job_store: JobStore
) -> None:
    puzzle = "TO + GO = OUT"  # a puzzle no other test explains, so the first call queues it
    job_id = create(client, puzzle)
    asked = int(job_store.redis.hget(job_store.keys.stats, "explained:asked") or 0)
    first = explained(client, job_id).get_json()
    key = job_store.keys.explanation(job_id)
    finished = job_store.redis.hget(key, "finished")
    assert finished and job_store.redis.hget(key, "state") == "done"
    assert explained(client, job_id).get_json() == first
    thai = explained(client, job_id, "?lang=th").get_json()
    assert thai["steps"][0]["text"] != first["steps"][0]["text"]
    # Worked out once, for every reader and language: kept with the job, never asked again.
    assert job_store.redis.hget(key, "finished") == finished
    assert int(job_store.redis.hget(job_store.keys.stats, "explained:asked") or 0) == asked + 1
    job_ttl, kept = job_store.redis.ttl(job_store.keys.job(job_id)), job_store.redis.ttl(key)
    assert abs(job_ttl - kept) <= 2  # it expires with its job


def test_job_page_shows_every_step_without_javascript(
    client: FlaskClient,
    job_store: JobStore,
    web_workers: Any,
    heading: dict[str, str],
    next_button: dict[str, str],
) -> None:
    job_id = create(client, SEND)
    wait_job(job_store, job_id)
    for lang in LANGS:
        steps = explained(client, job_id, f"?lang={lang}").get_json()["steps"]  # worked out
        page = client.get(f"/jobs/{job_id}?lang={lang}").get_data(as_text=True)
        section = page[page.index('<section class="explain"') :]
        section = section[: section.index("</section>")]
        assert f'<h2 id="explain-title">{heading[lang]}</h2>' in section
        items = re.findall(r"<li class=\"step[^>]*>(.*?)</li>", section, re.S)
        assert len(items) == len(steps) and "hidden" not in "".join(items)
        for item, step in zip(items, steps, strict=True):
            assert str(escape(step["text"])) in item
        assert 'id="explain-controls" hidden' in section  # the buttons need JavaScript
        assert next_button[lang] in section
    assert '<script src="/static/explain.js" defer></script>' in page


def test_a_product_job_page_shows_its_reasons_in_every_language(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = create(client, "NAUGHT ^ 2 = ZERO ^ 3")
    wait_job(job_store, job_id)
    for lang in LANGS:
        body = explained(client, job_id, f"?lang={lang}").get_json()
        keys = {step["key"] for step in body["steps"]}
        assert {"products_powers", "product_units", "product_sizes", "stall"} <= keys
        assert body["difficulty"]["label"] != "fiendish"
        page = client.get(f"/jobs/{job_id}?lang={lang}").get_data(as_text=True)
        section = page[page.index('<section class="explain"') :]
        for step in body["steps"]:
            assert str(escape(step["text"])) in section
    assert 'class="step depth-1 fail"' in page and "NAUGHT × NAUGHT" in page


def test_case_steps_are_indented_and_dead_ends_marked(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = create(client, "DONALD + GERALD = ROBERT")
    wait_job(job_store, job_id)
    explained(client, job_id)  # the page shows the steps once a worker has worked them out
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert 'class="step depth-1"' in page and 'class="step depth-2 fail"' in page
    assert '<span class="case">If A = 4, c1 = 0:</span>' in page
    assert '<span class="dead-end">Dead end</span>' in page


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_next_step_reveals_steps_one_by_one(
    browser: Any, live_server: str, next_button: dict[str, str], lang: str
) -> None:
    with new_tab(browser, lang=lang) as page:
        created = page.request.post(f"{live_server}/api/jobs", data={"puzzle": SEND})
        job_id = created.json()["id"]
        api = f"{live_server}/api/jobs/{job_id}/explain?lang={lang}&wait={WAIT}"
        steps = page.request.get(api).json()["steps"]
        page.goto(f"{live_server}/jobs/{job_id}")  # in the browser's language
        page.locator("#steps").wait_for()  # drawn once the job has ended
        items = page.locator("#steps > li")
        assert items.count() == len(steps) > 3
        assert page.locator("#steps > li:visible").count() == 1
        assert items.nth(0).inner_text().strip() == steps[0]["text"]
        for shown in (2, 3):
            page.get_by_role("button", name=next_button[lang]).click()
            assert page.locator("#steps > li:visible").count() == shown
            assert items.nth(shown - 1).inner_text().strip() == steps[shown - 1]["text"]
            assert f"{shown}" in page.locator("#step-counter").inner_text()
        page.locator("#all-steps").click()
        assert page.locator("#steps > li:visible").count() == len(steps)
        assert page.locator("#next-step").is_disabled()
        assert page.csp == [] and page.errors == []


@pytest.mark.browser
@pytest.mark.slow
def test_next_step_stays_under_the_pointer(browser: Any, live_server: str) -> None:
    """At 1280 x 900, clicking "Next step" again and again: the button never leaves the
    screen (it used to scroll itself below the fold) and each new step is in view."""
    with new_tab(browser, width=1280) as page:
        created = page.request.post(f"{live_server}/api/jobs", data={"puzzle": DONALD})
        job_id = created.json()["id"]
        page.request.get(f"{live_server}/api/jobs/{job_id}/explain?wait={WAIT}")
        page.goto(f"{live_server}/jobs/{job_id}")
        page.locator("#explain-controls:not([hidden])").wait_for()
        total = page.locator("#steps > li").count()
        assert total > 8
        page.locator("#next-step").scroll_into_view_if_needed()
        for shown in range(2, total + 1):
            page.locator("#next-step").click()
            box = page.evaluate(
                "(i) => { const b = document.getElementById('next-step').getBoundingClientRect();"
                " const s = document.querySelectorAll('#steps > li')[i].getBoundingClientRect();"
                " return [b.top, b.bottom, s.top, s.bottom, innerHeight]; }",
                shown - 1,
            )
            button_top, button_bottom, step_top, step_bottom, height = box
            assert 0 <= button_top and button_bottom <= height, (shown, box)
            assert step_bottom > 0 and step_top < height, (shown, box)  # the new step shows
        assert page.locator("#next-step").is_disabled()
        assert page.locator("#all-steps").is_disabled()  # and "Show all" with it


@pytest.mark.browser
@pytest.mark.slow
def test_without_javascript_every_step_shows(
    browser: Any, live_server: str, heading: dict[str, str]
) -> None:
    with new_tab(browser, lang="ja", javascript=False) as page:
        created = page.request.post(f"{live_server}/api/jobs", data={"puzzle": SEND})
        job_id = created.json()["id"]
        page.goto(f"{live_server}/jobs/{job_id}")
        # The page refreshes until the job is done, then until its steps are worked out.
        page.locator("#steps").wait_for(timeout=30_000)
        total = page.locator("#steps > li").count()
        assert total > 3 and page.locator("#steps > li:visible").count() == total
        assert page.locator("#explain-controls").is_hidden()
        assert page.locator("#explain-title").inner_text() == heading["ja"]
