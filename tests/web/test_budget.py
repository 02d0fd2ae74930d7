"""The storage budget as a user meets it: the form and the API say before a submission when it
would store nothing (and how much room is left), a holder deletes stored solutions from the job
page, and "Run again" starts a new run."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from flask import Flask
from flask.testing import FlaskClient

from jobstore import JobStore, Settings
from tests.support.browser import new_tab
from tests.support.processes import wait_job
from tests.support.web import as_client, make_app, submit_form, token

FILLS = "ABC + DEF = GHI"  # 1,088 solutions: exactly the budget below
BUDGET = 1_088
DONE = "#job[data-done='true']"
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def budget_app(fresh_settings: Callable[..., Settings], worker_factory: Any) -> Flask:
    """The app and an enumerate worker on settings of their own, with a budget of BUDGET."""
    settings = fresh_settings(shard_threshold=0, max_stored_per_client=BUDGET)
    worker_factory(settings, "enumerate")
    return make_app(settings)


def store_of(app: Flask) -> JobStore:
    """The app's job store."""
    store: JobStore = app.extensions["alphametic.store"]
    return store


def estimate(client: FlaskClient, puzzle: str) -> dict[str, Any]:
    """The API's estimate of an enumeration of this puzzle."""
    answer = client.get(f"/api/estimate?puzzle={quote(puzzle)}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.get_json()
    return body


def job_id_of(answer: Any) -> str:
    """The job id a form submission redirected to."""
    assert answer.status_code == 303, answer.text
    return str(answer.headers["Location"]).rsplit("/", 1)[-1]


def test_the_form_and_the_api_say_when_the_budget_would_store_nothing(
    fresh_settings: Callable[..., Settings], worker_factory: Any
) -> None:
    """Room is given in the estimate and the submit answer; once it is used up, the form
    warns before queueing an enumeration (in each language) and a count goes through."""
    app = budget_app(fresh_settings, worker_factory)
    user = as_client(app, "10.9.0.1")
    before = estimate(user, FILLS)
    assert before["storage_left"] == BUDGET  # (a count cut short under load may guess more)
    assert before["exceeds_storage_left"] is (before["solutions"] > BUDGET)
    submitted = user.post("/api/jobs", json={"puzzle": FILLS, "mode": "enumerate"})
    assert submitted.status_code == 202 and submitted.get_json()["storage_left"] == BUDGET
    assert "1,088 more solutions" in user.get("/").text
    wait_job(store_of(app), submitted.get_json()["id"])
    after = estimate(user, "TWO + TWO = FOUR")
    assert after["storage_left"] == 0 and after["exceeds_storage_left"]
    assert 'id="storage-left"' in user.get("/").text
    warned = submit_form(user, puzzle="TWO + TWO = FOUR", mode="enumerate")
    assert warned.status_code == 200 and 'id="size-warning"' in warned.text
    assert "would count its solutions but store none of them" in warned.text
    for lang, words in (("ja", "1 つも保存しません"), ("th", "จะไม่เก็บไว้เลย")):
        data = {"csrf_token": token(user), "puzzle": "TWO + TWO = FOUR", "mode": "enumerate"}
        assert words in user.post(f"/jobs?lang={lang}", data=data).text
    job_id_of(submit_form(user, puzzle="TWO + TWO = FOUR", mode="count"))  # counting stores none
    other = as_client(app, "10.9.0.2")  # another client has a budget of its own
    assert estimate(other, "TWO + TWO = FOUR")["storage_left"] == BUDGET
    answer = user.post("/api/jobs", json={"puzzle": "TWO + TWO = FOUR", "mode": "enumerate"})
    assert answer.get_json()["storage_left"] == 0
    cut = wait_job(store_of(app), answer.get_json()["id"])
    assert cut.truncated_reason == "budget"  # stored none of them
    assert "“Run again” stores the rest" in user.get(f"/jobs/{cut.id}?lang=en").text


def test_a_holder_deletes_stored_solutions_from_the_job_page(
    fresh_settings: Callable[..., Settings], worker_factory: Any
) -> None:
    """Only a holder sees the Delete button; its post empties the list and gives the budget
    back; another client's post is refused in the page's language."""
    app = budget_app(fresh_settings, worker_factory)
    owner, stranger = as_client(app, "10.9.1.1"), as_client(app, "10.9.1.2")
    job_id = job_id_of(submit_form(owner, puzzle=FILLS, mode="enumerate", confirm="1"))
    wait_job(store_of(app), job_id)
    page = owner.get(f"/jobs/{job_id}?lang=ja").text
    assert 'id="delete"' in page and "保存済みの解を削除" in page
    assert 'id="delete"' not in stranger.get(f"/jobs/{job_id}").text
    refused = stranger.post(f"/jobs/{job_id}/delete?lang=th", data={"csrf_token": token(stranger)})
    assert refused.status_code == 403 and "ลบคำตอบได้" in refused.text
    assert owner.post(f"/jobs/{job_id}/delete").status_code == 403  # no token: refused
    asked = owner.post(f"/jobs/{job_id}/delete?lang=th", data={"csrf_token": token(owner)})
    assert asked.status_code == 200 and "ลบคำตอบที่เก็บไว้ของงานนี้หรือไม่" in asked.text
    assert owner.get(f"/api/jobs/{job_id}/solutions").get_json()["total"] > 0  # asked only
    sure = {"csrf_token": token(owner), "confirm": "1"}
    deleted = owner.post(f"/jobs/{job_id}/delete", data=sure)
    assert deleted.status_code == 303 and deleted.headers["Location"].endswith(f"/jobs/{job_id}")
    after = owner.get(f"/jobs/{job_id}").text
    assert 'id="deleted"' in after and 'id="delete"' not in after
    # Only what still means something: no empty table, grid, pages or downloads.
    for dead in ('id="solutions"', 'id="grid"', 'class="pager"', "export-csv", "export-jsonl"):
        assert dead not in after, dead
    assert owner.get(f"/api/jobs/{job_id}/solutions").get_json()["total"] == 0
    assert estimate(owner, FILLS)["storage_left"] == BUDGET


def test_one_of_two_holders_lets_go_from_the_job_page(
    fresh_settings: Callable[..., Settings], worker_factory: Any
) -> None:
    """A holder of a shared job only lets go: the page says the solutions stay for the other
    holder, and shows it no Delete button any more."""
    app = budget_app(fresh_settings, worker_factory)
    first, second = as_client(app, "10.9.3.1"), as_client(app, "10.9.3.2")
    job_id = job_id_of(submit_form(first, puzzle="TWO + TWO = FOUR", mode="enumerate"))
    assert job_id_of(submit_form(second, puzzle="TWO + TWO = FOUR", mode="enumerate")) == job_id
    found = wait_job(store_of(app), job_id).solutions_found
    sure = {"csrf_token": token(second), "confirm": "1"}
    let_go = second.post(f"/jobs/{job_id}/delete", data=sure)
    assert let_go.headers["Location"].endswith(f"/jobs/{job_id}?released=1")
    page = second.get(f"/jobs/{job_id}?released=1&lang=ja").text
    assert 'id="released"' in page and "手を引きました" in page and 'id="delete"' not in page
    assert 'id="delete"' in first.get(f"/jobs/{job_id}").text
    assert first.get(f"/api/jobs/{job_id}/solutions").get_json()["total"] == found


def test_run_again_starts_a_new_run(
    fresh_settings: Callable[..., Settings], worker_factory: Any
) -> None:
    """The job page's "Run again" form makes a new job of the same puzzle (an identical
    submission from the form shares that newest one)."""
    app = budget_app(fresh_settings, worker_factory)
    user = as_client(app, "10.9.2.1")
    first = job_id_of(submit_form(user, puzzle="TWO + TWO = FOUR", mode="enumerate"))
    wait_job(store_of(app), first)
    page = user.get(f"/jobs/{first}").text
    again_form = page.split('id="again-form"', 1)[1].split("</form>", 1)[0]
    fields = dict(HIDDEN.findall(again_form))
    assert fields["puzzle"] == "TWO + TWO = FOUR" and fields["mode"] == "enumerate"
    second = job_id_of(user.post("/jobs", data=fields))
    assert second != first
    done = wait_job(store_of(app), second)
    assert done.solutions_found == wait_job(store_of(app), first).solutions_found
    assert job_id_of(submit_form(user, puzzle="TWO + TWO = FOUR", mode="enumerate")) == second


@pytest.mark.browser
@pytest.mark.slow
def test_run_again_and_delete_in_a_browser_with_its_live_page(
    browser: Any, live_server: str
) -> None:
    """With the page's poller running: the finished page offers Delete, Run again opens a
    new job's page, and Delete there empties its list."""
    with new_tab(browser) as tab:
        tab.goto(live_server + "/?" + urlencode({"puzzle": "TWO + TWO = FOUR", "base": 12}))
        tab.check("input[name=mode][value=enumerate]")
        tab.click("#submit")
        tab.wait_for_url(f"{live_server}/jobs/*")
        first = tab.url
        tab.wait_for_selector(DONE, timeout=60_000)
        # The page reloads itself when the job ends and again when its explanation is ready (a
        # click during a reload is lost; a reload of our own raced the page's): wait for the
        # page drawn with both, which reloads no more.
        tab.wait_for_selector("#explain:not([data-pending])", timeout=60_000)
        tab.locator("#delete").wait_for()
        tab.click("#run-again")
        tab.wait_for_url(lambda url: "/jobs/" in url and url != first)
        tab.wait_for_selector(DONE, timeout=60_000)
        tab.locator("#delete").wait_for()
        stored = tab.locator("#stored").inner_text()
        assert stored != "0"
        tab.click("#delete")
        asked = tab.locator("#confirm-title").inner_text()
        assert asked == "Delete the stored solutions of this job?"
        tab.click("#keep")  # kept: back on the page, all still there
        assert tab.locator("#stored").inner_text() == stored
        tab.click("#delete")
        tab.click("#confirm-delete")
        tab.locator("#deleted").wait_for()
        for dead in ("#solutions", "#grid", ".pager", "#export-csv"):
            assert tab.locator(dead).count() == 0, dead
        assert tab.locator("#stored").inner_text() == "0"
        assert not tab.errors and not tab.csp


def test_run_again_warns_when_the_budget_is_used_up(
    fresh_settings: Callable[..., Settings], worker_factory: Any
) -> None:
    """Run again skips the size warnings accepted before, not the budget's: the warning keeps
    the new run asked for, so "List them anyway" still starts one."""
    app = budget_app(fresh_settings, worker_factory)
    user = as_client(app, "10.9.4.1")
    first = job_id_of(submit_form(user, puzzle=FILLS, mode="enumerate", confirm="1"))
    wait_job(store_of(app), first)
    page = user.get(f"/jobs/{first}?lang=en").text
    fields = dict(HIDDEN.findall(page.split('id="again-form"', 1)[1].split("</form>", 1)[0]))
    warned = user.post("/jobs", data=fields)
    assert warned.status_code == 200 and "store none of them" in warned.text
    again = dict(HIDDEN.findall(warned.text.split('id="puzzle-form"', 1)[1]))
    assert again["fresh"] == "1"
    anyway = job_id_of(user.post("/jobs", data={**again, **fields, "confirm": "1"}))
    assert anyway != first
