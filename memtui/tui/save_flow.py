"""Saving a person's edit from the app: the notes layer's save, run off the UI thread, with the
merge dialogs when the note changed while it was edited."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from memtui.core.parsing.paths import from_relpath
from memtui.notes.operations.saving import Changed, Saved, save_edit, save_merged
from memtui.tui.screens.merge import ConflictScreen, DeletedScreen, MergedScreen, Resolution

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

Outcome = Literal["saved", "theirs", "edit", "failed"]
SAVE_ATTEMPTS = 3
"""How often a merge is offered again when the note keeps changing while the person decides."""


@dataclass(frozen=True)
class SaveReport:
    """How a save ended: written (`text` is what was written), theirs kept, back to editing,
    or failed (already said)."""

    outcome: Outcome
    text: str | None = None


async def save_note(
    app: MemtuiApp, relpath: str, text: str, revision: str | None, loaded: str
) -> SaveReport:
    """Save `text` over the note loaded as `loaded` at `revision`; when it changed meanwhile,
    show the merge (combined: confirm it; overlapping: resolve it) and save what is chosen."""
    workspace = app.ctx.workspace
    saved = await asyncio.to_thread(
        save_edit, workspace, from_relpath(relpath), text, revision, loaded
    )
    written = text
    for _attempt in range(SAVE_ATTEMPTS):
        if not saved.result.is_error:
            app.remember_event(saved.result.event_id)
            return SaveReport("saved", written)
        changed = saved.changed
        if changed is None:
            app.notify(saved.result.content, severity="error", timeout=8)
            return SaveReport("failed")
        decision = await decide(app, relpath, changed)
        if decision.action in ("edit", "theirs"):
            return SaveReport(decision.action)
        written = decision.text if decision.action == "save" and decision.text else changed.mine
        saved = await asyncio.to_thread(save_merged, workspace, changed, written)
    return _gave_up(app, relpath, saved, written)


async def decide(app: MemtuiApp, relpath: str, changed: Changed) -> Resolution:
    """Ask what to save: the combined note (confirm), how to resolve the overlaps, or whether
    to create a deleted note again."""
    if changed.theirs is None:
        return await app.push_screen_wait(DeletedScreen(relpath, changed))
    merge = changed.merge
    if merge is not None and merge.clean:
        if await app.push_screen_wait(MergedScreen(relpath, changed)):
            return Resolution("save", merge.text())
        return Resolution("edit")
    return await app.push_screen_wait(ConflictScreen(relpath, changed))


def _gave_up(app: MemtuiApp, relpath: str, saved: Saved, written: str) -> SaveReport:
    """After the last attempt: saved, or the note kept changing while the person decided (say
    so; nothing more is written)."""
    if not saved.result.is_error:
        app.remember_event(saved.result.event_id)
        return SaveReport("saved", written)
    app.notify(
        f"{relpath} keeps changing while you decide; nothing saved, your text is still here.",
        severity="warning",
        timeout=8,
    )
    return SaveReport("edit")
