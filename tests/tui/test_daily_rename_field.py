"""The rename field (`m`) starts with only the file name's stem selected, so typing renames the
note in its folder and a Backspace never wipes the folder."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from memtui.tui.screens.dialogs import RenameScreen, stem_span
from memtui.tui.screens.main import MainScreen
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle


def test_the_stem_is_the_last_name_without_its_extension() -> None:
    """Folder and extension stay outside the span; dotfiles and names without one are whole."""
    assert stem_span("tools/textual.md") == (6, 13)
    assert stem_span("a/b/notes.tar.gz") == (4, 13)
    assert stem_span("tools") == (0, 5)
    assert stem_span("cfg/.env") == (4, 8)
    assert stem_span("README") == (0, 6)


async def test_typing_in_the_rename_field_renames_the_note_in_its_folder(
    store_root: Path, make_app: AppFactory
) -> None:
    """`m` selects `textual` of `tools/textual.md`, cursor at its end: typing `gui` and Enter
    moves the note to `tools/gui.md` (before, the whole path was selected and it went to the
    store root as `gui`)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: screen.note_tree.cursor_relpath == "tools/textual.md")
        await pilot.press("m")
        assert await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen))
        field = app.screen.query_one("#rename-path", Input)
        assert await wait_for(pilot, lambda: field.has_focus)
        assert tuple(field.selection) == (6, 13) and field.cursor_position == 13
        await pilot.press("g", "u", "i")
        assert field.value == "tools/gui.md"
        await pilot.press("enter")
        moved = store_root / "tools" / "gui.md"
        assert await wait_for(pilot, moved.exists)
        assert moved.read_text(encoding="utf-8") == FIXTURE_NOTES["tools/textual.md"]
        assert not (store_root / "tools" / "textual.md").exists()
        assert not (store_root / "gui").exists()


async def test_backspace_in_the_rename_field_keeps_the_folder(
    store_root: Path, make_app: AppFactory
) -> None:
    """A Backspace deletes the selected stem only: the folder and `.md` stay in the field."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("user/preferences.md")
        assert await wait_for(
            pilot, lambda: screen.note_tree.cursor_relpath == "user/preferences.md"
        )
        await pilot.press("m")
        assert await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen))
        field = app.screen.query_one("#rename-path", Input)
        assert await wait_for(pilot, lambda: field.has_focus)
        await pilot.press("backspace")
        assert (field.value, field.cursor_position) == ("user/.md", len("user/"))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / "user" / "preferences.md").exists()
