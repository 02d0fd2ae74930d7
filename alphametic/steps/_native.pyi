"""Types of the expression engine's native core (alphametic/steps/_native.c)."""

from collections.abc import Sequence

class Steps:
    """The compiled steps of one Walk: native.py's int64 program."""

    def __init__(self, *, program: Sequence[int]) -> None: ...
    def run(self, walk: object, depth: int, out: list[tuple[int, ...]] | None, /) -> None:
        """Run the steps from depth on over the Walk's state: solutions appended to out, or
        counted into walk.count when out is None (ticks call walk.tick)."""
