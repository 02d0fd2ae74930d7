"""Alphametic puzzles: parse, search, render (standard library only).

Folders: language/ (puzzle text -> Puzzle, options, errors) · linear/ (the plain-sum engine
and its optional compiled core) · steps/ (the expression engine) · explain/ (explanations and
their texts per language) · cli/ (the command line) · wordlists/ (built-in word lists to
compose from) · compose/ (every sum of words from a list with exactly K solutions: the
composer, the sets of addends it walks, its letter-pattern memo). Modules: search.py (exact,
stoppable search over either engine; sizes, estimates and shards) · render.py (a solution as a
column sum, a table or a line) · __main__.py (python -m alphametic).
"""

from .language.errors import ErrorCode
from .language.options import MAX_BASE, MIN_BASE, check_options
from .language.puzzle import (
    MAX_CHARS,
    MAX_TERMS,
    LeadingZeros,
    Puzzle,
    PuzzleError,
    from_words,
    parse,
)
from .render import render_line, render_sum, render_table
from .search import (
    Search,
    Size,
    as_dict,
    assignments,
    count,
    estimate,
    seconds,
    shards,
    size,
    solve,
)

__all__ = [
    "MAX_BASE",
    "MAX_CHARS",
    "MAX_TERMS",
    "MIN_BASE",
    "ErrorCode",
    "LeadingZeros",
    "Puzzle",
    "PuzzleError",
    "Search",
    "Size",
    "as_dict",
    "assignments",
    "check_options",
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
