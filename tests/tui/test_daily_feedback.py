"""Feedback while editing: a save in $EDITOR says so, an agent's change to the note being edited
is said as it lands, the inbox opens the editor at the change, a note too big for the editor is
offered to $EDITOR, the side panel names a refused save, and undoing a move into a new folder
takes the folder away again."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static, TextArea

from memtui.core.config import Settings
from memtui.tui.screens.changes import ChangesScreen
from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.side_panel import SidePanel
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle
from tests.tui.test_edit import rename_in_app
from tests.tui.test_external_editor import Suspension, executable
from tests.tui.test_large_notes import toast_texts

NOTE = "tools/textual.md"
VIRTUAL = f"/memories/{NOTE}"
SIZE = (120, 40)
APPEND = "#!/bin/sh\nprintf -- '- [fact] Added in the editor\\n' >> \"$1\"\n"


async def main_on(app: object, pilot: object, relpath: str) -> MainScreen:
    """The main screen showing `relpath`."""
    await wait_idle(pilot)  # type: ignore[arg-type]
    main = app.screen  # type: ignore[attr-defined]
    assert isinstance(main, MainScreen)
    main.show_path(relpath)
    assert await wait_for(pilot, lambda: main.preview.relpath == relpath)  # type: ignore[arg-type]
    return main


def toasts(app: object) -> str:
    """Every notification on screen, as one line."""
    return " ".join(toast_texts(app))  # type: ignore[arg-type]


async def test_saving_in_the_outside_editor_says_saved(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, make_app: AppFactory
) -> None:
    """`E`, the editor writes and exits (`:wq`): "Saved tools/textual.md", as `:q!` says
    "No changes."."""
    monkeypatch.setenv("EDITOR", executable(tmp_path / "ed", APPEND))
    app = make_app()
    monkeypatch.setattr(app, "suspend", Suspension())
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await main_on(app, pilot, NOTE)
        await pilot.press("E")
        assert await wait_for(pilot, lambda: f"Saved {NOTE}" in toasts(app))
    assert (store_root / NOTE).read_text() == FIXTURE_NOTES[NOTE] + "- [fact] Added in the editor\n"


async def test_an_agent_change_to_the_note_being_edited_is_said_as_it_lands(
    store_root: Path, make_app: AppFactory
) -> None:
    """While the editor is open an agent edits the note: a notice and the editor's title say
    who, the text being edited is untouched and nothing is saved."""
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await main_on(app, pilot, NOTE)
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        editor = app.screen
        area = editor.query_one(TextArea)
        area.text = FIXTURE_NOTES[NOTE] + "- [fact] Mine\n"
        agent = app.ctx.store.with_actor("agent:claude")
        assert not agent.str_replace(VIRTUAL, "# Textual\n", "# Textual (agent)\n").is_error
        await app.apply_changes(frozenset({NOTE}))
        wanted = (
            f"{NOTE} was just changed by agent:claude (str_replace). Your text here is "
            "untouched; ctrl+s merges your changes with theirs."
        )
        assert await wait_for(pilot, lambda: wanted in toasts(app))
        title = str(editor.query_one("#editor-title", Static).render())
        assert title == (
            f" editing {NOTE}  ·  changed on disk by agent:claude (str_replace): ctrl+s merges "
            "your changes with theirs"
        )
        assert area.text == FIXTURE_NOTES[NOTE] + "- [fact] Mine\n" and app.screen is editor
    assert (store_root / NOTE).read_text() == FIXTURE_NOTES[NOTE].replace(
        "# Textual\n", "# Textual (agent)\n"
    )


async def test_editing_from_the_inbox_starts_at_the_change(
    store_root: Path, make_app: AppFactory
) -> None:
    """`e` in the inbox puts the editor's cursor on the first line the agent changed."""
    agent_line = "- [tip] Pin the Textual version #deps\n"
    app = make_app()
    agent = app.ctx.store.with_actor("agent:claude")
    assert not agent.str_replace(VIRTUAL, "#workers\n", "#workers\n" + agent_line).is_error
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("c")
        inbox = app.screen
        assert isinstance(inbox, ChangesScreen)
        assert await wait_for(pilot, lambda: len(inbox.page.rows) == 1)
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        area = app.screen.query_one(TextArea)
        row, column = area.cursor_location
        assert area.document.get_line(row) + "\n" == agent_line and column == 0


async def test_a_note_too_big_for_the_editor_is_offered_to_the_outside_editor(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, make_app: AppFactory
) -> None:
    """`e` on a note over 1 MiB offers $EDITOR; yes runs it and saves through the core."""
    monkeypatch.setenv("EDITOR", executable(tmp_path / "ed", APPEND))
    text = "- [fact] filler line\n" * 60_000
    (store_root / "big.md").write_text(text, encoding="utf-8")
    app = make_app()
    monkeypatch.setattr(app, "suspend", Suspension())
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await main_on(app, pilot, "big.md")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert app.screen.confirm_label == "Edit in $EDITOR"
        await pilot.press("y")
        assert await wait_for(pilot, lambda: "Saved big.md" in toasts(app))
    assert (store_root / "big.md").read_text() == text + "- [fact] Added in the editor\n"
    write = app.ctx.history.events(command="write", limit=1)[0]
    assert (write.actor, write.path) == ("human:tester", "/memories/big.md")


async def test_the_side_panel_lists_a_refused_save_as_refused(
    store_root: Path, make_app: AppFactory
) -> None:
    """A save over the maximum file size is refused: the note's history says `write refused`."""
    app = make_app(settings=Settings(max_file_size=300))
    async with app.run_test(size=SIZE) as pilot:
        main = await main_on(app, pilot, NOTE)
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        app.screen.query_one(TextArea).text = FIXTURE_NOTES[NOTE] + "x" * 200 + "\n"
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: bool(app.ctx.history.events(command="write")))
        assert app.ctx.history.events(command="write")[0].is_error
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: app.screen is main)
        side = main.query_one(SidePanel)

        def history_lines() -> list[str]:
            return [
                str(option.prompt)
                for option in side.options
                if "human:tester" in str(option.prompt)
            ]

        assert await wait_for(
            pilot, lambda: any("write refused" in line for line in history_lines())
        )
    assert (store_root / NOTE).read_text() == FIXTURE_NOTES[NOTE]


async def test_undoing_a_move_into_a_new_folder_takes_the_folder_away(
    store_root: Path, make_app: AppFactory
) -> None:
    """`m` into `shelf/old/`, then `u`: the note is back and `shelf/` is gone from disk and
    from the tree."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = await main_on(app, pilot, NOTE)
        await rename_in_app(app, pilot, NOTE, "shelf/old/textual.md")
        assert await wait_for(pilot, (store_root / "shelf/old/textual.md").exists)
        assert await wait_for(
            pilot, lambda: main.note_tree.cursor_relpath == "shelf/old/textual.md"
        )
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, (store_root / NOTE).exists)
        assert await wait_for(pilot, lambda: main.note_tree.node_for("shelf") is None)
    assert not (store_root / "shelf").exists()
    assert (store_root / NOTE).read_text() == FIXTURE_NOTES[NOTE]
