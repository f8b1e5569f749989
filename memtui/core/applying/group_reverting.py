"""Undo an operation: every change of one history group, newest first, as one new operation.

Each part is undone by the single-event revert (so its checks, its recording and anything that
marks an undone event apply to every part). Before anything changes, every part that no later
part of the operation touched is checked; a part changed since is a conflict and nothing is
undone unless forced. A part that still fails midway has the parts already undone put back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memtui.core.applying.reverting import conflict_now
from memtui.core.parsing.command_types import CommandOutcome
from memtui.core.plurals import count
from memtui.core.recording.database import RecordFailed, unrecorded_message
from memtui.core.recording.events import Event, Group
from memtui.core.result import NOT_FOUND, CommandResult

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore

REVERT_KIND = "revert"
"""The kind of the operation that undoes another."""


def revert_group(store: MemoryStore, group_id: int, force: bool) -> CommandResult:
    """Undo every change of operation `group_id` as `store`'s actor; refused on conflict (nothing
    undone) unless `force`."""
    args: dict[str, Any] = {"group_id": group_id, "force": force}
    return store.when_locked(
        f"undo operation {group_id}",
        ("revert", None, args),
        lambda: _revert_locked(store, group_id, args, force),
    )


def changed_parts(store: MemoryStore, group_id: int) -> list[Event]:
    """The events of an operation that changed something, oldest first."""
    return [event for event in store.history.group_events(group_id) if event.changed]


def _revert_locked(
    store: MemoryStore, group_id: int, args: dict[str, Any], force: bool
) -> CommandResult:
    """`revert_group` once the lock is held."""
    group = store.history.group(group_id)
    if group is None:
        missing = CommandOutcome(f"There is no operation {group_id} to undo", True, kind=NOT_FOUND)
        return store.record_human("revert", None, args, missing)
    parts = changed_parts(store, group_id)
    if not parts:
        empty = CommandOutcome(
            f"Nothing to undo: operation {group_id} ({group.summary}) changed nothing", True
        )
        return store.record_human("revert", None, args, empty)
    refusal = _first_conflict(store, group, parts, force)
    if refusal is not None:
        return store.record_human("revert", parts[-1].path, args, refusal)
    try:
        undo = store.operation(REVERT_KIND, f"undo operation {group_id}: {group.summary}")
    except RecordFailed as problem:
        return CommandResult(unrecorded_message(f"undo operation {group_id}", problem), True)
    done: list[CommandResult] = []
    for event in reversed(parts):
        result = undo.revert(event.id, force)
        if result.is_error:
            return _put_back(undo, group, done, result)
        done.append(result)
    return CommandResult(
        f"Undid operation {group_id} ({group.summary}): {count(len(done), 'change')}",
        False,
        done[-1].event_id,
    )


def _first_conflict(
    store: MemoryStore, group: Group, parts: list[Event], force: bool
) -> CommandOutcome | None:
    """The first part that cannot be undone now, as a refusal naming the operation, or None.

    A part that a later part of the same operation touched (a note rewritten inside a moved
    folder) is checked only when it is undone, once the later parts are.
    """
    with store.open_site() as site:
        for position, event in enumerate(parts):
            if any(_overlap(event, later) for later in parts[position + 1 :]):
                continue
            refusal = conflict_now(store, site, event, force)
            if refusal is not None:
                return CommandOutcome(
                    f"{refusal.content} Nothing of operation {group.id} ({group.summary}) was "
                    "undone.",
                    True,
                    refusal.flags,
                    refusal.kind,
                )
    return None


def _paths(event: Event) -> list[str]:
    """The virtual paths an event touched."""
    return [path for path in (event.path, event.new_path) if path]


def _overlap(first: Event, second: Event) -> bool:
    """Whether two events touched the same path, or one a path inside the other's folder."""
    return any(
        a == b or a.startswith(b + "/") or b.startswith(a + "/")
        for a in _paths(first)
        for b in _paths(second)
    )


def _put_back(
    undo: MemoryStore, group: Group, done: list[CommandResult], failure: CommandResult
) -> CommandResult:
    """Redo the parts already undone after `failure`, so the operation stays whole."""
    problems = [
        result.content
        for result in (undo.revert(part.event_id, True) for part in reversed(done) if part.event_id)
        if result.is_error
    ]
    if problems:
        return CommandResult(
            f"Cannot undo operation {group.id} ({group.summary}): {failure.content} Putting "
            f"back the {count(len(done), 'change')} already undone failed too: "
            f"{problems[0]} (see memtui log)",
            True,
            failure.event_id,
            failure.kind,
        )
    return CommandResult(
        f"Cannot undo operation {group.id} ({group.summary}): {failure.content} Nothing changed.",
        True,
        failure.event_id,
        failure.kind,
    )
