"""How the command line shows history events: the path cell, lines changed and review marks."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memtui.cli.terminal import json_safe

if TYPE_CHECKING:
    from memtui.core.recording.events import Event
    from memtui.core.recording.reviews import Review


def path_cell(event: Event) -> str:
    """The path column: the path, or `old -> new` for a rename."""
    path = event.path or ""
    return f"{path} -> {event.new_path}" if event.new_path else path


def lines_cell(counts: tuple[int, int] | None) -> str:
    """`+3 -1` lines added and removed, or `?` when the content was not kept."""
    return "?" if counts is None else f"+{counts[0]} -{counts[1]}"


def review_fields(event: Event, review: Review | None) -> dict[str, Any]:
    """JSON fields `reviewed` (None for what never waits for review: reads, refusals, people's
    changes, the baseline), `reviewed_by` and `reviewed_at`."""
    from memtui.core.recording.reviews import is_reviewable

    return {
        "reviewed": (review is not None) if is_reviewable(event) else None,
        "reviewed_by": None if review is None else review.reviewer,
        "reviewed_at": None if review is None else review.time,
    }


def event_record(event: Event, **fields: Any) -> str:
    """One event as a JSON line: its id, time, actor, session, command, path and new path, then
    `fields` (valid UTF-8, control characters escaped)."""
    record = {
        "id": event.id,
        "time": event.time,
        "actor": event.actor,
        "session": event.session,
        "command": event.command,
        "path": event.path,
        "new_path": event.new_path,
        **fields,
    }
    return json_safe(json.dumps(record, ensure_ascii=False))
