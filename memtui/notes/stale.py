"""Stale review: rank notes that may be out of date, each with the reasons why; never deletes."""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rapidfuzz import fuzz

from memtui.notes.bulk import Pacer
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import from_db
from memtui.notes.records import body_sample

DAY = 86400.0
UNREAD_AFTER_DAYS = 30
UNCHANGED_AFTER_DAYS = 90
UNVERIFIED_AFTER_DAYS = 180
LARGE_NOTE_BYTES = 20_000
DUPLICATE_TITLE_RATIO = 90.0
DUPLICATE_CONTENT_RATIO = 80.0
MAX_BLOCK = 64
"""Title words shared by more notes than this are too common to block duplicates on."""
ARCHIVE_FOLDER = "archive"
"""Notes under this top-level folder were set aside on purpose and are never proposed again."""

_TITLE_WORD = re.compile(r"[^\W\d_]{3,}")


@dataclass(frozen=True)
class StaleReason:
    """One signal that a note may be stale: a kind id, a human sentence, and how much it counts."""

    kind: str
    text: str
    weight: float


NEVER_READ = StaleReason("never-read", "never read by an agent", 1.0)
"""The reason of every note no agent has read in the UNREAD_AFTER_DAYS or more that both the
note and the history have existed: one object, not one per note."""
ORPHAN = StaleReason("orphan", "no links in or out", 0.5)
"""The reason of every note without links: one object, not one per note."""


@dataclass(frozen=True)
class StaleCandidate:
    """A note proposed for review, with its total score and every reason."""

    path: str
    score: float
    reasons: tuple[StaleReason, ...]


def parse_date(value: Any) -> float | None:
    """Unix seconds of an ISO date or datetime string (dates are midnight UTC); None if not a date."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _days(seconds: float) -> int:
    """Whole days in a span of seconds."""
    return int(seconds // DAY)


def _plural(count: int, word: str) -> str:
    """`1 day`, `2 days`."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def is_archived(relpath: str) -> bool:
    """Whether a note lies under the top-level archive folder."""
    return relpath.startswith(ARCHIVE_FOLDER + "/")


@dataclass(frozen=True)
class NoteFacts:
    """What the review reads from one note's index record."""

    mtime: float
    size: int
    title: str
    """The title, lowercased."""
    sample_hash: str | None
    """A hash of the body sample, None when the sample is too short to compare."""
    expires: tuple[float, str] | None
    """When the note expires, and the frontmatter text that says so."""
    verified: tuple[float, str] | None
    """When the note was last verified, and the frontmatter text that says so."""


def _dated(value: Any) -> tuple[float, str] | None:
    """A frontmatter date as (unix seconds, its text), or None."""
    when = parse_date(value)
    return None if when is None else (when, str(value))


def all_facts(index: NoteIndex) -> dict[str, NoteFacts]:
    """Facts of every reviewed note (every note outside the archive folder), sorted by path."""
    rows = index.db.connection().execute(
        "SELECT path, mtime_ns, size, title, info FROM files WHERE kind = 1 "
        "AND NOT (path > ? AND path < ?) ORDER BY path",
        (ARCHIVE_FOLDER + "/", ARCHIVE_FOLDER + "0"),
    )
    facts: dict[str, NoteFacts] = {}
    for path, mtime_ns, size, title, info in rows:
        extras = json.loads(info)
        facts[from_db(path)] = NoteFacts(
            mtime=mtime_ns / 1e9,
            size=size,
            title=from_db(title or "").lower(),
            sample_hash=extras.get("sample"),
            expires=_dated(extras.get("expires")),
            verified=_dated(extras.get("verified")),
        )
    return facts


def near_duplicates(
    index: NoteIndex, facts: dict[str, NoteFacts] | None = None
) -> dict[str, list[tuple[str, str]]]:
    """relpath -> [(other relpath, why)] for notes with the same body or near-identical title and body.

    Archived notes are left out. Pairs are only compared inside small blocks (same body hash, or
    a shared uncommon title word), so the work grows with the number of notes, not its square;
    a body is read from its file only when two titles are near-identical.
    """
    facts = all_facts(index) if facts is None else facts
    by_hash, by_word = _blocks(facts)
    found: dict[str, dict[str, str]] = defaultdict(dict)

    def pair(a: str, b: str, why: str) -> None:
        found[a].setdefault(b, why)
        found[b].setdefault(a, why)

    for group in by_hash.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                pair(a, b, "same content")
    for a, b, why in _similar_pairs(index, facts, by_word):
        pair(a, b, why)
    return {p: sorted(others.items()) for p, others in found.items()}


def _blocks(
    facts: dict[str, NoteFacts],
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Notes by body hash, and by each uncommon-enough word of their titles."""
    pace = Pacer()
    by_hash: dict[str, list[str]] = defaultdict(list)
    by_word: dict[str, list[str]] = defaultdict(list)
    for relpath, fact in facts.items():
        pace()
        if fact.sample_hash is not None:
            by_hash[fact.sample_hash].append(relpath)
        for word in set(_TITLE_WORD.findall(fact.title)):
            by_word[word].append(relpath)
    return by_hash, by_word


def _similar_pairs(
    index: NoteIndex, facts: dict[str, NoteFacts], by_word: dict[str, list[str]]
) -> Iterator[tuple[str, str, str]]:
    """(a, b, why) for notes of one title-word block with near-identical titles and bodies."""
    pace = Pacer()
    samples: dict[str, str] = {}

    def sample(relpath: str) -> str:
        if relpath not in samples:
            samples[relpath] = body_sample(index.read_text(relpath) or "")
        return samples[relpath]

    compared: set[tuple[str, str]] = set()
    for group in by_word.values():
        if len(group) < 2 or len(group) > MAX_BLOCK:
            continue
        pace()
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if (a, b) in compared:
                    continue
                compared.add((a, b))
                if not fuzz.token_sort_ratio(
                    facts[a].title, facts[b].title, score_cutoff=DUPLICATE_TITLE_RATIO
                ):
                    continue
                content = fuzz.ratio(sample(a), sample(b), score_cutoff=DUPLICATE_CONTENT_RATIO)
                if content:
                    yield a, b, f"similar title and content ({int(content)}%)"


def review(
    index: NoteIndex, history: Any | None, *, now: float | None = None
) -> list[StaleCandidate]:
    """Every note outside the archive with a staleness signal, highest score first (ties by path)."""
    now = time.time() if now is None else now
    reads: dict[str, float] | None = history.last_agent_reads() if history is not None else None
    recorded_from = history.recording_since() if history is not None else None
    with index.db.snapshot():
        facts = all_facts(index)
        links = Links(index.linked(), index.unresolved_counts())
        duplicates = near_duplicates(index, facts)
    candidates: list[StaleCandidate] = []
    pace = Pacer()
    for relpath, fact in facts.items():
        pace()
        reasons = _reasons(relpath, fact, links, reads, recorded_from, duplicates, now)
        if reasons:
            score = round(sum(r.weight for r in reasons), 3)
            candidates.append(StaleCandidate(relpath, score, tuple(reasons)))
    candidates.sort(key=lambda c: (-c.score, c.path))
    return candidates


@dataclass(frozen=True)
class Links:
    """What the review needs of the store's links: who is linked, and unresolved targets."""

    linked: set[str]
    unresolved: dict[str, list[str]]


def _reasons(
    relpath: str,
    fact: NoteFacts,
    links: Links,
    reads: dict[str, float] | None,
    recorded_from: float | None,
    duplicates: dict[str, list[tuple[str, str]]],
    now: float,
) -> list[StaleReason]:
    """The staleness reasons of one note, in a fixed order."""
    reasons: list[StaleReason] = []
    if reads is not None:
        last_read = reads.get("/memories/" + relpath)
        if last_read is None:
            watched_since = max(recorded_from if recorded_from is not None else now, fact.mtime)
            if _days(now - watched_since) >= UNREAD_AFTER_DAYS:
                reasons.append(NEVER_READ)
        elif (days := _days(now - last_read)) >= UNREAD_AFTER_DAYS:
            reasons.append(
                StaleReason(
                    "unread",
                    f"not read by an agent for {_plural(days, 'day')}",
                    min(3.0, days / UNREAD_AFTER_DAYS),
                )
            )
    if fact.mtime and (days := _days(now - fact.mtime)) >= UNCHANGED_AFTER_DAYS:
        reasons.append(
            StaleReason("unchanged", f"unchanged for {_plural(days, 'day')}", min(2.0, days / 180))
        )
    if fact.expires is not None and fact.expires[0] < now:
        reasons.append(StaleReason("expired", f"expired on {fact.expires[1]}", 3.0))
    if (
        fact.verified is not None
        and (days := _days(now - fact.verified[0])) >= UNVERIFIED_AFTER_DAYS
    ):
        reasons.append(
            StaleReason(
                "unverified",
                f"last verified {_plural(days, 'day')} ago ({fact.verified[1]})",
                min(2.5, 1.0 + days / 365),
            )
        )
    if relpath not in links.linked:
        reasons.append(ORPHAN)
    unresolved = links.unresolved.get(relpath, [])
    if unresolved:
        shown = ", ".join(unresolved[:3]) + (", ..." if len(unresolved) > 3 else "")
        reasons.append(
            StaleReason(
                "unresolved",
                f"{_plural(len(unresolved), 'unresolved link')}: {shown}",
                min(1.5, 0.5 * len(unresolved)),
            )
        )
    for other, why in duplicates.get(relpath, ())[:3]:
        reasons.append(StaleReason("duplicate", f"near-duplicate of {other} ({why})", 2.0))
    if fact.size >= LARGE_NOTE_BYTES:
        reasons.append(
            StaleReason(
                "large",
                f"very large ({fact.size // 1000} KB)",
                min(2.0, fact.size / LARGE_NOTE_BYTES / 2),
            )
        )
    return reasons
