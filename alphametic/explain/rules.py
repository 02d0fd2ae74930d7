"""Deduction rules a person uses on an alphametic, each narrowing candidates with a Step."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import combinations
from typing import Any, Protocol

from ..render import digit_char
from .columns import ColumnWork, Fact, equation, reduced
from .factors import Products, Side, side_text
from .model import Column, Model, State, digits_of
from .products import Allowed, ProductWork
from .remainders import remainder_steps
from .text import Step

__all__ = ["Deductions", "ProductReasoner", "Reasoner"]

_MAX_SUBSET = 3  # "these k letters take these k digits" for k = 2..3

Rule = Callable[[State], list[Step]]


class _Work(Protocol):
    """What counts the deductions' work: nodes looked at, the explanation's clock."""

    spent: int


class Deductions:
    """Applies rules to a state, simplest first, one deduction at a time; holds the rules
    about digits alone, which every kind of puzzle shares."""

    def __init__(self, base: int, budget: int, work: _Work) -> None:
        self.base = base
        self.work = work
        self.budget = budget  # nodes of work (see ColumnWork.spent) after which deduction stops
        self.rules: tuple[Rule, ...] = (self.last_digit, self.hidden_single, self.subset)
        self.checks: tuple[Rule, ...] = ()  # cheap rules that still run past the budget

    def run(self, state: State, case: str | None) -> Iterator[Step]:
        """Yield deductions until none applies or one finds a dead end (state is narrowed)."""
        while True:
            steps = self.next_steps(state)
            if not steps:
                return
            for step in steps:
                step.case = case
                yield step
            if steps[0].fail:
                return

    def next_steps(self, state: State) -> list[Step]:
        """Return the steps of the first rule that learns something (none past the budget)."""
        for rule in self.rules if self.work.spent <= self.budget else self.checks:
            steps = rule(state)
            if steps:
                state.eliminate()
                for step in steps:
                    _refresh(step, state)
                return steps
        return []

    def last_digit(self, state: State) -> list[Step]:
        """A letter left with one digit, or none, once the digits of others are taken."""
        for letter, mask in state.dom.items():
            if not mask:
                return [Step("no_digit", {"letter": letter}, fail=True)]
        for letter, mask in state.dom.items():
            if letter not in state.announced and not mask & (mask - 1):
                digit = mask.bit_length() - 1
                return [Step("last_digit", {"letter": letter, "digit": digit}, {letter: [digit]})]
        return []

    def hidden_single(self, state: State) -> list[Step]:
        """When every digit is used, a digit only one letter can take belongs to it."""
        base = self.base
        if len(state.dom) != base:
            return []
        once = twice = 0  # digits some letter can take, and digits two or more can
        for mask in state.dom.values():
            twice |= once & mask
            once |= mask
        unused = ((1 << base) - 1) & ~once
        if unused:
            digit = (unused & -unused).bit_length() - 1
            return [Step("digit_unused", {"digit": digit}, fail=True)]
        single = once & ~twice
        for letter, mask in state.dom.items():
            if mask & single and mask & (mask - 1):
                lone = mask & single
                digit = (lone & -lone).bit_length() - 1
                state.dom[letter] = 1 << digit
                return [
                    Step("hidden_single", {"letter": letter, "digit": digit}, {letter: [digit]})
                ]
        return []

    def subset(self, state: State) -> list[Step]:
        """k letters that can only take k digits between them keep those digits from others."""
        open_letters = [x for x in state.open_letters() if state.dom[x].bit_count() <= _MAX_SUBSET]
        for size in range(2, _MAX_SUBSET + 1):
            for group in combinations(open_letters, size):
                union = 0
                for letter in group:
                    union |= state.dom[letter]
                count = union.bit_count()
                params: dict[str, Any] = {"letters": list(group), "digits": digits_of(union)}
                if count < size:
                    return [Step("subset_fails", params, fail=True)]
                if count > size:
                    continue
                hit = [x for x, m in state.dom.items() if x not in group and m & union]
                if hit:
                    for letter in hit:
                        state.dom[letter] &= ~union
                    return [Step("subset", params, dict.fromkeys(hit, []))]
        return []


class Reasoner(Deductions):
    """The rules of a sum: columns with their carries, differences, remainders."""

    work: ColumnWork

    def __init__(self, model: Model, budget: int) -> None:
        self.model = model
        super().__init__(model.base, budget, ColumnWork(model))
        self.rules = (
            self.last_digit,
            self.hidden_single,
            self.pair,
            self.column,
            self.subset,
            self.modular,
        )

    def pair(self, state: State) -> list[Step]:
        """A known difference X = Y + d carries each letter's candidates over to the other."""
        for (high, low), difference in state.relations.items():
            up = _shift(state.dom[low], difference)
            down = _shift(state.dom[high], -difference)
            new_high, new_low = state.dom[high] & up, state.dom[low] & down
            if new_high == state.dom[high] and new_low == state.dom[low]:
                continue
            narrowed = [x for x, m in ((high, new_high), (low, new_low)) if m != state.dom[x]]
            state.dom[high], state.dom[low] = new_high, new_low
            params: dict[str, Any] = {"high": high, "low": low, "difference": difference}
            params["facts"] = [[x, []] for x in narrowed]
            return [Step("pair_narrows", params, dict.fromkeys(narrowed, []))]
        return []

    def column(self, state: State) -> list[Step]:
        """The simplest column whose sum with carries rules out some digits or carry values."""
        best = None
        for column in self.model.columns:
            result = self.work.narrow(state, column)
            if result is not None and (best is None or result.size < best[1].size):
                best = (column, result)
        if best is None:
            return []
        column, result = best
        before = state.copy()
        changed = self.work.apply(state, column, result)
        step = _column_step(self.model, before, column, changed, result.empty)
        steps = [step]
        if not step.fail:
            pair = self.work.pair(state, column)
            if pair is not None and (pair[0], pair[1]) not in state.relations:
                high, low, difference = pair
                state.relations[high, low] = difference
                params = {"high": high, "low": low, "difference": difference}
                steps.append(Step("pair_differs", params, {high: [], low: []}))
        return steps

    def modular(self, state: State) -> list[Step]:
        """Remainders after dividing by base - 1 (and by 2): casting out nines."""
        for modulus in self.work.moduli:
            steps, tried = remainder_steps(self.model, state, modulus)
            self.work.spent += tried
            if steps:
                return steps
        return []


class ProductReasoner(Deductions):
    """The rules of products (and sums of them): last digits, sizes, digit sums' remainders."""

    work: ProductWork

    def __init__(self, products: Products, budget: int) -> None:
        self.products = products
        super().__init__(products.puzzle.base, budget, ProductWork(products.puzzle.base))
        self.rules = (
            self.last_digit,
            self.check,
            self.hidden_single,
            self.units,
            self.sizes,
            self.subset,
            self.endings,
            self.remainder,
        )
        self.checks = (self.last_digit, self.check)

    def check(self, state: State) -> list[Step]:
        """A relation whose letters are all known either holds or is a dead end."""
        for relation in self.products.relations:
            values = {x: state.value(x) for x in relation.letters}
            known = {x: v for x, v in values.items() if v is not None}
            if len(known) < len(values):
                continue
            left = _product(relation.left, known, self.base)
            right = _product(relation.right, known, self.base)
            if left[0] != right[0]:
                numbers = f"{left[1]} = {right[1]}"
                params = {"equation": relation.text(), "numbers": numbers}
                return [Step("product_check_fails", params, fail=True)]
        return []

    def units(self, state: State) -> list[Step]:
        """The units digit of sums and products is fixed by their numbers' units digits."""
        return self._ending(state, range(1, 2))

    def endings(self, state: State) -> list[Step]:
        """The last few digits of sums and products are fixed by their numbers' last digits."""
        longest = max(
            (len(f) for r in self.products.relations for _, fs in r.left + r.right for f in fs),
            default=1,
        )
        return self._ending(state, range(2, longest + 1))

    def _ending(self, state: State, widths: range) -> list[Step]:
        """Narrow by the first ending (narrowest first) that rules something out."""
        for width in widths:
            for relation in self.products.relations:
                allowed = self.work.ending(relation, width, state.dom)
                kind = "mixed" if relation.mixed else "product"
                key = f"{kind}_units" if width == 1 else f"{kind}_ending"
                steps = self._narrow(state, allowed, key, {"width": width})
                if steps:
                    return steps
        return []

    def sizes(self, state: State) -> list[Step]:
        """The two sides must be able to meet: bounds from the words' sizes."""
        for relation in self.products.relations:
            masks = self.work.sizes(relation, state.dom)
            allowed = Allowed(masks, relation.text(), 0)
            steps = self._narrow(state, allowed, "product_sizes", {})
            if steps:
                return steps
        return []

    def remainder(self, state: State) -> list[Step]:
        """Casting out (base - 1)s: digit sums, added and multiplied, leave the same remainder."""
        if self.base < 3:
            return []
        for relation in self.products.relations:
            allowed = self.work.remainder(relation, state.dom)
            key = "mixed_mod" if relation.mixed else "product_mod"
            steps = self._narrow(state, allowed, key, {"base": self.base})
            if steps:
                return steps
        return []

    def _narrow(
        self, state: State, allowed: Allowed | None, key: str, extra: dict[str, Any]
    ) -> list[Step]:
        """Apply what an argument allows; return its step (a dead end, or letters narrowed)."""
        if allowed is None:
            return []
        params: dict[str, Any] = {**extra, "equation": allowed.equation}
        if allowed.modulus:
            params["modulus"] = allowed.modulus
        if allowed.masks is None or not all(allowed.masks.values()):
            return [Step(f"{key}_fails", params, fail=True)]
        narrowed = [x for x, m in allowed.masks.items() if m != state.dom[x]]
        if not narrowed:
            return []
        for letter in narrowed:
            state.dom[letter] = allowed.masks[letter]
        return [Step(key, params, dict.fromkeys(narrowed, []))]


def _product(side: Side, known: dict[str, int], base: int) -> tuple[int, str]:
    """Return a side's value with known digits, and its text such as '123 × 45 + 6'."""
    total = 0
    spelled: Side = ()  # the side with each letter written as its digit
    for sign, factors in side:
        product = sign
        for factor in factors:
            value = 0
            for place in factor:
                value = value * base + (known[place] if isinstance(place, str) else place)
            product *= value
        total += product
        digits = tuple(
            tuple(digit_char(known[p]) if isinstance(p, str) else p for p in f) for f in factors
        )
        spelled += ((sign, digits),)
    return total, side_text(spelled)


def _refresh(step: Step, state: State) -> None:
    """Fill in the letters' candidates as they are after the step, and note decided letters."""
    for letter in step.facts:
        step.facts[letter] = digits_of(state.dom[letter])
        if len(step.facts[letter]) == 1:
            state.announced.add(letter)
    if step.key.startswith(("mod", "parity", "subset", "product", "mixed")):
        step.params["facts"] = [[x, digits] for x, digits in sorted(step.facts.items())]
    elif "facts" in step.params:
        step.params["facts"] = [
            [name, digits_of(state.dom[name]) if name in state.dom else values]
            for name, values in step.params["facts"]
        ]


def _column_step(
    model: Model, before: State, column: Column, changed: list[Fact], empty: bool
) -> Step:
    """Return the step that tells what one column showed."""
    params: dict[str, Any] = {
        "column": column.index + 1,
        "equation": equation(model, before, column),
    }
    known, short = reduced(model, before, column)
    if known:
        params.update(known=known, reduced=short)
    facts: dict[str, list[int]] = {name: [] for name, _ in changed if name in before.dom}
    if empty:
        return Step("column_reduced_fails" if known else "column_fails", params, fail=True)
    params["facts"] = changed
    extra = _extra_column(model, before, column)
    if extra is not None:
        return Step(_extra_key(model, before, extra["letter"]), {**extra, "facts": changed}, facts)
    if known and len(changed) == 1 and len(changed[0][1]) == 1:
        name, value = changed[0][0], changed[0][1][0]
        if short in (f"{name} = {value}", f"{value} = {name}"):
            params["reduced"] = f"{name} = {value}"  # the sum itself says it: no "works only if"
            return Step("column_gives", params, facts)
    return Step("column_reduced" if known else "column", params, facts)


def _extra_column(model: Model, before: State, column: Column) -> dict[str, Any] | None:
    """Return the parameters of the 'longer result' step if this column is that case."""
    if not column.last or len(column.terms) != 1 or column.terms[0][1] != -1:
        return None
    carry_in = before.carries[column.index]
    words = [w for sign, w in model.puzzle.right if sign > 0 and len(w) == column.index + 1]
    if not words or min(carry_in) < 0 or any(len(w) > column.index for _, w in model.puzzle.left):
        return None
    return {"word": words[0], "letter": column.terms[0][0], "high": max(carry_in)}


def _extra_key(model: Model, before: State, letter: str) -> str:
    """Return the 'longer result' step's key: whether, and why, it says the letter is not 0."""
    if letter in model.puzzle.nonzero_letters():
        return "extra_column"  # the leading-zero rule, which the opening step stated
    mask = before.dom[letter]
    if mask & 1 or not mask & (mask - 1):
        return "extra_column_plain"  # leading zeros allowed: it may be 0 (or is known already)
    return "extra_column_not_zero"  # allowed, but an earlier step took 0 from the letter


def _shift(mask: int, by: int) -> int:
    """Return the mask of the digits plus by (dropping any below 0)."""
    return mask << by if by >= 0 else mask >> -by
