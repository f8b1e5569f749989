"""Deciding on a held change from the app: approve (through the merge dialog when the file
changed since and the changes overlap, a confirmation to move or delete something changed
since), or reject. Store calls run in threads."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from memtui.core.parsing.paths import to_relpath
from memtui.core.result import CONFLICT, CommandResult
from memtui.notes.operations.deciding import Held, approve, reject
from memtui.tui.screens.merge import ConflictScreen
from memtui.tui.widgets.confirm import ConfirmScreen

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp


async def approve_held(app: MemtuiApp, shown: Held) -> CommandResult | None:
    """Approve one held change as the app's person; None when nothing was applied because the
    person chose so (the notice says what happened)."""
    store = app.ctx.store
    approval = await asyncio.to_thread(approve, store, shown.id)
    result = approval.result
    if result is not None and result.kind == CONFLICT and shown.proposed is None:
        verb = "Delete" if shown.proposal.command == "delete" else "Move"
        if not await app.push_screen_wait(
            ConfirmScreen(
                f"{verb} anyway?",
                f"{result.content}. {verb} it with those changes (undoable from the history)?",
                confirm_label=verb,
            )
        ):
            return None
        result = (await asyncio.to_thread(approve, store, shown.id, force=True)).result
    if result is not None or approval.held is None:
        return result
    return await _resolve_clash(app, approval.held)


async def _resolve_clash(app: MemtuiApp, shown: Held) -> CommandResult | None:
    """Ask how the agent's change and the later one combine; apply what is chosen."""
    relpath = to_relpath(shown.proposal.path)
    app.notify(
        f"{relpath} changed after the agent proposed its change: 'yours' is the agent's change, "
        "'theirs' the file as it is now.",
        timeout=8,
    )
    decision = await app.push_screen_wait(ConflictScreen(relpath, shown.as_changed()))
    if decision.action == "save" and decision.text is not None:
        text = decision.text
    elif decision.action == "mine":
        text = shown.proposed or ""
    else:
        app.notify("Nothing applied; the change still waits (x rejects it).", timeout=4)
        return None
    approval = await asyncio.to_thread(approve, app.ctx.store, shown.id, text)
    return approval.result


async def reject_held(app: MemtuiApp, shown: Held) -> CommandResult:
    """Reject one held change as the app's person."""
    results = await asyncio.to_thread(reject, app.ctx.store, [shown.id])
    return results[0]
