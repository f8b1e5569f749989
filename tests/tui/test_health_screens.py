"""The memory-health views of the app: the always-loaded total in the status line, the budget
screen (`b`), the store as of a history event (read-only, restore a file through the core),
and a contradiction pair in the review queue; Pilot tests and SVG snapshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList, Static

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.tui.screens.as_of import AsOfScreen
from memtui.tui.screens.budget import BudgetScreen
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.history_events import EventTable
from tests.tui.conftest import AppFactory, fixed_folder
from tests.tui.settle import wait_for, wait_idle

SIZE = (120, 40)
DAY = 86400.0
T0 = 1_790_000_000.0
NOW = T0 + 3 * DAY
POINTERS = [f"- [Topic {i}](topic_{i}.md) — what we learned about area {i}" for i in range(1, 341)]
PREFS_V1 = "# Prefs\n\n- [preference] Prefers tabs\n"
PREFS_V2 = "# Prefs\n\n- [preference] Prefers tabs\n- [preference] Prefers spaces\n"


def _build(root: Path) -> None:
    """A Claude Code auto memory folder: a 340-line MEMORY.md and prefs.md (tabs on day 0,
    spaces added on day 1), written and read by an agent."""
    clock = [T0]
    agent = MemoryStore(root, actor="agent:claude", settings=Settings(), clock=lambda: clock[0])
    agent.create("/memories/MEMORY.md", "\n".join(POINTERS) + "\n")
    agent.create("/memories/prefs.md", PREFS_V1)
    clock[0] = T0 + DAY
    agent.insert("/memories/prefs.md", 3, "- [preference] Prefers spaces")
    clock[0] = T0 + 2 * DAY
    agent.view("/memories/prefs.md")
    agent.close()


@pytest.fixture
def health_root(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Path]:
    """The store above at a fixed path per test, user config discovery pointed away."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("MEMTUI_ROOT", "MEMTUI_THEME", "MEMTUI_ACTOR", "EDITOR", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
    with fixed_folder(f"health-{request.node.name}") as base:
        root = base / "memory"
        _build(root)
        yield root


def _status(app: Any) -> str:
    return str(app.screen.query_one("#status", Static).render())


async def test_the_status_line_shows_the_always_loaded_total(
    health_root: Path, make_app: AppFactory
) -> None:
    app = make_app(health_root, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: "loaded every session" in _status(app))
        assert _status(app).endswith(
            "  ·  3,069 / 6,250 tokens loaded every session (b)  ·  F1 keys"
        )


async def test_b_opens_the_budget_with_the_unseen_lines(
    health_root: Path, make_app: AppFactory
) -> None:
    app = make_app(health_root, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("b")
        await wait_idle(pilot)
        assert isinstance(app.screen, BudgetScreen)
        assert str(app.screen.query_one("#budget-title", Static).render()) == (
            "Budget · Claude Code auto memory (detected): 3,069 of 6,250 tokens loaded at the "
            "start of every session"
        )
        table = app.screen.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert rows == [
            ["5,274", "partly", "0", "MEMORY.md", "140 lines never seen, from line 201"],
            ["17", "on demand", "41", "prefs.md", ""],
        ]
        await pilot.press("escape")
        await wait_idle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_the_palette_names_the_budget(health_root: Path, make_app: AppFactory) -> None:
    app = make_app(health_root, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert ("go: budget", "budget") in [
            (name, action) for name, action, _ in MainScreen.PALETTE
        ]
        await pilot.press("ctrl+p")
        await wait_idle(pilot)
        await pilot.press(*"go: budget")
        await wait_idle(pilot)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, BudgetScreen))


def _select(app: Any, event_id: int) -> None:
    table = app.screen.query_one(EventTable)
    table.move_cursor(row=table.get_row_index(str(event_id)), animate=False)


async def _as_of_first_prefs(pilot: Pilot[None], app: Any) -> None:
    """From the history, the store as of event 2 (prefs.md created), prefs.md selected."""
    await wait_idle(pilot)
    await app.push_screen(HistoryScreen())
    await wait_idle(pilot)
    _select(app, 2)
    await pilot.press("a")
    await wait_idle(pilot)
    files = app.screen.query_one(OptionList)
    files.highlighted = 1
    await wait_idle(pilot)


async def test_the_store_as_of_an_event_is_read_only_and_restores_a_file(
    health_root: Path, make_app: AppFactory
) -> None:
    app = make_app(health_root, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await _as_of_first_prefs(pilot, app)
        assert isinstance(app.screen, AsOfScreen)
        title = str(app.screen.query_one("#as-of-title", Static).render())
        assert title.startswith("READ-ONLY · the store as of event #2 (")
        assert title.endswith(") · 2 files · R restores the selected file")
        preview = str(app.screen.query_one("#as-of-preview", Static).render())
        assert preview == "prefs.md (then)\n" + PREFS_V1
        assert (health_root / "prefs.md").read_text() == PREFS_V2
        await pilot.press("R")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_idle(pilot)
        assert (health_root / "prefs.md").read_text() == PREFS_V1
        [write] = app.ctx.history.events(command="write", limit=1)
        assert (write.actor, write.path) == ("human:tester", "/memories/prefs.md")
        await pilot.press("escape", "escape")
        await wait_idle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_idle(pilot)
        assert (health_root / "prefs.md").read_text() == PREFS_V2


def test_snapshot_budget(snap_compare: Any, health_root: Path, make_app: AppFactory) -> None:
    """The budget of a Claude Code folder whose MEMORY.md is 140 lines too long."""

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_idle(pilot)
        await pilot.press("b")
        await wait_idle(pilot)

    assert snap_compare(
        make_app(health_root, clock=lambda: NOW), terminal_size=SIZE, run_before=run_before
    )


def test_snapshot_store_as_of(snap_compare: Any, health_root: Path, make_app: AppFactory) -> None:
    """The store as of event 2, read-only, prefs.md as it was then."""

    async def run_before(pilot: Pilot[None]) -> None:
        await _as_of_first_prefs(pilot, pilot.app)

    assert snap_compare(
        make_app(health_root, clock=lambda: NOW), terminal_size=SIZE, run_before=run_before
    )


def test_snapshot_review_pair(snap_compare: Any, health_root: Path, make_app: AppFactory) -> None:
    """A contradiction in the review queue, newer and older side by side."""

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_idle(pilot)
        await pilot.app.push_screen(ReviewScreen())
        await wait_idle(pilot)
        screen = pilot.app.screen
        table = screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("prefs.md"), animate=False)
        await wait_idle(pilot)

    assert snap_compare(
        make_app(health_root, clock=lambda: NOW), terminal_size=SIZE, run_before=run_before
    )
