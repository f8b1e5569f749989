"""The app under stress: a corrupt history, refused agent paths in the history.

The app on the hostile store is checked in test_hostile_store.py, in a child process with a bound.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Static

from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.reliability.hostile import snapshot
from tests.tui.settle import wait_idle

SIZE = (120, 40)
CORRUPT = b"not a database " * 100


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
        await wait_idle(pilot, index=False)
        assert isinstance(app.screen, ConfirmScreen)
        body = str(app.screen.query_one(".confirm-body", Static).render())
        database = corrupt_store / ".memtui" / "history.db"
        assert body.startswith(
            f"The history at {database} cannot be read: file is not a database.\n\n"
            "Start a fresh history? The old file is kept beside it as history.db.corrupt-<time>"
        )
        await pilot.click("#confirm")
        await wait_idle(pilot)
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
        await wait_idle(pilot, index=False)
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


async def test_a_foreign_sqlite_database_is_explained_and_kept_byte_for_byte(
    corrupt_store: Path,
) -> None:
    import sqlite3

    database = corrupt_store / ".memtui" / "history.db"
    database.unlink()
    conn = sqlite3.connect(database)
    conn.executescript("CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('soup');")
    conn.close()
    kept = database.read_bytes()
    app = MemtuiApp(corrupt_store, actor="human:t", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot, index=False)
        assert isinstance(app.screen, ConfirmScreen)
        body = str(app.screen.query_one(".confirm-body", Static).render())
        assert body.startswith(
            f"The history at {database} cannot be read: not a memtui history "
            "(it holds tables memtui did not create: recipes).\n\n"
        )
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_code == 0
    assert database.read_bytes() == kept
    assert sorted(path.name for path in database.parent.iterdir()) == ["history.db", "lock", "tmp"]


async def test_refused_agent_paths_are_listed_in_the_history_screen(tmp_path: Path) -> None:
    from memtui.agents.anthropic import MemtuiMemoryTool
    from memtui.tui.screens.history import HistoryScreen
    from memtui.tui.widgets.history_events import EventTable

    root = tmp_path / "store"
    tool = MemtuiMemoryTool(root=root, actor="agent:intruder")
    shown = {
        "/memories/../../etc/passwd": "refused traversal",
        "/etc/shadow": "refused",
        "/memories/%2e%2e/x": "refused traversal",
        "/memories\\..\\y": "refused traversal",
        "memories/../": "refused traversal",
        "/memories/a\x00b": "refused",
        "/memories/a\udc80": "refused",
        "/memories/.memtui/history.db": "refused reserved",
    }
    refused: list[str] = []
    for path in shown:
        try:
            tool.call({"command": "view", "path": path})
        except Exception as error:
            refused.append(str(getattr(error, "content", error)))
    assert len(refused) == len(shown)
    events = MemoryStore(root).history.events(actor="agent:intruder", newest_first=False)
    assert len(events) == len(shown)

    app = MemtuiApp(root, actor="human:t", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        app.push_screen(HistoryScreen())
        await wait_idle(pilot)
        table = app.screen.query_one(EventTable)
        for event, expected in zip(events, shown.values(), strict=True):
            row = [str(cell) for cell in table.get_row(str(event.id))]
            assert row[2:4] == ["agent:intruder", "view"]
            shown_result = row[5].removesuffix("…")
            assert len(shown_result) >= 8 and event.result.startswith(shown_result), row
            assert row[-1] == expected, (event.path, row)
            assert event.flags[0] == "security:refused", event
