"""Letter patterns of sums: `W1 + ... + WN = R` up to renaming letters and reordering addends.

The number of solutions of a sum (in one base, under one rule for leading zeros) depends only
on its letter pattern: rename its letters one to one, or write its addends in another order,
and its solutions are the same ones renamed. A composer meets the same pattern again and again
(SGB's five-letter words: 34 candidates a pattern at 2,000 words), so it counts one candidate
a pattern and remembers the answer (a bounded memo: the whole count is never kept).

A pattern's key writes the result, then the addends longest first (equal lengths by their
pattern beside the result's letters, then as given), each letter as the order of its first
appearance. Two sums with one
key have one pattern (the key is a renaming and a reordering), so a key's answer is right for
every sum that has it; sums of one pattern may still have two keys (addends alike but for
letters of their own kept in the given order), which only costs a count.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MEMO_SIZE", "Memo", "Pattern", "pattern"]

#: Patterns a memo keeps before it starts again empty: ~100 bytes each, so a few tens of MB.
MEMO_SIZE = 1 << 18

# A pattern's key: each word of the sum (the result first) as the numbers of its letters.
Pattern = tuple[tuple[int, ...], ...]
# What a memo keeps of a pattern: its count of solutions (up to the bound asked), and its
# one solution's digits in the order of the pattern's letters when it has exactly one.
Answer = tuple[int, tuple[int, ...]]


def _shape(word: str, result: dict[str, int]) -> tuple[int, ...]:
    """A word's letter pattern beside the result's: a letter of the result as its number
    there (0, 1, ...), any other as -1, -2, ... in the order of its first appearance."""
    own: dict[str, int] = {}
    return tuple(
        result[letter] if letter in result else -1 - own.setdefault(letter, len(own))
        for letter in word
    )


def pattern(addends: Sequence[str], result: str) -> tuple[Pattern, list[str]]:
    """The sum's pattern key and its letters in the key's order (letter i is number i)."""
    names: dict[str, int] = {}
    first = tuple(names.setdefault(letter, len(names)) for letter in result)
    order = sorted(addends, key=lambda word: (-len(word), _shape(word, names)))
    key = (first, *(tuple(names.setdefault(x, len(names)) for x in word) for word in order))
    return key, list(names)


class Memo:
    """Answers by pattern, at most `size` of them (full: it forgets them all and starts again;
    0: it keeps none)."""

    def __init__(self, size: int = MEMO_SIZE) -> None:
        """An empty memo of at most `size` patterns."""
        self.size = size
        self.answers: dict[Pattern, Answer] = {}
        self.hits = 0

    def get(self, key: Pattern) -> Answer | None:
        """The answer kept for the pattern, if any."""
        answer = self.answers.get(key)
        if answer is not None:
            self.hits += 1
        return answer

    def put(self, key: Pattern, answer: Answer) -> None:
        """Keep the pattern's answer (if the memo keeps any)."""
        if not self.size:
            return
        if len(self.answers) >= self.size:
            self.answers.clear()
        self.answers[key] = answer
