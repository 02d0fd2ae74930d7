"""Product arithmetic for explanations: what last digits, sizes and remainders allow."""

from __future__ import annotations

from dataclasses import dataclass

from .factors import Factor, Relation, side_text
from .model import digits_of

__all__ = ["Allowed", "ProductWork"]

# Most digit combinations an ending or a remainder argument looks at: past it, no step.
_CAP = 20_000


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
        """What the last `width` digits of both products allow (None: too many to look at).

        The last w digits of a product are those of the product of its factors' last w digits.
        """
        modulus = self.base**width
        left = [_tail(f, width) for f in relation.left]
        right = [_tail(f, width) for f in relation.right]
        equation = f"{side_text(tuple(left))} ≡ {side_text(tuple(right))}"
        return self._support(("end", relation, width), left, right, modulus, equation, dom)

    def remainder(self, relation: Relation, dom: dict[str, int]) -> Allowed | None:
        """What casting out (base - 1)s allows: a number leaves its digit sum's remainder."""
        modulus = self.base - 1
        # A number and its digit sum leave the same remainder: every power of base leaves 1.
        left, right = list(relation.left), list(relation.right)
        equation = f"{_sums_text(relation.left)} ≡ {_sums_text(relation.right)}"
        return self._support(("nines", relation), left, right, modulus, equation, dom)

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
        left: list[Factor],
        right: list[Factor],
        modulus: int,
        equation: str,
        dom: dict[str, int],
    ) -> Allowed | None:
        """Return the digits used by some distinct-digit solution of left ≡ right (mod m)."""
        letters = list(dict.fromkeys(p for f in left + right for p in f if isinstance(p, str)))
        masks = tuple(dom[x] for x in letters)
        cached = (*key, masks)
        if cached in self._cache:
            return self._cache[cached]
        size = 1
        for mask in masks:
            size *= mask.bit_count()
        result = None
        if size <= _CAP:
            support = _walk(letters, masks, left, right, (self.base, modulus))
            self.spent += size
            result = Allowed(support, equation, modulus)
        self._cache[cached] = result
        return result


def _walk(
    letters: list[str],
    masks: tuple[int, ...],
    left: list[Factor],
    right: list[Factor],
    moduli: tuple[int, int],
) -> dict[str, int] | None:
    """Try every distinct-digit assignment of the letters; return each one's digits that work."""
    base, modulus = moduli
    support = [0] * len(letters)
    path: dict[str, int] = {}
    found = False

    def value(factor: Factor) -> int:
        total = 0
        for place in factor:
            total = total * base + (path[place] if isinstance(place, str) else place)
        return total

    def product(factors: list[Factor]) -> int:
        total = 1
        for factor in factors:
            total = total * value(factor) % modulus
        return total

    def walk(i: int, used: int) -> None:
        nonlocal found
        if i == len(letters):
            if product(left) == product(right):
                found = True
                for j, letter in enumerate(letters):
                    support[j] |= 1 << path[letter]
            return
        for digit in digits_of(masks[i]):
            if not used >> digit & 1:
                path[letters[i]] = digit
                walk(i + 1, used | 1 << digit)

    walk(0, 0)
    return dict(zip(letters, support, strict=True)) if found else None


def _meet(relation: Relation, dom: dict[str, int], base: int) -> bool:
    """Return whether the ranges of the two products overlap."""
    left_low, left_high = _range(relation.left, dom, base)
    right_low, right_high = _range(relation.right, dom, base)
    return left_low <= right_high and right_low <= left_high


def _range(factors: tuple[Factor, ...], dom: dict[str, int], base: int) -> tuple[int, int]:
    """Return the smallest and largest value a product of factors can still take."""
    low = high = 1
    for factor in factors:
        small = large = 0
        for place in factor:
            if isinstance(place, str):
                mask = dom[place] or 1  # (an empty letter is a dead end another rule states)
                least, most = (mask & -mask).bit_length() - 1, mask.bit_length() - 1
            else:
                least = most = place
            small, large = small * base + least, large * base + most
        low, high = low * small, high * large
    return low, high


def _tail(factor: Factor, width: int) -> Factor:
    """Return a factor's last `width` places (all of it if it is shorter)."""
    return factor[-width:]


def _sums_text(factors: tuple[Factor, ...]) -> str:
    """Return a product of digit sums as text, e.g. '(T + W + O) × (T + W + O)'."""
    parts = []
    for factor in factors:
        terms = " + ".join(str(p) for p in factor)
        parts.append(f"({terms})" if len(factor) > 1 and len(factors) > 1 else terms)
    return " × ".join(parts) or "1"
