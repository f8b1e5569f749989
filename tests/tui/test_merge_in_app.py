"""A save over a note an agent changed meanwhile, in the app: changes to other lines combine
(confirmed with the merged diff), overlapping ones are resolved side by side, nothing is
overwritten by leaving, and no way out of the editor loses text without asking."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button, Static, TextArea

from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.merge import ConflictScreen, HunkEditScreen, MergedScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for
from tests.tui.test_edit import NOTE, start_editing

VIRTUAL = f"/memories/{NOTE}"
ORIGINAL = FIXTURE_NOTES[NOTE]


def text_of(screen: object, selector: str) -> str:
    """The plain text a Static on `screen` shows."""
    return str(screen.query_one(selector, Static).render())  # type: ignore[attr-defined]


async def test_an_agent_change_to_another_line_is_merged_with_the_save(
    store_root: Path, make_app: AppFactory
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        agent = app.ctx.store.with_actor("agent:claude")
        assert not agent.str_replace(VIRTUAL, "#workers\n", "#workers #agent\n").is_error
        editor.query_one(TextArea).text = ORIGINAL.replace("# Textual\n", "# Textual (mine)\n")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MergedScreen))
        merged = app.screen
        who = text_of(merged, "#merged-who")
        assert who.startswith("Changed by agent:claude (str_replace, ")
        diff = text_of(merged, "#merged-diff")
        assert (
            "+# Textual (mine)" in diff
            and "+- [tip] Workers never touch widgets #workers #agent" in diff
        )
        assert (store_root / NOTE).read_text(encoding="utf-8").count("(mine)") == 0
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        both = ORIGINAL.replace("# Textual\n", "# Textual (mine)\n").replace(
            "#workers\n", "#workers #agent\n"
        )
        assert (store_root / NOTE).read_text(encoding="utf-8") == both
        changes = [e for e in app.ctx.history.events(limit=4) if e.command != "view"]
        assert [(e.actor, e.command, e.is_error) for e in changes[:3]] == [
            ("human:tester", "write", False),
            ("human:tester", "write", True),
            ("agent:claude", "str_replace", False),
        ]


async def test_overlapping_changes_are_chosen_side_by_side_and_the_rest_combines(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """Both changed the heading (a conflict); I changed the type and the agent a tag (both
    combine). Taking mine for the heading and saving keeps all three changes."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        agent = app.ctx.store.with_actor("agent:claude")
        assert not agent.str_replace(VIRTUAL, "# Textual\n", "# Textual (agent)\n").is_error
        assert not agent.str_replace(VIRTUAL, "#python\n", "#python #agent\n").is_error
        mine = ORIGINAL.replace("# Textual\n", "# Textual (mine)\n").replace(
            "type: tool", "type: library"
        )
        editor.query_one(TextArea).text = mine
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        conflict = app.screen
        assert isinstance(conflict, ConflictScreen)
        assert text_of(conflict, "#conflict-who").startswith(
            "Changed by agent:claude (2 str_replace, last "
        )
        assert text_of(conflict, "#hunk-0 .hunk-mine") == "# Textual (mine)"
        assert text_of(conflict, "#hunk-0 .hunk-theirs") == "# Textual (agent)"
        assert conflict.query_one("#save", Button).disabled
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConflictScreen)
        await pilot.click("#pick-mine-0")
        assert await wait_for(pilot, lambda: not conflict.query_one("#save", Button).disabled)
        assert text_of(conflict, "#hunk-0 .hunk-title") == "Line 8 · yours ✓"
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / NOTE).read_text(encoding="utf-8") == mine.replace(
            "#python\n", "#python #agent\n"
        )


async def test_a_change_written_anew_is_saved_as_written(
    store_root: Path, make_app: AppFactory
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        agent = app.ctx.store.with_actor("agent:claude")
        agent.str_replace(VIRTUAL, "# Textual\n", "# Textual (agent)\n")
        editor.query_one(TextArea).text = ORIGINAL.replace("# Textual\n", "# Textual (mine)\n")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.click("#pick-edit-0")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HunkEditScreen))
        area = app.screen.query_one(TextArea)
        assert area.text == "# Textual (mine)\n# Textual (agent)\n"
        area.text = "# Textual, by both of us"
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / NOTE).read_text(encoding="utf-8") == ORIGINAL.replace(
            "# Textual\n", "# Textual, by both of us\n"
        )


async def test_leaving_the_conflict_overwrites_nothing_and_escape_then_asks(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """Escape on the conflict goes back to the editor with my text; escape there asks before
    discarding; the agent's version stays on disk."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        agent = app.ctx.store.with_actor("agent:claude")
        agent.str_replace(VIRTUAL, "# Textual\n", "# Textual (agent)\n")
        theirs = (store_root / NOTE).read_bytes()
        mine = ORIGINAL.replace("# Textual\n", "# Textual (mine)\n")
        editor.query_one(TextArea).text = mine
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is editor)
        assert editor.text == mine and editor.unsaved
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is editor)
        assert editor.text == mine
        assert (store_root / NOTE).read_bytes() == theirs
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / NOTE).read_bytes() == theirs


async def test_the_palette_cannot_close_an_editor_with_unsaved_text(
    store_root: Path, make_app: AppFactory
) -> None:
    """Opening a note from the palette while the editor holds unsaved text keeps the editor."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        editor.query_one(TextArea).text = "unsaved\n"
        app.open_note("projects/memtui.md")
        await pilot.pause()
        assert app.screen is editor and editor.text == "unsaved\n"
        assert isinstance(app.screen, EditorScreen)
