"""Undo one event from a screen: through the core in a thread, asking to force a conflict."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from memtui.tui.widgets.confirm import ConfirmScreen

if TYPE_CHECKING:
    from textual.app import App

    from memtui.core.result import CommandResult
    from memtui.core.store import MemoryStore

FORCE_QUESTION = "Force the undo anyway? The current content stays in the history and can be restored from there."


async def revert_with_force(
    app: App[object], store: MemoryStore, event_id: int
) -> CommandResult | None:
    """Revert `event_id` (the store call runs in a thread); on a conflict ask whether to force
    it. Returns the result, or None when the person declined to force (nothing changed)."""
    result = await asyncio.to_thread(store.revert, event_id)
    if not (result.is_error and result.content.startswith("Conflict")):
        return result
    forced = await app.push_screen_wait(
        ConfirmScreen("Undo conflicts", f"{result.content}\n{FORCE_QUESTION}", "Force undo")
    )
    if not forced:
        app.notify("Undo cancelled; nothing changed.", timeout=3)
        return None
    return await asyncio.to_thread(store.revert, event_id, True)
