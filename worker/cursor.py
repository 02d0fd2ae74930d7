"""Where a run stands in its job's search, so that a later run can resume there.

A job's search (or a shard's) is cut into pieces: prefixes of the search order's first letters
(alphametic.shards), searched in search order, so running them one after another gives exactly
the solutions of one search, in the same order, however finely each part is cut (the digits of
every letter are tried in rising order, and a piece's children, alphametic.shards under its
prefix, are its search in that order: tests/scale/test_pieces.py checks both engines). So
pieces are cut lazily, by the speed the run measures: before a piece starts, it is split into
its children while its share of the tree times the seconds per share measured so far (at first
guessed from alphametic.estimate, which may be far off either way) is above PIECE_SECONDS.

A checkpoint is the prefix of the piece being searched, how many of its solutions were handed
out, and the measured speed; a resumed run searches that piece again, skipping those, then the
rest: the pieces to its right at every level of its prefix. A run yields its worker only
between pieces (worker/run.py), so a piece longer than a time slice still completes. A piece
that runs past LONG_SECONDS, or that a run must give up to yield, is cut finer on the spot only
when that loses nothing handed out (a count, a solve, or an enumeration piece that handed out
no solution yet); its search so far is redone as its children, so the work lost is at most
LONG_SECONDS per piece cut, and each cut goes one level deeper (at most one cut per letter of
the search order on any path). Otherwise the piece runs to its end. A checkpoint never moves
back.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import alphametic

PIECE_SECONDS = 0.25  # a piece's length aimed at: how long a yield may wait for its boundary
# A piece still running after this long is cut finer on the spot when that loses nothing.
LONG_SECONDS = 1.0
# Pieces cut at most this many times before one is searched: a speed guessed far too slow (an
# estimate off by orders of magnitude) would otherwise cut for minutes, through millions of
# pieces that die at once, with no look at the cancel flag or the clock in between. An uncut
# piece is searched as it is (the search prunes what the cut would) and measured.
MAX_CUTS = 64
NODES_PER_SECOND = 2e6  # the first guess of the search speed, before the run measures its own
SMALLEST_PROGRESS = 1e-3  # a long piece that shows less progress is taken as this far through
End = None  # the prefix of a position past the last piece


@dataclass(frozen=True)
class Position:
    """A checkpoint: the piece's prefix (None: past the end), solutions handed out of it, and
    the measured seconds of search per share of the job's tree (0: not measured yet)."""

    prefix: tuple[int, ...] | None = ()
    skip: int = 0
    rate: float = 0.0

    def text(self) -> str:
        """As stored in the job record (`cp`): "@digits.of.prefix:skip:rate" ("@end:..")."""
        where = "end" if self.prefix is None else ".".join(map(str, self.prefix))
        return f"@{where}:{self.skip}:{self.rate!r}"

    @classmethod
    def parse(
        cls, text: str, puzzle: alphametic.Puzzle | None = None, root: tuple[int, ...] = ()
    ) -> Position | None:
        """From the job record, or None when there is none (the search starts over).

        The older "depth:piece:skip" form (a piece of a fixed cut) is read too, given the
        puzzle and the job's prefix, so a job checkpointed before an upgrade resumes in place.
        """
        try:
            if text.startswith("@"):
                where, handed, rate = text[1:].split(":")
                prefix = None if where == "end" else tuple(int(d) for d in where.split(".") if d)
                return cls(prefix, int(handed), float(rate))
            depth, piece, skip = (int(part) for part in text.split(":"))
        except ValueError:
            return None
        if puzzle is None:
            return None
        cut = [(root, 1.0)] if depth <= len(root) else alphametic.shards(puzzle, depth, root)
        return cls(cut[piece][0], skip) if piece < len(cut) else cls(End)


def _key(puzzle: alphametic.Puzzle) -> str:
    """What identifies a puzzle for the cache below (its text and options)."""
    return json.dumps([puzzle.text, puzzle.options()], sort_keys=True)


@functools.lru_cache(maxsize=8)
def _size(key: str, puzzle: alphametic.Puzzle, listing: bool) -> float:
    """The estimated search tree of a puzzle, a listing's with the solutions it hands out
    (once per process)."""
    return alphametic.estimate(puzzle, probes=4, listing=listing)


Pieces = list[tuple[tuple[int, ...], float]]  # (prefix, share), in search order


def children(puzzle: alphametic.Puzzle, prefix: tuple[int, ...]) -> Pieces:
    """The pieces one letter deeper under a prefix, in search order, with their shares of it
    ([(prefix, 1.0)] when the prefix already fixes every letter it can; [] when none survive)."""
    return alphametic.shards(puzzle, len(prefix) + 1, prefix)


class Cursor:
    """Runs a job's pieces in order from a position, keeping its checkpoint and progress."""

    def __init__(
        self,
        puzzle: alphametic.Puzzle,
        prefix: tuple[int, ...],
        share: float,
        at: Position | None,
        small: bool = False,
        listing: bool = False,
        estimate: float | None = None,
    ) -> None:
        self.puzzle = puzzle
        self.root = tuple(prefix)
        # Seconds of search per share of this job's tree. A job the store already found small
        # (its lane) starts as one piece (0: no estimate needed); others from the estimate
        # the store kept with the job (jobstore.lanes.sized), or worked out here without one.
        if at is not None and at.rate > 0:
            self.rate, self.measured = at.rate, True
        else:
            if small:
                size = 0.0
            elif estimate is not None:
                size = estimate
            else:
                size = _size(_key(puzzle), puzzle, listing)
            guess = size * share / NODES_PER_SECOND
            self.rate, self.measured = guess, False
        self.todo: Pieces = []  # pieces to come, the next one last
        self.done = 0.0  # share of the tree passed in finished pieces
        self.skip = 0  # solutions of the next (or current) piece handed out by an earlier run
        if at is None:
            self.todo = [(self.root, 1.0)]
        elif at.prefix is not End:
            self.resume(at.prefix)
            self.skip = at.skip if self.todo else 0
        self.current: tuple[tuple[int, ...], float] | None = None  # the piece being searched
        self.search: alphametic.Search | None = None
        self.started = 0.0  # when the current piece's search started
        self.nodes_before = 0  # nodes of the pieces finished (or cut) by this run
        self.counting = False  # count(): a piece's partial count is not kept, it is redone
        self.give_up = False  # the run yields: drop the current piece at its stop, cut finer
        self.cutting = False  # the current piece ran long: drop it and go on with its children
        self.whole: tuple[tuple[int, ...], float] | None = None  # a piece found uncuttable

    def resume(self, path: tuple[int, ...]) -> None:
        """Set the pieces to come from a checkpoint's prefix: it, then everything to its right
        at each level; and the share passed, everything to its left."""
        share = 1.0
        for level in range(len(self.root), len(path)):
            parts = children(self.puzzle, path[:level])
            step = path[: level + 1]
            right = [(p, share * w) for p, w in parts if p > step]
            self.done += sum(share * w for p, w in parts if p < step)
            self.todo.extend(reversed(right))  # deeper levels go on top: they come first
            here = [w for p, w in parts if p == step]
            if not here:
                return  # nothing survives under it (the pieces to its right are all there is)
            share *= here[0]
        self.todo.append((path, share))

    def position(self) -> Position:
        """The checkpoint now: every solution before it was handed out, none after."""
        if self.current is not None:
            # The piece's search counts the solutions a resumed run skips too.
            handed = self.search.found if self.search is not None and not self.counting else 0
            return Position(self.current[0], max(self.skip, handed), self.rate)
        if not self.todo:
            return Position(End, 0, self.rate)
        return Position(self.todo[-1][0], self.skip, self.rate)

    @property
    def over(self) -> bool:
        """True when every piece is done."""
        return self.current is None and not self.todo

    def finish(self) -> None:
        """The search is over (a solve found its solution): no piece is left. The nodes of
        the piece it stops in are kept: a small solve, one piece, tried them all there."""
        if self.search is not None:
            self.nodes_before += int(self.search.nodes)
        self.todo.clear()
        self.current, self.search, self.done = None, None, 1.0

    @property
    def progress(self) -> float:
        """Share of the job's search passed (1.0 only at the end)."""
        if self.over:
            return 1.0
        inside = 0.0
        if self.current is not None and self.search is not None:
            inside = self.current[1] * float(self.search.progress)
        return min(self.done + inside, 1.0 - 2.0**-40)

    @property
    def partial(self) -> int:
        """Solutions counted so far in the piece being counted (not yet yielded by count())."""
        return self.search.found if self.search is not None and self.counting else 0

    @property
    def nodes(self) -> int:
        """Search nodes visited by this run."""
        return self.nodes_before + (int(self.search.nodes) if self.search is not None else 0)

    def droppable(self) -> bool:
        """Whether the current piece can be given up and redone finer without losing anything
        handed out: nothing of it was counted or handed out, by this run or an earlier one."""
        if self.current is None or self.search is None or self.skip:
            return False
        return self.counting or not self.search.found

    def yield_now(self) -> bool:
        """The run must yield: True when the current piece can be given up (cut finer, its
        search so far lost, at most LONG_SECONDS), False when it must run to its end first."""
        self.give_up = self.cuttable()
        return self.give_up

    def cuttable(self) -> bool:
        """Whether the current piece can be dropped and cut finer (asked at every check once
        it matters: a piece found uncuttable is remembered as such)."""
        if self.current is None or self.current is self.whole or not self.droppable():
            return False
        if len(self.split(self.current)) < 2:
            self.whole = self.current  # fixes every letter it can, or has one child only
            return False
        return True

    def split(self, piece: tuple[tuple[int, ...], float]) -> Pieces:
        """A piece's children with their shares of the job (itself when it cannot be cut; a
        lone child is cut in turn, as it is the same search)."""
        prefix, share = piece
        while len(parts := children(self.puzzle, prefix)) == 1 and len(parts[0][0]) > len(prefix):
            prefix = parts[0][0]
        if parts and len(parts[0][0]) == len(prefix):
            return [piece]
        return [(p, share * w) for p, w in parts]

    def measure(self, seconds: float, share: float) -> None:
        """Fold a piece's duration into the speed: long pieces weigh more than short ones."""
        if share <= 0:
            return
        rate = seconds / share
        weight = 1.0 if not self.measured else seconds / (seconds + PIECE_SECONDS)
        self.rate = rate if weight >= 1.0 else self.rate + weight * (rate - self.rate)
        self.measured = True

    def next_piece(self) -> tuple[tuple[int, ...], float] | None:
        """Take the next piece, cut until it should fit in PIECE_SECONDS at the measured speed
        (a piece with solutions handed out is not cut: its skip counts along its own order),
        or after MAX_CUTS cuts."""
        cuts = 0
        while self.todo:
            piece = self.todo.pop()
            if self.skip or piece[1] * self.rate <= PIECE_SECONDS or cuts >= MAX_CUTS:
                return piece
            cuts += 1
            parts = self.split(piece)
            if parts == [piece]:
                return piece
            if not parts:  # none survive: the piece is done, without a solution
                self.done += piece[1]
            self.todo.extend(reversed(parts))
        return None

    def watch(
        self, check: Callable[[alphametic.Search], object]
    ) -> Callable[[alphametic.Search], bool]:
        """The search's check: the run's, then whether the piece ran long and can be cut."""

        def watched(search: alphametic.Search) -> bool:
            if check(search):
                return True
            if time.monotonic() - self.started >= LONG_SECONDS and self.cuttable():
                self.cutting = True
                return True
            return False

        return watched

    def begin(
        self, check: Callable[[alphametic.Search], object], interval: float,
        pause: Callable[[], bool] | None,
    ) -> alphametic.Search | None:  # fmt: skip
        """Start the next piece's search, or None at the end or when the run pauses here."""
        if self.todo and pause is not None and pause():  # (at the end: no need to yield)
            return None
        piece = self.next_piece()
        if piece is None:
            return None
        self.current, self.started = piece, time.monotonic()
        self.search = alphametic.Search(
            self.puzzle, check=self.watch(check), check_interval=interval, prefix=piece[0]
        )
        return self.search

    def end(self) -> None:
        """The current piece is searched to its end."""
        assert self.current is not None and self.search is not None
        self.measure(time.monotonic() - self.started, self.current[1])
        self.nodes_before += int(self.search.nodes)
        self.done += self.current[1]
        self.current, self.search, self.skip = None, None, 0

    def stopped(self) -> bool:
        """After a stopped search: cut the piece when it was dropped; True when the run stops
        here (False: go on with the dropped piece's children)."""
        assert self.current is not None and self.search is not None
        cut, go_on = self.give_up or self.cutting, self.cutting and not self.give_up
        self.give_up = self.cutting = False
        if not cut:
            return True
        piece, search = self.current, self.search
        # Its speed so far, from the share of it passed (a piece that shows none yet is at
        # least this slow): its children are cut to fit.
        inside = max(float(search.progress), SMALLEST_PROGRESS)
        self.measure((time.monotonic() - self.started) / inside, piece[1])
        self.nodes_before += int(search.nodes)
        self.todo.extend(reversed(self.split(piece)))
        self.current, self.search = None, None
        return not go_on

    def solutions(
        self, check: Callable[[alphametic.Search], object], interval: float,
        pause: Callable[[], bool] | None = None,
    ) -> Iterator[tuple[int, ...]]:  # fmt: skip
        """Every solution from the position on, in search order (stops when check says so, or
        between pieces when pause says so)."""
        while (search := self.begin(check, interval, pause)) is not None:
            skip = self.skip
            for solution in search.solutions():
                if skip:
                    skip -= 1
                    continue
                yield solution
            if search.stopped:
                if self.stopped():
                    return
                continue
            self.end()

    def count(
        self, check: Callable[[alphametic.Search], object], interval: float,
        pause: Callable[[], bool] | None = None,
    ) -> Iterator[int]:  # fmt: skip
        """The number of solutions of each piece from the position on (stops when told)."""
        self.counting = True
        while (search := self.begin(check, interval, pause)) is not None:
            counted = search.count()
            if search.stopped:
                if self.stopped():
                    return
                continue
            skip = self.skip
            self.end()
            yield counted - skip
