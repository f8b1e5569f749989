"""Contradictions in the review queue: the pair side by side, newer first, with its dates;
keep the newer (through the core, undoable), keep both (remembered), edit."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from memtui.core.config import Settings
from memtui.core.recording.history import History
from memtui.core.store import MemoryStore
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.tui.conftest import AppFactory
from tests.tui.screens_harness import ScreenHarness, demo_context
from tests.tui.settle import wait_for, wait_idle

SIZE = (120, 40)
DAY = 86400.0
T0 = 1_790_000_000.0
PREFS = "# Prefs\n\n- [preference] Prefers tabs\n- [preference] Prefers spaces\n"


def _store(root: Path) -> None:
    """prefs.md: tabs written on day 0, spaces on day 1, by an agent."""
    clock = [T0]
    agent = MemoryStore(root, actor="agent:claude", settings=Settings(), clock=lambda: clock[0])
    agent.create("/memories/prefs.md", "# Prefs\n\n- [preference] Prefers tabs\n")
    clock[0] = T0 + DAY
    agent.insert("/memories/prefs.md", 3, "- [preference] Prefers spaces")
    agent.close()


def _app(root: Path) -> ScreenHarness:
    return ScreenHarness(demo_context(root), lambda: ReviewScreen(clock=lambda: T0 + 2 * DAY))


def _text(app: ScreenHarness, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_a_pair_shows_side_by_side_newer_first(tmp_path: Path) -> None:
    _store(tmp_path)
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert app.screen.query_one("#review-pair").display is True
        assert _text(app, "#pair-newer") == (
            "Newer  prefs.md:4  2026-09-22\n- [preference] Prefers spaces"
        )
        assert _text(app, "#pair-older") == (
            "Older  prefs.md:3  2026-09-21\n- [preference] Prefers tabs"
        )
        newer = app.screen.query_one("#pair-newer").region
        older = app.screen.query_one("#pair-older").region
        assert newer.y == older.y and newer.x < older.x


async def test_keep_newer_removes_the_older_line_and_u_undoes_it(
    tmp_path: Path, make_app: AppFactory
) -> None:
    _store(tmp_path)
    app = make_app(tmp_path, clock=lambda: T0 + 2 * DAY)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("r")
        await wait_idle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("n")
        await wait_idle(pilot)
        assert (tmp_path / "prefs.md").read_text() == ("# Prefs\n\n- [preference] Prefers spaces\n")
        assert app.screen.query_one("#review-pair").display is False
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_idle(pilot)
        assert (tmp_path / "prefs.md").read_text() == PREFS
        assert app.screen.query_one("#review-pair").display is True


async def test_keep_both_is_remembered_and_changes_no_file(tmp_path: Path) -> None:
    _store(tmp_path)
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("b")
        await wait_idle(pilot)
        assert app.screen.query_one("#review-pair").display is False
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert all(r.kind != "contradicts" for c in screen.candidates for r in c.reasons)
    assert (tmp_path / "prefs.md").read_text() == PREFS
    assert len(History(tmp_path).kept_pair_keys()) == 1
