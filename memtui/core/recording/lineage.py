"""A note's names through time: its history follows renames and folder moves back to its start.

Walking back from a path, each rename into it (of the note itself or of a folder above it)
gives the name it had before. The walk ends at the note's creation (a file made where nothing
was), at a rename out of the name (what is there now came later), or at the start of the
history. A note deleted and made again at the same name keeps its name, and so its history.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memtui.core.recording import db_text
from memtui.core.recording.db_text import TEXT

MAX_NAMES = 10_000
"""Most names a lineage follows (each step goes to an older event, so the walk ends anyway)."""

_AT_OR_BELOW = (
    f"(path = {TEXT} OR new_path = {TEXT} OR (path > {TEXT} AND path < {TEXT})"
    f" OR (new_path > {TEXT} AND new_path < {TEXT}))"
)
_LATEST_MOVE = (
    "SELECT id, path, new_path FROM events WHERE is_error = 0 AND command != 'view'"
    " AND new_path IS NOT NULL AND (new_path IN ({marks}) OR path IN ({marks})){bound}"
    " ORDER BY id DESC LIMIT 1"
)
_LATEST_CREATION = (
    "SELECT id FROM events WHERE path = {text} AND new_path IS NULL AND before_kind IS NULL"
    " AND after_kind IS NOT NULL AND is_error = 0 AND command NOT IN ('view', 'revert')"
    " AND id > ?{bound} ORDER BY id DESC LIMIT 1"
)
_EVENT_BEFORE = (
    "SELECT before_kind, after_kind, new_path FROM events WHERE is_error = 0"
    " AND command != 'view' AND (path IN ({marks}) OR new_path IN ({marks})) AND id < ?"
    " ORDER BY id DESC LIMIT 1"
)


def at_or_below_sql() -> str:
    """The SQL condition: an event's path or new path is `path` or lies below it."""
    return _AT_OR_BELOW


def at_or_below_params(path: str) -> list[str | bytes | None]:
    """The parameters of `at_or_below_sql` for one virtual path."""
    folder = path.rstrip("/") or path
    return db_text.params([folder, folder, folder + "/", folder + "0", folder + "/", folder + "0"])


def places(path: str) -> list[str]:
    """`/memories/a/b.md` -> `/memories`, `/memories/a`, `/memories/a/b.md`: the path and every
    folder above it that a rename could have moved it with."""
    parts = path.rstrip("/").split("/")
    return ["/".join(parts[:end]) for end in range(2, len(parts) + 1)]


@dataclass(frozen=True)
class Span:
    """One name a note had, for the events with ids in [`first`, `end`) (None: unbounded)."""

    path: str
    first: int | None
    end: int | None


@dataclass(frozen=True)
class Lineage:
    """Every name a note or folder had, newest first, and the events that moved it between them
    or recorded it first (folder renames above it, the baseline)."""

    spans: tuple[Span, ...]
    linked: tuple[int, ...] = ()

    def sql(self) -> tuple[str, list[Any]]:
        """An SQL condition (and its parameters) matching every event of the lineage."""
        clauses: list[str] = []
        params: list[Any] = []
        for span in self.spans:
            bounds = ""
            params += at_or_below_params(span.path)
            if span.first is not None:
                bounds += " AND id >= ?"
                params.append(span.first)
            if span.end is not None:
                bounds += " AND id < ?"
                params.append(span.end)
            clauses.append(f"({_AT_OR_BELOW}{bounds})")
        if self.linked:
            clauses.append(f"id IN ({', '.join('?' for _ in self.linked)})")
            params += self.linked
        return "(" + " OR ".join(clauses) + ")", params

    @property
    def names(self) -> tuple[str, ...]:
        """The names, newest first."""
        return tuple(span.path for span in self.spans)


def _creation(
    conn: sqlite3.Connection, name: str, around: list[str], after: int, end: int | None
) -> int | None:
    """The id of the event that created the note at `name` between the ids `after` and `end`
    (a creation right after the name's deletion does not count: the note lives on), or None."""
    marks = db_text.marks(len(around))
    stored = db_text.params(around)
    while True:
        bound = "" if end is None else " AND id < ?"
        params: list[Any] = [db_text.param(name), after, *(() if end is None else (end,))]
        row = conn.execute(_LATEST_CREATION.format(text=TEXT, bound=bound), params).fetchone()
        if row is None:
            return None
        created = int(row[0])
        before = conn.execute(
            _EVENT_BEFORE.format(marks=marks), [*stored, *stored, created]
        ).fetchone()
        deleted = before is not None and before[2] is None and before[1] is None and before[0]
        if not deleted:
            return created
        end = created


def trace(conn: sqlite3.Connection, path: str, baseline: Callable[[str], int | None]) -> Lineage:
    """The lineage of the virtual `path` from the history on `conn`.

    `baseline(name)` is the id of the baseline event if it listed `name` (or files below it),
    else None; it is asked only when the walk reaches the start of the history.
    """
    name = path.rstrip("/") or path
    end: int | None = None
    spans: list[Span] = []
    linked: list[int] = []
    for _ in range(MAX_NAMES):
        around = places(name)
        marks = db_text.marks(len(around))
        stored = db_text.params(around)
        bound = "" if end is None else " AND id < ?"
        row = conn.execute(
            _LATEST_MOVE.format(marks=marks, bound=bound),
            [*stored, *stored, *(() if end is None else (end,))],
        ).fetchone()
        created = _creation(conn, name, around, 0 if row is None else row[0], end)
        if created is not None:
            spans.append(Span(name, created, end))
            break
        if row is None:
            spans.append(Span(name, None, end))
            first = baseline(name)
            if first is not None:
                linked.append(first)
            break
        move_id, source, destination = row
        if destination not in around:
            spans.append(Span(name, move_id + 1, end))
            break
        spans.append(Span(name, move_id, end))
        if destination != name:
            linked.append(move_id)
        name = source + name[len(destination) :]
        end = move_id
    return Lineage(tuple(spans), tuple(linked))
