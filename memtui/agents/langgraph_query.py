"""What LangGraph's search and list_namespaces ask, answered as InMemoryStore answers it.

`matches_filter` and `matches_condition` follow `langgraph.store.memory` operator for operator
(`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, nested objects, lists), errors included; `rank`
orders items by how well their text matches a query, on the scale memtui's search uses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langgraph.store.base import MatchCondition
from rapidfuzz import fuzz

WORD = re.compile(r"\w+")
EXACT, PREFIX, INSIDE = 1.0, 0.9, 0.75
"""How much a query word is worth when an item word equals it, starts with it, or holds it."""
TYPO_WEIGHT = 0.85
"""A typo match is worth at most this much (rapidfuzz ratio / 100 times this)."""
TYPO_CUTOFF = 70.0
INSIDE_MIN, TYPO_MIN = 3, 4
"""Shortest query word matched inside a longer word, and shortest matched despite typos."""


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a search filter (every key must match)."""
    if not filter:
        return True
    return all(_compare(value.get(key), wanted) for key, wanted in filter.items())


def _compare(actual: Any, wanted: Any) -> bool:
    """JSONB-like comparison: operator objects, nested objects, lists element by element."""
    if isinstance(wanted, dict):
        if any(key.startswith("$") for key in wanted):
            return all(_apply(actual, operator, operand) for operator, operand in wanted.items())
        if not isinstance(actual, dict):
            return False
        return all(_compare(actual.get(key), item) for key, item in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_compare(a, w) for a, w in zip(actual, wanted, strict=False))
        )
    return bool(actual == wanted)


def _apply(actual: Any, operator: str, operand: Any) -> bool:
    """One comparison operator; numbers are compared as floats, as InMemoryStore does."""
    if operator == "$eq":
        return bool(actual == operand)
    if operator == "$ne":
        return bool(actual != operand)
    if operator == "$gt":
        return float(actual) > float(operand)
    if operator == "$gte":
        return float(actual) >= float(operand)
    if operator == "$lt":
        return float(actual) < float(operand)
    if operator == "$lte":
        return float(actual) <= float(operand)
    raise ValueError(f"Unsupported operator: {operator}")


def matches_condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether a namespace matches a prefix or suffix condition (`*` matches any one label)."""
    path = condition.path
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"Unsupported match type: {condition.match_type}")
    return all(wanted == "*" or label == wanted for label, wanted in pairs)


def value_text(value: Any) -> str:
    """The text of a JSON value for ranking: its strings and numbers, depth first, one a line."""
    if isinstance(value, Mapping):
        return "\n".join(filter(None, (value_text(item) for item in value.values())))
    if isinstance(value, list | tuple):
        return "\n".join(filter(None, (value_text(item) for item in value)))
    if value is None or isinstance(value, bool):
        return ""
    return str(value)


def _word_quality(word: str, words: Sequence[str]) -> float:
    """How well the best item word matches one query word (0 when none does)."""
    best = 0.0
    for candidate in words:
        if candidate == word:
            return EXACT
        if candidate.startswith(word):
            best = max(best, PREFIX)
        elif len(word) >= INSIDE_MIN and word in candidate:
            best = max(best, INSIDE)
        elif len(word) >= TYPO_MIN and best < TYPO_WEIGHT:
            ratio = fuzz.ratio(word, candidate, score_cutoff=TYPO_CUTOFF)
            best = max(best, TYPO_WEIGHT * ratio / 100)
    return best


def score(query: str, text: str) -> float:
    """0-1: the mean over the query's words of their best match in `text`.

    A multi-word query found verbatim scores 1.
    """
    words = list(dict.fromkeys(WORD.findall(query.lower())))
    if not words:
        return 0.0
    lowered = text.lower()
    if len(words) > 1 and query.strip().lower() in lowered:
        return 1.0
    item_words = list(dict.fromkeys(WORD.findall(lowered)))
    return round(sum(_word_quality(word, item_words) for word in words) / len(words), 4)


def rank(query: str, texts: Iterable[str]) -> list[tuple[int, float]]:
    """(position, score) for each text, best first; equal scores keep their order."""
    scored = [(position, score(query, text)) for position, text in enumerate(texts)]
    return sorted(scored, key=lambda pair: -pair[1])
