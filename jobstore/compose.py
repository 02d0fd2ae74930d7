"""A compose job: its word list and options admitted, and its results kept by puzzle text.

A compose job's `puzzle` is its word list (the distinct words, folded as puzzles are, space
separated) and its `letters` the letters they use (`count_only`: its results are counted into
its `found`, none stored); its results live apart from solutions
(keys.composed: puzzle text -> the result as JSON, and their order), so a result found again
after a resume (the engine's ranges restart at a set of addends) is stored once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis

import alphametic
from alphametic.compose import (
    bad_words,
    by_difficulty,
    check_counts,
    check_reach,
    check_words,
)

from .admission import OptionsError, Submission
from .keys import Keys
from .model import TERMINAL, Mode, ResultOrder, State
from .shards import shard_id

OPTION_NAMES = frozenset(
    {"addends", "base", "count_only", "distinct_words", "leading_zeros", "solutions"}
)
# Options that are true or false (JSON booleans), false when not given.
SWITCHES = ("count_only", "distinct_words")
# Words that are not one word of letters are left out, not refused: the job's options then
# name them (`skipped_words`, as typed, each once).
SKIP_BAD_WORDS = "skip_bad_words"
DEFAULTS: dict[str, Any] = {
    "addends": 2,
    "base": 10,
    "count_only": False,
    "distinct_words": False,
    "leading_zeros": alphametic.LeadingZeros.MULTI_LETTER.value,
    "solutions": 1,
}


@dataclass(frozen=True)
class WordList:
    """A compose job's input as the store keeps it: its words, letters and options."""

    words: tuple[str, ...]
    settings: Mapping[str, Any]

    @property
    def text(self) -> str:
        """The words, space separated: the job record's `puzzle`."""
        return " ".join(self.words)

    @property
    def letters(self) -> tuple[str, ...]:
        """Every letter the words use, sorted."""
        return tuple(sorted(set("".join(self.words))))

    def options(self) -> dict[str, Any]:
        """The job's options, every one given (defaults filled in)."""
        return dict(self.settings)


def check_compose_options(options: object) -> dict[str, Any]:
    """A compose job's options with defaults filled in (OptionsError for their JSON shape, the
    engine's PuzzleError for a value: a count out of range, a base or a policy)."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise OptionsError("'options' must be an object.")
    unknown = sorted(str(k) for k in options if k not in OPTION_NAMES | {SKIP_BAD_WORDS})
    if unknown:
        raise OptionsError(f"Unknown option(s): {', '.join(unknown)}.")
    addends, solutions = check_counts(
        options.get("addends", DEFAULTS["addends"]),
        options.get("solutions", DEFAULTS["solutions"]),
    )
    if "leading_zeros" in options and not isinstance(options["leading_zeros"], str):
        raise OptionsError("'options.leading_zeros' must be a string.", "options.leading_zeros")
    base, policy, _ = alphametic.check_options(
        options.get("base", DEFAULTS["base"]),
        options.get("leading_zeros", DEFAULTS["leading_zeros"]),
        None,
    )
    checked = {"addends": addends, "base": base, "leading_zeros": policy.value}
    for name in SWITCHES:
        value = options.get(name, DEFAULTS[name])
        if not isinstance(value, bool):
            raise OptionsError(f"'options.{name}' must be true or false.", f"options.{name}")
        checked[name] = value
    return {**checked, "solutions": solutions}


def _skipping(options: object) -> dict[str, Any]:
    """The skip_bad_words option as given ({} when false or absent: the job's options and
    fingerprint stay those of a list without it)."""
    skip = options.get(SKIP_BAD_WORDS, False) if isinstance(options, Mapping) else False
    if not isinstance(skip, bool):
        raise OptionsError(f"'options.{SKIP_BAD_WORDS}' must be true or false.",
                           f"options.{SKIP_BAD_WORDS}")  # fmt: skip
    return {SKIP_BAD_WORDS: True} if skip else {}


def admit_compose(words: object, options: object, most: int, seconds: float) -> Submission:
    """Check a compose request's words (at most `most` distinct ones) and options, once: their
    JSON shapes here, their values by the engine (PuzzleError naming the field), and that its
    sets of addends can be walked within `seconds` of search (its budget)."""
    skip = isinstance(options, Mapping) and options.get(SKIP_BAD_WORDS) is True
    checked = check_words(words, most, skip_bad=skip)
    settings = check_compose_options(options) | _skipping(options)
    if skip and isinstance(words, list):  # the words left out, as typed
        settings["skipped_words"] = [fault["word"] for fault in bad_words(words)]
    word_list = WordList(tuple(checked), settings)
    distinct, base = bool(settings["distinct_words"]), int(settings["base"])
    check_reach(len(checked), int(settings["addends"]), seconds, distinct, checked, base)
    payload = json.dumps([Mode.COMPOSE.value, word_list.text, word_list.options()], sort_keys=True)
    fingerprint = hashlib.sha256(payload.encode()).hexdigest()
    # Never small: a run lists every set of addends (its band is BIG's, as a big enumeration).
    return Submission(Mode.COMPOSE, word_list, fingerprint, False, None)


def bytes_per_result(word_list: WordList) -> float:
    """Bytes Redis takes for one stored result of this list, at most: its text three times
    (a field of the results hash, its JSON, the order list) for its longest candidate, its
    solution's letters, the rest of its JSON and the entries' own overhead."""
    longest = max(len(word.encode()) for word in word_list.words)
    text = (int(word_list.settings["addends"]) + 1) * (longest + 3)
    return 3 * text + 12 * len(word_list.letters) + 200


def encode(text: str, solutions: list[dict[str, int]], difficulty: dict[str, Any] | None) -> str:
    """One result as stored: its puzzle, its number of solutions, its solution when it has
    only one, and its difficulty."""
    body = {
        "puzzle": text,
        "solutions": len(solutions),
        "solution": solutions[0] if len(solutions) == 1 else None,
        "difficulty": difficulty,
    }
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


def _ranked(
    client: redis.Redis, keys: Keys, parts: list[str], order: ResultOrder
) -> list[dict[str, Any]]:
    """Every result the parts stored, by difficulty (alphametic.compose.by_difficulty; at
    most the results cap of them, read whole and sorted here: a few milliseconds a thousand
    results)."""
    with client.pipeline(transaction=False) as pipe:
        for part in parts:
            pipe.hvals(keys.composed(part))
        bodies = [json.loads(body) for values in pipe.execute() for body in values]
    hardest = order is ResultOrder.HARDEST

    def rank(item: dict[str, Any]) -> tuple[int, int, str]:
        """The item's place in the engine's order by difficulty."""
        rating = item.get("difficulty")
        return by_difficulty(int(rating["score"]) if rating else None, item["puzzle"], hardest)

    return sorted(bodies, key=rank)


def results(
    client: redis.Redis,
    keys: Keys,
    job_id: str,
    offset: int,
    limit: int,
    order: ResultOrder = ResultOrder.FOUND,
) -> tuple[list[dict[str, Any]], int]:
    """A page of a compose job's results in the order asked, and how many are stored (a
    sharded job's: its shards' in order, as far as known; see _visible)."""
    parts, state = client.hmget(keys.job(job_id), "shards", "state")
    ids = [shard_id(job_id, i) for i in range(int(parts or 0))] or [job_id]
    counts = _visible(client, keys, ids, state in TERMINAL) if parts else None
    if counts is None:
        counts = [int(client.llen(keys.composed_order(job_id)))]
    if order is not ResultOrder.FOUND:
        listed = _ranked(client, keys, [p for p, n in zip(ids, counts, strict=True) if n], order)
        return listed[offset : offset + limit], len(listed)
    total, end = sum(counts), offset + limit
    found: list[dict[str, Any]] = []
    start_of_part = 0
    for part, count in zip(ids, counts, strict=True):
        lo, hi = max(offset, start_of_part), min(end, start_of_part + count)
        if lo < hi:
            first = keys.composed_order(part)
            texts = client.lrange(first, lo - start_of_part, hi - start_of_part - 1)
            bodies = client.hmget(keys.composed(part), texts) if texts else []
            found += [json.loads(body) for body in bodies if body is not None]
        start_of_part += count
    return found, total


def _visible(client: redis.Redis, keys: Keys, ids: list[str], done: bool) -> list[int]:
    """Results of each shard that belong to the job's list as known so far: while it runs,
    every shard up to the first one not succeeded, and what that one stored (so the list only
    grows at its end and a page once read stays as it was); once ended, every shard's."""
    with client.pipeline(transaction=False) as pipe:
        for part in ids:
            pipe.hget(keys.job(part), "state")
            pipe.llen(keys.composed_order(part))
        replies = pipe.execute()
    counts: list[int] = []
    for state, count in zip(replies[::2], replies[1::2], strict=True):
        counts.append(int(count))
        if not done and state != State.SUCCEEDED.value:
            break
    return counts + [0] * (len(ids) - len(counts))
