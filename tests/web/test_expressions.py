"""The form and pages speak the whole puzzle language: products, powers, several equations."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

import alphametic
from jobstore import JobStore
from tests.support.processes import wait_job
from tests.support.web import submit_form
from web.openapi.puzzle import EXAMPLES
from web.pages.views import FAMOUS

NEW_KINDS = {
    "TWO * TWO = SQUARE": 3,
    "ABCD / EF = GH": 52,
    "NAUGHT ^ 2 = ZERO ^ 3": 1,
    "A + A = B; B * C = AB": 3,
    "TOM * 13 = DALEY": 1,
}
HELP = {
    "en": "Put several equations on separate lines or between semicolons",
    "ja": "1行に1つずつ書くか ; で区切ります",
    "th": "ให้เขียนบรรทัดละสมการหรือคั่นด้วย ;",
}


def job_page(client: FlaskClient, job_store: JobStore, puzzle: str, **fields: str) -> str:
    """Submit the puzzle through the form, wait for its job, and return its page (?pick=1)."""
    response = submit_form(client, puzzle=puzzle, **fields)
    assert response.status_code == 303, response.get_data(as_text=True)[:800]
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    wait_job(job_store, job_id)
    return client.get(f"/jobs/{job_id}?pick=1").get_data(as_text=True)


def holds(equation: str) -> bool:
    """Tell whether a drawn equation of numbers (with × and ÷) is true."""
    assert re.fullmatch(r"[\d +×÷=-]+", equation), equation  # nothing but arithmetic to eval
    sides = [int(eval(side.replace("×", "*").replace("÷", "//"))) for side in equation.split("=")]
    return len(set(sides)) == 1


def drawing(page: str) -> list[str]:
    """The lines of the job page's drawing of its picked solution."""
    found = re.search(r'<pre class="sum" id="sum">(.*?)</pre>', page, re.S)
    assert found, page[:2000]
    return html.unescape(found.group(1)).splitlines()


def test_multi_line_product_runs_and_is_drawn(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    page = job_page(client, job_store, "two × two\n  = square", mode="enumerate")
    assert '<code class="puzzle">TWO * TWO = SQUARE</code>' in page
    assert '<dd id="count">3</dd>' in page and "Finished" in page
    assert 'aria-label="The puzzle with its digits"' in page
    lines = drawing(page)
    assert len(lines) == 2 and lines[0] == "TWO × TWO = SQUARE"
    assert re.fullmatch(r"\d{3} × \d{3} = \d{6}", lines[1]) and holds(lines[1])


def test_two_equations_on_two_lines_are_drawn_one_per_line(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    page = job_page(client, job_store, "A + A = B\nB * C = AB", mode="enumerate")
    assert '<dd id="count">3</dd>' in page
    lines = drawing(page)
    assert lines[0::2] == ["A + A = B", "B × C = AB"]
    assert all(holds(line) for line in lines[1::2])


def test_famous_puzzles_include_the_new_kinds_with_true_counts() -> None:
    listed = {text: str(note) for text, _mode, base, note in FAMOUS if base == 10}
    for puzzle, solutions in NEW_KINDS.items():
        assert alphametic.count(alphametic.parse(puzzle)) == solutions, puzzle
        said = "one answer" if solutions == 1 else f"{solutions} solutions"
        assert listed[puzzle].endswith(said), (puzzle, listed[puzzle])


def test_a_famous_puzzle_of_two_equations_fills_the_form(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    links = re.findall(r'<a href="([^"]+)" class="famous-link"><code>([^<]+)</code>', page)
    href = next(link for link, text in links if text == "A + A = B; B * C = AB")
    filled = client.get(html.unescape(href)).get_data(as_text=True)
    assert ">\nA + A = B; B * C = AB</textarea>" in filled


@pytest.mark.parametrize("lang", ["en", "ja", "th"])
def test_help_text_is_in_the_language_and_describes_the_field(
    client: FlaskClient, lang: str
) -> None:
    page = client.get(f"/?lang={lang}").get_data(as_text=True)
    found = re.search(r'<p class="note" id="puzzle-help">(.*?)</p>', page, re.S)
    assert found and HELP[lang] in html.unescape(found.group(1))
    assert "+ − × ÷ ^ ( )" in found.group(1)
    field = re.search(r'<textarea id="puzzle" name="puzzle"[^>]*aria-describedby="([^"]+)"', page)
    assert field and field.group(1) == "puzzle-help"


def test_an_error_on_a_later_line_is_marked_on_that_line(client: FlaskClient) -> None:
    response = submit_form(client, puzzle="A + A = B\nB * = AB")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert 'aria-describedby="puzzle-help puzzle-error"' in page
    assert '<pre class="caret" aria-hidden="true">B * = AB\n    ^</pre>' in page


def test_openapi_describes_the_grammar_and_its_examples_parse(client: FlaskClient) -> None:
    document = client.get("/api/openapi.json").get_json()
    field = document["components"]["schemas"]["JobRequest"]["properties"]["puzzle"]
    for words in ("term     := power", "10,000 characters", "1,000 words", "50 levels", "4,096"):
        assert words in field["description"], words
    assert len(re.findall(r"^ +\w+ +:= ", field["description"], re.M)) == 7  # every rule
    assert field["examples"] == EXAMPLES
    for example in field["examples"]:
        alphametic.parse(example)  # a PuzzleError here fails the test
    assert any("^" in e for e in EXAMPLES) and any(";" in e for e in EXAMPLES)


DEEP = "(" * 60 + "A" + ")" * 60 + " = B"


@pytest.mark.parametrize(
    ("lang", "puzzle", "base", "words"),
    [
        ("ja", "A = (B", "10", "5 文字目: この ( に対応する ) がありません。"),
        ("th", "A * = B", "10", "ตัวอักษรตัวที่ 5: ตรงนี้ขาดคำหรือตัวเลข"),
        ("ja", "A = B ^ 9999", "10", "約 39,996 ビットになる可能性があり、上限は 4,096 ビット"),
        ("th", "A / 0 = B", "10", "ตัวอักษรตัวที่ 3: หารด้วย 0 ไม่ได้"),
        ("ja", "AB9 = C", "8", "1 文字目: 8 進法に数字 9 はありません。"),
        ("th", DEEP, "10", "ซ้อนกันได้ไม่เกิน 50 ชั้น"),
        ("ja", "A + B = C\nD + E", "10", "11 文字目: 式には = が必要です。"),
        ("th", "12 = 3 * 4", "10", "โจทย์นี้ไม่มีตัวอักษรเลย"),
        ("ja", "A === B", "10", "3 文字目: === という演算子はありません。"),
        ("th", "A = B (C)", "10", "ควรเป็นเครื่องหมายคำนวณหรือจุดจบของสมการ ไม่ใช่ ("),
        ("en", "A / 0 = B", "10", "Character 3: A number cannot be divided by 0."),
    ],
)
def test_new_puzzle_errors_are_said_in_the_language(
    client: FlaskClient, lang: str, puzzle: str, base: str, words: str
) -> None:
    client.get(f"/?lang={lang}")
    response = submit_form(client, puzzle=puzzle, base=base)
    assert response.status_code == 422
    found = re.search(r'id="puzzle-error" role="alert">(.*?)</p>', response.get_data(as_text=True))
    assert found and words in html.unescape(found.group(1)), found and found.group(1)
