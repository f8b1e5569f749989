"""Which statements of a subject are worth judging against each other, found without looking at
every pair.

Each rule needs something two lines share, and candidates are found through exactly that:

- the value rule needs at least half of the longer main clause in common, so two candidates
  share one of the rarest words of each (a prefix filter: with the words of every statement
  ordered rarest first, two sets sharing half of the larger one share a word among the first
  half-plus-one of each);
- the negation rule needs two thirds of the smaller claim's words in the other, so the smaller
  shares one of its rarest third-plus-one with the other; only pairs of opposite polarity;
- a shared key with a short value (`Timezone: ...`) is its own block;
- a line stating a change is paired with the lines sharing one of its uncommon words, or a
  topic.

A word shared by more than MAX_HOLDERS statements of one subject is too common to pair on.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from memtui.notes.contradiction_rules import (
    MAX_KEYED_WORDS,
    MIN_SHARED_SHARE,
    NEGATION_OVERLAP,
    TOPICS,
    states_change,
)
from memtui.notes.statement_words import NEGATIONS, read_statement

MAX_HOLDERS = 64
"""Statements sharing a word (or a key) beyond this many are not paired on it."""
COMMON_SHARE = 0.5
"""A content word in more than this share of a subject's statements (and in more than
COMMON_MIN) does not pair a change line with others."""
COMMON_MIN = 8


@dataclass(frozen=True, slots=True)
class _Signature:
    """What pairs a statement: its main clause's stems, its short key, whether it states a
    change, and its content words and topics."""

    main: frozenset[str]
    key: str
    change: bool
    content: frozenset[str]
    negated: bool
    claimed: frozenset[str]
    """The content words a negation rule compares (negations left out)."""


def without(text: str, subject: str) -> str:
    """A statement with the words naming its subject taken out (`Alice Chen is ...` -> `is ...`)."""
    return re.sub(rf"(?i)\b{re.escape(subject)}\b", " ", text) if subject else text


def _signature(text: str, subject: str) -> _Signature:
    """The signature of one statement."""
    statement = read_statement(without(text, subject))
    content = {t.stem for t in statement.tokens if t.content}
    topics = {f"@{number}" for number, topic in enumerate(TOPICS) if content & topic}
    short = statement.key if len(statement.tokens) <= MAX_KEYED_WORDS else ""
    return _Signature(
        frozenset(t.stem for t in statement.main),
        short,
        states_change(statement),
        frozenset(content | topics),
        statement.negated,
        frozenset(t.stem for t in statement.tokens if t.content and t.text not in NEGATIONS),
    )


def _prefix_holders(signatures: list[_Signature]) -> dict[str, list[int]]:
    """Word -> the statements holding it among the rarest half-plus-one of their main words."""
    frequency = Counter(word for signature in signatures for word in signature.main)
    holders: dict[str, list[int]] = defaultdict(list)
    for i, signature in enumerate(signatures):
        words = sorted(signature.main, key=lambda word: (frequency[word], word))
        size = len(words) - math.ceil(MIN_SHARED_SHARE * len(words)) + 1
        for word in words[:size]:
            holders[word].append(i)
    return holders


def _negation_pairs(signatures: list[_Signature]) -> Iterator[tuple[int, int]]:
    """Pairs of opposite polarity sharing enough words for the negation rule: the smaller of
    the two shares one of its rarest words with the other."""
    holders: dict[str, list[int]] = defaultdict(list)
    for i, signature in enumerate(signatures):
        for word in signature.claimed:
            holders[word].append(i)
    for i, signature in enumerate(signatures):
        words = sorted(signature.claimed, key=lambda word: (len(holders[word]), word))
        size = len(words) - math.ceil(NEGATION_OVERLAP * len(words)) + 1
        for word in words[:size]:
            members = holders[word]
            if len(members) > MAX_HOLDERS:
                continue
            for j in members:
                if j != i and signatures[j].negated != signature.negated:
                    yield (min(i, j), max(i, j))


def _change_pairs(signatures: list[_Signature]) -> Iterator[tuple[int, int]]:
    """Each change line with the statements sharing an uncommon content word or a topic."""
    holders: dict[str, list[int]] = defaultdict(list)
    for i, signature in enumerate(signatures):
        for word in signature.content:
            holders[word].append(i)
    common = max(COMMON_MIN, COMMON_SHARE * len(signatures))
    for i, signature in enumerate(signatures):
        if not signature.change:
            continue
        for word in signature.content:
            members = holders[word]
            if len(members) <= common:
                yield from ((min(i, j), max(i, j)) for j in members if j != i)


def candidates(
    left: Sequence[str], right: Sequence[str] | None, subject: str = ""
) -> Iterator[tuple[int, int]]:
    """Index pairs worth judging: (i, j) with i < j within `left`, or (i in left, j in right);
    `subject` (an entity's title) is left out of the words compared."""
    both = list(left) if right is None else [*left, *right]
    signatures = [_signature(text, subject) for text in both]
    keys: dict[str, list[int]] = defaultdict(list)
    for i, signature in enumerate(signatures):
        if signature.key:
            keys[signature.key].append(i)
    blocks = [*_prefix_holders(signatures).values(), *keys.values()]
    pairs = [
        (i, j)
        for members in blocks
        if 1 < len(members) <= MAX_HOLDERS
        for n, i in enumerate(members)
        for j in members[n + 1 :]
    ]
    seen: set[tuple[int, int]] = set()
    for i, j in [*pairs, *_change_pairs(signatures), *_negation_pairs(signatures)]:
        if (i, j) in seen or (right is not None and not (i < len(left) <= j)):
            continue
        seen.add((i, j))
        yield (i, j) if right is None else (i, j - len(left))
