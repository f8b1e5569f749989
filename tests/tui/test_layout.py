"""The main screen's panes share the terminal's width: a usable preview at 80 columns."""

from __future__ import annotations

from pathlib import Path

from memtui.tui.screens.main import MainScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle


async def test_at_80x24_the_side_panel_hides_and_the_preview_is_wide(
    store_root: Path, make_app: AppFactory
) -> None:
    """At 80x24 the preview gets at least 40 columns; the side panel comes back with `l`."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("projects/memtui.md")
        assert await wait_for(pilot, lambda: main.preview.relpath == "projects/memtui.md")
        await wait_idle(pilot)
        assert main.preview.size.width >= 40
        assert main.side.size.width == 0
        assert 16 <= main.note_tree.outer_size.width <= 80 // 3
        await pilot.press("l")
        await pilot.pause()
        assert main.side.size.width > 0


async def test_on_a_wide_terminal_every_pane_shows(store_root: Path, make_app: AppFactory) -> None:
    """At 140x42 tree, preview and side panel all show; `l` hides the side panel."""
    app = make_app()
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        assert main.side.size.width >= 26
        assert main.preview.size.width >= 60
        await pilot.press("l")
        await pilot.pause()
        assert main.side.size.width == 0
        assert main.preview.size.width >= 90


async def test_the_side_panel_choice_holds_when_the_terminal_is_resized(
    store_root: Path, make_app: AppFactory
) -> None:
    """Hidden with `l` on a wide terminal, the side panel stays hidden through narrowing and
    widening; shown with `l` on a narrow one, it stays shown."""
    app = make_app()
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        await pilot.press("l")
        for size in ((80, 24), (140, 42)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert main.side.size.width == 0, size
        await pilot.press("l")
        await pilot.pause()
        assert main.side.size.width > 0
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.press("l", "l")
        for size in ((80, 24), (140, 42), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert main.side.size.width > 0, size
