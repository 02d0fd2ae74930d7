"""Paging through a list the pages show a page of at a time."""

from __future__ import annotations


def pager(total: int, asked: int, page_size: int) -> tuple[int, int, int]:
    """(page number clamped to the pages there are, the last page, its offset)."""
    last = max(1, -(-total // page_size))
    page_no = min(max(1, asked), last)
    return page_no, last, (page_no - 1) * page_size
