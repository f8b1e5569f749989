"""SVG snapshots of editing: the editor, an edit conflict, the new-note and rename dialogs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, TextArea

from memtui.tui.screens.dialogs import NewNoteScreen, RenameScreen
from memtui.tui.screens.editor import ConflictScreen, EditorScreen
from tests.tui.conftest import wait_for
from tests.tui.test_snapshots_main import SIZE, make_app, show_note

NOTE = "tools/textual.md"


async def shown(pilot: Pilot[None], kind: type[Screen[Any]]) -> None:
    """Wait until a `kind` screen is on top and drawn (its opener waits on it, so not idle)."""
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, kind))
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    await pilot.pause()


async def edit(pilot: Pilot[None], relpath: str = NOTE) -> None:
    """Show `relpath` and open it in the editor."""
    await show_note(pilot, relpath)
    await pilot.press("e")
    await shown(pilot, EditorScreen)


def test_editor(snap_compare: Any, store_root: Path) -> None:
    """The in-app editor on a note, markdown highlighted, cursor at the start."""

    async def run_before(pilot: Pilot[None]) -> None:
        await edit(pilot)

    assert snap_compare(make_app(store_root), terminal_size=SIZE, run_before=run_before)


def test_edit_conflict(snap_compare: Any, store_root: Path) -> None:
    """An agent changed the note while it was edited: theirs, mine, the diff and the choices."""

    async def run_before(pilot: Pilot[None]) -> None:
        await edit(pilot)
        app: Any = pilot.app
        agent = app.ctx.store.with_actor("agent:claude")
        assert not agent.str_replace(f"/memories/{NOTE}", "#python\n", "#python #agent\n").is_error
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("# Textual\n", "# Textual, as I see it\n")
        await pilot.press("ctrl+s")
        await shown(pilot, ConflictScreen)

    assert snap_compare(make_app(store_root), terminal_size=SIZE, run_before=run_before)


def test_new_note_dialog(snap_compare: Any, store_root: Path) -> None:
    """`n` on a note in tools/: the folder prefilled, a title typed."""

    async def run_before(pilot: Pilot[None]) -> None:
        await show_note(pilot, NOTE)
        await pilot.press("n")
        await shown(pilot, NewNoteScreen)
        await pilot.press(*"Rich")
        await pilot.pause()

    assert snap_compare(make_app(store_root), terminal_size=SIZE, run_before=run_before)


def test_rename_dialog(snap_compare: Any, store_root: Path) -> None:
    """`m` on a note another note links to by title, a new folder typed: the link keeps
    working, so nothing needs rewriting, and the dialog says why."""

    async def run_before(pilot: Pilot[None]) -> None:
        await show_note(pilot, "projects/memtui.md")
        await pilot.press("m")
        await shown(pilot, RenameScreen)
        dialog = pilot.app.screen
        assert isinstance(dialog, RenameScreen)
        dialog.query_one("#rename-path", Input).value = "projects/active/memtui.md"
        assert await wait_for(pilot, lambda: dialog.counted == "projects/active/memtui.md")
        await pilot.pause()

    assert snap_compare(make_app(store_root), terminal_size=SIZE, run_before=run_before)
