"""SVG snapshots of editing: the editor, the merge dialogs (changes that combine, changes that
overlap), the new-note and rename dialogs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, TextArea

from memtui.tui.screens.dialogs import NewNoteScreen, RenameScreen
from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.merge import ConflictScreen, MergedScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.test_snapshots_main import SIZE, frozen, show_note

NOTE = "tools/textual.md"


async def shown(pilot: Pilot[None], kind: type[Screen[Any]]) -> None:
    """Wait until a `kind` screen is on top and the app has settled around it."""
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, kind))
    await wait_idle(pilot)


async def edit(pilot: Pilot[None], relpath: str = NOTE) -> None:
    """Show `relpath` and open it in the editor."""
    await show_note(pilot, relpath)
    await pilot.press("e")
    await shown(pilot, EditorScreen)


def test_editor(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """The in-app editor on a note, markdown highlighted, cursor at the start."""

    async def run_before(pilot: Pilot[None]) -> None:
        await edit(pilot)

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)


def test_edit_conflict(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """The merge dialog: an agent changed the heading and a tag while the note was edited; the
    tag combines on its own, the heading overlaps mine and shows side by side with its choices."""

    async def run_before(pilot: Pilot[None]) -> None:
        await edit(pilot)
        app: Any = pilot.app
        agent = app.ctx.store.with_actor("agent:claude")
        path = f"/memories/{NOTE}"
        assert not agent.str_replace(path, "# Textual\n", "# Textual, the TUI framework\n").is_error
        assert not agent.str_replace(path, "#workers\n", "#workers #agent\n").is_error
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("# Textual\n", "# Textual, as I see it\n")
        await pilot.press("ctrl+s")
        await shown(pilot, ConflictScreen)

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)


def test_edit_merged(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """Changes that combine: the agent changed a tag, I changed the heading; the confirmation
    shows the merged note as a diff from what I loaded."""

    async def run_before(pilot: Pilot[None]) -> None:
        await edit(pilot)
        app: Any = pilot.app
        agent = app.ctx.store.with_actor("agent:claude")
        assert not agent.str_replace(
            f"/memories/{NOTE}", "#workers\n", "#workers #agent\n"
        ).is_error
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("# Textual\n", "# Textual, as I see it\n")
        await pilot.press("ctrl+s")
        await shown(pilot, MergedScreen)

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)


def test_new_note_dialog(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """`n` on a note in tools/: the folder prefilled, a title typed."""

    async def run_before(pilot: Pilot[None]) -> None:
        await show_note(pilot, NOTE)
        await pilot.press("n")
        await shown(pilot, NewNoteScreen)
        await pilot.press(*"Rich")
        await wait_idle(pilot)

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)


def test_rename_dialog(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
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
        await wait_idle(pilot)

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)
