"""The pages in English, Japanese and Thai: chosen, remembered, complete, and up to date."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask.testing import FlaskClient

from tests.support.processes import ROOT, wait_job
from tests.support.web import submit_form

WEB = ROOT / "web"
CATALOGS = WEB / "translations"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
HEADINGS = {"en": "Solve an alphametic", "ja": "覆面算を解く", "th": "ไขปริศนาอักษรแทนเลข"}


def lang_of(page: str) -> str:
    """The <html lang> of a page."""
    found = re.search(r'<html lang="([^"]+)">', page)
    assert found
    return found.group(1)


def source_ids() -> set[str]:
    """Every message id in web/ today, extracted as web/babel.cfg says."""
    method_map = [("**.py", "python"), ("templates/**.html", "jinja2")]
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "_l": None, "lazy_gettext": None}
    found = extract_from_dir(str(WEB), method_map, keywords=keywords)
    return {m[2] if isinstance(m[2], str) else m[2][0] for m in found}


@pytest.mark.parametrize("code", ["ja", "th"])
def test_catalog_is_complete_compiled_and_current(code: str) -> None:
    folder = CATALOGS / code / "LC_MESSAGES"
    with open(folder / "messages.po", "rb") as po_file, open(folder / "messages.mo", "rb") as mo:
        catalog, compiled = read_po(po_file), read_mo(mo)
    assert not catalog.fuzzy  # pybabel compile skips a catalog whose header is fuzzy
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    assert source_ids() <= ids, "run pybabel extract/update (web/translations/README.md)"
    for message in catalog:
        if not message.id:
            continue
        assert "fuzzy" not in message.flags, message.id
        raw = message.string
        strings = tuple(raw) if isinstance(raw, tuple | list) else (str(raw),)
        key = message.id if isinstance(message.id, str) else message.id[0]
        for text in strings:
            assert text, f"{code}: {key!r} is not translated"
            assert set(PLACEHOLDER.findall(text)) <= set(PLACEHOLDER.findall(key)), key
            shipped = compiled[message.id].string
            shipped = tuple(shipped) if isinstance(shipped, tuple | list) else (str(shipped),)
            assert shipped == strings, f"recompile {code}: {key!r}"


@pytest.mark.parametrize(
    ("accept", "lang"),
    [("ja-JP,ja;q=0.9", "ja"), ("th", "th"), ("en-GB", "en"), ("de-DE", "en"), ("", "en")],
)
def test_accept_language_chooses(client: FlaskClient, accept: str, lang: str) -> None:
    page = client.get("/", headers={"Accept-Language": accept}).get_data(as_text=True)
    assert lang_of(page) == lang and f"<h1>{HEADINGS[lang]}</h1>" in page


def test_lang_switch_is_remembered(client: FlaskClient) -> None:
    switched = client.get("/?lang=th", headers={"Accept-Language": "ja"})
    assert "lang=th" in switched.headers["Set-Cookie"]
    page = client.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert lang_of(page) == "th"
    assert 'hreflang="ja" href="?lang=ja"' in page and '<span lang="th" aria-current' in page
    assert "Accept-Language" in client.get("/").headers["Vary"]


def test_unknown_lang_is_ignored(client: FlaskClient) -> None:
    response = client.get("/?lang=xx", headers={"Accept-Language": "ja"})
    assert lang_of(response.get_data(as_text=True)) == "ja"
    assert "Set-Cookie" not in response.headers or "lang=" not in response.headers["Set-Cookie"]


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "from 2 to 36"), ("ja", "2 から 36 までの整数"), ("th", "ตั้งแต่ 2 ถึง 36")],
)
def test_form_errors_are_translated(client: FlaskClient, lang: str, words: str) -> None:
    client.get(f"/?lang={lang}")
    page = submit_form(client, puzzle="SEND + MORE = MONEY", base="99").get_data(as_text=True)
    found = re.search(r'id="base-error" role="alert">(.*?)</p>', page)
    assert found and words in found.group(1)


@pytest.mark.parametrize(("lang", "words"), [("ja", "期限が切れた"), ("th", "หมดอายุ")])
def test_error_pages_are_translated(client: FlaskClient, lang: str, words: str) -> None:
    response = client.get(f"/jobs/00000000-0000-4000-8000-000000000000?lang={lang}")
    assert response.status_code == 404 and words in response.get_data(as_text=True)


def test_api_problems_follow_accept_language_for_engine_errors_only(client: FlaskClient) -> None:
    """An engine error's detail is said by its code in the asked language; the others stay
    English (they are about the request's JSON shape, for programs)."""
    body = client.post(
        "/api/jobs",
        json={"puzzle": "A + B =", "options": {"base": 99}},
        headers={"Accept-Language": "ja"},
    ).get_json()
    assert "基数は 2 から 36" in body["detail"] and body["field"] == "options.base"
    assert body["code"] == "base_out_of_range"
    shape = client.post(
        "/api/jobs", json={"puzzle": "A = B", "mode": 3}, headers={"Accept-Language": "ja"}
    ).get_json()
    assert shape["field"] == "mode" and shape["detail"].isascii()


@pytest.mark.parametrize("lang", ["en", "ja", "th"])
def test_translated_answers_say_their_language(client: FlaskClient, lang: str) -> None:
    """A problem said in the request's language, a page and an error page send
    Content-Language and vary with Accept-Language (caches keep one per language)."""
    asked = {"Accept-Language": lang}
    puzzle = client.post("/api/jobs", json={"puzzle": "A + B ="}, headers=asked)
    assert puzzle.status_code == 422 and puzzle.mimetype == "application/problem+json"
    words = client.post("/api/jobs", json={"mode": "compose", "words": [1]}, headers=asked)
    assert words.status_code == 422
    missing = client.get("/jobs/00000000-0000-4000-8000-000000000000", headers=asked)
    assert missing.status_code == 404
    for response in (puzzle, words, client.get("/", headers=asked), missing):
        assert response.headers["Content-Language"] == lang
        assert "Accept-Language" in response.headers["Vary"]
    shape = client.post("/api/jobs", json={"puzzle": "A = B", "mode": 3}, headers=asked)
    assert "Content-Language" not in shape.headers  # said in English alone, whatever asked


def test_japanese_404_page_has_no_english_line(client: FlaskClient) -> None:
    response = client.get("/jobs/00000000-0000-4000-8000-000000000000?lang=ja")
    page = response.get_data(as_text=True)
    main = page[page.index("<main") : page.index("</main>")]
    assert response.status_code == 404 and "期限が切れた" in main
    assert 'lang="en"' not in main and "Nothing at" not in main


@pytest.mark.parametrize(
    ("lang", "state", "finished"),
    [("en", "Finished", "Finished: 1,088 solutions."), ("ja", "完了", "完了: 解は 1,088 個です。"),
     ("th", "เสร็จแล้ว", "เสร็จแล้ว: พบ 1,088 คำตอบ")],
)  # fmt: skip
def test_job_page_is_translated_with_locale_numbers(
    client: FlaskClient, job_store: Any, web_workers: Any, lang: str, state: str, finished: str
) -> None:
    response = submit_form(client, puzzle="ABC + DEF = GHI", mode="enumerate")
    wait_job(job_store, response.headers["Location"].rsplit("/", 1)[1])
    page = client.get(response.headers["Location"] + f"?lang={lang}").get_data(as_text=True)
    assert lang_of(page) == lang and f"<title>{state} · ABC + DEF = GHI</title>" in page
    assert finished in page and '<dd id="count">1,088</dd>' in page
    strings = re.search(r"data-strings='([^']*)'", page)
    assert strings and state in strings.group(1).encode().decode("unicode_escape")


def test_babel_config_names_every_source() -> None:
    config = (WEB / "babel.cfg").read_text()
    assert "[python: **.py]" in config and "[jinja2: templates/**.html]" in config
    assert Path(CATALOGS / "messages.pot").is_file()


@pytest.mark.parametrize(
    ("lang", "puzzle", "words"),
    [
        ("ja", 'SEND + M"ORE = MONEY', '9 文字目: 「"」（U+0022）は使えない文字です'),
        ("ja", "いち＋いち！＝にい", "6 文字目: 「！」（U+FF01）は使えない文字です"),
        ("th", "กข + ขก = ค!", "ตัวอักษรตัวที่ 12: ใช้ “!” (U+0021) ในโจทย์ไม่ได้"),
        (
            "ja",
            "หนึ่ง + ก = ข",
            "3 文字目: 記号 ◌\u0e36（U+0E36、THAI CHARACTER SARA UE）は語の一部にできません",
        ),
        ("th", "SEND + MORE", "สมการต้องมีเครื่องหมาย ="),
        ("ja", "ABCDEFGHIJK = ABCDEFGHIJK", "11 種類の文字"),
        ("en", 'SEND + M"ORE = MONEY', 'Character 9: “"” (U+0022) cannot be used in a puzzle'),
    ],
)
def test_puzzle_errors_are_said_in_the_language(
    client: FlaskClient, lang: str, puzzle: str, words: str
) -> None:
    client.get(f"/?lang={lang}")
    page = submit_form(client, puzzle=puzzle).get_data(as_text=True)
    found = re.search(r'id="puzzle-error" role="alert">(.*?)</p>', page, re.S)
    assert found and words in found.group(1).replace("&#34;", '"').replace("&#39;", "'")
