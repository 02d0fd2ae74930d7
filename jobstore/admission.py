"""What a submission must pass before it is queued: its mode, options and puzzle checked, its
fingerprint for deduplication, and the errors of the per-client cap, of a client holding its
share of Redis's memory and of a nearly full Redis (JobStore.submit uses them; the API checks a
request's options with check_options before it gets that far).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import alphametic

from .lanes import sized
from .model import Mode

OPTION_NAMES = frozenset({"base", "leading_zeros", "fixed"})


class OptionsError(ValueError):
    """The submitted mode or options do not have the JSON shape they must have.

    Bad option values (a base of 37, a digit outside the base, ...) and bad puzzles raise the
    engine's PuzzleError, whose `field` names the option ("options.fixed.E") or "puzzle".
    Here too `field` names what is wrong as the API reports it ("mode", "options", ...).
    """

    def __init__(self, message: str, field: str = "options") -> None:
        """Keep the field the message is about."""
        super().__init__(message)
        self.field = field


def _integer(value: object) -> bool:
    """Tell whether a JSON value is an integer (true and false are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_mode(mode: object) -> Mode:
    """The Mode named by a request, or OptionsError."""
    try:
        return Mode(str(mode)) if isinstance(mode, str) else Mode("")
    except ValueError:
        names = " or ".join(f"'{m.value}'" for m in Mode)
        raise OptionsError(f"'mode' must be {names}.", "mode") from None


def check_options(options: object) -> dict[str, Any]:
    """The options' JSON shape checked (OptionsError), then their values by the engine
    (PuzzleError naming the option)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise OptionsError("'options' must be an object.")
    unknown = sorted(str(k) for k in options if k not in OPTION_NAMES)
    if unknown:
        raise OptionsError(f"Unknown option(s): {', '.join(unknown)}.")
    if "base" in options and not _integer(options["base"]):
        low, high = alphametic.MIN_BASE, alphametic.MAX_BASE
        message = f"'options.base' must be an integer from {low} to {high}."
        raise OptionsError(message, "options.base")
    if "leading_zeros" in options and not isinstance(options["leading_zeros"], str):
        raise OptionsError("'options.leading_zeros' must be a string.", "options.leading_zeros")
    fixed = options.get("fixed")
    if "fixed" in options and not (
        isinstance(fixed, Mapping) and all(_integer(d) for d in fixed.values())
    ):
        raise OptionsError("'options.fixed' must map letters to integer digits.", "options.fixed")
    # The values (a base of 37, a digit outside the base, ...) are the engine's to check: it
    # raises the PuzzleError that names the option in its field, before any puzzle is read.
    alphametic.check_options(
        options.get("base", 10),
        options.get("leading_zeros", alphametic.LeadingZeros.MULTI_LETTER),
        options.get("fixed"),
    )
    return dict(options)


class TooManyJobs(Exception):
    """The client already has `cap` unfinished jobs (ALPHAMETIC_MAX_QUEUED_PER_CLIENT)."""

    def __init__(self, cap: int, retry_after: int = 1) -> None:
        """Keep the cap for the error message, and the seconds until its first job ends."""
        super().__init__(
            f"A client may have at most {cap} unfinished jobs; "
            "wait for one to finish or cancel one, then retry."
        )
        self.cap = cap
        self.retry_after = max(1, retry_after)


def normalise(
    mode: str, puzzle: str, options: Mapping[str, Any] | None
) -> tuple[Mode, alphametic.Puzzle]:
    """Validate mode and options and parse the puzzle (raises OptionsError or PuzzleError)."""
    checked_mode = check_mode(mode)
    kwargs = {k: v for k, v in check_options(options).items() if v is not None}
    # Option values the engine refuses raise its PuzzleError naming the option (`field`).
    return checked_mode, alphametic.parse(puzzle, **kwargs)


class Input(Protocol):
    """What a job is run on, as the store keeps it: a puzzle, or a compose job's word list
    (jobstore/compose.py WordList)."""

    @property
    def text(self) -> str:
        """The record's `puzzle`."""
        ...

    @property
    def letters(self) -> tuple[str, ...]:
        """The record's `letters`."""
        ...

    def options(self) -> Any:
        """The record's `options` (a JSON object)."""
        ...


@dataclass(frozen=True)
class Submission:
    """A job request checked, parsed and sized once at the edge: what JobStore.queue takes."""

    mode: Mode
    puzzle: Input  # an alphametic.Puzzle, or a compose job's word list
    fingerprint: str  # identical submissions share one (dedup)
    small: bool  # its search is small: its band is FIRST's (lanes.sized)
    estimate: float | None  # reference nodes of its search, when worked out whole


def admit(mode: str, puzzle: str, options: Mapping[str, Any] | None, small: float) -> Submission:
    """Check mode and options, parse the puzzle and size its search, once (OptionsError or
    PuzzleError); `small` is Settings.small_search."""
    checked_mode, parsed = normalise(mode, puzzle, options)
    is_small, estimate = sized(parsed, small, listing=checked_mode is Mode.ENUMERATE)
    return Submission(checked_mode, parsed, fingerprint(checked_mode, parsed), is_small, estimate)


def fingerprint(mode: Mode, puzzle: Any) -> str:
    """Hash of normalised puzzle text, options and mode: equal for identical submissions."""
    payload = json.dumps([mode.value, puzzle.text, puzzle.options()], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


class StorageFull(Exception):
    """Redis is above its memory watermark: no new job that stores solutions for now."""

    def __init__(self, retry_after: int) -> None:
        """Keep the seconds to wait (until the first admitted storing job ends at the latest)."""
        super().__init__(
            "The job store is nearly full; new enumerations are refused for now. "
            "Count the solutions instead, or retry later."
        )
        self.retry_after = max(1, retry_after)


class OverShare(Exception):
    """The client's own unfinished storing jobs hold its share of the job store's memory
    (ALPHAMETIC_CLIENT_MEMORY_SHARE of the watermark): its next one waits for one of them."""

    def __init__(self, share: int, retry_after: int) -> None:
        """Keep the share (bytes) and the seconds until the client's first such job ends."""
        super().__init__(
            f"Your unfinished enumerations and compose jobs may store up to {share:,} bytes, "
            "this client's share of the job store; a new one is refused until one of them "
            "ends. Count the solutions instead, cancel one, or retry later."
        )
        self.share = share
        self.retry_after = max(1, retry_after)
