"""Small wording helpers shared by the core's messages, the command line and the screens."""

from __future__ import annotations


def noun_for(number: int, noun: str, plural: str | None = None) -> str:
    """`note` for one, `notes` (or `plural`, for irregular nouns) for any other number."""
    return noun if number == 1 else plural or noun + "s"


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 note`, `2 notes`, `0 notes` (with `plural` for irregular nouns)."""
    return f"{number:,} {noun_for(number, noun, plural)}"
