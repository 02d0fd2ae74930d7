"""Types of the native core (alphametic/_native.c): a resumable search over one plan."""

from collections.abc import Sequence

from .bounds import _Signs

class Core:
    """A depth-first search over one plan, run a budget of nodes at a time."""

    def __init__(
        self,
        *,
        base: int,
        last: int,
        top: int,
        s: int,
        used: int,
        coef: Sequence[int],
        dlo: Sequence[int],
        dhi: Sequence[int],
        step: Sequence[int],
        g: Sequence[int],
        inv: Sequence[int],
        signs: list[_Signs | None],
        fixed: Sequence[int],
        slots: Sequence[int] | None,
        start: int,
        with0: Sequence[int],
        free0: Sequence[int],
        path: list[int],
    ) -> None: ...
    def count(self, budget: int, turns: int = 0, /) -> tuple[int, int, int, bool]:
        """Count on for a budget of nodes (and at most `turns` loop turns; 0: no limit):
        (solutions, budget left, depth, done)."""
    def solve(
        self, budget: int, want: int, turns: int = 0, /
    ) -> tuple[list[tuple[int, ...]], int, int, bool]:
        """Search on for a budget of nodes or `want` solutions (and at most `turns` loop turns;
        0: no limit): (solutions, left, depth, done)."""

def count_columns(
    base: int,
    addends: tuple[str, ...],
    result: str,
    shortest: int,
    cap: int,
    solution: dict[str, int] | None = None,
    /,
) -> int:
    """The solutions of the sum of the addends = result counted up to cap (0 when its letters
    outnumber the digits); words of `shortest` letters or more (0: none) start with no 0. A
    dict given as solution gets the first solution found (letter -> digit)."""

def pattern_key(addends: tuple[str, ...], result: str, /) -> tuple[bytes, str] | None:
    """The sum's letter pattern as bytes and its letters in the key's order
    (compose.patterns.pattern's twin); None past 64 letters."""
