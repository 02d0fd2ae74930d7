"""Puzzles typed in the user's own script (issue 24): the one table the engine, API and form
tests share.

Each case's count is that of its ASCII transliteration; tests/engine/test_unicode.py checks
every count here against its independent brute force, so the web tests can take the counts
as known without running that brute force again.
"""

from __future__ import annotations

from typing import NamedTuple


class Typed(NamedTuple):
    """A puzzle as typed, its ASCII transliteration, how many solutions it has, and how each
    of its symbols (as the engine keys them, after folding) is transliterated; empty when its
    symbols are ASCII letters already."""

    text: str
    ascii: str
    solutions: int
    names: dict[str, str]

    def transliterate(self, solution: dict[str, int]) -> dict[str, int]:
        """A solution keyed by the puzzle's symbols, keyed by the ASCII letters instead."""
        return {self.names.get(symbol, symbol): digit for symbol, digit in solution.items()}


CASES = [
    Typed("SEND＋MORE＝MONEY", "SEND+MORE=MONEY", 1, {}),
    Typed("ＳＥＮＤ＋ＭＯＲＥ＝ＭＯＮＥＹ", "SEND+MORE=MONEY", 1, {}),
    Typed("SEND\u3000＋\u3000MORE\u3000＝\u3000MONEY", "SEND+MORE=MONEY", 1, {}),
    Typed("ＴＯＭ×１３＝ＤＡＬＥＹ", "TOM*13=DALEY", 1, {}),
    Typed("ａ＋ｂ＝ｃ；ａ×ｂ＝ｄ", "A+B=C;A*B=D", 4, {}),
    Typed("いち＋いち＝にい", "IC+IC=NI", 4, {"い": "I", "ち": "C", "に": "N"}),
    Typed("サン×サン＝ロクン", "SN*SN=RKN", 2, {"サ": "S", "ン": "N", "ロ": "R", "ク": "K"}),
    Typed("一二＋二一＝三三", "AB+BA=CC", 32, {"一": "A", "二": "B", "三": "C"}),
    Typed("กข + ขก = คค", "AB+BA=CC", 32, {"ก": "A", "ข": "B", "ค": "C"}),
    Typed("αβ + βα = γγ", "AB+BA=CC", 32, {"Α": "A", "Β": "B", "Γ": "C"}),
    Typed("ДА + ДА = НЕТ", "DA+DA=NET", 16, {"Д": "D", "А": "A", "Н": "N", "Е": "E", "Т": "T"}),
]
