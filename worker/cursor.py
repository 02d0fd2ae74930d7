"""Where a run stands in its job's search, so that a later run can resume there.

A job's search (or a shard's) is cut into pieces: the surviving prefixes of the first letters
of the search order (alphametic.shards), in search order, so running them one after another
gives exactly the solutions of one search, in the same order. A checkpoint is the piece being
searched and how many of its solutions were handed out; a resumed run searches that piece
again, skipping those, then the rest. So an interruption loses at most one piece of search
(about PIECE_NODES nodes, a fraction of a second), whatever the size of the job.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import alphametic

PIECE_NODES = 2e5  # search nodes per piece, about a tenth of a second on this machine
MAX_DEPTH = 5  # letters fixed per piece at most
MAX_PIECES = 20_000


@dataclass(frozen=True)
class Position:
    """A checkpoint: the depth that cut the search into pieces, the piece, solutions handed out."""

    depth: int = 0
    piece: int = 0
    skip: int = 0

    def text(self) -> str:
        """As stored in the job record (`cp`)."""
        return f"{self.depth}:{self.piece}:{self.skip}"

    @classmethod
    def parse(cls, text: str) -> Position | None:
        """From the job record, or None when there is none (the search starts over)."""
        try:
            depth, piece, skip = (int(part) for part in text.split(":"))
        except ValueError:
            return None
        return cls(depth, piece, skip)


def _key(puzzle: alphametic.Puzzle) -> str:
    """What identifies a puzzle for the caches below (its text and options)."""
    return json.dumps([puzzle.text, puzzle.options()], sort_keys=True)


@functools.lru_cache(maxsize=8)
def _cut(key: str, depth: int, puzzle: alphametic.Puzzle) -> list[tuple[tuple[int, ...], float]]:
    """Every piece of a puzzle at a depth (the shards of one job share it: once per process)."""
    return alphametic.shards(puzzle, depth)


@functools.lru_cache(maxsize=8)
def _size(key: str, puzzle: alphametic.Puzzle) -> float:
    """The estimated search tree of a puzzle (once per process)."""
    return alphametic.estimate(puzzle, probes=4)


def pieces(
    puzzle: alphametic.Puzzle, prefix: tuple[int, ...], depth: int
) -> list[tuple[tuple[int, ...], float]]:
    """The pieces under `prefix` at `depth` letters, in search order, with their shares of it."""
    if depth <= len(prefix):
        return [(prefix, 1.0)]
    every = _cut(_key(puzzle), depth, puzzle)
    found = [(p, w) for p, w in every if p[: len(prefix)] == prefix]
    total = sum(w for _, w in found)
    return [(p, w / total) for p, w in found] if total > 0 else [(prefix, 1.0)]


def depth_for(puzzle: alphametic.Puzzle, prefix: tuple[int, ...], share: float) -> int:
    """How many letters to fix per piece so that a piece is about PIECE_NODES of search."""
    nodes = _size(_key(puzzle), puzzle) * max(share, 1e-12)
    if nodes <= 2 * PIECE_NODES:
        return len(prefix)  # one piece: the whole search is short
    letters = len(puzzle.letters)
    wanted = min(MAX_PIECES, nodes / PIECE_NODES)
    depth = len(prefix)
    while depth < min(MAX_DEPTH, letters - 1) and math.perm(puzzle.base, depth + 1) < 4 * wanted:
        depth += 1
    return max(depth, len(prefix) + 1) if letters > len(prefix) + 1 else len(prefix)


class Cursor:
    """Runs a job's pieces in order from a position, keeping its checkpoint and progress."""

    def __init__(
        self,
        puzzle: alphametic.Puzzle,
        prefix: tuple[int, ...],
        share: float,
        at: Position | None,
        small: bool = False,
    ) -> None:
        # A job the store already found small (its lane) is one piece: no estimate needed.
        if at is not None:
            depth = at.depth
        else:
            depth = len(prefix) if small else depth_for(puzzle, prefix, share)
        self.puzzle = puzzle
        self.pieces = pieces(puzzle, prefix, depth)
        self.depth = depth
        start = at or Position(depth)
        self.piece = min(start.piece, len(self.pieces))
        self.skip = start.skip if self.piece < len(self.pieces) else 0
        self.done = sum(share for _, share in self.pieces[: self.piece])
        self.search: alphametic.Search | None = None
        self.nodes_before = 0  # nodes of the pieces finished by this run
        self.counting = False  # count(): a piece's partial count is not kept, it is redone

    def position(self) -> Position:
        """The checkpoint now: every solution before it was handed out, none after."""
        # The piece's search counts the solutions a resumed run skips too.
        handed = self.search.found if self.search is not None and not self.counting else 0
        return Position(self.depth, self.piece, max(self.skip, handed))

    @property
    def progress(self) -> float:
        """Share of the job's search passed (only rises; 1.0 at the end)."""
        if self.piece >= len(self.pieces):
            return 1.0
        share = self.pieces[self.piece][1]
        inside = float(self.search.progress) if self.search is not None else 0.0
        return min(self.done + share * inside, 1.0 - 2.0**-40)

    @property
    def partial(self) -> int:
        """Solutions counted so far in the piece being counted (not yet yielded by count())."""
        return self.search.found if self.search is not None and self.counting else 0

    @property
    def nodes(self) -> int:
        """Search nodes visited by this run."""
        return self.nodes_before + (int(self.search.nodes) if self.search is not None else 0)

    def solutions(
        self, check: Callable[[alphametic.Search], object], interval: float
    ) -> Iterator[tuple[int, ...]]:
        """Every solution from the position on, in search order (stops when check says so)."""
        while self.piece < len(self.pieces):
            prefix, share = self.pieces[self.piece]
            search = alphametic.Search(
                self.puzzle, check=check, check_interval=interval, prefix=prefix
            )
            self.search = search
            skip = self.skip
            for solution in search.solutions():
                if skip:
                    skip -= 1
                    continue
                yield solution
            if search.stopped:
                return
            self.nodes_before += int(search.nodes)
            self.done += share
            self.piece += 1
            self.skip = 0
            self.search = None

    def count(self, check: Callable[[alphametic.Search], object], interval: float) -> Iterator[int]:
        """The number of solutions of each piece from the position on (stops when told)."""
        self.counting = True
        while self.piece < len(self.pieces):
            prefix, share = self.pieces[self.piece]
            search = alphametic.Search(
                self.puzzle, check=check, check_interval=interval, prefix=prefix
            )
            self.search = search
            counted = search.count()
            if search.stopped:
                return
            yield counted - self.skip
            self.nodes_before += int(search.nodes)
            self.done += share
            self.piece += 1
            self.skip = 0
            self.search = None
