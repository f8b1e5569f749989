"""Stale review: a short, ranked list of files that may be out of date, each with its reasons.

Every signal comes from what is known of the file: its age since the last change, whether an
agent read it back since then, a newer file with near-identical content, expiry and
verification dates in its frontmatter, links that point at nothing, and (only in a store where
most notes use links) having no link at all. A file is proposed when its reasons add up to
PROPOSE_SCORE: one strong reason, or several weak ones. Only proposes; never deletes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from memtui.core.parsing.paths import from_relpath
from memtui.core.plurals import count
from memtui.notes.bulk import InteractionSignal, Pacer
from memtui.notes.duplicates import near_duplicates
from memtui.notes.index import NoteIndex
from memtui.notes.records import NOTE
from memtui.notes.review_facts import (
    ARCHIVE_FOLDER,
    LinkFacts,
    NoteFacts,
    all_facts,
    is_archived,
    link_facts,
    parse_date,
)

__all__ = [
    "ARCHIVE_FOLDER",
    "PROPOSE_SCORE",
    "StaleCandidate",
    "StaleReason",
    "is_archived",
    "near_duplicates",
    "parse_date",
    "review",
]

DAY = 86400.0
PROPOSE_SCORE = 1.0
"""Score a file needs to be proposed: one strong reason, or weak ones together."""
UNREAD_AFTER_DAYS = 30
"""Days without an agent read before it is a reason (weight 0.5, a full 1.0 at twice that)."""
UNREAD_FULL_DAYS = 60
UNCHANGED_AFTER_DAYS = 90
UNVERIFIED_AFTER_DAYS = 180
LARGE_NOTE_BYTES = 20_000
LINKED_STORE_SHARE = 0.5
"""Having no link is a reason only in a store where at least this share of notes is linked."""
SUPERSEDED_AFTER_SECONDS = 3600.0
"""A near-duplicate changed this much later than a file supersedes it; closer ones are twins."""
MAX_LINKS_NAMED = 3


@dataclass(frozen=True)
class StaleReason:
    """One signal that a file may be stale: a kind id, a human sentence, and how much it counts."""

    kind: str
    text: str
    weight: float


ORPHAN = StaleReason("orphan", "no links in or out, in a store where most notes link", 0.5)
"""The reason of every unlinked note of a linked store: one object, not one per note."""


@dataclass(frozen=True)
class StaleCandidate:
    """A file proposed for review, with its total score and every reason."""

    path: str
    score: float
    reasons: tuple[StaleReason, ...]


@dataclass(frozen=True)
class ReadFacts:
    """What the history says of agent reads: the last read of each file, and since when it
    has been recording (None without a history)."""

    reads: dict[str, float] | None
    recorded_from: float | None


@dataclass(frozen=True)
class StoreFacts:
    """Everything the reasons of one file are computed from, read in one index snapshot."""

    facts: dict[str, NoteFacts]
    links: LinkFacts
    duplicates: dict[str, list[tuple[str, str]]]
    reads: ReadFacts
    now: float


def _days(seconds: float) -> int:
    """Whole days in a span of seconds."""
    return int(seconds // DAY)


def _named(targets: list[str]) -> str:
    """The first few link targets, comma separated, `...` when there are more."""
    return ", ".join(targets[:MAX_LINKS_NAMED]) + (
        ", ..." if len(targets) > MAX_LINKS_NAMED else ""
    )


def gather(
    index: NoteIndex, history: Any | None, now: float, pace: Pacer | None = None
) -> StoreFacts:
    """Read what the review needs from the index (one snapshot) and the history."""
    pace = pace or Pacer()
    reads = ReadFacts(
        history.last_agent_reads() if history is not None else None,
        history.recording_since() if history is not None else None,
    )
    with index.db.snapshot():
        facts = all_facts(index, pace)
        links = link_facts(index, facts, pace)
        duplicates = near_duplicates(index, facts, pace=pace)
    return StoreFacts(facts, links, duplicates, reads, now)


def review(
    index: NoteIndex,
    history: Any | None,
    *,
    now: float | None = None,
    min_score: float = PROPOSE_SCORE,
    interaction: InteractionSignal | None = None,
) -> list[StaleCandidate]:
    """Every file outside the archive whose reasons reach `min_score`, highest score first (ties
    by path); in a thread it rests more while `interaction` says the app is in use."""
    pace = Pacer(interaction)
    store = gather(index, history, time.time() if now is None else now, pace)
    candidates: list[StaleCandidate] = []
    for relpath, fact in store.facts.items():
        pace()
        reasons = file_reasons(relpath, fact, store)
        score = round(sum(r.weight for r in reasons), 3)
        if reasons and score >= min_score:
            candidates.append(StaleCandidate(relpath, score, tuple(reasons)))
    candidates.sort(key=lambda c: (-c.score, c.path))
    return candidates


def file_reasons(relpath: str, fact: NoteFacts, store: StoreFacts) -> list[StaleReason]:
    """The staleness reasons of one file, in a fixed order."""
    reasons = [
        *_read_reasons(relpath, fact, store.reads, store.now),
        *_date_reasons(fact, store.now),
        *_duplicate_reasons(relpath, fact, store),
        *_link_reasons(relpath, fact, store.links),
    ]
    if fact.size >= LARGE_NOTE_BYTES:
        reasons.append(
            StaleReason(
                "large",
                f"very large ({fact.size // 1000} KB, about {fact.size // 4000}k tokens per view)",
                min(2.0, fact.size / LARGE_NOTE_BYTES / 2),
            )
        )
    return reasons


def _unread_weight(days: int) -> float:
    """How much a span without an agent read counts: 0.5 at 30 days, 1.0 at 60, at most 2."""
    return round(min(2.0, days / UNREAD_FULL_DAYS), 3)


def _read_reasons(relpath: str, fact: NoteFacts, reads: ReadFacts, now: float) -> list[StaleReason]:
    """Whether agents read the file back since it last changed, or at all lately."""
    if reads.reads is None:
        return []
    last_read = reads.reads.get(from_relpath(relpath))
    if last_read is not None and last_read >= fact.mtime:
        days = _days(now - last_read)
        if days < UNREAD_AFTER_DAYS:
            return []
        text = f"not read by an agent for {count(days, 'day')}"
        return [StaleReason("unread", text, _unread_weight(days))]
    recorded_from = reads.recorded_from if reads.recorded_from is not None else now
    days = _days(now - max(recorded_from, fact.mtime))
    if days < UNREAD_AFTER_DAYS:
        return []
    if last_read is not None:
        text = f"changed {count(days, 'day')} ago, not read back by an agent since"
        return [StaleReason("unread", text, _unread_weight(days))]
    if fact.mtime >= recorded_from:
        text = f"written {count(days, 'day')} ago, never read back by an agent"
    else:
        text = f"never read by an agent in {count(days, 'day')} of history"
    return [StaleReason("never-read", text, _unread_weight(days))]


def _date_reasons(fact: NoteFacts, now: float) -> list[StaleReason]:
    """Age since the last change, and the frontmatter's expiry and verification dates."""
    reasons: list[StaleReason] = []
    if fact.mtime and (days := _days(now - fact.mtime)) >= UNCHANGED_AFTER_DAYS:
        reasons.append(
            StaleReason("unchanged", f"unchanged for {count(days, 'day')}", min(2.0, days / 180))
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
                f"last verified {count(days, 'day')} ago ({fact.verified[1]})",
                min(2.5, 1.0 + days / 365),
            )
        )
    return reasons


def _duplicate_reasons(relpath: str, fact: NoteFacts, store: StoreFacts) -> list[StaleReason]:
    """A newer near-duplicate supersedes the file; one changed about when it did is its twin."""
    reasons: list[StaleReason] = []
    for other, why in store.duplicates.get(relpath, ()):
        later = store.facts[other].mtime - fact.mtime
        if later > SUPERSEDED_AFTER_SECONDS:
            newer = _days(later)
            when = f"changed {count(newer, 'day')} later" if newer else "changed later"
            text = f"superseded by {other}, {when} ({why})"
            reasons.append(StaleReason("superseded", text, 2.0))
        elif later >= -SUPERSEDED_AFTER_SECONDS:
            reasons.append(StaleReason("duplicate", f"near-duplicate of {other} ({why})", 2.0))
        if len(reasons) == MAX_LINKS_NAMED:
            break
    return reasons


def _link_reasons(relpath: str, fact: NoteFacts, links: LinkFacts) -> list[StaleReason]:
    """Links to nothing, links to notes not written yet, and no links in a linked store."""
    reasons: list[StaleReason] = []
    broken = links.broken.get(relpath, [])
    if broken:
        text = f"{count(len(broken), 'broken link')} (nothing at that path): {_named(broken)}"
        reasons.append(StaleReason("broken-link", text, min(2.0, 1.0 * len(broken))))
    missing = links.missing.get(relpath, [])
    if missing:
        text = f"links to {count(len(missing), 'note')} not written yet: {_named(missing)}"
        reasons.append(StaleReason("unresolved", text, min(0.5, 0.25 * len(missing))))
    if (
        fact.kind == NOTE
        and links.linked_share >= LINKED_STORE_SHARE
        and relpath not in links.linked
    ):
        reasons.append(ORPHAN)
    return reasons
