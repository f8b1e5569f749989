"""Keys and palette: keymap remapping, palette verbs, note provider, F1 help."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input, Static

from memtui.tui.screens.dialogs import HelpScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.search import SearchScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle


async def test_keymap_remaps_by_binding_id(store_root: Path, make_app: AppFactory) -> None:
    """`Settings.keymap` {"main.search": "s"} makes `s` open the search."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        app.set_keymap({"main.search": "s"})
        await pilot.press("s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))


async def test_palette_runs_a_verb(store_root: Path, make_app: AppFactory) -> None:
    """ctrl+p, "toggle raw", Enter switches the preview to the raw view."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/textual.md")
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        palette = app.screen
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
        palette.remove_class("-ready")
        palette.query_one(Input).value = "toggle raw"
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
        options = palette.query_one("CommandList").options  # type: ignore[attr-defined]
        assert options and "toggle raw" in str(options[0].prompt)
        palette.query_one(Input).focus()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: screen.preview.mode == "raw")


async def test_f1_lists_the_keys_of_the_focused_widget_and_screen(
    store_root: Path, make_app: AppFactory
) -> None:
    """F1 shows the tree's and the main screen's keys with their ids, and the badge legend."""
    app = make_app()
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


async def test_graph_history_and_review_keys_open_their_screens(
    store_root: Path, make_app: AppFactory
) -> None:
    """`g`, `h`, `H` and `r` open the graph, history (all, then the note's) and review screens."""
    from memtui.tui.screens.graph import GraphScreen
    from memtui.tui.screens.history import HistoryScreen
    from memtui.tui.screens.review import ReviewScreen

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/textual.md")
        for key, expected in (("g", GraphScreen), ("h", HistoryScreen), ("r", ReviewScreen)):
            await pilot.press(key)
            assert await wait_for(pilot, lambda expected=expected: isinstance(app.screen, expected))
            app.pop_screen()
            assert await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("H")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        assert app.screen.scope == "/memories/tools/textual.md"  # type: ignore[attr-defined]


async def palette_prompts(pilot: Pilot[None], query: str) -> list[str]:
    """Open the palette, type `query` and return every listed command (prompt and help)."""
    app = pilot.app
    await pilot.press("ctrl+p")
    assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    palette = app.screen
    assert await wait_for(pilot, lambda: palette.has_class("-ready"))
    if query:
        palette.remove_class("-ready")
        palette.query_one(Input).value = query
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
    await wait_idle(pilot)
    options = palette.query_one("CommandList").options  # type: ignore[attr-defined]
    return [str(option.prompt) for option in options]


async def test_the_palette_shows_the_key_bound_now(store_root: Path, make_app: AppFactory) -> None:
    """After remapping `main.search` to `f`, the palette's search entry names `f`, not `/`."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        (before,) = [p for p in await palette_prompts(pilot, "go: search") if "go: search" in p]
        assert "(/)" in before
        await pilot.press("escape")
        app.set_keymap({"main.search": "f"})
        (after,) = [p for p in await palette_prompts(pilot, "go: search") if "go: search" in p]
        assert "(f)" in after and "(/)" not in after


async def test_the_palette_lists_keys_and_quit_once(store_root: Path, make_app: AppFactory) -> None:
    """memtui's own keys help and quit are listed; Textual's duplicates of them are not."""
    app = make_app()
    async with app.run_test(size=(120, 60)) as pilot:
        await wait_idle(pilot)
        prompts = await palette_prompts(pilot, "")
        firsts = [prompt.splitlines()[0] for prompt in prompts]
        assert "app: keys for this screen" in firsts and "app: quit" in firsts
        assert "Keys" not in firsts and "Quit" not in firsts
        assert "Theme" in firsts


async def test_an_exact_title_ranks_first_in_the_note_finder(
    store_root: Path, make_app: AppFactory
) -> None:
    """Typing `memtui` offers the note titled exactly "memtui" before "memtui Roadmap"."""
    (store_root / "projects" / "memtui-roadmap.md").write_text(
        "---\ntitle: memtui Roadmap\n---\n# memtui Roadmap\n", encoding="utf-8"
    )
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        prompts = await palette_prompts(pilot, "memtui")
        assert prompts[0].splitlines() == ["open: memtui", "projects/memtui.md"]
