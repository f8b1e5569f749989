"""Live updates: outside writes and agent writes appear on screen and in the history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from memtui.core.watcher import is_ignored, relative_paths
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.text_view import TextView
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle

NOTE = "tools/textual.md"


def observations(screen: MainScreen) -> str:
    """The observation panel's text."""
    return str(screen.query_one("#preview-observations", Static).render())


async def watched_through(pilot: Pilot[None], store_root: Path) -> None:
    """Write a barrier note and wait until the app recorded it: the watcher reports changes in
    order and the app handles its batches one after another, so every change made before the
    barrier has been handled too."""
    app: Any = pilot.app
    barrier = store_root / "barrier.md"
    barrier.write_text("# Barrier\n", encoding="utf-8")
    assert await wait_for(pilot, lambda: app.ctx.history.events(path="/memories/barrier.md"))
    await wait_idle(pilot)


def test_state_and_temp_files_are_ignored(tmp_path: Path) -> None:
    """`.memtui/` and `.tmp-*` never reach the index; other paths become relative."""
    from watchfiles import Change

    changes = {
        (Change.modified, f"{tmp_path}/a/b.md"),
        (Change.added, f"{tmp_path}/.memtui/history.db"),
        (Change.added, f"{tmp_path}/a/.tmp-123"),
    }
    assert relative_paths(tmp_path, changes) == frozenset({"a/b.md"})
    assert is_ignored(".memtui/x") and is_ignored("a/.tmp-1") and not is_ignored("a/b.md")


async def test_an_outside_write_appears_live_and_is_recorded(
    store_root: Path, make_app: AppFactory
) -> None:
    """Editing the file behind memtui's back updates the preview and logs an `external` event."""
    app = make_app(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path(NOTE)
        assert await wait_for(pilot, lambda: screen.preview.relpath == NOTE)
        await wait_idle(pilot)
        (store_root / NOTE).write_text(
            FIXTURE_NOTES[NOTE] + "- [fact] Written by another tool #outside\n", encoding="utf-8"
        )
        assert await wait_for(
            pilot, lambda: "Written by another tool #outside" in observations(screen)
        )

        def results() -> list[tuple[str, str]]:
            events = app.ctx.history.events(command="external", path="/memories/" + NOTE)
            return [(event.actor, event.result) for event in events]

        changed = ("external", "/memories/tools/textual.md was changed outside memtui")
        assert await wait_for(pilot, lambda: changed in results())
        assert app.ctx.index is not None
        assert "outside" in app.ctx.index.notes[NOTE].tags or any(
            "#outside" in o.content for o in app.ctx.index.notes[NOTE].observations
        )


async def test_the_raw_view_follows_an_outside_write_without_recording_views(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """With the raw view on, an outside write re-renders it; only the toggle recorded a `view`."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path(NOTE)
        assert await wait_for(pilot, lambda: screen.preview.relpath == NOTE)
        await pilot.press("v")
        assert await wait_for(pilot, lambda: screen.preview.mode == "raw")
        plain = screen.query_one("#preview-plain", TextView)
        added = "- [fact] Written by another tool #outside\n"
        (store_root / NOTE).write_text(FIXTURE_NOTES[NOTE] + added, encoding="utf-8")
        await app.apply_changes(frozenset({NOTE}))
        assert await wait_for(pilot, lambda: "Written by another tool" in plain.text)
        await wait_idle(pilot)
        externals = app.ctx.history.events(command="external", path="/memories/" + NOTE)
        assert externals[0].result == "/memories/tools/textual.md was changed outside memtui"
        assert screen.preview.mode == "raw"
        assert plain.text == app.ctx.store.render_view("/memories/" + NOTE)
        assert "    13\t" + added.rstrip("\n") in plain.text.splitlines()
        views = app.ctx.history.events(command="view")
        assert [(e.actor, e.path) for e in views] == [("human:tester", "/memories/" + NOTE)]


async def test_a_live_raw_refresh_keeps_the_cursor_and_scroll(
    store_root: Path, make_app: AppFactory
) -> None:
    """Reading far down a long raw view, an outside write does not jump back to the top."""
    big = "# Big\n" + "".join(f"- [fact] line {n}\n" for n in range(200))
    (store_root / "tools" / "big.md").write_text(big, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/big.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/big.md")
        await pilot.press("v")
        assert await wait_for(pilot, lambda: screen.preview.mode == "raw")
        plain = screen.query_one("#preview-plain", TextView)
        plain.go_to_line(120)
        await pilot.pause()
        before = (plain.cursor_line, plain.scroll_offset)
        assert before[1].y > 0
        (store_root / "tools" / "big.md").write_text(big + "- [fact] more\n", encoding="utf-8")
        await app.apply_changes(frozenset({"tools/big.md"}))
        assert await wait_for(pilot, lambda: "line 199" in plain.text and "more" in plain.text)
        await wait_idle(pilot)
        assert (plain.cursor_line, plain.scroll_offset) == before


@pytest.mark.serial
async def test_an_agent_write_is_visible_and_not_double_counted(
    store_root: Path, make_app: AppFactory
) -> None:
    """An agent's create shows in the tree within a second, with no extra `external` event."""
    app = make_app(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path(NOTE)
        await wait_idle(pilot)
        agent = app.ctx.store.with_actor("agent:claude")
        result = agent.create("/memories/tools/rich.md", "# Rich\n- [fact] Renders text #python\n")
        assert not result.is_error
        assert await wait_for(
            pilot, lambda: screen.note_tree.node_for("tools/rich.md") is not None, 2.0
        )
        assert await wait_for(
            pilot, lambda: "tools/rich.md" in (app.ctx.index.notes if app.ctx.index else {})
        )
        await watched_through(pilot, store_root)
        events = app.ctx.history.events(path="/memories/tools/rich.md")
        assert [(e.actor, e.command) for e in events] == [("agent:claude", "create")]
        assert "agent" in app.badges.get("tools/rich.md", frozenset()) or await wait_for(
            pilot, lambda: "agent" in app.badges.get("tools/rich.md", frozenset())
        )


@pytest.mark.serial
async def test_a_burst_of_writes_becomes_few_refreshes(
    store_root: Path, make_app: AppFactory
) -> None:
    """Twenty quick writes arrive as far fewer batches than writes."""
    app = make_app(watch=True)
    batches: list[frozenset[str]] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        app.notes_changed_signal.subscribe(app.screen, batches.append)
        await wait_idle(pilot)
        for n in range(20):
            (store_root / "tools" / f"burst-{n}.md").write_text(f"# Burst {n}\n", encoding="utf-8")
        assert await wait_for(
            pilot, lambda: len(set().union(*batches)) >= 20 if batches else False, 5.0
        )
        assert len([batch for batch in batches if batch]) <= 4
