"""The main screen's note actions (new, rename or move, delete, undo): a dialog, then the notes
operation in a thread, then the screen updated. The store is never called on the UI thread."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Protocol

from memtui.notes.links import MovePrediction, Plan, links_into
from memtui.notes.operations.deleting import delete, plan_delete
from memtui.notes.operations.moving import move
from memtui.notes.operations.naming import create_note, template_cursor
from memtui.notes.operations.undoing import undo_target
from memtui.tui.screens.dialogs import NewNoteScreen, RenameScreen
from memtui.tui.undo_flow import undo_with_force
from memtui.tui.widgets.confirm import ConfirmScreen

if TYPE_CHECKING:
    from collections.abc import Callable

    from memtui.notes.workspace import Workspace
    from memtui.tui.app import MemtuiApp
    from memtui.tui.screens.main import MainScreen


class ChangingScreen(Protocol):
    """A screen that undoes changes: the app, and what to refresh once files changed."""

    @property
    def memtui(self) -> MemtuiApp:
        """The app."""
        ...

    async def changed(self, paths: set[str], show: str | None = None) -> None:
        """Update the index and the screen for `paths`; show `show` if the screen can."""
        ...


async def new_note(screen: MainScreen) -> None:
    """Ask for a folder and title, create the note from the template, then edit it."""
    app = screen.memtui
    answer = await app.push_screen_wait(NewNoteScreen(screen.selected_folder()))
    if answer is None:
        return
    folder, title = answer
    created = await asyncio.to_thread(create_note, app.ctx.workspace, folder, title)
    if created.result.is_error:
        app.notify(created.result.content, severity="error")
        return
    app.remember_event(created.result.event_id)
    await screen.changed({created.relpath}, show=created.relpath)
    app.notify(f"Created {created.relpath}")
    await screen.edit_note(created.relpath, template_cursor())


def _breaks_counter(workspace: Workspace, inbound: Plan, relpath: str) -> Callable[[str], int]:
    """How many linking notes a move of `relpath` to a new path would leave with a broken link
    (run in a thread, while the index is not being updated)."""
    assert workspace.index is not None
    prediction = MovePrediction(workspace.index, inbound, relpath)

    def breaks(new: str) -> int:
        with workspace.update_lock:
            return len(prediction.broken(new))

    return breaks


async def rename(screen: MainScreen) -> None:
    """Ask for a new path, then move the note or folder as one operation, rewriting the links
    the move breaks when asked."""
    app = screen.memtui
    entry = screen.note_tree.cursor_entry
    if entry is None:
        return
    workspace = app.ctx.workspace
    index = workspace.index
    inbound: Plan = {}
    breaks = None
    if index is not None:
        inbound = await asyncio.to_thread(links_into, index, entry.relpath)
        breaks = _breaks_counter(workspace, inbound, entry.relpath)
    answer = await app.push_screen_wait(RenameScreen(entry.relpath, len(inbound), breaks))
    if answer is None:
        return
    new_relpath, rewrite = answer
    moved = await asyncio.to_thread(
        partial(move, workspace, entry.relpath, new_relpath, rewrite_links=rewrite, inbound=inbound)
    )
    app.remember_event(moved.result.event_id)
    if moved.result.is_error:
        app.notify(moved.summary, severity="error")
        return
    await screen.changed(moved.changed, show=moved.new)
    app.notify(moved.summary, timeout=6)


async def delete_entry(screen: MainScreen) -> None:
    """Confirm with what goes and the links it breaks, then delete as one operation."""
    app = screen.memtui
    entry = screen.note_tree.cursor_entry
    if entry is None:
        return
    workspace = app.ctx.workspace
    plan = await asyncio.to_thread(plan_delete, workspace, entry.relpath)
    body = "\n".join(
        [
            f"This deletes {plan.what()}.",
            *plan.consequences(),
            "The history keeps what is deleted: u undoes it.",
        ]
    )
    confirmed = await app.push_screen_wait(
        ConfirmScreen(f"Delete {entry.relpath}?", body, confirm_label="Delete")
    )
    if not confirmed:
        return
    deleted = await asyncio.to_thread(delete, workspace, plan)
    if deleted.result.is_error:
        app.notify(deleted.result.content, severity="error")
        return
    app.remember_event(deleted.result.event_id)
    await screen.changed({entry.relpath})
    app.notify(f"{deleted.summary} (u to undo)", timeout=6)


async def undo_last(screen: ChangingScreen) -> None:
    """Undo the last change made in this app, after naming it (what, where, by whom): an
    event, or the whole operation it was a part of."""
    app = screen.memtui
    if not app.undo_stack:
        app.notify("Nothing to undo in this session.")
        return
    workspace = app.ctx.workspace
    event_id = app.undo_stack[-1]
    target = await asyncio.to_thread(undo_target, workspace, event_id)
    if target is None:
        app.undo_stack.pop()
        app.notify(f"Event {event_id} is no longer in the history; nothing undone.")
        return
    what = target.describe()
    confirmed = await app.push_screen_wait(
        ConfirmScreen("Undo your last change?", f"Undo {what}?", confirm_label="Undo")
    )
    if not confirmed:
        return
    result = await undo_with_force(app, workspace, target)
    if result is None:
        return
    if result.is_error:
        app.notify(result.content, severity="error", timeout=8)
        return
    if app.undo_stack and app.undo_stack[-1] == event_id:
        app.undo_stack.pop()
    await screen.changed(target.paths(), show=target.shown_after or None)
    app.notify(f"Undid {what}", timeout=6)
