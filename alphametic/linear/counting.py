"""Count mode: the search core's loops, adding up solutions without building them."""

from __future__ import annotations

from .bounds import window
from .core import MEMO_CAP, PROBE, Tally, Tick, given
from .plan import Plan


def count_tree(plan: Plan, path: list[int], tick: Tick, tally: Tally) -> None:
    """Count the solutions into tally.found without building them (memoised where it pays)."""
    budget = tally.batch
    tally.reader = lambda: tally.done + tally.batch - budget
    last, base = plan.last, plan.base
    coef, dlo_, dhi_, step_, g_, inv_ = (
        plan.coef,
        plan.dlo,
        plan.dhi,
        plan.step,
        plan.g,
        plan.inv,
    )
    rest = plan.bounds
    box = plan.counts  # shared by every run over this puzzle (shards, re-runs)
    memo: dict[tuple[int, int, int], int] = box.table
    get_memo = memo.get
    hits, remember = 0, box.verdict is not False
    probe = PROBE if box.verdict is None else 0
    with0, free0, start = plan.with0, plan.free0, plan.idle_start

    def idle(used: int) -> int:
        # Zero-coefficient letters fixed by the prefix first, then arrangements of the rest.
        for j in range(last + 1, start):
            d = dlo_[j]
            if d > dhi_[j] or used >> d & 1:
                return 0
            used |= 1 << d
        free = base - used.bit_count()
        return with0[free] if used & 1 else free0[free]

    def node(i: int, s: int, used: int, lo: int, hi: int) -> int:
        nonlocal budget, hits, remember, probe
        if remember:
            total = get_memo((i, s, used))
            if total is not None:
                hits += 1
                tally.found += total
                return total
        budget -= 1
        if not budget:
            tick(i)
            budget = tally.batch
        total = 0
        c, m = coef[i], step_[i]
        if m > 1:
            if s % g_[i]:
                return 0
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
                k = idle(used | 1 << d | 1 << q)
                tally.found += k
                total += k
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
                    k = idle(u | 1 << e | 1 << q)
                    tally.found += k
                    total += k
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
                    total += node(i1, t, u, x, y)
        if remember and len(memo) < MEMO_CAP:
            memo[i, s, used] = total
            if probe:
                probe -= 1
                if not probe:
                    remember = box.verdict = hits * 8 >= PROBE
                    if not remember:
                        memo.clear()
        return total

    top, s, used = given(plan, path)
    if top < 0:
        return
    if top > last:
        tally.found = idle(used) if s == 0 else 0
    elif top == last:
        q, r = divmod(-s, coef[last])
        ok = not r and dlo_[last] <= q <= dhi_[last] and not used >> q & 1
        tally.found = idle(used | 1 << q) if ok else 0
    else:
        x, y = window(coef[top], s, *rest[used << 6 | top])
        x, y = max(dlo_[top], x), min(dhi_[top], y)
        if x <= y:
            node(top, s, used, x, y)
