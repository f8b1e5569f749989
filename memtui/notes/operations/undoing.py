"""Undoing a change as people see it: an event, or the whole operation it is a part of, named
the same way everywhere (what, where, by whom) before it is undone."""

from __future__ import annotations

from dataclasses import dataclass

from memtui.core.applying.group_reverting import changed_parts
from memtui.core.parsing.paths import VIRTUAL_ROOT, to_relpath
from memtui.core.plurals import count
from memtui.core.recording.events import Event, Group
from memtui.core.result import CommandResult
from memtui.notes.workspace import Workspace

LINK_REWRITING_KINDS = frozenset({"rename", "archive"})
"""Operations whose parts after the first rewrote links to what they moved."""


@dataclass(frozen=True)
class UndoTarget:
    """What undoing an event does: undo the event, or every part of its operation."""

    event: Event
    group: Group | None = None
    parts: tuple[Event, ...] = ()
    """The operation's changes, oldest first (empty when the event is undone alone)."""

    @property
    def whole_operation(self) -> bool:
        """Whether the undo covers several changes of one operation."""
        return self.group is not None and len(self.parts) > 1

    @property
    def primary(self) -> Event:
        """The change that names the undo: the operation's first, or the event."""
        return self.parts[0] if self.whole_operation else self.event

    def describe(self) -> str:
        """`rename a.md → b.md by human:ana, and the links it rewrote in 2 notes`."""
        event = self.primary
        where = to_relpath(event.path or "") or VIRTUAL_ROOT
        if event.new_path:
            where += f" → {to_relpath(event.new_path)}"
        text = f"{event.command} {where} by {event.actor}"
        if not self.whole_operation or self.group is None:
            return text
        others = len(self.parts) - 1
        if self.group.kind in LINK_REWRITING_KINDS and all(
            part.command == "write" for part in self.parts[1:]
        ):
            return f"{text}, and the links it rewrote in {count(others, 'note')}"
        return f"{text}, and {count(others, 'other change')} of the same operation"

    def paths(self) -> set[str]:
        """The notes and folders the undo touches, relative to the root."""
        events = self.parts if self.whole_operation else (self.event,)
        return {
            to_relpath(path) for event in events for path in (event.path, event.new_path) if path
        }

    @property
    def shown_after(self) -> str:
        """Where the primary change's note is once undone (relative to the root)."""
        return to_relpath(self.primary.path or "")


def undo_target(workspace: Workspace, event_id: int) -> UndoTarget | None:
    """What undoing `event_id` would undo, or None when there is no such event."""
    store = workspace.store
    event = store.history.event(event_id)
    if event is None:
        return None
    if event.group_id is None:
        return UndoTarget(event)
    parts = changed_parts(store, event.group_id)
    if len(parts) < 2:
        return UndoTarget(event)
    return UndoTarget(event, store.history.group(event.group_id), tuple(parts))


def undo(workspace: Workspace, target: UndoTarget, force: bool = False) -> CommandResult:
    """Undo `target` through the core: the whole operation as one, or the event; then bring
    the workspace up to date."""
    store = workspace.store
    if target.whole_operation and target.group is not None:
        result = store.revert_group(target.group.id, force)
    else:
        result = store.revert(target.event.id, force)
    if not result.is_error:
        workspace.apply(path for path in target.paths() if path)
    return result
