"""Hypothesis strategies shared by the engine's tests (random puzzles with options, random
expression text)."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from alphametic import LeadingZeros, Puzzle, parse


@st.composite
def puzzles(draw: st.DrawFn) -> Puzzle:
    """Draw a small random puzzle with options (at most 7 letters, bases 2 to 10)."""
    base = draw(st.sampled_from([2, 3, 4, 6, 8, 10]))
    size = draw(st.integers(1, min(base, 7 if base < 10 else 6)))
    letters = "".join(draw(st.permutations("ABCDEFGHIJ"))[:size])
    word = st.text(letters, min_size=1, max_size=4)
    left = draw(st.lists(st.tuples(st.sampled_from("++-"), word), min_size=1, max_size=4))
    right = draw(st.lists(st.tuples(st.sampled_from("++-"), word), min_size=1, max_size=2))

    def side(terms: list[tuple[str, str]]) -> str:
        return " ".join(f"{sign} {w}" for sign, w in terms).lstrip("+ ")

    text = f"{side(left)} = {side(right)}"
    policy = draw(st.sampled_from(list(LeadingZeros)))
    puzzle = parse(text, base=base, leading_zeros=policy)
    fixed: dict[str, int] = {}
    if draw(st.booleans()):
        letter = draw(st.sampled_from(puzzle.letters))
        digit = draw(st.integers(0, base - 1))
        assume(not (digit == 0 and letter in puzzle.nonzero_letters()))
        fixed[letter] = digit
    return parse(text, base=base, leading_zeros=policy, fixed=fixed)


# Expression text over the letters A-E: words, small numbers, every operator, brackets.
_WORDS = st.text(alphabet="ABCDE", min_size=1, max_size=4)
_ATOMS = st.one_of(_WORDS, _WORDS, st.integers(0, 12).map(str))


def expressions(depth: int) -> st.SearchStrategy[str]:
    """Return a strategy for expression text nested at most depth levels."""
    if depth == 0:
        return _ATOMS
    sub = expressions(depth - 1)
    return st.one_of(
        _ATOMS,
        st.tuples(sub, st.sampled_from(["+", "-", "*", "/"]), sub).map(" ".join),
        st.tuples(_ATOMS, st.sampled_from(["0", "1", "2", "3", "B"])).map(" ^ ".join),
        sub.map(lambda s: f"({s})"),
        sub.map(lambda s: f"-({s})"),
    )
