"""`alphametic compose`: every sum of words from a word list with exactly K solutions."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ..compose import (
    Composed,
    Tally,
    bad_words,
    by_difficulty,
    check_counts,
    check_reach,
    check_word_count,
    check_words,
    compose,
    count,
    words_of,
)
from ..explain.walkthrough import explain
from ..language.options import MAX_BASE, MIN_BASE, LeadingZeros, check_base
from ..render import render_line
from ..wordlists import LISTS, word_list
from .batch import open_batch
from .console import Console, catch_interrupt

# CPU seconds the explanation that rates a result may search (results are unique puzzles:
# their one solution is found in milliseconds; the deductions are bounded on their own).
RATE_SECONDS = 1.0
# Seconds a run may walk its sets of addends (a job's are its search budget): a list whose
# walk alone would take longer than a day is refused as the service refuses it (exit 2).
REACH_SECONDS = 86_400.0


# How results are printed: as found, or by difficulty (alphametic.compose.by_difficulty).
ORDERS = ("found", "easiest", "hardest")
# A result's difficulty as printed: {"score", "label"}, or None (K > 1 solutions).
Rating = dict[str, Any] | None


class ComposeError(Exception):
    """Bad compose input found after argparse accepted the arguments."""


def add_parser(commands: Any) -> None:
    """Add the `compose` subcommand to the command line's subparsers."""
    compose_command = commands.add_parser(
        "compose",
        help="find every sum of words from a list that has exactly K solutions",
        description="Compose puzzles: every W1 + ... + WN = R of words from WORDS (a word may "
        "repeat as an addend unless --distinct-words, each set of addends once, R none of "
        "them) with exactly K solutions, each with its difficulty.",
        epilog="exit status: 0 some found, 1 none found, 2 bad input, 130 interrupted.",
    )
    compose_command.add_argument(
        "--addends", type=int, default=2, metavar="N", help="addends per sum (default 2)"
    )
    compose_command.add_argument(
        "--solutions", type=int, default=1, metavar="K", help="solutions wanted (default 1)"
    )
    compose_command.add_argument(
        "--base", type=int, default=10, metavar="B", help=f"number base, {MIN_BASE} to {MAX_BASE}"
    )
    compose_command.add_argument(
        "--leading-zeros",
        default=LeadingZeros.MULTI_LETTER.value,
        choices=[p.value for p in LeadingZeros],
        metavar="POLICY",
        help="multi-letter (default), allow, or every-word",
    )
    compose_command.add_argument(
        "--distinct-words",
        action="store_true",
        help="no word twice in a sum: the addends distinct words, the result none of them",
    )
    compose_command.add_argument(
        "--count",
        action="store_true",
        help="print only how many there are (none listed or rated: faster)",
    )
    compose_command.add_argument(
        "--skip-bad-words",
        action="store_true",
        help="leave out the words of WORDS that are not letters only (a vowel or tone mark, a "
        "digit), naming them on stderr, instead of refusing the list",
    )
    compose_command.add_argument("--json", action="store_true", help="print JSON lines")
    compose_command.add_argument(
        "--order",
        default=ORDERS[0],
        choices=ORDERS,
        help="found (default: each printed as it is found), or easiest / hardest first "
        "(printed at the end, or at an interrupt, by difficulty score)",
    )
    compose_command.add_argument(
        "--list",
        choices=LISTS,
        metavar="NAME",
        help="a built-in word list instead of WORDS: en, ja (kana) or th",
    )
    compose_command.add_argument(
        "--first",
        type=int,
        metavar="M",
        help="only the M most frequent words of the built-in list",
    )
    compose_command.add_argument(
        "words",
        nargs="?",
        metavar="WORDS",
        help="a file of words, one or more per line ('-' for stdin; # starts a comment line)",
    )


def run(args: argparse.Namespace) -> int:
    """Compose from the word list and print each result as it is found."""
    check_counts(args.addends, args.solutions)
    check_base(args.base)
    words = check_word_count(_words(args))
    check_reach(len(words), args.addends, REACH_SECONDS, args.distinct_words, words, args.base)
    started = time.perf_counter()
    tally = Tally()
    held: list[tuple[Composed, Rating]] = []  # results to print in order, at the end
    console = Console(sys.stdout, None)
    with catch_interrupt(console):
        if args.count:
            _count(args, words, tally, console)
            return _summary(tally, started, console)
        try:
            found = compose(words, **_arguments(args, tally, console))
            if args.order == ORDERS[0]:
                for composed in found:
                    console.line(_line(composed, _rating(composed), args.json))
            else:
                held = [(composed, _rating(composed)) for composed in found]
        finally:
            hardest = args.order == "hardest"
            held.sort(key=lambda c: by_difficulty(_score(c[1]), c[0].puzzle.text, hardest))
            for composed, rating in held:
                console.line(_line(composed, rating, args.json))
            console.close()
    return _summary(tally, started, console)


def _arguments(args: argparse.Namespace, tally: Tally, console: Console) -> dict[str, Any]:
    """The engine's arguments for this command line (compose() and count() take the same)."""
    return {
        "addends": args.addends,
        "base": args.base,
        "leading_zeros": args.leading_zeros,
        "solutions": args.solutions,
        "tally": tally,
        "stop": lambda: console.stop_requested,
        "distinct_words": args.distinct_words,
    }


def _count(args: argparse.Namespace, words: list[str], tally: Tally, console: Console) -> None:
    """Count the results (none listed or rated) and print how many: a line, or JSON."""
    try:
        count(words, **_arguments(args, tally, console))
    finally:
        # Stopped: the count so far (its last set of addends perhaps not done whole).
        done = "" if not console.stop_requested else " so far"
        if args.json:
            line = {"count": tally.results, "stopped": console.stop_requested}
            console.line(json.dumps(line))
        else:
            console.line(f"{tally.results}{done}")
        console.close()


def _summary(tally: Tally, started: float, console: Console) -> int:
    """Print how the run went (standard error); its exit status."""
    seconds = time.perf_counter() - started
    skipped = ", ".join(f"{n:,} by {why}" for why, n in sorted(tally.skipped.items()))
    print(
        f"alphametic: {tally.results:,} found among {tally.candidates:,} candidates "
        f"({tally.searched:,} searched; skipped {skipped or 'none'}) in {seconds:.2f} s",
        file=sys.stderr,
    )
    if console.stop_requested:
        return 130
    return 0 if tally.results else 1


def _words(args: argparse.Namespace) -> list[str]:
    """The distinct words to compose from: the file WORDS, or a built-in list."""
    if (args.words is None) == (args.list is None):
        raise ComposeError("give either a word file WORDS or --list NAME")
    if args.first is not None and (args.list is None or args.first < 2):
        raise ComposeError("--first takes a count of at least 2, with --list")
    if args.list is not None:
        return words_of(word_list(args.list, args.first))
    try:
        with open_batch(args.words) as source:
            typed = [word for line in source if not _comment(line) for word in line.split()]
    except OSError as exc:
        raise ComposeError(f"cannot read {args.words}: {exc.strerror or exc}") from exc
    # Every word that is not letters only is named at once (PuzzleError), or left out.
    words = check_words(typed, skip_bad=args.skip_bad_words)
    skipped = [fault["word"] for fault in bad_words(typed)] if args.skip_bad_words else []
    if skipped:
        print(f"alphametic: left out {len(skipped):,} word(s) not letters only: "
              f"{', '.join(skipped)}", file=sys.stderr)  # fmt: skip
    return words


def _comment(line: str) -> bool:
    """Whether a line of a word file is blank or a comment (starts with #)."""
    text = line.strip()
    return not text or text.startswith("#")


def _rating(composed: Composed) -> Rating:
    """A result's difficulty (one with a single solution only)."""
    if len(composed.solutions) != 1:
        return None
    rating = explain(composed.puzzle, seconds=RATE_SECONDS).difficulty
    return {"score": rating.score, "label": rating.label}


def _score(difficulty: Rating) -> int | None:
    """The difficulty's score, if rated."""
    return None if difficulty is None else int(difficulty["score"])


def _line(composed: Composed, difficulty: Rating, as_json: bool) -> str:
    """One result: its text, its solution (when it has one), its difficulty."""
    puzzle = composed.puzzle
    if as_json:
        out: dict[str, Any] = {
            "puzzle": puzzle.text,
            "solutions": len(composed.solutions),
            "solution": composed.solutions[0] if len(composed.solutions) == 1 else None,
            "difficulty": difficulty,
        }
        return json.dumps(out, ensure_ascii=False)
    if len(composed.solutions) == 1:
        compact = tuple(composed.solutions[0][letter] for letter in puzzle.letters)
        rated = f"  ({difficulty['label']}, {difficulty['score']})" if difficulty else ""
        return f"{render_line(puzzle, compact)}{rated}"
    return f"{puzzle.text}  ({len(composed.solutions)} solutions)"
