"""Live updates from outside the app: a real `memtui mcp` agent, and a burst of file writes."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from memtui.tui import indexing
from memtui.tui.screens.main import MainScreen
from tests.agents.mcp_client import call_memory, mcp_session
from tests.tui.conftest import AppFactory, wait_for, wait_idle

NOTE = "tools/textual.md"
VISIBLE_WITHIN = 1.0
"""Seconds from an agent's tool call returning to its change being on screen (issue 5)."""


async def seen_at(pilot: Pilot[None], condition: Callable[[], bool], timeout: float) -> float:
    """Poll every 10 ms until `condition()` holds; the monotonic time it was first seen
    (infinity if it never was within `timeout`, which is longer than the limit checked)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return time.monotonic()
        await pilot.pause(0.01)
    return time.monotonic() if condition() else float("inf")


@pytest.mark.serial
async def test_an_agent_writing_through_memtui_mcp_is_on_screen_within_a_second(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """A `memtui mcp` subprocess (MCP stdio client) edits the shown note and creates another:
    each is on screen, in the preview and in the tree, less than a second after the tool call
    returned; the history has the agent's events and no `external` ones for them."""
    app = make_app(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path(NOTE)
        assert await wait_for(pilot, lambda: screen.preview.relpath == NOTE)

        def observations() -> str:
            return str(screen.query_one("#preview-observations", Static).render())

        async with mcp_session(store_root, client_name="pytest-agent") as session:
            text, is_error = await call_memory(
                session,
                {
                    "command": "str_replace",
                    "path": f"/memories/{NOTE}",
                    "old_str": "#workers\n",
                    "new_str": "#workers\n- [fact] Written over MCP #mcp\n",
                },
            )
            returned = time.monotonic()
            assert not is_error, text
            shown = await seen_at(pilot, lambda: "Written over MCP #mcp" in observations(), 5.0)
            assert shown - returned < VISIBLE_WITHIN, f"preview took {shown - returned:.2f} s"

            text, is_error = await call_memory(
                session,
                {
                    "command": "create",
                    "path": "/memories/tools/rich.md",
                    "file_text": "# Rich\n- [fact] Renders text #python\n",
                },
            )
            returned = time.monotonic()
            assert not is_error, text
            listed = await seen_at(
                pilot, lambda: screen.note_tree.node_for("tools/rich.md") is not None, 5.0
            )
            assert listed - returned < VISIBLE_WITHIN, f"tree took {listed - returned:.2f} s"

        node = screen.note_tree.node_for("tools/rich.md")
        assert node is not None and node.label.plain.startswith("rich")
        await wait_idle(pilot)
        for path, command in ((NOTE, "str_replace"), ("tools/rich.md", "create")):
            events = app.ctx.history.events(path=f"/memories/{path}")
            (agent,) = [e for e in events if e.actor == "agent:pytest-agent"]
            assert agent.command == command
            later = [(e.actor, e.command) for e in events if e.id > agent.id]
            assert all(c == "view" for _actor, c in later), later  # not recorded as external


@pytest.mark.serial
async def test_a_burst_of_fifty_writes_becomes_one_refresh(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """Fifty files written at once reach the app as one batch: one index update, one refresh.

    What the watcher does (memtui/core/watcher.py): watchfiles with `step=20` ms and
    `debounce=200` ms delivers the events collected so far once no new event came for 20 ms,
    and at the latest 200 ms after the first one; events that arrive while a batch is being
    applied wait and come as the next batch. Writing fifty small files takes a few ms, so they
    normally arrive as one batch. A burst can still legitimately straddle two batches if the
    writer is descheduled for more than 20 ms in the middle of it (a loaded CI machine), so the
    test allows two, and requires that the number of index updates and tree refreshes be far
    below the number of files. A last write after the burst, awaited on its own, makes sure no
    late batch of the burst is still to come when the batches are counted.
    """
    batches: list[frozenset[str]] = []
    index_updates: list[frozenset[str]] = []
    real_apply = indexing.apply_changes

    def counting_apply(ctx: object, paths: frozenset[str]) -> set[str]:
        index_updates.append(paths)
        return real_apply(ctx, paths)  # type: ignore[arg-type]

    monkeypatch.setattr(indexing, "apply_changes", counting_apply)
    app = make_app(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path(NOTE)
        assert await wait_for(pilot, lambda: screen.preview.relpath == NOTE)
        app.notes_changed_signal.subscribe(screen, batches.append)
        assert index_updates == []
        names = {f"tools/burst-{n:02d}.md" for n in range(50)}
        for name in sorted(names):
            (store_root / name).write_text(f"# {name}\n- [fact] burst #burst\n", encoding="utf-8")

        def indexed(paths: set[str]) -> bool:
            index = app.ctx.index
            return index is not None and paths <= index.notes.keys()

        assert await wait_for(pilot, lambda: indexed(names), 5.0)
        (store_root / "tools" / "after-burst.md").write_text("# After\n", encoding="utf-8")
        assert await wait_for(pilot, lambda: indexed({"tools/after-burst.md"}), 5.0)
        await wait_idle(pilot)

        burst_updates = [paths for paths in index_updates if paths & names]
        burst_refreshes = [paths for paths in batches if paths & names]
        assert set().union(*burst_updates) >= names
        assert 1 <= len(burst_updates) <= 2, [len(p) for p in burst_updates]
        assert 1 <= len(burst_refreshes) <= 2, [len(p) for p in burst_refreshes]
        assert len(index_updates) <= 3  # the burst's and the last write's
        assert all(screen.note_tree.node_for(name) is not None for name in names)
