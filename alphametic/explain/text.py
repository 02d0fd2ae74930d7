"""Explanation steps as message keys with parameters, and their English sentences.

A step keeps its message as a template key and parameters so that other languages can render
it from their own table. Placeholders are str.format fields; a field may carry one of these
format specs, which every language's table uses the same way:
  {x:or}     a list joined as "2, 3 or 4" (digits, letters or carries)
  {x:and}    a list joined as "S and M"
  {x:facts}  a list of [name, [values]] pairs: "O = 0, S is 8 or 9 and c3 is 0 or 1"
  {x:col}    a column number (1 = rightmost): "the units column", ... in base 10
  {x:label}  a difficulty label (easy, medium, hard, fiendish) in words
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ENGLISH", "Step", "render"]

# The 'longer result' step, which then says why (or whether) its letter is not 0.
_EXTRA = (
    "{word} is longer than every word added, so its first letter {letter} is just the carry "
    "out of the column to its right, and that carry is at most {high}"
)
# Why a puzzle of quotients or powers is a puzzle of products.
_TURNED = "A division that comes out exact is a product turned around, "
_POWERS = "a power is a number multiplied by itself, "
# The product steps' openings: why last digits, sizes or remainders of a product are known.
_UNITS = "The units digit of a product is fixed by the units digits of its factors, so "
_ENDING = (
    "The last {width} digits of a product are fixed by the last {width} digits of its factors, so "
)
_SIZES = (
    "Compare the sizes of both sides of {equation}: each word lies between the smallest and "
    "the largest number its letters can still make, "
)
_CAST = (
    "Cast out {modulus}s: every power of {base} leaves 1 after dividing by {modulus}, so a "
    "number leaves the same remainder as the sum of its digits, and remainders multiply: "
)
# The same for sides that add products up.
_MIXED_UNITS = (
    "The units digit of sums and products is fixed by the units digits of the numbers in them, so "
)
_MIXED_ENDING = (
    "The last {width} digits of sums and products are fixed by the last {width} digits of "
    "the numbers in them, so "
)
_MIXED_CAST = (
    "Cast out {modulus}s: every power of {base} leaves 1 after dividing by {modulus}, so a "
    "number leaves the same remainder as the sum of its digits, and remainders add and "
    "multiply: "
)

#: The English sentence of every step key (a translation supplies the same keys).
ENGLISH: dict[str, str] = {
    "given": "You are told that {facts:facts}.",
    "leading": "{letters:and} start words, so none of them is 0.",
    "leading_one": "{letters:and} starts a word, so it is not 0.",
    "columns": "Write the sum column by column; c1 is the carry out of {first:col}, "
    "c2 the carry out of the next, and so on. No carry can be more than {high} "
    "or less than {low}.",
    "columns_plain": "Write the sum column by column; c1 is the carry out of {first:col}, "
    "c2 the carry out of the next, and so on. With {terms} words added, no carry can be "
    "more than {high}.",
    "columns_no_carry": "Write the sum column by column; c1 is the carry out of {first:col}, "
    "c2 the carry out of the next, and so on. Here no column can carry anything.",
    "extra_column": _EXTRA + ". {letter} cannot be 0, so {facts:facts}.",
    "extra_column_plain": _EXTRA + ", so {facts:facts}.",
    "extra_column_not_zero": _EXTRA + ". {letter} is already known not to be 0, so {facts:facts}.",
    "column": "In {column:col}, {equation}. That works only if {facts:facts}.",
    "column_reduced": "In {column:col}, {equation}; with {known:and} that is "
    "{reduced}. That works only if {facts:facts}.",
    "column_gives": "In {column:col}, {equation}; with {known:and} that is {reduced}.",
    "column_fails": "In {column:col}, {equation}, and no digits left can make that work.",
    "column_reduced_fails": "In {column:col}, {equation}; with {known:and} that "
    "is {reduced}, and no digits left can make that work.",
    "pair_differs": "So {high} is always {low} + {difference}.",
    "pair_narrows": "As {high} = {low} + {difference}, {facts:facts}.",
    "last_digit": "Every other digit {letter} could be is taken, so {letter} = {digit}.",
    "no_digit": "Every digit {letter} could be is taken already: a dead end.",
    "hidden_single": "Every digit is used exactly once, and only {letter} can still be "
    "{digit}, so {letter} = {digit}.",
    "digit_unused": "Every digit must be used, but no letter can be {digit} any more: a dead end.",
    "subset": "{letters:and} can only be {digits:or}, so between them they take "
    "{digits:and}, and {facts:facts}.",
    "subset_fails": "{letters:and} must all be different but can only be {digits:or}: a dead end.",
    "mod": "Look at remainders after dividing by {modulus}: every power of {base} leaves "
    "{power}, so {equation} (mod {modulus}). That works only if {facts:facts}.",
    "mod_all": "Look at remainders after dividing by {modulus}: every power of {base} leaves "
    "{power}, and the {count} letters use every digit once, adding up to {total}, so "
    "{equation} (mod {modulus}). That works only if {facts:facts}.",
    "mod_fails": "Look at remainders after dividing by {modulus}: every power of {base} "
    "leaves {power}, so {equation} (mod {modulus}), which no digits left can satisfy.",
    "mod_all_fails": "Look at remainders after dividing by {modulus}: every power of {base} "
    "leaves {power}, and the {count} letters use every digit once, adding up to {total}, so "
    "{equation} (mod {modulus}), which is impossible.",
    "parity": "Look at even and odd: only the units column decides whether the sum is even, "
    "so {equation} (mod 2). That works only if {facts:facts}.",
    "parity_all": "Look at even and odd: only the units column decides whether the sum is even, "
    "and the {count} letters use every digit once, adding up to {total}, so {equation} "
    "(mod 2). That works only if {facts:facts}.",
    "parity_fails": "Look at even and odd: only the units column decides whether the sum is "
    "even, so {equation} (mod 2), which no digits left can satisfy.",
    "parity_all_fails": "Look at even and odd: only the units column decides whether the sum "
    "is even, and the {count} letters use every digit once, adding up to {total}, so "
    "{equation} (mod 2), which is impossible.",
    "stall": "Deduction alone goes no further here, so try each possibility for {letter} in "
    "turn: {digits:or}.",
    "case_fails": "So {letter} = {digit} is impossible.",
    "case_solved": "Every letter is now known: {facts:facts}.",
    "case_open": "From here the search does the rest ({count} letters still open).",
    "case_open_one": "From here the search does the rest (one letter still open).",
    "case_only": "Every other case fails, so {letter} = {digit}.",
    "case_narrowed": "{letter} = {failed:or} fail, so {letter} can only be {digits:or}.",
    "products_turned": _TURNED + "so the puzzle says {equation}.",
    "products_powers": "A" + _POWERS[1:] + "so the puzzle says {equation}.",
    "products_both": _TURNED + "and " + _POWERS + "so the puzzle says {equation}.",
    "product_units": _UNITS + "{equation} (mod {modulus}). That works only if {facts:facts}.",
    "product_units_fails": _UNITS + "{equation} (mod {modulus}), which no digits left can satisfy.",
    "product_ending": _ENDING + "{equation} (mod {modulus}). That works only if {facts:facts}.",
    "product_ending_fails": _ENDING + "{equation} (mod {modulus}), which no digits left can "
    "satisfy.",
    "product_sizes": _SIZES + "so the two sides can only be equal if {facts:facts}.",
    "product_sizes_fails": _SIZES + "and they keep the two sides apart: a dead end.",
    "mixed_units": _MIXED_UNITS + "{equation} (mod {modulus}). That works only if {facts:facts}.",
    "mixed_units_fails": _MIXED_UNITS + "{equation} (mod {modulus}), which no digits left can "
    "satisfy.",
    "mixed_ending": _MIXED_ENDING + "{equation} (mod {modulus}). That works only if {facts:facts}.",
    "mixed_ending_fails": _MIXED_ENDING + "{equation} (mod {modulus}), which no digits left "
    "can satisfy.",
    "mixed_mod": _MIXED_CAST + "{equation} (mod {modulus}). That works only if {facts:facts}.",
    "mixed_mod_fails": _MIXED_CAST + "{equation} (mod {modulus}), which no digits left can "
    "satisfy.",
    "product_mod": _CAST + "{equation} (mod {modulus}). That works only if {facts:facts}.",
    "product_mod_fails": _CAST + "{equation} (mod {modulus}), which no digits left can satisfy.",
    "product_check_fails": "With every letter known, {equation} reads {numbers}, which is "
    "false: a dead end.",
    "not_a_sum": "This puzzle is not a plain sum of words, so there are no columns to reason "
    "about here; the search tries the {count} letters.",
    "cap": "That is enough cases to follow by hand; the search does the rest.",
    "no_solution": "Every possibility fails, so the puzzle has no solution.",
    "search_stopped": "The search found no solution within {seconds:g} s and stopped there, so "
    "whether there is one is still open.",
    "solution_unique": "The solution, and the only one, is {line}.",
    "solutions": "The puzzle has {count} solutions; the first is {line}.",
    "solutions_many": "The puzzle has at least {count} solutions; the first is {line}.",
    "solution_at_least_one": "The puzzle has at least one solution: {line}.",
    "difficulty": "Difficulty: {label:label} ({score})",
    "rating": "{label:label} ({score})",  # the difficulty under a heading that names it
    # Pieces that the format specs above are built from.
    "part.is": "{name} = {value}",
    "part.one_of": "{name} is {values:or}",
    "part.between": "{name} is between {low} and {high}",
    "part.or": "{head} or {last}",
    "part.and": "{head} and {last}",
    "part.comma": ", ",
    "part.col.1": "the units column",
    "part.col.2": "the tens column",
    "part.col.3": "the hundreds column",
    "part.col.4": "the thousands column",
    "part.col.5": "the ten-thousands column",
    "part.col.6": "the hundred-thousands column",
    "part.col.7": "the millions column",
    "part.col.n": "column {n} from the right",
    "part.label.easy": "easy",
    "part.label.medium": "medium",
    "part.label.hard": "hard",
    "part.label.fiendish": "fiendish",
}


@dataclass
class Step:
    """One deduction: a message key, its parameters and the candidate digits it establishes."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, list[int]] = field(default_factory=dict)
    case: str | None = None
    fail: bool = False

    def text(self, table: Mapping[str, str] = ENGLISH, base: int = 10) -> str:
        """Return the step's sentence from a template table."""
        return render(self.key, self.params, table, base)

    def as_json(self, base: int = 10, table: Mapping[str, str] = ENGLISH) -> dict[str, Any]:
        """Return the step as the API's JSON object, its text rendered from table."""
        out: dict[str, Any] = {
            "key": self.key,
            "params": self.params,
            "text": self.text(table, base),
            "facts": {letter: digits for letter, digits in sorted(self.facts.items())},
        }
        if self.case is not None:
            out["case"] = self.case
        if self.fail:
            out["fail"] = True  # this step found a dead end (inside a case: the case fails)
        return out


def render(key: str, params: Mapping[str, Any], table: Mapping[str, str], base: int = 10) -> str:
    """Return the sentence for key with params, using table (English when a key is missing)."""
    template = table.get(key, ENGLISH[key])
    return _Formatter(table, base).vformat(template, (), params)


class _Formatter(string.Formatter):
    """str.format with the list, facts and column specs described in the module docstring."""

    def __init__(self, table: Mapping[str, str], base: int) -> None:
        self.table = table
        self.base = base

    def part(self, key: str, **params: Any) -> str:
        """Return one piece from the table."""
        return self.vformat(self.table.get(key, ENGLISH[key]), (), params)

    def join(self, items: Sequence[Any], word: str) -> str:
        """Join items as "a, b or c" (word "or") or "a, b and c" (word "and")."""
        texts = [str(item) for item in items]
        if len(texts) <= 1:
            return "".join(texts)
        head = self.part("part.comma").join(texts[:-1])
        return self.part(f"part.{word}", head=head, last=texts[-1])

    def fact(self, name: str, values: Sequence[int]) -> str:
        """Return "E = 5", "E is 5 or 6" or, for a run of four or more, "E is between 2 and 8"."""
        if len(values) == 1:
            return self.part("part.is", name=name, value=values[0])
        if len(values) >= 4 and values[-1] - values[0] == len(values) - 1:
            return self.part("part.between", name=name, low=values[0], high=values[-1])
        return self.part("part.one_of", name=name, values=values)

    def format_field(self, value: Any, format_spec: str) -> str:
        """Apply the explanation specs, else the standard ones."""
        if format_spec in ("or", "and"):
            return self.join(value, format_spec)
        if format_spec == "facts":
            ordered = sorted(value, key=lambda pair: len(pair[1]) > 1)  # decided ones first
            return self.join([self.fact(name, values) for name, values in ordered], "and")
        if format_spec == "label":
            return self.part(f"part.label.{value}")
        if format_spec == "col":
            if self.base == 10 and 1 <= value <= 7:
                return self.part(f"part.col.{value}")
            return self.part("part.col.n", n=value)
        return str(super().format_field(value, format_spec))
