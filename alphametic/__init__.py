"""Alphametic puzzles: parse, search, render (standard library only)."""

from .puzzle import (
    MAX_CHARS,
    MAX_TERMS,
    LeadingZeros,
    Puzzle,
    PuzzleError,
    from_words,
    parse,
)
from .render import render_line, render_sum, render_table
from .search import Search, Size, as_dict, count, estimate, seconds, shards, size, solve

__all__ = [
    "MAX_CHARS",
    "MAX_TERMS",
    "LeadingZeros",
    "Puzzle",
    "PuzzleError",
    "Search",
    "Size",
    "as_dict",
    "count",
    "estimate",
    "from_words",
    "parse",
    "render_line",
    "render_sum",
    "render_table",
    "seconds",
    "shards",
    "size",
    "solve",
]
