"""Undo from a screen: an event, or the whole operation it is a part of, through the core in a
thread, asking to force a conflict."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from memtui.notes.operations.undoing import UndoTarget, undo, undo_target
from memtui.tui.widgets.confirm import ConfirmScreen

if TYPE_CHECKING:
    from textual.app import App

    from memtui.core.result import CommandResult
    from memtui.notes.workspace import Workspace

FORCE_QUESTION = (
    "Force the undo anyway? "
    "The current content stays in the history and can be restored from there."
)


async def revert_with_force(
    app: App[Any], workspace: Workspace, event_id: int
) -> CommandResult | None:
    """Undo `event_id`, or all of the operation it is a part of (the store calls run in a
    thread); on a conflict ask whether to force it. Returns the result, or None when the person
    declined to force (nothing changed)."""
    target = await asyncio.to_thread(undo_target, workspace, event_id)
    if target is None:
        return await asyncio.to_thread(workspace.store.revert, event_id)
    return await undo_with_force(app, workspace, target)


async def undo_with_force(
    app: App[Any], workspace: Workspace, target: UndoTarget
) -> CommandResult | None:
    """Undo `target` in a thread; on a conflict ask whether to force it (None: declined)."""
    result = await asyncio.to_thread(undo, workspace, target)
    if not result.conflict:
        return result
    forced = await app.push_screen_wait(
        ConfirmScreen("Undo conflicts", f"{result.content}\n{FORCE_QUESTION}", "Force undo")
    )
    if not forced:
        app.notify("Undo cancelled; nothing changed.", timeout=3)
        return None
    return await asyncio.to_thread(undo, workspace, target, True)
