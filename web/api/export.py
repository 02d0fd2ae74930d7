"""Download a job's stored solutions (a compose job's results) as CSV or JSON Lines, streamed
in flat memory.

The rows are read from the job store a chunk at a time (JobStore.compact pages through the
compact strings, JobStore.composed through a compose job's results) and written as they come,
so a million solutions never sit in memory at once.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterator
from typing import Any

from flask import Response

from alphametic.render import digit_char
from jobstore import Job, JobStore, Mode, ResultOrder
from jobstore.model import CHUNK, DIGITS

FORMATS = {"csv": "text/csv", "jsonl": "application/jsonl"}
# A compact solution's characters as the decimal digits they stand for ("z" -> "35"), for
# JSON Lines (numbers), and as the pages write a digit of its base ("z" -> "Z"), for CSV.
VALUE = {c: str(i) for i, c in enumerate(DIGITS)}
SHOWN = {c: digit_char(i) for i, c in enumerate(DIGITS)}


def compact_rows(job_store: JobStore, job_id: str) -> Iterator[tuple[str, str]]:
    """Yield (letters, compact solution) for every solution stored when the export began."""
    offset, end = 0, None
    while end is None or offset < end:
        found = job_store.compact(job_id, offset, CHUNK)
        if found is None:
            return  # the job expired mid-download: what was sent stays valid
        letters, texts, total, _ = found
        end = total if end is None else end  # a running job: export what was stored at start
        for text in texts[: max(0, end - offset)]:
            yield letters, text
        if not texts:
            return
        offset += len(texts)


def _lines(
    job: Job, job_store: JobStore, header: str, row: str, values: dict[str, str]
) -> Iterator[str]:
    """The header, then `row` filled with each solution's digits, a chunk of rows at a time."""
    yield header
    buffer: list[str] = []
    for _, text in compact_rows(job_store, job.id):
        buffer.append(row.format(*map(values.__getitem__, text)))
        if len(buffer) >= CHUNK:
            yield "".join(buffer)
            buffer.clear()
    yield "".join(buffer)


def about(job: Job) -> str:
    """A `#` comment line naming the puzzle (or a compose job's list) and its options."""
    options = job.options
    if job.mode is Mode.COMPOSE:
        return (
            f"# compose; addends {options.get('addends')}; base {options.get('base')}; leading "
            f"zeros {options.get('leading_zeros')}; solutions {options.get('solutions')}\r\n"
        )
    line = (
        f"# {job.puzzle}; base {options.get('base', 10)}; leading zeros "
        f"{options.get('leading_zeros', 'multi-letter')}"
    )
    fixed = options.get("fixed") or {}
    if fixed:
        line += "; fixed " + ", ".join(f"{k}={v}" for k, v in sorted(fixed.items()))
    return line + "\r\n"


def csv_lines(job: Job, job_store: JobStore) -> Iterator[str]:
    """The CSV text: a header of the letters first (what spreadsheets and CSV readers take as
    the header), then one row per solution of its digits as the pages write them (0-9, then
    A-Z in bases above 10)."""
    header = ",".join(job.letters) + "\r\n"
    row = ",".join("{}" for _ in job.letters) + "\r\n"
    return _lines(job, job_store, header, row, SHOWN)


def jsonl_lines(job: Job, job_store: JobStore) -> Iterator[str]:
    """The JSON Lines text (UTF-8): one letter -> digit object per solution, keyed by the
    puzzle's own symbols."""
    fields = ",".join(json.dumps(letter, ensure_ascii=False) + ":{}" for letter in job.letters)
    return _lines(job, job_store, "", "{{" + fields + "}}\n", VALUE)


COMPOSED_COLUMNS = ("puzzle", "solutions", "solution", "difficulty_score", "difficulty_label")


def composed_rows(
    job_store: JobStore, job_id: str, order: ResultOrder = ResultOrder.FOUND
) -> Iterator[dict[str, Any]]:
    """Yield every result a compose job had stored when the export began, in stored order or
    by difficulty (read whole at once then: results stored meanwhile would move the order)."""
    if order is not ResultOrder.FOUND:
        items, _ = job_store.composed(job_id, 0, sys.maxsize, order)
        yield from items
        return
    _, end = job_store.composed(job_id, 0, 1)
    for offset in range(0, end, CHUNK):
        items, _ = job_store.composed(job_id, offset, min(CHUNK, end - offset))
        yield from items


def _csv_row(values: list[Any]) -> str:
    """One CSV row (quoted where needed, CRLF ended)."""
    out = io.StringIO()
    csv.writer(out).writerow(values)
    return out.getvalue()


def composed_csv(job: Job, job_store: JobStore, order: ResultOrder) -> Iterator[str]:
    """A compose job's results as CSV: a header, then one row per result (its solution as
    letter=digit pairs when it has only one)."""
    yield _csv_row(list(COMPOSED_COLUMNS))
    for item in composed_rows(job_store, job.id, order):
        solution = item.get("solution") or {}
        difficulty = item.get("difficulty") or {}
        pairs = " ".join(f"{letter}={digit_char(d)}" for letter, d in solution.items())
        yield _csv_row(
            [item["puzzle"], item["solutions"], pairs, difficulty.get("score", ""),
             difficulty.get("label", "")]
        )  # fmt: skip


def composed_jsonl(job: Job, job_store: JobStore, order: ResultOrder) -> Iterator[str]:
    """A compose job's results as JSON Lines: one result object a line, as the API pages them."""
    for item in composed_rows(job_store, job.id, order):
        yield json.dumps(item, ensure_ascii=False) + "\n"


def _commented(line: str, lines: Iterator[str]) -> Iterator[str]:
    """The comment line, then the lines."""
    yield line
    yield from lines


def response(
    job_store: JobStore,
    job: Job,
    kind: str,
    order: ResultOrder = ResultOrder.FOUND,
    comment: bool = False,
) -> Response:
    """The streamed download of a job's solutions in this format ("csv" or "jsonl"); a
    compose job's results in the order asked. `comment`: a CSV starts with a `#` line naming
    the puzzle and its options (opt-in: spreadsheets and most CSV readers take a first line
    as the header; pandas skips it with comment="#", R with comment.char)."""
    if job.mode is Mode.COMPOSE:
        made = composed_csv if kind == "csv" else composed_jsonl
        lines = made(job, job_store, order)
    else:
        lines = csv_lines(job, job_store) if kind == "csv" else jsonl_lines(job, job_store)
    if comment and kind == "csv":
        lines = _commented(about(job), lines)
    headers = {"Content-Disposition": f'attachment; filename="alphametic-{job.id}.{kind}"'}
    return Response(lines, mimetype=FORMATS[kind], headers=headers)
