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
from .search import Search, as_dict, count, estimate, shards, solve

__all__ = [
    "MAX_CHARS",
    "MAX_TERMS",
    "LeadingZeros",
    "Puzzle",
    "PuzzleError",
    "Search",
    "as_dict",
    "count",
    "estimate",
    "from_words",
    "parse",
    "shards",
    "solve",
]
