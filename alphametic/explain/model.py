"""The column model behind explanations: letters with candidate digits, carries with bounds."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..language.puzzle import Puzzle

__all__ = ["Column", "Model", "State", "digits_of", "mask_of"]


def digits_of(mask: int) -> list[int]:
    """Return the digits set in a bit mask, smallest first."""
    out = []
    digit = 0
    while mask:
        if mask & 1:
            out.append(digit)
        mask >>= 1
        digit += 1
    return out


def mask_of(digits: list[int] | range) -> int:
    """Return the bit mask of some digits."""
    mask = 0
    for digit in digits:
        mask |= 1 << digit
    return mask


@dataclass(frozen=True)
class Column:
    """One column (0 = units): sum(coef * digit) + carry_in == base * carry_out."""

    index: int
    terms: tuple[tuple[str, int], ...]  # (letter, net coefficient), coefficient never 0
    last: bool  # the leftmost column: its carry out must be 0

    @cached_property
    def letters(self) -> tuple[str, ...]:
        """Return the column's letters."""
        return tuple(letter for letter, _ in self.terms)


@dataclass(frozen=True)
class Model:
    """The puzzle laid out in columns, with its global coefficients."""

    puzzle: Puzzle
    columns: tuple[Column, ...]
    coef: dict[str, int]

    @property
    def base(self) -> int:
        """Return the number base."""
        return self.puzzle.base

    @classmethod
    def of(cls, puzzle: Puzzle) -> Model:
        """Lay the puzzle out in columns."""
        width = max(len(word) for word in puzzle.words)
        per_column: list[dict[str, int]] = [{} for _ in range(width)]
        for side, terms in ((1, puzzle.left), (-1, puzzle.right)):
            for sign, word in terms:
                for index, letter in enumerate(reversed(word)):
                    column = per_column[index]
                    column[letter] = column.get(letter, 0) + side * sign
        columns = tuple(
            Column(k, tuple((x, c) for x, c in col.items() if c), k == width - 1)  # word order
            for k, col in enumerate(per_column)
        )
        return cls(puzzle, columns, puzzle.coefficients())


@dataclass
class State:
    """Candidate digits per letter (bit masks) and possible values per carry."""

    dom: dict[str, int]
    carries: list[tuple[int, ...]]  # carries[k] = values of the carry INTO column k
    announced: set[str] = field(default_factory=set)  # letters whose digit a step has stated
    relations: dict[tuple[str, str], int] = field(default_factory=dict)  # (X, Y): X = Y + d

    @classmethod
    def start(cls, model: Model) -> State:
        """Return the state before any deduction: every digit, carries bounded by the sums."""
        full = (1 << model.base) - 1
        dom = dict.fromkeys(model.puzzle.letters, full)
        carries: list[tuple[int, ...]] = [(0,)]
        top = model.base - 1
        for column in model.columns:
            low = sum(c * (top if c < 0 else 0) for _, c in column.terms) + min(carries[-1])
            high = sum(c * (top if c > 0 else 0) for _, c in column.terms) + max(carries[-1])
            carries.append(tuple(range(-(-low // model.base), high // model.base + 1)))
        carries[-1] = (0,) if 0 in carries[-1] else ()
        return cls(dom, carries)

    @classmethod
    def start_letters(cls, letters: tuple[str, ...], base: int) -> State:
        """Return the state of a puzzle without columns: every digit, no carries."""
        return cls(dict.fromkeys(letters, (1 << base) - 1), [])

    def copy(self) -> State:
        """Return an independent copy."""
        return State(dict(self.dom), list(self.carries), set(self.announced), dict(self.relations))

    def solved(self) -> bool:
        """Return whether every letter has exactly one candidate."""
        return all(mask & (mask - 1) == 0 and mask for mask in self.dom.values())

    def broken(self) -> bool:
        """Return whether some letter or carry has no possible value left."""
        return any(not mask for mask in self.dom.values()) or any(not c for c in self.carries)

    def value(self, letter: str) -> int | None:
        """Return the letter's digit if only one is left."""
        mask = self.dom[letter]
        return mask.bit_length() - 1 if mask and not mask & (mask - 1) else None

    def open_letters(self) -> list[str]:
        """Return the letters with more than one candidate."""
        return [x for x, mask in self.dom.items() if mask & (mask - 1)]

    def values(self, name: str) -> list[int]:
        """Return the possible values of a letter or of a carry named like 'c3'."""
        if name in self.dom:
            return digits_of(self.dom[name])
        return list(self.carries[int(name[1:])])

    def restrict(self, name: str, values: list[int]) -> None:
        """Keep only these values for a letter or a carry."""
        if name in self.dom:
            self.dom[name] &= mask_of(values)
        else:
            index = int(name[1:])
            self.carries[index] = tuple(c for c in self.carries[index] if c in values)

    def candidates(self) -> list[str]:
        """Return the open letters and carries, fewest values first (letters first on a tie)."""
        names = [(x, mask.bit_count(), 0) for x, mask in self.dom.items() if mask & (mask - 1)]
        names += [(f"c{k}", len(c), 1) for k, c in enumerate(self.carries) if len(c) > 1]
        return [item[0] for item in sorted(names, key=lambda item: (item[1], item[2], item[0]))]

    def eliminate(self) -> None:
        """Remove every decided letter's digit from the other letters (silently, repeatedly)."""
        changed = True
        while changed:
            changed = False
            for letter, mask in self.dom.items():
                if mask and not mask & (mask - 1):
                    for other, theirs in self.dom.items():
                        if other != letter and theirs & mask:
                            self.dom[other] = theirs & ~mask
                            changed = True
