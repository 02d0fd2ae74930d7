"""What a submission must pass before it is queued: its mode, options and puzzle checked, its
fingerprint for deduplication, and the error of the per-client cap (JobStore.submit uses them).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import alphametic

from .records import Mode

OPTION_NAMES = frozenset({"base", "leading_zeros", "fixed"})


class OptionsError(ValueError):
    """The submitted mode or options are not acceptable (bad puzzles raise PuzzleError)."""


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
    try:
        checked_mode = Mode(mode)
    except ValueError:
        raise OptionsError(f"mode must be 'solve' or 'enumerate', not {mode!r}") from None
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise OptionsError("options must be an object")
    unknown = sorted(str(k) for k in options if k not in OPTION_NAMES)
    if unknown:
        raise OptionsError(f"unknown option(s): {', '.join(unknown)}")
    kwargs = {k: v for k, v in options.items() if v is not None}
    return checked_mode, alphametic.parse(puzzle, **kwargs)


def fingerprint(mode: Mode, puzzle: Any) -> str:
    """Hash of normalised puzzle text, options and mode: equal for identical submissions."""
    payload = json.dumps([mode.value, puzzle.text, puzzle.options()], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()
