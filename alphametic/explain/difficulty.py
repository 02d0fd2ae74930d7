"""Rate how hard a puzzle is to solve by hand, from the shape of its explanation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["LABELS", "Difficulty", "rate"]

#: The labels, easiest first, with the lowest score of each (calibrated on tests/data).
LABELS: tuple[tuple[str, int], ...] = (("easy", 0), ("medium", 15), ("hard", 45), ("fiendish", 90))


class Shape(Protocol):
    """What the rating reads from an explanation."""

    deductions: int
    branches: int
    depth: int
    open_letters: int
    capped: bool


@dataclass(frozen=True)
class Difficulty:
    """A score (higher is harder) and its label."""

    score: int
    label: str


def rate(shape: Shape) -> Difficulty:
    """Score the explanation: deductions are cheap, cases dearer, letters left to search dearest."""
    score = shape.deductions + 6 * shape.branches + 8 * shape.depth + 10 * shape.open_letters
    label = LABELS[0][0]
    for name, lowest in LABELS:
        if score >= lowest:
            label = name
    return Difficulty(score, label)
