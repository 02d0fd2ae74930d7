"""What the job page says about a job, in the page's language (job.js says the same live).

Each sentence is one gettext pattern with named values; js_strings() hands the same patterns to
job.js, so the page reads the same whether the server or the script wrote it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from jobstore import Job, Mode, State
from web.i18n import _, _l, duration, locale_tag, ngettext, number, percent
from web.pages.forms import MODE_LABELS

STATE_LABELS = {
    "queued": _l("Queued"),
    "running": _l("Running"),
    "succeeded": _l("Finished"),
    "failed": _l("Stopped"),
    "canceled": _l("Canceled"),
}


def state_labels() -> dict[str, str]:
    """State -> its name in the page's language."""
    return {state: str(label) for state, label in STATE_LABELS.items()}


def mode_label(job: Job) -> str:
    """What the job was asked to find, in the page's language."""
    return str(MODE_LABELS.get(job.mode.value, (job.mode.value,))[0])


def _moment(value: Any) -> datetime | None:
    """An ISO-8601 string or epoch seconds as an aware datetime, or None."""
    if isinstance(value, int | float):
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def clock(value: Any) -> str:
    """A moment as HH:MM UTC (job.js shows it in the reader's own time zone)."""
    moment = _moment(value)
    return moment.strftime("%H:%M UTC") if moment else ""


def sentence_gap() -> str:
    """What goes between two sentences of one line in the page's language.

    Japanese runs sentences on after their 。 with no space; Thai marks the end of a sentence
    with a space, as English does.
    """
    return "" if locale_tag().startswith("ja") else " "


def queue_text(info: dict[str, Any]) -> str:
    """Where a queued job stands: its place in the queue and when it should start, if known."""
    parts = [_("Waiting for a worker.")]
    if info.get("queue_position") is not None:
        parts.append(_("Number %(pos)s in the queue.", pos=number(info["queue_position"])))
    start = info.get("expected_start")
    if isinstance(start, int | float) and not isinstance(start, bool) and start < 10**8:
        parts.append(_("Expected to start in about %(wait)s.", wait=duration(start)))
    elif _moment(start):
        parts.append(_("Expected to start at about %(time)s.", time=clock(start)))
    return sentence_gap().join(parts)


def at_limit(job: Job, eta: float | None) -> float:
    """The share of the search done when the time limit stops it, at its rate so far."""
    elapsed = job.elapsed or 0.0
    if eta is None or elapsed <= 0:
        return job.progress
    return min(1.0, job.progress * (elapsed + eta) / elapsed)


def eta_text(job: Job, info: dict[str, Any], limit: float) -> str:
    """An honest estimate of the end: when the time limit comes first, say so."""
    if job.state is not State.RUNNING:
        return ""
    if info.get("eta_exceeds_limit") or info.get("limit_at"):
        return _(
            "Will stop at its %(limit)s limit at %(time)s, about %(percent)s done.",
            limit=duration(limit),
            time=clock(info.get("limit_at")) or "?",
            percent=percent(at_limit(job, job.eta)),
        )
    if job.eta is None:
        return _("Time left: unknown.")
    return _("Time left: about %(eta)s.", eta=duration(job.eta))


def status_line(job: Job, info: dict[str, Any]) -> str:
    """One sentence on where the job is (the live region job.js keeps up to date)."""
    n = job.solutions_found
    if job.state is State.QUEUED:
        return queue_text(info)
    if job.state is State.RUNNING:
        return _("Searching: %(percent)s done.", percent=percent(job.progress))
    if job.state is State.SUCCEEDED:
        if n == 0:
            return _("Finished: this puzzle has no solution.")
        if job.mode is Mode.SOLVE:
            return _("Finished: solved.")
        return ngettext(
            "Finished: %(count)s solution.", "Finished: %(count)s solutions.", n, count=number(n)
        )
    if job.state is State.CANCELED:
        return ngettext(
            "Canceled after %(count)s solution.",
            "Canceled after %(count)s solutions.",
            n,
            count=number(n),
        )
    if job.error == "time limit":
        return _("Stopped at its time limit.")
    return _("Stopped by an error.")


def js_strings(limit: float) -> dict[str, Any]:
    """The patterns job.js fills in, with %(name)s placeholders, in the page's language."""
    keep = {k: f"%({k})s" for k in ("h", "m", "s", "percent", "eta", "time", "limit", "pos")}
    keep["wait"] = "%(wait)s"

    def both(singular: str, plural: str) -> list[str]:
        return [
            ngettext(singular, plural, 1, count="%(count)s"),
            ngettext(singular, plural, 2, count="%(count)s"),
        ]

    return {
        "states": state_labels(),
        "limit_len": duration(limit),
        "h": _("%(h)s h %(m)s min", h=keep["h"], m=keep["m"]),
        "ms": _("%(m)s min %(s)s s", m=keep["m"], s=keep["s"]),
        "m": _("%(m)s min", m=keep["m"]),
        "s": _("%(s)s s", s=keep["s"]),
        "unknown": _("unknown"),
        "gap": sentence_gap(),
        "queued": _("Waiting for a worker."),
        "position": _("Number %(pos)s in the queue.", pos=keep["pos"]),
        "start_in": _("Expected to start in about %(wait)s.", wait=keep["wait"]),
        "start_at": _("Expected to start at about %(time)s.", time=keep["time"]),
        "running": _("Searching: %(percent)s done.", percent=keep["percent"]),
        "eta": _("Time left: about %(eta)s.", eta=keep["eta"]),
        "eta_unknown": _("Time left: unknown."),
        "limit": _(
            "Will stop at its %(limit)s limit at %(time)s, about %(percent)s done.",
            limit=keep["limit"],
            time=keep["time"],
            percent=keep["percent"],
        ),
        "range": _(
            "%(first)s–%(last)s of %(total)s stored",
            first="%(first)s",
            last="%(last)s",
            total="%(total)s",
        ),
        "pages": _("of %(last)s", last="%(last)s"),
        "finished": both("Finished: %(count)s solution.", "Finished: %(count)s solutions."),
        "canceled": both(
            "Canceled after %(count)s solution.", "Canceled after %(count)s solutions."
        ),
        "none": _("Finished: this puzzle has no solution."),
        "solved": _("Finished: solved."),
        "stopped_limit": _("Stopped at its time limit."),
        "stopped": _("Stopped by an error."),
    }


def compose_status_line(job: Job, info: dict[str, Any], stored: int) -> str:
    """One sentence on where a compose job is: its share of the sets of words done, and the
    puzzles it found (`stored` of them kept)."""
    n = job.solutions_found
    if job.state is State.QUEUED:
        return queue_text(info)
    if job.state is State.RUNNING:
        return ngettext(
            "Composing: %(percent)s done, %(count)s puzzle found so far.",
            "Composing: %(percent)s done, %(count)s puzzles found so far.",
            n,
            percent=percent(job.progress),
            count=number(n),
        )
    if job.state is State.SUCCEEDED and job.truncated and job.truncated_reason == "budget":
        return _(
            "Stopped when your storage budget was used up, with %(count)s puzzles kept.",
            count=number(stored),
        )
    if job.state is State.SUCCEEDED and job.truncated:
        return _("Stopped at the cap of %(count)s puzzles.", count=number(stored))
    if job.state is State.SUCCEEDED:
        return ngettext(
            "Finished: %(count)s puzzle found.", "Finished: %(count)s puzzles found.", n,
            count=number(n),
        )  # fmt: skip
    if job.state is State.CANCELED:
        return ngettext(
            "Canceled after %(count)s puzzle found.",
            "Canceled after %(count)s puzzles found.",
            n,
            count=number(n),
        )
    return status_line(job, info)
