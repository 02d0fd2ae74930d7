"""Explain a puzzle's answer as a person would find it: deductions, then a few cases."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..language.puzzle import Puzzle, parse
from ..render import render_line
from ..search import Search, as_dict
from .difficulty import Difficulty, rate
from .factors import Products
from .model import Model, State, digits_of
from .rules import Deductions, ProductReasoner, Reasoner
from .text import ENGLISH, Step, render

__all__ = [
    "COUNT_SECONDS",
    "ENGLISH",
    "SEARCH_SECONDS",
    "Deduced",
    "Explanation",
    "Step",
    "Tally",
    "conclude",
    "deduce",
    "explain",
    "render",
]

MAX_STEPS = 80  # steps worth reading; past this the search does the rest
MAX_DEPTH = 3  # cases inside cases, at most
MAX_WIDTH = 6  # most digits one case split tries
_LOOK = 6  # letters and carries with the fewest values looked ahead at before a split
# Work budgets in column nodes (about a microsecond each), so that the same puzzle always gets
# the same explanation: look ahead before splits up to the first, split no more past the second.
LOOK_BUDGET, WORK_BUDGET = 150_000, 300_000
# The engine's searches stop after this much CPU time of the process (not of the clock: a
# loaded machine, whose processes wait for a core, cuts no search shorter than an idle one).
SEARCH_SECONDS = 5.0  # the search for the first solution
COUNT_SECONDS = 0.3  # counting the solutions (a count cut short says "at least")


@dataclass
class Tally:
    """What the difficulty is rated on: how much reasoning and guessing the explanation took."""

    deductions: int = 0  # steps outside any case split
    branches: int = 0  # cases tried
    depth: int = 0  # deepest case nesting
    open_letters: int = 0  # most letters left to the search in any unfinished branch
    capped: bool = False


@dataclass
class Explanation:
    """A puzzle's explanation: the steps, the solution and how hard it is."""

    puzzle: Puzzle
    steps: list[Step]
    solution: dict[str, int] | None
    count: int  # solutions (a lower bound when count_complete is False)
    count_complete: bool
    tally: Tally
    difficulty: Difficulty = field(init=False)

    def __post_init__(self) -> None:
        """Rate the explanation."""
        self.difficulty = rate(self.tally)

    def as_json(self, table: Mapping[str, str] = ENGLISH) -> dict[str, Any]:
        """Return the JSON shape of the API: puzzle, solution, steps, difficulty."""
        base = self.puzzle.base
        return {
            "puzzle": self.puzzle.text,
            "options": self.puzzle.options(),
            "solution": self.solution,
            "steps": [step.as_json(base, table) for step in self.steps],
            "difficulty": {"score": self.difficulty.score, "label": self.difficulty.label},
        }

    def as_data(self) -> dict[str, Any]:
        """Return the explanation in no language (step keys and parameters), as plain JSON data
        that from_data turns back into the same explanation: what the job store keeps."""
        return {
            "puzzle": self.puzzle.text,
            "options": self.puzzle.options(),
            "solution": self.solution,
            "count": self.count,
            "count_complete": self.count_complete,
            "tally": asdict(self.tally),
            "steps": [_step_data(step) for step in self.steps],
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Explanation:
        """Rebuild an explanation from as_data's form (its puzzle parsed again)."""
        options = data["options"]
        puzzle = parse(
            data["puzzle"],
            base=options["base"],
            leading_zeros=options["leading_zeros"],
            fixed=options["fixed"],
        )
        steps = [Step(**step) for step in data["steps"]]
        solution = data["solution"]
        return cls(
            puzzle, steps, solution, data["count"], data["count_complete"], Tally(**data["tally"])
        )

    def lines(self, table: Mapping[str, str] = ENGLISH) -> list[str]:
        """Return the steps as text lines, case steps indented and labelled with their case."""
        out = []
        for step in self.steps:
            text = step.text(table, self.puzzle.base)
            out.append(text if step.case is None else f"    [{step.case}] {text}")
        rating = {"label": self.difficulty.label, "score": self.difficulty.score}
        out.append(render("difficulty", rating, table, self.puzzle.base))
        return out


def _step_data(step: Step) -> dict[str, Any]:
    """A step as plain JSON data (Step(**data) is the step again)."""
    return {
        "key": step.key,
        "params": step.params,
        "facts": step.facts,
        "case": step.case,
        "fail": step.fail,
    }


@dataclass
class Deduced:
    """An explanation's deductions and cases (deduce()), before the search's answer."""

    steps: list[Step]
    tally: Tally

    def as_data(self) -> dict[str, Any]:
        """Return them as plain JSON data that from_data turns back into the same ones (what
        a worker keeps while it works the rest of an explanation out)."""
        return {"steps": [_step_data(step) for step in self.steps], "tally": asdict(self.tally)}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Deduced:
        """Rebuild them from as_data's form."""
        return cls([Step(**step) for step in data["steps"]], Tally(**data["tally"]))


def explain(
    puzzle: Puzzle,
    *,
    seconds: float = SEARCH_SECONDS,
    count_nodes: int | None = None,
    interrupt: Callable[[], object] | None = None,
) -> Explanation:
    """Explain how to solve the puzzle, step by step, and rate how hard it is.

    The deductions take a bounded amount of work (well under a second); the engine's search
    for the solution itself gets `seconds` of CPU time, after which the explanation says it
    stopped. The count of the solutions stops after COUNT_SECONDS of CPU time, or, given
    `count_nodes`, after that many search nodes (the same cut-off on any machine: for tests).
    (A worker runs the same phases, deduce(), its own searches and conclude(), so that it can
    give way between them and resume: worker/explain.py.) `interrupt` is called before each
    round of deductions and at each look of the searches; what it raises ends the explanation
    (a compose run rating a result stops when asked to).
    """
    hook = interrupt or _carry_on
    deduced = deduce(puzzle, hook)
    first, count, complete = _answer(puzzle, seconds, count_nodes, hook)
    return conclude(puzzle, deduced, first, count, complete, seconds)


def deduce(puzzle: Puzzle, interrupt: Callable[[], object] | None = None) -> Deduced:
    """The explanation's steps up to the search: the deductions and case splits, a bounded
    amount of work that gives the same steps for the same puzzle on any machine. `interrupt`
    is called before each round of deductions (at most ~20 ms of CPU apart); what it raises
    ends the deductions there (a worker gives way to a job that must go first)."""
    tally = Tally()
    products = None if puzzle.is_linear else Products.of(puzzle)
    reasoner: Deductions | None
    if puzzle.left and puzzle.right:
        model = Model.of(puzzle)
        state = State.start(model)
        steps = _opening(puzzle, state)
        if len(model.columns) > 1:
            steps.append(_layout(model, state))
        reasoner = Reasoner(model, 2 * WORK_BUDGET)
    elif products is not None:  # products, quotients and powers: last digits and sizes
        state = State.start_letters(puzzle.letters, puzzle.base)
        steps = _opening(puzzle, state)
        if products.turned or products.powers:
            steps.append(
                Step(_PRODUCTS[products.turned, products.powers], {"equation": products.text()})
            )
        reasoner = ProductReasoner(products, 2 * WORK_BUDGET)
    else:  # sums mixed with products: no columns to reason about (yet)
        steps = [Step("not_a_sum", {"count": len(puzzle.letters)})]
        tally.open_letters = len(puzzle.letters)
        reasoner = None
    if reasoner is not None:
        walker = _Walker(reasoner, steps, tally, interrupt or _carry_on)
        walker.branch(state, None, 0)
    tally.deductions = sum(1 for step in steps if step.case is None)
    return Deduced(steps, tally)


def conclude(
    puzzle: Puzzle,
    deduced: Deduced,
    first: Sequence[int] | None,
    count: int,
    complete: bool,
    seconds: float,
) -> Explanation:
    """The explanation: the deductions, then what the search found in `seconds` of CPU time.

    `first` is its first solution (digits in the order of puzzle.letters), `count` the solutions
    it counted from the start (the first one too); `complete` says the count is all of them,
    or, with no first solution, that the search ended rather than ran out of time.
    """
    solution = None if first is None else as_dict(puzzle, first)
    count = 0 if first is None else max(count, 1)
    steps = [*deduced.steps, _ending(puzzle, solution, count, complete, seconds)]
    return Explanation(puzzle, steps, solution, count, complete, deduced.tally)


# The step that rewrites a puzzle as products, by (quotients turned, powers written out).
_PRODUCTS = {(True, False): "products_turned", (False, True): "products_powers"}
_PRODUCTS[True, True] = "products_both"

_FAILED, _SOLVED, _OPEN = "failed", "solved", "open"


class _Walker:
    """Runs the deductions and, when they stall, the case splits, appending the steps."""

    def __init__(
        self,
        reasoner: Deductions,
        steps: list[Step],
        tally: Tally,
        interrupt: Callable[[], object],
    ) -> None:
        self.reasoner = reasoner
        self.steps = steps
        self.tally = tally
        self.interrupt = interrupt  # called before each round of deductions (deduce())

    def branch(self, state: State, case: str | None, depth: int) -> str:
        """Deduce as far as possible, then split; return failed, solved or open."""
        self.interrupt()
        for step in self.reasoner.run(state, case):
            self.steps.append(step)
            if step.fail:
                return _FAILED
        if state.solved():
            return _SOLVED
        open_letters = state.open_letters()
        pivot = self.pivot(state)
        width = len(state.values(pivot)) if pivot is not None else 0
        if pivot is None or depth >= MAX_DEPTH or width > MAX_WIDTH or self.spent():
            self.tally.open_letters = max(self.tally.open_letters, len(open_letters))
            self.tally.capped = True
            key = "case_open" if len(open_letters) > 1 else "case_open_one"
            self.steps.append(Step(key, {"count": len(open_letters)}, case=case))
            return _OPEN
        return self.split(state, case, depth, pivot)

    def spent(self) -> bool:
        """Return whether the explanation has used up its steps or its work."""
        return len(self.steps) >= MAX_STEPS or self.reasoner.work.spent > WORK_BUDGET

    def pivot(self, state: State) -> str | None:
        """Return the letter or carry whose cases leave the fewest letters open, after a look."""
        names = [x for x in state.candidates() if len(state.values(x)) <= MAX_WIDTH][:_LOOK]
        if len(names) <= 1 or self.reasoner.work.spent > LOOK_BUDGET:
            return names[0] if names else None
        return min(names, key=lambda name: (self.look(state, name), len(state.values(name))))

    def look(self, state: State, name: str) -> int:
        """Return how many letters stay open over all cases of name (a dead case adds none)."""
        total = 0
        for value in state.values(name):
            self.interrupt()
            trial = state.copy()
            trial.restrict(name, [value])
            trial.eliminate()
            if not any(step.fail for step in self.reasoner.run(trial, None)):
                total += len(trial.open_letters()) + 1
        return total

    def split(self, state: State, case: str | None, depth: int, name: str) -> str:
        """Try each value of a letter (or carry) in turn; keep the ones that survive."""
        values = state.values(name)
        params = {"letter": name, "digits": values}
        facts = {name: values} if name in state.dom else {}
        self.steps.append(Step("stall", params, facts, case=case))
        self.tally.depth = max(self.tally.depth, depth + 1)
        outcomes: dict[int, str] = {}
        for value in values:
            if self.spent():
                self.tally.capped = True
                self.steps.append(Step("cap", {}, case=case))
                return _OPEN
            self.tally.branches += 1
            label = f"{name} = {value}" if case is None else f"{case}, {name} = {value}"
            trial = state.copy()
            trial.restrict(name, [value])
            trial.announced.add(name)
            trial.eliminate()
            outcomes[value] = result = self.branch(trial, label, depth + 1)
            if result == _FAILED:
                said = {"letter": name, "digit": value}
                self.steps.append(Step("case_fails", said, case=label, fail=True))
            elif result == _SOLVED and all(len(digits_of(m)) == 1 for m in trial.dom.values()):
                # (Solved inside a deeper case split: that one said so, with every letter known.)
                known = {x: digits_of(m) for x, m in trial.dom.items()}
                params = {"facts": [[x, d] for x, d in sorted(known.items())]}
                self.steps.append(Step("case_solved", params, known, case=label))
        return self._conclude(state, case, name, outcomes)

    def _conclude(self, state: State, case: str | None, name: str, outcomes: dict[int, str]) -> str:
        """Say which values survived the cases and narrow the letter (or carry) to them."""
        alive = [v for v, result in outcomes.items() if result != _FAILED]
        failed = [v for v, result in outcomes.items() if result == _FAILED]
        if not alive:
            return _FAILED
        state.restrict(name, alive)
        if failed:
            facts = {name: alive} if name in state.dom else {}
            if len(alive) == 1:
                params: dict[str, Any] = {"letter": name, "digit": alive[0]}
                self.steps.append(Step("case_only", params, facts, case=case))
            else:
                params = {"letter": name, "failed": failed, "digits": alive}
                self.steps.append(Step("case_narrowed", params, facts, case=case))
        return _SOLVED if _SOLVED in outcomes.values() else _OPEN


def _opening(puzzle: Puzzle, state: State) -> list[Step]:
    """Return the first steps: the given letters and the leading digits."""
    steps = []
    if puzzle.fixed:
        facts = {x: [d] for x, d in puzzle.fixed.items()}
        for letter, digit in puzzle.fixed.items():
            state.dom[letter] = 1 << digit
            state.announced.add(letter)
        steps.append(Step("given", {"facts": [[x, d] for x, d in facts.items()]}, facts))
    leading = sorted(x for x in puzzle.nonzero_letters() if state.value(x) is None)
    if leading:
        for letter in leading:
            state.dom[letter] &= ~1
        key = "leading" if len(leading) > 1 else "leading_one"
        steps.append(Step(key, {"letters": leading}, {x: digits_of(state.dom[x]) for x in leading}))
    state.eliminate()
    return steps


def _layout(model: Model, state: State) -> Step:
    """Return the step that names the carries and bounds them."""
    values = [c for carries in state.carries for c in carries]
    high, low = max(values, default=0), min(values, default=0)
    puzzle = model.puzzle
    if high == low == 0:
        return Step("columns_no_carry", {"first": 1})
    plain = all(sign > 0 for sign, _ in puzzle.left) and len(puzzle.right) == 1 and low == 0
    if plain and len(puzzle.left) > 1 and puzzle.right[0][0] > 0:
        return Step("columns_plain", {"first": 1, "terms": len(puzzle.left), "high": high})
    return Step("columns", {"first": 1, "high": high, "low": low})


def _carry_on() -> None:
    """The interrupt hook of an explanation nobody interrupts."""


def _answer(
    puzzle: Puzzle,
    seconds: float,
    count_nodes: int | None = None,
    interrupt: Callable[[], object] = _carry_on,
) -> tuple[tuple[int, ...] | None, int, bool]:
    """Return the engine's first solution, the number of solutions and whether that is exact
    (conclude()'s first, count and complete).

    No solution with complete False means the search ran out of time before finding one.
    """
    started = time.process_time()
    first_search = Search(
        puzzle, check=lambda _: interrupt() or time.process_time() - started > seconds
    )
    first = next(first_search.solutions(), None)
    if first is None:
        return None, 0, not first_search.stopped
    search = _counter(puzzle, count_nodes, interrupt)
    total = search.count()
    return first, total, not search.stopped


def _counter(
    puzzle: Puzzle, nodes: int | None, interrupt: Callable[[], object] = _carry_on
) -> Search:
    """Return the search that counts the solutions, cut off by the clock or by `nodes`."""
    if nodes is None:
        deadline = time.process_time() + COUNT_SECONDS
        return Search(puzzle, check=lambda _: interrupt() or time.process_time() > deadline)
    # A check at every tick of the search (a few hundred nodes at first, then fewer), not
    # only once the clock has moved on: a short count is cut off all the same.
    return Search(
        puzzle, check=lambda search: interrupt() or search.nodes >= nodes, check_interval=0.0
    )


def _ending(
    puzzle: Puzzle, solution: dict[str, int] | None, count: int, complete: bool, seconds: float
) -> Step:
    """Return the last step: no solution, or the solution and how many there are."""
    if solution is None:
        return Step("no_solution" if complete else "search_stopped", {"seconds": seconds})
    facts = {x: [d] for x, d in solution.items()} if count == 1 and complete else {}
    params: dict[str, Any] = {"line": render_line(puzzle, solution).split(" | ", 1)[1]}
    if count == 1 and complete:
        return Step("solution_unique", params, facts)
    params["count"] = count
    if complete:
        return Step("solutions", params, facts)
    # A count cut short is a lower bound: the solutions found so far, at least the first one.
    return Step("solutions_many" if count > 1 else "solution_at_least_one", params, facts)
