"""Puzzles typed in the user's own script through the API and the form (issue 24)."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

import alphametic
from jobstore import JobStore
from tests.support.processes import wait_job
from tests.support.typed import CASES, Typed
from tests.support.web import assert_problem
from tests.support.web import submit_form as submit
from web.pages.views import LOCAL_FAMOUS

SEND = {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}


def _job(client: FlaskClient, job_store: JobStore, puzzle: str, mode: str = "solve") -> Any:
    """POST a job, wait for it, and return its finished status."""
    response = client.post("/api/jobs", json={"puzzle": puzzle, "mode": mode})
    assert response.status_code == 202, response.get_data(as_text=True)
    job_id = response.get_json()["id"]
    wait_job(job_store, job_id)
    return client.get(f"/api/jobs/{job_id}").get_json()


def _holds(case: Typed, solution: dict[str, int]) -> bool:
    """Whether a solution keyed by the puzzle's symbols is one of its transliteration's (the
    engine's, whose counts tests/engine/test_unicode.py checks against a brute force)."""
    return case.transliterate(solution) in alphametic.solve(alphametic.parse(case.ascii))


@pytest.mark.parametrize("case", CASES, ids=[case.ascii for case in CASES])
def test_the_api_counts_a_typed_puzzle_and_keys_it_by_its_symbols(
    client: FlaskClient, job_store: JobStore, web_workers: Any, case: Typed
) -> None:
    done = _job(client, job_store, case.text, "count")
    assert done["state"] == "succeeded"
    assert done["puzzle"] == alphametic.parse(case.text).text
    assert done["solutions_found"] == case.solutions
    solved = _job(client, job_store, case.text)["solution"]
    assert set(solved) == set(alphametic.parse(case.text).letters)
    assert set(solved) == (set(case.names) or set(re.findall("[A-Z]", case.ascii)))
    assert _holds(case, solved)


def test_full_width_and_half_width_are_one_job(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    first = client.post("/api/jobs", json={"puzzle": "ｓｅｎｄ＋ｍｏｒｅ＝ｍｏｎｅｙ"}).get_json()
    again = client.post("/api/jobs", json={"puzzle": "SEND + MORE = MONEY"}).get_json()
    assert first["id"] == again["id"]
    wait_job(job_store, first["id"])
    assert client.get(f"/api/jobs/{first['id']}").get_json()["solution"] == SEND


def test_an_export_keeps_the_symbols_in_utf_8(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    done = _job(client, job_store, "いち＋いち＝にい", "enumerate")
    lines = client.get(f"/api/jobs/{done['id']}/export?format=jsonl").get_data(as_text=True)
    rows = [json.loads(line) for line in lines.splitlines()]
    assert {"い": 2, "ち": 1, "に": 4} in rows and len(rows) == 4
    assert '"い":' in lines
    csv = client.get(f"/api/jobs/{done['id']}/export?format=csv").get_data(as_text=True)
    assert csv.splitlines()[0] == "い,ち,に"  # the header, first
    url = f"/api/jobs/{done['id']}/export?format=csv&comment=1"
    commented = client.get(url).get_data(as_text=True)
    assert commented.splitlines()[0].startswith("# いち + いち = にい;")


def test_api_errors_point_at_the_typed_character(client: FlaskClient) -> None:
    problem = assert_problem(client.post("/api/jobs", json={"puzzle": "いち＋いち！＝にい"}), 422)
    assert problem["position"] == 5 and problem["code"] == "unexpected_character"
    assert "'！' (U+FF01)" in problem["detail"]
    mark = assert_problem(client.post("/api/jobs", json={"puzzle": "หนึ่ง + ก = ข"}), 422)
    assert mark["position"] == 2 and mark["code"] == "combining_mark"


def _form_page(client: FlaskClient, job_store: JobStore, **fields: str) -> str:
    """Submit the Japanese form, wait for the job, and return its page."""
    client.get("/?lang=ja")
    response = submit(client, **fields)
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    wait_job(job_store, job_id)
    return client.get(f"/jobs/{job_id}").get_data(as_text=True)


def _drawn_sum(client: FlaskClient, job_store: JobStore, **fields: str) -> list[str]:
    """Submit the Japanese form, wait for the job, and return its page's column sum."""
    page = _form_page(client, job_store, **fields)
    drawn = re.search(r'<pre class="sum" id="sum">(.*?)</pre>', page, re.S)
    assert drawn is not None
    return html.unescape(drawn.group(1)).splitlines()


def _cells(row: str) -> list[str]:
    """The data cells of one table row, as text."""
    return [html.unescape(cell) for cell in re.findall(r"<td>(.*?)</td>", row)]


@pytest.mark.parametrize("case", CASES, ids=[case.ascii for case in CASES])
def test_the_form_counts_a_typed_puzzle_and_shows_its_symbols(
    client: FlaskClient, job_store: JobStore, web_workers: Any, case: Typed
) -> None:
    counted = _form_page(client, job_store, puzzle=case.text, mode="count")
    found = re.search(r'<dd id="count">(.*?)</dd>', counted)
    assert found and found.group(1) == str(case.solutions)
    page = _form_page(client, job_store, puzzle=case.text)
    table = re.search(r'<table class="letters">\s*<tr>(.*?)</tr>\s*<tr>(.*?)</tr>', page, re.S)
    assert table is not None
    letters, digits = _cells(table.group(1)), _cells(table.group(2))
    assert set(letters) == (set(case.names) or set(re.findall("[A-Z]", case.ascii)))
    assert _holds(case, dict(zip(letters, map(int, digits), strict=True)))


def test_the_grid_of_a_kana_enumeration_is_headed_by_its_symbols(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    """The page's letter × digit grid: a row per symbol as typed, counting its digits."""
    typed = "いち＋いち＝にい"
    page = _form_page(client, job_store, puzzle=typed, mode="enumerate")
    grid = re.search(r'<table id="grid" class="numbers">(.*?)</table>', page, re.S)
    assert grid is not None
    rows = re.findall(r'<tr><th scope="row">(.*?)</th>(.*?)</tr>', grid.group(1), re.S)
    drawn = {
        html.unescape(symbol): [int(n) for n in re.findall(r">(\d+)</td>", cells)]
        for symbol, cells in rows
    }
    solutions = list(alphametic.solve(alphametic.parse(typed)))
    assert len(solutions) == 4 and list(drawn) == ["い", "ち", "に"]
    for symbol, counts in drawn.items():
        assert counts == [sum(s[symbol] == d for s in solutions) for d in range(10)]


def test_the_japanese_form_solves_the_seed_puzzle_and_draws_the_sum(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    assert _drawn_sum(client, job_store, puzzle="SEND＋MORE＝MONEY") == [
        "  S E N D      9 5 6 7",
        "+ M O R E    + 1 0 8 5",
        "---------    ---------",
        "M O N E Y    1 0 6 5 2",
    ]


def test_the_form_draws_a_kana_sum_aligned_by_display_width(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    assert _drawn_sum(client, job_store, puzzle="いち＋いち＝にい", fixed="い＝２、ち＝１") == [
        "  い ち      2 1",
        "+ い ち    + 2 1",
        "-------    -----",
        "  に い      4 2",
    ]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("ja", "6 文字目: 「！」（U+FF01）は使えない文字です"),
        ("th", "ใช้ “！” (U+FF01) ในโจทย์ไม่ได้"),
        ("en", "Character 6: “！” (U+FF01) cannot be used in a puzzle"),
    ],
)
def test_the_form_names_an_unknown_character_in_the_page_language(
    client: FlaskClient, lang: str, words: str
) -> None:
    client.get(f"/?lang={lang}")
    page = submit(client, puzzle="いち＋いち！＝にい").get_data(as_text=True)
    found = re.search(r'id="puzzle-error" role="alert">(.*?)</p>', page, re.S)
    assert found and words in html.unescape(found.group(1))
    if lang != "en":
        assert "unexpected" not in found.group(1) and "A-Z" not in found.group(1)
    caret = re.search(r'<pre class="caret" aria-hidden="true">(.*?)</pre>', page, re.S)
    assert caret and caret.group(1).splitlines() == ["いち＋いち！＝にい", " " * 10 + "^"]


@pytest.mark.parametrize(("lang", "shown"), [("ja", "いち + いち = にい"), ("th", "กข + ขก = คค")])
def test_each_language_has_a_famous_puzzle_in_its_own_script(
    client: FlaskClient, lang: str, shown: str
) -> None:
    (text, mode, base, note) = LOCAL_FAMOUS[lang][0]
    assert text == shown
    count = alphametic.count(alphametic.parse(text, base=base))
    page = client.get(f"/?lang={lang}").get_data(as_text=True)
    assert f"<code>{shown}</code>" in page
    assert str(count) in page[page.index(f"<code>{shown}</code>") :].split("</li>")[0]
    assert shown not in client.get("/?lang=en").get_data(as_text=True)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("ja", "「！」（U+FF01）は使えない文字です"),
        ("th", "ใช้ “！” (U+FF01)"),
        ("en", "unexpected"),
    ],
)
def test_api_puzzle_problems_follow_accept_language(
    client: FlaskClient, language: str, words: str
) -> None:
    response = client.post(
        "/api/jobs", json={"puzzle": "いち＋いち！＝にい"}, headers={"Accept-Language": language}
    )
    problem = assert_problem(response, 422)
    assert words in problem["detail"]
    assert (problem["code"], problem["position"]) == ("unexpected_character", 5)
