"""Wording and sizing details: singular counts, who read a note, history columns that fill."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static, TextArea

from memtui.core.store import MemoryStore
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.widgets.history_events import EventTable, describe_event
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.screens_harness import ScreenHarness, demo_clock, demo_context, demo_copy
from tests.tui.test_snapshots_edit import edit


async def test_the_status_line_says_1_note(store_root: Path, make_app: AppFactory) -> None:
    """A store with one note is "1 note", not "1 notes"."""
    for relpath in ("tools/textual.md", "user/preferences.md"):
        (store_root / relpath).unlink()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        status = str(app.screen.query_one("#status", Static).render())
        assert status == f" {store_root}  ·  1 note  ·  F1 keys"


def test_a_read_is_labelled_by_who_read(store_root: Path) -> None:
    """A person's `view` is not described as the agent's read."""
    store = MemoryStore(store_root, actor="human:tester")
    store.view("/memories/tools/textual.md")
    store.with_actor("agent:claude").view("/memories/tools/textual.md")
    agent_read, human_read = store.history.events(limit=2)
    assert "The agent read:" in describe_event(agent_read, None, None).plain
    human = describe_event(human_read, None, None).plain
    assert "agent" not in human and "A person read:" in human


@pytest.mark.parametrize(("width", "actor", "result"), [(120, 12, 16), (170, 20, 30)])
async def test_history_columns_grow_with_the_terminal(
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    width: int,
    actor: int,
    result: int,
) -> None:
    """Actor and Result keep their widths at 120 columns and take a share of any extra width."""
    root = demo_copy(tmp_path, tmp_path_factory.getbasetemp())
    app = ScreenHarness(demo_context(root), lambda: HistoryScreen(None, clock=demo_clock))
    async with app.run_test(size=(width, 40)) as pilot:
        assert await wait_for(pilot, lambda: bool(app.screen.query(EventTable)))
        table = app.screen.query_one(EventTable)
        assert await wait_for(pilot, lambda: table.row_count > 0)
        widths = {str(key.value): column.width for key, column in table.columns.items()}
        assert widths["actor"] >= actor and widths["result"] >= result
        used = sum(column.get_render_width(table) for column in table.columns.values())
        assert used <= max(width, 120)


async def test_every_notification_is_plain_text(store_root: Path, make_app: AppFactory) -> None:
    """A notification from any widget shows brackets as they are, never as markup."""
    from textual.widgets._toast import Toast

    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_idle(pilot)
        app.screen.notify("Cannot open [/x] or [b]y[/b]")
        app.notify("history: [red]broken")
        await pilot.pause()
        shown = sorted(str(toast.render()) for toast in app.screen.query(Toast))
        assert shown == ["Cannot open [/x] or [b]y[/b]", "history: [red]broken"]


@pytest.mark.parametrize("blink", [False, True])
async def test_text_cursors_blink_as_the_app_was_told(make_app: AppFactory, blink: bool) -> None:
    """`cursor_blink=False` keeps the search field's and the editor's cursors steady (frames
    do not change while nothing happens); the default blinks them."""
    app = make_app(cursor_blink=blink)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        await pilot.press("slash")
        field = app.screen.query_one("#search-input", Input)
        await wait_for(pilot, lambda: field.has_focus)
        await pilot.pause()
        assert field.cursor_blink is blink
        await pilot.press("escape")
        await edit(pilot)
        area = app.screen.query_one(TextArea)
        await wait_for(pilot, lambda: area.has_focus)
        await pilot.pause()
        assert area.cursor_blink is blink
