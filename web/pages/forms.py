"""The puzzle form: its fields, the options they make, and every error said under its field."""

from __future__ import annotations

from typing import Any

from werkzeug.datastructures import MultiDict

from alphametic import MAX_BASE, MIN_BASE, PuzzleError
from alphametic.compose import ADDENDS, SOLUTIONS
from jobstore import Job, Mode, OptionsError
from web.api.estimates import parse_fixed
from web.bodies import whole_number
from web.errors import puzzle
from web.i18n import _, _l, ngettext, number

DEFAULT_FORM = {
    "puzzle": "",
    "mode": Mode.SOLVE.value,
    "leading_zeros": "multi-letter",
    "base": "10",
    "fixed": "",
}
# The (lowest, highest) of each number field of the forms, as the engine checks them.
BOUNDS = {"base": (MIN_BASE, MAX_BASE), "addends": ADDENDS, "solutions": SOLUTIONS}
# What each mode is called on the form, and on its submit button.
MODE_LABELS = {
    "solve": (_l("Find one solution"), _l("Solve")),
    "enumerate": (_l("Find every solution"), _l("Find all solutions")),
    "count": (_l("Count the solutions"), _l("Count")),
}
POLICIES = [
    ("multi-letter", _l("Words of two or more letters may not start with 0")),
    ("every-word", _l("No word may start with 0, not even a one-letter word")),
    ("allow", _l("Any word may start with 0")),
]


def modes() -> list[tuple[str, str, str]]:
    """(value, label, button label) of every mode of a puzzle the job store offers, in its
    order (compose takes words, not a puzzle: its own form, web/pages/compose.py)."""
    labels = [
        (mode.value, MODE_LABELS.get(mode.value, (mode.value, mode.value)))
        for mode in Mode
        if mode is not Mode.COMPOSE
    ]
    return [(value, str(label), str(button)) for value, (label, button) in labels]


def policy_label(value: str) -> str:
    """What a leading-zero policy means, in the page's language."""
    return next((str(text) for name, text in POLICIES if name == value), value)


def form_values(source: MultiDict[str, str] | Any) -> dict[str, str]:
    """Read the form fields (or a query prefill) with defaults, as the user typed them."""
    return {key: str(source.get(key, default))[:20_000] for key, default in DEFAULT_FORM.items()}


def job_values(job: Job) -> dict[str, str]:
    """The form's fields as a stored job fills them in ("Edit and resubmit")."""
    fixed = job.options.get("fixed") or {}
    return {
        "puzzle": job.puzzle,
        "mode": job.mode.value,
        "leading_zeros": str(job.options.get("leading_zeros", DEFAULT_FORM["leading_zeros"])),
        "base": str(job.options.get("base", DEFAULT_FORM["base"])),
        "fixed": ", ".join(f"{k}={v}" for k, v in fixed.items()),
    }


def form_options(values: dict[str, str]) -> dict[str, Any]:
    """The job options the form's fields make (OptionsError naming the field if one is bad, or
    the engine's PuzzleError for a letter typed with two digits)."""
    base = whole_number(values["base"])
    if base is None:
        raise OptionsError("bad base", "options.base")
    options: dict[str, Any] = {"base": base, "leading_zeros": values["leading_zeros"]}
    if values["fixed"].strip():
        options["fixed"] = parse_fixed(values["fixed"])
    return options


def field_of(exc: OptionsError | PuzzleError) -> str:
    """The form field an option error belongs under ("options.fixed.E" -> "fixed"; a compose
    request's "words" -> "words")."""
    name = exc.field.split(".")
    if name[0] == "options" and len(name) > 1:
        return name[1]
    return name[0] if name[0] in ("mode", "words") else "options"


def option_message(exc: OptionsError | PuzzleError) -> str:
    """Say what is wrong with an option in the page's language (an engine error by its code,
    in English too: the pages' plain sentences, not the engine's)."""
    if isinstance(exc, PuzzleError):
        return puzzle.message(exc)
    messages = {
        "options.base": _(
            "The base must be a whole number from %(low)s to %(high)s.", low=MIN_BASE, high=MAX_BASE
        ),
        "options.leading_zeros": _("Choose one of the rules for leading zeros in the list."),
        "options.fixed": _("Write known digits as letter=digit pairs, for example E=5, M=1."),
        "mode": _("Choose what to find: one solution, every solution or the count."),
    }
    return messages.get(".".join(exc.field.split(".")[:2]), str(exc))


def puzzle_message(exc: PuzzleError) -> str:
    """Say what is wrong with the puzzle, and where (counting characters from 1), in the page's
    language."""
    detail = puzzle.message(exc)
    if exc.position is None:
        return detail
    return _("Character %(position)s: %(detail)s", position=exc.position + 1, detail=detail)


def rate_message(seconds: int) -> str:
    """Say that this browser's address started too many jobs in a short time, and in how many
    seconds it may start the next (the rate window's end)."""
    return ngettext(
        "Too many jobs were started from your address in a short time. Try again in "
        "%(count)s second.",
        "Too many jobs were started from your address in a short time. Try again in "
        "%(count)s seconds.",
        seconds,
        count=number(seconds),
    )


def queue_message(cap: int) -> str:
    """Say that this browser's address has too many unfinished jobs."""
    return _(
        "One person may have at most %(cap)s unfinished jobs at once. "
        "Wait for one to finish or cancel one, then try again.",
        cap=cap,
    )
