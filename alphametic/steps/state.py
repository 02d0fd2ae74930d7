"""The mutable state one run of the step search shares among its compiled steps.

Each letter's digit (-1 while free), the digits in use (a bit set), and each word's value so
far: every known letter's digit times its weight plus the word's constant digits, so a word's
value mod base^k is right as soon as its last k letters are known, and exact once all are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .schedule import ENUM, LINEAR, Model

__all__ = ["Check", "Run", "State"]

# A compiled step: tries its choices, calling the next step (a continuation) for each one
# with the state set, and leaves the state as it found it.
Run = Callable[[], None]
Check = Callable[[], bool]


class State:
    """One run's search state over a model, with a prefix fixing the first ENUM digits."""

    def __init__(self, model: Model, prefix: Sequence[int] = ()) -> None:
        """Start with the fixed letters set and the prefix's digits as the only choices."""
        self.model = model
        base = self.base = model.base
        self.val = [-1] * len(model.letters)
        self.values = [0] * len(model.words)
        for t, places in enumerate(model.places):
            self.values[t] = sum(c * base**p for p, _, c in places if c > 0)
        self.used = 0
        for s, d in model.fixed.items():
            self.set(s, d)
        self.lo = model.lo[:]
        self.hi = [base - 1] * len(model.letters)
        enums = [step.slot for step in model.steps if step.kind == ENUM]
        if len(prefix) > len(enums):
            raise ValueError(f"prefix has {len(prefix)} digits but the search tries {len(enums)}")
        for s, d in zip(enums, prefix, strict=False):
            self.lo[s], self.hi[s] = (d, d) if self.lo[s] <= d <= self.hi[s] else (1, 0)
        # The letters progress is measured over: those tried, then a LINEAR tail's first ones
        # (its letters are tried in rising digit order too, after every ENUM step).
        tail = [s for step in model.steps if step.kind == LINEAR for s in step.slots[:2]]
        self.enums = enums[len(prefix) :] + tail
        self.order = tuple(model.letters[s] for s in enums)
        self.count = 0
        self.out: list[tuple[int, ...]] = []
        self.tick: Callable[[int], None] = lambda depth: None
        self.budget = 1 << 30

    def set(self, s: int, d: int) -> None:
        """Give letter s digit d (no checks)."""
        self.val[s] = d
        self.used |= 1 << d
        for t, w in self.model.occ[s]:
            self.values[t] += d * w
