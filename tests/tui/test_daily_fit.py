"""Fits the terminal: the tree sizes to its names within a third of the width, cutting a long
name in the middle and never its badge; at 80x24 the footer keeps the keys that matter and the
inbox's What column shows whole words; why a file cannot be read is never cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.changes import ChangesScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.note_tree import NoteTree
from tests.tui.conftest import AppFactory, wait_for, wait_idle

LONG = "claude/coffee-order-preferences.json"


def tree_lines(tree: NoteTree) -> list[str]:
    """The tree's rows as drawn."""
    return [tree.render_line(y).text.rstrip() for y in range(tree.size.height)]


async def main_screen(app: MemtuiApp, pilot: object) -> MainScreen:
    """The main screen once the index and badges are in."""
    await wait_idle(pilot)  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, MainScreen)
    return screen


def agent_writes(root: Path, *paths: str) -> None:
    """An agent creates each file (its badge: ●, changed by an agent lately)."""
    agent = MemoryStore(root, actor="agent:claude")
    for path in paths:
        assert not agent.create(f"/memories/{path}", '{"milk": "oat"}\n').is_error
    agent.close()


@pytest.mark.parametrize(("size", "cut"), [((120, 40), False), ((80, 24), True)])
async def test_the_tree_fits_its_names_and_never_cuts_a_badge(
    store_root: Path, make_app: AppFactory, size: tuple[int, int], cut: bool
) -> None:
    """At 120 columns the tree is as wide as its longest name (within its third: 39 columns);
    at 80 a name too long for its third is cut in the middle and keeps its `●`."""
    agent_writes(store_root, LONG)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        main = await main_screen(app, pilot)
        tree = main.note_tree
        main.show_path(LONG)
        assert await wait_for(pilot, lambda: bool(app.badges.get(LONG)))
        wanted = 80 // 3 if cut else len("└─ coffee-order-preferences.json ●") + 1
        assert await wait_for(pilot, lambda: tree.outer_size.width == wanted)
        assert await wait_for(pilot, lambda: any("●" in line for line in tree_lines(tree)))
        line = next(line for line in tree_lines(tree) if "●" in line)
        if cut:
            assert line.startswith("└─ coffee") and "…" in line and len(line) <= wanted - 1
            assert line.endswith("ces.json ●")
        else:
            assert line == "└─ coffee-order-preferences.json ●"


async def test_a_short_store_gets_a_narrow_tree(store_root: Path, make_app: AppFactory) -> None:
    """The fixture's names are short: the tree takes their width, not a fixed share."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        main = await main_screen(app, pilot)
        main.show_path("user/preferences.md")
        assert await wait_for(pilot, lambda: main.note_tree.cursor_relpath == "user/preferences.md")
        await pilot.pause()
        assert main.note_tree.outer_size.width == len("└─ preferences") + 2


def footer_shown(screen: object) -> list[str]:
    """The footer keys shown, as `key description`."""
    keys = screen.query(FooterKey)  # type: ignore[attr-defined]
    return [f"{key.key_display} {key.description}".strip() for key in keys if key.display]


async def test_at_80_columns_the_footer_keeps_the_keys_that_matter(
    store_root: Path, make_app: AppFactory
) -> None:
    """History, review, changes and quit stay in the main screen's footer at 80x24; the inbox
    keeps approve, revert, back and quit."""
    agent_writes(store_root, "a.json")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = await main_screen(app, pilot)
        for wanted in ("h History", "r Review", "c Changes", "^q Quit"):
            assert await wait_for(pilot, lambda wanted=wanted: wanted in footer_shown(main))
        shown = footer_shown(main)
        assert "v Raw" not in shown and "^p palette" in shown
        assert sum(len(key) + 3 for key in shown if key != "^p palette") <= 80 - 14
        await pilot.press("c")
        inbox = app.screen
        assert isinstance(inbox, ChangesScreen)
        assert await wait_for(pilot, lambda: len(inbox.page.rows) == 1)
        for wanted in ("a Approve", "u Revert", "esc Back", "^q Quit"):
            assert await wait_for(pilot, lambda wanted=wanted: wanted in footer_shown(inbox))


async def test_at_80_columns_the_inbox_shows_whole_words(
    store_root: Path, make_app: AppFactory
) -> None:
    """The What column is at least as wide as its longest word: `create`, `str_replace`."""
    agent = MemoryStore(store_root, actor="agent:claude")
    agent.create("/memories/projects/a-rather-long-note-name-for-the-inbox.md", "# A\n")
    agent.str_replace("/memories/tools/textual.md", "# Textual\n", "# Textual UI\n")
    agent.close()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await main_screen(app, pilot)
        await pilot.press("c")
        inbox = app.screen
        assert isinstance(inbox, ChangesScreen)
        assert await wait_for(pilot, lambda: len(inbox.page.rows) == 2)
        table = inbox.table
        assert table.widths["what"] >= len("str_replace")
        shown = [str(table.get_row(key)[4]) for key in table.shown_keys()]
        assert shown == ["str_replace", "create"]
        assert sum(table.widths.values()) + 2 * 5 + 2 <= 80


async def test_why_a_file_cannot_be_read_is_never_cut(
    store_root: Path, make_app: AppFactory
) -> None:
    """A file that is not UTF-8, side panel open at 120 columns: the whole reason shows,
    wrapped in the preview's header."""
    (store_root / "tools" / "blob.bin").write_bytes(b"\xff\xfe\x00binary" * 100)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        main = await main_screen(app, pilot)
        main.show_path("tools/blob.bin")
        header = main.query_one("#preview-header", Static)
        wanted = (
            "Cannot read tools/blob.bin: The file /memories/tools/blob.bin is not valid UTF-8 text"
        )
        assert await wait_for(pilot, lambda: str(header.render()) == wanted)
        await pilot.pause()
        assert header.size.height >= 2
        drawn = " ".join(header.render_line(y).text.strip() for y in range(header.size.height))
        assert drawn == wanted
