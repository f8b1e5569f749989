"""Keys and palette: binding ids, keymap remapping, palette verbs, note provider, F1 help."""

from __future__ import annotations

from pathlib import Path

from textual.binding import Binding
from textual.widgets import Static

from memtui.tui.app import MemtuiApp
from memtui.tui.commands import APP_PALETTE, ActionProvider
from memtui.tui.screens.dialogs import HelpScreen, NewNoteScreen, RenameScreen
from memtui.tui.screens.editor import ConflictScreen, EditorScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.search import SearchScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.note_tree import NoteTree
from tests.tui.conftest import wait_for, wait_idle

OWN_CLASSES = [
    MemtuiApp,
    MainScreen,
    SearchScreen,
    EditorScreen,
    ConflictScreen,
    NewNoteScreen,
    RenameScreen,
    HelpScreen,
    ConfirmScreen,
    NoteTree,
]


def test_every_binding_has_a_unique_id() -> None:
    """Every binding of memtui's own screens and widgets has an id, and ids are unique."""
    ids: list[str] = []
    for cls in OWN_CLASSES:
        for binding in cls.BINDINGS:
            assert isinstance(binding, Binding), cls
            assert binding.id, f"{cls.__name__} {binding.key}"
            ids.append(binding.id)
    assert len(ids) == len(set(ids))


def test_every_main_action_is_in_the_palette() -> None:
    """Each main-screen binding's action has a palette verb."""
    verbs = {action for _verb, action, _help in MainScreen.PALETTE}
    for binding in MainScreen.BINDINGS:
        assert isinstance(binding, Binding)
        assert binding.action in verbs, binding.action
    assert ("app: quit", "app.quit", "Leave memtui") in APP_PALETTE
    assert ActionProvider is not None


async def test_keymap_remaps_by_binding_id(store_root: Path) -> None:
    """`Settings.keymap` {"main.search": "s"} makes `s` open the search."""
    app = MemtuiApp(store_root, actor="human:tester", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        app.set_keymap({"main.search": "s"})
        await pilot.press("s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))


async def test_palette_runs_a_verb_and_opens_a_note(store_root: Path) -> None:
    """ctrl+p, "view: toggle raw" switches to the raw view; a note title opens that note."""
    app = MemtuiApp(store_root, actor="human:tester", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        await pilot.pause(0.2)
        await pilot.press("ctrl+p")
        await pilot.press(*"toggle raw")
        await pilot.pause(0.5)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: screen.preview.mode == "raw")
        await pilot.press("ctrl+p")
        await pilot.press(*"Preferences")
        await pilot.pause(0.5)
        await pilot.press("enter")
        assert await wait_for(
            pilot, lambda: screen.note_tree.cursor_relpath == "user/preferences.md"
        )


async def test_f1_lists_the_keys_of_the_focused_widget_and_screen(store_root: Path) -> None:
    """F1 shows the tree's and the main screen's keys with their ids, and the badge legend."""
    app = MemtuiApp(store_root, actor="human:tester", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        await pilot.press("f1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = str(app.screen.query_one("#help-keys", Static).render())
        assert "Search  (main.search)" in text
        assert "Expand  (tree.expand)" in text
        assert "◌ stale" in text
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("slash", "f1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = str(app.screen.query_one("#help-keys", Static).render())
        assert "tag:NAME" in text and "age:DAYS" in text


async def test_graph_history_and_review_keys_open_their_screens(store_root: Path) -> None:
    """`g`, `h`, `H` and `r` open the graph, history (all, then the note's) and review screens."""
    from memtui.tui.screens.graph import GraphScreen
    from memtui.tui.screens.history import HistoryScreen
    from memtui.tui.screens.review import ReviewScreen

    app = MemtuiApp(store_root, actor="human:tester", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        await pilot.pause(0.1)
        for key, expected in (("g", GraphScreen), ("h", HistoryScreen), ("r", ReviewScreen)):
            await pilot.press(key)
            assert await wait_for(pilot, lambda expected=expected: isinstance(app.screen, expected))
            app.pop_screen()
            await pilot.pause(0.1)
        await pilot.press("H")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        assert app.screen.scope == "/memories/tools/textual.md"  # type: ignore[attr-defined]
