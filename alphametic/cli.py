"""The `alphametic` command line: solve one puzzle or a batch of them."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from .puzzle import LeadingZeros, Puzzle, PuzzleError, parse
from .render import render_line, render_sum
from .search import Search, as_dict

__all__ = ["main"]

# Exit statuses: solved, no solution, bad input; then 128 + SIGINT / SIGPIPE as shells report.
EXIT_SOLVED, EXIT_NO_SOLUTION, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141
_BAR_WIDTH = 30
_BAR_DELAY = 0.5  # seconds before a bar appears, so quick searches print nothing extra
_BAR_EVERY = 0.1  # seconds between redraws


class _UsageError(Exception):
    """Bad command-line input found after argparse accepted the arguments."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help (0) and on bad usage (2)
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    try:
        _fixes(args.fix)  # fail before any work, even in batch mode
        if args.batch is not None:
            if args.puzzle:
                raise _UsageError("give either a PUZZLE or --batch FILE, not both")
            return _run_batch(args)
        if not args.puzzle:
            raise _UsageError("give a PUZZLE (for example 'SEND + MORE = MONEY') or --batch FILE")
        return _run_one(args, " ".join(args.puzzle))
    except (PuzzleError, _UsageError) as exc:
        print(f"alphametic: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("\nalphametic: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (say `| head`) left: silence the final flush instead of a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with its `solve` subcommand."""
    parser = argparse.ArgumentParser(prog="alphametic", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    solve = commands.add_parser(
        "solve",
        help="solve a puzzle such as 'SEND + MORE = MONEY'",
        description="Solve a puzzle such as 'SEND + MORE = MONEY' (also '==', '-' terms).",
        epilog="exit status: 0 solved, 1 no solution, 2 bad input; with --batch, 2 if any "
        "line was bad input, else 0.",
    )
    mode = solve.add_mutually_exclusive_group()
    mode.add_argument(
        "--all", action="store_const", const="all", dest="mode", help="list every solution"
    )
    mode.add_argument(
        "--count",
        action="store_const",
        const="count",
        dest="mode",
        help="count the solutions without listing them",
    )
    solve.set_defaults(mode="first")
    solve.add_argument("--json", action="store_true", help="print JSON instead of text")
    solve.add_argument(
        "--leading-zeros",
        default=LeadingZeros.MULTI_LETTER.value,
        choices=[p.value for p in LeadingZeros],
        metavar="POLICY",
        help="multi-letter (default: words of 2+ letters may not start with 0), "
        "allow, or every-word",
    )
    solve.add_argument("--base", type=int, default=10, metavar="N", help="number base, 2 to 36")
    solve.add_argument(
        "--fix",
        action="append",
        type=_fix_arg,
        default=[],
        metavar="L=D",
        help="fix letter L to digit D (repeatable: --fix E=5 --fix S=9)",
    )
    solve.add_argument(
        "--batch",
        metavar="FILE",
        help="solve one puzzle per line of FILE ('-' for stdin), print JSON lines",
    )
    solve.add_argument("puzzle", nargs="*", metavar="PUZZLE", help="the puzzle text")
    return parser


def _fix_arg(text: str) -> tuple[str, int]:
    """Parse one --fix value such as E=5."""
    letter, equals, digit = text.partition("=")
    if not equals or not letter.strip() or not digit.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected LETTER=DIGIT such as E=5, got {text!r}")
    return letter.strip(), int(digit)


def _parse(args: argparse.Namespace, text: str) -> Puzzle:
    """Parse the puzzle text with the command line's options."""
    return parse(text, base=args.base, leading_zeros=args.leading_zeros, fixed=_fixes(args.fix))


def _fixes(pairs: list[tuple[str, int]]) -> dict[str, int]:
    """Return the --fix pairs as a dict, refusing one letter fixed to two digits."""
    fixed: dict[str, int] = {}
    for letter, digit in pairs:
        key = letter.upper()
        if fixed.get(key, digit) != digit:
            raise _UsageError(f"--fix gives {key} two digits: {fixed[key]} and {digit}")
        fixed[key] = digit
    return fixed


def _run_one(args: argparse.Namespace, text: str) -> int:
    """Solve one puzzle and print it as text or JSON."""
    started = time.perf_counter()
    puzzle = _parse(args, text)
    bar = _ProgressBar(sys.stderr) if args.mode != "first" and _isatty(sys.stderr) else None
    search = Search(puzzle, check=bar)
    try:
        if args.json:
            result = _result(puzzle, search, args.mode, started)
            print(json.dumps(result))
            found = int(result["count"])
        else:
            found = _print_text(puzzle, search, args.mode)
    finally:
        if bar is not None:
            bar.clear()
    return EXIT_SOLVED if found else EXIT_NO_SOLUTION


def _print_text(puzzle: Puzzle, search: Search, mode: str) -> int:
    """Print the human form of the result and return how many solutions were found."""
    if mode == "count":
        found = search.count()
    elif mode == "all":
        found = 0
        for compact in search.solutions():
            print(render_line(puzzle, compact))
            found += 1
    else:
        first = next(search.solutions(), None)
        if first is None:
            print(f"{puzzle.text}: no solution")
            return 0
        print(render_sum(puzzle, first), render_line(puzzle, first), sep="\n\n")
        return 1
    print(f"{found:,} solution{'' if found == 1 else 's'}")
    return found


def _result(puzzle: Puzzle, search: Search, mode: str, started: float) -> dict[str, Any]:
    """Return the JSON object for one solved puzzle."""
    result: dict[str, Any] = {"puzzle": puzzle.text, "options": puzzle.options()}
    if mode == "count":
        result["count"] = search.count()
    else:
        solutions = _take(search.solutions(), None if mode == "all" else 1)
        result["count"] = len(solutions)
        result["solutions"] = [as_dict(puzzle, compact) for compact in solutions]
    result["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return result


def _take(solutions: Iterator[tuple[int, ...]], limit: int | None) -> list[tuple[int, ...]]:
    """Return the first limit solutions (all of them when limit is None)."""
    if limit is None:
        return list(solutions)
    return [compact for _, compact in zip(range(limit), solutions, strict=False)]


def _run_batch(args: argparse.Namespace) -> int:
    """Solve one puzzle per line, printing a JSON object per line; 2 if any line was bad."""
    bad = False
    try:
        source = _open_batch(args.batch)
    except OSError as exc:
        raise _UsageError(f"cannot read {args.batch}: {exc.strerror or exc}") from exc
    with source:
        for line in _puzzle_lines(source):
            started = time.perf_counter()
            try:
                puzzle = _parse(args, line)
            except PuzzleError as exc:
                bad = True
                print(json.dumps({"puzzle": line, "error": str(exc)}), flush=True)
                continue
            print(json.dumps(_result(puzzle, Search(puzzle), args.mode, started)), flush=True)
    return EXIT_BAD_INPUT if bad else EXIT_SOLVED


def _open_batch(name: str) -> TextIO:
    """Open the batch file, or wrap stdin for '-', decoding bad bytes as replacement chars."""
    if name == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    return open(name, encoding="utf-8", errors="replace")


def _puzzle_lines(source: Iterable[str]) -> Iterator[str]:
    """Yield the stripped non-blank lines."""
    for line in source:
        text = line.strip()
        if text:
            yield text


def _isatty(stream: TextIO) -> bool:
    """Return whether the stream is a terminal."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class _ProgressBar:
    """A search check hook that draws a progress bar on a terminal; it never stops the search."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._started = time.monotonic()
        self._drawn_at = 0.0
        self._visible = False

    def __call__(self, search: Search) -> bool:
        """Redraw at most every _BAR_EVERY seconds once the search has run _BAR_DELAY."""
        now = time.monotonic()
        if now - self._started >= _BAR_DELAY and now - self._drawn_at >= _BAR_EVERY:
            self._drawn_at = now
            self._draw(search, now - self._started)
        return False

    def _draw(self, search: Search, elapsed: float) -> None:
        """Write one bar line in place."""
        share = min(max(search.progress, 0.0), 1.0)
        filled = int(share * _BAR_WIDTH)
        bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
        line = f"\r[{bar}] {share:6.1%}  {search.found:,} found  {elapsed:.1f} s"
        self._visible = True  # first, so a Ctrl-C during the write still erases the bar
        self._stream.write(line)
        self._stream.flush()

    def clear(self) -> None:
        """Erase the bar, if one was drawn."""
        if self._visible:
            self._stream.write("\r\033[K")
            self._stream.flush()
            self._visible = False
