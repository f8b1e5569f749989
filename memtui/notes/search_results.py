"""Search results by note: each matching note once, with its best hits, as the app and the
command line list them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.notes.query import SearchFilters
    from memtui.notes.search import Searcher, SearchHit

PER_NOTE = 3
"""Hits shown under one note, at most (its best)."""


@dataclass(frozen=True)
class NoteHits:
    """One matching note and its best hits, best first."""

    path: str
    hits: tuple[SearchHit, ...]

    @property
    def best(self) -> SearchHit:
        """The note's best hit (where opening it goes)."""
        return self.hits[0]


def by_note(hits: list[SearchHit]) -> list[NoteHits]:
    """`hits` (best first) gathered by note, the notes in the order of their best hits."""
    groups: dict[str, list[SearchHit]] = {}
    for hit in hits:
        groups.setdefault(hit.path, []).append(hit)
    return [NoteHits(path, tuple(note_hits)) for path, note_hits in groups.items()]


def notes_of(hits: list[SearchHit], notes: int, per_note: int = PER_NOTE) -> list[NoteHits]:
    """The first `notes` notes of `hits` (best first), each with up to `per_note` of its hits."""
    return [NoteHits(note.path, note.hits[:per_note]) for note in by_note(hits)[:notes]]


def search_notes(
    searcher: Searcher,
    query: str,
    *,
    notes: int,
    filters: SearchFilters | None = None,
    cancelled: Callable[[], bool] | None = None,
    per_note: int = PER_NOTE,
) -> list[NoteHits]:
    """The best `notes` notes for `query` (ranked by their best hits), each with up to
    `per_note` of its best hits."""
    hits = searcher.search(
        query, limit=notes * per_note, filters=filters, cancelled=cancelled, per_note=per_note
    )
    return notes_of(hits, notes, per_note)
