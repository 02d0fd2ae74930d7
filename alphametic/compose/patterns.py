"""Letter patterns of sums: `W1 + ... + WN = R` up to renaming letters and reordering addends.

The number of solutions of a sum (in one base, under one rule for leading zeros) depends only
on its letter pattern: rename its letters one to one, or write its addends in another order,
and its solutions are the same ones renamed. A composer meets the same pattern again and again
(SGB's five-letter words: 34 candidates a pattern at 2,000 words), so it counts one candidate
a pattern and remembers the answer (a bounded memo: the whole count is never kept).

A pattern's key writes the result, then the addends longest first (equal lengths by their
pattern beside the result's letters, then as given), each letter as the order of its first
appearance (a byte), each addend after a GAP byte: a bytes object, which the native core
builds as its twin (linear/_native.c, pattern_key: ~10x cheaper than this one, so the memo
pays on the native core too); keyer() gives the selected engine's. Two sums with one
key have one pattern (the key is a renaming and a reordering), so a key's answer is right for
every sum that has it; sums of one pattern may still have two keys (addends alike but for
letters of their own kept in the given order), which only costs a count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..linear.native import engine

__all__ = ["GAP", "LETTERS", "MEMO_SIZE", "Keyer", "Memo", "Pattern", "keyer", "pattern"]

#: Patterns a memo keeps at most: ~100 bytes each, so ~50 MB. SGB's first 200 words (A + B =
#: C: 2.0 million candidates, 1.08 million patterns) find 0.85 million of their patterns again
#: with 2**19, 0.70 million with 2**18 forgotten all at once when full.
MEMO_SIZE = 1 << 19

#: The byte before each addend in a key, and the most letters a keyed sum has (more: no key).
GAP = 255
LETTERS = 64

# A pattern's key: each word of the sum (the result first) as the numbers of its letters.
Pattern = bytes
# A key and the sum's letters in its order (letter i is number i); None past LETTERS letters.
Keyer = Callable[[tuple[str, ...], str], "tuple[Pattern, str] | None"]
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


def pattern(addends: Sequence[str], result: str) -> tuple[Pattern, str] | None:
    """The sum's pattern key and its letters in the key's order (letter i is number i); None
    when it has more than LETTERS letters."""
    names: dict[str, int] = {}
    codes = [names.setdefault(letter, len(names)) for letter in result]
    for word in sorted(addends, key=lambda word: (-len(word), _shape(word, names))):
        codes.append(GAP)
        codes.extend(names.setdefault(x, len(names)) for x in word)
    if len(names) > LETTERS:
        return None
    return bytes(codes), "".join(names)


def keyer() -> Keyer:
    """pattern() of the selected engine (the native one where it runs)."""
    if engine() == "native":
        from ..linear._native import pattern_key

        return pattern_key
    return pattern


class Memo:
    """Answers by pattern, at most about `size` of them in two generations: the newer one
    full (half the size), the older is forgotten and the newer becomes the older; an answer
    found in the older is kept in the newer again (so the patterns met often stay; 0: it
    keeps none)."""

    def __init__(self, size: int = MEMO_SIZE) -> None:
        """An empty memo of at most `size` patterns (an odd size: one more)."""
        self.size = size
        self.half = (size + 1) // 2
        self.answers: dict[Pattern, Answer] = {}  # the newer generation
        self.older: dict[Pattern, Answer] = {}
        self.hits = 0

    def get(self, key: Pattern) -> Answer | None:
        """The answer kept for the pattern, if any."""
        answer = self.answers.get(key)
        if answer is None:
            answer = self.older.get(key)
            if answer is None:
                return None
            self.put(key, answer)
        self.hits += 1
        return answer

    def put(self, key: Pattern, answer: Answer) -> None:
        """Keep the pattern's answer (if the memo keeps any)."""
        if not self.size:
            return
        if len(self.answers) >= self.half:
            self.older, self.answers = self.answers, {}
        self.answers[key] = answer
