"""The changes inbox: agent and outside changes that wait for a person's review, grouped by note.

A change waits until someone marks it reviewed (`History.mark_reviewed`: approve), undoes it
(a person's undo marks the undone event in the same transaction) or saves the note over it (a
person's save marks every waiting change of the note, across its renames). The app's inbox
screen, `memtui changes` and `memtui approve` all read and mark through here.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, replace

from memtui.core.recording.blobs import KIND_DIR, KIND_FILE
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.events import Event
from memtui.core.recording.history import History
from memtui.core.recording.reviews import WAITING


@dataclass(frozen=True)
class InboxRow:
    """One note's waiting changes: where the note is now (or was last) and its events,
    oldest first."""

    path: str
    events: tuple[Event, ...]

    @property
    def ids(self) -> tuple[int, ...]:
        """The event ids, oldest first."""
        return tuple(event.id for event in self.events)

    @property
    def newest(self) -> Event:
        """The latest change of the row."""
        return self.events[-1]

    @property
    def actors(self) -> tuple[str, ...]:
        """Who made the changes, most recent first, each once."""
        return tuple(dict.fromkeys(event.actor for event in reversed(self.events)))

    @property
    def folder(self) -> bool:
        """True if the row is a folder (deleted, moved or restored as a whole)."""
        return KIND_DIR in (self.newest.before_kind, self.newest.after_kind)

    @property
    def gone(self) -> bool:
        """True if the latest change left nothing at the row's path (a delete)."""
        newest = self.newest
        return newest.new_path is None and newest.after_kind is None


def waiting(query: EventQuery | None = None, *, include_reviewed: bool = False) -> EventQuery:
    """The inbox's narrowing of `query`: agent and outside changes (`reviews.WAITING`), only the
    waiting ones unless `include_reviewed`; a path is followed back through its renames
    (`History.lineage`)."""
    wanted = query or EventQuery()
    return replace(
        wanted,
        follow=wanted.path is not None,
        actor_kinds=WAITING.actor_kinds,
        changes_only=True,
        reviewed=None if include_reviewed else WAITING.reviewed,
    )


def changes(
    history: History,
    query: EventQuery | None = None,
    *,
    include_reviewed: bool = False,
    limit: int | None = None,
) -> list[Event]:
    """Agent and outside changes matching `query` (the waiting ones unless `include_reviewed`),
    newest first."""
    return history.events(waiting(query, include_reviewed=include_reviewed), limit=limit)


def group_by_note(history: History, events: Iterable[Event]) -> list[InboxRow]:
    """Group changes by the note they concern now: later renames (of the note or of a folder
    above it) carry earlier changes to the note's current path. Rows newest first."""
    ordered = sorted(events, key=lambda event: event.id)
    if not ordered:
        return []
    groups: dict[str, list[Event]] = {}
    moves = iter(history.moves(ordered[0].id))
    move = next(moves, None)
    for event in ordered:
        while move is not None and move[0] < event.id:
            _carry(groups, move[1], move[2])
            move = next(moves, None)
        groups.setdefault(event.new_path or event.path or "/memories", []).append(event)
    while move is not None:
        _carry(groups, move[1], move[2])
        move = next(moves, None)
    rows = [InboxRow(path, tuple(found)) for path, found in groups.items()]
    return sorted(rows, key=lambda row: row.newest.id, reverse=True)


def _carry(groups: dict[str, list[Event]], source: str, target: str) -> None:
    """Move the groups at or below `source` to the same place below `target`."""
    prefix = source + "/"
    for key in [key for key in groups if key == source or key.startswith(prefix)]:
        moved = groups.pop(key)
        merged = groups.setdefault(target + key[len(source) :], [])
        merged[:0] = moved


def inbox(
    history: History, query: EventQuery | None = None, *, include_reviewed: bool = False
) -> list[InboxRow]:
    """The changes matching `query` (by default every waiting one), grouped by note."""
    return group_by_note(history, changes(history, query, include_reviewed=include_reviewed))


def current_text(history: History, path: str) -> str | None:
    """What the history last recorded at `path`: a file's text, a folder's file listing, or None."""
    record = history.file_record(path)
    if record is not None:
        data = history.blob(record.sha256)
        return None if data is None else data.decode("utf-8", errors="replace")
    below = history.files_below(path)
    if not below:
        return None
    names = set(below)
    for name in below:
        parts = name.split("/")[:-1]
        names.update("/".join(parts[:end]) + "/" for end in range(1, len(parts) + 1))
    return "".join(f"{name}\n" for name in sorted(names))


def row_texts(history: History, row: InboxRow) -> tuple[str | None, str | None]:
    """The row's combined change: the text before its first change, and the text now."""
    before, _after = history.texts(row.events[0])
    return before, current_text(history, row.path)


def line_changes(before: str | None, after: str | None) -> tuple[int, int]:
    """(lines added, lines removed) from `before` to `after` (None: nothing there)."""
    added = removed = 0
    lines = difflib.unified_diff(
        (before or "").splitlines(), (after or "").splitlines(), n=0, lineterm=""
    )
    for line in lines:
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def first_changed_line(before: str | None, after: str | None) -> int:
    """The first line (0-based) of `after` that the change from `before` added or altered;
    where lines were only removed, the line after them; 0 when nothing differs."""
    opcodes = difflib.SequenceMatcher(
        None, (before or "").splitlines(), (after or "").splitlines(), autojunk=False
    ).get_opcodes()
    changed = next((j1 for tag, _i1, _i2, j1, _j2 in opcodes if tag != "equal"), 0)
    return min(changed, max(len((after or "").splitlines()) - 1, 0))


def event_line_changes(history: History, event: Event) -> tuple[int, int] | None:
    """(added, removed) lines of one event, or None when a side's content was not kept."""
    before, after = history.texts(event)
    for kind, text in ((event.before_kind, before), (event.after_kind, after)):
        if kind in (KIND_FILE, KIND_DIR) and text is None:
            return None
    return line_changes(before, after)
