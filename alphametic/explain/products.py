"""Product arithmetic for explanations: what last digits, sizes and remainders allow."""

from __future__ import annotations

from dataclasses import dataclass

from .factors import Relation, Side, side_text
from .model import digits_of

__all__ = ["Allowed", "ProductWork"]

# Most partial assignments an ending or a remainder argument visits: past it, no step. Small
# enough that one step is what a patient person could follow (about a sum's widest column),
# so a product solved this way gets its case splits, and its difficulty, honestly.
_CAP = 2_000


@dataclass(frozen=True)
class Allowed:
    """What one argument allows: candidates per letter (None: nothing at all) and its sum."""

    masks: dict[str, int] | None
    equation: str
    modulus: int


class ProductWork:
    """Evaluates product arguments against letters' candidates, remembering the results."""

    def __init__(self, base: int) -> None:
        self.base = base
        self.spent = 0  # combinations and places looked at: the explanation's clock
        self._cache: dict[tuple[object, ...], Allowed | None] = {}

    def ending(self, relation: Relation, width: int, dom: dict[str, int]) -> Allowed | None:
        """What the last `width` digits of both products allow (None: too much to look at).

        The last w digits of a product are those of the product of its factors' last w digits.
        """
        tails = [(_tails(relation.left, j), _tails(relation.right, j)) for j in range(width + 1)]
        # Letters from the right, as a person multiplies: each place is checked once filled.
        letters = list(dict.fromkeys(x for left, right in tails for x in _letters(left + right)))
        checks = [
            _Check(len(set(_letters(left + right))), left, right, self.base**j)
            for j, (left, right) in enumerate(tails)
            if j
        ]
        left, right = tails[width]
        equation = f"{side_text(left)} ≡ {side_text(right)}"
        return self._support(("end", relation, width), letters, checks, equation, dom)

    def remainder(self, relation: Relation, dom: dict[str, int]) -> Allowed | None:
        """What casting out (base - 1)s allows: a number leaves its digit sum's remainder."""
        # A number and its digit sum leave the same remainder: every power of base leaves 1.
        letters = list(relation.letters)
        checks = [_Check(len(letters), relation.left, relation.right, self.base - 1)]
        equation = f"{_sums_text(relation.left)} ≡ {_sums_text(relation.right)}"
        return self._support(("nines", relation), letters, checks, equation, dom)

    def sizes(self, relation: Relation, dom: dict[str, int]) -> dict[str, int] | None:
        """Return the digits each letter keeps when both products must be able to meet.

        Each factor lies between the smallest and largest number its places can still make
        (letters' other digits ignored), which bounds each product; a letter's digit that
        leaves the two ranges apart is dropped, until none is. None: a dead end.
        """
        masks = {x: dom[x] for x in relation.letters}
        changed = True
        while changed:
            if not _meet(relation, masks, self.base):
                return None
            changed = False
            for letter in relation.letters:
                kept = 0
                for digit in digits_of(masks[letter]):
                    self.spent += len(relation.letters)
                    if _meet(relation, {**masks, letter: 1 << digit}, self.base):
                        kept |= 1 << digit
                if not kept:
                    return None
                changed |= kept != masks[letter]
                masks[letter] = kept
        return masks

    def _support(
        self,
        key: tuple[object, ...],
        letters: list[str],
        checks: list[_Check],
        equation: str,
        dom: dict[str, int],
    ) -> Allowed | None:
        """Return the digits used by some distinct-digit assignment passing every check."""
        masks = tuple(dom[x] for x in letters)
        cached = (*key, masks)
        if cached not in self._cache:
            walk = _Walk(letters, masks, checks, self.base)
            walk.walk(0, 0)
            self.spent += walk.visits
            support = walk.support if walk.found else None
            done = walk.visits <= _CAP or walk.complete()
            allowed = Allowed(support, equation, checks[-1].modulus) if done else None
            self._cache[cached] = allowed
        return self._cache[cached]


@dataclass(frozen=True)
class _Check:
    """Once the first `ready` letters have digits: left ≡ right (mod modulus)."""

    ready: int
    left: Side
    right: Side
    modulus: int


class _Walk:
    """Tries distinct digits for letters in order, checking each modular sum once it can."""

    def __init__(
        self, letters: list[str], masks: tuple[int, ...], checks: list[_Check], base: int
    ) -> None:
        self.letters = letters
        self.digits = [digits_of(mask) for mask in masks]
        self.masks = masks
        self.checks: list[list[_Check]] = [[] for _ in range(len(letters) + 1)]
        for check in checks:
            self.checks[check.ready].append(check)
        self.base = base
        self.path: dict[str, int] = {}
        self.support = dict.fromkeys(letters, 0)
        self.found = False
        self.visits = 0

    def complete(self) -> bool:
        """Return whether every candidate is known to be used (the walk may stop)."""
        return all(self.support[x] == m for x, m in zip(self.letters, self.masks, strict=True))

    def walk(self, i: int, used: int) -> bool:
        """Visit one node; return True to stop (every candidate used, or past the cap)."""
        self.visits += 1
        if self.visits > _CAP:
            return True
        if any(self._product(c.left, c) != self._product(c.right, c) for c in self.checks[i]):
            return False
        if i == len(self.letters):
            self.found = True
            for letter, digit in self.path.items():
                self.support[letter] |= 1 << digit
            return self.complete()
        for digit in self.digits[i]:
            if not used >> digit & 1:
                self.path[self.letters[i]] = digit
                if self.walk(i + 1, used | 1 << digit):
                    return True
        return False

    def _product(self, side: Side, check: _Check) -> int:
        """Return the value of a sum of products mod the check's modulus."""
        total = 0
        for sign, factors in side:
            product = sign
            for factor in factors:
                value = 0
                for place in factor:
                    digit = self.path[place] if isinstance(place, str) else place
                    value = value * self.base + digit
                product = product * value % check.modulus
            total += product
        return total % check.modulus


def _meet(relation: Relation, dom: dict[str, int], base: int) -> bool:
    """Return whether the ranges of the two sides overlap."""
    left_low, left_high = _range(relation.left, dom, base)
    right_low, right_high = _range(relation.right, dom, base)
    return left_low <= right_high and right_low <= left_high


def _range(side: Side, dom: dict[str, int], base: int) -> tuple[int, int]:
    """Return the smallest and largest value a sum of products can still take."""
    low = high = 0
    for sign, factors in side:
        small = large = 1
        for factor in factors:
            least = most = 0
            for place in factor:
                if isinstance(place, str):
                    mask = dom[place] or 1  # (an empty letter is a dead end another rule states)
                    digits = (mask & -mask).bit_length() - 1, mask.bit_length() - 1
                else:
                    digits = place, place
                least, most = least * base + digits[0], most * base + digits[1]
            small, large = small * least, large * most  # every factor is at least 0
        low, high = (low + small, high + large) if sign > 0 else (low - large, high - small)
    return low, high


def _tails(side: Side, width: int) -> Side:
    """Return the side with each factor cut to its last `width` places (all of a shorter one)."""
    return tuple((sign, tuple(f[-width:] if width else () for f in fs)) for sign, fs in side)


def _letters(side: Side) -> list[str]:
    """Return the side's letters, in order, repeats and all."""
    return [p for _, factors in side for f in factors for p in f if isinstance(p, str)]


def _sums_text(side: Side) -> str:
    """Return a side with digit sums for factors, e.g. '(T + W + O) × (T + W + O)'."""
    parts = []
    for sign, factors in side:
        alone = len(factors) == 1 and len(side) == 1
        sums = [" + ".join(str(p) for p in f) for f in factors]
        product = " × ".join(t if alone or " " not in t else f"({t})" for t in sums) or "1"
        parts.append((sign, product))
    text = " ".join(f"{'+' if sign > 0 else '-'} {product}" for sign, product in parts)
    return (text[2:] if text.startswith("+") else f"-{text[2:]}") if text else "0"
