"""Word lists for compose jobs: a small one and one long enough that a stop or a cancel lands
mid-run; what the engine's compose() finds in a list; and a brute force of the composer's
meaning, independent of the engine (the references a job's results must equal), and one of
its no-word-twice meaning with the small lists, N = 2 to 10 addends, it is checked on."""

from __future__ import annotations

import functools
import random
from itertools import combinations, combinations_with_replacement, permutations

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


def solutions(addends: tuple[str, ...], result: str, base: int, leading: bool) -> int:
    """How many assignments of distinct digits make the sum hold (`leading`: no word of two or
    more letters starts with 0), by trying every one."""
    letters = sorted(set("".join(addends) + result))
    if len(letters) > base:
        return 0
    first = {w[0] for w in (*addends, result) if leading and len(w) > 1}
    # The sum as one weight per letter: sum(weight * digit) == 0 when it holds.
    weight = dict.fromkeys(letters, 0)
    for word, sign in [*((w, 1) for w in addends), (result, -1)]:
        for place, letter in enumerate(reversed(word)):
            weight[letter] += sign * base**place
    weights = [weight[x] for x in letters]
    firsts = [i for i, x in enumerate(letters) if x in first]
    count = 0
    for digits in permutations(range(base), len(letters)):
        if all(digits[i] for i in firsts) and not sum(map(int.__mul__, weights, digits)):
            count += 1
    return count


def brute_distinct(
    words: list[str], addends: int, base: int, leading: bool = True, wanted: int = 1
) -> set[str]:
    """Every `W1 + ... + WN = R` of distinct words of the list (addends in its order, R none
    of them) with exactly `wanted` solutions."""
    found = set()
    for terms in combinations(words, addends):
        for result in words:
            if result not in terms and solutions(terms, result, base, leading) == wanted:
                found.add(f"{' + '.join(terms)} = {result}")
    return found


def made_up(seed: int, count: int, alphabet: str, longest: int) -> list[str]:
    """`count` distinct made-up words of 1 to `longest` letters of the alphabet."""
    rng = random.Random(seed)
    words: dict[str, None] = {}
    while len(words) < count:
        words.setdefault("".join(rng.choices(alphabet, k=rng.randint(1, longest))), None)
    return list(words)


# Each N: a list short enough for the brute force, with results (asserted) in a small base.
DISTINCT_CASES = [
    (2, made_up(1, 12, "ABCDEF", 3), 7),
    (3, made_up(2, 11, "ABCDEF", 3), 7),
    (4, made_up(3, 11, "ABCDE", 3), 6),
    (5, made_up(4, 11, "ABCDE", 2), 6),
    (6, made_up(5, 8, "ABCDE", 4), 5),
    (7, made_up(5, 9, "ABCD", 3), 5),
    (8, made_up(2, 10, "ABCDE", 3), 5),
    (9, made_up(1, 11, "ABCDE", 3), 5),
    (10, made_up(8, 12, "ABCDE", 3), 5),
]
