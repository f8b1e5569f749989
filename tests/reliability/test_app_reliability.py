"""The app under stress: a corrupt history, a hostile store, refused agent paths in the history."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.widgets import Button, Static

from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.reliability.hostile import OUTSIDE_MARKER, build_hostile_store, snapshot

SIZE = (120, 40)
CORRUPT = b"not a database " * 100
INDEX_BOUND = 20.0
"""Seconds the app may take to index the (normal-suite) hostile store."""


@pytest.fixture
def corrupt_store(tmp_path: Path) -> Path:
    """A store with one note whose history database was overwritten with garbage."""
    root = tmp_path / "store"
    store = MemoryStore(root, actor="human:t")
    assert not store.create("/memories/a.md", "keep\n").is_error
    store.history.close()
    database = root / ".memtui" / "history.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    database.write_bytes(CORRUPT)
    return root


async def test_corrupt_history_is_explained_and_a_fresh_one_keeps_the_old_file(
    corrupt_store: Path,
) -> None:
    app = MemtuiApp(corrupt_store, actor="human:t", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        body = str(app.screen.query_one(".confirm-body", Static).render())
        database = corrupt_store / ".memtui" / "history.db"
        assert body.startswith(
            f"The history at {database} cannot be read: file is not a database.\n\n"
            "Start a fresh history? The old file is kept beside it as history.db.corrupt-<time>"
        )
        await pilot.click("#confirm")
        await pilot.pause()
        kept = sorted((corrupt_store / ".memtui").glob("history.db.corrupt-*"))
        assert [path.read_bytes() for path in kept] == [CORRUPT]
        assert any(f"The old one is kept as {kept[0]}" in n.message for n in app._notifications)
        result = app.ctx.store.write("/memories/b.md", "new\n", None)
        assert not result.is_error
    assert (corrupt_store / "a.md").read_bytes() == b"keep\n"
    assert (corrupt_store / "b.md").read_bytes() == b"new\n"


async def test_declining_a_fresh_history_quits_and_changes_nothing(corrupt_store: Path) -> None:
    before = snapshot(corrupt_store, skip=())
    app = MemtuiApp(corrupt_store, actor="human:t", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.query_one("#cancel", Button).has_focus
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_code == 0
    lock = b".memtui/lock"
    after = {
        path: state for path, state in snapshot(corrupt_store, skip=()).items() if path != lock
    }
    assert after == {path: state for path, state in before.items() if path != lock}


async def test_hostile_store_opens_with_warnings_and_no_byte_changed(tmp_path: Path) -> None:
    hostile = build_hostile_store(tmp_path, big_mb=2, million_lines=100_000, long_line_mb=1)
    before = snapshot(hostile.root), snapshot(hostile.outside)
    app = MemtuiApp(hostile.root, actor="human:t", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        started = time.perf_counter()
        while (
            app.ctx.index is None or not app.badges
        ) and time.perf_counter() - started < INDEX_BOUND:
            await pilot.pause(0.1)
        assert app.ctx.index is not None, "index not ready within the bound"
        messages = "\n".join(str(n.message) for n in app._notifications)
        assert "Could not" not in messages
        assert "Skipped 6 entries:" in messages
        assert "link-out.md: symlink points outside the store, skipped" in messages
        assert "fifo.md: not a regular file, skipped" in messages
        assert OUTSIDE_MARKER not in messages
        for name in [*hostile.bad_yaml, "invalid-utf8.md"]:
            assert "warning" in app.badges[name], name
        assert "good.md" in app.ctx.index.notes
    assert (snapshot(hostile.root), snapshot(hostile.outside)) == before


async def test_refused_agent_paths_are_listed_in_the_history_screen(tmp_path: Path) -> None:
    from memtui.agents.anthropic import MemtuiMemoryTool
    from memtui.tui.screens.history import HistoryScreen
    from memtui.tui.widgets.history_events import EventTable

    root = tmp_path / "store"
    tool = MemtuiMemoryTool(root, actor="agent:intruder")
    refused: list[str] = []
    for path in (
        "/memories/../../etc/passwd",
        "/etc/shadow",
        "/memories/%2e%2e/x",
        "/memories\\..\\y",
    ):
        try:
            tool.call({"command": "view", "path": path})
        except Exception as error:
            refused.append(str(getattr(error, "content", error)))
    assert len(refused) == 4
    events = MemoryStore(root).history.events(actor="agent:intruder")
    assert len(events) == 4

    app = MemtuiApp(root, actor="human:t", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.push_screen(HistoryScreen())
        await pilot.pause()
        while busy := [worker for worker in app.workers if not worker.is_finished]:
            await app.workers.wait_for_complete(busy)
            await pilot.pause()
        table = app.screen.query_one(EventTable)
        for event in events:
            row = [str(cell) for cell in table.get_row(str(event.id))]
            assert row[2:4] == ["agent:intruder", "view"]
            assert row[5].startswith(event.result[:20])
            if event.flags:
                assert row[-1] == "refused traversal", row
            else:
                assert row[-1] == "error", row
        assert sum(bool(event.flags) for event in events) == 2
