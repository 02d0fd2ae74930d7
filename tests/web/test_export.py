"""Export: every stored solution as CSV or JSON Lines, exact, streamed in flat memory."""

from __future__ import annotations

import csv
import io
import json
import tracemalloc
import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

import alphametic
from jobstore import JobStore
from tests.support.processes import wait_job
from tests.support.web import assert_problem
from web.api import export


def finished_enumeration(client: FlaskClient, job_store: JobStore, puzzle: str, base: int) -> str:
    """Enumerate a puzzle through the API and return the finished job's id."""
    body = {"puzzle": puzzle, "mode": "enumerate", "options": {"base": base}}
    job_id: str = client.post("/api/jobs", json=body).get_json()["id"]
    job = wait_job(job_store, job_id, timeout=120)
    assert job.state == "succeeded", job.to_dict()
    return job_id


def engine_solutions(puzzle: str, base: int = 10) -> set[tuple[tuple[str, int], ...]]:
    """Every solution as the engine finds it, as sorted letter/digit pairs."""
    parsed = alphametic.parse(puzzle, base=base)
    return {tuple(sorted(s.items())) for s in alphametic.solve(parsed)}


def test_csv_is_exact(client: FlaskClient, job_store: JobStore, web_workers: Any) -> None:
    job_id = finished_enumeration(client, job_store, "ABC + DEF = GHI", 10)
    response = client.get(f"/api/jobs/{job_id}/export?format=csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    lines = response.get_data(as_text=True).split("\r\n")
    assert lines[-1] == ""  # every row ends with CRLF
    header, rows = lines[0].split(","), [line.split(",") for line in lines[1:-1]]
    assert sorted(header) == list("ABCDEFGHI") and len(rows) == 1088
    got = {tuple(sorted(zip(header, map(int, row), strict=True))) for row in rows}
    assert got == engine_solutions("ABC + DEF = GHI")


def test_csv_writes_digits_as_the_page_does_and_names_the_puzzle(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    """Base 12: a digit 11 is B in the CSV as on the page (JSON Lines keeps the number 11);
    `comment=1` puts a line naming the puzzle and its base before the header."""
    job_id = finished_enumeration(client, job_store, "SEND + MORE = MONEY", 12)
    url = f"/api/jobs/{job_id}/export?format=csv"
    lines = client.get(f"{url}&comment=1").get_data(as_text=True)
    comment, header, *rows = lines.split("\r\n")[:-1]
    assert comment == "# SEND + MORE = MONEY; base 12; leading zeros multi-letter"
    assert client.get(url).get_data(as_text=True) == lines.split("\r\n", 1)[1]
    letters = header.split(",")
    shown = {tuple(sorted(zip(letters, row.split(","), strict=True))) for row in rows}
    expected = {
        tuple((letter, "0123456789AB"[digit]) for letter, digit in solution)
        for solution in engine_solutions("SEND + MORE = MONEY", 12)
    }
    assert shown == expected and any("B" in row.split(",") for row in rows)


def test_csv_is_read_by_csv_readers_with_the_letters_as_header(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    """csv.DictReader (as pandas.read_csv and spreadsheets) takes the first line as the
    header: the letters, not a comment; a bad `comment` value is a 422 naming the field."""
    job_id = finished_enumeration(client, job_store, "ABC + DEF = GHI", 10)
    text = client.get(f"/api/jobs/{job_id}/export?format=csv").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 1088 and sorted(rows[0]) == list("ABCDEFGHI")
    bad = client.get(f"/api/jobs/{job_id}/export?format=csv&comment=yes")
    assert bad.status_code == 422 and bad.get_json()["field"] == "comment"


def test_jsonl_is_exact(client: FlaskClient, job_store: JobStore, web_workers: Any) -> None:
    job_id = finished_enumeration(client, job_store, "CP + IS + FUN = TRUE", 16)
    response = client.get(f"/api/jobs/{job_id}/export?format=jsonl")
    assert response.status_code == 200 and response.mimetype == "application/jsonl"
    lines = response.get_data(as_text=True).splitlines()
    assert len(lines) == 39_564
    got = {tuple(sorted(json.loads(line).items())) for line in lines}
    assert got == engine_solutions("CP + IS + FUN = TRUE", 16)


def test_export_memory_stays_flat(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    """115,020 solutions (about 2.4 MB of CSV) go out with well under 1 MB held at once."""
    job_id = finished_enumeration(client, job_store, "CP + IS + FUN = TRUE", 18)
    job = job_store.get(job_id)
    assert job is not None
    size = rows = 0
    # The response's own generator, traced directly (the test client hides its allocations).
    tracemalloc.start()
    try:
        for chunk in export.csv_lines(job, job_store):
            size += len(chunk)
            rows += chunk.count("\n")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rows == 115_020 + 1 and size > 2_300_000  # and the header
    print(f"exported {size:,} characters, peak traced memory {peak:,} bytes")
    assert peak < 1_000_000


def test_export_link_is_on_the_page_and_in_the_status(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = finished_enumeration(client, job_store, "ODD + ODD = EVEN", 10)
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert f'href="/api/jobs/{job_id}/export?format=csv"' in page
    assert f'href="/api/jobs/{job_id}/export?format=jsonl"' in page
    links = client.get(f"/api/jobs/{job_id}").get_json()["links"]
    assert links["export"] == f"/api/jobs/{job_id}/export?format=csv"


@pytest.mark.parametrize("kind", ["xml", ""])
def test_unknown_format_is_422(
    client: FlaskClient, job_store: JobStore, web_workers: Any, kind: str
) -> None:
    job_id = finished_enumeration(client, job_store, "ODD + ODD = EVEN", 10)
    problem = assert_problem(client.get(f"/api/jobs/{job_id}/export?format={kind}"), 422)
    assert problem["field"] == "format"


def test_unknown_job_export_is_404(client: FlaskClient) -> None:
    assert_problem(client.get(f"/api/jobs/{uuid.uuid4()}/export"), 404)
