"""The review screen: the stale queue with reasons, selection, archive and delete, and their undo."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from memtui.demo import DEMO_NOTES_DIR
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.history_events import EventTable
from tests.tui.screens_harness import ScreenHarness, demo_clock, demo_context, demo_copy

SIZE = (120, 40)
FIRST_TWO = ["projects/website-redesign.md", "user/schedule.md"]


@pytest.fixture
def store_root(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_copy(tmp_path, tmp_path_factory.getbasetemp())


def review_app(root: Path) -> ScreenHarness:
    return ScreenHarness(demo_context(root), lambda: ReviewScreen(clock=demo_clock))


def screen_of(app: ScreenHarness) -> ReviewScreen:
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the screen's background work (and any work it started) is done and shown."""
    await pilot.pause()
    while busy := [worker for worker in pilot.app.workers if not worker.is_finished]:
        await pilot.app.workers.wait_for_complete(busy)
        await pilot.pause()


def title(app: ScreenHarness) -> str:
    return str(app.screen.query_one("#review-title", Static).render())


async def test_queue_shows_scores_paths_and_every_reason(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = screen_of(app)
        assert title(app).startswith("Review · 20 notes proposed · 0 selected")
        assert [c.path for c in screen.candidates[:6]] == [
            *FIRST_TWO,
            "patterns/prompt-formats.md",
            "patterns/retry-backoff.md",
            "projects/billing/ledger-migration.md",
            "patterns/retry-with-backoff.md",
        ]
        row = screen.query_one(DataTable).get_row("patterns/retry-backoff.md")
        assert [str(cell) for cell in row] == [
            " ",
            "3.50",
            "patterns/retry-backoff.md",
            "near-duplicate of patterns/retry-with-backoff.md (similar t…",
        ]
        detail = str(screen.query_one("#review-detail", Static).render()).splitlines()
        assert detail[0] == "projects/website-redesign.md  score 6.54"
        assert detail[1] == "  3.00  expired      expired on 2026-08-31"
        assert len(detail) == 6


async def test_space_selects_and_a_toggles_all(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space")
        screen = screen_of(app)
        assert screen.selected == set(FIRST_TWO)
        assert screen.current_path() == "patterns/prompt-formats.md"
        assert str(screen.query_one(DataTable).get_row(FIRST_TWO[0])[0]) == "●"
        assert "· 2 selected ·" in title(app)
        await pilot.press("a")
        assert len(screen.selected) == 20
        await pilot.press("a")
        assert screen.selected == set()


async def test_archive_moves_the_selected_notes_and_each_move_is_undoable(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "A")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.title_text == "Archive 2 notes?"
        await pilot.press("y")
        await settle(pilot)
        for path in FIRST_TWO:
            assert not (store_root / path).exists()
            assert (store_root / "archive" / path).read_bytes() == (
                DEMO_NOTES_DIR / path
            ).read_bytes()
        renames = app.ctx.history.events(command="rename", actor="human")
        assert [(e.path, e.new_path) for e in renames] == [
            ("/memories/user/schedule.md", "/memories/archive/user/schedule.md"),
            (
                "/memories/projects/website-redesign.md",
                "/memories/archive/projects/website-redesign.md",
            ),
        ]
        screen = screen_of(app)
        assert screen.selected == set()
        archived = [f"archive/{path}" for path in FIRST_TWO]
        assert app.ctx.index is not None and set(archived) <= set(app.ctx.index.notes)
        proposed = [c.path for c in screen.candidates]
        assert not set(FIRST_TWO + archived) & set(proposed)
        assert len(proposed) == 18 and title(app).startswith("Review · 18 notes proposed")
        table = screen.query_one(DataTable)
        assert not any(str(key.value).startswith("archive/") for key in table.rows)
        screen.reload()
        await settle(pilot)
        assert [c.path for c in screen.candidates] == proposed

        await app.push_screen(HistoryScreen(clock=demo_clock))
        await pilot.pause()
        table = app.screen.query_one(EventTable)
        for event in renames:
            table.move_cursor(row=table.get_row_index(str(event.id)), animate=False)
            await pilot.press("u")
            await pilot.pause()
            await pilot.press("y")
            await app.workers.wait_for_complete()
            await pilot.pause()
        for path in FIRST_TWO:
            assert (store_root / path).read_bytes() == (DEMO_NOTES_DIR / path).read_bytes()
            assert not (store_root / "archive" / path).exists()


async def test_delete_without_selection_removes_the_cursor_note(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.title_text == "Delete 1 note?"
        await pilot.press("n")
        await pilot.pause()
        assert (store_root / "patterns/prompt-formats.md").exists()
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not (store_root / "patterns/prompt-formats.md").exists()
        deleted = app.ctx.history.events(command="delete", actor="human")
        assert [e.path for e in deleted] == ["/memories/patterns/prompt-formats.md"]
        result = app.ctx.store.revert(deleted[0].id)
        assert not result.is_error
        assert (store_root / "patterns/prompt-formats.md").read_bytes() == (
            DEMO_NOTES_DIR / "patterns/prompt-formats.md"
        ).read_bytes()


async def test_many_removals_show_progress_and_a_count(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("a", "A")
        await pilot.pause()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert messages[:2] == [
            "Archiving 20 notes…",
            "Archived 20 notes; undo any of them from the history (h).",
        ]
        assert len(list((store_root / "archive").rglob("*.md"))) == 20
