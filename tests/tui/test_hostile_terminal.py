"""Nothing an agent writes reaches the terminal raw: every screen of a store of hostile names,
notes and history is drawn with control characters, bidi overrides and DEL as visible symbols."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from memtui.core.display import visible, visible_cells
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.text_view import TextView
from tests.tui.conftest import AppFactory, wait_for, wait_for_results, wait_idle
from tests.tui.hostile_terminal import (
    BIG_NOTE,
    CLIPBOARD_ATTACK,
    HOSTILE_ACTOR,
    HOSTILE_FILE,
    HOSTILE_FOLDER,
    HOSTILE_NOTE,
    TITLE_ATTACK,
    build_hostile_terminal_store,
    drawn_lines,
    unsafe_drawn,
)

SHOWN_TITLE_ATTACK = visible(TITLE_ATTACK)
"""How the title attack looks on screen: `␛]0;pwned-title␇`."""


@pytest.fixture
def hostile_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hostile store, with user config discovery pointed away."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return build_hostile_terminal_store(tmp_path / "memories")


def screen_text(app: MemtuiApp) -> str:
    """Everything drawn on the screen, one line per row."""
    return "\n".join(drawn_lines(app))


async def settle(pilot: Pilot[None]) -> None:
    """Wait until what was asked for is drawn (the index, views laid out, diffs read)."""
    await wait_idle(pilot)


async def show(pilot: Pilot[None], main: MainScreen, relpath: str) -> None:
    """Put the tree cursor on `relpath` and wait for its view."""
    main.show_path(relpath)
    assert await wait_for(pilot, lambda: main.preview.relpath == relpath)
    await settle(pilot)


async def test_every_main_screen_view_of_hostile_files_is_display_safe(
    hostile_root: Path,
    make_app: AppFactory,
) -> None:
    """Tree, rendered note, big plain note, JSON, text file, raw view and side panel: no raw
    control character is drawn, and the attacks show as symbols."""
    app = make_app(hostile_root)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.note_tree.select_path(f"{HOSTILE_FOLDER}/x")
        for relpath in (HOSTILE_NOTE, BIG_NOTE, "data.json", "log.txt"):
            await show(pilot, main, relpath)
            assert unsafe_drawn(app) == [], relpath
        text = screen_text(app)
        assert f"first {SHOWN_TITLE_ATTACK}" in text
        assert visible(HOSTILE_FOLDER)[:25] in text
        await show(pilot, main, HOSTILE_NOTE)
        text = screen_text(app)
        assert f"Heading {SHOWN_TITLE_ATTACK}" in text
        assert f"tagged {SHOWN_TITLE_ATTACK}" in text
        assert visible(HOSTILE_ACTOR)[:20] in text
        await pilot.press("v")
        assert await wait_for(pilot, lambda: main.preview.mode == "raw")
        await settle(pilot)
        assert unsafe_drawn(app) == []
        raw = main.query_one("#preview-plain", TextView)
        assert raw.text == app.ctx.store.render_view(f"/memories/{HOSTILE_NOTE}")
        assert f"# Heading {SHOWN_TITLE_ATTACK}" in screen_text(app)
        main.note_tree.select_path(HOSTILE_FILE)
        await settle(pilot)
        assert unsafe_drawn(app) == []


async def test_history_screen_shows_a_hostile_actor_and_every_diff_safely(
    hostile_root: Path,
    make_app: AppFactory,
) -> None:
    """An actor recorded with escape sequences, hostile paths, arguments and results: the table
    and the diff of every event are display-safe."""
    app = make_app(hostile_root)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        events = app.ctx.history.events()
        assert HOSTILE_ACTOR in {event.actor for event in events}
        assert visible(HOSTILE_ACTOR)[:12] in screen_text(app)
        for _event in events:
            await settle(pilot)
            assert unsafe_drawn(app) == []
            await pilot.press("down")
        assert "refused" in screen_text(app) or "error" in screen_text(app)


async def test_graph_review_search_and_palette_are_display_safe(
    hostile_root: Path, make_app: AppFactory
) -> None:
    """The graph and its lists, the review queue, search results and the palette's note finder
    show hostile titles, relation types and paths as symbols."""
    app = make_app(hostile_root)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        await show(pilot, main, HOSTILE_NOTE)
        await pilot.press("g")
        await settle(pilot)
        assert f"Target {SHOWN_TITLE_ATTACK}"[:14] in screen_text(app)
        assert unsafe_drawn(app) == []
        for tab in ("tab-hubs", "tab-orphans", "tab-unresolved"):
            app.screen.query_one("TabbedContent").active = tab  # type: ignore[attr-defined]
            await settle(pilot)
            assert unsafe_drawn(app) == [], tab
        await pilot.press("escape")
        await pilot.press("r")
        await settle(pilot)
        assert "review" in screen_text(app).lower()
        assert unsafe_drawn(app) == []
        await pilot.press("escape")
        await pilot.press("slash", *"observed")
        assert await wait_for_results(pilot, "observed")
        assert f"observed {SHOWN_TITLE_ATTACK}" in screen_text(app)
        assert unsafe_drawn(app) == []
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"inner")
        assert await wait_for(pilot, lambda: "open: inner" in screen_text(app))
        assert unsafe_drawn(app) == []


async def test_dialogs_toasts_and_the_editor_are_display_safe(
    hostile_root: Path, make_app: AppFactory
) -> None:
    """Rename, delete and new-note dialogs of hostile names, a toast naming a hostile link
    target, and the editor: symbols on screen, while saving writes the note's exact characters
    back."""
    app = make_app(hostile_root)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.note_tree.select_path(HOSTILE_FILE)
        await pilot.press("m")
        assert await wait_for(pilot, lambda: app.screen is not main)
        await settle(pilot)
        assert unsafe_drawn(app) == []
        assert app.screen.query_one("#rename-path", Input).value == visible_cells(HOSTILE_FILE)
        await pilot.press("escape")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: app.screen is not main)
        await settle(pilot)
        assert unsafe_drawn(app) == []
        assert f"Delete {visible(HOSTILE_FILE)}"[:30] in screen_text(app)
        await pilot.press("escape")
        assert main.note_tree.select_path(HOSTILE_FOLDER)
        await pilot.press("n")
        assert await wait_for(pilot, lambda: app.screen is not main)
        await settle(pilot)
        assert unsafe_drawn(app) == []
        assert app.screen.query_one("#new-folder", Input).value == visible_cells(HOSTILE_FOLDER)
        await pilot.press("escape")
        main.follow(f"Ghost {CLIPBOARD_ATTACK}", HOSTILE_NOTE)
        await settle(pilot)
        assert await wait_for(pilot, lambda: "Unresolved link: [[Ghost" in screen_text(app)), (
            screen_text(app)
        )
        assert "␛]52;c;" in screen_text(app)
        assert unsafe_drawn(app) == []
        await show(pilot, main, HOSTILE_NOTE)
        original = (hostile_root / HOSTILE_NOTE).read_text(encoding="utf-8")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: bool(app.screen.query("#editor")))
        await settle(pilot)
        assert unsafe_drawn(app) == []
        assert f"title: Hostile {SHOWN_TITLE_ATTACK}" in screen_text(app)
        editor = app.screen.query_one("#editor", TextArea)
        assert editor.text == original
        editor.move_cursor((0, 0))
        await pilot.press("x", "ctrl+s")
        assert await wait_for(pilot, lambda: app.screen is main)
        assert (hostile_root / HOSTILE_NOTE).read_text(encoding="utf-8") == "x" + original
