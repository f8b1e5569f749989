"""History, review and graph screens: paged history, and outside changes while they are open."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Input, OptionList, Static

from memtui.core.recording.events import PendingEvent
from memtui.tui.screens.graph import GraphScreen
from memtui.tui.screens.history import PAGE, HistoryScreen
from memtui.tui.screens.review import PAGE as REVIEW_PAGE
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.graph_view import GraphView
from memtui.tui.widgets.history_events import EventTable
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.screens_harness import ScreenHarness, demo_clock, demo_context, demo_copy

SIZE = (120, 40)
DEMO_EVENTS = 77


@pytest.fixture
def store_root(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A fresh demo store, with user config discovery pointed away."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("MEMTUI_ROOT", "MEMTUI_THEME", "MEMTUI_ACTOR", "EDITOR", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
    return demo_copy(tmp_path, tmp_path_factory.getbasetemp())


async def settle(pilot: Pilot[None]) -> None:
    """Wait until every worker but the watcher is done and its results are shown."""
    await wait_idle(pilot)


def title(screen: Screen[None], selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def append(root: Path, relpath: str, text: str) -> None:
    """Change a note behind the app's back, in one atomic step."""
    path = root / relpath
    temp = path.with_name(".tmp-" + path.name)
    temp.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
    temp.replace(path)


async def test_history_shows_the_newest_page_and_loads_more_at_the_end(store_root: Path) -> None:
    ctx = demo_context(store_root)
    extra = 2 * PAGE + 50
    ctx.history.record_many(
        PendingEvent(
            time=demo_clock(),
            actor="agent:bulk",
            session=None,
            command="view",
            path=f"/memories/bulk/{n}.md",
            result="missing",
            is_error=True,
        )
        for n in range(extra)
    )
    total = DEMO_EVENTS + extra
    app = ScreenHarness(ctx, lambda: HistoryScreen(clock=demo_clock))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        assert len(screen.events) == PAGE
        assert title(screen, "#history-title") == (
            f"History · {total} events, newest first · newest {PAGE} shown, more below"
        )
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert len(screen.events) == 2 * PAGE
        screen.query_one(EventTable).scroll_end(animate=False)
        await settle(pilot)
        assert len(screen.events) == total
        ids = [event.id for event in screen.events]
        assert ids == sorted(set(ids), reverse=True) and ids[-1] == 1
        assert screen.query_one(EventTable).row_count == total
        assert title(screen, "#history-title") == f"History · {total} events, newest first"
        screen.query_one("#history-filter").value = "bulk/1"  # type: ignore[attr-defined]
        await settle(pilot)
        assert len(screen.events) == 1 + 10 + 100
        assert screen.query_one(EventTable).row_count == 111


async def test_history_adds_only_new_events_and_waits_while_hidden(
    store_root: Path, make_app: AppFactory
) -> None:
    app = make_app(clock=demo_clock, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await app.push_screen(HistoryScreen())
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        table = screen.query_one(EventTable)
        table.move_cursor(row=table.get_row_index("46"), animate=False)
        rows = dict(table.rows)
        before = [event.id for event in screen.events]

        append(store_root, "user/profile.md", "- [fact] changed outside\n")
        assert await wait_for(pilot, lambda: screen.events[0].id > before[0])
        newest = screen.events[0]
        assert (newest.actor, newest.path) == ("external", "/memories/user/profile.md")
        assert [event.id for event in screen.events][1:] == before
        assert all(table.rows[key] is row for key, row in rows.items())
        assert table.selected_event_id() == 46
        assert title(screen, "#history-title").startswith(f"History · {len(before) + 1} events")

        await app.push_screen(Screen())
        append(store_root, "user/profile.md", "- [fact] changed while hidden\n")
        recorded = lambda: app.ctx.history.events(limit=1)[0].id > newest.id  # noqa: E731
        assert await wait_for(pilot, recorded)
        await settle(pilot)
        assert screen.events[0].id == newest.id
        app.pop_screen()
        assert await wait_for(pilot, lambda: screen.events[0].id > newest.id)
        assert [event.id for event in screen.events][1:] == [newest.id, *before]


async def test_a_filtered_history_that_was_empty_shows_a_new_matching_event(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    app = make_app(clock=demo_clock, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await app.push_screen(HistoryScreen())
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        screen.query_one("#history-filter", Input).value = "lonely"
        await settle(pilot)
        assert screen.events == []
        assert title(screen, "#history-title") == "History · 0 events, newest first"
        (store_root / "user" / "lonely.md").write_text("# Lonely\n", encoding="utf-8")
        assert await wait_for(pilot, lambda: len(screen.events) == 1)
        assert screen.events[0].path == "/memories/user/lonely.md"
        assert title(screen, "#history-title") == "History · 1 event, newest first"


async def test_review_shows_a_long_queue_a_page_at_a_time(tmp_path: Path) -> None:
    root = tmp_path / "many"
    for n in range(REVIEW_PAGE * 2 + 50):
        path = root / "notes" / f"n{n:03}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}\n\nalone {n * 7919}\n", encoding="utf-8")
        long_ago = demo_clock() - 200 * 86400
        os.utime(path, (long_ago, long_ago))
    app = ScreenHarness(demo_context(root), lambda: ReviewScreen(clock=demo_clock))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        table = screen.query_one(DataTable)
        total = REVIEW_PAGE * 2 + 50
        assert (len(screen.candidates), table.row_count) == (total, REVIEW_PAGE)
        assert title(screen, "#review-title").startswith(
            f"Review · {total} notes proposed (first {REVIEW_PAGE} shown) · 0 selected"
        )
        await pilot.press("asterisk")
        assert len(screen.selected) == total
        for shown in (2 * REVIEW_PAGE, total):
            await pilot.press("ctrl+end")
            await settle(pilot)
            assert table.row_count == shown
        assert [row.key.value for row in table.ordered_rows] == [c.path for c in screen.candidates]
        assert all(str(table.get_row(key)[0]) == "●" for key in table.rows)
        assert title(screen, "#review-title").startswith(
            f"Review · {total} notes proposed · {total} selected"
        )


async def test_review_recomputes_after_an_outside_change_and_keeps_the_selection(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    app = make_app(clock=demo_clock, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await app.push_screen(ReviewScreen(clock=demo_clock))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("space", "space")
        selected = set(screen.selected)
        cursor = screen.current_path()
        assert len(selected) == 2 and cursor is not None
        target = "patterns/git-workflow.md"
        assert "expired" not in {
            r.kind for c in screen.candidates if c.path == target for r in c.reasons
        }
        text = (store_root / target).read_text(encoding="utf-8")
        temp = store_root / "patterns" / ".tmp-git-workflow.md"
        temp.write_text(text.replace("---\n", "---\nexpires: 2020-01-01\n", 1), encoding="utf-8")
        temp.replace(store_root / target)

        def expired() -> bool:
            return any(
                c.path == target and any(r.kind == "expired" for r in c.reasons)
                for c in screen.candidates
            )

        assert await wait_for(pilot, expired)
        assert screen.selected == selected
        assert screen.current_path() == cursor
        table = screen.query_one(DataTable)
        assert [row.key.value for row in table.ordered_rows] == [c.path for c in screen.candidates]


async def test_graph_lists_follow_an_outside_change_without_redrawing(
    store_root: Path, make_app: AppFactory
) -> None:
    app = make_app(clock=demo_clock, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await app.push_screen(GraphScreen("projects/memtui.md"))
        await settle(pilot)
        screen = app.screen
        drawn = screen.query_one(GraphView).graph
        assert drawn is not None
        orphans = screen.query_one("#graph-orphans", OptionList)
        count = orphans.option_count
        (store_root / "user" / "lonely.md").write_text(
            "---\ntitle: Lonely Note\n---\n\nNobody links here.\n", encoding="utf-8"
        )
        assert await wait_for(pilot, lambda: orphans.option_count == count + 1)
        prompts = [str(orphans.get_option_at_index(i).prompt) for i in range(count + 1)]
        assert "Lonely Note  (user/lonely.md)" in prompts
        assert screen.query_one(GraphView).graph is drawn
