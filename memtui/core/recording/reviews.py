"""Review marks: which agent and outside changes a person has reviewed, by whom and when."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from memtui.core.recording.database import SQL_BATCH
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.events import BASELINE, Event, EventLog, actor_kind

REVIEWED_KINDS = frozenset({"agent", "external"})
"""Actor kinds whose changes wait for a person's review (see `is_reviewable`)."""


@dataclass(frozen=True)
class Review:
    """Who marked a change reviewed, and when."""

    reviewer: str
    time: float


class NotReviewable(Exception):
    """Some event ids asked to be marked reviewed are not in the history or are no change
    to review."""

    def __init__(self, unknown: Sequence[int], not_changes: Sequence[Event]) -> None:
        """Keep the unknown ids and the events that are not agent or outside changes."""
        super().__init__(f"unknown: {list(unknown)}, not changes: {[e.id for e in not_changes]}")
        self.unknown = list(unknown)
        self.not_changes = list(not_changes)


def is_reviewable(event: Event) -> bool:
    """True for a change that waits for review: made by an agent or outside memtui (the baseline,
    reads, refusals and people's own changes are not); `WAITING` is the same rule as a
    query (in SQL)."""
    return event.changed and event.command != BASELINE and actor_kind(event.actor) in REVIEWED_KINDS


WAITING = EventQuery(actor_kinds=REVIEWED_KINDS, changes_only=True, reviewed=False)
"""The changes that wait for review: an agent's or an outside change with no review mark."""


class ReviewMarks:
    """The reviews table: who marked which change reviewed, and when."""

    def __init__(
        self,
        connection: Callable[[], sqlite3.Connection],
        writing: Callable[[sqlite3.Connection], AbstractContextManager[list[str]]],
        log: EventLog,
    ) -> None:
        """The review marks of the history whose connection `connection` gives, written in
        `writing`'s transactions; `log` counts and finds the events they mark."""
        self._connection = connection
        self._writing = writing
        self._log = log

    def pending_review_count(self) -> int:
        """How many agent and outside changes wait for review."""
        return self._log.count_events(WAITING)

    def reviews(self, event_ids: Iterable[int]) -> dict[int, Review]:
        """The review marks of those events that have one: event id -> review."""
        wanted = list(dict.fromkeys(event_ids))
        found: dict[int, Review] = {}
        conn = self._connection()
        for start in range(0, len(wanted), SQL_BATCH):
            batch = wanted[start : start + SQL_BATCH]
            rows = conn.execute(
                "SELECT event_id, reviewer, time FROM reviews"
                f" WHERE event_id IN ({', '.join('?' for _ in batch)})",
                batch,
            )
            found.update({event_id: Review(who, when) for event_id, who, when in rows})
        return found

    def mark_reviewed(
        self, event_ids: Iterable[int], reviewer: str, when: float
    ) -> tuple[list[int], dict[int, Review]]:
        """Mark changes reviewed by `reviewer` at `when`, all in one transaction.

        Returns the ids marked now and the marks found on the others. Raises NotReviewable
        (nothing marked) if an id is not in the history or is no agent or outside change, and
        RecordFailed if the history cannot be written.
        """
        wanted = list(dict.fromkeys(event_ids))
        conn = self._connection()
        with self._writing(conn):
            found = {event.id: event for event in self._log.events_by_id(conn, wanted)}
            unknown = [event_id for event_id in wanted if event_id not in found]
            not_changes = [found[i] for i in wanted if i in found and not is_reviewable(found[i])]
            if unknown or not_changes:
                raise NotReviewable(unknown, not_changes)
            earlier = self.reviews(wanted)
            marked = [event_id for event_id in wanted if event_id not in earlier]
            conn.executemany(
                "INSERT INTO reviews (event_id, reviewer, time) VALUES (?, ?, ?)",
                [(event_id, reviewer, when) for event_id in marked],
            )
        return marked, earlier

    @staticmethod
    def add(conn: sqlite3.Connection, event_ids: Iterable[int], reviewer: str, when: float) -> None:
        """Mark events reviewed by `reviewer` at `when` unless they are already (inside the
        caller's transaction)."""
        conn.executemany(
            "INSERT OR IGNORE INTO reviews (event_id, reviewer, time) VALUES (?, ?, ?)",
            [(event_id, reviewer, when) for event_id in event_ids],
        )
