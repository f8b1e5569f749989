"""Operations as a listing shows them: the events of one history group, one entry with parts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from memtui.core.recording.events import Event, Group
from memtui.core.recording.history import History


@dataclass(frozen=True)
class Entry:
    """One line of a history listing: a single event, or an operation with its parts."""

    events: tuple[Event, ...]
    """The event, or the operation's parts in the listing's order."""
    group: Group | None = None

    @property
    def first(self) -> Event:
        """The event listed first (the newest when listed newest first)."""
        return self.events[0]

    @property
    def is_operation(self) -> bool:
        """Whether this entry stands for several events of one operation."""
        return self.group is not None and len(self.events) > 1


def entries(events: Iterable[Event], groups: Mapping[int, Group]) -> list[Entry]:
    """`events` (in listing order) as entries: the events of one operation gathered where its
    first one is listed; events of no operation, or alone in the listing, stay single."""
    listed = list(events)
    parts: dict[int, list[Event]] = {}
    for event in listed:
        if event.group_id is not None and event.group_id in groups:
            parts.setdefault(event.group_id, []).append(event)
    result: list[Entry] = []
    for event in listed:
        gathered = parts.get(event.group_id) if event.group_id is not None else None
        if gathered is None or len(gathered) < 2:
            result.append(Entry((event,), groups.get(event.group_id or -1)))
        elif gathered[0] is event:
            result.append(Entry(tuple(gathered), groups[event.group_id or -1]))
    return result


def listed_entries(history: History, events: Iterable[Event]) -> list[Entry]:
    """`entries` with the operations read from `history`."""
    listed = list(events)
    ids = {event.group_id for event in listed if event.group_id is not None}
    return entries(listed, history.groups(ids) if ids else {})
