"""SVG snapshots of the graph, history and review screens on the demo store (120x40, demo clock)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widgets import Input

from memtui.tui.screens.changes import ChangesScreen
from memtui.tui.screens.graph import GraphScreen
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.history_events import EventTable
from tests.tui.conftest import AppFactory, fixed_folder, wait_for, wait_idle
from tests.tui.screens_harness import demo_clock, demo_copy

SIZE = (120, 40)


@pytest.fixture
def demo_root(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Path]:
    """A fresh demo store at a fixed path per test, with user config discovery pointed away."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("MEMTUI_ROOT", "MEMTUI_THEME", "MEMTUI_ACTOR", "EDITOR", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
    with fixed_folder(f"screens-{request.node.name}") as base:
        copy = demo_copy(tmp_path, tmp_path_factory.getbasetemp())
        yield Path(shutil.move(copy, base / "memories"))


def showing(screen: Screen[None], *keys: str, then: Any = None, modal: bool = False) -> Any:
    """A run_before that waits for the index, pushes `screen`, presses `keys` and settles.

    With `modal`, the last key opens a confirmation: its worker waits for an answer, so the
    dialog is awaited first (`wait_idle` does not wait for a worker waiting on a dialog).
    """

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_idle(pilot)
        await pilot.app.push_screen(screen)
        await wait_idle(pilot)
        if then is not None:
            then(pilot.app.screen)
        await pilot.press(*keys)
        if modal:
            assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModalScreen))
        await wait_idle(pilot)

    return run_before


def test_graph_depth_one(snap_compare: Any, demo_root: Path, make_app: AppFactory) -> None:
    """The memtui note's direct neighbours, the unresolved target drawn apart."""
    run_before = showing(GraphScreen("projects/memtui.md"))
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )


def test_graph_depth_two_with_a_neighbour_focused(
    snap_compare: Any, demo_root: Path, make_app: AppFactory
) -> None:
    """Depth 2, cursor on a neighbour, its links described below."""
    run_before = showing(GraphScreen("projects/memtui.md"), "plus", "right")
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )


def test_graph_hubs_tab(snap_compare: Any, demo_root: Path, make_app: AppFactory) -> None:
    """The hubs list: the most linked notes."""
    run_before = showing(GraphScreen("projects/memtui.md"), "2")
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )


def select_event(event_id: int) -> Any:
    """A callback that puts the history cursor on an event."""

    def select(screen: Screen[None]) -> None:
        table = screen.query_one(EventTable)
        table.move_cursor(row=table.get_row_index(str(event_id)), animate=False)

    return select


def test_history_with_an_agent_edit_diff(
    snap_compare: Any, demo_root: Path, make_app: AppFactory
) -> None:
    """Every event newest first; the diff of the agent's edit of the profile."""
    run_before = showing(HistoryScreen(), then=select_event(55))
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )


def test_history_folder_delete_manifest(
    snap_compare: Any, demo_root: Path, make_app: AppFactory
) -> None:
    """A folder delete shows the files an undo would restore."""
    run_before = showing(HistoryScreen(), then=select_event(46))
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )


def test_history_filtered_to_humans(
    snap_compare: Any, demo_root: Path, make_app: AppFactory
) -> None:
    """The filter row narrowed to human events."""

    def type_filter(screen: Screen[None]) -> None:
        screen.query_one("#history-filter", Input).value = "actor:human"

    run_before = showing(HistoryScreen(), then=type_filter)
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )


def test_review_queue(snap_compare: Any, demo_root: Path, make_app: AppFactory) -> None:
    """The stale queue with reasons and the detail of the first note."""
    run_before = showing(ReviewScreen())
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )


def test_review_archive_confirmation(
    snap_compare: Any, demo_root: Path, make_app: AppFactory
) -> None:
    """Two notes selected and the one confirmation before archiving them."""
    run_before = showing(ReviewScreen(), "space", "space", "a", modal=True)
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )


def test_changes_inbox_with_an_agent_edit(
    snap_compare: Any, demo_root: Path, make_app: AppFactory
) -> None:
    """The inbox: the notes agents changed since Dana last reviewed, the memtui note's change
    selected with who and when and its diff."""
    run_before = showing(ChangesScreen(), "down", "down")
    assert snap_compare(
        make_app(demo_root, clock=demo_clock), terminal_size=SIZE, run_before=run_before
    )
