"""A person's save of a whole note: written if the note is still as it was loaded, else merged
three ways with what was saved meanwhile (the base is the loaded revision, from the history)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memtui.core.hashing import digest
from memtui.core.parsing.paths import under_root
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.events import Event
from memtui.core.result import CONFLICT, CommandResult
from memtui.core.store import MemoryStore, StoreError
from memtui.notes.merge import MergeResult, merge_texts
from memtui.notes.workspace import Workspace

CHANGES_LOOKED_AT = 50
"""How many of a note's latest events are searched for the changes made since a revision."""
CHANGES_NAMED = 3
"""How many of those changes a summary names (the rest are counted)."""


@dataclass(frozen=True)
class Changed:
    """The note changed since the editor loaded it: what is there now, my text merged with it,
    and the history's changes since (newest first)."""

    virtual: str
    base: str
    """The text the editor loaded (the merge's base)."""
    mine: str
    theirs: str | None
    """The text there now, None when the note was deleted."""
    revision: str | None
    """The revision there now (the one a save of the merge expects)."""
    merge: MergeResult | None
    """My changes and theirs combined (None when the note was deleted)."""
    changes: list[Event]

    @property
    def clean(self) -> bool:
        """Whether the changes combined on their own."""
        return self.merge is not None and self.merge.clean


@dataclass(frozen=True)
class Saved:
    """A save's result; `changed` tells what happened meanwhile when the note had changed."""

    result: CommandResult
    changed: Changed | None = None


def save_edit(
    workspace: Workspace, virtual: str, text: str, revision: str | None, loaded: str
) -> Saved:
    """Write `text` if the note is still at `revision` (the editor loaded `loaded` there);
    when it changed meanwhile, nothing is written and `changed` holds the merge."""
    store = workspace.store
    result = _write(workspace, virtual, text, revision)
    if result.kind != CONFLICT:
        return Saved(result)
    return Saved(result, what_changed(store, virtual, revision, loaded, text))


def save_merged(workspace: Workspace, changed: Changed, text: str) -> Saved:
    """Write `text` (the merge, resolved) over the version `changed` found; if the note changed
    once more meanwhile, nothing is written and `changed` holds the merge with that change."""
    result = _write(workspace, changed.virtual, text, changed.revision)
    if result.kind != CONFLICT:
        return Saved(result)
    return Saved(
        result,
        what_changed(
            workspace.store, changed.virtual, changed.revision, changed.theirs or "", text
        ),
    )


def _write(workspace: Workspace, virtual: str, text: str, revision: str | None) -> CommandResult:
    """The person's `write`, and the workspace brought up to date when it landed."""
    result = workspace.store.write(virtual, text, revision)
    if not result.is_error:
        relpath = under_root(virtual)
        if relpath:
            workspace.apply([relpath])
    return result


def what_changed(
    store: MemoryStore, virtual: str, revision: str | None, loaded: str, mine: str
) -> Changed:
    """What happened to the note since `revision` (loaded as `loaded`), merged with `mine`."""
    try:
        theirs: str | None
        theirs, now = store.read(virtual)
    except StoreError:
        theirs, now = None, None
    base = base_text(store, revision, loaded)
    merge = merge_texts(base, mine, theirs) if theirs is not None else None
    return Changed(virtual, base, mine, theirs, now, merge, changes_since(store, virtual, revision))


def base_text(store: MemoryStore, revision: str | None, loaded: str) -> str:
    """The text at `revision` as the history keeps it, else `loaded` (what the editor read
    there); nothing for a note that did not exist."""
    if revision is None:
        return ""
    data = store.history.blob(revision)
    if data is not None and digest(data) == revision:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return loaded


def changes_since(store: MemoryStore, virtual: str, revision: str | None) -> list[Event]:
    """The changes to the note after it was at `revision`, newest first."""
    changes: list[Event] = []
    query = EventQuery(path=virtual, skip_reads=True)
    for event in store.history.events(query, limit=CHANGES_LOOKED_AT):
        if revision is not None and event.after_hash == revision:
            break
        if event.changed:
            changes.append(event)
    return changes


def who_changed(changes: Sequence[Event], when: Callable[[float], str]) -> str:
    """`changed by agent:claude (2 str_replace, last 10:03)` per actor, newest first, with
    `when` formatting the times; the history may not have caught up with an outside edit yet."""
    if not changes:
        return "changed by another process (not in the history yet)"
    by_actor: dict[str, list[Event]] = {}
    for event in changes:
        by_actor.setdefault(event.actor, []).append(event)
    named = [_actor_changes(events, when) for events in by_actor.values()]
    more = len(named) - CHANGES_NAMED
    tail = f" and {more} more" if more > 0 else ""
    return "changed by " + ", ".join(named[:CHANGES_NAMED]) + tail


def _actor_changes(events: list[Event], when: Callable[[float], str]) -> str:
    """One actor's changes (newest first): `agent:claude (2 str_replace, last 10:03)`."""
    commands: dict[str, int] = {}
    for event in events:
        commands[event.command] = commands.get(event.command, 0) + 1
    listed = ", ".join(f"{n} {command}" if n > 1 else command for command, n in commands.items())
    last = "last " if len(events) > 1 else ""
    return f"{events[0].actor} ({listed}, {last}{when(events[0].time)})"
