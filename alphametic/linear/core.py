"""The search core: depth-first loops over the plan that hand solutions up (counting.py counts).

How it stays fast in pure Python (measured with bench/engine.py):
- one linear equation sum(c * d) == 0 over the letters in plan order (biggest |c| first);
- a node gets its digit range [lo, hi] from its parent, which computed it from the window
  of what the letters after it can still add (cached per depth and used digits), so a child
  whose range is empty is never called; a column modulus turns the range into a stride
  (bounds.py explains the oriented window behind ``x, y = -((t + a)//c1), (-t - b)//c1``);
- the last letter is solved by division and the one before it is an inline loop;
- states (depth, partial sum, used digits) recur in symmetric puzzles, so they are memoised,
  and the memo is dropped early when they do not recur (it costs more than it saves); the
  windows and memos belong to the puzzle's cached plan, so the shards of a job share them;
- solutions() moves whole lists of tuples up the generator levels (one resumption per list,
  not per solution), and zero-coefficient letters become lazy runs of permutations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import permutations
from operator import itemgetter
from typing import Any

from .bounds import window
from .plan import Plan, falling

# Memo of (depth, partial sum, used digits) -> completions, capped (entries plus stored
# tails, ~200 bytes each) to bound memory; dropped if under 1 in 8 lookups hit by PROBE states.
MEMO_CAP = 1 << 18
PROBE = 256
# Letters above the last one that are solved as one memoised subtree in solutions(): at most
# DEEP, and fewer in big bases so one subtree's list of tails stays small.
DEEP = 4
SUBTREE = 50_000

Solution = tuple[int, ...]
# A lazy run of solutions (zero-coefficient letters): [head, iterator of the solutions], where
# head holds the digits of plan.order[:plan.free] then the fixed ones (progress reads it).
Run = list[Any]
# What the search core hands up: a solution, or a lazy run of them.
Item = Solution | Run
# Called every tally.batch nodes with the current depth (may raise to stop the search).
Tick = Callable[[int], None]


class Tally:
    """Counters shared by a search run and the core: solutions, node batches, node reader."""

    __slots__ = ("batch", "done", "found", "reader")

    def __init__(self) -> None:
        """Start at zero, with a first batch of 256 nodes between ticks."""
        self.found = 0
        self.batch = 256
        self.done = 0
        self.reader: Callable[[], int] = lambda: self.done


def _getter(slots: tuple[int, ...]) -> Callable[[Sequence[int]], Solution]:
    """Return a function picking the given slots of a sequence as a tuple."""
    if len(slots) == 1:
        only = slots[0]
        return lambda seq: (seq[only],)
    get: Callable[[Sequence[int]], Solution] = itemgetter(*slots)
    return get


def given(plan: Plan, path: list[int]) -> tuple[int, int, int]:
    """Apply the prefix's digits to the live letters: (depth to search from, sum, used digits).

    The prefix's letters are not searched, so the memo holds only states below the prefix,
    which are the same in every shard; depth -1 means the prefix breaks a rule at once.
    """
    s, used = plan.s0, plan.used0
    top = min(len(plan.prefix), plan.last + 1)
    for j in range(top):
        d = plan.dlo[j]
        if d > plan.dhi[j] or used >> d & 1:
            return -1, s, used
        path[j] = d
        s += plan.coef[j] * d
        used |= 1 << d
    return top, s, used


def emitter(plan: Plan, path: list[int]) -> Callable[[int, int, list[Solution]], list[Item]]:
    """Return emit(i, used, tails): the complete solutions of a subtree at depth i."""
    n, last, free, dlo_, dhi_ = plan.n, plan.last, plan.free, plan.dlo, plan.dhi
    pick_live, pick_tail = _getter(plan.live_slots), _getter(plan.tail_slots)
    fixed = tuple(plan.fixed_digits)
    base_range = range(plan.base)

    def idle(j: int, used: int, out: list[Item]) -> None:
        # Zero-coefficient letters: branch on the constrained ones, then permutations.
        if j == free:
            head = tuple(path[:free]) + fixed
            avail = [d for d in base_range if not used >> d & 1]
            out.append([head, map(pick_tail, map(head.__add__, permutations(avail, n - free)))])
            return
        for d in range(dlo_[j], dhi_[j] + 1):
            if not used >> d & 1:
                path[j] = d
                idle(j + 1, used | 1 << d, out)

    def emit(i: int, used: int, res: list[Solution]) -> list[Item]:
        # Complete solutions for the subtree at depth i: prefix + tail (+ zero letters).
        if last + 1 == n:
            head = fixed + tuple(path[:i])
            return list(map(pick_live, map(head.__add__, res)))
        out: list[Item] = []
        for tail in res:
            path[i : last + 1] = tail
            u = used
            for d in tail:
                u |= 1 << d
            idle(last + 1, u, out)
        return out

    return emit


def batches(plan: Plan, path: list[int], tick: Tick, tally: Tally) -> Iterator[list[Item]]:
    """Yield lists of solutions (or lazy runs of them); bottom levels are memoised calls."""
    last = plan.last
    coef, dlo_, dhi_, step_, g_, inv_ = (
        plan.coef,
        plan.dlo,
        plan.dhi,
        plan.step,
        plan.g,
        plan.inv,
    )
    rest = plan.bounds
    emit = emitter(plan, path)
    budget = tally.batch
    tally.reader = lambda: tally.done + tally.batch - budget
    box = plan.tails  # shared by every run over this puzzle (shards, re-runs)
    memo: dict[tuple[int, int, int], list[Solution]] = box.table
    get_memo = memo.get
    stored, hits = box.stored, 0
    remember = box.verdict is not False
    probe = PROBE if box.verdict is None else 0

    def tails(i: int, s: int, used: int, lo: int, hi: int) -> list[Solution]:
        # Digits for depths i..last of every completion; states recur, so memoise them.
        nonlocal budget, stored, hits, remember, probe
        if remember:
            res = get_memo((i, s, used))
            if res is not None:
                hits += 1
                return res
        budget -= 1
        if not budget:
            tick(i)
            budget = tally.batch
        res = []
        c, m = coef[i], step_[i]
        if m > 1:
            if s % g_[i]:
                return res
            lo += ((-s // g_[i]) * inv_[i] - lo) % m
        i1 = i + 1
        if i1 == last:
            c1, lo1, hi1 = coef[last], dlo_[last], dhi_[last]
            for d in range(lo, hi + 1, m):
                if used >> d & 1:
                    continue
                q, r = divmod(-s - c * d, c1)
                if r or q < lo1 or q > hi1 or used >> q & 1 or q == d:
                    continue
                res.append((d, q))
        elif i1 + 1 == last:
            # The letter before the last, inlined: its digits, then the last by division.
            c1, lo1, hi1, m1, g1, v1 = coef[i1], dlo_[i1], dhi_[i1], step_[i1], g_[i1], inv_[i1]
            c2, lo2, hi2 = coef[last], dlo_[last], dhi_[last]
            for d in range(lo, hi + 1, m):
                if used >> d & 1:
                    continue
                u = used | 1 << d
                t = s + c * d
                a, b = rest[u << 6 | i1]
                x, y = -((t + a) // c1), (-t - b) // c1
                if x < lo1:
                    x = lo1
                if y > hi1:
                    y = hi1
                if x > y:
                    continue
                if m1 > 1:
                    if t % g1:
                        continue
                    x += ((-t // g1) * v1 - x) % m1
                for e in range(x, y + 1, m1):
                    if u >> e & 1:
                        continue
                    q, r = divmod(-t - c1 * e, c2)
                    if r or q < lo2 or q > hi2 or u >> q & 1 or q == e:
                        continue
                    res.append((d, e, q))
        else:
            c1, lo1, hi1 = coef[i1], dlo_[i1], dhi_[i1]
            for d in range(lo, hi + 1, m):
                if used >> d & 1:
                    continue
                u = used | 1 << d
                t = s + c * d
                a, b = rest[u << 6 | i1]
                x, y = -((t + a) // c1), (-t - b) // c1
                if x < lo1:
                    x = lo1
                if y > hi1:
                    y = hi1
                if x <= y:
                    path[i] = d
                    sub = tails(i1, t, u, x, y)
                    if sub:
                        res.extend(map((d,).__add__, sub))
        keep(i, s, used, res)
        return res

    def keep(i: int, s: int, used: int, res: list[Solution]) -> None:
        # Memoise a finished state's tails (a generator level's only when it had none).
        nonlocal stored, remember, probe
        if remember and stored < MEMO_CAP:
            memo[i, s, used] = res
            stored += len(res) + 1
            box.stored = stored
            if probe:
                # States rarely recur when coefficients differ: then stop paying for the memo.
                probe -= 1
                if not probe:
                    remember = box.verdict = hits * 8 >= PROBE
                    if not remember:
                        memo.clear()

    def node(i: int, s: int, used: int, lo: int, hi: int) -> Iterator[list[Item]]:
        # Generator levels near the root; the subtree below `cut` is one tails() call. A
        # state that led to no solution is kept as a dead end and skipped when it recurs (as
        # count mode skips it), so first mode is no slower than count mode on a puzzle
        # with none.
        nonlocal budget, hits
        if remember and i > top and (i, s, used) in memo:
            hits += 1
            return
        budget -= 1
        if not budget:
            tick(i)
            budget = tally.batch
        c, m = coef[i], step_[i]
        if m > 1:
            if s % g_[i]:
                return
            lo += ((-s // g_[i]) * inv_[i] - lo) % m
        i1 = i + 1
        c1, lo1, hi1 = coef[i1], dlo_[i1], dhi_[i1]
        alive = False
        for d in range(lo, hi + 1, m):
            if used >> d & 1:
                continue
            u = used | 1 << d
            t = s + c * d
            a, b = rest[u << 6 | i1]
            x, y = -((t + a) // c1), (-t - b) // c1
            if x < lo1:
                x = lo1
            if y > hi1:
                y = hi1
            if x <= y:
                path[i] = d
                if i1 < cut:
                    for found in node(i1, t, u, x, y):
                        alive = True
                        yield found
                else:
                    res = tails(i1, t, u, x, y)
                    if res:
                        alive = True
                        yield emit(i1, u, res)
        if not alive and i > top:
            keep(i, s, used, [])

    deep = DEEP
    while deep > 1 and falling(plan.base, deep) > SUBTREE:
        deep -= 1
    cut = max(0, last - deep)
    top, s, used = given(plan, path)
    if top < 0:
        return
    if top > last:
        if s == 0:
            yield emit(top, used, [()])
    elif top == last:
        q, r = divmod(-s, coef[last])
        if not r and dlo_[last] <= q <= dhi_[last] and not used >> q & 1:
            yield emit(last, used, [(q,)])
    else:
        x, y = window(coef[top], s, *rest[used << 6 | top])
        x, y = max(dlo_[top], x), min(dhi_[top], y)
        if x > y:
            return
        if top >= cut:
            yield emit(top, used, tails(top, s, used, x, y))
        else:
            yield from node(top, s, used, x, y)
