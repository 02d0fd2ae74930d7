"""Compose puzzles: every sum of words from a list that has exactly K solutions.

Each candidate is `W1 + … + WN = R`: N addends taken from the list (a word may repeat; order
does not matter, so each multiset once) and a result R of the list that is none of the
addends. A candidate with more distinct letters than the base has digits is skipped, and so
is one whose result cannot have the length a sum of its addends has (every addend of two or
more letters starts with a digit other than 0 unless the policy allows it). The rest are
searched only until their (K+1)-th solution: a candidate is a result when it has exactly K.

The sets of addends come in a fixed order (`groups()` counts them), so a run can be cut into
ranges of them (`start`, `end`): shards of a job each take one, and a stopped run resumes at
`Tally.position`, the first set of addends whose candidates it has not all looked at (a
result of that set found before the stop comes again: keep results by their text).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations_with_replacement, islice
from math import comb

from .language.folding import fold, fold_case
from .language.options import LeadingZeros
from .language.puzzle import Puzzle, parse
from .search import solve

__all__ = ["Composed", "Tally", "candidates", "compose", "groups", "words_of"]


@dataclass(frozen=True)
class Composed:
    """A composed puzzle: its text, its solutions (all of them: exactly K), and the index of
    its set of addends in the run's order."""

    puzzle: Puzzle
    solutions: tuple[dict[str, int], ...]
    group: int = 0


@dataclass
class Tally:
    """How a composition went: candidates listed, searched, results found, and the index of
    the first set of addends not yet done."""

    position: int = 0
    candidates: int = 0
    searched: int = 0
    results: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, why: str) -> None:
        """Count one candidate left out without a search, by its reason."""
        self.skipped[why] = self.skipped.get(why, 0) + 1


def words_of(lines: Iterable[str]) -> list[str]:
    """The distinct words of a word list (one or more per line, folded as puzzles are, in
    their first order); blank lines and lines starting with # are skipped."""
    seen: dict[str, None] = {}
    for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        for word in text.split():
            folded = fold_case(fold(word)[0])
            if folded.isalpha():
                seen.setdefault(folded, None)
    return list(seen)


def _digits(value: int, base: int) -> int:
    """How many digits a positive number has in the base."""
    count = 1
    while value >= base:
        value //= base
        count += 1
    return count


def _lengths_fit(addends: tuple[str, ...], result: str, base: int, policy: LeadingZeros) -> bool:
    """Whether the result's length is one a sum of such addends can have."""
    longest = max(len(word) for word in addends)
    most = sum(base ** len(word) - 1 for word in addends)
    if len(result) > _digits(most, base):
        return False
    if policy is LeadingZeros.ALLOW or longest < 2:
        return True  # an addend may be 0-led (or one letter): no lower bound
    return len(result) >= longest


def groups(words: list[str], addends: int = 2) -> int:
    """How many sets of addends a run over the words goes through."""
    return comb(len(words) + addends - 1, addends)


def candidates(
    words: list[str],
    addends: int = 2,
    base: int = 10,
    leading_zeros: LeadingZeros = LeadingZeros.MULTI_LETTER,
    tally: Tally | None = None,
    start: int = 0,
    end: int | None = None,
) -> Iterator[tuple[int, str]]:
    """Each candidate worth a search with the index of its set of addends, in a fixed order,
    for the sets from `start` up to `end` (pruned ones counted; `tally.position` follows)."""
    tally = tally if tally is not None else Tally()
    ordered = sorted(words)
    tally.position = start
    sets = islice(combinations_with_replacement(ordered, addends), start, end)
    for group, terms in enumerate(sets, start):
        letters = set("".join(terms))
        for result in ordered:
            if result in terms:
                continue
            tally.candidates += 1
            if len(letters | set(result)) > base:
                tally.skip("letters")
            elif not _lengths_fit(terms, result, base, leading_zeros):
                tally.skip("lengths")
            else:
                yield group, f"{' + '.join(terms)} = {result}"
        tally.position = group + 1


def compose(
    words: list[str],
    *,
    addends: int = 2,
    base: int = 10,
    leading_zeros: LeadingZeros | str = LeadingZeros.MULTI_LETTER,
    solutions: int = 1,
    tally: Tally | None = None,
    stop: Callable[[], bool] | None = None,
    start: int = 0,
    end: int | None = None,
) -> Iterator[Composed]:
    """Yield every candidate with exactly `solutions` solutions among the sets of addends from
    `start` up to `end`, searching each only until one more would be found; `stop` is asked
    between candidates (True: end here, `tally.position` saying where to go on)."""
    policy = LeadingZeros(leading_zeros)
    tally = tally if tally is not None else Tally()
    for group, text in candidates(words, addends, base, policy, tally, start, end):
        if stop is not None and stop():
            return
        puzzle = parse(text, base=base, leading_zeros=policy)
        tally.searched += 1
        found = tuple(islice(solve(puzzle), solutions + 1))
        if len(found) == solutions:
            tally.results += 1
            yield Composed(puzzle, found, group)
