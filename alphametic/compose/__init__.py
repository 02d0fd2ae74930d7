"""Compose puzzles: every sum of words from a list that has exactly K solutions.

Each candidate is `W1 + … + WN = R`: N addends taken from the list (a word may repeat; order
does not matter, so each multiset once) and a result R of the list that is none of the
addends. A candidate with more distinct letters than the base has digits is skipped, and so
is one whose result cannot have the length a sum of its addends has (every addend of two or
more letters starts with a digit other than 0 unless the policy allows it; a result that may
start with 0 is as long as its letters after its first letter's leading run). The results are
bucketed by length and letter set, so a pruned bucket is counted whole, not word by word.
The rest are counted column by column from the units (linear/columns.py, native where the
core is built: each column's parity and carry prune as soon as its letters have digits) only
until their (K+1)-th solution; a candidate with exactly K is then parsed, and its solutions
are the column count's one (K = 1) or the search engine's.

The words keep the list's order (addends are written in it: `SEND + MORE = MONEY` from a list
where SEND comes first), and the sets of addends grow with the list: all sets of its first k
words before any with word k+1, so a run cut at the results cap has used the list's first
words (a frequency list's commonest). That order is fixed (`groups()` counts it), so a run
can be cut into ranges of them (`start`, `end`): shards of a job each take one, and a stopped
run resumes at `Tally.position`, the first set of addends whose candidates it has not all
looked at (a result of that set found before the stop comes again: keep results by their
text). A set's candidates, and those of them skipped, are counted into the Tally as the set
starts. Set indexes are Python integers (a range starts by unranking its first set, however far
in), and a run asks its stop hook between candidates and, while it walks sets whose every
candidate is pruned, every ASK_INTERVAL: no run goes long without looking at its flags.
check_reach refuses a list whose sets no run could walk in the seconds it has.

With `distinct_words` (Cryptator's rule) no word is used twice: the addends are sets of
distinct words, in the same kind of order (addends.py), walked keeping only the
sets whose letters fit the base, so the others are counted whole. The column count answers a
letter pattern counted before from a bounded memo (patterns.py), kept on where it
saves time. count() and counted() count the results without building their puzzles.

Modules of this folder: this one (the composer: candidates, their count, the checks of a list
and its options) · addends.py (the sets of addends a composition walks, in order, by index) ·
patterns.py (sums by letter pattern: the composer's memo).
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from math import comb, perm
from time import monotonic, perf_counter
from typing import Any

from ..language.errors import ErrorCode, PuzzleError
from ..language.folding import codepoint, fold, fold_case, is_mark
from ..language.options import LeadingZeros
from ..language.puzzle import Puzzle, parse
from ..linear.columns import counter
from ..search import Search, as_dict
from .addends import DistinctWalk, set_count, sets, walk_bound
from .patterns import MEMO_SIZE, Memo, keyer

# The letter sets of a bucket that a set of addends leaves: each the positions of its words.
Sets = Iterable[list[int]]
# Candidates with a longer word go to the search engine: the column count recurses a few
# levels per column, and Python's recursion limit (1,000) must hold for its pure-Python twin.
LONGEST = 200
# Candidates with more ways to give their letters distinct digits than this go to the search
# engine, which asks the stop hook as it goes: the column count has no hook, and a base-36
# candidate of many letters can keep it counting for minutes (TQKSA + CZVX = ODIKML).
HEAVY = 3_628_800  # 10!: base 10's whole space, which the columns count in milliseconds

#: The counts a composition may ask for: addends per sum, and solutions of each result.
ADDENDS = (1, 10)
SOLUTIONS = (1, 1000)
#: Distinct words a list needs to compose from.
FEWEST_WORDS = 2
#: Sets of addends a run walks a second at most, every candidate pruned: about 90,000-110,000
#: for 100 three-letter words and 17,000 for 2,000 (a pruned bucket is still read mask by
#: mask) on the 2-core development machine; check_reach weighs a list's sets by more than the
#: fastest, so it refuses only a list no run could walk in time.
SETS_PER_SECOND = 200_000
#: Seconds between two asks of the stop hook at most while a run walks sets of addends whose
#: candidates are all pruned (none searched, so no ask between candidates).
ASK_INTERVAL = 0.01
#: Letters a word of a list checked by check_words may have: every candidate's text (at most
#: 11 words and their signs) then stays far below the cap on a puzzle's length, so no candidate
#: is refused mid-run.
LONGEST_WORD = 100
#: The faults check_words, check_word_count and check_counts report.
FAULTS = frozenset(
    {
        ErrorCode.WORD_LIST_NOT_A_LIST,
        ErrorCode.NOT_A_WORD,
        ErrorCode.WORD_TOO_LONG,
        ErrorCode.TOO_FEW_WORDS,
        ErrorCode.TOO_MANY_WORDS,
        ErrorCode.ADDENDS_OUT_OF_RANGE,
        ErrorCode.SOLUTIONS_OUT_OF_RANGE,
        ErrorCode.SETS_OUT_OF_REACH,
    }
)

__all__ = [
    "ADDENDS",
    "FAULTS",
    "FEWEST_WORDS",
    "LONGEST_WORD",
    "SETS_PER_SECOND",
    "SOLUTIONS",
    "Composed",
    "Tally",
    "bad_words",
    "by_difficulty",
    "candidates",
    "check_counts",
    "check_reach",
    "check_word_count",
    "check_words",
    "compose",
    "count",
    "counted",
    "groups",
    "words_of",
]


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
    remembered: int = 0  # candidates answered by a letter pattern counted before

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


def check_words(words: object, most: int | None = None, skip_bad: bool = False) -> list[str]:
    """The distinct words of a list given as data (folded as puzzles are): each one word of
    letters, at most LONGEST_WORD of them; at least FEWEST_WORDS, at most `most` distinct
    words (PuzzleError naming the field "words" otherwise). Every word that is not one word of
    letters is named at once (bad_words: the characters at fault), or with `skip_bad` left out
    (the words kept must still be enough)."""
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise PuzzleError(ErrorCode.WORD_LIST_NOT_A_LIST, field="words")
    bad = bad_words(words)
    if bad and not skip_bad:
        listed = ", ".join(_english_fault(fault) for fault in bad)
        raise PuzzleError(
            ErrorCode.NOT_A_WORD, field="words", word=bad[0]["word"], faults=bad,
            count=len(bad), listed=listed,
        )  # fmt: skip
    dropped = {fault["word"] for fault in bad}
    kept = [word for word in words if word not in dropped]
    if any(len(word) > LONGEST_WORD for word in kept):
        raise PuzzleError(ErrorCode.WORD_TOO_LONG, field="words", cap=LONGEST_WORD)
    return check_word_count(words_of(kept), most)


def bad_words(words: list[str]) -> list[dict[str, Any]]:
    """Every distinct item of a list that is not one word of letters, in its order, each with
    the characters at fault as typed (`chars`: each once, with its `codepoint`, Unicode `name`
    and whether it is a combining `mark`, as the grammar names a refused character); an item
    of several words or none has no `chars`."""
    faults: dict[str, dict[str, Any]] = {}
    for word in words:
        # One word of letters on its own (words_of would split it at spaces, or drop it).
        if word in faults or (len(word.split()) == 1 and len(words_of([word])) == 1):
            continue
        chars: dict[str, dict[str, Any]] = {}
        if len(word.split()) == 1:
            folded, origin = fold(word.strip())
            for i, char in enumerate(folded):
                if not char.isalpha():
                    typed = word.strip()[origin[i]] if origin else char
                    typed = char if is_mark(char) else typed
                    number = codepoint(typed)
                    chars.setdefault(typed, {
                        "char": typed, "codepoint": number, "mark": is_mark(typed),
                        "name": unicodedata.name(typed, number),
                    })  # fmt: skip
        faults[word] = {"word": word, "chars": list(chars.values())}
    return list(faults.values())


def _english_fault(fault: dict[str, Any]) -> str:
    """A bad word and what is wrong with it, in English: 'ที่' (U+0E35 THAI CHARACTER SARA II)."""
    chars = fault["chars"]
    said = ", ".join(f"{c['codepoint']} {c['name']}" for c in chars) or "not one word"
    return f"{fault['word']!r} ({said})"


def check_word_count(distinct: list[str], most: int | None = None) -> list[str]:
    """The distinct words of a list if there are at least FEWEST_WORDS and at most `most`."""
    if len(distinct) < FEWEST_WORDS:
        raise PuzzleError(ErrorCode.TOO_FEW_WORDS, field="words", low=FEWEST_WORDS)
    if most is not None and len(distinct) > most:
        raise PuzzleError(ErrorCode.TOO_MANY_WORDS, field="words", cap=most)
    return distinct


def check_counts(addends: object, solutions: object) -> tuple[int, int]:
    """The addends per sum and the solutions wanted, if whole numbers within ADDENDS and
    SOLUTIONS (PuzzleError naming the option otherwise)."""
    checked_addends = _count(addends, ADDENDS)
    if checked_addends is None:
        low, high = ADDENDS
        raise PuzzleError(
            ErrorCode.ADDENDS_OUT_OF_RANGE,
            field="options.addends",
            value=addends,
            low=low,
            high=high,
        )
    checked_solutions = _count(solutions, SOLUTIONS)
    if checked_solutions is None:
        low, high = SOLUTIONS
        raise PuzzleError(
            ErrorCode.SOLUTIONS_OUT_OF_RANGE,
            field="options.solutions",
            value=solutions,
            low=low,
            high=high,
        )
    return checked_addends, checked_solutions


def check_reach(
    count: int,
    addends: int,
    seconds: float,
    distinct: bool = False,
    words: list[str] | None = None,
    base: int = 10,
) -> int:
    """The sets of addends a run over `count` words goes through (`distinct`: no word twice),
    if it can walk them within `seconds` at SETS_PER_SECOND (PuzzleError naming
    "options.addends" otherwise). Sets of distinct `words` (given) that are too many are
    weighed by what their walk looks at in the base (addends.walk_bound) instead: most of
    them are passed over whole."""
    sets = set_count(count, addends, distinct)
    most = int(seconds * SETS_PER_SECOND)
    if sets > most and distinct and words is not None:
        letters: dict[str, int] = {}
        masks = [sum(1 << letters.setdefault(x, len(letters)) for x in set(w)) for w in words]
        walked = walk_bound(masks, addends, base)
        if walked <= most:
            return walked
    if sets > most:
        raise PuzzleError(
            ErrorCode.SETS_OUT_OF_REACH,
            field="options.addends",
            sets=sets,
            addends=addends,
            words=count,
            cap=most,
        )
    return sets


def _count(value: object, bounds: tuple[int, int]) -> int | None:
    """The value if it is an int (not a bool) within bounds, else None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    low, high = bounds
    return value if low <= value <= high else None


def _digits(value: int, base: int) -> int:
    """How many digits a positive number has in the base."""
    count = 1
    while value >= base:
        value //= base
        count += 1
    return count


def _shortest(policy: LeadingZeros) -> int:
    """The length from which a word may not start with 0 under the policy (0: none)."""
    return {LeadingZeros.ALLOW: 0, LeadingZeros.MULTI_LETTER: 2}.get(policy, 1)


def _length_range(lengths: list[int], base: int, policy: LeadingZeros) -> tuple[int, int]:
    """The fewest and most digits a sum of addends of these lengths can have."""
    shortest = _shortest(policy)
    # A word whose first digit may not be 0 is at least base ** (length - 1).
    least = sum(base ** (n - 1) for n in lengths if shortest and n >= shortest)
    low = 1
    while base**low - 1 < least:
        low += 1
    return low, _digits(sum(base**n - 1 for n in lengths), base)


def _span(word: str, policy: LeadingZeros) -> int:
    """The fewest digits the word's value has: its length, unless it may start with 0 (then
    its first letter's leading run may be 0s: distinct letters, so only that one letter)."""
    if policy is not LeadingZeros.ALLOW:
        return len(word)  # a word of one letter may be 0, but it has one digit anyway
    run = len(word) - len(word.lstrip(word[0]))
    return max(1, len(word) - run)


@dataclass
class _Bucket:
    """The words of one span (the fewest digits their value has) by letter set: mask -> their
    positions in the sorted list."""

    size: int = 0
    most: int = 0  # the most letters a word of the bucket has
    sets: dict[int, list[int]] = field(default_factory=dict)

    def add(self, mask: int, position: int) -> None:
        """Add the word at this position, with its letter set."""
        self.sets.setdefault(mask, []).append(position)
        self.size += 1
        self.most = max(self.most, mask.bit_count())


def _skip(tally: Tally, why: str, count: int) -> None:
    """Count candidates left out without a search, by their reason."""
    if count:
        tally.skipped[why] = tally.skipped.get(why, 0) + count


def _fitting(bucket: _Bucket, letters: int, base: int, tally: Tally) -> tuple[Sets, int]:
    """The bucket's letter sets that the base has digits for with these letters, and how many
    words they hold (the others counted as skipped)."""
    if letters.bit_count() + bucket.most <= base:
        return bucket.sets.values(), bucket.size  # the whole bucket at once
    kept = [p for mask, p in bucket.sets.items() if (letters | mask).bit_count() <= base]
    size = sum(map(len, kept))
    _skip(tally, "letters", bucket.size - size)
    return kept, size


class _Words:
    """The word list as the pruning reads it, in its given order: folded words, letter sets,
    buckets."""

    def __init__(self, words: list[str], policy: LeadingZeros) -> None:
        """Fold the words as a puzzle's text is, and bucket them by the fewest digits their
        value can have under the policy."""
        self.ordered = list(words)
        self.folded = [fold_case(fold(word)[0]) for word in self.ordered]
        bits: dict[str, int] = {}
        self.masks = [sum(1 << bits.setdefault(x, len(bits)) for x in set(w)) for w in self.folded]
        self.spans = [_span(word, policy) for word in self.folded]
        self.where: dict[str, list[int]] = {}  # a word's positions (more than one: repeated)
        self.buckets: dict[int, _Bucket] = {}
        for position, word in enumerate(self.ordered):
            self.where.setdefault(word, []).append(position)
            span = self.spans[position]
            self.buckets.setdefault(span, _Bucket()).add(self.masks[position], position)

    def results(
        self, terms: tuple[int, ...], base: int, policy: LeadingZeros, tally: Tally
    ) -> list[int]:
        """The positions of the results worth a search for these addends, in order; the
        others are counted into the tally by their reason, a bucket at once where it can."""
        names = {self.ordered[t]: self.spans[t] for t in terms}  # none is a result
        listed = len(self.ordered) - sum(len(self.where[name]) for name in names)
        tally.candidates += listed
        letters = 0
        for t in terms:
            letters |= self.masks[t]
        if letters.bit_count() > base:  # too many letters whatever the result
            _skip(tally, "letters", listed)
            return []
        low, high = _length_range([len(self.folded[t]) for t in terms], base, policy)
        found: list[int] = []
        for span, bucket in self.buckets.items():
            sets, size = _fitting(bucket, letters, base, tally)
            if low <= span <= high:
                found.extend(chain.from_iterable(sets))
            else:  # an addend is never skipped for its letters (they are all the sum's)
                named = sum(len(self.where[name]) for name, at in names.items() if at == span)
                _skip(tally, "lengths", size - named)
        found.sort()
        for name in names:  # the addends' own words were kept with the rest: take them out
            for position in self.where[name]:
                at = bisect_left(found, position)
                if at < len(found) and found[at] == position:
                    del found[at]
        return found

    def results_of_distinct(
        self, terms: tuple[int, ...], base: int, policy: LeadingZeros, tally: Tally
    ) -> list[int]:
        """results() for a set of distinct words whose letters fit (the walk passed over the
        others): each other word is a candidate, left out for its length first (a bucket at
        once), then for its letters."""
        tally.candidates += len(self.ordered) - len(terms)
        letters = 0
        for t in terms:
            letters |= self.masks[t]
        low, high = _length_range([len(self.folded[t]) for t in terms], base, policy)
        found: list[int] = []
        room, inside, left_out = base - letters.bit_count(), 0, 0
        for span, bucket in self.buckets.items():
            if not low <= span <= high:
                continue  # counted below, with the other buckets of the wrong length
            inside += bucket.size
            if bucket.most <= room:
                found.extend(chain.from_iterable(bucket.sets.values()))
            else:
                kept = [
                    p for mask, p in bucket.sets.items() if (letters | mask).bit_count() <= base
                ]
                found.extend(chain.from_iterable(kept))
                left_out += bucket.size - sum(map(len, kept))
        outside = sum(1 for t in terms if not low <= self.spans[t] <= high)  # not candidates
        _skip(tally, "lengths", len(self.ordered) - inside - outside)
        _skip(tally, "letters", left_out)
        own = set(terms)  # an addend is never left out for its letters: it is taken out here
        return sorted(p for p in found if p not in own)


def groups(words: list[str], addends: int = 2, distinct: bool = False) -> int:
    """How many sets of addends a run over the words goes through (`distinct`: sets of
    distinct words)."""
    return set_count(len(words), addends, distinct)


def _searched(
    words: _Words,
    addends: int,
    base: int,
    policy: LeadingZeros,
    tally: Tally,
    start: int,
    end: int | None,
    halt: Callable[[], bool] | None = None,
    distinct: bool = False,
) -> Iterator[tuple[int, tuple[int, ...], list[int]]]:
    """Each set of addends from `start` up to `end` with the results worth a search (the
    others counted); `tally.position` moves on once the consumer is done with a set. `halt`
    is asked before each set (True: end here, at that set)."""
    tally.position = start
    if distinct:
        yield from _searched_distinct(words, addends, base, policy, tally, start, end, halt)
        return
    for group, terms in enumerate(sets(len(words.ordered), addends, start, end), start):
        if halt is not None and halt():
            return
        yield group, terms, words.results(terms, base, policy, tally)
        tally.position = group + 1


def _searched_distinct(
    words: _Words,
    addends: int,
    base: int,
    policy: LeadingZeros,
    tally: Tally,
    start: int,
    end: int | None,
    halt: Callable[[], bool] | None,
) -> Iterator[tuple[int, tuple[int, ...], list[int]]]:
    """_searched for sets of distinct words: those whose letters do not fit the base are
    counted (every result of each skipped for its letters) without being walked one by one;
    the list's words are taken as distinct (words_of and check_words give such lists)."""
    n = len(words.ordered)
    last = comb(n, addends)
    stop = last if end is None else min(end, last)
    each = n - addends  # the results of a set: every word but its own

    def passed(upto: int) -> None:
        """Count the sets from the position up to `upto` as skipped whole, for letters."""
        if upto > tally.position:
            tally.candidates += (upto - tally.position) * each
            _skip(tally, "letters", (upto - tally.position) * each)
            tally.position = upto

    walk = DistinctWalk(words.masks, addends, base, (start, stop), halt)
    for group, terms in walk.sets():
        passed(group)
        if not terms or (halt is not None and halt()):
            return
        yield group, terms, words.results_of_distinct(terms, base, policy, tally)
        tally.position = group + 1
    passed(stop)


def _text(words: _Words, terms: tuple[int, ...], result: int) -> str:
    """The candidate's puzzle text."""
    return f"{' + '.join(words.ordered[t] for t in terms)} = {words.ordered[result]}"


def candidates(
    words: list[str],
    addends: int = 2,
    base: int = 10,
    leading_zeros: LeadingZeros = LeadingZeros.MULTI_LETTER,
    tally: Tally | None = None,
    start: int = 0,
    end: int | None = None,
    distinct_words: bool = False,
) -> Iterator[tuple[int, str]]:
    """Each candidate worth a search with the index of its set of addends, in a fixed order,
    for the sets from `start` up to `end` (pruned ones counted; `tally.position` follows)."""
    tally = tally if tally is not None else Tally()
    policy = LeadingZeros(leading_zeros)  # the rules compare members: a str value works too
    listed = _Words(words, policy)
    walk = _searched(listed, addends, base, policy, tally, start, end, None, distinct_words)
    for group, terms, results in walk:
        for result in results:
            yield group, _text(listed, terms, result)


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
    distinct_words: bool = False,
    patterns: int = MEMO_SIZE,
) -> Iterator[Composed]:
    """Yield every candidate with exactly `solutions` solutions among the sets of addends from
    `start` up to `end`, searching each only until one more would be found; `stop` is asked
    between candidates, and at least every ASK_INTERVAL while sets are walked with none (True:
    end here, `tally.position` saying where to go on). `distinct_words`: no word twice in a
    sum (the addends distinct sets of words, in the same order; groups(..., distinct=True)
    counts them). The columns count one candidate a letter pattern (patterns.py), at
    most `patterns` of them remembered at once (0: each candidate counted)."""
    run = _Run(words, addends, base, LeadingZeros(leading_zeros), solutions, patterns, tally)
    for found in run.found(stop, start, end, distinct_words, listing=True):
        if isinstance(found, Composed):
            yield found


def count(
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
    distinct_words: bool = False,
    patterns: int = MEMO_SIZE,
) -> int:
    """How many candidates compose() would yield (the same arguments), none of them written
    out as a puzzle: a candidate the columns count exactly is counted as it is. A stopped
    count is the tally's: `tally.results` counts each result once it is found, `tally.position`
    says where to go on (the results of the sets before it are the ones to keep)."""
    found = counted(
        words, addends=addends, base=base, leading_zeros=leading_zeros, solutions=solutions,
        tally=tally, stop=stop, start=start, end=end, distinct_words=distinct_words,
        patterns=patterns,
    )  # fmt: skip
    return sum(1 for _ in found)


def counted(
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
    distinct_words: bool = False,
    patterns: int = MEMO_SIZE,
) -> Iterator[int]:
    """count()'s results one by one: the index of each one's set of addends (a stopped
    count keeps those below `tally.position`: the sets from there on are done again)."""
    run = _Run(words, addends, base, LeadingZeros(leading_zeros), solutions, patterns, tally)
    for found in run.found(stop, start, end, distinct_words, listing=False):
        yield found if isinstance(found, int) else found.group


class _Run:
    """One composition's words, rules and counters (compose() and count())."""

    def __init__(
        self,
        words: list[str],
        addends: int,
        base: int,
        policy: LeadingZeros,
        solutions: int,
        patterns: int,
        tally: Tally | None,
    ) -> None:
        """Read the words under the rules."""
        self.addends, self.base, self.policy, self.solutions = addends, base, policy, solutions
        self.tally = tally if tally is not None else Tally()
        self.listed = _Words(words, policy)
        self.counted = _Counted(base, _shortest(policy), solutions + 1, Memo(patterns), self.tally)

    def found(
        self,
        stop: Callable[[], bool] | None,
        start: int,
        end: int | None,
        distinct: bool,
        listing: bool,
    ) -> Iterator[Composed | int]:
        """Each result in order: a Composed, or the index of its set of addends when not
        `listing` and the columns counted it exactly (only the search engine's are built
        then)."""
        listed, base, policy, solutions, tally = (
            self.listed, self.base, self.policy, self.solutions, self.tally
        )  # fmt: skip
        folded, masks = listed.folded, listed.masks
        heavy = _heavy_from(base)
        ask, due = _asking(stop)
        walk = _searched(listed, self.addends, base, policy, tally, start, end, due, distinct)
        for group, terms, results in walk:
            sums = tuple(folded[t] for t in terms)
            short = max(map(len, sums)) <= LONGEST
            letters = 0
            for t in terms:
                letters |= masks[t]
            for result in results:
                if ask():
                    return
                tally.searched += 1
                # The columns count in microseconds; only a result builds its puzzle.
                digits: dict[str, int] | None = {} if solutions == 1 and listing else None
                many = (letters | masks[result]).bit_count()  # the candidate's letters
                if not short or len(folded[result]) > LONGEST or heavy <= many <= base:
                    digits = None  # the search engine decides alone, asking the hook
                elif self.counted(sums, folded[result], digits) != solutions:
                    continue
                elif not listing:
                    tally.results += 1
                    yield group
                    continue
                puzzle = parse(_text(listed, terms, result), base=base, leading_zeros=policy)
                if digits is not None:
                    found: tuple[dict[str, int], ...] = ({x: digits[x] for x in puzzle.letters},)
                else:
                    searched = _searched_for(puzzle, solutions, ask)
                    if searched is None:
                        return  # stopped inside the search: this set is done again on resume
                    found = searched
                if len(found) == solutions:
                    tally.results += 1
                    yield Composed(puzzle, found, group)


# Candidates the memo is tried on at the start of every PERIOD (see _Counted).
PROBE = 1024
PERIOD = 32768
# A count this many times a key's time keeps the memo on whatever the probe's hits.
RATIO = 10


class _Counted:
    """The column count of a candidate's solutions (up to a bound), one count a letter
    pattern: a pattern counted before gives its answer again, its one solution renamed.

    A key is not free (in Python it costs about what a native count of a small sum does; the
    native core's pattern_key about a tenth of that) and is wasted where patterns do not
    repeat (Cryptator's colours), so the memo is kept on only where it saves time: the first
    PROBE candidates of every PERIOD are keyed and timed, and the rest of the period is keyed
    if the counts the memo spared took longer than the keys, or if a count takes RATIO keys'
    time (the answers are the same either way: only the time differs)."""

    def __init__(self, base: int, shortest: int, most: int, memo: Memo, tally: Tally) -> None:
        """Count in the base, under the leading zeros rule, up to `most` solutions."""
        self.base, self.shortest, self.most = base, shortest, most
        self.count, self.memo, self.tally = counter(), memo, tally
        self.key = keyer()
        self.asked = 0
        self.keying = bool(memo.size)
        self.spent = [0.0, 0.0, 0.0, 0.0]  # the probe's: keys' time, counts' time, counts, hits

    def __call__(self, sums: tuple[str, ...], result: str, digits: dict[str, int] | None) -> int:
        """The candidate's solutions, up to the bound; its one solution into `digits` (if
        given) when it has exactly one."""
        if not self.memo.size:
            return self.count(self.base, sums, result, self.shortest, self.most, digits)
        phase = self.asked % PERIOD
        self.asked += 1
        if phase < PROBE:
            return self._keyed(sums, result, digits, self.spent)
        if phase == PROBE:
            keys, counts, counted, hits = self.spent
            # Keep keying if the counts spared (hits at the mean count's time) beat the keys,
            # or if a count takes so much longer than a key (the pure-Python count) that a
            # few hits pay: a memo kept off fills no more, so its probe sees few hits.
            mean = counts / counted if counted else 0.0
            self.keying = hits * mean > keys or mean > RATIO * keys / PROBE
            self.spent = [0.0, 0.0, 0.0, 0.0]
        if not self.keying:
            return self.count(self.base, sums, result, self.shortest, self.most, digits)
        return self._keyed(sums, result, digits, None)

    def _keyed(
        self,
        sums: tuple[str, ...],
        result: str,
        digits: dict[str, int] | None,
        spent: list[float] | None,
    ) -> int:
        """Count by the candidate's pattern (timed into `spent` if given)."""
        began = perf_counter() if spent is not None else 0.0
        keyed_sum = self.key(sums, result)
        if keyed_sum is None:  # too many letters for a key: counted as it is
            return self.count(self.base, sums, result, self.shortest, self.most, digits)
        key, letters = keyed_sum
        kept = self.memo.get(key)
        keyed = perf_counter() if spent is not None else 0.0
        if kept is not None:
            self.tally.remembered += 1
            found, solution = kept
            if digits is not None and solution:
                digits.update(zip(letters, solution, strict=True))
            if spent is not None:
                spent[0] += keyed - began
                spent[3] += 1
            return found
        found = self.count(self.base, sums, result, self.shortest, self.most, digits)
        if spent is not None:
            spent[0] += keyed - began
            spent[1] += perf_counter() - keyed
            spent[2] += 1
        one = tuple(digits[x] for x in letters) if digits is not None and found == 1 else ()
        self.memo.put(key, (found, one))
        return found


def _asking(stop: Callable[[], bool] | None) -> tuple[Callable[[], bool], Callable[[], bool]]:
    """(ask, due): ask the stop hook now; ask it only if ASK_INTERVAL has passed since it was
    last asked (the walk over pruned sets, which may go minutes between candidates)."""
    if stop is None:
        return (lambda: False), (lambda: False)
    hook = stop
    asked = [monotonic()]

    def ask() -> bool:
        """Ask the hook, noting when."""
        asked[0] = monotonic()
        return hook()

    def due() -> bool:
        """Ask the hook if it has not been asked for ASK_INTERVAL."""
        return monotonic() - asked[0] >= ASK_INTERVAL and ask()

    return ask, due


def _heavy_from(base: int) -> int:
    """The fewest letters (at most the base) that have more ways to take distinct digits in
    the base than HEAVY (base + 1: none); ways grow with letters up to the base."""
    return next((n for n in range(base + 1) if perm(base, n) > HEAVY), base + 1)


def _searched_for(
    puzzle: Puzzle, wanted: int, ask: Callable[[], bool]
) -> tuple[dict[str, int], ...] | None:
    """Up to one more than wanted of a result's solutions from the search engine (its order, as
    solve() hands them), asking the stop hook as it goes (None: the hook said stop)."""
    search = Search(puzzle, check=lambda _: ask(), check_interval=ASK_INTERVAL)
    found = tuple(as_dict(puzzle, s) for s in islice(search.solutions(), wanted + 1))
    return None if search.stopped else found


def by_difficulty(score: int | None, text: str, hardest: bool = False) -> tuple[int, int, str]:
    """A result's place when results are listed by difficulty: rated ones first, by score
    (lowest first, or highest when `hardest`), then by puzzle text; unrated ones (K > 1
    solutions) after them by text."""
    if score is None:
        return (1, 0, text)
    return (0, -score if hardest else score, text)
