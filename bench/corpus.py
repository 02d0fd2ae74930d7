"""Deterministic mixed corpus of addition puzzles for the engine benchmark."""

from __future__ import annotations

import random
import string

# Classic puzzles (known answers in the team notes) and the exercism conformance cases.
CLASSIC = [
    "SEND + MORE = MONEY",
    "BASE + BALL = GAMES",
    "AB + DC = CBB",
    "NUM + BER = PLAY",
    "BILL + GATES = GREAT",
    "FLY + FLY + FLY = AWAY",
    "CP + IS + FUN = TRUE",
    "TWO + TWO = FOUR",
    "ODD + ODD = EVEN",
    "WRONG + WRONG = RIGHT",
    "ABC + DEF = GHI",
    "FORTY + TEN + TEN = SIXTY",
    "I + BB = ILL",
    "A = B",
    "ACA + DD = BD",
    "A + A + A + A + A + A + A + A + A + A + A + B = BCC",
    "AS + A = MOM",
    "NO + NO + TOO = LATE",
    "HE + SEES + THE = LIGHT",
    "AND + A + STRONG + OFFENSE + AS + A + GOOD = DEFENSE",
    "DONALD + GERALD = ROBERT",
    "CROSS + ROADS = DANGER",
    "COCA + COLA = OASIS",
    "SATURN + URANUS = PLANETS",
    "EARTH + AIR + FIRE + WATER = NATURE",
]


def _word(rng: random.Random, letters: str, length: int) -> str:
    """Return a random word over letters."""
    return "".join(rng.choice(letters) for _ in range(length))


def constructed(rng: random.Random, n: int, addends: int, max_len: int) -> str | None:
    """Return a puzzle with at least one solution built from a random digit assignment."""
    letters = "".join(rng.sample(string.ascii_uppercase, n))
    digits = rng.sample(range(10), n)
    value = dict(zip(letters, digits, strict=True))
    letter_of = {d: x for x, d in value.items()}
    words = []
    for _ in range(addends):
        length = rng.randint(1, max_len)
        word = _word(rng, letters, length)
        while length > 1 and value[word[0]] == 0:
            word = _word(rng, letters, length)
        words.append(word)
    total = sum(int("".join(str(value[c]) for c in w)) for w in words)
    if any(int(ch) not in letter_of for ch in str(total)):
        return None
    result = "".join(letter_of[int(ch)] for ch in str(total))
    return " + ".join(words) + " = " + result


def perturbed(rng: random.Random, puzzle: str) -> str:
    """Return the puzzle with one result letter changed (usually unsolvable)."""
    left, result = puzzle.split(" = ")
    letters = sorted(set(puzzle) - set(" +="))
    i = rng.randrange(len(result))
    other = rng.choice([x for x in letters if x != result[i]] or letters)
    return f"{left} = {result[:i]}{other}{result[i + 1 :]}"


def corpus(seed: int = 2026, size: int = 200) -> list[tuple[str, str]]:
    """Return (category, puzzle) pairs: classic, random, and 100-200-addend puzzles."""
    rng = random.Random(seed)
    out = [("classic", p) for p in CLASSIC]
    big: list[tuple[str, str]] = []
    while len(big) < 20:
        p = constructed(rng, 10, rng.randint(100, 200), rng.randint(3, 8))
        if p:
            big.append(("big", p if len(big) % 2 == 0 else perturbed(rng, p)))
    rand: list[tuple[str, str]] = []
    while len(out) + len(big) + len(rand) < size:
        n = rng.randint(5, 10)
        p = constructed(rng, n, rng.randint(2, 30), rng.randint(2, 6))
        if p is None:
            continue
        kind = rng.random()
        if kind < 0.35:
            p = perturbed(rng, p)
        rand.append(("random", p))
    return out + rand + big


if __name__ == "__main__":
    for category, puzzle in corpus():
        print(f"{category}\t{puzzle}")
