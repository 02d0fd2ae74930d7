"""Word lists for compose jobs: a small one and one long enough that a stop or a cancel lands
mid-run; what the engine's compose() finds in a list; and a brute force of the composer's
meaning, independent of the engine (the references a job's results must equal)."""

from __future__ import annotations

import functools
import random
from itertools import combinations_with_replacement, permutations

from alphametic.compose import compose

LETTERS = "ABCDEFGHIJKL"
SMALL = ["AB", "BA", "CC", "ABC", "CAB", "BCA", "A", "B", "AD", "DAB"]


@functools.cache
def long_words(count: int = 90, seed: int = 26) -> tuple[str, ...]:
    """About `count` made-up words of 2 to 5 of twelve letters: at 90, 86 words, 3,741 sets of
    two addends and 472 results, about 6 s of composing and rating them on one native core
    (the rating is most of it), with results from the start."""
    rng = random.Random(seed)
    made = {"".join(rng.choice(LETTERS) for _ in range(rng.randint(2, 5))) for _ in range(count)}
    return tuple(sorted(made))


@functools.cache
def composed_list(words: tuple[str, ...], addends: int = 2, base: int = 10) -> tuple[str, ...]:
    """The puzzle texts of every result compose() finds in the words, in one whole run's
    order."""
    found = compose(list(words), addends=addends, base=base)
    return tuple(result.puzzle.text for result in found)


def composed_texts(words: tuple[str, ...], addends: int = 2, base: int = 10) -> frozenset[str]:
    """The puzzle texts of every result compose() finds in the words, in one whole run."""
    return frozenset(composed_list(words, addends, base))


def value(word: str, digits: dict[str, int], base: int) -> int:
    """The number a word spells in the base."""
    total = 0
    for letter in word:
        total = total * base + digits[letter]
    return total


def brute(
    words: list[str], addends: int, base: int, policy: str, wanted: int
) -> dict[str, list[dict[str, int]]]:
    """Puzzle text -> its solutions, for every sum of the words with exactly `wanted`
    solutions: every multiset of addends, every result, every assignment of distinct digits,
    counted with Python integers (written apart from the engine)."""
    found: dict[str, list[dict[str, int]]] = {}
    ordered = list(dict.fromkeys(words))  # the list's order: addends are written in it
    for terms in combinations_with_replacement(ordered, addends):
        for result in ordered:
            if result in terms:
                continue
            every = [*terms, result]
            letters = sorted(set("".join(every)))
            if len(letters) > base:
                continue
            leading = {
                w[0]
                for w in every
                if policy == "every-word" or (policy == "multi-letter" and len(w) > 1)
            }
            solutions = []
            for chosen in permutations(range(base), len(letters)):
                digits = dict(zip(letters, chosen, strict=True))
                if any(digits[letter] == 0 for letter in leading):
                    continue
                if sum(value(w, digits, base) for w in terms) == value(result, digits, base):
                    solutions.append(digits)
            if len(solutions) == wanted:
                found[" + ".join(terms) + " = " + result] = solutions
    return found
