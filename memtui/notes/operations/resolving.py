"""Resolving a contradiction by keeping the newer statement: the older line is removed, or marked
superseded, in one change through the core (a `write` against the revision just read, so a
change made meanwhile is refused, never overwritten), recorded as one operation in the history
and undone as one."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Literal

from memtui.core.parsing.paths import from_relpath
from memtui.core.recording.database import RecordFailed
from memtui.core.result import CONFLICT, NOT_FOUND, CommandResult
from memtui.core.store import StoreError, unrecorded_message
from memtui.notes.contradictions import Contradiction
from memtui.notes.superseding import LineMoved, mark_superseded, remove_line
from memtui.notes.workspace import Workspace

KEEP_NEWER_KIND = "keep-newer"
OlderLine = Literal["remove", "mark"]
"""What keeping the newer statement does to the older line (the `[contradictions] older`
setting)."""


def day_of(when: float) -> str:
    """The UTC day of a unix time, `YYYY-MM-DD`."""
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d")


def keep_newer(
    workspace: Workspace,
    pair: Contradiction,
    older_line: OlderLine = "remove",
    *,
    now: float | None = None,
) -> CommandResult:
    """Remove the pair's older line from its file, or mark it superseded today (`now`), and
    bring the workspace up to date."""
    store = workspace.store
    virtual = from_relpath(pair.older.path)
    what = "remove" if older_line == "remove" else "mark superseded"
    try:
        text, revision = store.read(virtual)
    except StoreError as problem:
        return CommandResult(f"Cannot {what} the older line: {problem}", True, kind=NOT_FOUND)
    try:
        if older_line == "remove":
            changed = remove_line(text, pair.older.line, pair.older.text)
        else:
            day = day_of(time.time() if now is None else now)
            changed = mark_superseded(text, pair.older.line, pair.older.text, day)
    except LineMoved as problem:
        return CommandResult(f"Conflict: {virtual} changed: {problem}", True, kind=CONFLICT)
    summary = f"{what} line {pair.older.line} of {virtual} (keep the newer)"
    try:
        operation = store.operation(KEEP_NEWER_KIND, summary)
    except RecordFailed as problem:
        return CommandResult(unrecorded_message(f"change {virtual}", problem), True)
    result = operation.write(virtual, changed, revision)
    if not result.is_error:
        workspace.apply([pair.older.path])
    return result
