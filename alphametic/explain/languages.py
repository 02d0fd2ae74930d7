"""The languages explanations are written in, each with its table of step sentences."""

from __future__ import annotations

from collections.abc import Mapping

from .ja import JAPANESE
from .text import ENGLISH
from .th import THAI

__all__ = ["TABLES", "from_locale"]

#: Language tag -> the step sentences in that language.
TABLES: dict[str, Mapping[str, str]] = {"en": ENGLISH, "ja": JAPANESE, "th": THAI}


def from_locale(environ: Mapping[str, str]) -> str:
    """The language of the POSIX locale (LC_ALL, then LC_MESSAGES, then LANG: "ja_JP.UTF-8"
    is "ja"), or English when it names none of TABLES."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            tag = value.split(".")[0].split("_")[0].split("-")[0].lower()
            return tag if tag in TABLES else "en"
    return "en"
