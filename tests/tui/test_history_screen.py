"""The history screen: listing, filters, toggles, diffs, and undo (with confirmation and force)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Static
from textual.widgets._toast import Toast

from memtui.core.store import MemoryStore
from memtui.tui.screens.history import CURSOR_REST, HistoryScreen
from memtui.tui.timers import SYSTEM_TIMERS, Timers
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.history_events import DiffView, EventTable
from tests.tui.conftest import wait_for, wait_idle
from tests.tui.manual_timers import ManualTimers
from tests.tui.screens_harness import ScreenHarness, demo_clock, demo_context, demo_copy

SIZE = (120, 40)
ROOT_EVENT_COUNT = 77
NOW = datetime(2026, 6, 10, 12, 0).timestamp()


@pytest.fixture
def store_root(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_copy(tmp_path, tmp_path_factory.getbasetemp())


def history_app(
    root: Path, path: str | None = None, timers: Timers = SYSTEM_TIMERS
) -> ScreenHarness:
    return ScreenHarness(demo_context(root), lambda: HistoryScreen(path, clock=demo_clock), timers)


def shown_ids(app: ScreenHarness) -> list[int]:
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    return [event.id for event in screen.events]


def title(app: ScreenHarness) -> str:
    return str(app.screen.query_one("#history-title", Static).render())


def diff_text(app: ScreenHarness) -> str:
    return str(app.screen.query_one(DiffView).render())


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the screen's background work (and any work it started) is done and shown."""
    await wait_idle(pilot)
    screen = pilot.app.screen
    if isinstance(screen, HistoryScreen) and screen.diff_pending:
        assert await wait_for(pilot, lambda: not screen.diff_pending)
        await wait_idle(pilot)


def select(app: ScreenHarness, event_id: int) -> None:
    table = app.screen.query_one(EventTable)
    table.move_cursor(row=table.get_row_index(str(event_id)), animate=False)


async def test_lists_every_event_newest_first_with_refusals_flagged(store_root: Path) -> None:
    app = history_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert title(app) == f"History · {ROOT_EVENT_COUNT} events, newest first"
        ids = shown_ids(app)
        assert ids == sorted(ids, reverse=True) and len(ids) == ROOT_EVENT_COUNT
        table = app.screen.query_one(EventTable)
        row = table.get_row("61")
        assert [str(cell) for cell in row] == [
            "61",
            "2026-11-17 12:00",
            "agent:cursor",
            "view",
            "../../etc/passwd",
            "Path /memories/…",
            "refused traversal",
        ]


async def test_filter_row_narrows_by_actor_command_path_and_time(store_root: Path) -> None:
    app = history_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        field = app.screen.query_one("#history-filter", Input)
        field.value = "actor:human"
        await settle(pilot)
        assert shown_ids(app) == [56, 54]
        field.value = "actor:agent cmd:str_replace path:projects/"
        await settle(pilot)
        assert shown_ids(app) == [75, 58, 22]
        field.value = "since:36h"
        await settle(pilot)
        assert shown_ids(app) == [77, 76, 75, 74]
        field.value = "since:1 month"
        await settle(pilot)
        shown = shown_ids(app)
        assert shown[:49] == list(range(77, 28, -1)) and min(shown) >= 28
        assert title(app).endswith("newest first")
        field.value = "since:soon"
        await settle(pilot)
        assert title(app).endswith(
            "since:soon is not a time: use 7d, 12h, 30m, 2 weeks, 1 month, 1y, today, yesterday"
            " or an ISO date like 2026-11-01T09:30"
        )


async def test_toggles_hide_reads_and_show_errors_only(store_root: Path) -> None:
    app = history_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#errors-only", Checkbox).value = True
        await settle(pilot)
        assert shown_ids(app) == [75, 61]
        screen.query_one("#errors-only", Checkbox).value = False
        screen.query_one("#show-reads", Checkbox).value = False
        screen.query_one("#show-agent", Checkbox).value = False
        await settle(pilot)
        assert shown_ids(app) == [56]


async def test_note_scope_and_diff_of_an_agent_edit(store_root: Path) -> None:
    app = history_app(store_root, "/memories/user/profile.md")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert title(app) == "History of user/profile.md · 3 events, newest first"
        assert shown_ids(app) == [74, 65, 1]
        assert diff_text(app).splitlines()[:5] == [
            "#74 2026-11-19 12:00 agent:claude str_replace user/profile.md",
            "--- user/profile.md",
            "+++ user/profile.md",
            "@@ -16,6 +16,7 @@",
            " - [timezone] Europe/Lisbon, usually online 09:00-18:00 local #schedule",
        ]
        assert "+- [editor] Uses Neovim with a tmux split #tools" in diff_text(app).splitlines()


async def test_keys_held_down_draw_only_the_diff_where_the_cursor_rests(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move after a rest draws its row's change at once; the quick moves after it read no
    change on the way, and the row the cursor rests on is drawn (on a clock that moves only
    when the test says)."""
    timers = ManualTimers()
    rest = CURSOR_REST * 2
    app = history_app(store_root, timers=timers)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        read: list[int] = []
        texts = screen.ctx.history.texts

        def counting_texts(event: Any) -> tuple[str | None, str | None]:
            read.append(event.id)
            return texts(event)

        monkeypatch.setattr(screen.ctx.history, "texts", counting_texts)
        timers.advance(rest)
        await pilot.press("down")
        assert screen.diff_pending is False
        await settle(pilot)
        second = shown_ids(app)[1]
        assert read == [second]
        assert diff_text(app).startswith(f"#{second} ")
        timers.advance(rest)
        await pilot.press("down", "down", "down", "down")
        assert screen.diff_pending is True
        await pilot.pause()
        assert read == [second, shown_ids(app)[2]]
        assert timers.advance(rest) == 1
        await settle(pilot)
        third, rested = shown_ids(app)[2], shown_ids(app)[5]
        assert read == [second, third, rested]
        assert diff_text(app).startswith(f"#{rested} ")


async def test_undo_restores_a_deleted_folder(store_root: Path) -> None:
    app = history_app(store_root)
    assert not (store_root / "scratch").exists()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select(app, 59)
        await settle(pilot)
        assert diff_text(app).splitlines()[1:] == [
            "Deleted folder; undo restores these files:",
            "links.md",
            "todo.md",
        ]
        await pilot.press("u")
        await wait_idle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        assert (store_root / "scratch/todo.md").read_text() == (
            "# Scratch todo\n\n- [todo] Ask Dana about the Q1 freeze dates\n"
            "- [todo] Check whether the runbook covers the dedupe job\n"
        )
        assert (store_root / "scratch/links.md").exists()
        newest = app.ctx.history.events(limit=1)[0]
        assert (newest.command, newest.actor, newest.is_error) == ("revert", "human:tester", False)
        assert app.ctx.history.event(59).reverted_by == newest.id  # type: ignore[union-attr]
        assert shown_ids(app)[0] == newest.id


async def test_undo_conflict_offers_to_force(store_root: Path) -> None:
    ctx = demo_context(store_root)
    profile = "/memories/user/profile.md"
    edited = ctx.store.read(profile)[0].replace("Staff engineer", "Principal engineer", 1)
    assert not ctx.store.write(profile, edited, ctx.store.revision(profile)).is_error
    app = ScreenHarness(ctx, lambda: HistoryScreen(clock=demo_clock))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select(app, 74)
        await pilot.press("u")
        await wait_idle(pilot)
        await pilot.press("y")
        await wait_idle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.title_text == "Undo conflicts"
        await pilot.press("y")
        await wait_idle(pilot)
    text = (store_root / "user/profile.md").read_text()
    assert "- [editor] Uses Neovim" not in text
    assert "Staff engineer" in text


async def test_undo_of_a_read_changes_nothing(store_root: Path) -> None:
    app = history_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        select(app, 77)
        await pilot.press("u")
        await wait_idle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        assert len(app.ctx.history.events()) == ROOT_EVENT_COUNT


async def test_brackets_in_recorded_text_are_shown_as_they_are(tmp_path: Path) -> None:
    """Paths, actors, commands and results are plain text, never markup, in rows, title and
    notes."""
    from memtui.core.config import Settings
    from memtui.core.store import MemoryStore

    root = tmp_path / "mem"
    agent = MemoryStore(root, actor="agent:a[/b]", settings=Settings())
    agent.create("/memories/[red]note.md", "x\n")
    agent.str_replace("/memories/[red]note.md", "[/INST] ", "y")
    agent.execute({"command": "[/cmd]", "path": "/memories/[/x]"})
    agent.create("/memories/[/x]", "z\n")
    app = ScreenHarness(demo_context(root), lambda: HistoryScreen(clock=demo_clock))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        table = app.screen.query_one(EventTable)
        lines = [table.render_line(y).text for y in range(1, 5)]
        assert "agent:a[/b]" in lines[0] and "[/x]" in lines[0] and "create" in lines[0]
        assert "[/cmd]" in lines[1] and "[/x]" in lines[1]
        assert "str_replace" in lines[2] and "[red]note.md" in lines[2]
        assert "[red]note.md" in lines[3]
        select(app, 2)
        await settle(pilot)
        assert "old_str `[/INST] ` did not appear" in diff_text(app)
        select(app, 4)
        await pilot.press("u")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert not (root / "[/x]").exists()
        assert await wait_for(pilot, lambda: bool(app.screen.query(Toast)))
        toasts = [str(toast.render()) for toast in app.screen.query(Toast)]
        assert toasts == ["Undid #4 create [/x] by agent:a[/b]."]
    scoped = ScreenHarness(
        demo_context(root), lambda: HistoryScreen("/memories/[red]note.md", clock=demo_clock)
    )
    async with scoped.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert title(scoped) == "History of [red]note.md · 2 events, newest first"


async def test_a_long_path_is_shortened_in_the_middle_keeping_its_file_name(
    store_root: Path,
) -> None:
    deep = "projects/" + "very-long-folder-name/" * 4 + "the-decision.md"
    MemoryStore(store_root, actor="agent:claude").create(f"/memories/{deep}", "text\n")
    app = history_app(store_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(EventTable)
        newest = shown_ids(app)[0]
        path_cell = str(table.get_row(str(newest))[4])
        assert path_cell.startswith("projects/") and path_cell.endswith("/the-decision.md")
        assert "…" in path_cell and len(path_cell) == table.widths["path"]
