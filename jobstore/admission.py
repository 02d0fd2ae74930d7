"""What a submission must pass before it is queued: its mode, options and puzzle checked, its
fingerprint for deduplication, and the errors of the per-client cap and of a nearly full Redis
(JobStore.submit uses them; the API checks a request's options with check_options before it
gets that far).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import alphametic

from .model import Mode

OPTION_NAMES = frozenset({"base", "leading_zeros", "fixed"})
MIN_BASE, MAX_BASE = 2, 36
POLICIES = tuple(policy.value for policy in alphametic.LeadingZeros)


class OptionsError(ValueError):
    """The submitted mode or options are not acceptable (bad puzzles raise PuzzleError).

    `field` names what is wrong as the API reports it ("mode", "options", "options.base", ...).
    """

    def __init__(self, message: str, field: str = "options") -> None:
        """Keep the field the message is about."""
        super().__init__(message)
        self.field = field


class OptionValueError(OptionsError, alphametic.PuzzleError):
    """An option value the engine would refuse (a base out of range, an unknown policy, ...).

    It is both: an OptionsError that names the option's field, and still the PuzzleError that
    callers catching the engine's errors have always seen for these values.
    """

    def __init__(self, message: str, field: str, reason: str, **params: Any) -> None:
        """Keep the field, a reason code and its values (so pages can say it in any language)."""
        alphametic.PuzzleError.__init__(self, message)
        self.field = field
        self.reason = reason  # "base", "policy", "letter", "range", "missing" or "conflict"
        self.params = params


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
    """The options' shape checked (their values are checked by the engine), or OptionsError."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise OptionsError("'options' must be an object.")
    unknown = sorted(str(k) for k in options if k not in OPTION_NAMES)
    if unknown:
        raise OptionsError(f"Unknown option(s): {', '.join(unknown)}.")
    if "base" in options and not _integer(options["base"]):
        raise OptionsError("'options.base' must be an integer from 2 to 36.", "options.base")
    if "leading_zeros" in options and not isinstance(options["leading_zeros"], str):
        raise OptionsError("'options.leading_zeros' must be a string.", "options.leading_zeros")
    fixed = options.get("fixed")
    if "fixed" in options and not (
        isinstance(fixed, Mapping) and all(_integer(d) for d in fixed.values())
    ):
        raise OptionsError("'options.fixed' must map letters to integer digits.", "options.fixed")
    _check_values(options)
    return dict(options)


def _check_values(options: Mapping[str, Any]) -> None:
    """Check the option values the engine would refuse, naming the option (OptionValueError)."""
    base = options.get("base")
    if base is not None and not MIN_BASE <= base <= MAX_BASE:
        raise OptionValueError(
            f"the base must be from {MIN_BASE} to {MAX_BASE}, not {base}", "options.base", "base"
        )
    policy = options.get("leading_zeros")
    if policy is not None and policy.strip().lower() not in POLICIES:
        raise OptionValueError(
            f"unknown leading-zero policy {policy!r} (choose one of: {', '.join(POLICIES)})",
            "options.leading_zeros",
            "policy",
        )
    top = (base if base is not None else 10) - 1
    for key, digit in (options.get("fixed") or {}).items():
        letter = str(key).upper()
        if len(letter) != 1 or not "A" <= letter <= "Z":
            raise OptionValueError(
                f"a fixed letter must be one letter A-Z, not {key!r}", "options.fixed", "letter"
            )
        if not 0 <= digit <= top:
            raise OptionValueError(
                f"digit {digit} fixed for {letter} is outside base {top + 1} (0 to {top})",
                f"options.fixed.{letter}",
                "range",
                letter=letter,
                digit=digit,
                base=top + 1,
            )


def _check_fixed_letters(parsed: Any, fixed: Mapping[str, int]) -> None:
    """Refuse a fixed letter that does not occur in the (already parsed) puzzle."""
    for key in fixed:
        letter = str(key).upper()
        if letter not in parsed.letters:
            raise OptionValueError(
                f"fixed letter {letter} does not occur in the puzzle",
                f"options.fixed.{letter}",
                "missing",
                letter=letter,
            )


class TooManyJobs(Exception):
    """The client already has `cap` unfinished jobs (ALPHAMETIC_MAX_QUEUED_PER_CLIENT)."""

    def __init__(self, cap: int) -> None:
        """Keep the cap for the error message."""
        super().__init__(
            f"A client may have at most {cap} unfinished jobs; "
            "wait for one to finish or cancel one, then retry."
        )
        self.cap = cap


def normalise(mode: str, puzzle: str, options: Mapping[str, Any] | None) -> tuple[Mode, Any]:
    """Validate mode and options and parse the puzzle (raises OptionsError or PuzzleError)."""
    checked_mode = check_mode(mode)
    kwargs = {k: v for k, v in check_options(options).items() if v is not None}
    fixed = kwargs.pop("fixed", None)
    parsed = alphametic.parse(puzzle, **kwargs)
    if not fixed:
        return checked_mode, parsed
    _check_fixed_letters(parsed, fixed)
    try:
        return checked_mode, alphametic.parse(puzzle, fixed=fixed, **kwargs)
    except alphametic.PuzzleError as exc:
        # The puzzle parsed without them, so the fixed digits are what is wrong (two letters
        # on one digit, a leading letter on 0): say so on the option, not on the puzzle.
        raise OptionValueError(exc.message, "options.fixed", "conflict") from exc


def fingerprint(mode: Mode, puzzle: Any) -> str:
    """Hash of normalised puzzle text, options and mode: equal for identical submissions."""
    payload = json.dumps([mode.value, puzzle.text, puzzle.options()], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


STORAGE_RETRY = 60  # seconds a client refused for lack of memory is told to wait


class StorageFull(Exception):
    """Redis is above its memory watermark: no new job that stores solutions for now."""

    def __init__(self, retry_after: int) -> None:
        """Keep the seconds to wait for the error answer."""
        super().__init__(
            "The job store is nearly full; new enumerations are refused for now. "
            "Count the solutions instead, or retry later."
        )
        self.retry_after = retry_after
