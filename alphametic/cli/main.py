"""The `alphametic` command line: solve or explain one puzzle, solve a batch of them, or
compose puzzles from a word list."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import TextIO

from ..explain.languages import TABLES, from_locale
from ..explain.walkthrough import SEARCH_SECONDS, explain
from ..language.folding import fold, fold_letter
from ..language.puzzle import LeadingZeros, Puzzle, PuzzleError, parse
from ..linear.native import EngineError, describe, engine
from ..render import caret, render_line, render_sum
from ..search import Search
from . import compose
from .batch import open_batch, result, run_batch
from .console import Console, OutputError, ProgressBar, catch_interrupt, emit, silence_stdout

__all__ = ["main"]

# Exit statuses: solved, no solution, bad input; output failed (sysexits' EX_IOERR); then
# 128 + SIGINT / SIGPIPE as shells report.
EXIT_SOLVED, EXIT_NO_SOLUTION, EXIT_BAD_INPUT, EXIT_OUTPUT_FAILED = 0, 1, 2, 74
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141
_EXIT_HELP = (
    "exit status: 0 solved, 1 no solution, 2 bad input, 74 output not written (stdout closed "
    "or full), 130 interrupted (Ctrl-C: what was found or counted so far is printed first)"
)

# What '-' as the puzzle gets: stdin is read only as a batch file.
_DASH = {
    "solve": "'-' is not a puzzle: to read puzzles from stdin, one per line, use --batch -",
    "explain": "'-' is not a puzzle: give the puzzle itself, such as 'SEND + MORE = MONEY' "
    "(explain does not read stdin)",
}


class _UsageError(Exception):
    """Bad command-line input found after argparse accepted the arguments."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help (0) and on bad usage (2)
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    caret_text = None if getattr(args, "batch", None) else " ".join(getattr(args, "puzzle", []))
    return _answered(lambda: _run(args), caret_text)


def _run(args: argparse.Namespace) -> int:
    """Run the command the arguments name."""
    engine()  # ALPHAMETIC_ENGINE=native without the native core: refuse to start
    if args.command != "compose":
        _fixes(args.fix)  # fail before any work, even in batch mode
        _check_puzzle_args(args)
    if sys.stdout is None:  # started with stdout closed (`>&-`): no work could be shown
        raise OutputError("standard output is closed")
    if args.command == "compose":
        return compose.run(args)
    if args.command == "explain":
        return _run_explain(args, " ".join(args.puzzle))
    if args.batch is not None:
        return _run_batch(args)
    return _run_one(args, " ".join(args.puzzle))


def _answered(work: Callable[[], int], caret_text: str | None) -> int:
    """Run the work; say what went wrong in one line (a caret under a puzzle's fault) and
    return the exit status."""
    try:
        return work()
    except (PuzzleError, _UsageError, EngineError, compose.ComposeError) as exc:
        print(f"alphametic: error: {exc}", file=sys.stderr)
        if isinstance(exc, PuzzleError) and exc.field == "puzzle" and caret_text is not None:
            _show_caret(caret_text, exc.position)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:  # a second Ctrl-C, or one outside a search
        print("\nalphametic: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (say `| head`) left: silence the final flush instead of a traceback.
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except OutputError as exc:
        silence_stdout()
        print(f"alphametic: error: cannot write the results: {exc}", file=sys.stderr)
        return EXIT_OUTPUT_FAILED


def _show_caret(text: str, position: int | None) -> None:
    """Print the puzzle's line at fault with a caret under the character (by display width)."""
    where = caret(text, position)
    if where is not None:
        line, column = where
        print(f"  {line}\n  {' ' * column}^", file=sys.stderr)


def _version() -> str:
    """Return the version line: the package's version and the engine that runs sums."""
    try:
        engine = describe()
    except EngineError as exc:
        engine = f"unavailable ({exc})"
    return f"alphametic {metadata.version('alphametic')} (engine: {engine})"


def _check_puzzle_args(args: argparse.Namespace) -> None:
    """Refuse a missing puzzle, a puzzle with --batch, and '-' given as the puzzle."""
    if args.puzzle == ["-"]:
        raise _UsageError(_DASH[args.command])
    if args.command != "solve":
        return
    if args.batch is not None and args.puzzle:
        raise _UsageError("give either a PUZZLE or --batch FILE, not both")
    if args.batch is None and not args.puzzle:
        raise _UsageError("give a PUZZLE (for example 'SEND + MORE = MONEY') or --batch FILE")


def _build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with its `solve`, `explain` and `compose` subcommands."""
    parser = argparse.ArgumentParser(prog="alphametic", description=__doc__, epilog=_EXIT_HELP)
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    options = _puzzle_options()
    solve = commands.add_parser(
        "solve",
        parents=[options],
        help="solve a puzzle such as 'SEND + MORE = MONEY'",
        description="Solve a puzzle such as 'SEND + MORE = MONEY' (also '==', '-' terms).",
        epilog=f"{_EXIT_HELP}; with --batch, 2 if any line was bad input, else 0.",
    )
    mode = solve.add_mutually_exclusive_group()
    mode.add_argument(
        "--all",
        action="store_const",
        const="all",
        dest="mode",
        help="list every solution (with --json: one JSON object per line, streamed)",
    )
    mode.add_argument(
        "--count",
        action="store_const",
        const="count",
        dest="mode",
        help="count the solutions without listing them",
    )
    solve.set_defaults(mode="first")
    solve.add_argument(
        "--json",
        action="store_true",
        help='print JSON instead of text (without --all or --count: "found" 0 or 1, which '
        'proves whether a solution exists, not how many; "exhaustive" says whether every '
        'solution was counted, "complete" whether the search did what was asked)',
    )
    solve.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar with ETA on stderr (default: only when stderr is a terminal)",
    )
    solve.add_argument(
        "--batch",
        metavar="FILE",
        help="solve one puzzle per line of FILE ('-' for stdin; blank lines and lines starting "
        "with # are skipped), print JSON lines",
    )
    solve.add_argument("puzzle", nargs="*", metavar="PUZZLE", help="the puzzle text")
    explain_command = commands.add_parser(
        "explain",
        parents=[options],
        help="explain step by step how to solve a puzzle, and rate how hard it is",
        description="Explain how to solve a puzzle as a person would: column by column, "
        "with carries, then a few cases, and rate its difficulty.",
        epilog="exit status: 0 solved, 1 no solution (or none found in time), 2 bad input.",
    )
    explain_command.add_argument("--json", action="store_true", help="print JSON")
    explain_command.add_argument(
        "--lang",
        choices=sorted(TABLES),
        default=from_locale(os.environ),
        help="the language of the steps (default: the locale's, else en)",
    )
    explain_command.add_argument(
        "--seconds",
        type=_seconds_arg,
        default=SEARCH_SECONDS,
        metavar="S",
        help=f"CPU seconds the search may take to find the solution (default {SEARCH_SECONDS:g})",
    )
    explain_command.add_argument("puzzle", nargs="+", metavar="PUZZLE", help="the puzzle text")
    compose.add_parser(commands)
    return parser


def _puzzle_options() -> argparse.ArgumentParser:
    """Return the options every subcommand shares: leading zeros, base, fixed letters."""
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument(
        "--leading-zeros",
        default=LeadingZeros.MULTI_LETTER.value,
        choices=[p.value for p in LeadingZeros],
        metavar="POLICY",
        help="multi-letter (default: words of 2+ letters may not start with 0), "
        "allow, or every-word",
    )
    options.add_argument("--base", type=int, default=10, metavar="N", help="number base, 2 to 36")
    options.add_argument(
        "--fix",
        action="append",
        type=_fix_arg,
        default=[],
        metavar="L=D",
        help="fix letter L to digit D (repeatable: --fix E=5 --fix S=9)",
    )
    return options


def _fix_arg(text: str) -> tuple[str, int]:
    """Parse one --fix value such as E=5, or い＝２ as a Japanese IME types it."""
    # Folded as the puzzle and the form's known digits are (web.api.estimates.parse_fixed):
    # a full-width '＝' or digit means its ASCII form, and the letter folds to its case.
    letter, equals, digit = fold(text)[0].partition("=")
    digit = digit.strip()
    # ASCII digits only: str.isdigit() also passes '²', which int() then refuses.
    if not equals or not letter.strip() or not (digit.isascii() and digit.isdigit()):
        raise argparse.ArgumentTypeError(f"expected LETTER=DIGIT such as E=5, got {text!r}")
    return fold_letter(letter.strip()), int(digit)


def _seconds_arg(text: str) -> float:
    """Parse --seconds: a finite number of seconds above 0."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:  # nan, inf and 1e400 (inf) too
        raise argparse.ArgumentTypeError(
            f"expected a finite number of seconds above 0, such as 5, got {text!r}"
        )
    return seconds


def _parse(args: argparse.Namespace, text: str) -> Puzzle:
    """Parse the puzzle text with the command line's options."""
    return parse(text, base=args.base, leading_zeros=args.leading_zeros, fixed=_fixes(args.fix))


def _fixes(pairs: list[tuple[str, int]]) -> dict[str, int]:
    """Return the --fix pairs as a dict, refusing one letter fixed to two digits."""
    fixed: dict[str, int] = {}
    for letter, digit in pairs:  # each letter folded by _fix_arg: 'e' and 'Ｅ' are 'E'
        if fixed.get(letter, digit) != digit:
            raise _UsageError(f"--fix gives {letter} two digits: {fixed[letter]} and {digit}")
        fixed[letter] = digit
    return fixed


def _run_explain(args: argparse.Namespace, text: str) -> int:
    """Explain one puzzle as text or JSON."""
    explanation = explain(_parse(args, text), seconds=args.seconds)
    table = TABLES[args.lang]
    out = (
        json.dumps(explanation.as_json(table), ensure_ascii=False)
        if args.json
        else "\n".join(explanation.lines(table))
    )
    emit(sys.stdout, out + "\n")
    return EXIT_SOLVED if explanation.solution is not None else EXIT_NO_SOLUTION


def _run_one(args: argparse.Namespace, text: str) -> int:
    """Solve one puzzle and print it as text or JSON; Ctrl-C stops it with what it has."""
    started = time.perf_counter()
    puzzle = _parse(args, text)
    terminal = _isatty(sys.stderr)
    show = terminal if args.progress is None else args.progress
    console = Console(sys.stdout, ProgressBar(sys.stderr, terminal) if show else None)
    search = Search(puzzle, check=console.check)
    with catch_interrupt(console):
        try:
            if args.json:
                found = _print_json(puzzle, search, args.mode, console, started)
            else:
                found = _print_text(puzzle, search, args.mode, console)
        finally:
            console.close()
    if search.stopped:
        print(f"alphametic: interrupted after {search.found:,} found", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_SOLVED if found else EXIT_NO_SOLUTION


def _print_text(puzzle: Puzzle, search: Search, mode: str, console: Console) -> int:
    """Print the human form of the result and return how many solutions were found."""
    if mode == "count":
        found = search.count()
    elif mode == "all":
        found = 0
        for compact in search.solutions():
            console.line(render_line(puzzle, compact))
            found += 1
    else:
        first = next(search.solutions(), None)
        if first is None:
            if not search.stopped:
                console.line(f"{puzzle.text}: no solution")
            return 0
        console.line(f"{render_sum(puzzle, first)}\n\n{render_line(puzzle, first)}")
        return 1
    so_far = " so far (interrupted)" if search.stopped else ""
    console.line(f"{found:,} solution{'' if found == 1 else 's'}{so_far}")
    return found


def _print_json(puzzle: Puzzle, search: Search, mode: str, console: Console, started: float) -> int:
    """Print JSON: one object, or one object per solution (JSON Lines) for --all."""
    if mode == "all":
        # A %-template per solution: far cheaper than json.dumps, and memory stays flat.
        template = "{" + ", ".join(f'"{letter}": %d' for letter in puzzle.letters) + "}"
        found = 0
        for compact in search.solutions():
            console.line(template % compact)
            found += 1
        return found
    out = result(puzzle, search, mode, started)
    console.line(json.dumps(out, ensure_ascii=False))
    return int(out["count"] if mode == "count" else out["found"])


def _run_batch(args: argparse.Namespace) -> int:
    """Solve one puzzle per line, printing a JSON object per line; 2 if any line was bad."""
    try:
        source = open_batch(args.batch)
    except OSError as exc:
        raise _UsageError(f"cannot read {args.batch}: {exc.strerror or exc}") from exc
    console = Console(sys.stdout, None)
    with source:
        bad = run_batch(source, lambda line: _parse(args, line), args.mode, console)
    if console.stop_requested:  # Ctrl-C: the last line printed is its puzzle's partial result
        print("alphametic: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_BAD_INPUT if bad else EXIT_SOLVED


def _isatty(stream: TextIO) -> bool:
    """Return whether the stream is a terminal."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
