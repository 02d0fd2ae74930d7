"""Download a job's stored solutions as CSV or JSON Lines, streamed in flat memory.

The rows are read from the job store a chunk at a time (JobStore.compact pages through the
compact strings) and written as they come, so a million solutions never sit in memory at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from flask import Response

from alphametic.render import digit_char
from jobstore import Job, JobStore
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


def csv_lines(job: Job, job_store: JobStore) -> Iterator[str]:
    """The CSV text: a comment line naming the puzzle and its options (readers skip it with
    pandas' comment="#", R's comment.char), a header of the letters, then one row per
    solution of its digits as the pages write them (0-9, then A-Z in bases above 10)."""
    options = job.options
    about = (
        f"# {job.puzzle}; base {options.get('base', 10)}; leading zeros "
        f"{options.get('leading_zeros', 'multi-letter')}"
    )
    fixed = options.get("fixed") or {}
    if fixed:
        about += "; fixed " + ", ".join(f"{k}={v}" for k, v in sorted(fixed.items()))
    header = about + "\r\n" + ",".join(job.letters) + "\r\n"
    row = ",".join("{}" for _ in job.letters) + "\r\n"
    return _lines(job, job_store, header, row, SHOWN)


def jsonl_lines(job: Job, job_store: JobStore) -> Iterator[str]:
    """The JSON Lines text (UTF-8): one letter -> digit object per solution, keyed by the
    puzzle's own symbols."""
    fields = ",".join(json.dumps(letter, ensure_ascii=False) + ":{}" for letter in job.letters)
    return _lines(job, job_store, "", "{{" + fields + "}}\n", VALUE)


def response(job_store: JobStore, job: Job, kind: str) -> Response:
    """The streamed download of a job's solutions in this format ("csv" or "jsonl")."""
    lines = csv_lines(job, job_store) if kind == "csv" else jsonl_lines(job, job_store)
    headers = {"Content-Disposition": f'attachment; filename="alphametic-{job.id}.{kind}"'}
    return Response(lines, mimetype=FORMATS[kind], headers=headers)
