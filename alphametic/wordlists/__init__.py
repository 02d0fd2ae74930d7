"""Built-in word lists to compose puzzles from, one per page language: en.txt, ja.txt and th.txt,
most frequent words first (each file's header says where its words come from and its licence).
"""

from __future__ import annotations

from importlib.resources import files

__all__ = ["LISTS", "word_list"]

LISTS = ("en", "ja", "th")


def word_list(name: str, first: int | None = None) -> list[str]:
    """The words of a built-in list (its `first` most frequent ones when given), as they are
    written in its file; a name not in LISTS raises KeyError."""
    if name not in LISTS:
        raise KeyError(name)
    text = files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    words = [line for line in text.splitlines() if line and not line.startswith("#")]
    return words[:first] if first is not None else words
