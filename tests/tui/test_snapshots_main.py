"""SVG snapshots of the main screen, the raw view, search results and the help (fixed size and
clock)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.tui.conftest import AppFactory, wait_for, wait_for_results, wait_idle

SIZE = (120, 40)
FROZEN = 1_790_000_000.0
"""The clock every snapshot app sees, so ages in the side panel never change."""


def frozen() -> float:
    """The frozen wall clock of snapshot apps."""
    return FROZEN


async def show_note(pilot: Pilot[None], relpath: str) -> None:
    """Wait for the index, then show `relpath` and wait for the preview."""
    await wait_idle(pilot)
    screen: Any = pilot.app.screen
    screen.show_path(relpath)
    await wait_for(pilot, lambda: screen.preview.relpath == relpath)
    await wait_idle(pilot)


def test_main_screen_with_a_note(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """Tree, rendered preview and side panel for a note with links and a backlink."""

    async def run_before(pilot: Pilot[None]) -> None:
        await show_note(pilot, "projects/memtui.md")

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)


def test_main_screen_at_80x24(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """At 80x24 the side panel hides and the tree narrows, so the preview stays readable."""

    async def run_before(pilot: Pilot[None]) -> None:
        await show_note(pilot, "projects/memtui.md")

    assert snap_compare(make_app(clock=frozen), terminal_size=(80, 24), run_before=run_before)


def test_raw_view(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """The raw view: the agent's `view` output with line numbers and the token estimate."""

    async def run_before(pilot: Pilot[None]) -> None:
        await show_note(pilot, "tools/textual.md")
        await pilot.press("v")
        await wait_idle(pilot)

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)


def test_search_results(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """Search results with highlighted matches."""

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_idle(pilot)
        await pilot.press("slash", *"widgets")
        await wait_for_results(pilot, "widgets")
        await wait_idle(pilot)

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)


def test_help_modal(snap_compare: Any, store_root: Path, make_app: AppFactory) -> None:
    """F1 on the tree lists its keys and the screen's."""

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_idle(pilot)
        await pilot.press("f1")
        await wait_idle(pilot)

    assert snap_compare(make_app(clock=frozen), terminal_size=SIZE, run_before=run_before)
