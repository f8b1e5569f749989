"""One key map across screens: `q` goes back (quits on the main screen), F1 and `?` show the keys
in every screen and dialog, `j`/`k` move in lists, every dialog lists its keys, the review queue's
`a` archives and `u` undoes it, and the deleted-while-editing dialog saves with ctrl+s."""

from __future__ import annotations

from pathlib import Path

from textual.screen import Screen
from textual.widgets import Footer, Input, Static, TextArea

from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.modal import KEY_MAP
from memtui.tui.screens.changes import ChangesScreen
from memtui.tui.screens.dialogs import HelpScreen, RenameScreen
from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.graph import GraphScreen
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.merge import DeletedScreen
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle

SIZE = (120, 40)


def footer_keys(screen: Screen[object]) -> str:
    """The keys the screen's footer shows, as text."""
    return "  ".join(str(key.render()) for key in screen.query_one(Footer).children)


async def main_on(app: MemtuiApp, pilot: object, relpath: str) -> MainScreen:
    """The main screen with the tree cursor on `relpath`."""
    await wait_idle(pilot)  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, MainScreen)
    screen.show_path(relpath)
    assert await wait_for(pilot, lambda: screen.note_tree.cursor_relpath == relpath)  # type: ignore[arg-type]
    return screen


async def test_q_goes_back_from_every_screen_and_quits_on_the_main_screen(
    store_root: Path, make_app: AppFactory
) -> None:
    """Graph, history, changes and review close on `q`; on the main screen `q` quits."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await main_on(app, pilot, "tools/textual.md")
        for key, kind in (("g", GraphScreen), ("h", HistoryScreen), ("c", ChangesScreen)):
            await pilot.press(key)
            assert await wait_for(pilot, lambda kind=kind: isinstance(app.screen, kind))
            await pilot.press("q")
            assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("r")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("q")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("q")
        assert await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0


async def test_question_mark_and_f1_show_the_key_map_in_screens_and_dialogs(
    store_root: Path, make_app: AppFactory
) -> None:
    """`?` opens the help on the main screen and `?` closes it; inside the rename dialog F1
    opens it (the dialog's own keys first), while `?` typed in its field is text."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await main_on(app, pilot, "tools/textual.md")
        await pilot.press("question_mark")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        shown = str(app.screen.query_one("#help-keys", Static).render())
        assert "Search  (main.search)" in shown and KEY_MAP.splitlines()[0] in shown
        assert "j / k       down / up in every list, table, tree and text view" in shown
        await pilot.press("question_mark")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("m")
        assert await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen))
        dialog = app.screen
        field = dialog.query_one("#rename-path", Input)
        assert await wait_for(pilot, lambda: field.has_focus)
        await pilot.press("question_mark")
        assert field.value == "tools/?.md" and app.screen is dialog
        await pilot.press("f1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        shown = str(app.screen.query_one("#help-keys", Static).render())
        assert "Rename  (rename.submit)" in shown and "Cancel  (rename.cancel)" in shown
        await pilot.press("f1")
        assert await wait_for(pilot, lambda: app.screen is dialog)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
    assert (store_root / "tools" / "textual.md").read_text() == FIXTURE_NOTES["tools/textual.md"]


async def test_j_and_k_move_in_the_tree_and_in_tables(
    store_root: Path, make_app: AppFactory
) -> None:
    """`j`/`k` move the tree cursor and the inbox's row cursor like down/up."""
    agent = MemoryStore(store_root, actor="agent:claude")
    for name in ("a", "b"):
        assert not agent.create(f"/memories/{name}.md", f"# {name}\n").is_error
    agent.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await main_on(app, pilot, "projects")
        await pilot.press("j")
        assert screen.note_tree.cursor_relpath == "tools"
        await pilot.press("k")
        assert screen.note_tree.cursor_relpath == "projects"
        await pilot.press("c")
        inbox = app.screen
        assert isinstance(inbox, ChangesScreen)
        assert await wait_for(pilot, lambda: len(inbox.page.rows) == 2)
        first = inbox.table.selected_key()
        await pilot.press("j")
        assert inbox.table.cursor_row == 1 and inbox.table.selected_key() != first
        await pilot.press("k")
        assert inbox.table.selected_key() == first


async def test_every_dialog_lists_its_keys(store_root: Path, make_app: AppFactory) -> None:
    """The delete confirmation and the rename dialog show their keys in a footer."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await main_on(app, pilot, "tools/textual.md")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.pause()
        keys = footer_keys(app.screen)
        assert "y Yes" in keys and "n No" in keys and "F1 Keys" in keys
        await pilot.press("q")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / "tools" / "textual.md").exists()
        await pilot.press("m")
        assert await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen))
        await pilot.pause()
        keys = footer_keys(app.screen)
        assert "^s Rename" in keys and "esc Cancel" in keys and "F1 Keys" in keys


async def test_a_archives_in_the_review_queue_and_u_undoes_it(
    store_root: Path, make_app: AppFactory
) -> None:
    """In the review queue `a` archives the note under the cursor (confirmed) and `u` undoes
    it after naming it: the note is back at its path, byte for byte."""
    big = store_root / "big.md"
    big.write_text("# Big\n" + "word " * 40_000)
    text = big.read_bytes()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("r")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        assert await wait_for(pilot, lambda: review.current_path() == "big.md")
        await pilot.press("a")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert app.screen.title_text == "Archive 1 note?"
        await pilot.press("y")
        assert await wait_for(pilot, (store_root / "archive" / "big.md").exists)
        assert not big.exists()
        assert await wait_for(pilot, lambda: app.screen is review and not review.workers)
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert app.screen.body == "Undo rename big.md → archive/big.md by human:tester?"
        await pilot.press("y")
        assert await wait_for(pilot, big.exists)
        assert big.read_bytes() == text
        assert not (store_root / "archive" / "big.md").exists()


async def test_the_deleted_while_editing_dialog_lists_its_keys_and_saves_with_ctrl_s(
    store_root: Path, make_app: AppFactory
) -> None:
    """An agent deletes the note being edited: ctrl+s shows the dialog with its keys, and
    ctrl+s there saves the text, creating the note again."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await main_on(app, pilot, "tools/textual.md")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        editor = app.screen
        agent = MemoryStore(store_root, actor="agent:claude")
        assert not agent.delete("/memories/tools/textual.md").is_error
        agent.close()
        editor.query_one(TextArea).text = "# Textual\n\nKept by a person.\n"
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DeletedScreen))
        await pilot.pause()
        keys = footer_keys(app.screen)
        assert "^s Save mine (create it again)" in keys
        assert "^t Leave it deleted" in keys and "esc Keep editing" in keys
        await pilot.press("ctrl+s")
        note = store_root / "tools" / "textual.md"
        assert await wait_for(pilot, note.exists)
        assert note.read_text() == "# Textual\n\nKept by a person.\n"
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
